// AVX2 TopK candidate filter: eight comparisons at a time; a block with no candidate (the
// common case once the threshold is high) costs one compare and one movemask.
#include <immintrin.h>

#include "ops/kernels/select/better_than.h"

namespace qrt::avx2 {

int64_t BetterThan(const float* x, int64_t begin, int64_t end, float t, bool largest, int64_t* out) {
  const __m256 vt = _mm256_set1_ps(t);
  int64_t count = 0, i = begin;
  for (; i + 8 <= end; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    // largest: v > t or unordered is NOT(v <= t); smallest: NOT(v >= t).
    const __m256 keep = largest ? _mm256_cmp_ps(v, vt, _CMP_NLE_UQ) : _mm256_cmp_ps(v, vt, _CMP_NGE_UQ);
    unsigned mask = unsigned(_mm256_movemask_ps(keep));
    while (mask != 0) {
      out[count++] = i + __builtin_ctz(mask);
      mask &= mask - 1;
    }
  }
  return count + ref::BetterThan(x, i, end, t, largest, out + count);
}

}  // namespace qrt::avx2
