// igemm.h's tile with AVX2: up to 6 rows x 16 columns in 12 accumulators; per pair of k, two
// loads of B, a broadcast of each row's pair of A and VPMADDWD (exact: see igemm.h).
#include <immintrin.h>

#include <cstring>

#include "ops/kernels/igemm/igemm.h"
#include "ops/kernels/igemm/igemm_rows.h"

namespace qrt::avx2 {
namespace {

template <int R>
void Tile(int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b, int32_t* c, int64_t ldc,
          bool accumulate) {
  __m256i s[R][2];
  for (int r = 0; r < R; ++r) s[r][0] = s[r][1] = _mm256_setzero_si256();
  for (int64_t p = 0; p < k_pairs; ++p) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + p * 32));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + p * 32 + 16));
    for (int r = 0; r < R; ++r) {
      int32_t pair;
      std::memcpy(&pair, a + r * lda + 2 * p, 4);
      const __m256i av = _mm256_set1_epi32(pair);
      s[r][0] = _mm256_add_epi32(s[r][0], _mm256_madd_epi16(av, b0));
      s[r][1] = _mm256_add_epi32(s[r][1], _mm256_madd_epi16(av, b1));
    }
  }
  for (int r = 0; r < R; ++r) {
    int32_t* cr = c + r * ldc;
    if (cols == kIgemmPanel) {
      __m256i* c0 = reinterpret_cast<__m256i*>(cr);
      __m256i* c1 = reinterpret_cast<__m256i*>(cr + 8);
      if (accumulate) {
        s[r][0] = _mm256_add_epi32(s[r][0], _mm256_loadu_si256(c0));
        s[r][1] = _mm256_add_epi32(s[r][1], _mm256_loadu_si256(c1));
      }
      _mm256_storeu_si256(c0, s[r][0]);
      _mm256_storeu_si256(c1, s[r][1]);
      continue;
    }
    alignas(32) int32_t t[kIgemmPanel];
    _mm256_store_si256(reinterpret_cast<__m256i*>(t), s[r][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(t + 8), s[r][1]);
    for (int64_t j = 0; j < cols; ++j) cr[j] = accumulate ? int32_t(uint32_t(cr[j]) + uint32_t(t[j])) : t[j];
  }
}

template <int R>
struct Rows {
  static void Run(int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b, int32_t* c,
                  int64_t ldc, bool accumulate) {
    Tile<R>(cols, k_pairs, a, lda, b, c, ldc, accumulate);
  }
};

}  // namespace

void IgemmTile(int64_t rows, int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b,
               int64_t /*panel_stride: one panel*/, int32_t* c, int64_t ldc, bool accumulate) {
  igemm_rows::Dispatch<Rows, 6>(rows, cols, k_pairs, a, lda, b, c, ldc, accumulate);
}

}  // namespace qrt::avx2
