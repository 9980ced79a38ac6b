// Expand(input, shape): the input numpy-broadcast with a known shape (either may have the
// larger dims, as in numpy; the output takes the broadcast of both).
#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct ExpandState {
  size_t elem_size;
  StridedLoop loop;
};

template <class T>
void ExpandTyped(const ExpandState& s, const RunArgs& args) {
  const T* x = args.input(0)->data<T>();
  BroadcastMap2(s.loop, x, x, args.output(0)->data<T>(), [](T a, T) { return a; });
}

Status RunExpand(const ExpandState& s, const RunArgs& args) {
  switch (s.elem_size) {
    case 1:
      ExpandTyped<uint8_t>(s, args);
      break;
    case 2:
      ExpandTyped<uint16_t>(s, args);
      break;
    case 4:
      ExpandTyped<uint32_t>(s, args);
      break;
    default:
      ExpandTyped<uint64_t>(s, args);
  }
  return Status::Ok();
}

Status PrepareExpand(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt64}));
  if (ctx.input(1).dims.size() != 1) return InvalidArgument("shape input must be 1-D");
  if (ctx.input(1).value == nullptr) return NeedsConstant(ctx, 1, "shape");
  const Dims shape = ToInt64Vector(*ctx.input(1).value);
  if (int64_t(shape.size()) > kMaxRank) return ResourceExhausted("rank ", shape.size(), " exceeds the limit");
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgument("negative dimension ", d, " in shape ", DimsToString(shape));
  }
  QRT_ASSIGN_OR_RETURN(Dims out, BroadcastDims(x.dims, shape));
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, DataTypeSize(x.dtype)).status());
  ExpandState s;
  s.elem_size = DataTypeSize(x.dtype);
  s.loop = MakeStridedLoop({x.dims, x.dims, out}, out);
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<ExpandState, RunExpand>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kExpandOp{"", "Expand", 2, 2, 1, 1, PrepareExpand};

}  // namespace qrt
