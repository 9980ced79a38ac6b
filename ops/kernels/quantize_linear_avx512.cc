// AVX-512F QuantizeLinear (8-bit) and QuantizeDequantize: the AVX2 kernels' operations at 16
// lanes (quantize_linear_avx2.cc gives why they are bit-identical to ref::, including the
// division-free quotient). VROUNDSCALEPS with the nearest-even immediate rounds like
// VROUNDPS; the clamped values convert exactly and VPMOVDB keeps their low byte.
// Picked under Isa::kAvx2 where the CPU has AVX-512F (quantize_linear.cc).
#include <cmath>

#include "ops/kernels/avx512_intrinsics.h"
#include "ops/kernels/quantize_linear.h"

namespace qrt {
namespace avx512 {
namespace {

constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

struct Quotient {
  __m512 scale, inverse, inside;
  bool multiply;  // scale and 1/scale normal: the division-free path applies

  explicit Quotient(float s)
      : scale(_mm512_set1_ps(s)),
        inverse(_mm512_set1_ps(1.0f / s)),
        inside(_mm512_set1_ps(0.5f - 1.0f / 2048.0f)),
        multiply(std::isnormal(s) && std::isnormal(1.0f / s)) {}

  // rint(x / s), NaN as 0.
  __m512 Rounded(__m512 x) const {
    if (multiply) {
      const __m512 y = _mm512_mul_ps(x, inverse);
      const __m512 a = _mm512_roundscale_ps(y, kNearest);
      const __m512 off = _mm512_abs_ps(_mm512_sub_ps(y, a));
      if (_mm512_cmp_ps_mask(off, inside, _CMP_LT_OQ) == 0xFFFF) return a;
    }
    const __m512 r = _mm512_roundscale_ps(_mm512_div_ps(x, scale), kNearest);
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(r, r, _CMP_ORD_Q), r);
  }
};

struct Clamp {
  __m512 zp, lo, hi;
  Clamp(int32_t z, bool is_signed)
      : zp(_mm512_set1_ps(float(z))),
        lo(_mm512_set1_ps(is_signed ? -128.f : 0.f)),
        hi(_mm512_set1_ps(is_signed ? 127.f : 255.f)) {}
  // saturate(r + zp), as an exact integer-valued float.
  __m512 operator()(__m512 r) const { return _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(r, zp), lo), hi); }
};

template <bool kSigned>
void Quantize(int64_t n, const float* x, float scale, int32_t zp, void* out) {
  uint8_t* y = static_cast<uint8_t*>(out);
  const Quotient q(scale);
  const Clamp clamp(zp, kSigned);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i v = _mm512_cvtps_epi32(clamp(q.Rounded(_mm512_loadu_ps(x + i))));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm512_cvtepi32_epi8(v));
  }
  if (kSigned) ref::QuantizeF32ToS8(n - i, x + i, scale, zp, y + i);
  else ref::QuantizeF32ToU8(n - i, x + i, scale, zp, y + i);
}

template <bool kSigned>
void QuantizeDequantize(int64_t n, const float* x, float scale, int32_t zp, float* y) {
  const Quotient q(scale);
  const Clamp clamp(zp, kSigned);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 r = clamp(q.Rounded(_mm512_loadu_ps(x + i)));
    _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_sub_ps(r, clamp.zp), q.scale));
  }
  if (kSigned) ref::QuantizeDequantizeS8(n - i, x + i, scale, zp, y + i);
  else ref::QuantizeDequantizeU8(n - i, x + i, scale, zp, y + i);
}

}  // namespace

void QuantizeF32ToU8(int64_t n, const float* x, float s, int32_t zp, void* y) { Quantize<false>(n, x, s, zp, y); }
void QuantizeF32ToS8(int64_t n, const float* x, float s, int32_t zp, void* y) { Quantize<true>(n, x, s, zp, y); }
void QuantizeDequantizeU8(int64_t n, const float* x, float s, int32_t zp, float* y) {
  QuantizeDequantize<false>(n, x, s, zp, y);
}
void QuantizeDequantizeS8(int64_t n, const float* x, float s, int32_t zp, float* y) {
  QuantizeDequantize<true>(n, x, s, zp, y);
}

}  // namespace avx512
}  // namespace qrt
