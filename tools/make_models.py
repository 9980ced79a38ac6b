#!/usr/bin/python3
"""Writes the small models qrt ships in models/, with inputs and expected outputs.

Each model is a QDQ graph whose float ops are exact in float32 (DequantizeLinear, Mul,
Add, QuantizeLinear), so numpy's float32 evaluation below is the exact expected result.
Run with Debian's python3 (python3-onnx, python3-numpy): /usr/bin/python3 tools/make_models.py
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models")


def dq(x, scale, zp):
    return (x.astype(np.float32) - np.float32(zp)) * np.float32(scale)


def q(x, scale, zp, dtype):
    info = np.iinfo(dtype)
    r = np.rint(x.astype(np.float32) / np.float32(scale)) + np.float32(zp)
    return np.clip(r, info.min, info.max).astype(dtype)


def save(name, model, inputs, outputs, readme):
    d = os.path.join(ROOT, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for k, (n, a) in enumerate(inputs):
        with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    for k, (n, a) in enumerate(outputs):
        with open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    with open(os.path.join(d, "README.md"), "w") as f:
        f.write(readme)


def qdq_mul_add():
    """x (u8) -> DQ -> Mul DQ(w) -> Q -> DQ -> Add DQ(b) -> Q -> DQ -> y (f32)."""
    rng = np.random.default_rng(20261129)
    shape = [1, 8, 4, 4]
    sx, zx = 0.05, 128
    w = rng.integers(0, 256, size=[1, 8, 1, 1], dtype=np.uint8)
    sw, zw = 0.02, 120
    sm, zm = 0.03, 100
    b = rng.integers(0, 256, size=[1, 8, 4, 4], dtype=np.uint8)
    sb, zb = 0.04, 130
    sy, zy = 0.06, 110

    def const(name, value, dtype):
        return numpy_helper.from_array(np.array(value, dtype=dtype), name)

    inits = [const("sx", sx, np.float32), const("zx", zx, np.uint8), numpy_helper.from_array(w, "w"),
             const("sw", sw, np.float32), const("zw", zw, np.uint8), const("sm", sm, np.float32),
             const("zm", zm, np.uint8), numpy_helper.from_array(b, "b"), const("sb", sb, np.float32),
             const("zb", zb, np.uint8), const("sy", sy, np.float32), const("zy", zy, np.uint8)]
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "sx", "zx"], ["x_f"], name="dq_x"),
        helper.make_node("DequantizeLinear", ["w", "sw", "zw"], ["w_f"], name="dq_w"),
        helper.make_node("Mul", ["x_f", "w_f"], ["m_f"], name="mul"),
        helper.make_node("QuantizeLinear", ["m_f", "sm", "zm"], ["m_q"], name="q_m"),
        helper.make_node("DequantizeLinear", ["m_q", "sm", "zm"], ["m_f2"], name="dq_m"),
        helper.make_node("DequantizeLinear", ["b", "sb", "zb"], ["b_f"], name="dq_b"),
        helper.make_node("Add", ["m_f2", "b_f"], ["a_f"], name="add"),
        helper.make_node("QuantizeLinear", ["a_f", "sy", "zy"], ["y_q"], name="q_y"),
        helper.make_node("DequantizeLinear", ["y_q", "sy", "zy"], ["y"], name="dq_y"),
    ]
    graph = helper.make_graph(nodes, "qdq_mul_add",
                              [helper.make_tensor_value_info("x", TensorProto.UINT8, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="qrt make_models.py")
    model.ir_version = 8
    x = rng.integers(0, 256, size=shape, dtype=np.uint8)
    m = q(dq(x, sx, zx) * dq(w, sw, zw), sm, zm, np.uint8)
    a = q(dq(m, sm, zm) + dq(b, sb, zb), sy, zy, np.uint8)
    y = dq(a, sy, zy)
    readme = """# qdq_mul_add

A QDQ graph made by `tools/make_models.py` (qrt's own, no third-party weights):
`x:u8[1,8,4,4] -> DQ -> Mul(DQ(w:u8[1,8,1,1])) -> Q -> DQ -> Add(DQ(b:u8[1,8,4,4])) -> Q -> DQ -> y:f32`.
It holds one DQ->Mul->Q and one DQ->Add->Q chain (the fusion passes' targets) with a
per-channel-shaped broadcast operand.

- Weights and input: numpy `default_rng(20261129)`, uniform uint8.
- Expected output (`test_data_set_0/output_0.pb`): numpy float32 evaluation of the same
  graph, op by op (`(x - zp) * scale`, `rint(x / scale) + zp` clipped). Every op here is a
  single IEEE float32 operation, so the expected output is exact: qrt must match it bit for bit.
- Regenerate: `/usr/bin/python3 tools/make_models.py` (numpy 1.24, onnx 1.12 on Debian 12).
"""
    save("qdq_mul_add", model, [("x", x)], [("y", y)], readme)


if __name__ == "__main__":
    qdq_mul_add()
    print("models written to", os.path.normpath(ROOT), file=sys.stderr)
