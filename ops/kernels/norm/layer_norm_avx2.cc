// AVX2/FMA LayerNormalization row, bit-identical to ref::LayerNormRow: the reference's lanes
// are exactly one register each (four doubles for the mean, eight floats for the variance), so
// each lane adds the same elements in the same order; the tails and the lane reductions are
// the reference's scalar code.
#include <immintrin.h>

#include <cmath>

#include "ops/kernels/norm/layer_norm.h"

namespace qrt::avx2 {

void LayerNormRow(int64_t n, const float* x, const float* scale, const float* bias, float epsilon, float* y,
                  float* mean_out, float* inv_out) {
  const int64_t groups4 = n / 4 * 4;
  __m256d lanes4 = _mm256_setzero_pd();
  for (int64_t i = 0; i < groups4; i += 4) lanes4 = _mm256_add_pd(lanes4, _mm256_cvtps_pd(_mm_loadu_ps(x + i)));
  alignas(32) double l[4];
  _mm256_store_pd(l, lanes4);
  const double sum = ref::LayerNormMeanTail(n, x, (l[0] + l[2]) + (l[1] + l[3]));
  const float mean = float(sum / double(n));

  const __m256 vmean = _mm256_set1_ps(mean);
  const int64_t groups8 = n / 8 * 8;
  __m256 lanes8 = _mm256_setzero_ps();
  for (int64_t i = 0; i < groups8; i += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), vmean);
    lanes8 = _mm256_fmadd_ps(d, d, lanes8);
  }
  alignas(32) float v8[8];
  _mm256_store_ps(v8, lanes8);
  float v4[4];
  for (int k = 0; k < 4; ++k) v4[k] = v8[k] + v8[k + 4];
  const float var = ref::LayerNormVarianceTail(n, x, mean, (v4[0] + v4[2]) + (v4[1] + v4[3]));
  const float inv = 1.0f / std::sqrt(var / float(n) + epsilon);

  const __m256 vinv = _mm256_set1_ps(inv);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 centered = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmean), vinv);
    const __m256 b = bias ? _mm256_loadu_ps(bias + i) : _mm256_setzero_ps();
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(centered, _mm256_loadu_ps(scale + i), b));
  }
  for (; i < n; ++i) y[i] = std::fma((x[i] - mean) * inv, scale[i], bias ? bias[i] : 0.f);
  *mean_out = mean;
  *inv_out = inv;
}

}  // namespace qrt::avx2
