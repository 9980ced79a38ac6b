// The four 8-bit float types of ONNX (opset 19+), as ONNX Runtime converts them, which is the
// reference qrt matches bit for bit (docs/float-order.md, "8-bit floats and 4-bit integers").
//   e4m3fn:   1 sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinity; S.1111.111 is NaN;
//             largest 448.
//   e4m3fnuz: bias 8; no infinity, no negative zero; 0x80 is the only NaN; largest 240.
//   e5m2:     bias 15, IEEE-like: S.11111.00 is infinity, S.11111.xx NaN; largest 57344.
//   e5m2fnuz: bias 16; no infinity, no negative zero; 0x80 is NaN; largest 57344.
// float -> float8 rounds to nearest, ties to even. Out of range (and infinity), `saturate` gives
// the largest finite value of the sign, else infinity (e5m2) or NaN. One quirk of ONNX
// Runtime's e4m3fn conversion is kept: a value whose truncated code would be the NaN pattern
// (|x| in [480, 512)) is first truncated to 448, so [480, 496) gives 448 even without saturate.
#pragma once

#include <cstdint>

#include "runtime/dtype.h"

namespace qrt {

// `t` is one of the four float8 types (IsFloat8Type).
float Float8ToFloat(DataType t, uint8_t code);
uint8_t FloatToFloat8(DataType t, float x, bool saturate);

}  // namespace qrt
