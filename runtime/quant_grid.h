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

}  // namespace qrt
