// AVX2 UniformDequantize. Bit-identical to uniform_dequantize_ref.cc: VPSUBD wraps exactly
// like the reference's uint32 subtraction, VCVTDQ2PS rounds like the scalar int->float
// conversion (both use MXCSR), then one VMULPS. Tails run the same code on masked or
// zero-padded loads.
#include <immintrin.h>

#include <cstdint>

#include "ops/kernels/common/lanes_avx2.h"
#include "ops/kernels/quantize/uniform_dequantize.h"

namespace qrt {
namespace avx2 {
namespace {

enum class In { kI8, kU8, kI32 };

// Eight elements starting at p, widened to int32.
template <In I>
inline __m256i Load8(const void* p) {
  if (I == In::kI32) return _mm256_loadu_si256(static_cast<const __m256i*>(p));
  const __m128i b = _mm_loadl_epi64(static_cast<const __m128i*>(p));
  return I == In::kI8 ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
}

inline __m256 Dequant(__m256i x, __m256i zp, __m256 scale) {
  return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(x, zp)), scale);
}

template <In I, bool Inc>
void Run(int64_t n, const void* in, float* y, const float* scale, const int32_t* zp) {
  constexpr int64_t kSize = I == In::kI32 ? 4 : 1;
  const char* x = static_cast<const char*>(in);
  const __m256i zp_b = _mm256_set1_epi32(zp[0]);
  const __m256 scale_b = _mm256_set1_ps(scale[0]);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int j = 0; j < 4; ++j) {
      const int64_t e = i + 8 * j;
      const __m256i z = Inc ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(zp + e)) : zp_b;
      const __m256 s = Inc ? _mm256_loadu_ps(scale + e) : scale_b;
      _mm256_storeu_ps(y + e, Dequant(Load8<I>(x + e * kSize), z, s));
    }
  }
  for (; i < n; i += 8) {
    const __m256i m = FirstLanes(n - i);
    __m256i v;
    if (I == In::kI32) {
      v = _mm256_maskload_epi32(reinterpret_cast<const int*>(x + i * kSize), m);
    } else {
      alignas(16) uint8_t buf[16] = {0};
      for (int64_t j = 0; j < 8 && i + j < n; ++j) buf[j] = static_cast<uint8_t>(x[i + j]);
      v = Load8<I>(buf);
    }
    const __m256i z = Inc ? _mm256_maskload_epi32(zp + i, m) : zp_b;
    const __m256 s = Inc ? _mm256_maskload_ps(scale + i, m) : scale_b;
    _mm256_maskstore_ps(y + i, m, Dequant(v, z, s));
  }
}

template <In I>
void Dispatch(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc) {
  if (inc != 0) {
    Run<I, true>(n, x, y, scale, zp);
  } else {
    Run<I, false>(n, x, y, scale, zp);
  }
}

}  // namespace

void UniformDequantizeI8(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc) {
  Dispatch<In::kI8>(n, x, y, scale, zp, inc);
}
void UniformDequantizeU8(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc) {
  Dispatch<In::kU8>(n, x, y, scale, zp, inc);
}
void UniformDequantizeI32(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc) {
  Dispatch<In::kI32>(n, x, y, scale, zp, inc);
}

}  // namespace avx2
}  // namespace qrt
