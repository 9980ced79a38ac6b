// AVX2 FakeQuantize f32. Bit-identical to ref::FakeQuantizeF32:
// - the same f32 operations in the same order (no FMA, no reciprocal, no precomputed step);
// - nearbyint is _mm256_round_ps(_MM_FROUND_CUR_DIRECTION), which rounds like nearbyint
//   in the current MXCSR mode;
// - std::min(il, ih) == _mm256_min_ps(ih, il) and std::max(il, ih) == _mm256_max_ps(ih, il)
//   for every input including NaN (MINPS/MAXPS return the second operand on NaN);
// - the branches become compares whose order (x <= lo wins) matches the reference;
// - tails use masked loads/stores of the same vector code.
#include <immintrin.h>

#include "ops/kernels/common/lanes_avx2.h"
#include "ops/kernels/quantize/fake_quantize.h"

namespace qrt {
namespace avx2 {
namespace {

inline __m256 Compute(__m256 x, __m256 il, __m256 ih, __m256 ol, __m256 oh, __m256 L) {
  const __m256 lo = _mm256_min_ps(ih, il);
  const __m256 hi = _mm256_max_ps(ih, il);
  __m256 t = _mm256_sub_ps(x, il);
  t = _mm256_div_ps(t, _mm256_sub_ps(ih, il));
  t = _mm256_mul_ps(t, L);
  t = _mm256_round_ps(t, _MM_FROUND_CUR_DIRECTION);
  t = _mm256_div_ps(t, L);
  t = _mm256_mul_ps(t, _mm256_sub_ps(oh, ol));
  t = _mm256_add_ps(t, ol);
  t = _mm256_blendv_ps(t, oh, _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
  return _mm256_blendv_ps(t, ol, _mm256_cmp_ps(x, lo, _CMP_LE_OQ));
}

// Range k is loaded per element when bit k of M is set, else broadcast once.
template <unsigned M>
void Run(const FakeQuantizeRunArgs& a) {
  const float* x = static_cast<const float*>(a.x);
  const float* p[4] = {static_cast<const float*>(a.in_low), static_cast<const float*>(a.in_high),
                       static_cast<const float*>(a.out_low), static_cast<const float*>(a.out_high)};
  float* y = static_cast<float*>(a.y);
  const __m256 L = _mm256_set1_ps(a.levels_minus_1);
  __m256 b[4];
  for (int k = 0; k < 4; ++k) b[k] = _mm256_set1_ps(p[k][0]);
  int64_t i = 0;
  for (; i + 8 <= a.n; i += 8) {
    __m256 r[4];
    for (int k = 0; k < 4; ++k) r[k] = ((M >> k) & 1) ? _mm256_loadu_ps(p[k] + i) : b[k];
    _mm256_storeu_ps(y + i, Compute(_mm256_loadu_ps(x + i), r[0], r[1], r[2], r[3], L));
  }
  if (i < a.n) {
    const __m256i m = FirstLanes(a.n - i);
    __m256 r[4];
    for (int k = 0; k < 4; ++k) r[k] = ((M >> k) & 1) ? _mm256_maskload_ps(p[k] + i, m) : b[k];
    _mm256_maskstore_ps(y + i, m, Compute(_mm256_maskload_ps(x + i, m), r[0], r[1], r[2], r[3], L));
  }
}

using RunFn = void (*)(const FakeQuantizeRunArgs&);
constexpr RunFn kRun[16] = {Run<0>, Run<1>, Run<2>,  Run<3>,  Run<4>,  Run<5>,  Run<6>,  Run<7>,
                            Run<8>, Run<9>, Run<10>, Run<11>, Run<12>, Run<13>, Run<14>, Run<15>};

}  // namespace

void FakeQuantizeF32(const FakeQuantizeRunArgs& args) { kRun[args.range_inc_mask & 15](args); }

}  // namespace avx2
}  // namespace qrt
