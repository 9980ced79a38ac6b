// AVX-512F QuantizeLinear (8-bit) and QuantizeDequantize: the AVX2 kernels' operations at 16
// lanes (quantize_linear_avx2.cc gives why they are bit-identical to ref::, including the
// division-free quotient). VROUNDSCALEPS with the nearest-even immediate rounds like
// VROUNDPS; the clamped values convert exactly and VPMOVDB keeps their low byte. Tails are
// masked vectors (lanes not loaded are 0 and are not stored).
// Picked under Isa::kAvx2 where the CPU has AVX-512F (quantize_linear.cc).
#include <cmath>

#include "ops/kernels/avx512_intrinsics.h"
#include "ops/kernels/quantize_linear.h"

namespace qrt {
namespace avx512 {
namespace {

constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// Steps(x) = saturate(rint(x / s) + zp) - zp, NaN as 0: the quantized value minus the zero
// point, an exact integer-valued float (quantize_linear_avx2.cc has the argument).
struct Quantizer {
  __m512 scale, inverse, inside, magic, zp, low, high, lo, hi;
  bool multiply;  // scale and 1/scale normal: the division-free path applies

  Quantizer(float s, int32_t z, bool is_signed)
      : scale(_mm512_set1_ps(s)),
        inverse(_mm512_set1_ps(1.0f / s)),
        inside(_mm512_set1_ps(0.5f - 1.0f / 2048.0f)),
        magic(_mm512_set1_ps(12582912.0f)),
        zp(_mm512_set1_ps(float(z))),
        low(_mm512_set1_ps((is_signed ? -128.f : 0.f) - float(z))),
        high(_mm512_set1_ps((is_signed ? 127.f : 255.f) - float(z))),
        lo(_mm512_set1_ps(is_signed ? -128.f : 0.f)),
        hi(_mm512_set1_ps(is_signed ? 127.f : 255.f)),
        multiply(std::isnormal(s) && std::isnormal(1.0f / s)) {}

  __m512 Steps(__m512 x) const {
    if (multiply) {
      const __m512 y = _mm512_min_ps(high, _mm512_max_ps(low, _mm512_mul_ps(x, inverse)));
      const __m512 a = _mm512_sub_ps(_mm512_add_ps(y, magic), magic);
      if (_mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(y, a)), inside, _CMP_LT_OQ) == 0xFFFF) return a;
    }
    __m512 r = _mm512_roundscale_ps(_mm512_div_ps(x, scale), kNearest);
    r = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(r, r, _CMP_ORD_Q), r);
    return _mm512_sub_ps(_mm512_min_ps(_mm512_max_ps(_mm512_add_ps(r, zp), lo), hi), zp);
  }
};

template <bool kSigned>
void Quantize(int64_t n, const float* x, float scale, int32_t zp, void* out) {
  uint8_t* y = static_cast<uint8_t*>(out);
  const Quantizer q(scale, zp, kSigned);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = FirstLanes(n - i);
    const __m512i v = _mm512_cvtps_epi32(_mm512_add_ps(q.Steps(_mm512_maskz_loadu_ps(m, x + i)), q.zp));
    _mm512_mask_cvtepi32_storeu_epi8(y + i, m, v);
  }
}

template <bool kSigned>
void QuantizeDequantize(int64_t n, const float* x, float scale, int32_t zp, float* y) {
  const Quantizer q(scale, zp, kSigned);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(q.Steps(_mm512_loadu_ps(x + i)), q.scale));
  if (i < n) {
    const __mmask16 m = FirstLanes(n - i);
    _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(q.Steps(_mm512_maskz_loadu_ps(m, x + i)), q.scale));
  }
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
