#include <immintrin.h>

#include "ops/kernels/quantize/scale_int32.h"

namespace qrt::avx2 {
namespace {

// Eight elements of a per-element operand, or its one value in every lane.
template <bool kPerElement>
inline __m256 Operand(const float* p, int64_t j) {
  if constexpr (kPerElement) return _mm256_loadu_ps(p + j);
  return _mm256_broadcast_ss(p);
}

template <bool kScalePerElement, int kBias>  // kBias: 0 none, 1 one value, 2 per element
void Row(int64_t n, const int32_t* acc, const ScaleInt32Params& p, float* y) {
  const __m256i add = _mm256_set1_epi32(p.add);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256i a = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + j)), add);
    __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(a), Operand<kScalePerElement>(p.scale, j));
    if constexpr (kBias != 0) v = _mm256_add_ps(v, Operand<kBias == 2>(p.bias, j));
    _mm256_storeu_ps(y + j, v);
  }
  if (j < n) {  // the tail in the reference's order, from its own offsets
    ScaleInt32Params tail = p;
    tail.scale += j * p.scale_step;
    if (tail.bias != nullptr) tail.bias += j * p.bias_step;
    ref::ScaleInt32Row(n - j, acc + j, tail, y + j);
  }
}

}  // namespace

void ScaleInt32Row(int64_t n, const int32_t* acc, const ScaleInt32Params& p, float* y) {
  const int bias = p.bias == nullptr ? 0 : (p.bias_step != 0 ? 2 : 1);
  if (p.scale_step != 0) {
    if (bias == 0) return Row<true, 0>(n, acc, p, y);
    return bias == 1 ? Row<true, 1>(n, acc, p, y) : Row<true, 2>(n, acc, p, y);
  }
  if (bias == 0) return Row<false, 0>(n, acc, p, y);
  return bias == 1 ? Row<false, 1>(n, acc, p, y) : Row<false, 2>(n, acc, p, y);
}

}  // namespace qrt::avx2
