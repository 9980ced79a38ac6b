#!/usr/bin/python3
"""Regenerates the tiny .npy/.pb goldens read by tests/io/*_test.cc.

Run from anywhere: /usr/bin/python3 tests/data/io/gen_io_goldens.py
Made with Debian 12 python3-numpy 1.24.2 and python3-onnx 1.12.0. The values
are hard-coded in the tests too; change both together.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (numpy dtype, shape, values); the same values appear in the C++ tests.
VALUES = {
    "f32": (np.float32, (2, 3), [0.0, 1.5, -2.25, 3.0, -0.125, 1024.0]),
    "f16": (np.float16, (3,), [1.0, -2.5, 65504.0]),
    "f64": (np.float64, (2,), [0.1, -1e300]),
    "i8": (np.int8, (4,), [-128, -1, 0, 127]),
    "u8": (np.uint8, (2, 2), [0, 1, 128, 255]),
    "i16": (np.int16, (3,), [-32768, 0, 32767]),
    "u16": (np.uint16, (2,), [0, 65535]),
    "i32": (np.int32, (3,), [-2147483648, 7, 2147483647]),
    "i64": (np.int64, (2,), [-9223372036854775808, 9223372036854775807]),
    "bool": (np.bool_, (3,), [True, False, True]),
}
BF16_BITS = [0x3F80, 0xC020, 0x4049]  # 1.0, -2.5, 3.140625

ONNX_TYPES = {
    "f32": TensorProto.FLOAT, "f16": TensorProto.FLOAT16, "f64": TensorProto.DOUBLE,
    "i8": TensorProto.INT8, "u8": TensorProto.UINT8, "i16": TensorProto.INT16,
    "u16": TensorProto.UINT16, "i32": TensorProto.INT32, "i64": TensorProto.INT64,
    "bool": TensorProto.BOOL,
}


def arr(key):
    dtype, shape, vals = VALUES[key]
    return np.array(vals, dtype=dtype).reshape(shape)


def write_pb(path, tensor):
    with open(path, "wb") as f:
        f.write(tensor.SerializeToString())


def main():
    npy = os.path.join(HERE, "npy")
    pb = os.path.join(HERE, "pb")
    os.makedirs(npy, exist_ok=True)
    os.makedirs(pb, exist_ok=True)

    for key in VALUES:
        np.save(os.path.join(npy, key + ".npy"), arr(key))
    np.save(os.path.join(npy, "scalar_f32.npy"), np.array(3.5, dtype=np.float32))
    np.save(os.path.join(npy, "empty_f32.npy"), np.zeros((0, 3), dtype=np.float32))
    np.save(os.path.join(npy, "big_endian_i4.npy"), np.array([1, -2], dtype=">i4"))
    np.save(os.path.join(npy, "big_endian_f8.npy"), np.array([-0.5], dtype=">f8"))
    np.save(os.path.join(npy, "fortran_f32.npy"), np.asfortranarray(arr("f32")))
    for version in (2, 3):
        with open(os.path.join(npy, "v%d_f32.npy" % version), "wb") as f:
            np.lib.format.write_array(f, np.array([1.0, 2.0], dtype=np.float32), version=(version, 0))

    for key, code in ONNX_TYPES.items():
        write_pb(os.path.join(pb, "raw_%s.pb" % key), numpy_helper.from_array(arr(key), "raw_" + key))
        dtype, shape, vals = VALUES[key]
        write_pb(os.path.join(pb, "typed_%s.pb" % key),
                 helper.make_tensor("typed_" + key, code, shape, arr(key).flatten().tolist()))
    bf16 = np.array(BF16_BITS, dtype="<u2")
    write_pb(os.path.join(pb, "raw_bf16.pb"),
             helper.make_tensor("raw_bf16", TensorProto.BFLOAT16, (3,), bf16.tobytes(), raw=True))
    # int32_data carries bfloat16 as its bit pattern (onnx.proto, int32_data).
    t = TensorProto(name="typed_bf16", data_type=TensorProto.BFLOAT16, dims=[3])
    t.int32_data.extend(BF16_BITS)
    write_pb(os.path.join(pb, "typed_bf16.pb"), t)
    write_pb(os.path.join(pb, "string.pb"), helper.make_tensor("s", TensorProto.STRING, (1,), [b"hi"]))

    # External data: 16 bytes of padding, then the f32 values.
    payload = arr("f32").astype("<f4").tobytes()
    with open(os.path.join(pb, "ext.bin"), "wb") as f:
        f.write(b"\xee" * 16 + payload)
    t = numpy_helper.from_array(arr("f32"), "ext_f32")
    onnx.external_data_helper.set_external_data(t, "ext.bin", offset=16, length=len(payload))
    t.ClearField("raw_data")
    write_pb(os.path.join(pb, "ext_f32.pb"), t)


if __name__ == "__main__":
    main()
