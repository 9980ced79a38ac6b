// qrt:FakeQuantize (OpenVINO's FakeQuantize, org.openvinotoolkit domain): the reference kernel
// of ops/kernels/quantize/fake_quantize.h; attributes and shapes checked in prepare.
#include "ops/kernels/quantize/fake_quantize.h"

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

// Input slots: x clamped to [input_low, input_high], quantized to `levels` levels, and mapped
// onto [output_low, output_high].
enum Input : int { kX = 0, kInputLow = 1, kInputHigh = 2, kOutputLow = 3, kOutputHigh = 4, kInputCount = 5 };

Status RunFakeQuantizeOp(const FakeQuantizePlan& plan, const RunArgs& a) {
  return RunFakeQuantize(plan, InputData(a, kX), InputData(a, kInputLow), InputData(a, kInputHigh),
                         InputData(a, kOutputLow), InputData(a, kOutputHigh), a.output(0)->raw());
}

Status PrepareFakeQuantizeOp(PrepareContext& ctx) {
  FakeQuantizeAttrs attrs;
  QRT_ASSIGN_OR_RETURN(attrs.levels, ctx.attrs().GetInt("levels"));
  QRT_ASSIGN_OR_RETURN(std::string bc, ctx.attrs().GetString("auto_broadcast", std::string("numpy")));
  QRT_ASSIGN_OR_RETURN(attrs.auto_broadcast, ParseAutoBroadcast(bc));
  QRT_ASSIGN_OR_RETURN(attrs.axis, ctx.attrs().GetInt("axis", -1));
  QRT_ASSIGN_OR_RETURN(
      FakeQuantizePlan plan,
      PrepareFakeQuantize(attrs, InputDesc(ctx, kX), InputDesc(ctx, kInputLow), InputDesc(ctx, kInputHigh),
                          InputDesc(ctx, kOutputLow), InputDesc(ctx, kOutputHigh), ctx.isa()));
  ctx.SetOutput(0, plan.dtype, plan.out_dims);
  ctx.SetKernel<FakeQuantizePlan, RunFakeQuantizeOp>(std::move(plan));
  return Status::Ok();
}

}  // namespace

const OpDef kFakeQuantizeOp{"qrt", "FakeQuantize", kInputCount, kInputCount, 1, 1, PrepareFakeQuantizeOp};

}  // namespace qrt
