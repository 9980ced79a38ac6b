// The 3x3 depthwise convolution (one input and one output channel per group, 2-D, dilation 1,
// strides 1 or 2) of 16 channels at a time with the channels in the vector lanes: their planes
// are transposed into one tile of 16-float positions, every output position is 9 products and
// their sums as 16-lane vectors, and the outputs are transposed back. Same products in the same
// order as the padded-rows path of conv_float.cc, which stays the specification (SgemmOneRow's
// order over the taps in (kh, kw) order: taps 0-3 summed left to right, then 4-7 and that sum
// added, then tap 8, then the bias; a tap over padding multiplies +0). For small planes (conv_float.cc
// picks them: up to 16 x 16, or 32 x 32 with stride 2), where the padded rows' cost per channel (a
// copy, a call per row or a flat row with its waste, the epilogue's call) outweighed the
// arithmetic: MobileNetV2's 14 x 14 and 7 x 7 layers ran at several times the bound of their 18
// float operations per 16 outputs. Larger planes, in bands of rows, ran slower than the padded rows.
#pragma once

#include <algorithm>
#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

struct DepthwiseLanesArgs {
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0;
  int channels = 16;         // 1 to 16 in this block
  const float* x = nullptr;  // channels planes of in_h x in_w, x_plane apart
  int64_t x_plane = 0;
  const float* w = nullptr;     // channels x 9
  const float* bias = nullptr;  // channels, or null
  float* y = nullptr;           // channels planes of out_h x out_w, y_plane apart
  int64_t y_plane = 0;
  float* tile_in = nullptr;   // (in_h + 2) x (in_w + 2) x 16 floats of scratch (DepthwiseLanesTileIn)
  float* tile_out = nullptr;  // out_h x out_w x 16 floats of scratch
};

using DepthwiseLanesFn = void (*)(const DepthwiseLanesArgs& a);

// Floats of tile_in for planes of in_h x in_w: room for a border of one position all round.
static inline int64_t DepthwiseLanesTileIn(int64_t in_h, int64_t in_w) { return (in_h + 2) * (in_w + 2) * 16; }

// Whether every tap lies within one position of X (pads of at most 1 on every side), so that a
// tile with a zero border gives every output its nine taps without a test: the border's zeros
// multiply as the padding's +0 do.
static inline bool DepthwiseLanesBordered(const DepthwiseLanesArgs& a) {
  return a.pad_top <= 1 && a.pad_left <= 1 && (a.out_h - 1) * a.stride_h - a.pad_top + 2 <= a.in_h &&
         (a.out_w - 1) * a.stride_w - a.pad_left + 2 <= a.in_w;
}

// The outputs along one direction whose three taps all lie inside X: [*lo, *hi), empty when none
// do. Static: the SIMD files include it, and share no inline copy with files built for other ISAs.
static inline void DepthwiseInsideRange(int64_t in, int64_t stride, int64_t pad, int64_t out, int64_t* lo,
                                        int64_t* hi) {
  *lo = std::min(out, (pad + stride - 1) / stride);
  *hi = std::max(*lo, std::min(out, in - 3 + pad >= 0 ? (in - 3 + pad) / stride + 1 : 0));
}

namespace ref {  // the specification, plain loops over depthwise_3x3.h (the tiles unused)
void DepthwiseLanes(const DepthwiseLanesArgs& a);
}
namespace avx512 {  // bit-identical to ref::
void DepthwiseLanes(const DepthwiseLanesArgs& a);
}
namespace avx2 {  // the same, each 16-channel position as two 8-lane halves
void DepthwiseLanes(const DepthwiseLanesArgs& a);
}

// The best kernel under the ceiling `isa`; null below AVX2 (the driver's padded rows are faster
// than the reference there).
DepthwiseLanesFn SelectDepthwiseLanes(Isa isa);

}  // namespace qrt
