// Numpy-broadcasting comparisons: Equal, Greater, GreaterOrEqual, Less, LessOrEqual, to a bool
// tensor. Both inputs have one dtype: any numeric type, or bool for Equal. The 16-bit float
// types compare as the float32 values they widen to exactly; NaN compares unequal and
// unordered, as in IEEE 754.
#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Compare { kEqual, kGreater, kGreaterOrEqual, kLess, kLessOrEqual };

struct CompareState {
  DataType dtype;
  StridedLoop loop;
};

template <Compare kCmp, class C>
bool Apply(C a, C b) {
  if constexpr (kCmp == Compare::kEqual) return a == b;
  if constexpr (kCmp == Compare::kGreater) return a > b;
  if constexpr (kCmp == Compare::kGreaterOrEqual) return a >= b;
  if constexpr (kCmp == Compare::kLess) return a < b;
  if constexpr (kCmp == Compare::kLessOrEqual) return a <= b;
  return false;
}

template <Compare kCmp>
Status RunCompare(const CompareState& s, const RunArgs& args) {
  uint8_t* y = args.output(0)->data<uint8_t>();
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using S = typename E::Stored;
    BroadcastMap2(s.loop, args.input(0)->data<S>(), args.input(1)->data<S>(), y,
                  [](S a, S b) -> uint8_t { return Apply<kCmp>(E::Load(a), E::Load(b)) ? 1 : 0; });
  });
  return Status::Ok();
}

template <Compare kCmp>
Status PrepareCompare(PrepareContext& ctx) {
  const TensorInfo& a = ctx.input(0);
  const TensorInfo& b = ctx.input(1);
  if (a.dtype != b.dtype) {
    return InvalidArgument("input dtypes differ: ", DataTypeName(a.dtype), " and ", DataTypeName(b.dtype));
  }
  if (a.dtype == DataType::kBool && kCmp != Compare::kEqual) {
    return InvalidArgument("bool inputs are only defined for Equal");
  }
  QRT_ASSIGN_OR_RETURN(Dims b_dims, LegacyBroadcastDims(ctx, a.dims, b.dims));
  QRT_ASSIGN_OR_RETURN(Dims out, BroadcastDims(a.dims, b_dims));
  CompareState s;
  s.dtype = a.dtype;
  s.loop = MakeStridedLoop({a.dims, b_dims, out}, out);
  ctx.SetOutput(0, DataType::kBool, out);
  ctx.SetKernel<CompareState, RunCompare<kCmp>>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kEqualOp{"", "Equal", 2, 2, 1, 1, PrepareCompare<Compare::kEqual>};
const OpDef kGreaterOp{"", "Greater", 2, 2, 1, 1, PrepareCompare<Compare::kGreater>};
const OpDef kGreaterOrEqualOp{"", "GreaterOrEqual", 2, 2, 1, 1, PrepareCompare<Compare::kGreaterOrEqual>};
const OpDef kLessOp{"", "Less", 2, 2, 1, 1, PrepareCompare<Compare::kLess>};
const OpDef kLessOrEqualOp{"", "LessOrEqual", 2, 2, 1, 1, PrepareCompare<Compare::kLessOrEqual>};

}  // namespace qrt
