// AVX-512 (F and BW) kernels of dequantize_rows.h: 16 codes widened to 32-bit integers, to
// floats, minus the zero point, times the scale (two roundings-free steps and one multiply, as
// DequantizeLinear); the tails with byte masks.
#include "ops/kernels/common/intrinsics_avx512.h"
#include "ops/kernels/quantize/dequantize_rows.h"

namespace qrt::avx512 {
namespace {

template <bool kSigned>
inline __m512 Dequantize16(__m128i bytes, __m512 zp, __m512 scale) {
  const __m512i wide = kSigned ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
  return _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(wide), zp), scale);
}

template <bool kSigned>
void Row(int64_t n, const void* codes, float scale, int32_t zero_point, float* out) {
  const auto* q = static_cast<const uint8_t*>(codes);
  const __m512 zp = _mm512_set1_ps(float(zero_point)), s = _mm512_set1_ps(scale);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(out + i, Dequantize16<kSigned>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i)), zp, s));
  }
  if (i < n) {
    const __mmask16 m = FirstLanes(n - i);
    const __m512i bytes = _mm512_maskz_loadu_epi8(__mmask64(m), q + i);  // (AVX512BW; VL not needed)
    _mm512_mask_storeu_ps(out + i, m, Dequantize16<kSigned>(_mm512_castsi512_si128(bytes), zp, s));
  }
}

template <bool kSigned>
void Pairs(int64_t pairs, const void* codes, float scale, int32_t zero_point, float* even, float* odd) {
  const auto* q = static_cast<const uint8_t*>(codes);
  const __m512 zp = _mm512_set1_ps(float(zero_point)), s = _mm512_set1_ps(scale);
  const __m512i even_index = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd_index = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  auto split = [&](__m256i bytes, float* e, float* o, __mmask16 out) {
    const __m512 lo = Dequantize16<kSigned>(_mm256_castsi256_si128(bytes), zp, s);
    const __m512 hi = Dequantize16<kSigned>(_mm256_extracti128_si256(bytes, 1), zp, s);
    _mm512_mask_storeu_ps(e, out, _mm512_permutex2var_ps(lo, even_index, hi));
    _mm512_mask_storeu_ps(o, out, _mm512_permutex2var_ps(lo, odd_index, hi));
  };
  int64_t i = 0;
  for (; i + 16 <= pairs; i += 16) {  // codes [2i, 2i + 32), no masks (moving them costs a port)
    split(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 2 * i)), even + i, odd + i, 0xFFFF);
  }
  if (i < pairs) {  // the tail's 2 * left codes; the rest load 0 and are not stored
    const int64_t left = pairs - i;
    const __m256i bytes = _mm512_castsi512_si256(_mm512_maskz_loadu_epi8((uint64_t(1) << (2 * left)) - 1, q + 2 * i));
    split(bytes, even + i, odd + i, FirstLanes(left));
  }
}

}  // namespace

void DequantizeRowU8(int64_t n, const void* codes, float scale, int32_t zp, float* out) {
  Row<false>(n, codes, scale, zp, out);
}
void DequantizeRowS8(int64_t n, const void* codes, float scale, int32_t zp, float* out) {
  Row<true>(n, codes, scale, zp, out);
}
void DequantizePairsU8(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd) {
  Pairs<false>(pairs, codes, scale, zp, even, odd);
}
void DequantizePairsS8(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd) {
  Pairs<true>(pairs, codes, scale, zp, even, odd);
}

}  // namespace qrt::avx512
