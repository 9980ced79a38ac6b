// AVX2 QuantizedMul / QuantizedAdd for 8-bit A, B and C. Bit-identical to
// quantized_binary_ref.cc, because:
// - operands widen exactly to int32; a - za is exact in int32 and converts exactly to f32
//   (|a - za| <= 255), so float(a - za) == float(a) - float(za) for the divide rule too;
// - the f32 operations are the reference's, in its order; a broadcast operand's _a (or the
//   inner fma of combined Add) is computed once, which gives the same value;
// - combined Mul: float(a - za) * float(b - zb) is the exact int32 product (|product| <=
//   65025 < 2^24), so it equals float(int32 product);
// - combined Add: the reference is defined with fma, so VFMADD is the specification there.
//   Nowhere else is FMA used;
// - when the driver proves |y| < 2^30 and finite (QuantizedBinaryParams::bounded), the
//   float clamp is skipped: VCVTPS2DQ is then exact-range and the saturating packs
//   (int32 -> int16 -> 8-bit, with a saturating int16 zc add) clamp exactly like the reference;
// - rounding: clamping y to [Tmin - zc, Tmax - zc] (or [Tmin, Tmax] when zc is already in y)
//   before VCVTPS2DQ equals rounding then saturating, because the bounds are integers and
//   rounding is monotone; MAXPS(y, lo) turns NaN into lo, i.e. C = Tmin, as the reference.
//   VCVTPS2DQ rounds in the MXCSR mode like nearbyint/rint. Adding zc after rounding is
//   exact int16 arithmetic (the clamped values are within [-255, 255]);
// - partial blocks (tails, and heads that align non-temporal stores) run the same block
//   code on zero-padded copies.
#include <immintrin.h>

#include <cstdint>

#include "ops/kernels/qbinary/quantized_binary_blocks.h"

namespace qrt {
namespace avx2 {
namespace {

using Op = QuantizedBinaryOp;
using Rule = Requantize;

template <class T>
inline __m256i Load8(const T* p) {
  const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return static_cast<T>(-1) < 0 ? _mm256_cvtepi8_epi32(v) : _mm256_cvtepu8_epi32(v);
}

template <class TA, class TB, class TC, Op O, Rule R, bool AInc, bool BInc, bool Bounded>
class Kernel {
 public:
  explicit Kernel(const void* a, const void* b, const QuantizedBinaryParams& p) {
    za_ = _mm256_set1_epi32(p.a_zero);
    zb_ = _mm256_set1_epi32(p.b_zero);
    sa_ = _mm256_set1_ps(p.a_scale);
    sb_ = _mm256_set1_ps(p.b_scale);
    norm_ = _mm256_set1_ps(R == Rule::kDivide ? p.c_scale : p.c_norm);
    ratio_ = _mm256_set1_ps(p.ratio);
    ratio_a_ = _mm256_set1_ps(p.ratio_a);
    ratio_b_ = _mm256_set1_ps(p.ratio_b);
    bias_ = _mm256_set1_ps(p.bias);
    zcf_ = _mm256_set1_ps(static_cast<float>(p.c_zero));
    zc16_ = _mm256_set1_epi16(static_cast<int16_t>(p.c_zero));
    const float tmin = kSignedC ? -128.0f : 0.0f, tmax = kSignedC ? 127.0f : 255.0f;
    if (R == Rule::kCombined) {
      lo_ = _mm256_set1_ps(tmin);
      hi_ = _mm256_set1_ps(tmax);
    } else {
      lo_ = _mm256_set1_ps(tmin - static_cast<float>(p.c_zero));
      hi_ = _mm256_set1_ps(tmax - static_cast<float>(p.c_zero));
    }
    // Broadcast operands: their per-element terms are computed once.
    if (!AInc) a_const_ = OperandA(_mm256_set1_epi32(static_cast<const TA*>(a)[0]));
    if (!BInc) b_const_ = OperandB(_mm256_set1_epi32(static_cast<const TB*>(b)[0]));
  }

  static constexpr int64_t kBlock = 32;

  // 32 outputs from a (32 elements if AInc, else its first) and b likewise.
  template <bool kStream>
  void Block(const TA* a, const TB* b, uint8_t* c) const {
    __m256i q[4];
    for (int j = 0; j < 4; ++j) {
      const __m256 ta = AInc ? OperandA(Load8(a + 8 * j)) : a_const_;
      const __m256 tb = BInc ? OperandB(Load8(b + 8 * j)) : b_const_;
      const __m256 y = Combine(ta, tb);
      q[j] = _mm256_cvtps_epi32(Bounded ? y : _mm256_min_ps(_mm256_max_ps(y, lo_), hi_));
    }
    __m256i lo16 = _mm256_packs_epi32(q[0], q[1]);
    __m256i hi16 = _mm256_packs_epi32(q[2], q[3]);
    if (R != Rule::kCombined) {
      lo16 = _mm256_adds_epi16(lo16, zc16_);
      hi16 = _mm256_adds_epi16(hi16, zc16_);
    }
    __m256i r = kSignedC ? _mm256_packs_epi16(lo16, hi16) : _mm256_packus_epi16(lo16, hi16);
    r = _mm256_permutevar8x32_epi32(r, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    if (kStream) {
      _mm256_stream_si256(reinterpret_cast<__m256i*>(c), r);
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(c), r);
    }
  }

  static void Fence() { _mm_sfence(); }

 private:
  static constexpr bool kSignedC = static_cast<TC>(-1) < 0;

  // The per-operand term: _a (reciprocal/divide), a - za (combined Mul), float(a) (combined Add).
  __m256 OperandA(__m256i a) const {
    if (R == Rule::kCombined && O == Op::kAdd) return _mm256_cvtepi32_ps(a);
    const __m256 d = _mm256_cvtepi32_ps(_mm256_sub_epi32(a, za_));
    return R == Rule::kCombined ? d : _mm256_mul_ps(d, sa_);
  }
  // Same for b; for combined Add the whole inner fma(float(b), ratio_b, bias).
  __m256 OperandB(__m256i b) const {
    if (R == Rule::kCombined && O == Op::kAdd) {
      return _mm256_fmadd_ps(_mm256_cvtepi32_ps(b), ratio_b_, bias_);
    }
    const __m256 d = _mm256_cvtepi32_ps(_mm256_sub_epi32(b, zb_));
    return R == Rule::kCombined ? d : _mm256_mul_ps(d, sb_);
  }
  // y before clamping and rounding.
  __m256 Combine(__m256 ta, __m256 tb) const {
    if (R == Rule::kCombined) {
      if (O == Op::kMul) return _mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(ta, tb), ratio_), zcf_);
      return _mm256_fmadd_ps(ta, ratio_a_, tb);
    }
    const __m256 v = O == Op::kMul ? _mm256_mul_ps(ta, tb) : _mm256_add_ps(ta, tb);
    return R == Rule::kDivide ? _mm256_div_ps(v, norm_) : _mm256_mul_ps(v, norm_);
  }

  __m256i za_, zb_, zc16_;
  __m256 sa_, sb_, norm_, ratio_, ratio_a_, ratio_b_, bias_, zcf_, lo_, hi_;
  __m256 a_const_ = _mm256_setzero_ps(), b_const_ = _mm256_setzero_ps();
};

}  // namespace

QuantizedBinaryFn QuantizedBinaryKernel(QuantizedBinaryOp op, Requantize rule, DataType a, DataType b, DataType c) {
  return quantized_binary_blocks::Pick<Kernel>(op, rule, a, b, c);
}

}  // namespace avx2
}  // namespace qrt
