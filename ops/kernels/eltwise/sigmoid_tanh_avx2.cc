// AVX2/FMA Sigmoid / Tanh, bit-identical to ref:: (the same fused steps and IEEE divisions per
// lane). NaN lanes are passed through from the input, as the reference does.
#include <immintrin.h>

#include "ops/kernels/eltwise/sigmoid_tanh.h"

namespace qrt {
namespace avx2 {
namespace {

using namespace sigmoid_tanh;

template <int N>
inline __m256 Horner(__m256 s, const float (&c)[N]) {
  __m256 p = _mm256_fmadd_ps(s, _mm256_set1_ps(c[0]), _mm256_set1_ps(c[1]));
  for (int i = 2; i < N; ++i) p = _mm256_fmadd_ps(s, p, _mm256_set1_ps(c[i]));
  return p;
}

inline __m256 Clamp(__m256 x, float bound) {
  // min/max return their second operand for NaN; NaN lanes are restored at the end anyway.
  return _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-bound)), _mm256_set1_ps(bound));
}

inline __m256 KeepNan(__m256 x, __m256 y) { return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q)); }

inline __m256 SigmoidEight(__m256 x) {
  const __m256 v = Clamp(x, 18.f);
  const __m256 s = _mm256_mul_ps(v, v);
  const __m256 p = _mm256_mul_ps(v, Horner(s, kSigmoidA));
  const __m256 q = Horner(s, kSigmoidB);
  const __m256 y = _mm256_max_ps(_mm256_add_ps(_mm256_div_ps(p, q), _mm256_set1_ps(0.5f)), _mm256_setzero_ps());
  return KeepNan(x, y);
}

inline __m256 TanhEight(__m256 x) {
  const __m256 v = Clamp(x, 9.f);
  const __m256 s = _mm256_mul_ps(v, v);
  const __m256 y = _mm256_div_ps(_mm256_mul_ps(v, Horner(s, kTanhA)), Horner(s, kTanhB));
  return KeepNan(x, y);
}

}  // namespace

void Sigmoid(int64_t n, const float* x, float* y) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, SigmoidEight(_mm256_loadu_ps(x + i)));
  ref::Sigmoid(n - i, x + i, y + i);
}

void Tanh(int64_t n, const float* x, float* y) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, TanhEight(_mm256_loadu_ps(x + i)));
  ref::Tanh(n - i, x + i, y + i);
}

}  // namespace avx2
}  // namespace qrt
