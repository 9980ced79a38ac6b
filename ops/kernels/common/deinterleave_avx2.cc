// AVX2 SplitPairs: SHUFPS picks elements 0, 2 (or 1, 3) of each 128-bit half from both
// vectors; VPERMPD then puts the 64-bit pairs back in order.
#include <immintrin.h>

#include "ops/kernels/common/deinterleave.h"

namespace qrt {
namespace avx2 {

void SplitPairs(int64_t pairs, const float* src, float* even, float* odd) {
  int64_t i = 0;
  for (; i + 8 <= pairs; i += 8) {
    const __m256 lo = _mm256_loadu_ps(src + 2 * i), hi = _mm256_loadu_ps(src + 2 * i + 8);
    // [lo0 lo2 hi0 hi2 | lo4 lo6 hi4 hi6] -> [lo0 lo2 lo4 lo6 hi0 hi2 hi4 hi6]
    const __m256 e = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 o = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
    _mm256_storeu_ps(even + i, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0))));
    _mm256_storeu_ps(odd + i, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0))));
  }
  ref::SplitPairs(pairs - i, src + 2 * i, even + i, odd + i);
}

}  // namespace avx2
}  // namespace qrt
