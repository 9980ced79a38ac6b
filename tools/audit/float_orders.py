#!/usr/bin/python3
"""Float-order audit: single float32 ops on inputs spread over many magnitudes (so that any
other summation order gives other bits), run through ONNX Runtime (../shared/peers/ort,
--opt disabled, 1 thread) and through qrt; prints the elements that differ per case.

  /usr/bin/python3 tools/audit/float_orders.py [--qrt build/qrt] [--filter REGEX]
  /usr/bin/python3 tools/audit/float_orders.py --write-data tests/data/float_orders

--write-data keeps each case as an ONNX backend test (model.onnx, test_data_set_0 with ORT's
outputs) for tests/e2e/float_orders_test.cc, which requires qrt's bits without ORT. Only
cases qrt already matches are written; the others are printed, to be fixed first.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ORT_RUN = os.path.join(ROOT, "..", "shared", "peers", "ort", "ort_run.js")


def spread(shape, seed, lo=-30, hi=10):
    """sign * [1, 2) * 2^[lo, hi]: any change of order changes bits."""
    rng = np.random.default_rng(seed)
    m = rng.uniform(1, 2, size=shape) * np.exp2(rng.integers(lo, hi + 1, size=shape))
    return (m * rng.choice([-1, 1], size=shape)).astype(np.float32)


def near_one(shape, seed):
    rng = np.random.default_rng(seed)
    return (1 + rng.uniform(-0.01, 0.01, size=shape)).astype(np.float32)


def normal(shape, seed):
    return np.random.default_rng(seed).normal(0, 3, size=shape).astype(np.float32)


def case(name, op, inputs, attrs=None, opset=18, consts=(), outputs=1, domain=""):
    """inputs: list of numpy arrays (graph inputs); consts: (name, array) initializers appended."""
    return dict(name=name, op=op, inputs=inputs, attrs=attrs or {}, opset=opset, consts=list(consts), outputs=outputs,
                domain=domain)


def reduce_cases():
    shapes = [("kr", [4, 37], [-1]), ("kr_aligned", [3, 64], [1]), ("rk", [37, 4], [0]), ("krk", [3, 50, 6], [1]),
              ("all", [7, 33, 5], None), ("other", [2, 3, 4, 5], [1, 3]), ("pool", [1, 8, 5, 5], [2, 3]),
              ("seq_axis", [1, 28, 64], [1])]
    out = []
    for op in ["ReduceSum", "ReduceMean", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum",
               "ReduceLogSumExp", "ReduceProd", "ReduceMax", "ReduceMin"]:
        for tag, shape, axes in shapes:
            seed = len(out)
            if op == "ReduceProd":
                x = near_one(shape, seed)
            elif op in ("ReduceLogSum",):
                x = np.abs(spread(shape, seed))
            elif op == "ReduceLogSumExp":
                x = normal(shape, seed)
            else:
                x = spread(shape, seed)
            consts = [("axes", np.array(axes, np.int64))] if axes is not None else []
            out.append(case(f"{op.lower()}_{tag}", op, [x], {"keepdims": 0}, consts=consts))
    return out


def other_cases():
    out = []
    for shape in ([2, 5, 64], [3, 384], [10, 1003], [30, 9], [4, 16], [20, 14], [20, 13], [30, 5], [30, 1], [30, 7]):
        n = shape[-1]
        name = "layernorm_" + "x".join(map(str, shape))
        out.append(case(name, "LayerNormalization", [normal(shape, n)], {"axis": -1, "epsilon": 1e-5}, opset=17,
                        consts=[("scale", normal([n], 1)), ("bias", normal([n], 2))]))
    x = normal([4, 300], 3)
    for e in (2.0, 3.0, 0.5, 2.2):
        out.append(case(f"pow_scalar_{str(e).replace('.', '_')}", "Pow", [np.abs(x)], consts=[("e", np.array(e, np.float32))]))
    out.append(case("pow_tensor", "Pow", [np.abs(x), normal([4, 300], 4) / 3]))
    for op in ("Sqrt", "Reciprocal", "Floor", "Ceil", "Round"):
        data = np.abs(x) if op == "Sqrt" else x
        if op == "Round":
            data = (np.round(x * 2) / 2).astype(np.float32)  # ties
        out.append(case(op.lower(), op, [data]))
    for axis in (-1, 0):
        out.append(case(f"logsoftmax_axis{axis}", "LogSoftmax", [normal([6, 37], 5)], {"axis": axis}, opset=13))
    out.append(case("mean_three", "Mean", [spread([5, 7], 6), spread([7], 7), spread([5, 1], 8)], opset=13))
    out.append(case("sum_three", "Sum", [spread([5, 7], 9), spread([7], 10), spread([5, 1], 11)], opset=13))
    out.append(case("cumsum", "CumSum", [spread([3, 40], 12)], consts=[("axis", np.array(1, np.int64))], opset=14))
    for shape in ([2, 3, 5, 7], [1, 4, 9, 16], [1, 3, 13, 11], [3, 5, 37, 1]):
        c = shape[1]
        out.append(case("instancenorm_" + "x".join(map(str, shape)), "InstanceNormalization", [normal(shape, 13)],
                        consts=[("s", normal([c], 14)), ("b", normal([c], 15))], opset=6))
    w = normal([4, 3, 3, 3], 17)
    convt = [("convtranspose_s2_pads", [normal([2, 4, 7, 6], 18)], {"strides": [2, 2], "pads": [1, 0, 1, 1]}, w, 3),
             ("convtranspose_groups_dil", [normal([1, 4, 5, 5], 19)], {"group": 2, "dilations": [2, 1]},
              normal([4, 2, 3, 2], 20), 4),
             ("convtranspose_wide_cin", [normal([1, 40, 4, 4], 21)], {"strides": [2, 2], "output_padding": [1, 1]},
              normal([40, 3, 3, 3], 22), 3),
             ("convtranspose_1d", [normal([2, 3, 11], 23)], {"strides": [3]}, normal([3, 2, 4], 24), 2),
             ("convtranspose_3d", [normal([1, 2, 3, 4, 3], 25)], {"strides": [1, 2, 1]}, normal([2, 2, 2, 2, 2], 26), 2)]
    img = normal([1, 2, 5, 7], 28)
    grid = np.random.default_rng(29).uniform(-1.3, 1.3, (1, 4, 6, 2)).astype(np.float32)
    for mode in ("bilinear", "nearest", "bicubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (0, 1):
                out.append(case(f"gridsample_{mode}_{padding}_{align}", "GridSample", [img, grid],
                                {"mode": mode, "padding_mode": padding, "align_corners": align}, opset=16))
    up = normal([1, 2, 3, 4], 30)
    for mode in ("nearest", "linear"):
        out.append(case(f"upsample7_{mode}", "Upsample", [up], {"mode": mode, "scales": [1.0, 1.0, 2.0, 1.5]}, opset=7))
        out.append(case(f"upsample9_{mode}", "Upsample", [up], {"mode": mode}, opset=9,
                        consts=[("scales", np.array([1, 1, 2.5, 3], np.float32))]))
    feat = normal([2, 3, 9, 11], 31)
    rois = np.array([[0.5, 1.2, 7.3, 6.1], [2.0, 0.0, 10.5, 8.9], [-1.0, -2.0, 3.0, 4.0]], np.float32)
    for mode in ("avg", "max"):
        for coord in ("half_pixel", "output_half_pixel"):
            out.append(case(f"roialign_{mode}_{coord}", "RoiAlign", [feat, rois],
                            {"mode": mode, "coordinate_transformation_mode": coord, "output_height": 3,
                             "output_width": 2, "spatial_scale": 0.8}, opset=16,
                            consts=[("batch", np.array([1, 0, 1], np.int64))]))
    out.append(case("roialign_sampling2", "RoiAlign", [feat, rois], {"sampling_ratio": 2, "output_height": 2,
                                                                      "output_width": 2}, opset=16,
                    consts=[("batch", np.array([0, 1, 0], np.int64))]))
    h = normal([2, 5, 24], 32)
    bias24 = normal([24], 33)
    ms = "com.microsoft"
    out.append(case("ms_gelu", "Gelu", [h], domain=ms, opset=17))
    out.append(case("ms_biasgelu", "BiasGelu", [h], consts=[("b", bias24)], domain=ms, opset=17))
    out.append(case("ms_fastgelu_bias", "FastGelu", [h], consts=[("b", bias24)], domain=ms, opset=17))
    out.append(case("ms_quickgelu", "QuickGelu", [h], domain=ms, opset=17))
    out.append(case("ms_skiplayernorm", "SkipLayerNormalization", [h, normal([2, 5, 24], 34)],
                    {"epsilon": 1e-5}, consts=[("g", normal([24], 35)), ("be", normal([24], 36)), ("bi", bias24)],
                    domain=ms, opset=17))
    for name, ins, attrs, wt, cout in convt:
        out.append(case(name, "ConvTranspose", ins, attrs, opset=11, consts=[("w", wt), ("b", normal([cout], 27))]))
    out.append(case("softplus", "Softplus", [normal([4, 50], 16)], opset=1))
    return out


def make_model(c):
    ins, inits, names = [], [], []
    for k, a in enumerate(c["inputs"]):
        ins.append(helper.make_tensor_value_info(f"x{k}", TensorProto.FLOAT, list(a.shape)))
        names.append(f"x{k}")
    for n, a in c["consts"]:
        inits.append(numpy_helper.from_array(a, n))
        names.append(n)
    outs = [f"y{k}" for k in range(c["outputs"])]
    node = helper.make_node(c["op"], names, outs, name="op", domain=c["domain"] or None, **c["attrs"])
    graph = helper.make_graph([node], c["name"], ins, [helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
                                                        for o in outs], inits)
    opsets = [helper.make_opsetid("", c["opset"])]
    if c["domain"]:
        opsets.append(helper.make_opsetid(c["domain"], 1))
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    return model


def write_case(c, d):
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(make_model(c), os.path.join(d, "model.onnx"))
    for k, a in enumerate(c["inputs"]):
        with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, f"x{k}").SerializeToString())


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    return r.returncode, (r.stderr.strip().splitlines() or [""])[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--qrt", default=os.path.join(ROOT, "build", "qrt"))
    ap.add_argument("--filter", default="")
    ap.add_argument("--write-data")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="qrt-float-orders-")
    cases = [c for c in reduce_cases() + other_cases() if re.search(args.filter, c["name"])]
    bad = 0
    for c in cases:
        d = os.path.join(work, c["name"])
        write_case(c, d)
        rc, err = run(["node", ORT_RUN, os.path.join(d, "model.onnx"), "--inputs", os.path.join(d, "test_data_set_0"),
                       "--out", os.path.join(d, "ort"), "--opt", "disabled", "--threads", "1", "--quiet"])
        if rc != 0:
            print(f"{c['name']:32s} ORT failed: {err}")
            continue
        ort = np.load(os.path.join(d, "ort", "y0.npy"))
        rc, err = run([args.qrt, "run", os.path.join(d, "model.onnx"), "--inputs", os.path.join(d, "test_data_set_0"),
                       "--output-dir", os.path.join(d, "qrt"), "--passes", "none"])
        if rc != 0:
            print(f"{c['name']:32s} qrt failed: {err}")
            bad += 1
            continue
        got = np.load(os.path.join(d, "qrt", "y0.npy"))
        diff = int((got.view(np.uint32) != ort.view(np.uint32)).sum()) if got.shape == ort.shape else -1
        bad += diff != 0
        worst = float(np.max(np.abs(got.astype(np.float64) - ort)) / max(float(np.max(np.abs(ort))), 1e-30)) if diff > 0 else 0.0
        print(f"{c['name']:32s} {diff:6d} of {ort.size} elements differ" + (f" (max difference {worst:.1e} of the largest magnitude)" if diff else ""))
        if args.write_data and diff == 0:
            out = os.path.join(args.write_data, c["name"])
            shutil.rmtree(out, ignore_errors=True)
            shutil.copytree(os.path.join(d, "test_data_set_0"), os.path.join(out, "test_data_set_0"))
            shutil.copy(os.path.join(d, "model.onnx"), out)
            with open(os.path.join(out, "test_data_set_0", "output_0.pb"), "wb") as f:
                f.write(numpy_helper.from_array(ort, "y0").SerializeToString())
    shutil.rmtree(work, ignore_errors=True)
    print(f"{len(cases)} cases, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
