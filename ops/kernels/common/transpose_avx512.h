// In-register transposes for the *_avx512.cc kernels (included only there; static, so no copy
// is shared between files built with different AVX-512 subsets).
#pragma once

#include "ops/kernels/common/intrinsics_avx512.h"

namespace qrt::avx512 {

// r[i] (lanes = j) becomes r[j] (lanes = i): a 16 x 16 transpose of floats.
static inline void Transpose16(__m512 r[16]) {
  __m512 a[16], b[16], c[16];
  for (int i = 0; i < 8; ++i) {
    a[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    b[4 * i + 0] = _mm512_shuffle_ps(a[4 * i], a[4 * i + 2], 0x44);
    b[4 * i + 1] = _mm512_shuffle_ps(a[4 * i], a[4 * i + 2], 0xEE);
    b[4 * i + 2] = _mm512_shuffle_ps(a[4 * i + 1], a[4 * i + 3], 0x44);
    b[4 * i + 3] = _mm512_shuffle_ps(a[4 * i + 1], a[4 * i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    c[i] = _mm512_shuffle_f32x4(b[i], b[i + 4], 0x88);
    c[i + 4] = _mm512_shuffle_f32x4(b[i], b[i + 4], 0xDD);
    c[i + 8] = _mm512_shuffle_f32x4(b[i + 8], b[i + 12], 0x88);
    c[i + 12] = _mm512_shuffle_f32x4(b[i + 8], b[i + 12], 0xDD);
  }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(c[i], c[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(c[i], c[i + 8], 0xDD);
  }
}

}  // namespace qrt::avx512
