// AVX2 requantization, 8 accumulators per step. The same IEEE double operations as the
// reference in the same order (multiply, then add the zero point; no FMA), rounding with
// roundpd to nearest-even as rint does, so every output bit agrees with it.
#include <immintrin.h>

#include <limits>

#include "ops/kernels/requantize.h"

namespace qrt {
namespace avx2 {
namespace {

// Four accumulators (already biased) to four int32 results within [lo, hi] of T.
inline __m128i Requantize4(__m128i a, __m256d mult, __m256d zp, __m256d lo, __m256d hi) {
  __m256d v = _mm256_add_pd(_mm256_mul_pd(_mm256_cvtepi32_pd(a), mult), zp);
  v = _mm256_round_pd(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  v = _mm256_max_pd(v, lo);  // maxpd returns its second operand when v is NaN: Tmin, as the reference
  v = _mm256_min_pd(v, hi);
  return _mm256_cvtpd_epi32(v);  // integral and in range: exact
}

template <class T>
void RequantizeRow(int64_t n, const int32_t* acc, const RequantizeParams& p, void* y) {
  constexpr bool kSigned = std::numeric_limits<T>::is_signed;
  T* out = static_cast<T*>(y);
  const __m256i bias = _mm256_set1_epi32(p.bias);
  const __m256d mult = _mm256_set1_pd(double(p.multiplier));
  const __m256d zp = _mm256_set1_pd(double(p.y_zero_point));
  const __m256d lo = _mm256_set1_pd(double(std::numeric_limits<T>::min()));
  const __m256d hi = _mm256_set1_pd(double(std::numeric_limits<T>::max()));
  const __m128i out_min = _mm_set1_epi32(p.out_min), out_max = _mm_set1_epi32(p.out_max);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i a = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i)), bias);
    __m128i q0 = Requantize4(_mm256_castsi256_si128(a), mult, zp, lo, hi);
    __m128i q1 = Requantize4(_mm256_extracti128_si256(a, 1), mult, zp, lo, hi);
    q0 = _mm_min_epi32(_mm_max_epi32(q0, out_min), out_max);
    q1 = _mm_min_epi32(_mm_max_epi32(q1, out_min), out_max);
    // In T's range already, so the saturating packs change nothing.
    const __m128i w = _mm_packs_epi32(q0, q1);
    const __m128i b = kSigned ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), b);
  }
  if (i < n) ref::RequantizeRowKernel(DataTypeOf<T>::value)(n - i, acc + i, p, out + i);
}

}  // namespace

RequantizeRowFn RequantizeRowKernel(DataType y) {
  if (y == DataType::kUInt8) return RequantizeRow<uint8_t>;
  if (y == DataType::kInt8) return RequantizeRow<int8_t>;
  return nullptr;
}

}  // namespace avx2
}  // namespace qrt
