#!/usr/bin/python3
"""Writes com.microsoft MatMulNBits audit cases (bits 4) with ONNX Runtime 1.30's literal output
(--opt disabled, 1 thread), as ONNX backend tests for tests/e2e/audit_test.cc:
  matmul_nbits_bs<B>_k<K>_n<N>_m<M>[_zp][_bias][_acc4][_3d]
  dq_int4_matmul_<type>_m<M>   opset-21 DequantizeLinear of int4/uint4 weights in blocks of 32
                               along K, then MatMul (what fuse-dq-int4-matmul takes)

A and the scales are spread over many binades (sign * [1, 2) * 2^e), so that any other order of
the sums gives other bits; the cases cover every block size, one row and several (odd and even,
for accuracy_level 4's row pairs), N % 4 tails, K not a multiple of 16 or of the block, zero
points, bias and a 3-D A.

  ORT_PEER_DIR=/tmp/ort-peer /usr/bin/python3 tools/audit/nbits_cases.py tests/data/audit

With --ort-cpu avx2 (an AVX-512 machine with CPUID faulting and build/libqrt_hide_avx512.so):
the one-row fp32 cases again and accuracy_level 4 cases, ORT run with AVX-512 hidden (its AVX2
kernels, other orders), named ..._ortavx2 with an `ort_cpu` file saying so (tests/test_util.h,
OrtCpuOfData). With --ort-cpu avx512-novnni: accuracy_level 4 with blocks of 128 and 256, ORT run
with only AVX512_VNNI hidden (QRT_HIDE_AVX512=vnni), named ..._ortnovnni.
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


def spread(rng, shape, lo, hi):
    return (rng.choice([-1.0, 1.0], shape) * rng.uniform(1, 2, shape) * np.exp2(rng.integers(lo, hi + 1, shape))
            ).astype(np.float32)


def nibbles(values):
    """Pairs of 4-bit values along the last axis, the even one in the low nibble."""
    return (values[..., 0::2] | (values[..., 1::2] << 4)).astype(np.uint8)


def model(rng, m, k, n, block, zp, bias, accuracy, batch):
    blocks = (k + block - 1) // block
    codes = rng.integers(0, 16, (n, blocks, block)).astype(np.uint8)
    inits = [numpy_helper.from_array(nibbles(codes), "B"),
             numpy_helper.from_array(spread(rng, (n * blocks,), -8, 4), "scales")]
    inputs = ["x", "B", "scales"]
    if zp:
        z = np.zeros((n, (blocks + 1) // 2 * 2), np.uint8)
        z[:, :blocks] = rng.integers(0, 16, (n, blocks))
        inits.append(numpy_helper.from_array(nibbles(z), "zp"))
        inputs.append("zp")
    if bias:
        inputs += [""] * (5 - len(inputs)) + ["bias"]
        inits.append(numpy_helper.from_array(spread(rng, (n,), -10, 10), "bias"))
    attrs = dict(K=k, N=n, bits=4, block_size=block)
    if accuracy is not None:
        attrs["accuracy_level"] = accuracy
    shape = [batch, m, k] if batch else [m, k]
    node = helper.make_node("MatMulNBits", inputs, ["y"], domain="com.microsoft", **attrs)
    g = helper.make_graph([node], "audit", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    mod = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    mod.ir_version = 10
    return mod, spread(rng, shape, -20, 10)


def int4_tensor(name, signed, values):
    """python3-onnx 1.12 does not know INT4 (22) / UINT4 (21): raw bytes, two values per byte."""
    flat = (values.reshape(-1).astype(np.int64) & 15).astype(np.uint8)
    if flat.size % 2:
        flat = np.append(flat, np.uint8(0))
    t = onnx.TensorProto()
    t.name, t.data_type = name, 22 if signed else 21
    t.dims.extend(values.shape)
    t.raw_data = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).tobytes()
    return t


def dq_int4_matmul(rng, m, k, n, signed):
    lo, hi = (-8, 7) if signed else (0, 15)
    blocks = (k + 31) // 32
    inits = [int4_tensor("w", signed, rng.integers(lo, hi + 1, (k, n))),
             numpy_helper.from_array(spread(rng, (blocks, n), -10, 0), "s"),
             int4_tensor("z", signed, rng.integers(lo, hi + 1, (blocks, n)))]
    nodes = [helper.make_node("DequantizeLinear", ["w", "s", "z"], ["wf"], axis=0, block_size=32),
             helper.make_node("MatMul", ["x", "wf"], ["y"])]
    g = helper.make_graph(nodes, "audit", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    mod = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
    mod.ir_version = 10
    return mod, spread(rng, (m, k), -20, 10)


HIDE_AVX512 = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build",
                                            "libqrt_hide_avx512.so"))


def write(out, name, m, x, ort_cpu=None):
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "x.npy"), x)
        env = None
        if ort_cpu in ("avx2", "avx512-novnni"):  # AVX-512 hidden, or only AVX512_VNNI
            env = dict(os.environ, LD_PRELOAD=HIDE_AVX512)
            if ort_cpu == "avx512-novnni":
                env["QRT_HIDE_AVX512"] = "vnni"
        subprocess.run(["node", PEER, os.path.join(d, "model.onnx"), "--input", "x=" + os.path.join(tmp, "x.npy"),
                        "--opt", "disabled", "--threads", "1", "--out", tmp], check=True, capture_output=True, env=env)
        y = np.load(os.path.join(tmp, "y.npy"))
    with open(os.path.join(d, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())
    if ort_cpu:
        with open(os.path.join(d, "ort_cpu"), "w") as f:
            f.write(ort_cpu + "\n")


def ort_avx2_cases(out):
    """One row, fp32: every block size, K tails inside a sub-block and past one (the 32-k
    sub-blocks of larger blocks), N % 4 tails, zero points and bias either way, -0 sums."""
    probe = subprocess.run(["node", "-e", "0"], env=dict(os.environ, LD_PRELOAD=HIDE_AVX512,
                                                          QRT_HIDE_AVX512_REPORT="1"), capture_output=True, text=True)
    if "hide_avx512: active" not in probe.stderr:
        sys.exit(f"--ort-cpu avx2 needs {HIDE_AVX512} active here: {probe.stderr.strip()}")
    rng = np.random.default_rng(73)
    shapes = [(16, 48, 5, True, True), (16, 20, 7, False, False), (16, 4096, 4, True, False),
              (32, 32, 3, False, False), (32, 200, 9, True, True), (32, 40, 6, False, True),
              (64, 64, 1, True, False), (64, 100, 8, False, True), (64, 72, 13, True, False),
              (128, 130, 9, True, True), (128, 160, 4, False, False), (256, 1000, 3, True, True),
              (256, 300, 11, False, True)]
    for block, k, n, zp, bias in shapes:
        name = f"matmul_nbits_bs{block}_k{k}_n{n}_m1" + ("_zp" if zp else "") + ("_bias" if bias else "") + "_ortavx2"
        mod, x = model(rng, 1, k, n, block, zp, bias, None, 0)
        write(out, name, mod, x, "avx2")
        print(name)
    # accuracy_level 4: one row (MLAS's M1 kernels: codes minus zero point) and several (block
    # sums), blocks of 16 in fours and alone, of 32 in pairs and alone, 64-k chunks of larger ones.
    rng = np.random.default_rng(79)
    shapes = [(16, 112, 5, 1, True, True), (16, 200, 9, 3, False, False), (32, 224, 6, 1, True, False),
              (32, 160, 7, 1, False, True), (32, 250, 4, 2, True, True), (64, 190, 13, 1, True, True),
              (64, 256, 3, 4, False, False), (128, 300, 6, 1, False, True), (128, 383, 5, 3, True, False),
              (256, 512, 9, 1, True, False), (256, 700, 4, 5, False, True), (16, 48, 18, 1, False, False)]
    for block, k, n, m, zp, bias in shapes:
        name = (f"matmul_nbits_bs{block}_k{k}_n{n}_m{m}" + ("_zp" if zp else "") + ("_bias" if bias else "")
                + "_acc4_ortavx2")
        mod, x = model(rng, m, k, n, block, zp, bias, 4, 0)
        write(out, name, mod, x, "avx2")
        print(name)


def ort_novnni_cases(out):
    """accuracy_level 4 with blocks of 128 and 256, ORT run with AVX512_VNNI hidden (MLAS's
    VPMADDUBSW kernels lay those blocks' lanes out otherwise): one row and several, N % 4 tails,
    K tails, zero points and bias either way."""
    probe = subprocess.run(["node", "-e", "0"], env=dict(os.environ, LD_PRELOAD=HIDE_AVX512, QRT_HIDE_AVX512="vnni",
                                                          QRT_HIDE_AVX512_REPORT="1"), capture_output=True, text=True)
    if "hide_avx512: active" not in probe.stderr:
        sys.exit(f"--ort-cpu avx512-novnni needs {HIDE_AVX512} active here: {probe.stderr.strip()}")
    rng = np.random.default_rng(83)
    shapes = [(128, 384, 9, 1, True, True), (128, 300, 6, 3, False, False), (128, 1000, 4, 2, True, False),
              (256, 768, 5, 1, False, True), (256, 600, 8, 4, True, True), (256, 1024, 13, 1, True, False)]
    for block, k, n, m, zp, bias in shapes:
        name = (f"matmul_nbits_bs{block}_k{k}_n{n}_m{m}" + ("_zp" if zp else "") + ("_bias" if bias else "")
                + "_acc4_ortnovnni")
        mod, x = model(rng, m, k, n, block, zp, bias, 4, 0)
        write(out, name, mod, x, "avx512-novnni")
        print(name)


def main():
    out = sys.argv[1]
    if sys.argv[2:] == ["--ort-cpu", "avx2"]:
        ort_avx2_cases(out)
        return
    if sys.argv[2:] == ["--ort-cpu", "avx512-novnni"]:
        ort_novnni_cases(out)
        return
    rng = np.random.default_rng(71)
    with open("/proc/cpuinfo") as f:  # the class of ORT's kernels here (runtime/ort_cpu.h)
        machine_class = "avx512" if " avx512f" in f.read() else "avx2"
    # (block, k, n, m, zero points, bias, accuracy_level, batch)
    shapes = [(16, 48, 5, 1, True, True, None, 0), (16, 100, 8, 3, False, False, None, 0),
              (16, 160, 7, 3, True, True, 4, 0), (16, 144, 4, 1, False, True, 4, 0),
              (32, 32, 3, 1, False, False, 0, 0), (32, 200, 17, 2, True, True, None, 0),
              (32, 160, 6, 5, True, False, 4, 0), (32, 96, 9, 1, False, True, 4, 0),
              (64, 64, 1, 1, True, False, 1, 0), (64, 200, 16, 4, False, True, None, 0),
              (64, 192, 5, 3, True, True, 4, 0), (64, 128, 12, 2, False, False, 4, 0),
              (128, 130, 9, 1, True, True, None, 0), (128, 256, 6, 2, True, False, None, 2),
              (128, 300, 7, 3, False, True, 4, 0), (256, 1000, 3, 1, True, True, None, 0),
              (256, 512, 10, 3, False, False, None, 0), (256, 260, 5, 2, True, True, 4, 0),
              (32, 4096, 4, 1, True, False, None, 0), (16, 20, 18, 1, False, False, 4, 0)]
    for block, k, n, m, zp, bias, acc, batch in shapes:
        name = (f"matmul_nbits_bs{block}_k{k}_n{n}_m{m}" + ("_zp" if zp else "") + ("_bias" if bias else "")
                + (f"_acc{acc}" if acc is not None else "") + ("_3d" if batch else ""))
        mod, x = model(rng, m, k, n, block, zp, bias, acc, batch)
        write(out, name, mod, x, machine_class)
        print(name)
    for signed, m in ((True, 1), (False, 3), (True, 5)):
        name = f"dq_int4_matmul_{'int4' if signed else 'uint4'}_m{m}"
        mod, x = dq_int4_matmul(rng, m, 300, 37, signed)
        write(out, name, mod, x)
        print(name)


if __name__ == "__main__":
    main()
