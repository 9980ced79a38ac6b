// ConstantOfShape: a tensor of the shape given by a known int64 input, every element the
// one-element `value` attribute (float32 0 when absent).
#include <cstring>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct FillState {
  Tensor value;  // one element
};

Status RunFill(const FillState& s, const RunArgs& args) {
  Tensor& y = *args.output(0);
  const size_t size = DataTypeSize(y.dtype());
  char* out = static_cast<char*>(y.raw());
  const int64_t n = y.numel();
  for (int64_t i = 0; i < n; ++i) std::memcpy(out + size_t(i) * size, s.value.raw(), size);
  return Status::Ok();
}

Status PrepareConstantOfShape(PrepareContext& ctx) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kInt64}));
  if (ctx.input(0).dims.size() != 1) return InvalidArgument("the shape input must be 1-D");
  if (ctx.input(0).value == nullptr) return NeedsConstant(ctx, 0, "shape");
  const Dims dims = ToInt64Vector(*ctx.input(0).value);
  if (int64_t(dims.size()) > kMaxRank) return ResourceExhausted("rank ", dims.size(), " exceeds the limit");
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("negative dimension ", d, " in shape ", DimsToString(dims));
  }
  FillState s;
  if (ctx.attrs().Has("value")) {
    QRT_ASSIGN_OR_RETURN(s.value, ctx.attrs().GetTensor("value"));
    if (s.value.numel() != 1) return InvalidArgument("value must hold one element, not ", s.value.numel());
  } else {
    s.value = Tensor::FromVector<float>({0.f}, {1});
  }
  QRT_RETURN_IF_ERROR(CheckedElementCount(dims, DataTypeSize(s.value.dtype())).status());
  ctx.SetOutput(0, s.value.dtype(), dims);
  ctx.SetKernel<FillState, RunFill>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kConstantOfShapeOp{"", "ConstantOfShape", 1, 1, 1, 1, PrepareConstantOfShape};

}  // namespace qrt
