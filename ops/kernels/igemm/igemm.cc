// The blocked driver and the packing of igemm.h: plain C++, the same for every tile kernel.
#include "ops/kernels/igemm/igemm.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/conv/code_patches.h"
#include "runtime/cpu_features.h"
#include "runtime/parallel.h"

namespace qrt {
namespace {

// A block of k: a tile's A rows (8 x 1 KB) stay in L1 while it runs over a block of B.
constexpr int64_t kBlockPairs = 256;
// A block of columns: its part of B (16 panels of at most 16 KB per block of k) stays in L2
// while every row of A passes over it.
constexpr int64_t kBlockPanels = 16;
// IgemmConv's block of patch panels, packed and then multiplied while it is in L2.
// At most this many panels.
constexpr int64_t kPatchBlockBytes = 192 * 1024, kPatchBlockPanels = 64;

void IgemmColumnRange(const IgemmKernel& kernel, int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda,
                      const int16_t* b, int32_t* c, int64_t ldc, int64_t panel_begin, int64_t panel_end) {
  const int64_t pairs = IgemmPairs(k), ps = IgemmPanelStride(k);
  for (int64_t nb = panel_begin; nb < panel_end; nb += kBlockPanels) {
    const int64_t nb_end = std::min(panel_end, nb + kBlockPanels);
    for (int64_t p0 = 0; p0 < pairs || p0 == 0; p0 += kBlockPairs) {
      const int64_t kc = std::min(kBlockPairs, pairs - p0);
      for (int64_t i = 0; i < m; i += kernel.rows) {
        const int64_t rows = std::min<int64_t>(kernel.rows, m - i);
        for (int64_t q = nb; q < nb_end; q += kernel.panels) {
          const int64_t cols = std::min({int64_t(kernel.panels), nb_end - q}) * kIgemmPanel;
          kernel.tile(rows, std::min(cols, n - q * kIgemmPanel), kc, a + i * lda + 2 * p0, lda,
                      b + q * ps + p0 * 2 * kIgemmPanel, ps, c + i * ldc + q * kIgemmPanel, ldc, p0 > 0);
        }
      }
      if (pairs == 0) break;
    }
  }
}

}  // namespace

void Igemm(const IgemmKernel& kernel, int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda,
           const int16_t* b_packed, int32_t* c, int64_t ldc, int threads) {
  if (m <= 0 || n <= 0) return;
  const int64_t panels = IgemmPanels(n);
  if (threads <= 1) return IgemmColumnRange(kernel, m, n, k, a, lda, b_packed, c, ldc, 0, panels);
  // Enough work per thread to pay for waking it: about 64 K multiply-adds.
  const int64_t per_panel = std::max<int64_t>(1, m * IgemmPairs(k) * 2 * kIgemmPanel);
  const int64_t min_panels = std::max<int64_t>(kernel.panels, (int64_t(1) << 16) / per_panel);
  ParallelFor(threads, panels, kernel.panels, min_panels, [&](int64_t begin, int64_t end) {
    IgemmColumnRange(kernel, m, n, k, a, lda, b_packed, c, ldc, begin, end);
  });
}

template <class Ta>
void IgemmFrom8Bit(const IgemmKernel& kernel, int64_t m, int64_t n, int64_t k, const Ta* a, int64_t rs, int64_t cs,
                   int32_t a_zp, const int16_t* b_packed, int32_t* c, int64_t ldc, int threads) {
  if (m <= 0 || n <= 0) return;
  const int64_t lda = IgemmRowLength(k);
  int16_t* a16 = static_cast<int16_t*>(ThreadScratch(ScratchSlot::kOp1, size_t(m * lda) * sizeof(int16_t)));
  IgemmRowsToInt16(m, k, a, rs, cs, &a_zp, 0, a16, lda);
  Igemm(kernel, m, n, k, a16, lda, b_packed, c, ldc, threads);
}

template <class T>
void IgemmRowsToInt16(int64_t m, int64_t k, const T* a, int64_t rs, int64_t cs, const int32_t* zp, int64_t zp_inc,
                      int16_t* out, int64_t lda) {
  for (int64_t i = 0; i < m; ++i) {
    const int32_t z = zp != nullptr ? zp[i * zp_inc] : 0;
    const T* row = a + i * rs;
    int16_t* o = out + i * lda;
    if (cs == 1) {
      for (int64_t p = 0; p < k; ++p) o[p] = int16_t(int32_t(row[p]) - z);
    } else {
      for (int64_t p = 0; p < k; ++p) o[p] = int16_t(int32_t(row[p * cs]) - z);
    }
    if (k % 2 != 0) o[k] = 0;
  }
}

template <class T>
void IgemmPackB(int64_t k, int64_t n, const T* b, int64_t rs, int64_t cs, const int32_t* zp, int64_t zp_inc,
                int16_t* out) {
  const int64_t pairs = IgemmPairs(k), ps = IgemmPanelStride(k);
  for (int64_t q = 0; q < IgemmPanels(n); ++q) {
    int16_t* panel = out + q * ps;
    for (int64_t jj = 0; jj < kIgemmPanel; ++jj) {
      const int64_t j = q * kIgemmPanel + jj;
      const int32_t z = j < n && zp != nullptr ? zp[j * zp_inc] : 0;
      for (int64_t p = 0; p < pairs; ++p) {
        for (int64_t h = 0; h < 2; ++h) {
          const int64_t kk = 2 * p + h;
          panel[p * 2 * kIgemmPanel + jj * 2 + h] = j < n && kk < k ? int16_t(int32_t(b[kk * rs + j * cs]) - z) : 0;
        }
      }
    }
  }
}

namespace {

// A panel's pair row: (e[j], d[j]) for its 16 columns. SSE2 is in every x86-64 baseline (the
// compiler's own vectorisation of this loop gathers element by element).
void Interleave(const int16_t* e, const int16_t* d, int16_t* o) {
#if defined(__SSE2__)
  const __m128i e0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(e));
  const __m128i e1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(e + 8));
  const __m128i d0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d));
  const __m128i d1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + 8));
  __m128i* out = reinterpret_cast<__m128i*>(o);
  _mm_storeu_si128(out, _mm_unpacklo_epi16(e0, d0));
  _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(e0, d0));
  _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(e1, d1));
  _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(e1, d1));
#else
  for (int64_t j = 0; j < kIgemmPanel; ++j) o[2 * j] = e[j], o[2 * j + 1] = d[j];
#endif
}

}  // namespace

namespace {

// IgemmPackIm2Col's columns [begin, end) from the patch matrix of X's codes (BuildCodePatches: k
// rows of `positions` bytes, the padding holding x_zp's code), each row read as a run of bytes
// (gathered tap by tap, the per-row setup on small planes was a quarter of a QOperator CNN's run).
template <class T>
void PackFromCodePatches(const uint8_t* codes, int64_t positions, int64_t k, int32_t x_zp, int64_t begin, int64_t end,
                         int16_t* out) {
  const int64_t columns = end - begin;
  const int64_t ps = IgemmPanelStride(k), panels = IgemmPanels(columns), width = panels * kIgemmPanel;
  int16_t* even = ThreadScratchArray<int16_t>(ScratchSlot::kIgemmPatchRows, size_t(2 * width));
  int16_t* odd = even + width;
  std::fill(even + columns, even + width, int16_t(0));
  std::fill(odd + columns, odd + width, int16_t(0));
  auto row = [&](int64_t kk, int16_t* line) {
    const T* r = reinterpret_cast<const T*>(codes + kk * positions + begin);
    for (int64_t j = 0; j < columns; ++j) line[j] = int16_t(int32_t(r[j]) - x_zp);
  };
  for (int64_t p = 0; p < IgemmPairs(k); ++p) {
    row(2 * p, even);
    if (2 * p + 1 < k)
      row(2 * p + 1, odd);
    else
      std::fill(odd, odd + columns, int16_t(0));
    for (int64_t q = 0; q < panels; ++q)
      Interleave(even + q * kIgemmPanel, odd + q * kIgemmPanel, out + q * ps + p * 2 * kIgemmPanel);
  }
}

// One group's channels as one convolution, the geometry BuildCodePatches takes.
ConvGeometry OneGroup(const ConvGeometry& g) {
  ConvGeometry one = g;
  one.in_channels = g.in_channels / g.group, one.out_channels = g.out_channels / g.group, one.group = 1;
  return one;
}

// Whether a convolution's patch matrix is X itself: every kernel size and stride 1, no padding.
bool PatchesAreInput(const ConvGeometry& g) {
  for (int d = 0; d < 3; ++d) {
    if (g.kernel[d] != 1 || g.stride[d] != 1 || g.pad_begin[d] != 0 || g.pad_end[d] != 0) return false;
  }
  return true;
}

// The patch matrix of codes of one image's group (x at its first plane): k rows of
// out_spatial() bytes, the padding x_zp's code. X itself for a 1x1 convolution of stride 1
// (its readers stay within k x out_spatial()), else built in ThreadScratch's kPatchPlanes and
// kPatchCodes slots.
template <class T>
const uint8_t* GroupCodePatches(const ConvGeometry& one_group, const T* x, int32_t x_zp) {
  if (PatchesAreInput(one_group)) return reinterpret_cast<const uint8_t*>(x);
  auto* planes = static_cast<uint8_t*>(ThreadScratch(ScratchSlot::kPatchPlanes, size_t(CodePlanesBytes(one_group))));
  auto* codes = static_cast<uint8_t*>(ThreadScratch(
      ScratchSlot::kPatchCodes, size_t(one_group.reduction_size() * one_group.out_spatial() + kCodePatchesSlack)));
  BuildCodePatches(one_group, reinterpret_cast<const uint8_t*>(x), uint8_t(T(x_zp)), planes, codes);
  return codes;
}

// The convolutions' driver: each image and group's patch matrix of codes, whole
// (GroupCodePatches), then blocks of
// columns (panels of `panel_bytes` each, so many that a block stays in L2 while every channel
// passes over it), split over `threads`: block(codes, first channel, y at the group, c0, c1).
template <class Tx, class Block>
void OverPatchBlocks(const ConvGeometry& g, const Tx* x, int32_t x_zp, int32_t* y, int64_t panel_bytes, int threads,
                     const Block& block_fn) {
  const int64_t positions = g.out_spatial();
  if (positions <= 0 || g.out_channels <= 0) return;
  const int64_t mg = g.out_channels / g.group, cg = g.in_channels / g.group, plane = g.in_spatial();
  const int64_t panels = IgemmPanels(positions);
  int64_t block = std::clamp<int64_t>(kPatchBlockBytes / std::max<int64_t>(panel_bytes, 1), 1, kPatchBlockPanels);
  if (threads > 1) block = std::min(block, (panels + threads - 1) / threads);
  const int64_t blocks = (panels + block - 1) / block, block_columns = block * kIgemmPanel;
  const ConvGeometry one_group = OneGroup(g);
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      const Tx* xg = x + (n * g.in_channels + grp * cg) * plane;
      int32_t* yg = y + (n * g.out_channels + grp * mg) * positions;
      const uint8_t* codes = GroupCodePatches(one_group, xg, x_zp);
      auto run = [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          const int64_t c0 = b * block_columns;
          block_fn(codes, grp * mg, yg, c0, std::min(positions, c0 + block_columns), block_columns);
        }
      };
      if (threads <= 1 || blocks == 1)
        run(0, blocks);
      else
        ParallelFor(threads, blocks, 1, 1, run);
    }
  }
}

}  // namespace

template <class T>
void IgemmPackIm2Col(const ConvGeometry& g, const T* x, int32_t x_zp, int64_t begin, int64_t end, int16_t* out) {
  if (end <= begin) return;
  const ConvGeometry one_group = OneGroup(g);
  PackFromCodePatches<T>(GroupCodePatches(one_group, x, x_zp), g.out_spatial(), g.reduction_size(), x_zp, begin, end,
                         out);
}

template <class Tx>
void IgemmConv(const IgemmKernel& kernel, const ConvGeometry& g, const Tx* x, int32_t x_zp, const int16_t* w16,
               int32_t* y, int threads) {
  const int64_t k = g.reduction_size(), lda = IgemmRowLength(k), positions = g.out_spatial();
  const int64_t mg = g.out_channels / std::max<int64_t>(g.group, 1);
  OverPatchBlocks(g, x, x_zp, y, IgemmPanelStride(k) * 2, threads,
                  [&](const uint8_t* codes, int64_t first, int32_t* yg, int64_t c0, int64_t c1, int64_t columns) {
                    auto* patches = static_cast<int16_t*>(
                        ThreadScratch(ScratchSlot::kOp2, size_t(IgemmPackedBSize(k, columns)) * 2));
                    PackFromCodePatches<Tx>(codes, positions, k, x_zp, c0, c1, patches);
                    IgemmColumnRange(kernel, mg, c1 - c0, k, w16 + first * lda, lda, patches, yg + c0, positions, 0,
                                     IgemmPanels(c1 - c0));
                  });
}

template <class Tw>
IgemmQuadWeights IgemmPackQuadWeights(int64_t m, int64_t k, const Tw* w, const int32_t* w_zp, bool split_pairs,
                                      ByteSplit how) {
  constexpr int32_t kOffset = std::is_signed_v<Tw> ? 0 : 128;  // ws = w - offset, a signed byte
  IgemmQuadWeights q;
  q.m = m, q.k = k, q.quads = (k + 3) / 4, q.split_pairs = split_pairs;
  q.rows.assign(size_t(m * q.quads), 0);
  std::vector<int32_t> ws(static_cast<size_t>(m * k));
  for (int64_t r = 0; r < m; ++r) {
    int32_t sum = 0;
    for (int64_t p = 0; p < k; ++p) {
      const int32_t v = int32_t(w[r * k + p]);
      ws[size_t(r * k + p)] = v - kOffset;
      sum = int32_t(uint32_t(sum) + uint32_t(v - w_zp[r]));
    }
    q.column_factors.push_back(int32_t(uint32_t(kOffset) - uint32_t(w_zp[r])));
    q.weight_sums.push_back(sum);
  }
  if (split_pairs) q.quad_pairs = SplitByteWeights(ws.data(), m, k, &q.corrections, how);
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t p = 0; p < k; ++p) {
      q.rows[size_t(r * q.quads + p / 4)] |= int32_t(uint32_t(uint8_t(int8_t(ws[size_t(r * k + p)]))) << (8 * (p % 4)));
    }
  }
  return q;
}

bool IgemmQuadsAvailable(Isa isa) { return CanUseAvx2(isa); }

bool IgemmQuadsSplitPairs(Isa isa) { return !CanUseAvx512Vnni(isa); }

template <class Tx>
void IgemmConvQuads(const IgemmQuadWeights& w, const ConvGeometry& g, const Tx* x, int32_t x_zp, int32_t* y,
                    int threads) {
  const int64_t k = g.reduction_size(), positions = g.out_spatial(), panel_bytes = w.quads * 64;
  const int64_t mg = g.out_channels / std::max<int64_t>(g.group, 1);
  const bool flip = std::is_signed_v<Tx>;
  const int32_t zxu = x_zp + (flip ? 128 : 0);  // X's zero point as xu
  OverPatchBlocks(
      g, x, x_zp, y, panel_bytes, threads,
      [&](const uint8_t* codes, int64_t first, int32_t* yg, int64_t c0, int64_t c1, int64_t columns) {
        auto* packed =
            static_cast<int32_t*>(ThreadScratch(ScratchSlot::kOp2, size_t(columns / kIgemmPanel * panel_bytes)));
        auto* sums = static_cast<int32_t*>(ThreadScratch(ScratchSlot::kIgemmPatchRows, size_t(columns) * 4));
        if (w.split_pairs) {
          avx2::IgemmQuadPanels(codes, positions, k, flip, c0, c1, packed, sums);
          avx2::IgemmQuadTiles(w, first, mg, packed, c1 - c0, sums, zxu, yg + c0, positions);
        } else {
          avx512vnni::IgemmQuadPanels(codes, positions, k, flip, c0, c1, packed, sums);
          avx512vnni::IgemmQuadTiles(w, first, mg, packed, c1 - c0, sums, zxu, yg + c0, positions);
        }
      });
}

#define QRT_IGEMM_PACK(T)                                                                                            \
  template void IgemmRowsToInt16<T>(int64_t, int64_t, const T*, int64_t, int64_t, const int32_t*, int64_t, int16_t*, \
                                    int64_t);                                                                        \
  template void IgemmPackB<T>(int64_t, int64_t, const T*, int64_t, int64_t, const int32_t*, int64_t, int16_t*);      \
  template void IgemmPackIm2Col<T>(const ConvGeometry&, const T*, int32_t, int64_t, int64_t, int16_t*);              \
  template void IgemmConv<T>(const IgemmKernel&, const ConvGeometry&, const T*, int32_t, const int16_t*, int32_t*,   \
                             int);                                                                                   \
  template void IgemmFrom8Bit<T>(const IgemmKernel&, int64_t, int64_t, int64_t, const T*, int64_t, int64_t, int32_t, \
                                 const int16_t*, int32_t*, int64_t, int);                                            \
  template IgemmQuadWeights IgemmPackQuadWeights<T>(int64_t, int64_t, const T*, const int32_t*, bool, ByteSplit);    \
  template void IgemmConvQuads<T>(const IgemmQuadWeights&, const ConvGeometry&, const T*, int32_t, int32_t*, int);
QRT_IGEMM_PACK(uint8_t)
QRT_IGEMM_PACK(int8_t)
#undef QRT_IGEMM_PACK

}  // namespace qrt
