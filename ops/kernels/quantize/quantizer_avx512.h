// The AVX-512 quantizer shared by the *_avx512.cc kernels that quantize floats: QuantizeLinear
// and QuantizeDequantize (quantize_linear_avx512.cc), and the int8 pointwise convolution's
// step proof (conv_pointwise_int8_avx512.cc), which uses its constants and division-free rule.
// In an anonymous namespace: each file that includes it gets its own copy, built with its own
// flags, and shares no inline code with files built for other ISAs.
#pragma once

#include <cmath>
#include <cstdint>

#include "ops/kernels/common/intrinsics_avx512.h"

namespace qrt::avx512 {
namespace {

constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// Steps(x) = saturate(rint(x / s) + zp) - zp (NaN: lo - zp): the quantized value minus the zero
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
    // VMAXPS returns its second operand (lo) for a NaN: the lowest code, as the reference.
    const __m512 r = _mm512_roundscale_ps(_mm512_div_ps(x, scale), kNearest);
    return _mm512_sub_ps(_mm512_min_ps(_mm512_max_ps(_mm512_add_ps(r, zp), lo), hi), zp);
  }
};

}  // namespace
}  // namespace qrt::avx512
