// MatMulNBits' fp32 kernels with AVX2 + FMA, bit-identical to the reference: the one-row order's
// 16 lanes are two registers of 8; the m > 1 chains run 8 columns per register over a
// dequantized panel of the weights.
#include <immintrin.h>

#include <algorithm>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/common/transpose_avx2.h"
#include "ops/kernels/nbits/matmul_nbits.h"
#include "ops/kernels/nbits/nbits_reduce.h"

namespace qrt::avx2 {
namespace {

// The 16 codes of k0..k0+15 (k0 a multiple of 16, inside one block) as 16 bytes in k order.
inline __m128i Codes16(const uint8_t* bytes) {
  const __m128i packed = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes));
  const __m128i low = _mm_and_si128(packed, _mm_set1_epi8(15));
  const __m128i high = _mm_and_si128(_mm_srli_epi16(packed, 4), _mm_set1_epi8(15));
  return _mm_unpacklo_epi8(low, high);
}

// Column j's zero point and scale for block b, broadcast.
struct BlockConstants {
  __m256i zp;
  __m256 scale;
  BlockConstants() = default;
  BlockConstants(const NbitsWeights& w, int64_t j, int64_t b)
      : zp(_mm256_set1_epi32(w.zero_point(j, b))), scale(_mm256_set1_ps(w.scales[j * w.blocks + b])) {}
};

// The weights of column j's 16 codes at k0 (in the block of `block`), as ORT forms them:
// float(q - zp) * scale, k0..k0+7 in lo, k0+8..k0+15 in hi.
inline void Weights16(const NbitsWeights& w, int64_t j, int64_t k0, const BlockConstants& block, __m256* lo,
                      __m256* hi) {
  const __m128i q = Codes16(w.codes + j * w.blocks * (w.block / 2) + k0 / 2);
  *lo = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cvtepu8_epi32(q), block.zp)), block.scale);
  *hi = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(q, 8)), block.zp)),
                      block.scale);
}

// A's 16 inputs from k, those at or past `end` as 0: A itself, or `copy` where they end.
inline const float* Inputs16(const float* a, int64_t k, int64_t end, float (&copy)[16]) {
  if (k + 16 <= end) return a + k;
  for (int64_t i = 0; i < 16; ++i) copy[i] = k + i < end ? a[k + i] : 0.f;
  return copy;
}

using ColumnsFn = void (*)(const NbitsWeights& w, const float* a, int64_t j0, float* lanes);

// Columns [n_begin, n_end) of one row, four at a time while four remain (MLAS's groups): `four`
// or `one` leaves each column's kLanes lane sums at lanes + kLanes * c, finish(j, lanes) makes y[j].
template <int kLanes, class Finish>
void ByColumnGroups(const NbitsWeights& w, const float* a, int64_t n_begin, int64_t n_end, ColumnsFn four,
                    ColumnsFn one, const Finish& finish) {
  alignas(32) float lanes[4 * kLanes];
  for (int64_t j0 = n_begin; j0 < n_end;) {
    const int cols = n_end - j0 >= 4 ? 4 : 1;
    (cols == 4 ? four : one)(w, a, j0, lanes);
    for (int c = 0; c < cols; ++c) finish(j0 + c, lanes + kLanes * c);
    j0 += cols;
  }
}

// Columns j0..j0+kCols-1 of one row; each column's 16 lanes are two registers.
template <int kCols>
void Columns(const NbitsWeights& w, const float* a, int64_t j0, float* lanes) {
  __m256 acc[kCols][2];
  for (int c = 0; c < kCols; ++c) acc[c][0] = acc[c][1] = _mm256_setzero_ps();
  for (int64_t b = 0; b < w.blocks; ++b) {
    BlockConstants block[kCols];
    for (int c = 0; c < kCols; ++c) block[c] = BlockConstants(w, j0 + c, b);
    const int64_t k_end = std::min(w.k, (b + 1) * w.block);
    for (int64_t k0 = b * w.block; k0 < k_end; k0 += 16) {
      alignas(32) float copy[16];
      const float* ap = Inputs16(a, k0, k_end, copy);  // the padding: zero weights times zero inputs
      const bool tail = k0 + 16 > k_end;
      const __m256 a0 = _mm256_loadu_ps(ap), a1 = _mm256_loadu_ps(ap + 8);
      for (int c = 0; c < kCols; ++c) {
        __m256 w0, w1;
        Weights16(w, j0 + c, k0, block[c], &w0, &w1);
        if (tail) {
          alignas(32) float tw[16];
          _mm256_store_ps(tw, w0);
          _mm256_store_ps(tw + 8, w1);
          for (int64_t i = k_end - k0; i < 16; ++i) tw[i] = 0.f;
          w0 = _mm256_load_ps(tw);
          w1 = _mm256_load_ps(tw + 8);
        }
        acc[c][0] = _mm256_fmadd_ps(w0, a0, acc[c][0]);
        acc[c][1] = _mm256_fmadd_ps(w1, a1, acc[c][1]);
      }
    }
  }
  for (int c = 0; c < kCols; ++c) {
    _mm256_storeu_ps(lanes + 16 * c, acc[c][0]);
    _mm256_storeu_ps(lanes + 16 * c + 8, acc[c][1]);
  }
}

}  // namespace

void MatMulNbitsRow(const NbitsWeights& w, const float* a, const float* bias, int64_t n_begin, int64_t n_end,
                    float* y) {
  const int64_t whole_groups = w.n / 4 * 4;
  ByColumnGroups<16>(w, a, n_begin, n_end, Columns<4>, Columns<1>, [&](int64_t j, const float* lanes) {
    const float r = j < whole_groups ? nbits::FoldGroups16(lanes) : nbits::Tree16(lanes);
    y[j] = bias ? r + bias[j] : r;
  });
}

namespace {

// Columns j0..j0+kCols-1 of one row in the 8-lane order (MatMulNbitsRow8): one register per
// column, two multiply-adds per 16 k; whole sub-blocks of `sub` k, inputs past K read as 0 and
// their weights kept, as ORT's AVX2 kernel runs them.
template <int kCols>
void Columns8(const NbitsWeights& w, const float* a, int64_t j0, float* lanes) {
  const int64_t sub = w.block == 16 ? 16 : 32;
  __m256 acc[kCols];
  for (int c = 0; c < kCols; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < w.blocks; ++b) {
    BlockConstants block[kCols];
    for (int c = 0; c < kCols; ++c) block[c] = BlockConstants(w, j0 + c, b);
    const int64_t k0 = b * w.block, valid = std::min(w.block, w.k - k0);
    const int64_t end = k0 + (valid + sub - 1) / sub * sub;
    for (int64_t k = k0; k < end; k += 16) {
      alignas(32) float copy[16];
      const float* ap = Inputs16(a, k, w.k, copy);  // inputs past K are zeros
      const __m256 a0 = _mm256_loadu_ps(ap), a1 = _mm256_loadu_ps(ap + 8);
      for (int c = 0; c < kCols; ++c) {
        __m256 w0, w1;
        Weights16(w, j0 + c, k, block[c], &w0, &w1);
        acc[c] = _mm256_fmadd_ps(w1, a1, _mm256_fmadd_ps(w0, a0, acc[c]));
      }
    }
  }
  for (int c = 0; c < kCols; ++c) _mm256_storeu_ps(lanes + 8 * c, acc[c]);
}

}  // namespace

void MatMulNbitsRow8(const NbitsWeights& w, const float* a, const float* bias, int64_t n_begin, int64_t n_end,
                     float* y) {
  const int64_t whole_groups = w.n / 4 * 4;
  ByColumnGroups<8>(w, a, n_begin, n_end, Columns8<4>, Columns8<1>, [&](int64_t j, const float* lanes) {
    if (j < whole_groups) {
      const float r = nbits::FoldGroups8(lanes);
      y[j] = bias ? r + bias[j] : r;
    } else {
      y[j] = nbits::Hadd8(lanes) + (bias ? bias[j] : 0.f);
    }
  });
}

namespace {

// The panel of columns j0 .. j0 + 15 (zeros past `cols`), k-major: panel[k * 16 + c]. Eight
// columns' 16 weights at a time are dequantized and transposed in registers (two 8 x 8 blocks),
// so every store is a vector (a 16-k chunk never straddles a block: blocks are multiples of 16).
void BuildPanel(const NbitsWeights& w, int64_t j0, int64_t cols, float* panel) {
  __m256 lo[8], hi[8];
  for (int64_t g = 0; g < 16; g += 8) {
    for (int64_t b = 0; b < w.blocks; ++b) {
      const int64_t k_end = std::min(w.k, (b + 1) * w.block);
      for (int64_t k0 = b * w.block; k0 < k_end; k0 += 16) {
        for (int64_t c = 0; c < 8; ++c) {
          if (g + c >= cols) {
            lo[c] = hi[c] = _mm256_setzero_ps();
            continue;
          }
          Weights16(w, j0 + g + c, k0, BlockConstants(w, j0 + g + c, b), &lo[c], &hi[c]);
        }
        Transpose8(lo);
        Transpose8(hi);
        const int64_t count = std::min<int64_t>(16, k_end - k0);
        for (int64_t i = 0; i < count; ++i) _mm256_storeu_ps(panel + (k0 + i) * 16 + g, i < 8 ? lo[i] : hi[i - 8]);
      }
    }
  }
}

void Tile6(const float* panel, const float* const* rows, int64_t k, float* out) {
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  const float *a0 = rows[0], *a1 = rows[1], *a2 = rows[2], *a3 = rows[3], *a4 = rows[4], *a5 = rows[5];
  for (int64_t kk = 0; kk < k; ++kk) {
    const __m256 w0 = _mm256_loadu_ps(panel + kk * 16), w1 = _mm256_loadu_ps(panel + kk * 16 + 8);
#define QRT_NBITS_ROW(r)                              \
  {                                                   \
    const __m256 av = _mm256_broadcast_ss(a##r + kk); \
    c##r##0 = _mm256_fmadd_ps(av, w0, c##r##0);       \
    c##r##1 = _mm256_fmadd_ps(av, w1, c##r##1);       \
  }
    QRT_NBITS_ROW(0) QRT_NBITS_ROW(1) QRT_NBITS_ROW(2) QRT_NBITS_ROW(3) QRT_NBITS_ROW(4) QRT_NBITS_ROW(5)
#undef QRT_NBITS_ROW
  }
  const __m256 all[12] = {c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51};
  for (int i = 0; i < 12; ++i) _mm256_store_ps(out + 8 * i, all[i]);
}

}  // namespace

void MatMulNbitsRows(const NbitsWeights& w, int64_t m, const float* a, const float* bias, int64_t n_begin,
                     int64_t n_end, float* y) {
  // A panel of 16 columns' weights, k-major (panel[k][c]), dequantized once (transposed in
  // registers) and read by every row; 6 rows x 16 columns of accumulators (12 registers) so that 12 chains overlap.
  constexpr int64_t kCols = 16, kRows = 6;
  float* panel = ThreadScratchFloats(ScratchSlot::kOp0, size_t(w.k * kCols));
  for (int64_t j0 = n_begin; j0 < n_end; j0 += kCols) {
    const int64_t cols = std::min(kCols, n_end - j0);
    BuildPanel(w, j0, cols, panel);
    for (int64_t i0 = 0; i0 < m; i0 += kRows) {
      const int64_t rows = std::min(kRows, m - i0);
      alignas(32) float out[kRows * kCols];
      const float* row_ptrs[kRows];
      for (int64_t r = 0; r < kRows; ++r) row_ptrs[r] = a + (i0 + std::min(r, rows - 1)) * w.k;
      Tile6(panel, row_ptrs, w.k, out);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          const float v = out[r * kCols + c];
          y[(i0 + r) * w.n + j0 + c] = bias ? v + bias[j0 + c] : v;
        }
      }
    }
  }
}

}  // namespace qrt::avx2
