#!/usr/bin/python3
"""Writes small CNNs in the quantization styles users bring from other producers, with inputs
and ONNX Runtime 1.30's outputs of the literal graph (--opt disabled), into models/:

  vitis_relu6_cnn          QDQ as Vitis AI leaves it: int8 codes with power-of-two scales, and a
                           Clip(0, 6) between each Conv and its QuantizeLinear (ReLU6 not folded
                           into the quantizer); 3x3, depthwise 3x3 stride 2, 1x1, global pooling.
  dynamic_convinteger_cnn  onnxruntime.quantization.quantize_dynamic's form: DynamicQuantizeLinear
                           -> ConvInteger (uint8 weights, a zero point per tensor) -> Cast -> Mul
                           by x_scale * w_scale -> Add(bias) -> Relu, three times, then a
                           DynamicQuantizeLinear -> MatMulInteger classifier.

The weights are random (fixed seeds); only the structure and the numerics matter. Needs the ORT
peer (../shared/peers/ort, ORT_PEER_DIR) for the expected outputs:
  /usr/bin/python3 tools/make_style_models.py
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_models  # noqa: E402  (its save(): the layout of models/<name>/)
PEER = os.path.join(HERE, "..", "..", "shared", "peers", "ort", "ort_run.js")


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def ort_outputs(model_path, inputs, output_names):
    """ORT 1.30 on the literal graph (no graph optimizations), one thread."""
    with tempfile.TemporaryDirectory() as tmp:
        in_dir, out_dir = os.path.join(tmp, "in"), os.path.join(tmp, "out")
        os.makedirs(in_dir)
        for name, a in inputs:
            np.save(os.path.join(in_dir, name + ".npy"), a)
        subprocess.run(["node", PEER, model_path, "--inputs", in_dir, "--out", out_dir, "--opt", "disabled",
                        "--threads", "1", "--quiet"], check=True)
        return [(n, np.load(os.path.join(out_dir, n + ".npy"))) for n in output_names]


def ort_cpu_class():
    """The CPU class whose MLAS kernels ORT ran here ("avx512" where the CPU has AVX-512F, else
    "avx2"): float softmax rows round differently on the two (runtime/ort_cpu.h)."""
    with open("/proc/cpuinfo") as f:
        return "avx512" if " avx512f" in f.read() else "avx2"


def save(name, model, inputs, readme):
    """make_models.save with ORT's outputs of the model as its expected ones, and the class of
    the CPU ORT ran on in models/<name>/ort_cpu (tests reproduce that ORT's kernels)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(model, path)
        outputs = ort_outputs(path, inputs, [o.name for o in model.graph.output])
    make_models.save(name, model, inputs, outputs, readme)
    with open(os.path.join(make_models.ROOT, name, "ort_cpu"), "w") as f:
        f.write(ort_cpu_class() + "\n")
    print(name, [(n, a.dtype.name, a.shape) for n, a in outputs])


def vitis_relu6_cnn():
    rng = np.random.default_rng(7)
    nodes, inits = [], []
    scale_id = [0]

    def pow2(e):
        n = f"s{scale_id[0]}"
        scale_id[0] += 1
        inits.append(const(n, np.float32(2.0 ** e)))
        return n

    zp = "zp"
    inits.append(const(zp, np.int8(0)))

    def qdq(x, e, tag):
        s = pow2(e)
        nodes.append(helper.make_node("QuantizeLinear", [x, s, zp], [tag + "_q"], name=tag + "_q"))
        nodes.append(helper.make_node("DequantizeLinear", [tag + "_q", s, zp], [tag + "_dq"], name=tag + "_dq"))
        return tag + "_dq"

    def conv(x, cin, cout, k, group, stride, x_exp, tag):
        w = rng.integers(-128, 128, size=(cout, cin // group, k, k), dtype=np.int8)
        w_exp, b_exp = -7, x_exp - 7
        inits.append(const(tag + "_w", w))
        inits.append(const(tag + "_b", rng.integers(-2000, 2000, size=cout, dtype=np.int32)))
        ws, bs = pow2(w_exp), pow2(b_exp)
        inits.append(const(tag + "_wzp", np.int8(0)))
        inits.append(const(tag + "_bzp", np.int32(0)))
        nodes.append(helper.make_node("DequantizeLinear", [tag + "_w", ws, tag + "_wzp"], [tag + "_wf"]))
        nodes.append(helper.make_node("DequantizeLinear", [tag + "_b", bs, tag + "_bzp"], [tag + "_bf"]))
        pad = k // 2
        nodes.append(helper.make_node("Conv", [x, tag + "_wf", tag + "_bf"], [tag + "_y"], name=tag, group=group,
                                      kernel_shape=[k, k], pads=[pad] * 4, strides=[stride, stride]))
        return tag + "_y"

    def relu6(x, tag):
        inits.append(const(tag + "_lo", np.float32(0)))
        inits.append(const(tag + "_hi", np.float32(6)))
        nodes.append(helper.make_node("Clip", [x, tag + "_lo", tag + "_hi"], [tag + "_r"], name=tag + "_relu6"))
        return tag + "_r"

    x = qdq("input", -5, "in")
    y = qdq(relu6(conv(x, 3, 16, 3, 1, 1, -5, "c1"), "c1"), -4, "c1")
    y = qdq(relu6(conv(y, 16, 16, 3, 16, 2, -4, "dw"), "dw"), -4, "dw")
    y = qdq(relu6(conv(y, 16, 32, 1, 1, 1, -4, "pw"), "pw"), -4, "pw")
    y = qdq(conv(y, 32, 32, 3, 1, 1, -4, "c3"), -3, "c3")
    nodes.append(helper.make_node("GlobalAveragePool", [y], ["gap"], name="gap"))
    s = pow2(-1)
    nodes.append(helper.make_node("QuantizeLinear", ["gap", s, zp], ["output"], name="out_q"))
    graph = helper.make_graph(nodes, "vitis_relu6_cnn",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 48, 48])],
                              [helper.make_tensor_value_info("output", TensorProto.INT8, [1, 32, 1, 1])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="qrt")
    model.ir_version = 8
    image = rng.uniform(-1.5, 3.0, size=(1, 3, 48, 48)).astype(np.float32)
    save("vitis_relu6_cnn", model, [("input", image)], """# vitis_relu6_cnn

A QDQ CNN in the form Vitis AI's quantizer leaves: int8 codes, zero points 0, power-of-two
scales, and ReLU6 kept as a Clip(0, 6) between each Conv and its QuantizeLinear. Layers: 3x3
3->16, depthwise 3x3 stride 2, 1x1 16->32 (each with ReLU6), 3x3 32->32, global average pool,
int8 output. Random weights (seed 7); input uniform in [-1.5, 3).

`test_data_set_0`: the input and ONNX Runtime 1.30's output of the literal graph (`--opt
disabled`, one thread). Made by `tools/make_style_models.py`.
""")


def dynamic_convinteger_cnn():
    rng = np.random.default_rng(11)
    nodes, inits = [], []

    def dyn_conv(x, cin, cout, k, stride, tag, relu=True):
        w = rng.integers(0, 256, size=(cout, cin, k, k), dtype=np.uint8)
        inits.append(const(tag + "_w", w))
        inits.append(const(tag + "_wzp", np.uint8(rng.integers(100, 156))))  # ORT: per tensor only
        inits.append(const(tag + "_ws", rng.uniform(0.002, 0.01, size=cout).astype(np.float32)))
        inits.append(const(tag + "_b", rng.uniform(-0.5, 0.5, size=(1, cout, 1, 1)).astype(np.float32)))
        nodes.append(helper.make_node("DynamicQuantizeLinear", [x], [tag + "_xq", tag + "_xs", tag + "_xz"]))
        pad = k // 2
        nodes.append(helper.make_node("ConvInteger", [tag + "_xq", tag + "_w", tag + "_xz", tag + "_wzp"],
                                      [tag + "_acc"], name=tag, kernel_shape=[k, k], pads=[pad] * 4,
                                      strides=[stride, stride]))
        nodes.append(helper.make_node("Cast", [tag + "_acc"], [tag + "_accf"], to=TensorProto.FLOAT))
        nodes.append(helper.make_node("Mul", [tag + "_xs", tag + "_ws"], [tag + "_scale"]))
        inits.append(const(tag + "_shape", np.array([1, cout, 1, 1], dtype=np.int64)))
        nodes.append(helper.make_node("Reshape", [tag + "_scale", tag + "_shape"], [tag + "_scale4"]))
        nodes.append(helper.make_node("Mul", [tag + "_accf", tag + "_scale4"], [tag + "_scaled"]))
        nodes.append(helper.make_node("Add", [tag + "_scaled", tag + "_b"], [tag + "_y"]))
        if not relu:
            return tag + "_y"
        nodes.append(helper.make_node("Relu", [tag + "_y"], [tag + "_r"]))
        return tag + "_r"

    y = dyn_conv("input", 3, 16, 3, 2, "c1")
    y = dyn_conv(y, 16, 32, 3, 1, "c2")
    y = dyn_conv(y, 32, 32, 1, 1, "c3")
    nodes.append(helper.make_node("GlobalAveragePool", [y], ["gap"]))
    inits.append(const("flat_shape", np.array([1, 32], dtype=np.int64)))
    nodes.append(helper.make_node("Reshape", ["gap", "flat_shape"], ["flat"]))
    inits.append(const("fc_w", rng.integers(-128, 128, size=(32, 10), dtype=np.int8)))
    inits.append(const("fc_ws", np.float32(0.004)))
    nodes.append(helper.make_node("DynamicQuantizeLinear", ["flat"], ["fq", "fs", "fz"]))
    nodes.append(helper.make_node("MatMulInteger", ["fq", "fc_w", "fz"], ["fc_acc"], name="fc"))
    nodes.append(helper.make_node("Cast", ["fc_acc"], ["fc_accf"], to=TensorProto.FLOAT))
    nodes.append(helper.make_node("Mul", ["fs", "fc_ws"], ["fc_scale"]))
    nodes.append(helper.make_node("Mul", ["fc_accf", "fc_scale"], ["output"]))
    graph = helper.make_graph(nodes, "dynamic_convinteger_cnn",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 64, 64])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="qrt")
    model.ir_version = 8
    image = rng.uniform(-1.0, 1.0, size=(1, 3, 64, 64)).astype(np.float32)
    save("dynamic_convinteger_cnn", model, [("input", image)], """# dynamic_convinteger_cnn

A CNN in the form `onnxruntime.quantization.quantize_dynamic` writes: per layer,
DynamicQuantizeLinear -> ConvInteger (uint8 weights, a zero point per tensor) -> Cast -> Mul by
x_scale * w_scale -> Add(bias) -> Relu; 3x3 stride 2 3->16, 3x3 16->32, 1x1 32->32, global
average pool, then DynamicQuantizeLinear -> MatMulInteger (int8 weights) -> Cast -> Mul, float
output [1, 10]. Random weights (seed 11); input uniform in [-1, 1).

`test_data_set_0`: the input and ONNX Runtime 1.30's output of the literal graph (`--opt
disabled`, one thread). Made by `tools/make_style_models.py`.
""")


if __name__ == "__main__":
    if not os.environ.get("ORT_PEER_DIR"):
        sys.exit("set ORT_PEER_DIR (bash ../shared/peers/ort/setup.sh)")
    vitis_relu6_cnn()
    dynamic_convinteger_cnn()
