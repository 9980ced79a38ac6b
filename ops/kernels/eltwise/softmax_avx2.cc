// AVX2/FMA softmax row, bit-identical to ref::SoftmaxRow: eight elements per step, lane l of
// the sum vector taking elements l, l + 8, ... as the reference's lane sums do.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/kernels/common/lanes_avx2.h"
#include "ops/kernels/eltwise/softmax.h"

namespace qrt {
namespace avx2 {
namespace {

using namespace softmax_exp;

inline __m256 Exp(__m256 v) {
  __m256 x = _mm256_max_ps(v, _mm256_set1_ps(kLower));
  const __m256 biased = _mm256_fmadd_ps(x, _mm256_set1_ps(kLog2Reciprocal), _mm256_set1_ps(kRoundingBias));
  const __m256 k = _mm256_sub_ps(biased, _mm256_set1_ps(kRoundingBias));
  x = _mm256_fmadd_ps(k, _mm256_set1_ps(kLog2High), x);
  x = _mm256_fmadd_ps(k, _mm256_set1_ps(kLog2Low), x);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kPoly[0]), x, _mm256_set1_ps(kPoly[1]));
  for (int i = 2; i < 7; ++i) p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kPoly[i]));
  const __m256i scale =
      _mm256_add_epi32(_mm256_slli_epi32(_mm256_castps_si256(biased), 23), _mm256_set1_epi32(kExponentOne));
  return _mm256_mul_ps(p, _mm256_castsi256_ps(scale));
}

// The sixteen-lane kernel's exponential (ref::Exp16). The clamp's operands are in MAXPS(lower,
// v)'s order, so a NaN v stays NaN.
inline __m256 Exp16(__m256 v) {
  __m256 x = _mm256_max_ps(_mm256_set1_ps(kLower16), v);
  const __m256 biased = _mm256_fmadd_ps(x, _mm256_set1_ps(kLog2Reciprocal), _mm256_set1_ps(kRoundingBias));
  const __m256 k = _mm256_sub_ps(biased, _mm256_set1_ps(kRoundingBias));
  x = _mm256_fmadd_ps(k, _mm256_set1_ps(kLog2High), x);
  x = _mm256_fmadd_ps(k, _mm256_set1_ps(kLog2Low), x);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kPoly[0]), x, _mm256_set1_ps(kPoly[1]));
  for (int i = 2; i < 7; ++i) p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kPoly[i]));
  // 2^(k + 64) from the biased value's low bits, exact; then * 2^-64, the one rounding.
  const __m256i scale = _mm256_add_epi32(_mm256_slli_epi32(_mm256_castps_si256(biased), 23),
                                         _mm256_set1_epi32(kExponentOne + kExponentPlus64));
  return _mm256_mul_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(scale)), _mm256_set1_ps(kTwoToMinus64));
}

// The row's maximum, eight lanes at a time (exact in any order); false where the row holds a
// NaN, which softmax_exp::RowMaximum then handles as the reference does.
bool RowMaximum8(int64_t n, const float* x, float* maximum) {
  const __m256 lowest = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  __m256 m = lowest, nan = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    m = _mm256_max_ps(m, v);
  }
  if (i < n) {
    const __m256i mask = FirstLanes(n - i);
    const __m256 v = _mm256_blendv_ps(lowest, _mm256_maskload_ps(x + i, mask), _mm256_castsi256_ps(mask));
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    m = _mm256_max_ps(m, v);
  }
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
  *maximum = _mm_cvtss_f32(h);
  return _mm256_movemask_ps(nan) == 0;
}

// The maximum, or false (y all NaN) for a row holding NaN.
bool Maximum(int64_t n, const float* x, float* y, float* maximum) {
  return RowMaximum8(n, x, maximum) || softmax_exp::RowMaximum(n, x, y, maximum);
}

// y = e * (1 / sum), eight at a time.
void ScaleRow(int64_t n, float sum, float* y) {
  const float inv = 1.f / sum;
  const __m256 scale = _mm256_set1_ps(inv);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), scale));
  for (; i < n; ++i) y[i] = y[i] * inv;
}

}  // namespace

// The sixteen-lane sum: lanes 0-7 and 8-15 in two registers, the tail's masked lanes adding +0.
float SoftmaxSumExp16(int64_t n, const float* x, float neg, float* y) {
  const __m256 neg_max = _mm256_set1_ps(neg);
  __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 e0 = Exp16(_mm256_add_ps(_mm256_loadu_ps(x + i), neg_max));
    const __m256 e1 = Exp16(_mm256_add_ps(_mm256_loadu_ps(x + i + 8), neg_max));
    _mm256_storeu_ps(y + i, e0);
    _mm256_storeu_ps(y + i + 8, e1);
    lo = _mm256_add_ps(lo, e0);
    hi = _mm256_add_ps(hi, e1);
  }
  for (int half = 0; half < 2 && i < n; ++half, i += 8) {
    const __m256i mask = FirstLanes(std::min<int64_t>(8, n - i));
    const __m256 e =
        _mm256_and_ps(Exp16(_mm256_add_ps(_mm256_maskload_ps(x + i, mask), neg_max)), _mm256_castsi256_ps(mask));
    _mm256_maskstore_ps(y + i, mask, e);
    (half == 0 ? lo : hi) = _mm256_add_ps(half == 0 ? lo : hi, e);
  }
  __m256 h = _mm256_add_ps(lo, hi);  // t_j = s_j + s_{j+8}
  h = _mm256_hadd_ps(h, h);          // per 128-bit half: t0+t1, t2+t3
  h = _mm256_hadd_ps(h, h);          // (t0+t1)+(t2+t3) | (t4+t5)+(t6+t7)
  return _mm_cvtss_f32(_mm_add_ss(_mm256_extractf128_ps(h, 1), _mm256_castps256_ps128(h)));
}

void SoftmaxRow16(int64_t n, const float* x, float* y) {
  float m;
  if (!Maximum(n, x, y, &m)) return;
  ScaleRow(n, SoftmaxSumExp16(n, x, -m, y), y);
}

float SoftmaxSumExp(int64_t n, const float* x, float neg, float* y) {
  const __m256 neg_max = _mm256_set1_ps(neg);
  __m256 lanes = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 e = Exp(_mm256_add_ps(neg_max, _mm256_loadu_ps(x + i)));
    _mm256_storeu_ps(y + i, e);
    lanes = _mm256_add_ps(lanes, e);
  }
  if (i < n) {  // the tail in lanes 0 .. n - i - 1; the other lanes add +0
    const __m256i mask = FirstLanes(n - i);
    const __m256 e =
        _mm256_and_ps(Exp(_mm256_add_ps(neg_max, _mm256_maskload_ps(x + i, mask))), _mm256_castsi256_ps(mask));
    _mm256_maskstore_ps(y + i, mask, e);
    lanes = _mm256_add_ps(lanes, e);
  }
  __m256 h = _mm256_hadd_ps(lanes, lanes);  // per 128-bit half: s0+s1, s2+s3
  h = _mm256_hadd_ps(h, h);                 // (s0+s1)+(s2+s3) | (s4+s5)+(s6+s7)
  return _mm_cvtss_f32(_mm_add_ss(_mm256_extractf128_ps(h, 1), _mm256_castps256_ps128(h)));
}

void SoftmaxRow(int64_t n, const float* x, float* y) {
  float m;
  if (!Maximum(n, x, y, &m)) return;
  ScaleRow(n, SoftmaxSumExp(n, x, -m, y), y);
}

}  // namespace avx2
}  // namespace qrt
