// qrt:FakeQuantize (OpenVINO's FakeQuantize, org.openvinotoolkit domain): the reference kernel
// of ops/kernels/quantize/fake_quantize.h; attributes and shapes checked in prepare.
#include "ops/kernels/quantize/fake_quantize.h"

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

Status RunFakeQuantizeOp(const FakeQuantizePlan& plan, const RunArgs& a) {
  return RunFakeQuantize(plan, InputData(a, 0), InputData(a, 1), InputData(a, 2), InputData(a, 3), InputData(a, 4),
                         a.output(0)->raw());
}

Status PrepareFakeQuantizeOp(PrepareContext& ctx) {
  FakeQuantizeAttrs attrs;
  QRT_ASSIGN_OR_RETURN(attrs.levels, ctx.attrs().GetInt("levels"));
  QRT_ASSIGN_OR_RETURN(std::string bc, ctx.attrs().GetString("auto_broadcast", std::string("numpy")));
  QRT_ASSIGN_OR_RETURN(attrs.auto_broadcast, ParseAutoBroadcast(bc));
  QRT_ASSIGN_OR_RETURN(attrs.axis, ctx.attrs().GetInt("axis", -1));
  QRT_ASSIGN_OR_RETURN(FakeQuantizePlan plan,
                       PrepareFakeQuantize(attrs, InputDesc(ctx, 0), InputDesc(ctx, 1), InputDesc(ctx, 2),
                                           InputDesc(ctx, 3), InputDesc(ctx, 4), ctx.isa()));
  ctx.SetOutput(0, plan.dtype, plan.out_dims);
  ctx.SetKernel<FakeQuantizePlan, RunFakeQuantizeOp>(std::move(plan));
  return Status::Ok();
}

}  // namespace

const OpDef kFakeQuantizeOp{"qrt", "FakeQuantize", 5, 5, 1, 1, PrepareFakeQuantizeOp};

}  // namespace qrt
