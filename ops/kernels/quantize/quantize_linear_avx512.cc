// AVX-512F QuantizeLinear (8-bit) and QuantizeDequantize: the AVX2 kernels' operations at 16
// lanes (quantize_linear_avx2.cc gives why they are bit-identical to ref::, including the
// division-free quotient). VROUNDSCALEPS with the nearest-even immediate rounds like
// VROUNDPS; the clamped values convert exactly and VPMOVDB keeps their low byte. Tails are
// masked vectors (lanes not loaded are 0 and are not stored).
// Picked under Isa::kAvx2 where the CPU has AVX-512F (quantize_linear.cc).
#include <cmath>

#include "ops/kernels/common/intrinsics_avx512.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "ops/kernels/quantize/quantizer_avx512.h"

namespace qrt {
namespace avx512 {
namespace {

template <bool kSigned>
void Quantize(int64_t n, const float* x, float scale, int32_t zp, void* out) {
  uint8_t* y = static_cast<uint8_t*>(out);
  const Quantizer q(scale, zp, kSigned);
  int64_t i = 0;
  // The bytes narrowed in a register and stored whole: VPMOVDB to memory under a mask, in the
  // loop, took about a quarter of the kernel's time (MobileNetV2's depthwise codes).
  for (; i + 16 <= n; i += 16) {
    const __m512i v = _mm512_cvtps_epi32(_mm512_add_ps(q.Steps(_mm512_loadu_ps(x + i)), q.zp));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm512_cvtepi32_epi8(v));
  }
  if (i < n) {
    const __mmask16 m = FirstLanes(n - i);
    const __m512i v = _mm512_cvtps_epi32(_mm512_add_ps(q.Steps(_mm512_maskz_loadu_ps(m, x + i)), q.zp));
    _mm512_mask_cvtepi32_storeu_epi8(y + i, m, v);
  }
}

template <bool kSigned>
void QuantizeDequantize(int64_t n, const float* x, float scale, int32_t zp, float* y) {
  const Quantizer q(scale, zp, kSigned);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(q.Steps(_mm512_loadu_ps(x + i)), q.scale));
  if (i < n) {
    const __mmask16 m = FirstLanes(n - i);
    _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(q.Steps(_mm512_maskz_loadu_ps(m, x + i)), q.scale));
  }
}

}  // namespace

void QuantizeF32ToU8(int64_t n, const float* x, float s, int32_t zp, void* y) { Quantize<false>(n, x, s, zp, y); }
void QuantizeF32ToS8(int64_t n, const float* x, float s, int32_t zp, void* y) { Quantize<true>(n, x, s, zp, y); }
void QuantizeDequantizeU8(int64_t n, const float* x, float s, int32_t zp, float* y) {
  QuantizeDequantize<false>(n, x, s, zp, y);
}
void QuantizeDequantizeS8(int64_t n, const float* x, float s, int32_t zp, float* y) {
  QuantizeDequantize<true>(n, x, s, zp, y);
}

}  // namespace avx512
}  // namespace qrt
