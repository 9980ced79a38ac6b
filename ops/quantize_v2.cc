// qrt:QuantizeV2 (TensorFlow's QuantizeV2): the kernel of ops/kernels/quantize/quantize_v2.h;
// attributes and shapes checked in prepare.
#include "ops/kernels/quantize/quantize_v2.h"

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

// Input slots: x quantized over the range [min_range, max_range].
enum Input : int { kX = 0, kMinRange = 1, kMaxRange = 2, kInputCount = 3 };

Status RunQuantizeV2Op(const QuantizeV2Plan& plan, const RunArgs& a) {
  return RunQuantizeV2(plan, a.input(kX)->data<float>(), a.input(kMinRange)->data<float>(),
                       a.input(kMaxRange)->data<float>(), a.output(0)->raw(),
                       a.output(1) ? a.output(1)->data<float>() : nullptr,
                       a.output(2) ? a.output(2)->data<float>() : nullptr);
}

Status PrepareQuantizeV2Op(PrepareContext& ctx) {
  QuantizeV2Attrs attrs;
  QRT_ASSIGN_OR_RETURN(std::string t, ctx.attrs().GetString("T"));
  std::optional<DataType> T = ParseDataType(t);
  if (!T) return InvalidArgument("attribute 'T': unknown type '", t, "'");
  attrs.T = *T;
  QRT_ASSIGN_OR_RETURN(std::string mode, ctx.attrs().GetString("mode", std::string("MIN_COMBINED")));
  QRT_ASSIGN_OR_RETURN(attrs.mode, ParseQuantizeV2Mode(mode));
  QRT_ASSIGN_OR_RETURN(std::string round, ctx.attrs().GetString("round_mode", std::string("HALF_AWAY_FROM_ZERO")));
  QRT_ASSIGN_OR_RETURN(attrs.round_mode, ParseQuantizeV2RoundMode(round));
  QRT_ASSIGN_OR_RETURN(int64_t narrow, ctx.attrs().GetInt("narrow_range", 0));
  if (narrow != 0 && narrow != 1) return InvalidArgument("attribute 'narrow_range' must be 0 or 1");
  attrs.narrow_range = narrow == 1;
  QRT_ASSIGN_OR_RETURN(attrs.axis, ctx.attrs().GetInt("axis", -1));
  QRT_ASSIGN_OR_RETURN(attrs.ensure_minimum_range, ctx.attrs().GetFloat("ensure_minimum_range", 0.01f));
  QRT_ASSIGN_OR_RETURN(QuantizeV2Plan plan, PrepareQuantizeV2(attrs, InputDesc(ctx, kX), InputDesc(ctx, kMinRange),
                                                              InputDesc(ctx, kMaxRange), ctx.isa()));
  ctx.SetOutput(0, plan.attrs.T, plan.output_dims);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DataType::kFloat32, plan.output_min_dims);
  if (ctx.num_outputs() > 2) ctx.SetOutput(2, DataType::kFloat32, plan.output_min_dims);
  ctx.SetKernel<QuantizeV2Plan, RunQuantizeV2Op>(std::move(plan));
  return Status::Ok();
}

}  // namespace

const OpDef kQuantizeV2Op{"qrt", "QuantizeV2", kInputCount, kInputCount, 1, 3, PrepareQuantizeV2Op};

}  // namespace qrt
