// Where(condition, X, Y): X where condition is true, else Y, all three numpy-broadcast.
#include <cstring>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct WhereState {
  size_t elem_size;
  StridedLoop loop;
};

template <class T>
void WhereTyped(const WhereState& s, const RunArgs& args) {
  BroadcastMap3(s.loop, args.input(0)->data<uint8_t>(), args.input(1)->data<T>(), args.input(2)->data<T>(),
                args.output(0)->data<T>(), [](uint8_t c, T x, T y) { return c ? x : y; });
}

// Selection copies bytes, so the kernel depends only on the element size.
Status RunWhere(const WhereState& s, const RunArgs& args) {
  switch (s.elem_size) {
    case 1:
      WhereTyped<uint8_t>(s, args);
      break;
    case 2:
      WhereTyped<uint16_t>(s, args);
      break;
    case 4:
      WhereTyped<uint32_t>(s, args);
      break;
    default:
      WhereTyped<uint64_t>(s, args);
      break;
  }
  return Status::Ok();
}

Status PrepareWhere(PrepareContext& ctx) {
  const TensorInfo& c = ctx.input(0);
  const TensorInfo& x = ctx.input(1);
  const TensorInfo& y = ctx.input(2);
  if (c.dtype != DataType::kBool) return InvalidArgument("condition must be bool, not ", DataTypeName(c.dtype));
  if (x.dtype != y.dtype) {
    return InvalidArgument("X and Y dtypes differ: ", DataTypeName(x.dtype), " and ", DataTypeName(y.dtype));
  }
  QRT_ASSIGN_OR_RETURN(Dims xy, BroadcastDims(x.dims, y.dims));
  QRT_ASSIGN_OR_RETURN(Dims out, BroadcastDims(c.dims, xy));
  WhereState s;
  s.elem_size = DataTypeSize(x.dtype);
  s.loop = MakeStridedLoop({c.dims, x.dims, y.dims, out}, out);
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<WhereState, RunWhere>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kWhereOp{"", "Where", 3, 3, 1, 1, PrepareWhere};

}  // namespace qrt
