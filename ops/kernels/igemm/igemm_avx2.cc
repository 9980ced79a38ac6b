// igemm.h's tile with AVX2: up to 6 rows x 16 columns in 12 accumulators; per pair of k, two
// loads of B, a broadcast of each row's pair of A and VPMADDWD (exact: see igemm.h).
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "ops/kernels/common/byte_pairs_avx2.h"
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

// ---- u8 x s8 quads with VPMADDUBSW (igemm.h): the VNNI kernel's panels and identity, two
// byte products into an int16, two quads' words added (the split weights keep them within
// int16: common/byte_pairs.h), then VPMADDWD by 1 ---------------------------------------------
namespace qrt::avx2 {
namespace {

// Channels per tile: a quad a step 4 (8 accumulators, two panel registers, the weights, 1s,
// products), two quads a step 3 (6 accumulators, four panel registers, two weights, 1s, two
// products: 16 registers).
constexpr int kQuadRows[2] = {4, 3};

// 16 bytes of row kk of the patch matrix at columns j0.. (cols of them; the rest 0), flipped.
inline __m128i CodeRow(const uint8_t* codes, int64_t positions, int64_t kk, int64_t j0, int64_t cols, __m128i flip) {
  if (cols >= 16)
    return _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + kk * positions + j0)), flip);
  alignas(16) uint8_t tail[16] = {};
  std::memcpy(tail, codes + kk * positions + j0, size_t(cols));
  // The flip applies to real codes only: the columns past end stay 0 (they add nothing).
  const __m128i in_range =
      _mm_cmpgt_epi8(_mm_set1_epi8(char(cols)), _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  return _mm_xor_si128(_mm_load_si128(reinterpret_cast<const __m128i*>(tail)), _mm_and_si128(flip, in_range));
}

// rows x 16 columns (R <= kQuadRows[kQuadPairs]) of one panel: sum_k xu ws' in registers, the split-off
// excesses added (xu of k times e), then the identity's corrections, stored (only `cols`).
template <int R, bool kQuadPairs>
void QuadTile(const IgemmQuadWeights& w, int64_t first, const int32_t* panel, int64_t cols, const int32_t* column_sums,
              int32_t zxu, int32_t* c, int64_t ldc) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  const int32_t* wr = w.rows.data() + first * w.quads;
  int64_t q = 0;
  // Two quads a step: their words added before one VPMADDWD widens them, which the weights'
  // split keeps within int16 (w.quad_pairs).
  for (; kQuadPairs && q + 2 <= w.quads; q += 2) {
    const __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + q * 16));
    const __m256i a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + q * 16 + 8));
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + q * 16 + 16));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + q * 16 + 24));
    for (int r = 0; r < R; ++r) {
      const __m256i wa = _mm256_set1_epi32(wr[r * w.quads + q]), wb = _mm256_set1_epi32(wr[r * w.quads + q + 1]);
      const __m256i p0 = _mm256_add_epi16(_mm256_maddubs_epi16(a0, wa), _mm256_maddubs_epi16(b0, wb));
      const __m256i p1 = _mm256_add_epi16(_mm256_maddubs_epi16(a1, wa), _mm256_maddubs_epi16(b1, wb));
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(p0, ones));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(p1, ones));
    }
  }
  for (; q < w.quads; ++q) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + q * 16));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + q * 16 + 8));
    for (int r = 0; r < R; ++r) {
      const __m256i a = _mm256_set1_epi32(wr[r * w.quads + q]);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(_mm256_maddubs_epi16(b0, a), ones));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(_mm256_maddubs_epi16(b1, a), ones));
    }
  }
  for (int r = 0; r < R; ++r) {
    const size_t channel = size_t(first + r);
    AddPairCorrections(w.corrections, first + r, panel, 16, acc[r]);
    const __m256i factor = _mm256_set1_epi32(w.column_factors[channel]);
    const __m256i zero_point_share = _mm256_set1_epi32(int32_t(uint32_t(zxu) * uint32_t(w.weight_sums[channel])));
    alignas(32) int32_t out[16];
    for (int h = 0; h < 2; ++h) {
      const __m256i sums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(column_sums + 8 * h));
      const __m256i v =
          _mm256_sub_epi32(_mm256_add_epi32(acc[r][h], _mm256_mullo_epi32(factor, sums)), zero_point_share);
      _mm256_store_si256(reinterpret_cast<__m256i*>(out + 8 * h), v);
    }
    std::memcpy(c + r * ldc, out, size_t(std::min<int64_t>(cols, 16)) * sizeof(int32_t));
  }
}

}  // namespace

void IgemmQuadPanels(const uint8_t* codes, int64_t positions, int64_t k, bool flip, int64_t begin, int64_t end,
                     int32_t* out, int32_t* column_sums) {
  const int64_t quads = (k + 3) / 4, panels = (end - begin + 15) / 16;
  const __m128i flip_bits = _mm_set1_epi8(char(flip ? 0x80 : 0));
  const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t j0 = begin + 16 * p, cols = std::min<int64_t>(16, end - j0);
    int32_t* panel = out + p * quads * 16;
    __m256i sums[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
    for (int64_t q = 0; q < quads; ++q) {
      __m128i r[4];
      for (int i = 0; i < 4; ++i) {  // rows past k: 0, so that they add nothing to the column sums
        const int64_t kk = 4 * q + i;
        r[i] = kk < k ? CodeRow(codes, positions, kk, j0, cols, flip_bits) : _mm_setzero_si128();
      }
      __m256i v[2];
      Quads16(r, v);
      for (int h = 0; h < 2; ++h) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(panel + q * 16 + 8 * h), v[h]);
        // Two bytes at most 510: no saturation.
        sums[h] = _mm256_add_epi32(sums[h], _mm256_madd_epi16(_mm256_maddubs_epi16(v[h], ones8), ones16));
      }
    }
    for (int h = 0; h < 2; ++h) _mm256_storeu_si256(reinterpret_cast<__m256i*>(column_sums + 16 * p + 8 * h), sums[h]);
  }
}

void IgemmQuadTiles(const IgemmQuadWeights& w, int64_t first, int64_t rows, const int32_t* panels, int64_t cols,
                    const int32_t* column_sums, int32_t zxu, int32_t* c, int64_t ldc) {
  using Fn =
      void (*)(const IgemmQuadWeights&, int64_t, const int32_t*, int64_t, const int32_t*, int32_t, int32_t*, int64_t);
  static constexpr Fn kTiles[2][5] = {
      {nullptr, QuadTile<1, false>, QuadTile<2, false>, QuadTile<3, false>, QuadTile<4, false>},
      {nullptr, QuadTile<1, true>, QuadTile<2, true>, QuadTile<3, true>, nullptr}};
  const int64_t step = kQuadRows[w.quad_pairs];
  const int64_t panel_stride = w.quads * 16;
  for (int64_t j = 0; j < cols; j += 16) {
    const int32_t* panel = panels + (j / 16) * panel_stride;
    for (int64_t r = 0; r < rows; r += step) {
      const int64_t n = std::min<int64_t>(step, rows - r);
      kTiles[w.quad_pairs][n](w, first + r, panel, cols - j, column_sums + j, zxu, c + r * ldc + j, ldc);
    }
  }
}

}  // namespace qrt::avx2
