// DynamicQuantizeLinear (uint8), exactly as ONNX defines it, in float32:
//   x_min = min(0, min(x)), x_max = max(0, max(x))
//   y_scale = (x_max - x_min) / 255
//   y_zero_point = saturate(rint(0 - x_min / y_scale))
//   y = saturate(rint(x / y_scale) + y_zero_point)
// rint rounds half to even; saturate clamps to [0, 255]. NaN elements take no part in
// the min and max. As in QuantizeLinear, a NaN quotient takes the lowest code, 0 (an
// all-zero input gives y_scale 0, zero point 0 and y 0) instead of undefined behaviour.
#include <cmath>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

uint8_t SaturateU8(float rounded, float zero_point) {
  const double v = double(rounded) + double(zero_point);
  return uint8_t(v >= 0.0 ? (v > 255.0 ? 255.0 : v) : 0.0);
}

Status RunDynamicQuantize(const RunArgs& args) {
  const Tensor& x = *args.input(0);
  const float* px = x.data<float>();
  const int64_t n = x.numel();
  float lo = 0.f, hi = 0.f;
  for (int64_t i = 0; i < n; ++i) {
    if (px[i] < lo) lo = px[i];
    if (px[i] > hi) hi = px[i];
  }
  const float scale = (hi - lo) / 255.f;
  const uint8_t zp = SaturateU8(std::nearbyint(0.f - lo / scale), 0.f);
  uint8_t* py = args.output(0)->data<uint8_t>();
  for (int64_t i = 0; i < n; ++i) py[i] = SaturateU8(std::nearbyint(px[i] / scale), float(zp));
  if (args.num_outputs > 1 && args.output(1)) args.output(1)->data<float>()[0] = scale;
  if (args.num_outputs > 2 && args.output(2)) args.output(2)->data<uint8_t>()[0] = zp;
  return Status::Ok();
}

Status PrepareDynamicQuantize(PrepareContext& ctx) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kFloat32}));
  ctx.SetOutput(0, DataType::kUInt8, ctx.input(0).dims);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DataType::kFloat32, {});
  if (ctx.num_outputs() > 2) ctx.SetOutput(2, DataType::kUInt8, {});
  ctx.SetKernel<RunDynamicQuantize>();
  return Status::Ok();
}

}  // namespace

const OpDef kDynamicQuantizeLinearOp{"", "DynamicQuantizeLinear", 1, 1, 1, 3, PrepareDynamicQuantize};

}  // namespace qrt
