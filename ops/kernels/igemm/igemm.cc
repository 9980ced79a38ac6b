// The blocked driver and the packing of igemm.h: plain C++, the same for every tile kernel.
#include "ops/kernels/igemm/igemm.h"

#include <algorithm>
#include <cstring>

#include "runtime/parallel.h"

namespace qrt {
namespace {

// A block of k: a tile's A rows (8 x 1 KB) stay in L1 while it runs over a block of B.
constexpr int64_t kBlockPairs = 256;
// A block of columns: its part of B (16 panels of at most 16 KB per block of k) stays in L2
// while every row of A passes over it.
constexpr int64_t kBlockPanels = 16;

void IgemmPanels(const IgemmKernel& kernel, int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda,
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
  if (threads <= 1) return IgemmPanels(kernel, m, n, k, a, lda, b_packed, c, ldc, 0, panels);
  // Enough work per thread to pay for waking it: about 64 K multiply-adds.
  const int64_t per_panel = std::max<int64_t>(1, m * IgemmPairs(k) * 2 * kIgemmPanel);
  const int64_t min_panels = std::max<int64_t>(kernel.panels, (int64_t(1) << 16) / per_panel);
  ParallelFor(threads, panels, kernel.panels, min_panels,
              [&](int64_t begin, int64_t end) { IgemmPanels(kernel, m, n, k, a, lda, b_packed, c, ldc, begin, end); });
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

template <class T>
void IgemmPackIm2Col(const ConvGeometry& g, const T* x, int32_t x_zp, int16_t* out) {
  const int64_t cg = g.in_channels / g.group, kd_n = g.kernel[0], kh_n = g.kernel[1], kw_n = g.kernel[2];
  const int64_t k = cg * g.kernel_size(), positions = g.out_spatial(), plane = g.in_spatial();
  const int64_t ps = IgemmPanelStride(k), panels = IgemmPanels(positions);
  constexpr int64_t kRow = 2 * kIgemmPanel;  // values per pair row of a panel
  // Zeros where no patch value goes: the odd k's last half pair, the last panel's columns
  // past the output positions.
  if (k % 2 != 0) {
    for (int64_t q = 0; q < panels; ++q) {
      for (int64_t j = 0; j < kIgemmPanel; ++j) out[q * ps + (k / 2) * kRow + j * 2 + 1] = 0;
    }
  }
  if (positions % kIgemmPanel != 0) {
    int16_t* last = out + (panels - 1) * ps;
    for (int64_t p = 0; p < IgemmPairs(k); ++p) {
      for (int64_t j = positions % kIgemmPanel; j < kIgemmPanel; ++j)
        last[p * kRow + j * 2] = last[p * kRow + j * 2 + 1] = 0;
    }
  }
  const int64_t out_w = g.out[2];
  for (int64_t c = 0, kk = 0; c < cg; ++c) {
    const T* xc = x + c * plane;
    for (int64_t kd = 0; kd < kd_n; ++kd) {
      for (int64_t kh = 0; kh < kh_n; ++kh) {
        for (int64_t kw = 0; kw < kw_n; ++kw, ++kk) {
          int16_t* row = out + (kk / 2) * kRow + (kk % 2);
          auto put = [&](int64_t p, int16_t v) { row[(p / kIgemmPanel) * ps + (p % kIgemmPanel) * 2] = v; };
          // Output columns whose tap lies inside the row: lo <= ow < hi.
          const int64_t off = kw * g.dilation[2] - g.pad_begin[2], s = g.stride[2];
          const int64_t lo = std::min(out_w, off >= 0 ? 0 : (-off + s - 1) / s);
          const int64_t hi = std::max(lo, std::min(out_w, g.in[2] - off <= 0 ? 0 : (g.in[2] - off + s - 1) / s));
          for (int64_t od = 0, p = 0; od < g.out[0]; ++od) {
            const int64_t id = od * g.stride[0] + kd * g.dilation[0] - g.pad_begin[0];
            for (int64_t oh = 0; oh < g.out[1]; ++oh, p += out_w) {
              const int64_t ih = oh * g.stride[1] + kh * g.dilation[1] - g.pad_begin[1];
              if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
                for (int64_t ow = 0; ow < out_w; ++ow) put(p + ow, 0);
                continue;
              }
              const T* xr = xc + (id * g.in[1] + ih) * g.in[2] + off;
              for (int64_t ow = 0; ow < lo; ++ow) put(p + ow, 0);
              for (int64_t ow = lo; ow < hi; ++ow) put(p + ow, int16_t(int32_t(xr[ow * s]) - x_zp));
              for (int64_t ow = hi; ow < out_w; ++ow) put(p + ow, 0);
            }
          }
        }
      }
    }
  }
}

#define QRT_IGEMM_PACK(T)                                                                                            \
  template void IgemmRowsToInt16<T>(int64_t, int64_t, const T*, int64_t, int64_t, const int32_t*, int64_t, int16_t*, \
                                    int64_t);                                                                        \
  template void IgemmPackB<T>(int64_t, int64_t, const T*, int64_t, int64_t, const int32_t*, int64_t, int16_t*);      \
  template void IgemmPackIm2Col<T>(const ConvGeometry&, const T*, int32_t, int16_t*);
QRT_IGEMM_PACK(uint8_t)
QRT_IGEMM_PACK(int8_t)
#undef QRT_IGEMM_PACK

}  // namespace qrt
