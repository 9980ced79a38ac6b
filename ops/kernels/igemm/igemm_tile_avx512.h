// igemm.h's AVX-512 tile, up to 8 rows x 2 panels (32 columns) in 16 accumulators, for the two
// files that include it with their own flags: igemm_avx512.cc (VPMADDWD + VPADDD, AVX512BW)
// and igemm_vnni_avx512.cc (VPDPWSSD, AVX512_VNNI). Everything here has internal linkage, so
// neither file's copy can stand in for the other's.
#pragma once

#include <immintrin.h>

#include <cstring>

#include "ops/kernels/igemm/igemm.h"
#include "ops/kernels/igemm/igemm_rows.h"

namespace qrt {
namespace {

// Madd: __m512i(__m512i acc, __m512i a, __m512i b), acc + the pair products of a and b.
template <class Madd, int R, int P>
void Tile512(int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b, int64_t ps, int32_t* c,
             int64_t ldc, bool accumulate) {
  __m512i s[R][P];
  for (int r = 0; r < R; ++r)
    for (int q = 0; q < P; ++q) s[r][q] = _mm512_setzero_si512();
  for (int64_t p = 0; p < k_pairs; ++p) {
    __m512i bv[P];
    for (int q = 0; q < P; ++q) bv[q] = _mm512_loadu_si512(b + q * ps + p * 32);
    for (int r = 0; r < R; ++r) {
      int32_t pair;
      std::memcpy(&pair, a + r * lda + 2 * p, 4);
      const __m512i av = _mm512_set1_epi32(pair);
      for (int q = 0; q < P; ++q) s[r][q] = Madd()(s[r][q], av, bv[q]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int q = 0; q < P; ++q) {
      const int64_t left = cols - q * kIgemmPanel;
      const __mmask16 m = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
      int32_t* cq = c + r * ldc + q * kIgemmPanel;
      __m512i v = s[r][q];
      if (accumulate) v = _mm512_add_epi32(v, _mm512_maskz_loadu_epi32(m, cq));
      _mm512_mask_storeu_epi32(cq, m, v);
    }
  }
}

template <class Madd>
struct WithMadd {
  template <int R>
  struct Rows {
    static void Run(int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b, int64_t ps,
                    int32_t* c, int64_t ldc, bool accumulate) {
      if (cols > kIgemmPanel) return Tile512<Madd, R, 2>(cols, k_pairs, a, lda, b, ps, c, ldc, accumulate);
      Tile512<Madd, R, 1>(cols, k_pairs, a, lda, b, ps, c, ldc, accumulate);
    }
  };
};

template <class Madd>
void Tile512Any(int64_t rows, int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b,
                int64_t ps, int32_t* c, int64_t ldc, bool accumulate) {
  igemm_rows::Dispatch<WithMadd<Madd>::template Rows, 8>(rows, cols, k_pairs, a, lda, b, ps, c, ldc, accumulate);
}

}  // namespace
}  // namespace qrt
