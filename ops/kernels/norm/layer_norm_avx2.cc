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

void LayerNormShortRows(int64_t rows, int64_t n, const float* x, const float* scale, const float* bias, float epsilon,
                        float* y, float* mean_out, float* inv_out) {
  int64_t r0 = 0;
  if (n > 0 && n * 8 <= int64_t(1) << 30) {  // gather offsets fit int32
    const __m256i offsets = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(int(n)));
    for (; r0 + 8 <= rows; r0 += 8) {
      const float* base = x + r0 * n;
      __m256 mean = _mm256_setzero_ps(), m2 = _mm256_setzero_ps();
      for (int64_t i = 0; i < n; ++i) {
        const __m256 v = _mm256_i32gather_ps(base + i, offsets, 4);
        const __m256 d = _mm256_sub_ps(v, mean);
        mean = _mm256_add_ps(mean, _mm256_div_ps(d, _mm256_set1_ps(float(i + 1))));
        m2 = _mm256_add_ps(m2, _mm256_mul_ps(d, _mm256_sub_ps(v, mean)));
      }
      alignas(32) float means[8], m2s[8];
      _mm256_store_ps(means, mean);
      _mm256_store_ps(m2s, m2);
      for (int r = 0; r < 8; ++r) {
        const float den = std::sqrt(m2s[r] / float(n) + epsilon);
        const float* row = base + r * n;
        float* out = y + (r0 + r) * n;
        const __m256 m8 = _mm256_set1_ps(means[r]), den8 = _mm256_set1_ps(den);
        int64_t i = 0;
        for (; i + 8 <= n; i += 8) {
          __m256 v = _mm256_mul_ps(_mm256_div_ps(_mm256_sub_ps(_mm256_loadu_ps(row + i), m8), den8),
                                   _mm256_loadu_ps(scale + i));
          if (bias != nullptr) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + i));
          _mm256_storeu_ps(out + i, v);
        }
        for (; i < n; ++i) {
          const float v = ((row[i] - means[r]) / den) * scale[i];
          out[i] = bias ? v + bias[i] : v;
        }
        if (mean_out != nullptr) mean_out[r0 + r] = means[r];
        if (inv_out != nullptr) inv_out[r0 + r] = 1.0f / den;
      }
    }
  }
  ref::LayerNormShortRows(rows - r0, n, x + r0 * n, scale, bias, epsilon, y + r0 * n,
                          mean_out ? mean_out + r0 : nullptr, inv_out ? inv_out + r0 : nullptr);
}

}  // namespace qrt::avx2
