// MatMulNBits' fp32 kernels with AVX-512F, bit-identical to the reference. One row: the order's
// 16 lanes are one register, as in MLAS's kernel; four columns at a time, so that four chains of
// FMAs overlap, each block's 16 possible weights computed once and looked up (VPERMPS). More rows: a panel of 32
// columns' weights dequantized once, k-major (transposed in registers), and 8 rows x 32 columns of accumulators, each
// one element's chain over k.
#include <immintrin.h>

#include <algorithm>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/common/transpose_avx512.h"
#include "ops/kernels/nbits/matmul_nbits.h"
#include "ops/kernels/nbits/nbits_reduce.h"

namespace qrt::avx512 {
namespace {

// The 16 weights of k0..k0+15 (inside one block): float(code - zp) * scale.
inline __m512 Weights16(const uint8_t* bytes, __m512i zp, __m512 scale) {
  const __m128i packed = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes));
  const __m128i low = _mm_and_si128(packed, _mm_set1_epi8(15));
  const __m128i high = _mm_and_si128(_mm_srli_epi16(packed, 4), _mm_set1_epi8(15));
  const __m512i q = _mm512_cvtepu8_epi32(_mm_unpacklo_epi8(low, high));
  return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(q, zp)), scale);
}

// A block's 16 possible weights, float(q - zp) * scale for q = 0..15: the same float each
// weight of that code gets (one conversion and one rounded product).
inline __m512 BlockTable(__m512i zp, __m512 scale) {
  const __m512i codes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(codes, zp)), scale);
}

// The 16 weights of k0..k0+15 looked up in the block's table: lane 2j takes byte j (its low
// nibble indexes the table), lane 2j + 1 byte j shifted by 4.
inline __m512 Weights16FromTable(const uint8_t* bytes, __m512 table) {
  const __m128i packed = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes));
  const __m512i doubled = _mm512_cvtepu8_epi32(_mm_unpacklo_epi8(packed, packed));
  const __m512i index = _mm512_srlv_epi32(doubled, _mm512_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4));
  return _mm512_permutexvar_ps(index, table);
}

// Columns j0..j0+kCols-1 of one row.
template <int kCols>
void Columns(const NbitsWeights& w, const float* a, int64_t j0, float* lanes) {
  const int64_t row_bytes = w.blocks * (w.block / 2);
  __m512 acc[kCols];
  for (int c = 0; c < kCols; ++c) acc[c] = _mm512_setzero_ps();
  for (int64_t b = 0; b < w.blocks; ++b) {
    __m512 table[kCols];
    for (int c = 0; c < kCols; ++c) {
      table[c] =
          BlockTable(_mm512_set1_epi32(w.zero_point(j0 + c, b)), _mm512_set1_ps(w.scales[(j0 + c) * w.blocks + b]));
    }
    const int64_t k_end = std::min(w.k, (b + 1) * w.block);
    int64_t k0 = b * w.block;
    for (; k0 + 16 <= k_end; k0 += 16) {
      const __m512 av = _mm512_loadu_ps(a + k0);
      for (int c = 0; c < kCols; ++c) {
        acc[c] = _mm512_fmadd_ps(Weights16FromTable(w.codes + (j0 + c) * row_bytes + k0 / 2, table[c]), av, acc[c]);
      }
    }
    if (k0 < k_end) {  // the padding: zero weights times zero inputs
      const __mmask16 valid = __mmask16((1u << (k_end - k0)) - 1);
      const __m512 av = _mm512_maskz_loadu_ps(valid, a + k0);
      for (int c = 0; c < kCols; ++c) {
        const __m512 wv =
            _mm512_maskz_mov_ps(valid, Weights16FromTable(w.codes + (j0 + c) * row_bytes + k0 / 2, table[c]));
        acc[c] = _mm512_fmadd_ps(wv, av, acc[c]);
      }
    }
  }
  for (int c = 0; c < kCols; ++c) _mm512_storeu_ps(lanes + 16 * c, acc[c]);
}

// The panel of columns j0 .. j0 + 31 (zeros past `cols`), k-major: panel[k * 32 + c]. Sixteen
// columns' 16 weights at a time are dequantized and transposed in registers, so every store is a
// vector (a 16-k chunk never straddles a block: blocks are multiples of 16).
void BuildPanel(const NbitsWeights& w, int64_t j0, int64_t cols, float* panel) {
  const int64_t row_bytes = w.blocks * (w.block / 2);
  __m512 r[16];
  for (int64_t g = 0; g < 32; g += 16) {
    for (int64_t b = 0; b < w.blocks; ++b) {
      __m512i zp[16] = {};
      __m512 scale[16] = {};
      for (int64_t c = 0; c < 16; ++c) {
        if (g + c >= cols) continue;
        zp[c] = _mm512_set1_epi32(w.zero_point(j0 + g + c, b));
        scale[c] = _mm512_set1_ps(w.scales[(j0 + g + c) * w.blocks + b]);
      }
      const int64_t k_end = std::min(w.k, (b + 1) * w.block);
      for (int64_t k0 = b * w.block; k0 < k_end; k0 += 16) {
        for (int64_t c = 0; c < 16; ++c) {
          r[c] = g + c < cols ? Weights16(w.codes + (j0 + g + c) * row_bytes + k0 / 2, zp[c], scale[c])
                              : _mm512_setzero_ps();
        }
        Transpose16(r);
        const int64_t count = std::min<int64_t>(16, k_end - k0);
        for (int64_t i = 0; i < count; ++i) _mm512_storeu_ps(panel + (k0 + i) * 32 + g, r[i]);
      }
    }
  }
}

// 8 rows x 32 columns: out[r][c] = chain over k of fma(a[r][k], panel[k][c]). The sixteen
// accumulators are named: GCC keeps an array of them in memory (a store per FMA).
void Tile8x32(const float* panel, const float* const* rows, int64_t k, float* out) {
  __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
  __m512 c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00;
  const float *a0 = rows[0], *a1 = rows[1], *a2 = rows[2], *a3 = rows[3];
  const float *a4 = rows[4], *a5 = rows[5], *a6 = rows[6], *a7 = rows[7];
  for (int64_t kk = 0; kk < k; ++kk) {
    const __m512 w0 = _mm512_loadu_ps(panel + kk * 32), w1 = _mm512_loadu_ps(panel + kk * 32 + 16);
#define QRT_NBITS_ROW(r)                        \
  {                                             \
    const __m512 av = _mm512_set1_ps(a##r[kk]); \
    c##r##0 = _mm512_fmadd_ps(av, w0, c##r##0); \
    c##r##1 = _mm512_fmadd_ps(av, w1, c##r##1); \
  }
    QRT_NBITS_ROW(0)
    QRT_NBITS_ROW(1)
    QRT_NBITS_ROW(2) QRT_NBITS_ROW(3) QRT_NBITS_ROW(4) QRT_NBITS_ROW(5) QRT_NBITS_ROW(6) QRT_NBITS_ROW(7)
#undef QRT_NBITS_ROW
  }
  const __m512 all[16] = {c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71};
  for (int i = 0; i < 16; ++i) _mm512_storeu_ps(out + 16 * i, all[i]);
}

}  // namespace

void MatMulNbitsRow(const NbitsWeights& w, const float* a, const float* bias, int64_t n_begin, int64_t n_end,
                    float* y) {
  const int64_t whole_groups = w.n / 4 * 4;
  alignas(64) float lanes[64];
  for (int64_t j0 = n_begin; j0 < n_end;) {
    const int cols = n_end - j0 >= 4 ? 4 : 1;
    if (cols == 4)
      Columns<4>(w, a, j0, lanes);
    else
      Columns<1>(w, a, j0, lanes);
    for (int c = 0; c < cols; ++c) {
      const int64_t j = j0 + c;
      const float r = j < whole_groups ? nbits::FoldGroups16(lanes + 16 * c) : nbits::Tree16(lanes + 16 * c);
      y[j] = bias ? r + bias[j] : r;
    }
    j0 += cols;
  }
}

void MatMulNbitsRows(const NbitsWeights& w, int64_t m, const float* a, const float* bias, int64_t n_begin,
                     int64_t n_end, float* y) {
  constexpr int64_t kCols = 32, kRows = 8;
  float* panel = ThreadScratchFloats(ScratchSlot::kOp0, size_t(w.k * kCols));
  for (int64_t j0 = n_begin; j0 < n_end; j0 += kCols) {
    const int64_t cols = std::min(kCols, n_end - j0);
    BuildPanel(w, j0, cols, panel);
    for (int64_t i0 = 0; i0 < m; i0 += kRows) {
      const int64_t rows = std::min(kRows, m - i0);
      alignas(64) float out[kRows * kCols];
      const float* row_ptrs[kRows];
      for (int64_t r = 0; r < kRows; ++r) row_ptrs[r] = a + (i0 + std::min(r, rows - 1)) * w.k;
      Tile8x32(panel, row_ptrs, w.k, out);
      for (int64_t r = 0; r < rows; ++r) {
        float* dst = y + (i0 + r) * w.n + j0;
        const float* src = out + r * kCols;
        for (int64_t c = 0; c < cols; ++c) dst[c] = bias ? src[c] + bias[j0 + c] : src[c];
      }
    }
  }
}

}  // namespace qrt::avx512
