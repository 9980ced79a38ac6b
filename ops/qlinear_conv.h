// QLinearConv's input slots, and qrt:QLinearConv's contract: fuse-qdq-conv builds it,
// ops/conv.cc runs it; both name its inputs and attributes through this header.
// qrt:QLinearConv is ONNX QLinearConv (same inputs, Conv's attributes) plus a clamp of the
// quantized output, which is how a Relu or Clip between the Conv and its QuantizeLinear is
// applied (quantization is monotonic, so clamping after it equals clamping before it).
#pragma once

#include <cstdint>
#include <limits>

#include "runtime/attributes.h"

namespace qrt {
namespace qlconv {

enum Input : int {
  kX = 0,
  kXScale = 1,
  kXZeroPoint = 2,
  kW = 3,
  kWScale = 4,
  kWZeroPoint = 5,
  kYScale = 6,
  kYZeroPoint = 7,
  kB = 8,  // optional int32 bias
  kInputCount = 9,
};

}  // namespace qlconv

// qrt:QLinearConv's attributes beside Conv's: the output codes are clamped to
// [output_min, output_max] (then to the output type's range).
struct QLinearConvClamp {
  int64_t output_min = std::numeric_limits<int32_t>::min();
  int64_t output_max = std::numeric_limits<int32_t>::max();

  static constexpr const char* kMinName = "output_min";
  static constexpr const char* kMaxName = "output_max";

  void SetOn(Attributes& attrs) const {
    attrs.Set(kMinName, output_min);
    attrs.Set(kMaxName, output_max);
  }
  static StatusOr<QLinearConvClamp> From(const Attributes& attrs) {
    QLinearConvClamp c;
    QRT_ASSIGN_OR_RETURN(c.output_min, attrs.GetInt(kMinName, c.output_min));
    QRT_ASSIGN_OR_RETURN(c.output_max, attrs.GetInt(kMaxName, c.output_max));
    if (c.output_min > c.output_max) {
      return InvalidArgument(kMinName, " ", c.output_min, " > ", kMaxName, " ", c.output_max);
    }
    return c;
  }
};

}  // namespace qrt
