// Plan time and driver of the exact int8 depthwise convolution (depthwise_int8.h).
#include "ops/kernels/dwconv/depthwise_int8.h"

#include <algorithm>
#include <cmath>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/conv/exact_int8_plan.h"
#include "runtime/kernel_isa.h"
#include "runtime/parallel.h"

namespace qrt {

DepthwiseInt8PlaneFn SelectDepthwiseInt8(Isa isa) {
  if (CanUseAvx512Vnni(isa)) return PickedAt(Isa::kAvx512Vnni, avx512::DepthwiseInt8Plane);
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::DepthwiseInt8Plane) : nullptr;
}

bool DepthwiseInt8Available(Isa isa) { return CanUseAvx2(isa); }

std::shared_ptr<const DepthwiseInt8Plan> PlanDepthwiseInt8(const ConvGeometry& g, const float* w,
                                                           const QuantGrid& w_grid, const float* bias,
                                                           const QuantGrid& x_grid, float y_scale, int32_t y_zero_point,
                                                           DataType y_type) {
  const int64_t channels = g.out_channels;
  if (g.group != channels || g.in_channels != channels || g.kernel[0] != 1 || g.in[0] != 1 || g.out[0] != 1 ||
      g.kernel[1] != 3 || g.kernel[2] != 3 || g.dilation[1] != 1 || g.dilation[2] != 1 || g.stride[1] != g.stride[2] ||
      g.stride[1] < 1 || g.stride[1] > 2 || g.pad_begin[1] > 1 || g.pad_begin[2] > 1 || g.out[1] < 1 || g.out[2] < 1) {
    return nullptr;
  }
  bool per_channel = false;
  if (!OneScaleGrid(x_grid) || !SymmetricWeightGrid(w_grid, channels, &per_channel)) return nullptr;
  if (!UsableStepScale(y_scale)) return nullptr;
  if (y_type != DataType::kUInt8 && y_type != DataType::kInt8) return nullptr;
  auto plan = std::make_shared<DepthwiseInt8Plan>();
  DepthwiseInt8Plan& p = *plan;
  p.channels = channels;
  p.in_h = g.in[1], p.in_w = g.in[2], p.out_h = g.out[1], p.out_w = g.out[2];
  p.stride = g.stride[1], p.pad_top = g.pad_begin[1], p.pad_left = g.pad_begin[2];
  // Stride 1 reads 32 outputs' dwords from element j + 3, stride 2 16 outputs' from 2j + 2: a
  // row reaches 35 (34) elements past the output's last full step; 64 more keep every row 64
  // bytes aligned and hold the input (at most out_w * stride + 2 wide with its padding).
  p.row_shorts = (p.stride == 1 ? (p.out_w + 31) / 32 * 32 : 2 * ((p.out_w + 15) / 16 * 16)) + 64;
  p.x_scale = x_grid.scales[0];
  p.x_zero_point = x_grid.zero_points[0];
  p.x_signed = x_grid.type == DataType::kInt8;
  const int32_t low = p.x_signed ? -128 : 0;
  const double most_d = std::max(p.x_zero_point - low, low + 255 - p.x_zero_point);
  p.y_scale = y_scale, p.y_zero_point = y_zero_point, p.y_signed = y_type == DataType::kInt8;
  p.has_bias = bias != nullptr;
  const float inverse = 1.f / y_scale;
  const double margin = 0.5 - kStepMargin;
  for (int64_t c = 0; c < channels; ++c) {
    const float s = w_grid.scales[per_channel ? size_t(c) : 0];
    const float* row = w + c * 9;
    uint8_t e[9];
    if (!CodesOnGrid(row, 9, s, 1.f / s, 0, DataType::kInt8, e)) return nullptr;
    int64_t magnitude = 0;
    for (uint8_t b : e) magnitude += std::abs(int(int8_t(b)));
    for (int kh = 0; kh < 3; ++kh) {
      const int32_t e0 = int8_t(e[3 * kh]), e1 = int8_t(e[3 * kh + 1]), e2 = int8_t(e[3 * kh + 2]);
      p.pairs.push_back(int32_t(uint32_t(uint16_t(int16_t(e0))) | uint32_t(uint16_t(int16_t(e1))) << 16));
      p.pairs.push_back(int32_t(uint16_t(int16_t(e2))));
    }
    p.weights.insert(p.weights.end(), row, row + 9);
    const float b = bias != nullptr ? bias[c] : 0.f;
    if (!std::isfinite(b)) return nullptr;
    p.bias.push_back(b);
    const float m = p.x_scale * s;
    p.multipliers.push_back(m * inverse);
    p.offsets.push_back(b * inverse);
    // E / s_y in double from floats (relative error ~2^-50), pushed up by 2^-20, rounded up.
    const double reach = 16.2 * std::ldexp(1.0, -24) * (double(m) * most_d * double(magnitude) + std::fabs(double(b))) *
                         double(inverse) * (1 + std::ldexp(1.0, -20));
    p.limits.push_back(RoundDown(margin - double(RoundUp(reach))));
    if (!std::isfinite(p.multipliers.back()) || !std::isfinite(p.offsets.back()) || !std::isfinite(p.limits.back()) ||
        !(p.limits.back() > 0.f)) {
      return nullptr;
    }
  }
  return plan;
}

void ConvDepthwiseInt8(const DepthwiseInt8Plan& p, DepthwiseInt8PlaneFn plane, const void* x, void* y, int64_t batch,
                       int threads) {
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  const int64_t min_channels = std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, out_plane));
  for (int64_t n = 0; n < batch; ++n) {
    ParallelFor(threads, p.channels, 1, min_channels, [&](int64_t first, int64_t last) {
      auto* ring = static_cast<int16_t*>(
          ThreadScratch(ScratchSlot::kDepthwiseRing, size_t(kDepthwiseInt8RingRows * p.row_shorts) * sizeof(int16_t)));
      for (int64_t c = first; c < last; ++c) {
        const int64_t at = n * p.channels + c;
        plane(p, c, static_cast<const uint8_t*>(x) + at * in_plane, static_cast<uint8_t*>(y) + at * out_plane, ring);
      }
    });
  }
}

}  // namespace qrt
