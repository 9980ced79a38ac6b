// The AVX2 quantizer shared by the *_avx2.cc kernels that quantize floats: QuantizeLinear and
// QuantizeDequantize (quantize_linear_avx2.cc, which has the argument for its division-free
// rule), and the depthwise rows kernel's codes (depthwise_rows_avx2.cc). In an anonymous
// namespace: each file that includes it gets its own copy, built with its own flags, and shares
// no inline code with files built for other ISAs.
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstdint>

namespace qrt::avx2 {
namespace {

// Steps(x) = saturate(rint(x / s) + zp) - zp (NaN: lo - zp), an exact integer-valued float.
struct Quantizer {
  __m256 scale, inverse, inside, magic, no_sign, zp, low, high, lo, hi;
  bool multiply;  // scale and 1/scale normal: the division-free path applies

  Quantizer(float s, int32_t z, bool is_signed)
      : scale(_mm256_set1_ps(s)),
        inverse(_mm256_set1_ps(1.0f / s)),
        inside(_mm256_set1_ps(0.5f - 1.0f / 2048.0f)),
        magic(_mm256_set1_ps(12582912.0f)),
        no_sign(_mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))),
        zp(_mm256_set1_ps(float(z))),
        low(_mm256_set1_ps((is_signed ? -128.f : 0.f) - float(z))),
        high(_mm256_set1_ps((is_signed ? 127.f : 255.f) - float(z))),
        lo(_mm256_set1_ps(is_signed ? -128.f : 0.f)),
        hi(_mm256_set1_ps(is_signed ? 127.f : 255.f)),
        multiply(std::isnormal(s) && std::isnormal(1.0f / s)) {}

  __m256 Steps(__m256 x) const {
    constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    if (multiply) {
      const __m256 y = _mm256_min_ps(high, _mm256_max_ps(low, _mm256_mul_ps(x, inverse)));
      const __m256 a = _mm256_sub_ps(_mm256_add_ps(y, magic), magic);
      const __m256 off = _mm256_and_ps(_mm256_sub_ps(y, a), no_sign);
      if (_mm256_movemask_ps(_mm256_cmp_ps(off, inside, _CMP_LT_OQ)) == 0xFF) return a;
    }
    const __m256 r = _mm256_round_ps(_mm256_div_ps(x, scale), kNearest);
    return _mm256_sub_ps(_mm256_min_ps(_mm256_max_ps(_mm256_add_ps(r, zp), lo), hi), zp);
  }

  // QuantizeLinear's codes of 8 floats, the steps plus the zero point, as int32.
  __m256i Codes(__m256 x) const { return _mm256_cvtps_epi32(_mm256_add_ps(Steps(x), zp)); }
};

}  // namespace
}  // namespace qrt::avx2
