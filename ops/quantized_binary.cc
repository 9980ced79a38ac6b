// qrt:QuantizedMul and qrt:QuantizedAdd (Simd's SynetQuantizedMul, generalized), and
// com.microsoft QLinearMul / QLinearAdd, which load as the same kernels with requantize =
// combined (ONNX Runtime's rule): ops/kernels/qbinary/quantized_binary.h.
#include "ops/quantized_binary.h"

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

Status RunQuantizedBinaryOp(const QuantizedBinaryPlan& plan, const RunArgs& a) {
  QuantizedBinaryData d;
  d.a = InputData(a, qbin::kA);
  d.a_scale = static_cast<const float*>(InputData(a, qbin::kAScale));
  d.a_zero_point = InputData(a, qbin::kAZeroPoint);
  d.b = InputData(a, qbin::kB);
  d.b_scale = static_cast<const float*>(InputData(a, qbin::kBScale));
  d.b_zero_point = InputData(a, qbin::kBZeroPoint);
  d.c_scale = static_cast<const float*>(InputData(a, qbin::kCScale));
  d.c_zero_point = InputData(a, qbin::kCZeroPoint);
  d.c = a.output(0)->raw();
  return RunQuantizedBinary(plan, d);
}

template <QuantizedBinaryOp kOp, bool kOrtContrib>
Status PrepareQuantizedBinaryOp(PrepareContext& ctx) {
  QuantizedBinaryAttrs attrs;
  if (kOrtContrib) {
    attrs.requantize = Requantize::kCombined;  // ONNX Runtime's rule; the contrib ops have no attributes
  } else {
    QRT_ASSIGN_OR_RETURN(attrs, QuantizedBinaryAttrsFrom(ctx.attrs()));
  }
  QuantizedBinaryDescs in{InputDesc(ctx, qbin::kA),          InputDesc(ctx, qbin::kAScale),
                          InputDesc(ctx, qbin::kAZeroPoint), InputDesc(ctx, qbin::kB),
                          InputDesc(ctx, qbin::kBScale),     InputDesc(ctx, qbin::kBZeroPoint),
                          InputDesc(ctx, qbin::kCScale),     InputDesc(ctx, qbin::kCZeroPoint)};
  QRT_ASSIGN_OR_RETURN(QuantizedBinaryPlan plan, kOp == QuantizedBinaryOp::kMul
                                                     ? PrepareQuantizedMul(attrs, in, ctx.isa())
                                                     : PrepareQuantizedAdd(attrs, in, ctx.isa()));
  ctx.SetOutput(0, plan.c_dtype, plan.out_dims);
  plan.threads = ctx.threads();
  ctx.SetKernel<QuantizedBinaryPlan, RunQuantizedBinaryOp>(std::move(plan));
  return Status::Ok();
}

}  // namespace

Attributes ToAttributes(const QuantizedBinaryAttrs& attrs) {
  Attributes out;
  if (attrs.requantize != QuantizedBinaryAttrs{}.requantize) {
    out.Set("requantize", std::string(RequantizeName(attrs.requantize)));
  }
  if (attrs.output_dtype != DataType::kUndefined)
    out.Set("output_dtype", std::string(DataTypeName(attrs.output_dtype)));
  if (attrs.a_axis) out.Set("A_axis", *attrs.a_axis);
  if (attrs.b_axis) out.Set("B_axis", *attrs.b_axis);
  return out;
}

StatusOr<QuantizedBinaryAttrs> QuantizedBinaryAttrsFrom(const Attributes& in) {
  QuantizedBinaryAttrs attrs;
  QRT_ASSIGN_OR_RETURN(std::string rule, in.GetString("requantize", std::string(RequantizeName(attrs.requantize))));
  QRT_ASSIGN_OR_RETURN(attrs.requantize, ParseRequantize(rule));
  if (in.Has("output_dtype")) {
    QRT_ASSIGN_OR_RETURN(std::string t, in.GetString("output_dtype"));
    std::optional<DataType> dt = ParseDataType(t);
    if (!dt) return InvalidArgument("attribute 'output_dtype': unknown type '", t, "'");
    attrs.output_dtype = *dt;
  }
  for (auto [name, axis] : {std::pair{"A_axis", &attrs.a_axis}, std::pair{"B_axis", &attrs.b_axis}}) {
    if (!in.Has(name)) continue;
    QRT_ASSIGN_OR_RETURN(int64_t ax, in.GetInt(name));
    *axis = ax;
  }
  return attrs;
}

const OpDef kQuantizedMulOp{"qrt",
                            "QuantizedMul",
                            qbin::kCScale + 1,
                            qbin::kInputCount,
                            1,
                            1,
                            PrepareQuantizedBinaryOp<QuantizedBinaryOp::kMul, false>};
const OpDef kQuantizedAddOp{"qrt",
                            "QuantizedAdd",
                            qbin::kCScale + 1,
                            qbin::kInputCount,
                            1,
                            1,
                            PrepareQuantizedBinaryOp<QuantizedBinaryOp::kAdd, false>};
const OpDef kQLinearMulOp{
    "com.microsoft", "QLinearMul", 7, 8, 1, 1, PrepareQuantizedBinaryOp<QuantizedBinaryOp::kMul, true>};
const OpDef kQLinearAddOp{
    "com.microsoft", "QLinearAdd", 7, 8, 1, 1, PrepareQuantizedBinaryOp<QuantizedBinaryOp::kAdd, true>};

}  // namespace qrt
