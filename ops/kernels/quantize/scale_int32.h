// int32 accumulators to floats as the ONNX chain Cast(float) -> Mul(scale) [-> Add(bias)]
// computes them, after an optional int32 Add before the Cast (ConvInteger's bias):
//
//   y[j] = float(int32(uint32(acc[j]) + uint32(add))) * scale[j * scale_step]
//          [+ bias[j * bias_step]]                       a rounded multiply, then a rounded add
//
// scale_step and bias_step are 0 (one value for the row) or 1 (one per element). The epilogue of
// qrt:MatMulIntegerScaled, qrt:ConvIntegerToFloat and com.microsoft MatMulIntegerToFloat; the
// conversion rounds to nearest even in every kernel, as the Cast does.
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

struct ScaleInt32Params {
  int32_t add = 0;
  const float* scale = nullptr;
  int64_t scale_step = 0;
  const float* bias = nullptr;  // optional
  int64_t bias_step = 0;
};

using ScaleInt32RowFn = void (*)(int64_t n, const int32_t* acc, const ScaleInt32Params& p, float* y);

namespace ref {
void ScaleInt32Row(int64_t n, const int32_t* acc, const ScaleInt32Params& p, float* y);
}  // namespace ref
namespace avx2 {
void ScaleInt32Row(int64_t n, const int32_t* acc, const ScaleInt32Params& p, float* y);
}  // namespace avx2

ScaleInt32RowFn SelectScaleInt32Row(Isa isa);

}  // namespace qrt
