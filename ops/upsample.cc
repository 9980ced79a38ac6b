// Upsample (opsets 7 and 9, deprecated since 10): ONNX defines it as Resize-10, so it runs
// Resize-10's preparation and kernel (ops/resize.cc) with the scales from the `scales`
// attribute (opset 7) or input (opset 9).
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

Status PrepareUpsample(PrepareContext& ctx) {
  std::vector<TensorInfo> inputs = {ctx.input(0)};
  Tensor scales;
  if (ctx.opset() < 9) {
    QRT_ASSIGN_OR_RETURN(std::vector<float> v, ctx.attrs().GetFloats("scales"));
    scales = Tensor::FromVector<float>(v, {int64_t(v.size())});
    TensorInfo info;
    info.dtype = DataType::kFloat32;
    info.dims = scales.dims();
    info.value = &scales;
    inputs.push_back(std::move(info));
  } else {
    if (!ctx.has_input(1)) return InvalidArgument("Upsample-9 needs the scales input");
    inputs.push_back(ctx.input(1));
  }
  PrepareContext resize(ctx.node(), std::move(inputs), ctx.options());
  QRT_RETURN_IF_ERROR(kResizeOp.prepare(resize));
  ctx.SetOutput(0, resize.output(0).dtype, resize.output(0).dims);
  ctx.SetKernel(resize.TakeKernel());
  return Status::Ok();
}

}  // namespace

const OpDef kUpsampleOp{"", "Upsample", 1, 2, 1, 1, PrepareUpsample};

}  // namespace qrt
