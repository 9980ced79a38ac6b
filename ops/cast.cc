// Cast and CastLike between every qrt dtype but the 4-bit integers, through a loop compiled
// for the pair (ops/kernels/cast/cast.h has the rules). ONNX leaves out-of-range float ->
// integer conversions undefined; qrt saturates, and NaN gives 0.
#include "ops/kernels/cast/cast.h"

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct CastState {
  CastFn cast;           // chosen for the pair of dtypes
  bool saturate = true;  // opset 19: out-of-range values to 8-bit floats
};

Status RunCast(const CastState& s, const RunArgs& args) {
  s.cast(args.input(0)->raw(), args.output(0)->raw(), args.input(0)->numel(), s.saturate);
  return Status::Ok();
}

Status Finish(PrepareContext& ctx, DataType to) {
  if (Is4BitType(to) || Is4BitType(ctx.input(0).dtype)) {
    return Unsupported("Cast to or from ", DataTypeName(Is4BitType(to) ? to : ctx.input(0).dtype));
  }
  QRT_ASSIGN_OR_RETURN(int64_t saturate, ctx.attrs().GetInt("saturate", 1));
  CastState s{SelectCast(ctx.input(0).dtype, to), saturate != 0};
  if (s.cast == nullptr) return Unsupported("Cast from ", DataTypeName(ctx.input(0).dtype), " to ", DataTypeName(to));
  ctx.SetOutput(0, to, ctx.input(0).dims);
  ctx.SetKernel<CastState, RunCast>(s);
  return Status::Ok();
}

Status PrepareCast(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(int64_t code, ctx.attrs().GetInt("to"));
  std::optional<DataType> to = DataTypeFromOnnx(int(code));
  if (!to) return Unsupported("Cast to ONNX data type ", code);
  return Finish(ctx, *to);
}

Status PrepareCastLike(PrepareContext& ctx) { return Finish(ctx, ctx.input(1).dtype); }

}  // namespace

const OpDef kCastOp{"", "Cast", 1, 1, 1, 1, PrepareCast};
const OpDef kCastLikeOp{"", "CastLike", 2, 2, 1, 1, PrepareCastLike};

}  // namespace qrt
