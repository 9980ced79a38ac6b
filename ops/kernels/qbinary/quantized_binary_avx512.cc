// AVX-512 (F, BW, VBMI) QuantizedMul / QuantizedAdd for 8-bit A, B and C: the AVX2 kernel's
// arithmetic (quantized_binary_avx2.cc explains why it is bit-identical to the reference) at 16
// lanes, with a cheaper way into float:
// - one merge-masked VPERMB puts byte u into the low byte of a dword that is otherwise
//   0x4B000000, i.e. the float 2^23 + u, exactly (int8 operands are first biased to
//   u = a + 128 by flipping the sign bit);
// - subtracting the float 2^23 [+ 128] [+ za] leaves exactly a - za (or float(a) for combined
//   Add): both operands are integers in [2^23, 2^24) and so is everything in between, so the
//   subtraction does not round. Two ops instead of widen, subtract, convert: this kernel is
//   bound by vector-port throughput (VPERMT2B, two uops, made it no faster than AVX2).
// The rest (multiplies, clamp, VCVTPS2DQ, saturating packs with the zero point added in int16)
// is the AVX2 kernel's, op for op, at twice the width.
// Picked under Isa::kAvx2 where the CPU has AVX-512 F, BW and VBMI (quantized_binary.cc).
#include <cstdint>

#include "ops/kernels/common/intrinsics_avx512.h"
#include "ops/kernels/qbinary/quantized_binary_blocks.h"

namespace qrt {
namespace avx512 {
namespace {

using Op = QuantizedBinaryOp;
using Rule = Requantize;

template <class TA, class TB, class TC, Op O, Rule R, bool AInc, bool BInc, bool Bounded>
class Kernel {
 public:
  static constexpr int64_t kBlock = 64;

  explicit Kernel(const void* a, const void* b, const QuantizedBinaryParams& p) {
    alignas(64) uint8_t idx[4][64] = {};
    for (int j = 0; j < 4; ++j) {
      for (int i = 0; i < 16; ++i) idx[j][4 * i] = static_cast<uint8_t>(16 * j + i);  // byte 0 of dword i
      expand_[j] = _mm512_load_si512(idx[j]);
    }
    magic_ = _mm512_set1_epi32(0x4B000000);
    const bool float_of_value = R == Rule::kCombined && O == Op::kAdd;  // float(a), not a - za
    off_a_ = _mm512_set1_ps(8388608.0f + (kSignedA ? 128.0f : 0.0f) + (float_of_value ? 0.0f : p.a_zero));
    off_b_ = _mm512_set1_ps(8388608.0f + (kSignedB ? 128.0f : 0.0f) + (float_of_value ? 0.0f : p.b_zero));
    sa_ = _mm512_set1_ps(p.a_scale);
    sb_ = _mm512_set1_ps(p.b_scale);
    norm_ = _mm512_set1_ps(R == Rule::kDivide ? p.c_scale : p.c_norm);
    ratio_ = _mm512_set1_ps(p.ratio);
    ratio_a_ = _mm512_set1_ps(p.ratio_a);
    ratio_b_ = _mm512_set1_ps(p.ratio_b);
    bias_ = _mm512_set1_ps(p.bias);
    zcf_ = _mm512_set1_ps(static_cast<float>(p.c_zero));
    zc16_ = _mm512_set1_epi16(static_cast<int16_t>(p.c_zero));
    const float tmin = kSignedC ? -128.0f : 0.0f, tmax = kSignedC ? 127.0f : 255.0f;
    const float shift = R == Rule::kCombined ? 0.0f : static_cast<float>(p.c_zero);
    lo_ = _mm512_set1_ps(tmin - shift);
    hi_ = _mm512_set1_ps(tmax - shift);
    // Output dword 4m + k comes from packed dword 4k + m (the packs work per 128-bit lane).
    alignas(64) int32_t perm[16];
    for (int i = 0; i < 16; ++i) perm[i] = 4 * (i % 4) + i / 4;
    unpack_ = _mm512_load_si512(perm);
    // Broadcast operands: their per-element terms are computed once, by the same code.
    if (!AInc) {
      alignas(64) TA fill[64];
      for (TA& v : fill) v = static_cast<const TA*>(a)[0];
      a_const_ = OperandA(Expand(Bytes(fill), 0));
    }
    if (!BInc) {
      alignas(64) TB fill[64];
      for (TB& v : fill) v = static_cast<const TB*>(b)[0];
      b_const_ = OperandB(Expand(Bytes(fill), 0));
    }
  }

  // 64 outputs from a (64 elements if AInc, else its first) and b likewise.
  template <bool kStream>
  void Block(const TA* a, const TB* b, uint8_t* c) const {
    if (kStream) {  // large runs: ask for the inputs 2 KiB ahead (about 4% faster at 16M here)
      // (Addresses made as integers: they may lie past the end, which a prefetch ignores.)
      if (AInc) _mm_prefetch(reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(a) + 2048), _MM_HINT_T0);
      if (BInc) _mm_prefetch(reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(b) + 2048), _MM_HINT_T0);
    }
    const __m512i ra = AInc ? Bytes(a) : _mm512_setzero_si512();
    const __m512i rb = BInc ? Bytes(b) : _mm512_setzero_si512();
    __m512i q[4];
    for (int j = 0; j < 4; ++j) {
      const __m512 ta = AInc ? OperandA(Expand(ra, j)) : a_const_;
      const __m512 tb = BInc ? OperandB(Expand(rb, j)) : b_const_;
      const __m512 y = Combine(ta, tb);
      q[j] = _mm512_cvtps_epi32(Bounded ? y : _mm512_min_ps(_mm512_max_ps(y, lo_), hi_));
    }
    __m512i lo16 = _mm512_packs_epi32(q[0], q[1]);
    __m512i hi16 = _mm512_packs_epi32(q[2], q[3]);
    if (R != Rule::kCombined) {
      lo16 = _mm512_adds_epi16(lo16, zc16_);
      hi16 = _mm512_adds_epi16(hi16, zc16_);
    }
    __m512i r = kSignedC ? _mm512_packs_epi16(lo16, hi16) : _mm512_packus_epi16(lo16, hi16);
    r = _mm512_permutexvar_epi32(unpack_, r);
    if (kStream) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(c), r);
    } else {
      _mm512_storeu_si512(c, r);
    }
  }

  static void Fence() { _mm_sfence(); }

 private:
  static constexpr bool kSignedA = static_cast<TA>(-1) < 0;
  static constexpr bool kSignedB = static_cast<TB>(-1) < 0;
  static constexpr bool kSignedC = static_cast<TC>(-1) < 0;

  // 64 bytes as unsigned values (int8: a + 128).
  template <class T>
  static __m512i Bytes(const T* p) {
    const __m512i v = _mm512_loadu_si512(p);
    return static_cast<T>(-1) < 0 ? _mm512_xor_si512(v, _mm512_set1_epi8(static_cast<char>(0x80))) : v;
  }
  // 2^23 + u for bytes 16j .. 16j + 15: VPERMB moves byte 16j + i into byte 0 of dword i;
  // the merge mask keeps the other three bytes of 0x4B000000.
  __m512 Expand(__m512i bytes, int j) const {
    return _mm512_castsi512_ps(_mm512_mask_permutexvar_epi8(magic_, 0x1111111111111111ull, expand_[j], bytes));
  }
  // The per-operand term: _a (reciprocal/divide), a - za (combined Mul), float(a) (combined Add).
  __m512 OperandA(__m512 expanded) const {
    const __m512 d = _mm512_sub_ps(expanded, off_a_);
    return R == Rule::kCombined ? d : _mm512_mul_ps(d, sa_);
  }
  // Same for b; for combined Add the whole inner fma(float(b), ratio_b, bias).
  __m512 OperandB(__m512 expanded) const {
    const __m512 d = _mm512_sub_ps(expanded, off_b_);
    if (R == Rule::kCombined && O == Op::kAdd) return _mm512_fmadd_ps(d, ratio_b_, bias_);
    return R == Rule::kCombined ? d : _mm512_mul_ps(d, sb_);
  }
  // y before clamping and rounding.
  __m512 Combine(__m512 ta, __m512 tb) const {
    if (R == Rule::kCombined) {
      if (O == Op::kMul) return _mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(ta, tb), ratio_), zcf_);
      return _mm512_fmadd_ps(ta, ratio_a_, tb);
    }
    const __m512 v = O == Op::kMul ? _mm512_mul_ps(ta, tb) : _mm512_add_ps(ta, tb);
    return R == Rule::kDivide ? _mm512_div_ps(v, norm_) : _mm512_mul_ps(v, norm_);
  }

  __m512i expand_[4], magic_, zc16_, unpack_;
  __m512 off_a_, off_b_, sa_, sb_, norm_, ratio_, ratio_a_, ratio_b_, bias_, zcf_, lo_, hi_;
  __m512 a_const_ = _mm512_setzero_ps(), b_const_ = _mm512_setzero_ps();
};

}  // namespace

QuantizedBinaryFn QuantizedBinaryKernel(QuantizedBinaryOp op, Requantize rule, DataType a, DataType b, DataType c) {
  return quantized_binary_blocks::Pick<Kernel>(op, rule, a, b, c);
}

}  // namespace avx512
}  // namespace qrt
