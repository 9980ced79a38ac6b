// AVX2 GatherElements row: four int64 indices at a time are range-checked, made
// non-negative and turned into offsets, then gathered with VPGATHERQD. A block holding an
// index out of range is left to the reference, which reports where.
#include <immintrin.h>

#include "ops/kernels/gather/gather_elements_row.h"

namespace qrt::avx2 {

int64_t GatherRow32(const uint32_t* x, int64_t base, int64_t stride, int64_t step, int64_t axis_len, const int64_t* idx,
                    int64_t width, uint32_t* out) {
  const __m256i len = _mm256_set1_epi64x(axis_len), last = _mm256_set1_epi64x(axis_len - 1);
  const __m256i neg_len = _mm256_set1_epi64x(-axis_len);
  const __m256i vstride = _mm256_set1_epi64x(stride), vbase = _mm256_set1_epi64x(base);
  const __m256i lanes = _mm256_mul_epi32(_mm256_setr_epi64x(0, 1, 2, 3), _mm256_set1_epi64x(step));
  const __m256i zero = _mm256_setzero_si256();
  int64_t j = 0;
  for (; j + 4 <= width; j += 4) {
    __m256i k = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + j));
    // out of range: k > axis_len - 1 or -axis_len > k
    const __m256i bad = _mm256_or_si256(_mm256_cmpgt_epi64(k, last), _mm256_cmpgt_epi64(neg_len, k));
    if (!_mm256_testz_si256(bad, bad)) break;
    k = _mm256_add_epi64(k, _mm256_and_si256(_mm256_cmpgt_epi64(zero, k), len));
    // k and stride are below 2^31: the low halves' product is exact.
    const __m256i offset = _mm256_add_epi64(_mm256_add_epi64(vbase, _mm256_mul_epi32(k, vstride)),
                                            _mm256_add_epi64(lanes, _mm256_set1_epi64x(j * step)));
    const __m128i v = _mm256_i64gather_epi32(reinterpret_cast<const int*>(x), offset, 4);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), v);
  }
  const int64_t bad_at = ref::GatherRow32(x, base + j * step, stride, step, axis_len, idx + j, width - j, out + j);
  return bad_at < 0 ? -1 : j + bad_at;
}

}  // namespace qrt::avx2
