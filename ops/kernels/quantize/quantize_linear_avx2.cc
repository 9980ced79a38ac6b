// AVX2 QuantizeLinear / DequantizeLinear for 8-bit types, bit-identical to ref::.
// Quantize: _mm256_div_ps is the same IEEE division; _mm256_round_ps(nearest) rounds ties
// to even as nearbyint does in the default mode; the clamp's MAXPS returns the bound for a
// NaN, which so takes the lowest code as in the reference; the clamp happens in float, so the conversion to int32 is
// exact; packing cannot saturate a value already inside the type's range. Dequantize does the same two f32 ops.
// QuantizeDequantize keeps the clamped float: it is the exact integer the 8-bit value holds,
// so float(q) - zp and the multiply are the dequantize's ops on the same numbers.
//
// The kernels compute steps = saturate(rint(x / s) + zp) - zp, the quantized value minus the
// zero point: since the type's bounds lo and hi are integers, that is clamp(rint(x / s), L, H)
// with L = lo - zp, H = hi - zp (|L|, |H| <= 255), and a clamp to integers commutes with rint.
//
// Without the division, where it provably gives the same steps. Let s and 1/s be normal,
// y = fl(x * fl(1/s)), and y' = clamp(y, L, H). MAXPS and MINPS return their second operand
// when one is NaN, so y is passed second and a NaN y stays NaN.
// - y' strictly inside (L, H): |x/s| < 256, where y differs from the reference's fl(x / s) by
//   at most 3.0001u|x/s| < 2^-14 (u = 2^-24). A = (y' + 1.5 * 2^23) - 1.5 * 2^23 is rint(y')
//   (|y'| <= 255; it gives +0, never -0, as the integer subtraction float(q) - float(zp) does)
//   and y' - A is exact. If |y' - A| < 0.5 - 2^-11, fl(x / s) lies strictly inside A's
//   rounding interval, so the reference rounds it to A too, and A is inside [L, H].
// - y' = H (y >= H, +inf included): fl(x / s) >= H - 2^-14 (or is +inf), so it rounds to at
//   least H and saturates at H. The same for L. The clamped value is an integer: accepted.
// - NaN, and any vector with one element near a half-integer: the division, as in the
//   reference (NaN to the lowest code).
#include <immintrin.h>

#include <cmath>

#include "ops/kernels/common/lanes_avx2.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "ops/kernels/quantize/quantizer_avx2.h"

namespace qrt {
namespace avx2 {
namespace {

template <bool kSigned>
void Quantize(int64_t n, const float* x, float scale, int32_t zp, void* out) {
  uint8_t* y = static_cast<uint8_t*>(out);
  const Quantizer q(scale, zp, kSigned);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i a = q.Codes(_mm256_loadu_ps(x + i));
    __m256i b = q.Codes(_mm256_loadu_ps(x + i + 8));
    __m256i c = q.Codes(_mm256_loadu_ps(x + i + 16));
    __m256i d = q.Codes(_mm256_loadu_ps(x + i + 24));
    __m256i ab = _mm256_packs_epi32(a, b), cd = _mm256_packs_epi32(c, d);
    __m256i bytes = kSigned ? _mm256_packs_epi16(ab, cd) : _mm256_packus_epi16(ab, cd);
    // The packs work per 128-bit lane: restore element order.
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), _mm256_permutevar8x32_epi32(bytes, order));
  }
  for (; i + 8 <= n; i += 8) {  // short rows (the int8 convolutions' recomputed outputs) stay vectors
    const __m256i a = q.Codes(_mm256_loadu_ps(x + i));
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    const __m128i bytes = kSigned ? _mm_packs_epi16(words, words) : _mm_packus_epi16(words, words);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y + i), bytes);
  }
  if (kSigned)
    ref::QuantizeF32ToS8(n - i, x + i, scale, zp, y + i);
  else
    ref::QuantizeF32ToU8(n - i, x + i, scale, zp, y + i);
}

template <bool kSigned>
void Dequantize(int64_t n, const void* in, float scale, int32_t zp, float* y) {
  const uint8_t* x = static_cast<const uint8_t*>(in);
  const __m256 vs = _mm256_set1_ps(scale), vz = _mm256_set1_ps(float(zp));
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + i));
    __m256i w = kSigned ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(w), vz), vs));
  }
  if (kSigned)
    ref::DequantizeS8ToF32(n - i, x + i, scale, zp, y + i);
  else
    ref::DequantizeU8ToF32(n - i, x + i, scale, zp, y + i);
}

template <bool kSigned>
void QuantizeDequantize(int64_t n, const float* x, float scale, int32_t zp, float* y) {
  const Quantizer q(scale, zp, kSigned);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(q.Steps(_mm256_loadu_ps(x + i)), q.scale));
  if (i < n) {  // masked: lanes not loaded are 0 and are not stored
    const __m256i m = FirstLanes(n - i);
    _mm256_maskstore_ps(y + i, m, _mm256_mul_ps(q.Steps(_mm256_maskload_ps(x + i, m)), q.scale));
  }
}

}  // namespace

void QuantizeDequantizeU8(int64_t n, const float* x, float s, int32_t zp, float* y) {
  QuantizeDequantize<false>(n, x, s, zp, y);
}
void QuantizeDequantizeS8(int64_t n, const float* x, float s, int32_t zp, float* y) {
  QuantizeDequantize<true>(n, x, s, zp, y);
}
void QuantizeF32ToU8(int64_t n, const float* x, float s, int32_t zp, void* y) { Quantize<false>(n, x, s, zp, y); }
void QuantizeF32ToS8(int64_t n, const float* x, float s, int32_t zp, void* y) { Quantize<true>(n, x, s, zp, y); }
void DequantizeU8ToF32(int64_t n, const void* x, float s, int32_t zp, float* y) { Dequantize<false>(n, x, s, zp, y); }
void DequantizeS8ToF32(int64_t n, const void* x, float s, int32_t zp, float* y) { Dequantize<true>(n, x, s, zp, y); }

}  // namespace avx2
}  // namespace qrt
