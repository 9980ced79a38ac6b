// The 3x3 depthwise convolution (one input and one output channel per group, 2-D, dilation 1,
// the same stride of 1 or 2 both ways, padding of at most 1 at the top and left) of one plane,
// output row by output row, for the planes too large for the lanes kernel (depthwise_lanes.h).
// Same products in the same order as the padded-rows path of conv_float.cc, which stays the
// specification (SgemmOneRow's order over the taps in (kh, kw) order: taps 0-3 summed left to
// right, then 4-7 and that sum added, then tap 8, then the bias; a tap over padding multiplies
// +0).
//
// Why a kernel of its own: the padded rows' general path (a window of rows, a call of the
// one-row GEMM per output row over nine tap pointers, the epilogue's QuantizeLinear call every
// few rows) ran MobileNetV2's 56 x 56 and 112 x 112 depthwise layers at about three times the
// bound of their float operations. Here the input rows are dequantized (or copied) into a ring
// of eight padded rows a little ahead of the output rows that read them (a load overlapping a
// store still in flight waits for it), each output row reads its taps at fixed offsets of three
// ring rows, and its codes are quantized in registers as QuantizeLinear would quantize them.
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

struct DepthwiseRowsArgs {
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t stride = 1;                 // 1 or 2, both directions
  int64_t pad_top = 0, pad_left = 0;  // 0 or 1; padding past the input's end is implied by out_h, out_w
  // The input plane: floats, or 8-bit codes dequantized as DequantizeLinear computes them.
  const float* x = nullptr;
  const void* x_codes = nullptr;
  float x_scale = 1.f;
  int32_t x_zero_point = 0;
  bool x_signed = false;        // int8 codes, else uint8
  const float* w = nullptr;     // 9, (kh, kw) order
  const float* bias = nullptr;  // one, or null
  // The output plane: floats, or QuantizeLinear's codes of them (y_signed: int8, else uint8).
  float* y = nullptr;
  void* y_codes = nullptr;
  float y_scale = 1.f;
  int32_t y_zero_point = 0;
  bool y_signed = false;
  float* ring = nullptr;  // DepthwiseRowsRingFloats(out_w, stride) floats of scratch
};

using DepthwiseRowsFn = void (*)(const DepthwiseRowsArgs& a);

// The ring: eight padded rows of `stride` column phases, each phase as wide as the output's
// vectors read (and a vector more: loads past the row read its zeros). Static: the AVX-512 file
// includes them too, and shares no inline copy with files built for other ISAs.
constexpr int64_t kDepthwiseRowsSlots = 8;
static inline int64_t DepthwiseRowsPhaseWidth(int64_t out_w) { return (out_w + 15) / 16 * 16 + 16; }
static inline int64_t DepthwiseRowsRingFloats(int64_t out_w, int64_t stride) {
  return kDepthwiseRowsSlots * stride * DepthwiseRowsPhaseWidth(out_w);
}

namespace ref {  // the specification, plain loops over depthwise_3x3.h (`ring` unused)
void DepthwiseRows(const DepthwiseRowsArgs& a);
}
namespace avx512 {  // AVX512BW too (byte masks); bit-identical to ref::
void DepthwiseRows(const DepthwiseRowsArgs& a);
}
namespace avx2 {  // the same with 8-lane vectors
void DepthwiseRows(const DepthwiseRowsArgs& a);
}

// The AVX-512 kernel where the CPU has AVX512BW (and VBMI, the set qrt's byte kernels check),
// else the AVX2 one; null below AVX2: the driver's padded rows are faster than the reference
// there.
DepthwiseRowsFn SelectDepthwiseRows(Isa isa);

}  // namespace qrt
