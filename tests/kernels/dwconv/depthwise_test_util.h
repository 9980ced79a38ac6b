// The 3x3 depthwise geometries shared by the depthwise kernels' tests.
#pragma once

#include <cstdint>
#include <string>

#include "ops/kernels/conv/conv_ref.h"
#include "ops/kernels/quantize/quantize_linear.h"

namespace qrt::testing {

// An input plane h x w, one stride both ways, and pads (top, left, bottom, right).
struct DepthwiseShape {
  int64_t h, w, stride, top, left, bottom, right;
};

// An 8-bit code type with QuantizeLinear's and DequantizeLinear's reference kernels, and zero
// points at its ends and between.
struct CodeType {
  DataType type;
  QuantizeF32Fn quantize;
  DequantizeToF32Fn dequantize;
  int32_t zero_points[3];
};
inline const CodeType kCodeTypes[] = {{DataType::kUInt8, ref::QuantizeF32ToU8, ref::DequantizeU8ToF32, {0, 131, 255}},
                                      {DataType::kInt8, ref::QuantizeF32ToS8, ref::DequantizeS8ToF32, {-128, 3, 127}}};

inline ConvGeometry DepthwiseOf(const DepthwiseShape& s, int64_t channels, int64_t batch) {
  ConvGeometry g;
  g.batch = batch, g.in_channels = g.out_channels = g.group = channels;
  g.in[1] = s.h, g.in[2] = s.w;
  g.kernel[1] = g.kernel[2] = 3;
  g.stride[1] = g.stride[2] = s.stride;
  g.pad_begin[1] = s.top, g.pad_begin[2] = s.left, g.pad_end[1] = s.bottom, g.pad_end[2] = s.right;
  g.out[1] = (s.h + s.top + s.bottom - 3) / s.stride + 1;
  g.out[2] = (s.w + s.left + s.right - 3) / s.stride + 1;
  return g;
}

inline std::string Describe(const DepthwiseShape& s) {
  return std::to_string(s.h) + "x" + std::to_string(s.w) + " s" + std::to_string(s.stride) + " pads " +
         std::to_string(s.top) + "," + std::to_string(s.left) + "," + std::to_string(s.bottom) + "," +
         std::to_string(s.right);
}

}  // namespace qrt::testing
