// The optional ops. An optional holds a tensor, a sequence, or nothing (ValueKind::kNone,
// runtime/sequence.h); holding something, it is that value.
//   Optional(x?): x, or nothing when x is omitted (the `type` attribute then says of what).
//   OptionalHasElement(x?): bool scalar, false for nothing or an omitted x (opset 18 takes
//     plain tensors and sequences too: true).
//   OptionalGetElement(x): the value held; an error for nothing.
#include <memory>
#include <vector>

#include "ops/data_dependent.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

Status PrepareOptional(PrepareContext& ctx) {
  if (!ctx.has_input(0) && ctx.input(0).kind != ValueKind::kNone) {
    ctx.SetOutputNone(0);
    return Status::Ok();
  }
  return ForwardInput(ctx);
}

Status PrepareOptionalHasElement(PrepareContext& ctx) {
  const bool has = ctx.has_input(0) && ctx.input(0).kind != ValueKind::kNone;
  ctx.SetIndependentOfInputData();
  SetComputedOutputs(ctx, {Tensor::FromVector<bool>({has}, {})});
  return Status::Ok();
}

Status PrepareOptionalGetElement(PrepareContext& ctx) {
  if (ctx.input(0).kind == ValueKind::kNone) return InvalidArgument("the optional holds nothing");
  if (!ctx.has_input(0)) return InvalidArgument("OptionalGetElement needs its input");
  return ForwardInput(ctx);
}

}  // namespace

// Identity forwards sequences and optionals too (shape_ops.cc uses it).
Status PrepareForwardAnyKind(PrepareContext& ctx) { return ForwardInput(ctx); }

const OpDef kOptionalOp{"", "Optional", 0, 1, 1, 1, PrepareOptional};
const OpDef kOptionalHasElementOp{"", "OptionalHasElement", 0, 1, 1, 1, PrepareOptionalHasElement};
const OpDef kOptionalGetElementOp{"", "OptionalGetElement", 1, 1, 1, 1, PrepareOptionalGetElement};

}  // namespace qrt
