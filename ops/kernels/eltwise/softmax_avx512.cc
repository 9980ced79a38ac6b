// AVX-512F softmax rows in MLAS's sixteen-lane order, bit-identical to ref::SoftmaxRow16: the
// sixteen lane sums are one register, the tail masked, and 2^k applied by VSCALEFPS as MLAS's
// AVX-512F kernel does (one rounding, subnormal results without the microcode assist a multiply
// into the subnormal range costs; masked attention rows are full of them).
#include <immintrin.h>

#include <limits>

#include "ops/kernels/eltwise/softmax.h"

namespace qrt::avx512 {
namespace {

using namespace softmax_exp;

inline __m512 Exp16(__m512 v) {
  __m512 x = _mm512_max_ps(_mm512_set1_ps(kLower16), v);  // MAXPS(lower, v): a NaN v stays NaN
  const __m512 biased = _mm512_fmadd_ps(x, _mm512_set1_ps(kLog2Reciprocal), _mm512_set1_ps(kRoundingBias));
  const __m512 k = _mm512_sub_ps(biased, _mm512_set1_ps(kRoundingBias));
  x = _mm512_fmadd_ps(k, _mm512_set1_ps(kLog2High), x);
  x = _mm512_fmadd_ps(k, _mm512_set1_ps(kLog2Low), x);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(kPoly[0]), x, _mm512_set1_ps(kPoly[1]));
  for (int i = 2; i < 7; ++i) p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kPoly[i]));
  return _mm512_scalef_ps(p, k);
}

// The row's maximum, sixteen lanes at a time (exact in any order); false where the row holds a
// NaN, which softmax_exp::RowMaximum then handles as the reference does.
bool RowMaximum16(int64_t n, const float* x, float* maximum) {
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  __m512 m = lowest;
  __mmask16 nan = 0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    m = _mm512_max_ps(m, v);
  }
  if (i < n) {
    const __m512 v = _mm512_mask_loadu_ps(lowest, __mmask16((1u << (n - i)) - 1), x + i);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    m = _mm512_max_ps(m, v);
  }
  *maximum = _mm512_reduce_max_ps(m);
  return nan == 0;
}

}  // namespace

float SoftmaxSumExp16(int64_t n, const float* x, float neg, float* y) {
  const __m512 neg_max = _mm512_set1_ps(neg);
  __m512 lanes = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 e = Exp16(_mm512_add_ps(_mm512_loadu_ps(x + i), neg_max));
    _mm512_storeu_ps(y + i, e);
    lanes = _mm512_add_ps(lanes, e);
  }
  if (i < n) {  // masked: the other lanes neither add nor store
    const __mmask16 mask = __mmask16((1u << (n - i)) - 1);
    const __m512 e = Exp16(_mm512_add_ps(_mm512_maskz_loadu_ps(mask, x + i), neg_max));
    _mm512_mask_storeu_ps(y + i, mask, e);
    lanes = _mm512_mask_add_ps(lanes, mask, lanes, e);
  }
  // t_j = s_j + s_{j+8}, then ((t0 + t1) + (t2 + t3)) + ((t4 + t5) + (t6 + t7)).
  const __m256 t = _mm256_add_ps(_mm512_castps512_ps256(lanes),
                                 _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(lanes), 1)));
  __m256 h = _mm256_hadd_ps(t, t);
  h = _mm256_hadd_ps(h, h);
  return _mm_cvtss_f32(_mm_add_ss(_mm256_extractf128_ps(h, 1), _mm256_castps256_ps128(h)));
}

void SoftmaxRow16(int64_t n, const float* x, float* y) {
  float m;
  if (!RowMaximum16(n, x, &m) && !softmax_exp::RowMaximum(n, x, y, &m)) return;
  const float inv = 1.f / SoftmaxSumExp16(n, x, -m, y);
  const __m512 scale = _mm512_set1_ps(inv);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(y + i), scale));
  for (; i < n; ++i) y[i] = y[i] * inv;
}

}  // namespace qrt::avx512
