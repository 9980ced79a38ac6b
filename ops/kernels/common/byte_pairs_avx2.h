// AVX2 pieces of the byte form (common/byte_pairs.h) shared by the int8 pointwise kernel and the
// integer GEMM's quads (included only by *_avx2.cc files, so built with their flags; static, so
// no copy is shared with a file built for another ISA).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "ops/kernels/common/byte_pairs.h"

namespace qrt::avx2 {

// Sixteen columns of four rows of bytes (rows[i]: row 4q + i) as VPDPBUSD's / VPMADDUBSW's
// quads: dword j of out[h] holds column 8h + j's four bytes in row order.
static inline void Quads16(const __m128i (&rows)[4], __m256i (&out)[2]) {
  const __m128i a = _mm_unpacklo_epi8(rows[0], rows[1]), b = _mm_unpackhi_epi8(rows[0], rows[1]);
  const __m128i c = _mm_unpacklo_epi8(rows[2], rows[3]), d = _mm_unpackhi_epi8(rows[2], rows[3]);
  out[0] = _mm256_set_m128i(_mm_unpackhi_epi16(a, c), _mm_unpacklo_epi16(a, c));
  out[1] = _mm256_set_m128i(_mm_unpackhi_epi16(b, d), _mm_unpacklo_epi16(b, d));
}

// Adds row `row`'s split-off weights back into 16 columns' sums: each entry's byte (byte k % 4 of
// the quads of row k / 4, quad rows `quad_stride` int32 apart, 16 columns from `quads`) times its
// excess. The byte is the low word of its dword, the excess the low word of VPMADDWD's other
// operand: one exact product per lane.
static inline void AddPairCorrections(const PairCorrections& fix, int64_t row, const int32_t* quads,
                                      int64_t quad_stride, __m256i (&acc)[2]) {
  const __m256i low_byte = _mm256_set1_epi32(0xFF);
  for (int32_t i = fix.start[size_t(row)]; i < fix.start[size_t(row) + 1]; ++i) {
    const int32_t k = fix.k[size_t(i)];
    const __m128i shift = _mm_cvtsi32_si128(8 * (k % 4));
    const __m256i e = _mm256_set1_epi32(fix.e[size_t(i)] & 0xFFFF);
    for (int h = 0; h < 2; ++h) {
      const __m256i quad = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(quads + (k / 4) * quad_stride + 8 * h));
      acc[h] =
          _mm256_add_epi32(acc[h], _mm256_madd_epi16(_mm256_and_si256(_mm256_srl_epi32(quad, shift), low_byte), e));
    }
  }
}

}  // namespace qrt::avx2
