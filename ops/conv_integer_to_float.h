// qrt:ConvIntegerToFloat's contract: ConvInteger with the float epilogue of a dynamically
// quantized convolution, as one node:
//   y = float(int32(acc + IntBias)) * Scale [+ Bias]
// the order of the ONNX chain ConvInteger [-> Add(int32 bias)] -> Cast(float) -> Mul(scale)
// [-> Add(float bias)] it replaces (fuse-integer-conv-epilogue builds it; ops/conv.cc runs it),
// so the output is bit-identical and none of the chain's tensors is written out. IntBias, Scale
// and Bias each have one element or one per output channel, laid out so that they broadcast
// against Y = N x M x spatial without changing its shape. Attributes: ConvInteger's.
#pragma once

#include <cstddef>

#include "runtime/tensor.h"

namespace qrt::citf {

enum Input : int {
  kX = 0,
  kW = 1,
  kXZeroPoint = 2,  // optional
  kWZeroPoint = 3,  // optional
  kIntBias = 4,     // optional, int32
  kScale = 5,       // float32
  kBias = 6,        // optional, float32
  kInputCount = 7,
};

// The operands' shape rule: one element, or one per channel (axis 1) of a rank-`rank` Y with m
// channels, broadcasting against Y without widening it. The pass proves it, prepare checks it.
inline bool PerChannel(const Dims& d, size_t rank, int64_t m) {
  if (d.size() > rank) return false;
  for (size_t i = 0; i < d.size(); ++i) {
    const size_t axis = rank - d.size() + i;
    if (d[i] != 1 && !(axis == 1 && d[i] == m)) return false;
  }
  return true;
}

}  // namespace qrt::citf
