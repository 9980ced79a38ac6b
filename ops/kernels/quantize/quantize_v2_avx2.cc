// AVX2 QuantizeV2 run kernels for int8/uint8 T. Bit-identical to quantize_v2_ref.cc:
// - the same f32 operations in the same order (no FMA);
// - std::min(v, hi) == _mm256_min_ps(hi, v) and std::max(v, lo) == _mm256_max_ps(lo, v),
//   NaN included (MINPS/MAXPS return the second operand when one is NaN);
// - std::round (half away from zero) is trunc(v) + (|v - trunc(v)| >= 0.5 ? copysign(1, v) : 0).
//   v - trunc(v) is exact in f32 and trunc(v) +- 1 is exact whenever the fraction is non-zero
//   (|v| < 2^23), so this is exact; it has no 0.49999997 trap. It may return +0 where
//   std::round returns -0, which converts to the same integer;
// - std::trunc / std::rint are _mm256_round_ps with _MM_FROUND_TO_ZERO / _MM_FROUND_CUR_DIRECTION;
// - SaturateCast: NaN -> 0 by masking, clamp to [Tmin, Tmax] in f32, then an exact
//   truncating conversion of an integral value;
// - tails run the same vector code on masked loads.
#include <immintrin.h>

#include <cstdint>

#include "ops/kernels/common/lanes_avx2.h"
#include "ops/kernels/quantize/quantize_v2.h"

namespace qrt {
namespace avx2 {
namespace {

enum class Kind { kMinCombinedSigned, kMinCombinedUnsigned, kMinFirst, kScaledAway, kScaledEven };

inline __m256 RoundAway(__m256 v) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  const __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m256 frac = _mm256_andnot_ps(sign_bit, _mm256_sub_ps(v, t));
  const __m256 one = _mm256_or_ps(_mm256_set1_ps(1.0f), _mm256_and_ps(v, sign_bit));
  const __m256 up = _mm256_cmp_ps(frac, _mm256_set1_ps(0.5f), _CMP_GE_OQ);
  return _mm256_add_ps(t, _mm256_and_ps(up, one));
}

inline __m256 Clamp(__m256 v, __m256 lo, __m256 hi) { return _mm256_max_ps(lo, _mm256_min_ps(hi, v)); }

template <Kind K>
inline __m256 Quantize(__m256 x, __m256 lo, __m256 hi, __m256 scale, __m256 bias) {
  switch (K) {
    case Kind::kMinCombinedSigned:
      return RoundAway(_mm256_sub_ps(_mm256_mul_ps(_mm256_sub_ps(Clamp(x, lo, hi), lo), scale), bias));
    case Kind::kMinCombinedUnsigned:
      return _mm256_round_ps(
          _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(Clamp(x, lo, hi), lo), scale), _mm256_set1_ps(0.5f)),
          _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    case Kind::kMinFirst:
      return Clamp(_mm256_sub_ps(RoundAway(_mm256_mul_ps(x, scale)), bias), lo, hi);
    case Kind::kScaledAway:
      return RoundAway(_mm256_mul_ps(Clamp(x, lo, hi), scale));
    case Kind::kScaledEven:
      return _mm256_round_ps(_mm256_mul_ps(Clamp(x, lo, hi), scale), _MM_FROUND_CUR_DIRECTION);
  }
  return x;
}

template <bool Signed>
inline __m256i SaturateToInt(__m256 q) {
  q = _mm256_and_ps(q, _mm256_cmp_ps(q, q, _CMP_ORD_Q));
  q = _mm256_max_ps(q, _mm256_set1_ps(Signed ? -128.0f : 0.0f));
  q = _mm256_min_ps(q, _mm256_set1_ps(Signed ? 127.0f : 255.0f));
  return _mm256_cvttps_epi32(q);
}

// Four vectors of in-range int32 -> 32 bytes in element order.
template <bool Signed>
inline __m256i Pack(__m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i ab = _mm256_packs_epi32(a, b);
  const __m256i cd = _mm256_packs_epi32(c, d);
  const __m256i r = Signed ? _mm256_packs_epi16(ab, cd) : _mm256_packus_epi16(ab, cd);
  return _mm256_permutevar8x32_epi32(r, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

template <bool Signed, Kind K, bool Inc>
void Run(int64_t n, const float* x, void* out, const QuantizeV2Consts& c) {
  uint8_t* y = static_cast<uint8_t*>(out);
  const __m256 lo_b = _mm256_set1_ps(c.lo[0]), hi_b = _mm256_set1_ps(c.hi[0]);
  const __m256 scale_b = _mm256_set1_ps(c.scale[0]), bias_b = _mm256_set1_ps(c.bias[0]);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i q[4];
    for (int j = 0; j < 4; ++j) {
      const int64_t e = i + 8 * j;
      const __m256 lo = Inc ? _mm256_loadu_ps(c.lo + e) : lo_b;
      const __m256 hi = Inc ? _mm256_loadu_ps(c.hi + e) : hi_b;
      const __m256 scale = Inc ? _mm256_loadu_ps(c.scale + e) : scale_b;
      const __m256 bias = Inc ? _mm256_loadu_ps(c.bias + e) : bias_b;
      q[j] = SaturateToInt<Signed>(Quantize<K>(_mm256_loadu_ps(x + e), lo, hi, scale, bias));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), Pack<Signed>(q[0], q[1], q[2], q[3]));
  }
  if (i < n) {
    const int64_t rem = n - i;
    __m256i q[4];
    for (int j = 0; j < 4; ++j) {
      const int64_t e = i + 8 * j;
      const __m256i m = FirstLanes(rem - 8 * j);
      const __m256 lo = Inc ? _mm256_maskload_ps(c.lo + e, m) : lo_b;
      const __m256 hi = Inc ? _mm256_maskload_ps(c.hi + e, m) : hi_b;
      const __m256 scale = Inc ? _mm256_maskload_ps(c.scale + e, m) : scale_b;
      const __m256 bias = Inc ? _mm256_maskload_ps(c.bias + e, m) : bias_b;
      q[j] = SaturateToInt<Signed>(Quantize<K>(_mm256_maskload_ps(x + e, m), lo, hi, scale, bias));
    }
    alignas(32) uint8_t buf[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(buf), Pack<Signed>(q[0], q[1], q[2], q[3]));
    for (int64_t j = 0; j < rem; ++j) y[i + j] = buf[j];
  }
}

template <bool Signed, Kind K>
void Dispatch(int64_t n, const float* x, void* out, const QuantizeV2Consts& c) {
  if (c.inc != 0) {
    Run<Signed, K, true>(n, x, out, c);
  } else {
    Run<Signed, K, false>(n, x, out, c);
  }
}

template <bool Signed>
QuantizeV2Fn ForType(QuantizeV2Mode mode, QuantizeV2RoundMode round_mode) {
  switch (mode) {
    case QuantizeV2Mode::kMinCombined:
      return Signed ? Dispatch<Signed, Kind::kMinCombinedSigned> : Dispatch<Signed, Kind::kMinCombinedUnsigned>;
    case QuantizeV2Mode::kMinFirst:
      return Dispatch<Signed, Kind::kMinFirst>;
    case QuantizeV2Mode::kScaled:
      return round_mode == QuantizeV2RoundMode::kHalfToEven ? Dispatch<Signed, Kind::kScaledEven>
                                                            : Dispatch<Signed, Kind::kScaledAway>;
  }
  return nullptr;
}

}  // namespace

QuantizeV2Fn QuantizeV2Kernel(DataType T, QuantizeV2Mode mode, QuantizeV2RoundMode round_mode) {
  switch (T) {
    case DataType::kInt8:
      return ForType<true>(mode, round_mode);
    case DataType::kUInt8:
      return ForType<false>(mode, round_mode);
    default:
      return nullptr;
  }
}

}  // namespace avx2
}  // namespace qrt
