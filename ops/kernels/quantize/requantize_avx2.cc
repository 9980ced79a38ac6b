// AVX2 requantization, 8 accumulators per step: the reference's f32 operations in its order
// (convert, multiply, MAXPS and MINPS against the zero-point-shifted range, which take their
// second operand on NaN as the reference's compares do, round to nearest-even, add the zero
// point), so every output bit agrees with it.
#include <immintrin.h>

#include <limits>

#include "ops/kernels/quantize/requantize.h"

namespace qrt {
namespace avx2 {
namespace {

template <class T>
void RequantizeRow(int64_t n, const int32_t* acc, const RequantizeParams& p, void* y) {
  constexpr bool kSigned = std::numeric_limits<T>::is_signed;
  T* out = static_cast<T*>(y);
  const __m256i bias = _mm256_set1_epi32(p.bias);
  const __m256 mult = _mm256_set1_ps(p.multiplier);
  const __m256i zp = _mm256_set1_epi32(p.y_zero_point);
  const __m256 lo = _mm256_set1_ps(float(int32_t(std::numeric_limits<T>::min()) - p.y_zero_point));
  const __m256 hi = _mm256_set1_ps(float(int32_t(std::numeric_limits<T>::max()) - p.y_zero_point));
  const __m256i out_min = _mm256_set1_epi32(p.out_min), out_max = _mm256_set1_epi32(p.out_max);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i a = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i)), bias);
    __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(a), mult);
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(v), zp);
    q = _mm256_min_epi32(_mm256_max_epi32(q, out_min), out_max);
    const __m128i q0 = _mm256_castsi256_si128(q), q1 = _mm256_extracti128_si256(q, 1);
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
