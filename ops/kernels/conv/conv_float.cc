#include "ops/kernels/conv/conv_float.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/conv/conv_layout.h"
#include "runtime/parallel.h"

namespace qrt {
namespace {

using conv_layout::PaddedPlanes;
using conv_layout::PatchColumns;
using conv_layout::PlanesOf;
using conv_layout::WindowOf;

// Rows (c, kd, kh, kw) x columns [j0, j0 + cols) of the patch matrix of one group, one
// element at a time (any slice).
void PatchesByElement(const ConvGeometry& g, const float* x, int64_t j0, int64_t cols, float* out) {
  const int64_t channels = g.in_channels / g.group, plane = g.in_spatial();
  for (int64_t c = 0; c < channels; ++c) {
    const float* xc = x + c * plane;
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          int64_t ow = j0 % g.out[2], oh = (j0 / g.out[2]) % g.out[1], od = j0 / (g.out[2] * g.out[1]);
          for (int64_t j = 0; j < cols; ++j) {
            const int64_t id = od * g.stride[0] + kd * g.dilation[0] - g.pad_begin[0];
            const int64_t ih = oh * g.stride[1] + kh * g.dilation[1] - g.pad_begin[1];
            const int64_t iw = ow * g.stride[2] + kw * g.dilation[2] - g.pad_begin[2];
            const bool inside = id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2];
            *out++ = inside ? xc[(id * g.in[1] + ih) * g.in[2] + iw] : 0.f;
            if (++ow == g.out[2]) {
              ow = 0;
              if (++oh == g.out[1]) oh = 0, ++od;
            }
          }
        }
      }
    }
  }
}

// The same for a slice of whole output rows [j0, j0 + cols): each patch row is a strided
// copy of an input row with zeros at the edges.
void PatchesByRow(const ConvGeometry& g, const float* x, int64_t j0, int64_t cols, float* out) {
  const int64_t channels = g.in_channels / g.group, plane = g.in_spatial();
  const int64_t width = g.out[2], row0 = j0 / width, rows = cols / width;
  const int64_t sw = g.stride[2];
  for (int64_t c = 0; c < channels; ++c) {
    const float* xc = x + c * plane;
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          // Output columns [lo, hi) read inside the input row; the rest is padding.
          const int64_t iw0 = kw * g.dilation[2] - g.pad_begin[2];
          const int64_t lo = std::min(width, iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw);
          const int64_t last = g.in[2] - 1 - iw0;  // largest ow * sw that stays inside
          const int64_t hi = std::max(lo, std::min(width, last < 0 ? 0 : last / sw + 1));
          for (int64_t r = row0; r < row0 + rows; ++r, out += width) {
            const int64_t od = r / g.out[1], oh = r % g.out[1];
            const int64_t id = od * g.stride[0] + kd * g.dilation[0] - g.pad_begin[0];
            const int64_t ih = oh * g.stride[1] + kh * g.dilation[1] - g.pad_begin[1];
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
              std::fill(out, out + width, 0.f);
              continue;
            }
            const float* src = xc + (id * g.in[1] + ih) * g.in[2] + iw0;
            std::fill(out, out + lo, 0.f);
            if (sw == 1 && hi - lo >= 16) {
              std::memcpy(out + lo, src + lo, size_t(hi - lo) * sizeof(float));
            } else {  // strided, or too short to pay for a call
              for (int64_t ow = lo; ow < hi; ++ow) out[ow] = src[ow * sw];
            }
            std::fill(out + hi, out + width, 0.f);
          }
        }
      }
    }
  }
}

// ---- padded rows (one output channel per group, 2-D) --------------------------------

// Copies input row `ih` of one channel (`src`, in[2] floats) into padded row `row` of that
// channel's planes, split by column phase; the padding columns are not written.
void CopyRow(const ConvGeometry& g, const PaddedPlanes& p, const float* src, float* planes, int64_t row,
             SplitPairsFn split_pairs) {
  const int64_t width = g.in[2], left = g.pad_begin[2];
  if (p.phases == 1) {
    std::memcpy(planes + row * p.phase_width + left, src, size_t(width) * sizeof(float));
    return;
  }
  if (p.phases == 2) {  // stride 2, the common case: one pass that splits even and odd columns
    float* even = planes + ((left % 2) * p.height + row) * p.phase_width + left / 2;
    float* odd = planes + (((left + 1) % 2) * p.height + row) * p.phase_width + (left + 1) / 2;
    const int64_t pairs = width / 2;
    split_pairs(pairs, src, even, odd);
    if (width % 2) even[pairs] = src[width - 1];
    return;
  }
  for (int64_t phase = 0; phase < p.phases; ++phase) {
    // Padded columns col = iw + left with col % phases == phase, at col / phases.
    float* dst = planes + (phase * p.height + row) * p.phase_width;
    const int64_t first = ((phase - left) % p.phases + p.phases) % p.phases;  // first such iw
    float* d = dst + (first + left) / p.phases;  // consecutive iw of this phase: consecutive slots
    for (int64_t iw = first; iw < width; iw += p.phases) *d++ = src[iw];
  }
}

// One group's X, as floats or as codes (ConvInputCodes), from which input rows are copied into
// padded planes: codes are dequantized on the way (into `row`, one input row of floats, and
// copied from there only for strides above 2).
struct GroupInput {
  const float* x = nullptr;
  const ConvInputCodes* codes = nullptr;
  int64_t first = 0;     // the group's first element of the codes
  float* row = nullptr;  // in[2] floats

  // Input row `ih` of channel c into padded row `at` of that channel's planes.
  void CopyRowOf(const ConvGeometry& g, const PaddedPlanes& p, int64_t c, int64_t ih, float* planes, int64_t at,
                 SplitPairsFn split_pairs) const {
    const int64_t offset = (c * g.in[1] + ih) * g.in[2];
    if (codes == nullptr) {
      CopyRow(g, p, x + offset, planes, at, split_pairs);
      return;
    }
    const uint8_t* q = static_cast<const uint8_t*>(codes->codes) + first + offset;
    const int64_t width = g.in[2], left = g.pad_begin[2];
    if (p.phases == 1) {
      codes->dequantize.row(width, q, codes->scale, codes->zero_point, planes + at * p.phase_width + left);
    } else if (p.phases == 2) {  // as CopyRow's split, dequantized on the way
      float* even = planes + ((left % 2) * p.height + at) * p.phase_width + left / 2;
      float* odd = planes + (((left + 1) % 2) * p.height + at) * p.phase_width + (left + 1) / 2;
      const int64_t pairs = width / 2;
      codes->dequantize.pairs(pairs, q, codes->scale, codes->zero_point, even, odd);
      if (width % 2) codes->dequantize.row(1, q + width - 1, codes->scale, codes->zero_point, even + pairs);
    } else {
      codes->dequantize.row(width, q, codes->scale, codes->zero_point, row);
      CopyRow(g, p, row, planes, at, split_pairs);
    }
  }
};

// Copies X's channels into planes whose padding is already zero: only the input's own
// positions are written, so a buffer zeroed once can be refilled for every group of a layer.
void CopyIntoPlanes(const ConvGeometry& g, const PaddedPlanes& p, const GroupInput& x, int64_t channels, float* out,
                    SplitPairsFn split_pairs) {
  for (int64_t c = 0; c < channels; ++c) {
    float* planes = out + c * p.floats_per_channel();
    for (int64_t ih = 0; ih < g.in[1]; ++ih) x.CopyRowOf(g, p, c, ih, planes, ih + g.pad_begin[1], split_pairs);
  }
}

void BuildPlanes(const ConvGeometry& g, const PaddedPlanes& p, const float* x, int64_t channels, float* out,
                 SplitPairsFn split_pairs) {
  std::fill(out, out + channels * p.floats_per_channel(), 0.f);
  GroupInput input;
  input.x = x;
  CopyIntoPlanes(g, p, input, channels, out, split_pairs);
}

// The patch rows for output row 0 over the planes (BuildPlanes, CopyIntoPlanes) or a window of
// rows (WindowOf: the same layout, fewer rows), in (c, kh, kw) order:
// tap (kh, kw) of output (0, ow) is padded row kh * dh, column ow * sw + kw * dw, i.e. phase
// plane (kw * dw) % sw at slot ow + (kw * dw) / sw. Output row oh is oh * sh plane rows further.
int64_t TapCount(const ConvGeometry& g) { return g.in_channels / g.group * g.kernel[1] * g.kernel[2]; }

void TapRows(const ConvGeometry& g, const PaddedPlanes& p, const float* planes, const float** rows) {
  const int64_t channels = g.in_channels / g.group;
  size_t r = 0;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
      for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
        const int64_t col = kw * g.dilation[2];
        rows[r++] = planes + c * p.floats_per_channel() +
                    ((col % p.phases) * p.height + kh * g.dilation[1]) * p.phase_width + col / p.phases;
      }
    }
  }
}

// The padded rows of one group in a window of WindowRows(g) rows per channel and phase
// (kPaddedRowsWindow), for output rows computed one call each: each input row is copied in shortly
// before the first output row that reads it, so the copy and the reads stay in L1 instead of a
// whole padded plane passing through L2. When the window is full, the rows still needed move to
// its start. Same values at the same positions as the planes: the same products.

constexpr int64_t kEpilogueRows = 4;
using conv_layout::kLead;

int64_t WindowFloats(const ConvGeometry& g) { return g.in_channels / g.group * WindowOf(g).floats_per_channel(); }

// One group, output row by output row over the window (zeroed by the caller once per layer: the
// copies write only the input's positions, and padding rows are zeroed here); `first` is TapRows
// over the window.
void WindowRowsOfGroup(const ConvGeometry& g, const GroupInput& xg, const float* wg, const float* bias, float* yg,
                       const ConvFloatKernels& kernels, float* window_buffer, const float* const* first,
                       const OutputEpilogue* epilogue) {
  const PaddedPlanes window = WindowOf(g);
  const int64_t channels = g.in_channels / g.group, top = g.pad_begin[1];
  const int64_t extent = (g.kernel[1] - 1) * g.dilation[1] + 1;
  const int64_t tap_count = TapCount(g);
  const float** taps = ThreadScratchArray<const float*>(ScratchSlot::kConvWindowTaps, size_t(tap_count));
  const int64_t padded_rows = g.in[1] + top + g.pad_end[1];
  int64_t start = 0;  // the padded row at the window's row 0
  int64_t next = 0;   // the next padded row to bring in
  int64_t done = 0;   // output rows before it have had the epilogue
  for (int64_t oh = 0; oh < g.out[1]; ++oh) {
    const int64_t first_row = oh * g.stride[1];
    // This output row's rows, and those of the next kLead.
    const int64_t end_row = std::min(padded_rows, first_row + extent + kLead * g.stride[1]);
    for (int64_t row = std::max(next, first_row); row < end_row; ++row) {
      if (row - start >= window.height) {  // slide: rows [first_row, row) to the window's start
        for (int64_t plane = 0; plane < channels * window.phases; ++plane) {
          float* p = window_buffer + plane * window.height * window.phase_width;
          std::memmove(p, p + (first_row - start) * window.phase_width,
                       size_t((row - first_row) * window.phase_width) * sizeof(float));
        }
        start = first_row;
      }
      const int64_t at = row - start, ih = row - top;
      for (int64_t c = 0; c < channels; ++c) {
        float* planes = window_buffer + c * window.floats_per_channel();
        if (ih >= 0 && ih < g.in[1]) {
          xg.CopyRowOf(g, window, c, ih, planes, at, kernels.split_pairs);
        } else {
          for (int64_t phase = 0; phase < window.phases; ++phase) {
            std::fill_n(planes + (phase * window.height + at) * window.phase_width, window.phase_width, 0.f);
          }
        }
      }
      next = row + 1;
    }
    const int64_t shift = (first_row - start) * window.phase_width;
    for (int64_t t = 0; t < tap_count; ++t) taps[t] = first[t] + shift;
    kernels.one_row(tap_count, wg, taps, g.out[2], bias, yg + oh * g.out[2]);
    // The epilogue of the rows before this one, while they are in L1 (loads of the row just
    // stored would wait for its stores), kEpilogueRows at a time (one call a row cost more
    // than the rows: a 56-float row is four vectors).
    if (epilogue != nullptr && oh - done == kEpilogueRows) {
      epilogue->Apply(yg + done * g.out[2], kEpilogueRows * g.out[2], 0);
      done = oh;
    }
  }
  if (epilogue != nullptr) epilogue->Apply(yg + done * g.out[2], (g.out[1] - done) * g.out[2], 0);
}

// One group over whole padded planes; `planes` holds zeros at every padding position (the copy
// writes only the input's), and `first` is TapRows over it. Rows computed together (flat !=
// nullptr, FlatOutputFloats): tap k of output (oh, ow) reads first[k] + oh * row_step + ow, linear in the flat index
// oh * row_step + ow, so one call computes every flat index up to the last output; the
// row_step - out_w between rows are computed too (they read inside the planes) and dropped.
// Each output still gets its own products in its own order.
void PlaneRows(const ConvGeometry& g, const GroupInput& xg, const float* wg, const float* bias, float* yg,
               const ConvFloatKernels& kernels, float* planes, const float* const* first, float* flat,
               const OutputEpilogue* epilogue) {
  const PaddedPlanes p = PlanesOf(g);
  const int64_t channels = g.in_channels / g.group, taps = g.kernel[1] * g.kernel[2];
  CopyIntoPlanes(g, p, xg, channels, planes, kernels.split_pairs);
  const int64_t row_step = g.stride[1] * p.phase_width;
  if (flat != nullptr) {
    kernels.one_row(channels * taps, wg, first, conv_layout::FlatFloats(g), bias, flat);
    for (int64_t oh = 0; oh < g.out[1]; ++oh) {
      std::memcpy(yg + oh * g.out[2], flat + oh * row_step, size_t(g.out[2]) * sizeof(float));
    }
  } else {
    const float** rows = ThreadScratchArray<const float*>(ScratchSlot::kConvRows, size_t(channels * taps));
    for (int64_t oh = 0; oh < g.out[1]; ++oh) {
      for (int64_t i = 0; i < channels * taps; ++i) rows[i] = first[i] + oh * row_step;
      kernels.one_row(channels * taps, wg, rows, g.out[2], bias, yg + oh * g.out[2]);
    }
  }
  if (epilogue != nullptr) epilogue->Apply(yg, g.out_spatial(), 0);
}

// ---- small 3x3 depthwise planes, channels in the lanes (depthwise_lanes.h) -------------

// ---- small 3x3 depthwise planes, channels in the lanes (depthwise_lanes.h) -------------

void LanesGroups(const ConvGeometry& g, const float* x, const float* w, const float* b, float* y,
                 const ConvFloatKernels& kernels, int threads, const OutputEpilogue* epilogue,
                 const ConvInputCodes* x_codes, const ConvOutputCodes* y_codes) {
  constexpr int64_t kLanes = 16;
  const int64_t in_plane = g.in[1] * g.in[2], n = g.out[1] * g.out[2];
  const int64_t blocks = (g.group + kLanes - 1) / kLanes;
  for (int64_t image = 0; image < g.batch; ++image) {
    ParallelFor(threads, blocks, 1, 1, [&](int64_t first, int64_t last) {
      float* tile_in = ThreadScratchFloats(ScratchSlot::kConvTileIn, size_t(DepthwiseLanesTileIn(g.in[1], g.in[2])));
      float* tile_out = ThreadScratchFloats(ScratchSlot::kConvTileOut, size_t(n * kLanes));
      float* x_floats =
          x_codes != nullptr ? ThreadScratchFloats(ScratchSlot::kConvInputFloats, size_t(in_plane * kLanes)) : nullptr;
      float* y_floats =
          y_codes != nullptr ? ThreadScratchFloats(ScratchSlot::kConvOutputFloats, size_t(n * kLanes)) : nullptr;
      for (int64_t block = first; block < last; ++block) {
        const int64_t c0 = block * kLanes, channels = std::min(kLanes, g.group - c0);
        const int64_t x_offset = (image * g.group + c0) * in_plane, y_offset = (image * g.group + c0) * n;
        DepthwiseLanesArgs a;
        a.in_h = g.in[1], a.in_w = g.in[2], a.out_h = g.out[1], a.out_w = g.out[2];
        a.stride_h = g.stride[1], a.stride_w = g.stride[2], a.pad_top = g.pad_begin[1], a.pad_left = g.pad_begin[2];
        a.channels = int(channels);
        a.x_plane = in_plane, a.y_plane = n;
        if (x_codes != nullptr) {  // the block's planes (consecutive) to floats first
          x_codes->dequantize.row(channels * in_plane, static_cast<const uint8_t*>(x_codes->codes) + x_offset,
                                  x_codes->scale, x_codes->zero_point, x_floats);
          a.x = x_floats;
        } else {
          a.x = x + x_offset;
        }
        a.w = w + c0 * 9, a.bias = b != nullptr ? b + c0 : nullptr;
        a.y = y_codes != nullptr ? y_floats : y + y_offset;
        a.tile_in = tile_in, a.tile_out = tile_out;
        kernels.depthwise_lanes(a);
        if (epilogue == nullptr && y_codes == nullptr) continue;
        // The block's planes are consecutive: one call for all of them, unless a PRelu needs
        // each channel's slope.
        const bool per_channel = epilogue != nullptr && epilogue->slope != nullptr;
        for (int64_t c = 0; c < (per_channel ? channels : 1); ++c) {
          OutputEpilogue eg = epilogue != nullptr ? epilogue->FromRow(c0 + c) : OutputEpilogue();
          float* yc = a.y + c * n;
          if (y_codes != nullptr) {
            eg.codes = y_codes->At(y_offset + c * n, yc);
          }
          eg.Apply(yc, per_channel ? n : channels * n, 0);
        }
      }
    });
  }
}

// ---- larger 3x3 depthwise planes, a plane at a time (depthwise_rows.h) ------------------

void DepthwiseRowsGroups(const ConvGeometry& g, const float* x, const float* w, const float* b, float* y,
                         const ConvFloatKernels& kernels, int threads, const OutputEpilogue* epilogue,
                         const ConvInputCodes* x_codes, const ConvOutputCodes* y_codes) {
  const int64_t in_plane = g.in[1] * g.in[2], n = g.out[1] * g.out[2];
  const int64_t min_groups = std::max<int64_t>(1, (int64_t(1) << 18) / std::max<int64_t>(1, 9 * n));
  for (int64_t image = 0; image < g.batch; ++image) {
    ParallelFor(threads, g.group, 1, min_groups, [&](int64_t first, int64_t last) {
      // 64-byte aligned (as all thread scratch): the kernel's aligned taps then load within one
      // cache line.
      float* aligned_ring =
          ThreadScratchFloats(ScratchSlot::kConvRing, size_t(DepthwiseRowsRingFloats(g.out[2], g.stride[1])));
      DepthwiseRowsArgs a;
      a.in_h = g.in[1], a.in_w = g.in[2], a.out_h = g.out[1], a.out_w = g.out[2];
      a.stride = g.stride[1], a.pad_top = g.pad_begin[1], a.pad_left = g.pad_begin[2];
      if (x_codes != nullptr) {
        a.x_scale = x_codes->scale, a.x_zero_point = x_codes->zero_point, a.x_signed = x_codes->is_signed;
      }
      if (y_codes != nullptr) {
        a.y_scale = y_codes->scale, a.y_zero_point = y_codes->zero_point, a.y_signed = y_codes->is_signed;
      }
      a.ring = aligned_ring;
      for (int64_t group = first; group < last; ++group) {
        const int64_t x_offset = (image * g.group + group) * in_plane, y_offset = (image * g.group + group) * n;
        if (x_codes != nullptr)
          a.x_codes = static_cast<const uint8_t*>(x_codes->codes) + x_offset;
        else
          a.x = x + x_offset;
        a.w = w + group * 9, a.bias = b != nullptr ? b + group : nullptr;
        if (y_codes != nullptr)
          a.y_codes = static_cast<uint8_t*>(y_codes->codes) + y_offset;
        else
          a.y = y + y_offset;
        kernels.depthwise_rows(a);
        if (epilogue != nullptr) epilogue->FromRow(group).Apply(a.y, n, 0);
      }
    });
  }
}

// ---- planes (2-D): the patch matrix as row pointers ----------------------------------

// Patch row (c, kh, kw) is TapRows' pointer: consecutive ow are consecutive floats, and output
// row oh + 1 is sh plane rows further. So the GEMM takes B's rows as pointers with one segment
// per output row and packs them itself; no patch matrix is built. Same products in the same
// order as through im2col.
void PlanesGemm(const ConvGeometry& g, const float* xg, const float* wg, const float* bias, float* yg,
                const ConvFloatKernels& kernels, float* planes, int threads, const OutputEpilogue* epilogue) {
  const PaddedPlanes p = PlanesOf(g);
  const int64_t k = g.reduction_size();
  BuildPlanes(g, p, xg, g.in_channels / g.group, planes, kernels.split_pairs);
  const float** rows = ThreadScratchArray<const float*>(ScratchSlot::kConvRows, size_t(TapCount(g)));
  TapRows(g, p, planes, rows);
  SgemmArgs args;
  args.m = g.out_channels / g.group, args.n = g.out_spatial(), args.k = k;
  args.a = wg, args.lda = k;
  args.b_rows = rows;
  args.b_segment = g.out[2];
  args.b_segment_step = g.stride[1] * p.phase_width;
  args.c = yg, args.ldc = args.n;
  args.bias = bias;
  args.epilogue = epilogue;
  args.threads = threads;
  kernels.gemm(args);
}

// ---- gathered outputs (one output channel per group: 3-D, or padding too large to copy) ---

// One image, every group (one output channel each): for each output position, the input
// offsets of its K taps in (c, kd, kh, kw) order (-1 over padding) are found once and used for
// all groups; each output sums its products in the m == 1 group order of sgemm.h (groups of
// 4, 2, 1; each group sum added), then + bias.
void GatheredGroups(const ConvGeometry& g, const float* x, const float* w, const float* b, float* y) {
  const int64_t channels = g.in_channels / g.group, plane = g.in_spatial(), k = g.reduction_size();
  const int64_t n = g.out_spatial(), in_group = channels * plane;
  int64_t* offsets = ThreadScratchArray<int64_t>(ScratchSlot::kConvRows, size_t(k));
  int64_t o = 0;
  for (int64_t od = 0; od < g.out[0]; ++od) {
    for (int64_t oh = 0; oh < g.out[1]; ++oh) {
      for (int64_t ow = 0; ow < g.out[2]; ++ow, ++o) {
        size_t t = 0;
        for (int64_t c = 0; c < channels; ++c) {
          for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
            const int64_t id = od * g.stride[0] + kd * g.dilation[0] - g.pad_begin[0];
            for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
              const int64_t ih = oh * g.stride[1] + kh * g.dilation[1] - g.pad_begin[1];
              for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                const int64_t iw = ow * g.stride[2] + kw * g.dilation[2] - g.pad_begin[2];
                const bool inside = id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2];
                offsets[t++] = inside ? c * plane + (id * g.in[1] + ih) * g.in[2] + iw : -1;
              }
            }
          }
        }
        for (int64_t group = 0; group < g.group; ++group) {
          const float* xg = x + group * in_group;
          const float* wg = w + group * k;
          float sum = 0.f;
          for (int64_t p = 0; p < k;) {
            const int64_t left = k - p;
            const int64_t size = left >= 4 ? 4 : left >= 2 ? 2 : 1;
            float group_sum = 0.f;
            for (int64_t q = 0; q < size; ++q) {
              const int64_t at = offsets[p + q];
              const float product = wg[p + q] * (at >= 0 ? xg[at] : 0.f);
              group_sum = q == 0 ? product : group_sum + product;
            }
            sum = p == 0 ? group_sum : group_sum + sum;
            p += size;
          }
          y[group * n + o] = b != nullptr ? sum + b[group] : sum;
        }
      }
    }
  }
}

}  // namespace

ConvFloatKernels SelectConvFloatKernels(Isa isa) {
  return ConvFloatKernels{SelectSgemmKernel(isa), SelectSgemmOneRowKernel(isa), SelectSplitPairs(isa),
                          SelectDepthwiseLanes(isa), SelectDepthwiseRows(isa)};
}

ConvKernelsAvailable AvailableIn(const ConvFloatKernels& kernels) {
  return ConvKernelsAvailable{kernels.depthwise_lanes != nullptr, kernels.depthwise_rows != nullptr,
                              kernels.depthwise_rows == avx2::DepthwiseRows};
}

int64_t ConvFloatScratchFloats(const ConvGeometry& g) { return PlanConvFloat(g, {})->scratch_floats; }

bool ConvFloatHandlesCodes(const ConvGeometry& g) { return PlanConvFloat(g, {})->handles_codes(); }

void ConvFloatOrdered(const ConvGeometry& g, const float* x, const float* w, const float* b, float* y,
                      const ConvFloatKernels& kernels, float* scratch, int threads, const OutputEpilogue* epilogue,
                      const ConvInputCodes* x_codes, const ConvOutputCodes* y_codes) {
  ConvFloatOrdered(*PlanConvFloat(g, AvailableIn(kernels)), g, x, w, b, y, kernels, scratch, threads, epilogue, x_codes,
                   y_codes);
}

namespace {

// The padded-rows family's general paths: groups split across threads, each with its own buffer.
void PaddedRowsGroups(ConvAlgorithm algorithm, const ConvGeometry& g, const float* x, const float* w, const float* b,
                      float* y, const ConvFloatKernels& kernels, int threads, const OutputEpilogue* epilogue,
                      const ConvInputCodes* x_codes, const ConvOutputCodes* y_codes) {
  const int64_t k = g.reduction_size(), n = g.out_spatial();
  const int64_t in_group = g.in_channels / g.group * g.in_spatial();
  const bool window = algorithm == ConvAlgorithm::kPaddedRowsWindow;
  const bool flat = algorithm == ConvAlgorithm::kPaddedRowsFlat;
  const int64_t floats = window ? WindowFloats(g) : g.in_channels / g.group * PlanesOf(g).floats_per_channel();
  const int64_t min_groups = std::max<int64_t>(1, (int64_t(1) << 18) / std::max<int64_t>(1, k * n));
  for (int64_t image = 0; image < g.batch; ++image) {
    ParallelFor(threads, g.group, 1, min_groups, [&](int64_t first, int64_t last) {
      // Zeroed once: every group's copy writes the same positions, so the padding stays zero.
      float* buffer = ThreadScratchFloats(ScratchSlot::kConvPlanes, size_t(floats));
      std::fill(buffer, buffer + floats, 0.f);
      const float** taps = ThreadScratchArray<const float*>(ScratchSlot::kConvTaps, size_t(TapCount(g)));
      TapRows(g, window ? WindowOf(g) : PlanesOf(g), buffer, taps);
      float* flat_out =
          flat ? ThreadScratchFloats(ScratchSlot::kConvFlat, size_t(conv_layout::FlatFloats(g))) : nullptr;
      float* codes_row =
          x_codes != nullptr ? ThreadScratchFloats(ScratchSlot::kConvInputFloats, size_t(g.in[2])) : nullptr;
      float* plane_out = y_codes != nullptr ? ThreadScratchFloats(ScratchSlot::kConvOutputFloats, size_t(n)) : nullptr;
      for (int64_t group = first; group < last; ++group) {
        const int64_t offset = (image * g.group + group) * in_group;
        GroupInput xg;
        if (x_codes != nullptr)
          xg.codes = x_codes, xg.first = offset, xg.row = codes_row;
        else
          xg.x = x + offset;
        const float* bg = b != nullptr ? b + group : nullptr;
        const int64_t y_offset = (image * g.out_channels + group) * n;
        float* yg = y_codes != nullptr ? plane_out : y + y_offset;
        OutputEpilogue eg = epilogue != nullptr ? epilogue->FromRow(group) : OutputEpilogue();
        if (y_codes != nullptr) {  // quantized by the epilogue, a few rows at a time while in L1
          eg.codes = y_codes->At(y_offset, yg);
        }
        const OutputEpilogue* e = epilogue != nullptr || y_codes != nullptr ? &eg : nullptr;
        if (window)
          WindowRowsOfGroup(g, xg, w + group * k, bg, yg, kernels, buffer, taps, e);
        else
          PlaneRows(g, xg, w + group * k, bg, yg, kernels, buffer, taps, flat_out, e);
      }
    });
  }
}

// The GEMM paths (direct, direct transposed, patches): a GEMM per image and group.
void GemmGroups(ConvAlgorithm algorithm, const ConvGeometry& g, const float* x, const float* w, const float* b,
                float* y, const ConvFloatKernels& kernels, float* scratch, int threads,
                const OutputEpilogue* epilogue) {
  const int64_t m = g.out_channels / g.group, k = g.reduction_size(), n = g.out_spatial();
  const int64_t in_group = g.in_channels / g.group * g.in_spatial();
  const int64_t slice = algorithm == ConvAlgorithm::kPatches ? PatchColumns(g) : n;
  const bool by_row = slice % g.out[2] == 0;
  for (int64_t image = 0; image < g.batch; ++image) {
    for (int64_t group = 0; group < g.group; ++group) {
      const float* xg = x + (image * g.group + group) * in_group;
      float* yg = y + (image * g.out_channels + group * m) * n;
      SgemmArgs args;
      args.m = m;
      args.k = k;
      args.a = w + group * m * k;
      args.lda = k;
      args.ldc = n;
      args.rule_n = n;
      args.bias = b != nullptr ? b + group * m : nullptr;  // added after the sums
      const OutputEpilogue eg = epilogue != nullptr ? epilogue->FromRow(group * m) : OutputEpilogue();
      args.epilogue = epilogue != nullptr ? &eg : nullptr;
      args.threads = threads;
      if (algorithm == ConvAlgorithm::kDirect) {
        args.n = n, args.b = xg, args.ldb = n, args.c = yg;
        kernels.gemm(args);
      } else if (algorithm == ConvAlgorithm::kDirectTransposed) {
        args.n = 1, args.b = xg, args.ldb = k, args.trans_b = true, args.c = yg;
        kernels.gemm(args);
      } else {
        for (int64_t j0 = 0; j0 < n; j0 += slice) {
          const int64_t cols = std::min(slice, n - j0);
          if (by_row)
            PatchesByRow(g, xg, j0, cols, scratch);
          else
            PatchesByElement(g, xg, j0, cols, scratch);
          args.n = cols, args.b = scratch, args.ldb = cols, args.c = yg + j0;
          kernels.gemm(args);
        }
      }
    }
  }
}

}  // namespace

void ConvFloatOrdered(const ConvFloatPlan& plan, const ConvGeometry& g, const float* x, const float* w, const float* b,
                      float* y, const ConvFloatKernels& kernels, float* scratch, int threads,
                      const OutputEpilogue* epilogue, const ConvInputCodes* x_codes, const ConvOutputCodes* y_codes) {
  const int64_t m = g.out_channels / g.group, k = g.reduction_size(), n = g.out_spatial();
  const int64_t in_group = g.in_channels / g.group * g.in_spatial();
  switch (plan.algorithm) {
    case ConvAlgorithm::kDepthwiseLanes:
      LanesGroups(g, x, w, b, y, kernels, threads, epilogue, x_codes, y_codes);
      return;
    case ConvAlgorithm::kDepthwiseRows:
      DepthwiseRowsGroups(g, x, w, b, y, kernels, threads, epilogue, x_codes, y_codes);
      return;
    case ConvAlgorithm::kPaddedRows:
    case ConvAlgorithm::kPaddedRowsFlat:
    case ConvAlgorithm::kPaddedRowsWindow:
      PaddedRowsGroups(plan.algorithm, g, x, w, b, y, kernels, threads, epilogue, x_codes, y_codes);
      return;
    case ConvAlgorithm::kGatheredGroups:
      for (int64_t image = 0; image < g.batch; ++image) {
        float* yi = y + image * g.out_channels * n;
        GatheredGroups(g, x + image * g.in_channels * g.in_spatial(), w, b, yi);
        for (int64_t c = 0; c < g.out_channels && epilogue != nullptr; ++c) epilogue->Apply(yi + c * n, n, c);
      }
      return;
    case ConvAlgorithm::kPlanes:
      for (int64_t image = 0; image < g.batch; ++image) {
        for (int64_t group = 0; group < g.group; ++group) {
          const OutputEpilogue eg = epilogue != nullptr ? epilogue->FromRow(group * m) : OutputEpilogue();
          PlanesGemm(g, x + (image * g.group + group) * in_group, w + group * m * k,
                     b != nullptr ? b + group * m : nullptr, y + (image * g.out_channels + group * m) * n, kernels,
                     scratch, threads, epilogue != nullptr ? &eg : nullptr);
        }
      }
      return;
    case ConvAlgorithm::kReference:
      ref::ConvFloat(g, x, w, b, y);
      for (int64_t row = 0; row < g.batch * g.out_channels && epilogue != nullptr; ++row) {
        epilogue->Apply(y + row * n, n, row % g.out_channels);
      }
      return;
    case ConvAlgorithm::kDirect:
    case ConvAlgorithm::kDirectTransposed:
    case ConvAlgorithm::kPatches:
      GemmGroups(plan.algorithm, g, x, w, b, y, kernels, scratch, threads, epilogue);
      return;
    default:
      return;  // not a float algorithm: PlanConvFloat never plans one
  }
}

}  // namespace qrt
