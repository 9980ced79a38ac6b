// The float convolution's buffers (conv_float.cc), shared with its planner (conv_plan.cc), which
// sizes the caller's scratch from them. Padded rows: each input channel of a group as a
// zero-padded plane, split by column phase modulo the column stride, so that a kernel tap's
// inputs along an output row are contiguous. Patches: slices of the im2col matrix.
#pragma once

#include <algorithm>
#include <cstdint>

#include "ops/kernels/conv/conv_ref.h"

namespace qrt::conv_layout {

struct PaddedPlanes {
  int64_t height = 0, phase_width = 0, phases = 1;
  int64_t floats_per_channel() const { return phases * height * phase_width; }
};

inline PaddedPlanes PlanesOf(const ConvGeometry& g) {
  PaddedPlanes p;
  p.height = g.in[1] + g.pad_begin[1] + g.pad_end[1];
  const int64_t width = g.in[2] + g.pad_begin[2] + g.pad_end[2];
  p.phases = g.stride[2];
  p.phase_width = (width + p.phases - 1) / p.phases;
  return p;
}

// The window of rows (kPaddedRowsWindow): input rows are copied for the next kLead output rows
// too (a load that overlaps a store still in flight waits for it), and the window holds
// kWindowAhead output rows' worth before it slides.
constexpr int64_t kLead = 2, kWindowAhead = 16;

inline int64_t WindowRows(const ConvGeometry& g) {
  const int64_t extent = (g.kernel[1] - 1) * g.dilation[1] + 1;
  return std::min(g.in[1] + g.pad_begin[1] + g.pad_end[1], extent + (kLead + kWindowAhead) * g.stride[1]);
}

inline PaddedPlanes WindowOf(const ConvGeometry& g) {
  PaddedPlanes window = PlanesOf(g);
  window.height = WindowRows(g);
  return window;
}

// The distance between output rows in the planes' flat index, and the floats of the flat output
// buffer (kPaddedRowsFlat): every flat index up to the last output, the columns between rows
// included.
inline int64_t FlatRowStep(const ConvGeometry& g) { return g.stride[1] * PlanesOf(g).phase_width; }
inline int64_t FlatFloats(const ConvGeometry& g) { return (g.out[1] - 1) * FlatRowStep(g) + g.out[2]; }

// The patch matrix is built a slice of columns at a time, so its buffer stays bounded however
// large the image; columns are independent, so slicing changes no sum. Whole output rows per
// slice when a row of patches fits the budget, else single columns.
constexpr int64_t kMaxPatchFloats = int64_t(1) << 22;
inline int64_t PatchColumns(const ConvGeometry& g) {
  const int64_t k = std::max<int64_t>(1, g.reduction_size()), n = g.out_spatial(), width = g.out[2];
  if (k * width <= kMaxPatchFloats) return std::min(n, kMaxPatchFloats / (k * width) * width);
  return std::min(n, std::max<int64_t>(1, kMaxPatchFloats / k));
}

// A 3x3 depthwise convolution (one input and one output channel per group), dilation 1: what
// both depthwise kernels compute.
inline bool Is3x3Depthwise(const ConvGeometry& g) {
  return g.in_channels == g.group && g.out_channels == g.group && g.kernel[1] == 3 && g.kernel[2] == 3 &&
         g.dilation[1] == 1 && g.dilation[2] == 1;
}

}  // namespace qrt::conv_layout
