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

// The reference's steps for 8 accumulators, as int32 in T's range.
struct Requantizer {
  __m256i bias, zp, out_min, out_max;
  __m256 mult, lo, hi;
  template <class T>
  static Requantizer For(const RequantizeParams& p) {
    Requantizer r;
    r.bias = _mm256_set1_epi32(p.bias);
    r.mult = _mm256_set1_ps(p.multiplier);
    r.zp = _mm256_set1_epi32(p.y_zero_point);
    r.lo = _mm256_set1_ps(float(int32_t(std::numeric_limits<T>::min()) - p.y_zero_point));
    r.hi = _mm256_set1_ps(float(int32_t(std::numeric_limits<T>::max()) - p.y_zero_point));
    r.out_min = _mm256_set1_epi32(p.out_min), r.out_max = _mm256_set1_epi32(p.out_max);
    return r;
  }
  __m256i operator()(const int32_t* acc) const {
    const __m256i a = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc)), bias);
    __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(a), mult);
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    const __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(v), zp);
    return _mm256_min_epi32(_mm256_max_epi32(q, out_min), out_max);
  }
};

template <class T>
void RequantizeRow(int64_t n, const int32_t* acc, const RequantizeParams& p, void* y) {
  constexpr bool kSigned = std::numeric_limits<T>::is_signed;
  T* out = static_cast<T*>(y);
  const Requantizer step = Requantizer::For<T>(p);
  // In T's range already, so the saturating packs change nothing. 32 at a time: the packs work
  // within 128-bit lanes, so the four vectors' dwords come out as 0 4 1 5 2 6 3 7.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i w01 = _mm256_packs_epi32(step(acc + i), step(acc + i + 8));
    const __m256i w23 = _mm256_packs_epi32(step(acc + i + 16), step(acc + i + 24));
    const __m256i b = kSigned ? _mm256_packs_epi16(w01, w23) : _mm256_packus_epi16(w01, w23);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_permutevar8x32_epi32(b, order));
  }
  for (; i + 8 <= n; i += 8) {
    const __m256i q = step(acc + i);
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
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
