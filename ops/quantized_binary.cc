// qrt:QuantizedMul and qrt:QuantizedAdd (Simd's SynetQuantizedMul, generalized), and
// com.microsoft QLinearMul / QLinearAdd, which load as the same kernels with requantize =
// combined (ONNX Runtime's rule): ops/kernels/qbinary/quantized_binary.h.
#include "ops/kernels/qbinary/quantized_binary.h"

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

Status RunQuantizedBinaryOp(const QuantizedBinaryPlan& plan, const RunArgs& a) {
  QuantizedBinaryData d;
  d.a = InputData(a, 0);
  d.a_scale = static_cast<const float*>(InputData(a, 1));
  d.a_zero_point = InputData(a, 2);
  d.b = InputData(a, 3);
  d.b_scale = static_cast<const float*>(InputData(a, 4));
  d.b_zero_point = InputData(a, 5);
  d.c_scale = static_cast<const float*>(InputData(a, 6));
  d.c_zero_point = InputData(a, 7);
  d.c = a.output(0)->raw();
  return RunQuantizedBinary(plan, d);
}

StatusOr<QuantizedBinaryAttrs> ReadQuantizedBinaryAttrs(const PrepareContext& ctx, bool ort_contrib) {
  QuantizedBinaryAttrs attrs;
  if (ort_contrib) {
    attrs.requantize = Requantize::kCombined;
    return attrs;
  }
  QRT_ASSIGN_OR_RETURN(std::string rule, ctx.attrs().GetString("requantize", std::string("reciprocal")));
  QRT_ASSIGN_OR_RETURN(attrs.requantize, ParseRequantize(rule));
  if (ctx.attrs().Has("output_dtype")) {
    QRT_ASSIGN_OR_RETURN(std::string t, ctx.attrs().GetString("output_dtype"));
    std::optional<DataType> dt = ParseDataType(t);
    if (!dt) return InvalidArgument("attribute 'output_dtype': unknown type '", t, "'");
    attrs.output_dtype = *dt;
  }
  if (ctx.attrs().Has("A_axis")) {
    QRT_ASSIGN_OR_RETURN(int64_t ax, ctx.attrs().GetInt("A_axis"));
    attrs.a_axis = ax;
  }
  if (ctx.attrs().Has("B_axis")) {
    QRT_ASSIGN_OR_RETURN(int64_t ax, ctx.attrs().GetInt("B_axis"));
    attrs.b_axis = ax;
  }
  return attrs;
}

template <QuantizedBinaryOp kOp, bool kOrtContrib>
Status PrepareQuantizedBinaryOp(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(QuantizedBinaryAttrs attrs, ReadQuantizedBinaryAttrs(ctx, kOrtContrib));
  QuantizedBinaryDescs in{InputDesc(ctx, 0), InputDesc(ctx, 1), InputDesc(ctx, 2), InputDesc(ctx, 3),
                          InputDesc(ctx, 4), InputDesc(ctx, 5), InputDesc(ctx, 6), InputDesc(ctx, 7)};
  QRT_ASSIGN_OR_RETURN(QuantizedBinaryPlan plan, kOp == QuantizedBinaryOp::kMul
                                                     ? PrepareQuantizedMul(attrs, in, ctx.isa())
                                                     : PrepareQuantizedAdd(attrs, in, ctx.isa()));
  ctx.SetOutput(0, plan.c_dtype, plan.out_dims);
  plan.threads = ctx.threads();
  ctx.SetKernel<QuantizedBinaryPlan, RunQuantizedBinaryOp>(std::move(plan));
  return Status::Ok();
}

}  // namespace

const OpDef kQuantizedMulOp{
    "qrt", "QuantizedMul", 7, 8, 1, 1, PrepareQuantizedBinaryOp<QuantizedBinaryOp::kMul, false>};
const OpDef kQuantizedAddOp{
    "qrt", "QuantizedAdd", 7, 8, 1, 1, PrepareQuantizedBinaryOp<QuantizedBinaryOp::kAdd, false>};
const OpDef kQLinearMulOp{
    "com.microsoft", "QLinearMul", 7, 8, 1, 1, PrepareQuantizedBinaryOp<QuantizedBinaryOp::kMul, true>};
const OpDef kQLinearAddOp{
    "com.microsoft", "QLinearAdd", 7, 8, 1, 1, PrepareQuantizedBinaryOp<QuantizedBinaryOp::kAdd, true>};

}  // namespace qrt
