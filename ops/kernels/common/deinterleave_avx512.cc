// AVX-512F SplitPairs: one VPERMT2PS per output vector picks the even (odd) elements of two
// input vectors; the tail is masked.
#include "ops/kernels/common/deinterleave.h"
#include "ops/kernels/common/intrinsics_avx512.h"

namespace qrt {
namespace avx512 {

void SplitPairs(int64_t pairs, const float* src, float* even, float* odd) {
  const __m512i even_index = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd_index = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  int64_t i = 0;
  for (; i + 16 <= pairs; i += 16) {
    const __m512 lo = _mm512_loadu_ps(src + 2 * i), hi = _mm512_loadu_ps(src + 2 * i + 16);
    _mm512_storeu_ps(even + i, _mm512_permutex2var_ps(lo, even_index, hi));
    _mm512_storeu_ps(odd + i, _mm512_permutex2var_ps(lo, odd_index, hi));
  }
  const int64_t left = pairs - i;  // in [0, 16): masked loads and stores
  if (left == 0) return;
  const __mmask16 out = FirstLanes(left);
  const __m512 lo = _mm512_maskz_loadu_ps(FirstLanes(2 * left), src + 2 * i);
  const __m512 hi =
      left > 8 ? _mm512_maskz_loadu_ps(FirstLanes(2 * (left - 8)), src + 2 * i + 16) : _mm512_setzero_ps();
  _mm512_mask_storeu_ps(even + i, out, _mm512_permutex2var_ps(lo, even_index, hi));
  _mm512_mask_storeu_ps(odd + i, out, _mm512_permutex2var_ps(lo, odd_index, hi));
}

}  // namespace avx512
}  // namespace qrt
