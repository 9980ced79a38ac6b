// Requantization of a row of int32 accumulators to 8 bits, as ONNX QLinearConv and
// QLinearMatMul define it (RequantizeLikeOrt in matmul_ref.h), plus qrt:QLinearConv's clamp:
//
//   a    = int32(uint32(acc[i]) + uint32(bias))          two's-complement wrap
//   q    = RequantizeLikeOrt<T>(a, multiplier, y_zp)       f32 multiply, clamp, rint, add zp
//   y[i] = min(max(q, out_min), out_max)
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"
#include "runtime/dtype.h"

namespace qrt {

struct RequantizeParams {
  int32_t bias = 0;
  float multiplier = 1.f;
  int32_t y_zero_point = 0;
  int32_t out_min = INT32_MIN, out_max = INT32_MAX;
};

using RequantizeRowFn = void (*)(int64_t n, const int32_t* acc, const RequantizeParams& p, void* y);

namespace ref {
RequantizeRowFn RequantizeRowKernel(DataType y);  // uint8 or int8; else nullptr
}  // namespace ref
namespace avx2 {
RequantizeRowFn RequantizeRowKernel(DataType y);  // bit-identical to the reference
}  // namespace avx2

RequantizeRowFn SelectRequantizeRowKernel(DataType y, Isa isa);

}  // namespace qrt
