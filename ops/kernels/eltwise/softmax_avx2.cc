// AVX2/FMA softmax row, bit-identical to ref::SoftmaxRow: eight elements per step, lane l of
// the sum vector taking elements l, l + 8, ... as the reference's lane sums do.
#include <immintrin.h>

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

}  // namespace

void SoftmaxRow(int64_t n, const float* x, float* y) {
  float m;
  if (!softmax_exp::RowMaximum(n, x, y, &m)) return;
  const __m256 neg_max = _mm256_set1_ps(-m);
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
  const float sum = _mm_cvtss_f32(_mm_add_ss(_mm256_extractf128_ps(h, 1), _mm256_castps256_ps128(h)));
  const __m256 scale = _mm256_set1_ps(1.f / sum);
  i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), scale));
  for (; i < n; ++i) y[i] = y[i] * (1.f / sum);
}

}  // namespace avx2
}  // namespace qrt
