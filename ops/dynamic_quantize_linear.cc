// DynamicQuantizeLinear (uint8), exactly as ONNX defines it, in float32:
//   x_min = min(0, min(x)), x_max = max(0, max(x))
//   y_scale = (x_max - x_min) / 255
//   y_zero_point = saturate(rint(0 - x_min / y_scale))
//   y = saturate(rint(x / y_scale) + y_zero_point)
// rint rounds half to even; saturate clamps to [0, 255]. NaN elements take no part in
// the min and max. As in QuantizeLinear, a NaN quotient takes the lowest code, 0 (an
// all-zero input gives y_scale 0, zero point 0 and y 0) instead of undefined behaviour.
//
// Two passes over x, as few as the definition allows (the range must be known before the first
// element is quantized): the range (ops/kernels/quantize/min_max.h), then QuantizeLinear's uint8
// kernel with that scale and zero point (quantize_linear.h: the same formula, bit for bit).
#include <cmath>

#include "ops/kernels/quantize/min_max.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct DynamicQuantizeState {
  RangeWithZeroFn range;
  QuantizeF32Fn quantize;
};

Status RunDynamicQuantize(const DynamicQuantizeState& s, const RunArgs& args) {
  const Tensor& x = *args.input(0);
  const float* px = x.data<float>();
  const int64_t n = x.numel();
  float lo, hi;
  s.range(n, px, &lo, &hi);
  const float scale = (hi - lo) / 255.f;
  const float zp_real = std::nearbyint(0.f - lo / scale);  // in [0, 255], or NaN when scale is 0
  const uint8_t zp = zp_real >= 0.f ? uint8_t(zp_real > 255.f ? 255.f : zp_real) : 0;
  s.quantize(n, px, scale, zp, args.output(0)->data<uint8_t>());
  if (args.num_outputs > 1 && args.output(1)) args.output(1)->data<float>()[0] = scale;
  if (args.num_outputs > 2 && args.output(2)) args.output(2)->data<uint8_t>()[0] = zp;
  return Status::Ok();
}

Status PrepareDynamicQuantize(PrepareContext& ctx) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kFloat32}));
  ctx.SetOutput(0, DataType::kUInt8, ctx.input(0).dims);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DataType::kFloat32, {});
  if (ctx.num_outputs() > 2) ctx.SetOutput(2, DataType::kUInt8, {});
  ctx.SetKernel<DynamicQuantizeState, RunDynamicQuantize>(
      {SelectRangeWithZero(ctx.isa()), SelectQuantizeF32(DataType::kUInt8, ctx.isa())});
  return Status::Ok();
}
}  // namespace

const OpDef kDynamicQuantizeLinearOp{"", "DynamicQuantizeLinear", 1, 1, 1, 3, PrepareDynamicQuantize};

}  // namespace qrt
