// A fact about a float32 value known at plan time: which 8-bit quantization grid it lies on.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/dtype.h"

namespace qrt {

// What the producer of a float32 value guarantees about its data: every element is
// fl(float(q - zero_point) * scale) for an integer q of the 8-bit `type`, with one scale and
// zero point, or one per index of dimension `axis`. DequantizeLinear and the fake quantizers
// produce such values; a consumer may then compute with the integers q exactly (the int8
// pointwise convolution of qrt:ConvQuantizeDequantize). Consumers still check the data they
// rely on, so a wrong grid costs speed, never a bit.
struct QuantGrid {
  DataType type = DataType::kUInt8;  // kUInt8 or kInt8
  int64_t axis = -1;                 // -1: per tensor
  std::vector<float> scales;         // one, or one per index of `axis`
  std::vector<int32_t> zero_points;  // as many as scales
};

// The code q of the 8-bit `type` whose value on the grid, (float(q) - float(zero_point)) * scale
// as DequantizeLinear computes it, is `value` bit for bit; false if there is none. `inverse` is
// fl(1 / scale). No division or libm call (models have millions of weights): on the grid,
// value * inverse is within a few ulps of q - zero_point, so rounding it (1.5 * 2^23 added and
// taken away: nearest-even below 2^22) gives it, and the rebuilt value decides; larger values,
// infinities and NaN fail the range check first.
inline bool CodeOnGrid(float value, float scale, float inverse, int32_t zero_point, DataType type, int32_t* code) {
  const float zp = float(zero_point);
  const float lo = type == DataType::kInt8 ? -128.f : 0.f, hi = type == DataType::kInt8 ? 127.f : 255.f;
  const float q = ((value * inverse + 12582912.f) - 12582912.f) + zp;
  if (!(q >= lo && q <= hi)) return false;
  const float rebuilt = (q - zp) * scale;
  if (std::memcmp(&rebuilt, &value, sizeof(float)) != 0) return false;
  *code = int32_t(q);
  return true;
}

}  // namespace qrt
