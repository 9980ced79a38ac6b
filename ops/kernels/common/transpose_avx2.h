// In-register transposes for the *_avx2.cc kernels (included only there; static, so no copy is
// shared with a file built for another ISA).
#pragma once

#include <immintrin.h>

namespace qrt::avx2 {

// r[i] (lanes = j) becomes r[j] (lanes = i): an 8 x 8 transpose of floats. Out of line: inlined
// into MatMulNBits' AVX2 panel builder, it made the whole fp32 prompt kernel 1.7x slower (the
// decoder model's six MatMulNBits, AMD EPYC Zen 4), its registers spilled around the tile loop.
static __attribute__((noinline)) void Transpose8(__m256 r[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    u[4 * i + 0] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
}

}  // namespace qrt::avx2
