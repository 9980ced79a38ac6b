// Exact integer matrix products for ConvInteger, MatMulInteger, QLinearConv, QLinearMatMul,
// QGemm and the com.microsoft dynamic-quantization ops:
//   C(i,j) = sum_k A(i,k) * B(k,j)   in int32, wrapping mod 2^32 (ref::GemmInteger's accumulator)
// where A and B hold 8-bit values minus their zero points, |v| <= 255, widened to int16. A pair of
// such products is at most 2 * 255 * 255 < 2^31, so VPMADDWD (two products per 32-bit lane, no
// saturation) and VPDPWSSD are exact, and the wrapping int32 sum is the same in any order: every
// kernel here gives the reference's bits.
//
// Layouts (k_pairs = ceil(k / 2); the odd k's last pair has a zero second half):
//   A: int16 rows of 2 * k_pairs values, row stride lda >= 2 * k_pairs (IgemmRowsToInt16).
//   B: panels of kIgemmPanel columns, panel q at q * IgemmPanelStride(k): for each pair p of k
//      and each column j of the panel, (B(2p, j), B(2p+1, j)); columns past n hold zeros
//      (IgemmPackB, IgemmPackIm2Col).
//   C: int32 rows, row stride ldc.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/kernels/common/byte_pairs.h"
#include "ops/kernels/conv/conv_ref.h"
#include "runtime/cpu_features.h"

namespace qrt {

inline constexpr int64_t kIgemmPanel = 16;

inline int64_t IgemmPairs(int64_t k) { return (k + 1) / 2; }
inline int64_t IgemmRowLength(int64_t k) { return 2 * IgemmPairs(k); }
inline int64_t IgemmPanelStride(int64_t k) { return IgemmPairs(k) * 2 * kIgemmPanel; }
inline int64_t IgemmPanels(int64_t n) { return (n + kIgemmPanel - 1) / kIgemmPanel; }
inline int64_t IgemmPackedBSize(int64_t k, int64_t n) { return IgemmPanels(n) * IgemmPanelStride(k); }

// One tile: C[0..rows) x [0..cols) of up to `panels` consecutive panels of B, over all k_pairs,
// stored (accumulate false) or added to C (accumulate true). rows <= IgemmKernel::rows,
// cols <= IgemmKernel::panels * kIgemmPanel.
using IgemmTileFn = void (*)(int64_t rows, int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda,
                             const int16_t* b, int64_t panel_stride, int32_t* c, int64_t ldc, bool accumulate);

struct IgemmKernel {
  IgemmTileFn tile = nullptr;
  int rows = 1;    // tile height
  int panels = 1;  // tile width in panels
};

namespace ref {
void IgemmTile(int64_t rows, int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b,
               int64_t panel_stride, int32_t* c, int64_t ldc, bool accumulate);
}
namespace avx2 {  // VPMADDWD + VPADDD, 6 rows x 1 panel
void IgemmTile(int64_t rows, int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b,
               int64_t panel_stride, int32_t* c, int64_t ldc, bool accumulate);
}
namespace avx512 {  // 8 rows x 2 panels; VPMADDWD + VPADDD (AVX512BW)
void IgemmTile(int64_t rows, int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b,
               int64_t panel_stride, int32_t* c, int64_t ldc, bool accumulate);
}
namespace avx512vnni {  // the same tile with VPDPWSSD
void IgemmTile(int64_t rows, int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b,
               int64_t panel_stride, int32_t* c, int64_t ldc, bool accumulate);
}

IgemmKernel RefIgemmKernel();
IgemmKernel Avx2IgemmKernel();
IgemmKernel Avx512IgemmKernel();
IgemmKernel Avx512VnniIgemmKernel();
// The best kernel under the ceiling `isa` (noted for inspect --json).
IgemmKernel SelectIgemmKernel(Isa isa);

// C[m x n] = A[m x k] * B[k x n] over the layouts above, in cache blocks; columns are split
// over `threads` threads (any count gives the same bits).
void Igemm(const IgemmKernel& kernel, int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda,
           const int16_t* b_packed, int32_t* c, int64_t ldc, int threads = 1);

// C = (A - a_zp) x B for an 8-bit A read through strides, A(i, p) = a[i * rs + p * cs]: A's
// rows go to int16 in ThreadScratch's kOp1 slot (the caller must not hold it), then Igemm.
template <class Ta>
void IgemmFrom8Bit(const IgemmKernel& kernel, int64_t m, int64_t n, int64_t k, const Ta* a, int64_t rs, int64_t cs,
                   int32_t a_zp, const int16_t* b_packed, int32_t* c, int64_t ldc, int threads = 1);

// Packing. T = uint8_t or int8_t. Zero points are int32 (any 8-bit value).
// A(i, k) = a[i * rs + k * cs] - zp[i * zp_inc] into `out` (row stride lda, padding zeroed).
template <class T>
void IgemmRowsToInt16(int64_t m, int64_t k, const T* a, int64_t rs, int64_t cs, const int32_t* zp, int64_t zp_inc,
                      int16_t* out, int64_t lda);
// B(k, j) = b[k * rs + j * cs] - zp[j * zp_inc] into IgemmPackedBSize(k, n) values.
template <class T>
void IgemmPackB(int64_t k, int64_t n, const T* b, int64_t rs, int64_t cs, const int32_t* zp, int64_t zp_inc,
                int16_t* out);
// Columns [begin, end) of the patch matrix of one image and group as B (begin a multiple of
// kIgemmPanel; out holds IgemmPackedBSize(k, end - begin)): rows (c, kd, kh, kw) over the
// group's in_channels / group channels starting at x (the group's first plane), columns the
// output positions, x - x_zp at each tap and 0 over the padding (ConvInteger pads with the
// zero point). The group's whole patch matrix of codes is built first (BuildCodePatches, in
// ThreadScratch's kPatchPlanes and kPatchCodes slots), as IgemmConv builds it.
template <class T>
void IgemmPackIm2Col(const ConvGeometry& g, const T* x, int32_t x_zp, int64_t begin, int64_t end, int16_t* out);

// The whole integer convolution of ref::ConvInteger (no bias) into y (N x M x positions):
// w16 holds W's rows minus their zero points (IgemmRowsToInt16, lda IgemmRowLength(k)). Each
// image and group's patch matrix of codes is built whole (BuildCodePatches, ThreadScratch's
// kPatchPlanes and kPatchCodes slots), then packed as IgemmPackIm2Col packs it a block of
// columns at a time into the kOp2 slot, so that a block stays in L2 while it is multiplied;
// blocks are split over `threads`.
template <class Tx>
void IgemmConv(const IgemmKernel& kernel, const ConvGeometry& g, const Tx* x, int32_t x_zp, const int16_t* w16,
               int32_t* y, int threads = 1);

// ---- u8 x s8 quads (AVX-512 VNNI, AVX2) --------------------------------------------------
// The same accumulators for a convolution with constant weights, with VPDPBUSD: four byte
// products per 32-bit lane, summed without saturation (|xu ws| <= 255 * 128), so exact. AVX2's
// VPMADDUBSW adds two byte products into a saturating int16 first: for it the pairs of ws that
// could saturate are split (split_pairs, common/byte_pairs.h) and their excesses added back as xu
// times the excess. X's codes
// are read as unsigned bytes xu (int8 codes + 128, the zero point likewise: zxu) and the weights
// kept as signed bytes ws = w - w_offset (uint8 weights - 128, int8 weights as they are). Then
//   sum_k (x - x_zp)(w - w_zp) = sum_k xu ws + (w_offset - w_zp) sum_k xu - zxu sum_k (w - w_zp),
// every term in wrapping int32 arithmetic: the reference's bits (a ring identity mod 2^32).
// The padding holds X's zero point (xu - zxu = 0), as in IgemmPackIm2Col.
struct IgemmQuadWeights {
  int64_t m = 0, k = 0, quads = 0;      // output channels, reduction length, ceil(k / 4)
  bool split_pairs = false;             // packed for AVX2 (above): rows hold the split bytes
  bool quad_pairs = false;              // split for two quads' words added (common/byte_pairs.h)
  std::vector<int32_t> rows;            // m x quads: the bytes ws of k = 4q..4q+3 (0 past k)
  PairCorrections corrections;          // with split_pairs: each channel's excesses
  std::vector<int32_t> column_factors;  // per channel: w_offset - w_zp, times sum_k xu
  std::vector<int32_t> weight_sums;     // per channel: sum_k (w - w_zp), times zxu
};
// w: m rows of k weights; w_zp: one per row; split_pairs: for the AVX2 kernel (split as `how`
// says: the cheaper way unless a test forces one).
template <class Tw>
IgemmQuadWeights IgemmPackQuadWeights(int64_t m, int64_t k, const Tw* w, const int32_t* w_zp, bool split_pairs,
                                      ByteSplit how = ByteSplit::kCheaper);
// Whether IgemmConvQuads runs under the ceiling `isa` (AVX-512 VNNI, or AVX2 on split pairs).
bool IgemmQuadsAvailable(Isa isa);
// Whether the weights for `isa` need split pairs (AVX2's kernel, not VNNI's).
bool IgemmQuadsSplitPairs(Isa isa);
// IgemmConv's result with the quads (w for all groups' channels, group after group).
template <class Tx>
void IgemmConvQuads(const IgemmQuadWeights& w, const ConvGeometry& g, const Tx* x, int32_t x_zp, int32_t* y,
                    int threads = 1);

namespace avx512vnni {
// Columns [begin, end) of a patch matrix of codes (k rows of `positions` bytes) as panels of 16
// columns, for each quad q the 16 columns' dwords of bytes xu (k = 4q..4q+3; 0 past k and past
// end) at out + panel * quads * 16 + q * 16; flip: int8 codes (xu = code + 128). column_sums[j]:
// sum_k xu of column begin + j (0 past end), for IgemmPanels(end - begin) * 16 columns.
void IgemmQuadPanels(const uint8_t* codes, int64_t positions, int64_t k, bool flip, int64_t begin, int64_t end,
                     int32_t* out, int32_t* column_sums);
// C rows [0, rows) of w's channels `first`.. times `cols` columns of those panels, with the
// identity's corrections (zxu: X's zero point as xu), stored at c (row stride ldc).
void IgemmQuadTiles(const IgemmQuadWeights& w, int64_t first, int64_t rows, const int32_t* panels, int64_t cols,
                    const int32_t* column_sums, int32_t zxu, int32_t* c, int64_t ldc);
}  // namespace avx512vnni

namespace avx2 {  // the same two steps with VPMADDUBSW, on weights packed with split_pairs
void IgemmQuadPanels(const uint8_t* codes, int64_t positions, int64_t k, bool flip, int64_t begin, int64_t end,
                     int32_t* out, int32_t* column_sums);
void IgemmQuadTiles(const IgemmQuadWeights& w, int64_t first, int64_t rows, const int32_t* panels, int64_t cols,
                    const int32_t* column_sums, int32_t zxu, int32_t* c, int64_t ldc);
}  // namespace avx2

}  // namespace qrt
