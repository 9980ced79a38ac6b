#!/usr/bin/python3
"""Exactness audit: tie-heavy DequantizeLinear -> op -> QuantizeLinear models (cases.py) run
through ONNX Runtime (../shared/peers/ort, --opt disabled: its literal graph) and through qrt
(--passes none and default, at every ISA tier this CPU runs), and a table of the outputs that
differ, per op and case.

  /usr/bin/python3 tools/audit/audit_qdq.py [--qrt build/qrt] [--filter REGEX] [--keep DIR]
  /usr/bin/python3 tools/audit/audit_qdq.py --write-data tests/data/audit   # refresh the test data

--write-data writes each case as an ONNX backend test (model.onnx, test_data_set_0/input_0.pb,
and ONNX Runtime's output as output_0.pb) for tests/e2e/audit_test.cc, which checks qrt
against them without ONNX Runtime. Needs node and onnxruntime-node (the peer's setup.sh);
ORT_PEER_DIR as there.
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as audit_cases  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ORT_RUN = os.path.join(ROOT, "..", "shared", "peers", "ort", "ort_run.js")


def onnx_type(qtype):
    return TensorProto.UINT8 if qtype == np.uint8 else TensorProto.INT8


def make_model(c):
    """The case's model and its input: x -> DequantizeLinear -> op -> QuantizeLinear -> y, or
    without the quantizers where the case says so (the integer and QOperator ops)."""
    qtype = c["qtype"]
    info = np.iinfo(qtype)
    inits = [numpy_helper.from_array(np.array(c["scale"], np.float32), "scale"),
             numpy_helper.from_array(np.array(c["zp"], qtype), "zero_point")]
    nodes = []
    x_in = "x"
    if c["dequantize"]:
        nodes.append(helper.make_node("DequantizeLinear", ["x", "scale", "zero_point"], ["x_f"], name="dq"))
        x_in = "x_f"
    op_inputs = [] if c.get("x_in_consts") else [x_in]
    for k, v in enumerate(c["consts"]):
        if v is None:
            op_inputs.append("")
        elif isinstance(v, str) and v in ("dq", "x"):
            op_inputs.append(x_in)
        else:
            name = f"c{k}"
            inits.append(numpy_helper.from_array(np.asarray(v), name))
            op_inputs.append(name)
    while op_inputs and op_inputs[-1] == "":
        op_inputs.pop()
    op_out = "y_f" if c["quantize"] else "y"
    op_outs = [op_out] + [f"unused_{k}" for k in range(c["extra_outputs"])]
    nodes.append(helper.make_node(c["op"], op_inputs, op_outs, name="op", domain=c["domain"] or None, **c["attrs"]))
    if c["quantize"]:
        nodes.append(helper.make_node("QuantizeLinear", ["y_f", "scale", "zero_point"], ["y"], name="q"))
        out_type = onnx_type(qtype)
    else:
        out_type = c["out_type"]
    graph = helper.make_graph(nodes, c["name"], [helper.make_tensor_value_info("x", onnx_type(qtype), c["shape"])],
                              [helper.make_tensor_value_info("y", out_type, None)], inits)
    opsets = [helper.make_opsetid("", c["opset"])]
    if c["domain"]:
        opsets.append(helper.make_opsetid(c["domain"], 1))
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    rng = np.random.default_rng(1000 + c["seed"])
    x = rng.integers(int(info.min), int(info.max) + 1, size=c["shape"], dtype=np.int64)
    flat = x.reshape(-1)
    if flat.size >= 2:
        flat[0], flat[-1] = info.min, info.max
    return model, x.astype(qtype)


def write_case(c, d):
    model, x = make_model(c)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())


def run_ort(d):
    out = os.path.join(d, "ort")
    r = subprocess.run(["node", ORT_RUN, os.path.join(d, "model.onnx"), "--inputs", os.path.join(d, "test_data_set_0"),
                        "--out", out, "--opt", "disabled", "--threads", "1", "--quiet"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        lines = r.stderr.strip().splitlines() or ["failed"]
        return None, next((l for l in lines if l.startswith("Error:")), lines[-1])
    return np.load(os.path.join(out, "y.npy")), None


def ort_cpu():
    """The class of this CPU's MLAS kernels, which made ORT's outputs here (runtime/ort_cpu.h):
    qrt reproduces it at every tier (QRT_ORT_CPU), and the test data records it (ort_cpu)."""
    return "avx512" if re.search(r"\bavx512f\b", open("/proc/cpuinfo").read()) else "avx2"


def l2_bytes():
    """The L2 size ORT reads (sysconf), which sizes its flash attention's blocks."""
    return int(subprocess.run(["getconf", "LEVEL2_CACHE_SIZE"], capture_output=True, text=True).stdout.strip() or 0)


def write_ort_backend_case(model_dir, inputs_dir, dst):
    """Runs ORT (--opt disabled, one thread) on model_dir/model.onnx with the inputs in inputs_dir
    (<name>.npy) and writes the case in the ONNX backend-test layout into dst: model.onnx,
    test_data_set_0/input_k.pb in graph-input order, ORT's outputs as output_k.pb, and ort_cpu
    (the CPU class and L2 size ORT's kernels depended on)."""
    out_dir = os.path.join(model_dir, "ort")
    subprocess.run(["node", ORT_RUN, os.path.join(model_dir, "model.onnx"), "--inputs", inputs_dir, "--out", out_dir,
                    "--opt", "disabled", "--threads", "1", "--quiet"], check=True)
    model = onnx.load(os.path.join(model_dir, "model.onnx"))
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(os.path.join(dst, "test_data_set_0"))
    shutil.copy(os.path.join(model_dir, "model.onnx"), dst)
    for prefix, values, folder in (("input", model.graph.input, inputs_dir), ("output", model.graph.output, out_dir)):
        for k, v in enumerate(values):
            a = np.load(os.path.join(folder, v.name + ".npy"))
            with open(os.path.join(dst, "test_data_set_0", f"{prefix}_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, v.name).SerializeToString())
    with open(os.path.join(dst, "ort_cpu"), "w") as f:
        f.write(f"{ort_cpu()} l2={l2_bytes()}\n")


def tiers():
    """(name, --isa, environment) for every tier this CPU runs."""
    flags = open("/proc/cpuinfo").read()
    out = [("scalar", "scalar", {})]
    if re.search(r"\bavx2\b", flags):
        out.append(("avx2", "avx2", {"QRT_MAX_ISA": "avx2"}))
    if re.search(r"\bavx512f\b", flags):
        out.append(("avx512", "avx2", {}))
    return out


def run_qrt(qrt, d, passes, tier):
    tname, isa, env = tier
    out = os.path.join(d, f"qrt_{passes}_{tname}")
    r = subprocess.run([qrt, "run", os.path.join(d, "model.onnx"), "--inputs", os.path.join(d, "test_data_set_0"),
                        "--output-dir", out, "--passes", passes, "--isa", isa],
                       capture_output=True, text=True, env={**os.environ, "QRT_ORT_CPU": ort_cpu(), **env})  # this machine's L2 by default
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["failed"])[-1]
    return np.load(os.path.join(out, "y.npy")), None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--qrt", default=os.path.join(ROOT, "build", "qrt"))
    ap.add_argument("--filter", default="")
    ap.add_argument("--keep", help="work folder to keep (default: a temporary one)")
    ap.add_argument("--write-data", help="write the cases and ORT's outputs here as test data")
    args = ap.parse_args()

    work = args.keep or tempfile.mkdtemp(prefix="qrt-audit-")
    selected = [c for c in audit_cases.all_cases() if re.search(args.filter, c["name"])]
    settings = [(p, t) for p in ("none", "default") for t in tiers()]
    rows, per_op = [], {}
    for c in selected:
        d = os.path.join(work, c["name"])
        write_case(c, d)
        if c["exception"]:
            rows.append((c["op"], c["name"], f"exception: {c['exception']}"))
            continue
        ref, err = run_ort(d)
        if ref is None:
            rows.append((c["op"], c["name"], f"ORT refuses: {err}"))
            stats = per_op.setdefault(c["op"], {"cases": 0, "outputs": 0, "differ": 0, "steps": 0, "errors": 0})
            stats["errors"] += 1
            continue
        if args.write_data:
            dst = os.path.join(args.write_data, c["name"])
            os.makedirs(os.path.join(dst, "test_data_set_0"), exist_ok=True)
            shutil.copy(os.path.join(d, "model.onnx"), dst)
            shutil.copy(os.path.join(d, "test_data_set_0", "input_0.pb"), os.path.join(dst, "test_data_set_0"))
            with open(os.path.join(dst, "test_data_set_0", "output_0.pb"), "wb") as f:
                f.write(numpy_helper.from_array(ref, "y").SerializeToString())
            with open(os.path.join(dst, "ort_cpu"), "w") as f:
                f.write(f"{ort_cpu()} l2={l2_bytes()}\n")
        cells = []
        stats = per_op.setdefault(c["op"], {"cases": 0, "outputs": 0, "differ": 0, "steps": 0, "errors": 0})
        stats["cases"] += 1
        stats["outputs"] += ref.size
        worst = 0
        for passes, tier in settings:
            tname = tier[0]
            got, err = run_qrt(args.qrt, d, passes, tier)
            if got is None:
                cells.append(f"{passes}/{tname}: error {err}")
                stats["errors"] += 1
                continue
            if got.shape != ref.shape:
                cells.append(f"{passes}/{tname}: shape {got.shape} vs {ref.shape}")
                stats["errors"] += 1
                continue
            if ref.dtype.kind == "f":  # float outputs: bitwise, the largest difference in ulps
                bits = {2: np.int16, 4: np.int32, 8: np.int64}[ref.dtype.itemsize]
                diff = np.abs(got.view(bits).astype(np.int64) - ref.view(bits).astype(np.int64))
            else:
                diff = np.abs(got.astype(np.int64) - ref.astype(np.int64))
            if got.dtype != ref.dtype:
                cells.append(f"{passes}/{tname}: dtype {got.dtype} vs {ref.dtype}")
                stats["errors"] += 1
                continue
            n = int(np.count_nonzero(diff))
            worst = max(worst, n)
            stats["steps"] = max(stats["steps"], int(diff.max()) if diff.size else 0)
            if n:
                cells.append(f"{passes}/{tname}: {n} of {ref.size} differ (max {int(diff.max())} steps)")
        stats["differ"] += worst
        rows.append((c["op"], c["name"], "; ".join(cells) if cells else f"equal ({ref.size} outputs)"))

    width = max([len(r[1]) for r in rows] + [4])
    for op, name, what in rows:
        print(f"{op:20s} {name:{width}s} {what}")
    print()
    print(f"{'op':20s} {'cases':>5s} {'outputs':>8s} {'differing':>9s} {'max steps':>9s} {'errors':>6s}")
    bad = 0
    for op, s in sorted(per_op.items()):
        print(f"{op:20s} {s['cases']:5d} {s['outputs']:8d} {s['differ']:9d} {s['steps']:9d} {s['errors']:6d}")
        bad += s["differ"] + s["errors"]
    print(f"\nsettings: passes none/default x tiers {', '.join(t[0] for t in tiers())}; "
          f"'differing' counts the worst setting of each case")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
