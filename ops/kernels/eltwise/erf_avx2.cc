// AVX2/FMA Erf and GELU, bit-identical to ref:: (the same steps per lane; erf.h).
#include <immintrin.h>

#include "ops/kernels/eltwise/erf.h"

namespace qrt::avx2 {
namespace {

using namespace mlas_erf;

inline __m256 C(uint32_t bits) { return _mm256_castsi256_ps(_mm256_set1_epi32(int32_t(bits))); }

inline __m256 ErfEight(__m256 x) {
  const __m256 sign_mask = C(0x80000000u);
  const __m256 sign = _mm256_and_ps(x, sign_mask);
  const __m256 a = _mm256_min_ps(C(kUpperAbs), _mm256_andnot_ps(sign_mask, x));
  const __m256 big = _mm256_cmp_ps(a, C(kSplit), _CMP_GT_OQ);
  const __m256 s = _mm256_mul_ps(a, a);
  __m256 p = C(kSmall[0]);
  for (int i = 1; i < 6; ++i) p = _mm256_fmadd_ps(p, s, C(kSmall[i]));
  const __m256 small = _mm256_fmadd_ps(p, a, a);

  const __m256 b = _mm256_and_ps(big, a);
  __m256 q = C(kBig[0]);
  for (int i = 1; i < 7; ++i) q = _mm256_fmadd_ps(q, b, C(kBig[i]));
  q = _mm256_fmadd_ps(q, b, b);
  const __m256 t = _mm256_max_ps(_mm256_xor_ps(q, sign_mask), C(kExpLow));
  const __m256 n = _mm256_sub_ps(_mm256_fmadd_ps(C(kLog2e), t, C(kShifter)), C(kShifter));
  const __m256 f = _mm256_fmadd_ps(n, C(kLn2Lo), _mm256_fmadd_ps(n, C(kLn2Hi), t));
  __m256 e = C(kExp[0]);
  for (int i = 1; i < 5; ++i) e = _mm256_fmadd_ps(e, f, C(kExp[i]));
  const __m256 one = _mm256_set1_ps(1.f);
  e = _mm256_fmadd_ps(_mm256_fmadd_ps(e, f, one), f, one);
  const __m256i exponent = _mm256_add_epi32(_mm256_cvttps_epi32(n), _mm256_set1_epi32(127));
  const __m256 pow2 = _mm256_castsi256_ps(_mm256_slli_epi32(exponent, 23));
  const __m256 big_result = _mm256_sub_ps(one, _mm256_mul_ps(e, pow2));
  return _mm256_or_ps(_mm256_or_ps(big_result, _mm256_andnot_ps(big, small)), sign);
}

}  // namespace

void Erf(int64_t n, const float* x, float* y) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, ErfEight(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) y[i] = ref::ErfOne(x[i]);
}

void GeluErf(int64_t n, const float* x, float* y) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.f), k = C(kInvSqrt2);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 e = ErfEight(_mm256_mul_ps(v, k));
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_mul_ps(half, v), _mm256_add_ps(e, one)));
  }
  ref::GeluErf(n - i, x + i, y + i);
}

}  // namespace qrt::avx2
