// Reference UniformDequantize: the specification (op-semantics.md 3). Never optimize.
//   y = float(int32(x) - zp) * scale; the subtraction wraps modulo 2^32 (no UB), the
//   conversion rounds to nearest even, then one f32 multiply.
#include <cstdint>

#include "ops/kernels/quantize/uniform_dequantize.h"

namespace qrt {
namespace ref {
namespace {

inline int32_t WrappingSub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}

template <class T>
void Run(int64_t n, const void* in, float* y, const float* scale, const int32_t* zp, int64_t inc) {
  const T* x = static_cast<const T*>(in);
  for (int64_t i = 0; i < n; ++i) {
    y[i] = static_cast<float>(WrappingSub(static_cast<int32_t>(x[i]), zp[i * inc])) * scale[i * inc];
  }
}

}  // namespace

void UniformDequantizeI8(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc) {
  Run<int8_t>(n, x, y, scale, zp, inc);
}
void UniformDequantizeU8(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc) {
  Run<uint8_t>(n, x, y, scale, zp, inc);
}
void UniformDequantizeI32(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc) {
  Run<int32_t>(n, x, y, scale, zp, inc);
}

}  // namespace ref
}  // namespace qrt
