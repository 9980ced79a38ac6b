// AVX2/FMA RMS normalization row, bit-identical to ref::RmsNormRow: the eight lanes of the sum
// of squares are one register, as in MLAS's kernel.
#include <immintrin.h>

#include <cmath>

#include "ops/kernels/norm/layer_norm.h"
#include "ops/kernels/norm/rms_norm.h"

namespace qrt::avx2 {

void RmsNormRow(int64_t n, const float* x, const float* scale, float epsilon, float* y, float* inv_out) {
  __m256 lanes = _mm256_setzero_ps();
  const int64_t groups8 = n / 8 * 8;
  for (int64_t i = 0; i < groups8; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    lanes = _mm256_fmadd_ps(v, v, lanes);
  }
  alignas(32) float v8[8];
  _mm256_store_ps(v8, lanes);
  float v4[4];
  for (int k = 0; k < 4; ++k) v4[k] = v8[k] + v8[k + 4];
  const float s = ref::LayerNormVarianceTail(n, x, 0.f, (v4[0] + v4[2]) + (v4[1] + v4[3]));
  const float inv = 1.0f / std::sqrt(s / float(n) + epsilon);
  const __m256 inv8 = _mm256_set1_ps(inv);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + i), inv8);
    _mm256_storeu_ps(y + i, _mm256_mul_ps(v, _mm256_loadu_ps(scale + i)));
  }
  for (; i < n; ++i) y[i] = (x[i] * inv) * scale[i];
  *inv_out = inv;
}

}  // namespace qrt::avx2
