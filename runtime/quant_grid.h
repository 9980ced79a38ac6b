// A fact about a float32 value known at plan time: which 8-bit quantization grid it lies on.
#pragma once

#include <cstdint>
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

// The codes q of the 8-bit `type` whose values on the grid, (float(q) - float(zero_point)) *
// scale as DequantizeLinear computes them, are values[0, n) bit for bit, one byte each (an int8
// code as its two's complement byte); false if a value has none (`codes` then holds garbage).
// `inverse` is fl(1 / scale). No division, libm call or branch (models have millions of
// weights, and the compiler vectorizes this loop): on the grid, value * inverse is within a few
// ulps of q - zero_point, so rounding it (1.5 * 2^23 added and taken away: nearest-even below
// 2^22) gives it, and the rebuilt value decides; larger values, infinities and NaN fail the
// range check.
// (Defined in quant_grid.cc: inlined into a large plan function, GCC left the loop scalar.)
bool CodesOnGrid(const float* values, int64_t n, float scale, float inverse, int32_t zero_point, DataType type,
                 uint8_t* codes);

}  // namespace qrt
