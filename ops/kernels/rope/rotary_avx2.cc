// AVX2/FMA rotary row, bit-identical to ref::RotaryRow: non-interleaved rows eight pairs at a
// time (every pair takes the fused steps there); interleaved rows, whose fused and plain pairs
// follow MLAS's loop and tail, take the reference.
#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "ops/kernels/rope/rotary.h"

namespace qrt::avx2 {

void RotaryRow(int64_t head_size, int64_t rotary_dim, bool interleaved, const float* x, const float* cos,
               const float* sin, float* y) {
  if (interleaved) {
    ref::RotaryRow(head_size, rotary_dim, interleaved, x, cos, sin, y);
    return;
  }
  const int64_t half = rotary_dim / 2;
  int64_t k = 0;
  for (; k + 8 <= half; k += 8) {
    const __m256 xr = _mm256_loadu_ps(x + k), xi = _mm256_loadu_ps(x + half + k);
    const __m256 c = _mm256_loadu_ps(cos + k), s = _mm256_loadu_ps(sin + k);
    // fma(xr, c, -(xi * s)): the product rounded, negated exactly, then one fused step.
    _mm256_storeu_ps(y + k, _mm256_fmsub_ps(xr, c, _mm256_mul_ps(xi, s)));
    _mm256_storeu_ps(y + half + k, _mm256_fmadd_ps(xr, s, _mm256_mul_ps(xi, c)));
  }
  for (; k < half; ++k) {
    const float xr = x[k], xi = x[half + k], c = cos[k], s = sin[k];
    y[k] = std::fma(xr, c, -(xi * s));
    y[half + k] = std::fma(xr, s, xi * c);
  }
  if (head_size > rotary_dim)
    std::memcpy(y + rotary_dim, x + rotary_dim, size_t(head_size - rotary_dim) * sizeof(float));
}

}  // namespace qrt::avx2
