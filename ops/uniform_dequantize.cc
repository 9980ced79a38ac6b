// qrt:UniformDequantize (TensorFlow's UniformDequantize): the kernel of
// ops/kernels/quantize/uniform_dequantize.h; attributes and shapes checked in prepare.
#include "ops/kernels/quantize/uniform_dequantize.h"

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

// Input slots: int8/int32 codes dequantized by float scales and int32 zero points.
enum Input : int { kX = 0, kScales = 1, kZeroPoints = 2, kInputCount = 3 };

Status RunUniformDequantizeOp(const UniformDequantizePlan& plan, const RunArgs& a) {
  return RunUniformDequantize(plan, a.input(kX)->raw(), a.input(kScales)->data<float>(),
                              a.input(kZeroPoints)->data<int32_t>(), a.output(0)->data<float>());
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
  QRT_ASSIGN_OR_RETURN(UniformDequantizePlan plan,
                       PrepareUniformDequantize(attrs, InputDesc(ctx, kX), InputDesc(ctx, kScales),
                                                InputDesc(ctx, kZeroPoints), ctx.isa()));
  ctx.SetOutput(0, DataType::kFloat32, plan.output_dims);
  ctx.SetKernel<UniformDequantizePlan, RunUniformDequantizeOp>(std::move(plan));
  return Status::Ok();
}

}  // namespace

const OpDef kUniformDequantizeOp{"qrt", "UniformDequantize",       kInputCount, kInputCount, 1,
                                 1,     PrepareUniformDequantizeOp};

}  // namespace qrt
