// igemm.h's AVX-512 tile with AVX512_VNNI: VPDPWSSD, the pair products added in one instruction
// (without saturation, as VPMADDWD + VPADDD; igemm_tile_avx512.h).
#include <algorithm>

#include "ops/kernels/igemm/igemm_tile_avx512.h"

namespace qrt::avx512vnni {
namespace {
struct Dpwssd {
  __m512i operator()(__m512i acc, __m512i a, __m512i b) const { return _mm512_dpwssd_epi32(acc, a, b); }
};
}  // namespace

void IgemmTile(int64_t rows, int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b,
               int64_t panel_stride, int32_t* c, int64_t ldc, bool accumulate) {
  Tile512Any<Dpwssd>(rows, cols, k_pairs, a, lda, b, panel_stride, c, ldc, accumulate);
}

}  // namespace qrt::avx512vnni

// ---- u8 x s8 quads (igemm.h) ---------------------------------------------------------------
namespace qrt::avx512vnni {
namespace {

constexpr int kQuadRows = 8, kQuadPanels = 2;

// rows x (P panels of 16 columns), R <= kQuadRows: sum_k xu ws in registers, then the
// identity's corrections, stored (masked past cols).
template <int R, int P>
void QuadTile(const IgemmQuadWeights& w, int64_t first, const int32_t* panels, int64_t panel_stride, int64_t cols,
              const int32_t* column_sums, int32_t zxu, int32_t* c, int64_t ldc) {
  __m512i acc[R][P];
  for (int r = 0; r < R; ++r)
    for (int p = 0; p < P; ++p) acc[r][p] = _mm512_setzero_si512();
  const int32_t* wr = w.rows.data() + first * w.quads;
  for (int64_t q = 0; q < w.quads; ++q) {
    __m512i b[P];
    for (int p = 0; p < P; ++p) b[p] = _mm512_loadu_si512(panels + p * panel_stride + q * 16);
    for (int r = 0; r < R; ++r) {
      const __m512i a = _mm512_set1_epi32(wr[r * w.quads + q]);
      for (int p = 0; p < P; ++p) acc[r][p] = _mm512_dpbusd_epi32(acc[r][p], b[p], a);
    }
  }
  for (int r = 0; r < R; ++r) {
    const __m512i factor = _mm512_set1_epi32(w.column_factors[size_t(first + r)]);
    const __m512i zero_point_share =
        _mm512_set1_epi32(int32_t(uint32_t(zxu) * uint32_t(w.weight_sums[size_t(first + r)])));
    for (int p = 0; p < P; ++p) {
      const int64_t left = cols - 16 * p;
      const __mmask16 m = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
      const __m512i sums = _mm512_loadu_si512(column_sums + 16 * p);
      const __m512i v =
          _mm512_sub_epi32(_mm512_add_epi32(acc[r][p], _mm512_mullo_epi32(factor, sums)), zero_point_share);
      _mm512_mask_storeu_epi32(c + r * ldc + 16 * p, m, v);
    }
  }
}

template <int P>
void QuadRows(const IgemmQuadWeights& w, int64_t first, int64_t rows, const int32_t* panels, int64_t panel_stride,
              int64_t cols, const int32_t* column_sums, int32_t zxu, int32_t* c, int64_t ldc) {
  using Fn = void (*)(const IgemmQuadWeights&, int64_t, const int32_t*, int64_t, int64_t, const int32_t*, int32_t,
                      int32_t*, int64_t);
  static constexpr Fn kTiles[kQuadRows + 1] = {nullptr,        QuadTile<1, P>, QuadTile<2, P>,
                                               QuadTile<3, P>, QuadTile<4, P>, QuadTile<5, P>,
                                               QuadTile<6, P>, QuadTile<7, P>, QuadTile<8, P>};
  for (int64_t r = 0; r < rows; r += kQuadRows) {
    const int64_t n = std::min<int64_t>(kQuadRows, rows - r);
    kTiles[n](w, first + r, panels, panel_stride, cols, column_sums, zxu, c + r * ldc, ldc);
  }
}

}  // namespace

void IgemmQuadPanels(const uint8_t* codes, int64_t positions, int64_t k, bool flip, int64_t begin, int64_t end,
                     int32_t* out, int32_t* column_sums) {
  const int64_t quads = (k + 3) / 4, panels = (end - begin + 15) / 16;
  const __m128i flip_bits = _mm_set1_epi8(char(flip ? 0x80 : 0));
  const __m512i ones = _mm512_set1_epi8(1);
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t j0 = begin + 16 * p, cols = std::min<int64_t>(16, end - j0);
    // Columns past end are loaded as anything within bounds' reach (nothing) and never stored.
    const __mmask64 valid = cols >= 16 ? __mmask64(0xFFFF) : (__mmask64(1) << cols) - 1;
    int32_t* panel = out + p * quads * 16;
    __m512i sums = _mm512_setzero_si512();
    for (int64_t q = 0; q < quads; ++q) {
      __m128i r[4];
      for (int i = 0; i < 4; ++i) {  // rows past k: 0, so that they add nothing to the column sums
        const int64_t kk = 4 * q + i;
        r[i] = kk < k
                   ? _mm_xor_si128(_mm512_castsi512_si128(_mm512_maskz_loadu_epi8(valid, codes + kk * positions + j0)),
                                   flip_bits)
                   : _mm_setzero_si128();
      }
      const __m128i a = _mm_unpacklo_epi8(r[0], r[1]), b = _mm_unpackhi_epi8(r[0], r[1]);
      const __m128i c = _mm_unpacklo_epi8(r[2], r[3]), d = _mm_unpackhi_epi8(r[2], r[3]);
      const __m512i v = _mm512_inserti64x4(
          _mm512_castsi256_si512(_mm256_set_m128i(_mm_unpackhi_epi16(a, c), _mm_unpacklo_epi16(a, c))),
          _mm256_set_m128i(_mm_unpackhi_epi16(b, d), _mm_unpacklo_epi16(b, d)), 1);
      _mm512_storeu_si512(panel + q * 16, v);
      sums = _mm512_dpbusd_epi32(sums, v, ones);
    }
    _mm512_storeu_si512(column_sums + 16 * p, sums);
  }
}

void IgemmQuadTiles(const IgemmQuadWeights& w, int64_t first, int64_t rows, const int32_t* panels, int64_t cols,
                    const int32_t* column_sums, int32_t zxu, int32_t* c, int64_t ldc) {
  const int64_t panel_stride = w.quads * 16;
  for (int64_t j = 0; j < cols; j += 16 * kQuadPanels) {
    const int64_t n = std::min<int64_t>(16 * kQuadPanels, cols - j);
    const int32_t* b = panels + (j / 16) * panel_stride;
    if (n > 16)
      QuadRows<2>(w, first, rows, b, panel_stride, n, column_sums + j, zxu, c + j, ldc);
    else
      QuadRows<1>(w, first, rows, b, panel_stride, n, column_sums + j, zxu, c + j, ldc);
  }
}

}  // namespace qrt::avx512vnni
