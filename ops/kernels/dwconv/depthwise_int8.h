// The 3x3 depthwise convolution of qrt:ConvQuantizeDequantize from X's 8-bit codes to Y's codes,
// computed with 16-bit integers (AVX-512 VNNI's VPDPWSSD, AVX2's VPMADDWD), giving the codes the ordered float
// convolution (conv_float.h, SgemmOneRow's order over the taps) and QuantizeLinear give, which
// stay the specification. The same idea as the int8 pointwise convolution (conv_pointwise_int8.h),
// with a bound that needs no per-output norm: nine terms.
//
// Where it applies: a depthwise 3x3 convolution (one channel per group, 2-D, dilation 1, the same
// stride of 1 or 2 both ways, pads of at most 1 before), planes the lanes kernel does not take;
// X as codes (one scale, one zero point: x_k = fl(d_k s_x), d_k = q_k - zp), W on a signed 8-bit
// grid with zero point 0 (w_k = fl(e_k s_w), per tensor or per channel), a constant bias, and Y
// written as the codes of a constant output scale s_y.
//
// Why it is exact. Per output, with u = 2^-24, S = sum_k d_k e_k is exact in int32 (|S| <= 9 *
// 255 * 128), D = max |d| over X's range, P = s_x s_w sum_k |d_k e_k| <= s_x s_w D sum_k |e_k|:
//   - the reference's result y_ref: each term's product rounds once, x_k and w_k once each, and
//     each term meets at most six additions (three in its group of four, the group sums, tap 8,
//     the bias), so y_ref is within 9.01u P + 1.01u |b| of Z = s_x s_w S + b;
//   - the estimate t = fl(S * M + B), M = fl(fl(s_x s_w) * i), B = fl(b * i), i = fl(1 / s_y):
//     apart from its last rounding (u|t|, the step rule's margin), within (3.01u P + 2.01u|b|) /
//     s_y of Z / s_y.
//   So y_ref / s_y is within E / s_y of t, E = 16.2u (s_x s_w D sum_k |e_k| + |b|), a constant
//   per channel: the step rule proves an output where |t - rint(t)| < limit = 0.5 - 2^-13 - E /
//   s_y (rounded down), the 2^-13 (kStepMargin, conv/exact_int8_plan.h) covering t's last rounding
//   and the reference's fl(v / s_y) up to |t| = 2^9. A proven t is below 2^20 in magnitude (E >=
//   16u |Z|, and E / s_y < 0.5), beyond 2^9 only where t and y_ref / s_y both saturate (8-bit
//   steps lie within 255 of 0). Every other output (near a rounding boundary) is computed as the
//   reference computes it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ops/kernels/conv/conv_ref.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "runtime/cpu_features.h"
#include "runtime/quant_grid.h"

namespace qrt {

struct DepthwiseInt8Plan {
  int64_t channels = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t stride = 1, pad_top = 0, pad_left = 0;
  int64_t row_shorts = 0;  // int16 per padded row of the kernel's ring (as wide as its loads reach)
  // X's codes: d = q - x_zero_point; x = fl(d * x_scale).
  float x_scale = 1.f;
  int32_t x_zero_point = 0;
  bool x_signed = false;
  // Y's codes: QuantizeLinear(y, y_scale, y_zero_point) of y_signed's type.
  float y_scale = 1.f;
  int32_t y_zero_point = 0;
  bool y_signed = false;
  // Per channel: the weights as VPDPWSSD's pairs (e0 | e1 << 16, e2, e3 | e4 << 16, e5, e6 |
  // e7 << 16, e8: taps (kh, 0) and (kh, 1) in one pair, (kh, 2) alone), their floats and the
  // bias (0 without one, has_bias false) for the outputs recomputed, and the step rule's M, B
  // and limit.
  std::vector<int32_t> pairs;  // channels x 6
  std::vector<float> weights;  // channels x 9
  std::vector<float> bias;
  bool has_bias = false;
  std::vector<float> multipliers, offsets, limits;
};

// The plan for geometry g with constant float weights w (on w_grid) and bias (nullable), X's
// codes on x_grid, Y's codes of y_type at (y_scale, y_zero_point); null where it does not apply
// (or where no output could be proven).
std::shared_ptr<const DepthwiseInt8Plan> PlanDepthwiseInt8(const ConvGeometry& g, const float* w,
                                                           const QuantGrid& w_grid, const float* bias,
                                                           const QuantGrid& x_grid, float y_scale, int32_t y_zero_point,
                                                           DataType y_type);

// One channel's plane of codes x to codes y; ring: kDepthwiseInt8RingRows * plan.row_shorts int16
// of 64-byte aligned scratch.
using DepthwiseInt8PlaneFn = void (*)(const DepthwiseInt8Plan& plan, int64_t c, const uint8_t* x, uint8_t* y,
                                      int16_t* ring);

// The kernel under the ceiling `isa` (AVX-512 VNNI with BW and DQ, else AVX2); null below AVX2.
DepthwiseInt8PlaneFn SelectDepthwiseInt8(Isa isa = kIsaAuto);
// A kernel is there.
bool DepthwiseInt8Available(Isa isa = kIsaAuto);

// batch images of codes x (channels planes each) to codes y with `plane`, on up to `threads`
// threads.
void ConvDepthwiseInt8(const DepthwiseInt8Plan& plan, DepthwiseInt8PlaneFn plane, const void* x, void* y, int64_t batch,
                       int threads);

// Padded rows in the kernel's ring (3 + 2 * 2 read or brought in ahead at stride 2 fit).
constexpr int64_t kDepthwiseInt8RingRows = 8;

namespace ref {
// The specification of avx512::DepthwiseInt8Plane: channel c's plane of codes dequantized as
// DequantizeLinear computes them, convolved as depthwise_3x3.h computes each output with the
// plan's float weights and bias, and quantized as QuantizeLinear does.
void DepthwiseInt8Plane(const DepthwiseInt8Plan& plan, int64_t c, const uint8_t* x, uint8_t* y);
}  // namespace ref

// Channel c's plane, bit-identical to ref::DepthwiseInt8Plane.
namespace avx2 {
void DepthwiseInt8Plane(const DepthwiseInt8Plan& plan, int64_t c, const uint8_t* x, uint8_t* y, int16_t* ring);
}  // namespace avx2
namespace avx512 {
void DepthwiseInt8Plane(const DepthwiseInt8Plan& plan, int64_t c, const uint8_t* x, uint8_t* y, int16_t* ring);
}  // namespace avx512

}  // namespace qrt
