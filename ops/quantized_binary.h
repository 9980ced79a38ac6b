// qrt:QuantizedMul's and qrt:QuantizedAdd's contract: fuse-dq-mul-q / fuse-dq-add-q build them,
// ops/quantized_binary.cc runs them; both name the inputs and attributes through this header.
// com.microsoft QLinearMul and QLinearAdd have the same input slots.
#pragma once

#include "ops/kernels/qbinary/quantized_binary.h"
#include "runtime/attributes.h"

namespace qrt {
namespace qbin {

// C = op(dequantize(A), dequantize(B)) quantized by C's scale and zero point.
enum Input : int {
  kA = 0,
  kAScale = 1,
  kAZeroPoint = 2,
  kB = 3,
  kBScale = 4,
  kBZeroPoint = 5,
  kCScale = 6,
  kCZeroPoint = 7,  // optional
  kInputCount = 8,
};

}  // namespace qbin

// The typed attributes (QuantizedBinaryAttrs) as a node's attributes: "requantize",
// "output_dtype", "A_axis", "B_axis"; defaults are left out.
Attributes ToAttributes(const QuantizedBinaryAttrs& attrs);
// And back; an attribute of the wrong type or an unknown rule or dtype is an error naming it.
StatusOr<QuantizedBinaryAttrs> QuantizedBinaryAttrsFrom(const Attributes& attrs);

}  // namespace qrt
