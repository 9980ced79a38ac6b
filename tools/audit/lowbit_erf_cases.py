#!/usr/bin/python3
"""Writes the audit cases that tools/audit/cases.py's DQ -> op -> Q form does not cover, with
ONNX Runtime 1.30's literal output (--opt disabled), as ONNX backend tests for
tests/e2e/audit_test.cc:
  float8_<type>_saturate<0|1>  QuantizeLinear -> DequantizeLinear to each float8 type (opset 21):
                               ties, the largest finite values, infinities, values beyond range
  blocked_<int4|uint4>         the same with 4-bit codes and blocks of 32 along axis 1
  erf_mlas, ms_gelu_mlas_erf   Erf and com.microsoft Gelu (MLAS's erf) on 4096 values

  ORT_PEER_DIR=/tmp/ort-peer /usr/bin/python3 tools/audit/lowbit_erf_cases.py tests/data/audit

python3-onnx 1.12 does not know data types 17-22: their tensors are written as raw bytes.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

PEER = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared",
                                     "peers", "ort", "ort_run.js"))
FLOAT8 = {"e4m3fn": 17, "e4m3fnuz": 18, "e5m2": 19, "e5m2fnuz": 20}


def raw_tensor(name, code, dims, data):
    t = TensorProto()
    t.name, t.data_type = name, code
    t.dims.extend(dims)
    t.raw_data = bytes(data)
    return t


def model(nodes, shape, inits, opsets):
    g = helper.make_graph(nodes, "audit", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    m.ir_version = 10
    return m


def q_dq(zp, scale, attrs):
    return [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["q"], **attrs),
            helper.make_node("DequantizeLinear", ["q", "s", "zp"], ["y"], **{k: v for k, v in attrs.items()
                                                                            if k != "saturate"})]


def write(out, name, m, x):
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "x.npy"), x)
        subprocess.run(["node", PEER, os.path.join(d, "model.onnx"), "--input", "x=" + os.path.join(tmp, "x.npy"),
                        "--opt", "disabled", "--out", tmp], check=True, capture_output=True)
        y = np.load(os.path.join(tmp, "y.npy"))
    with open(os.path.join(d, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(3)
    edges = [0, -0.0, np.inf, -np.inf, 448, 449, 464, 480, 495, 496, 500, 1e6, -1e6, 57344, 61440, 1e-9, 2**-9, 2**-10]
    x = np.concatenate([rng.normal(0, 100, 500), rng.normal(0, 1, 500), edges]).astype(np.float32).reshape(1, -1)
    for name, code in FLOAT8.items():
        for sat in (0, 1):
            inits = [numpy_helper.from_array(np.array(0.5, np.float32), "s"), raw_tensor("zp", code, [], [0])]
            write(out, f"float8_{name}_saturate{sat}", model(q_dq("zp", "s", {"saturate": sat}), list(x.shape), inits,
                                                              [("", 21)]), x)
    w = rng.normal(0, 1, (8, 256)).astype(np.float32)
    for name, code, zp_byte in (("int4", 22, 0x00), ("uint4", 21, 0x88)):
        scale = np.abs(rng.normal(0.1, 0.02, (8, 8))).astype(np.float32)
        inits = [numpy_helper.from_array(scale, "s"), raw_tensor("zp", code, [8, 8], [zp_byte] * 32)]
        write(out, f"blocked_{name}", model(q_dq("zp", "s", {"axis": 1, "block_size": 32}), [8, 256], inits,
                                            [("", 21)]), w)
    e = np.concatenate([rng.uniform(-4, 4, 2048), rng.uniform(-1, 1, 2048)]).astype(np.float32).reshape(1, 1, -1)
    for name, op, domain in (("erf_mlas", "Erf", ""), ("ms_gelu_mlas_erf", "Gelu", "com.microsoft")):
        write(out, name, model([helper.make_node(op, ["x"], ["y"], domain=domain)], list(e.shape), [],
                               [("", 17), ("com.microsoft", 1)]), e)


if __name__ == "__main__":
    main()
