// Graph ops over the four reference quantization kernels (ops/kernels/): FakeQuantize
// (OpenVINO), QuantizeV2 and UniformDequantize (TensorFlow), QuantizedMul/QuantizedAdd
// (Simd's SynetQuantizedMul, generalized), and com.microsoft QLinearMul/QLinearAdd,
// which load as QuantizedMul/QuantizedAdd with requantize=combined (ONNX Runtime's rule).
// Attributes are parsed and everything shape-related is checked once, in prepare.
#include "ops/kernels/fake_quantize.h"
#include "ops/kernels/quantize_v2.h"
#include "ops/kernels/quantized_binary.h"
#include "ops/kernels/uniform_dequantize.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

TensorDesc Desc(const PrepareContext& ctx, int i) {
  if (!ctx.has_input(i)) return TensorDesc{};
  return TensorDesc{ctx.input(i).dtype, ctx.input(i).dims};
}

const void* Data(const RunArgs& args, int i) {
  const Tensor* t = args.input(i);
  return t ? t->raw() : nullptr;
}

// ---- FakeQuantize -----------------------------------------------------------------

Status RunFakeQuantizeOp(const FakeQuantizePlan& plan, const RunArgs& a) {
  return RunFakeQuantize(plan, Data(a, 0), Data(a, 1), Data(a, 2), Data(a, 3), Data(a, 4), a.output(0)->raw());
}

Status PrepareFakeQuantizeOp(PrepareContext& ctx) {
  FakeQuantizeAttrs attrs;
  QRT_ASSIGN_OR_RETURN(attrs.levels, ctx.attrs().GetInt("levels"));
  QRT_ASSIGN_OR_RETURN(std::string bc, ctx.attrs().GetString("auto_broadcast", std::string("numpy")));
  QRT_ASSIGN_OR_RETURN(attrs.auto_broadcast, ParseAutoBroadcast(bc));
  QRT_ASSIGN_OR_RETURN(attrs.axis, ctx.attrs().GetInt("axis", -1));
  QRT_ASSIGN_OR_RETURN(FakeQuantizePlan plan, PrepareFakeQuantize(attrs, Desc(ctx, 0), Desc(ctx, 1), Desc(ctx, 2),
                                                                  Desc(ctx, 3), Desc(ctx, 4), ctx.isa()));
  ctx.SetOutput(0, plan.dtype, plan.out_dims);
  ctx.SetKernel<FakeQuantizePlan, RunFakeQuantizeOp>(std::move(plan));
  return Status::Ok();
}

// ---- QuantizeV2 -------------------------------------------------------------------

Status RunQuantizeV2Op(const QuantizeV2Plan& plan, const RunArgs& a) {
  return RunQuantizeV2(plan, a.input(0)->data<float>(), a.input(1)->data<float>(), a.input(2)->data<float>(),
                       a.output(0)->raw(), a.output(1) ? a.output(1)->data<float>() : nullptr,
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
  QRT_ASSIGN_OR_RETURN(QuantizeV2Plan plan,
                       PrepareQuantizeV2(attrs, Desc(ctx, 0), Desc(ctx, 1), Desc(ctx, 2), ctx.isa()));
  ctx.SetOutput(0, plan.attrs.T, plan.output_dims);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DataType::kFloat32, plan.output_min_dims);
  if (ctx.num_outputs() > 2) ctx.SetOutput(2, DataType::kFloat32, plan.output_min_dims);
  ctx.SetKernel<QuantizeV2Plan, RunQuantizeV2Op>(std::move(plan));
  return Status::Ok();
}

// ---- UniformDequantize ------------------------------------------------------------

Status RunUniformDequantizeOp(const UniformDequantizePlan& plan, const RunArgs& a) {
  return RunUniformDequantize(plan, a.input(0)->raw(), a.input(1)->data<float>(), a.input(2)->data<int32_t>(),
                              a.output(0)->data<float>());
}

Status PrepareUniformDequantizeOp(PrepareContext& ctx) {
  UniformDequantizeAttrs attrs;
  if (const AttrValue* v = ctx.attrs().Find("Tout")) {
    std::optional<DataType> t;
    if (const std::string* s = std::get_if<std::string>(v)) t = ParseDataType(*s);
    if (const int64_t* code = std::get_if<int64_t>(v)) t = DataTypeFromOnnx(int(*code));
    if (t != DataType::kFloat32) return InvalidArgument("attribute 'Tout' must be float32");
  }
  QRT_ASSIGN_OR_RETURN(attrs.quantization_axis, ctx.attrs().GetInt("quantization_axis", -1));
  QRT_ASSIGN_OR_RETURN(attrs.quantization_min_val, ctx.attrs().GetInt("quantization_min_val"));
  QRT_ASSIGN_OR_RETURN(attrs.quantization_max_val, ctx.attrs().GetInt("quantization_max_val"));
  QRT_ASSIGN_OR_RETURN(UniformDequantizePlan plan, PrepareUniformDequantize(attrs, Desc(ctx, 0), Desc(ctx, 1),
                                                                            Desc(ctx, 2), ctx.isa()));
  ctx.SetOutput(0, DataType::kFloat32, plan.output_dims);
  ctx.SetKernel<UniformDequantizePlan, RunUniformDequantizeOp>(std::move(plan));
  return Status::Ok();
}

// ---- QuantizedMul / QuantizedAdd --------------------------------------------------

Status RunQuantizedBinaryOp(const QuantizedBinaryPlan& plan, const RunArgs& a) {
  QuantizedBinaryData d;
  d.a = Data(a, 0);
  d.a_scale = static_cast<const float*>(Data(a, 1));
  d.a_zero_point = Data(a, 2);
  d.b = Data(a, 3);
  d.b_scale = static_cast<const float*>(Data(a, 4));
  d.b_zero_point = Data(a, 5);
  d.c_scale = static_cast<const float*>(Data(a, 6));
  d.c_zero_point = Data(a, 7);
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
  QuantizedBinaryDescs in{Desc(ctx, 0), Desc(ctx, 1), Desc(ctx, 2), Desc(ctx, 3),
                          Desc(ctx, 4), Desc(ctx, 5), Desc(ctx, 6), Desc(ctx, 7)};
  QRT_ASSIGN_OR_RETURN(QuantizedBinaryPlan plan, kOp == QuantizedBinaryOp::kMul
                                                     ? PrepareQuantizedMul(attrs, in, ctx.isa())
                                                     : PrepareQuantizedAdd(attrs, in, ctx.isa()));
  ctx.SetOutput(0, plan.c_dtype, plan.out_dims);
  plan.threads = ctx.threads();
  ctx.SetKernel<QuantizedBinaryPlan, RunQuantizedBinaryOp>(std::move(plan));
  return Status::Ok();
}

}  // namespace

const OpDef kFakeQuantizeOp{"qrt", "FakeQuantize", 5, 5, 1, 1, PrepareFakeQuantizeOp};
const OpDef kQuantizeV2Op{"qrt", "QuantizeV2", 3, 3, 1, 3, PrepareQuantizeV2Op};
const OpDef kUniformDequantizeOp{"qrt", "UniformDequantize", 3, 3, 1, 1, PrepareUniformDequantizeOp};
const OpDef kQuantizedMulOp{"qrt", "QuantizedMul", 7, 8, 1, 1,
                            PrepareQuantizedBinaryOp<QuantizedBinaryOp::kMul, false>};
const OpDef kQuantizedAddOp{"qrt", "QuantizedAdd", 7, 8, 1, 1,
                            PrepareQuantizedBinaryOp<QuantizedBinaryOp::kAdd, false>};
const OpDef kQLinearMulOp{"com.microsoft", "QLinearMul", 7, 8, 1, 1,
                          PrepareQuantizedBinaryOp<QuantizedBinaryOp::kMul, true>};
const OpDef kQLinearAddOp{"com.microsoft", "QLinearAdd", 7, 8, 1, 1,
                          PrepareQuantizedBinaryOp<QuantizedBinaryOp::kAdd, true>};

}  // namespace qrt
