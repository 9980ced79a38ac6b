// VMINPS(x, m) is x < m ? x : m and VMAXPS(x, m) is x > m ? x : m: the reference's comparisons,
// NaN x keeping m. Four accumulator pairs hide the latency; the lanes fold at the end, in any
// order (min_max.h: the result does not depend on it).
#include <immintrin.h>

#include "ops/kernels/common/lanes_avx2.h"
#include "ops/kernels/quantize/min_max.h"

namespace qrt::avx2 {

void RangeWithZero(int64_t n, const float* x, float* lo, float* hi) {
  __m256 l0 = _mm256_setzero_ps(), l1 = l0, l2 = l0, l3 = l0;
  __m256 h0 = l0, h1 = l0, h2 = l0, h3 = l0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    const __m256 c = _mm256_loadu_ps(x + i + 16), d = _mm256_loadu_ps(x + i + 24);
    l0 = _mm256_min_ps(a, l0), h0 = _mm256_max_ps(a, h0);
    l1 = _mm256_min_ps(b, l1), h1 = _mm256_max_ps(b, h1);
    l2 = _mm256_min_ps(c, l2), h2 = _mm256_max_ps(c, h2);
    l3 = _mm256_min_ps(d, l3), h3 = _mm256_max_ps(d, h3);
  }
  for (; i < n; i += 8) {
    // Masked-off lanes load +0, which changes neither accumulator.
    const __m256 a = _mm256_maskload_ps(x + i, FirstLanes(n - i));
    l0 = _mm256_min_ps(a, l0), h0 = _mm256_max_ps(a, h0);
  }
  const __m256 l = _mm256_min_ps(_mm256_min_ps(l0, l1), _mm256_min_ps(l2, l3));
  const __m256 h = _mm256_max_ps(_mm256_max_ps(h0, h1), _mm256_max_ps(h2, h3));
  __m128 l4 = _mm_min_ps(_mm256_castps256_ps128(l), _mm256_extractf128_ps(l, 1));
  __m128 h4 = _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  l4 = _mm_min_ps(l4, _mm_movehl_ps(l4, l4));
  h4 = _mm_max_ps(h4, _mm_movehl_ps(h4, h4));
  l4 = _mm_min_ss(l4, _mm_shuffle_ps(l4, l4, 1));
  h4 = _mm_max_ss(h4, _mm_shuffle_ps(h4, h4, 1));
  *lo = _mm_cvtss_f32(l4);
  *hi = _mm_cvtss_f32(h4);
}

}  // namespace qrt::avx2
