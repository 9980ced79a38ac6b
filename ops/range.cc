// Range(start, limit, delta): start + i*delta for i < max(ceil((limit - start) / delta), 0),
// the three scalars of one numeric type known when the graph is planned. The count is computed
// in double; each element is the previous one plus delta, in the element type, as the ONNX
// function body's loop accumulates (integers wrap instead of overflowing).
#include <cmath>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct RangeState {
  DataType dtype;
  double start = 0, delta = 1;
  int64_t istart = 0, idelta = 1;
};

Status RunRange(const RangeState& s, const RunArgs& args) {
  Tensor& y = *args.output(0);
  const int64_t n = y.numel();
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using S = typename E::Stored;
    using C = typename E::Compute;
    S* out = y.data<S>();
    if constexpr (std::is_integral_v<C>) {
      uint64_t v = uint64_t(s.istart);
      for (int64_t i = 0; i < n; ++i, v += uint64_t(s.idelta)) out[i] = C(int64_t(v));
    } else {
      C v = C(s.start);
      for (int64_t i = 0; i < n; ++i, v += C(s.delta)) out[i] = E::Store(v);
    }
  });
  return Status::Ok();
}

Status PrepareRange(PrepareContext& ctx) {
  const DataType t = ctx.input(0).dtype;
  for (int i = 0; i < 3; ++i) {
    if (ctx.input(i).dtype != t) return InvalidArgument("start, limit and delta must share one dtype");
    if (ElementCount(ctx.input(i).dims) != 1) return InvalidArgument("input ", i, " must be a scalar");
    if (ctx.input(i).value == nullptr) return NeedsConstant(ctx, i, i == 0 ? "start" : i == 1 ? "limit" : "delta");
  }
  if (!IsFloatType(t) && t != DataType::kInt16 && t != DataType::kInt32 && t != DataType::kInt64) {
    return InvalidArgument("dtype ", DataTypeName(t), " is not supported (float, double, int16, int32, int64)");
  }
  RangeState s;
  s.dtype = t;
  int64_t count;
  if (IsFloatType(t)) {
    s.start = ctx.input(0).value->GetAsDouble(0);
    const double limit = ctx.input(1).value->GetAsDouble(0);
    s.delta = ctx.input(2).value->GetAsDouble(0);
    if (s.delta == 0) return InvalidArgument("delta is 0");
    const double c = std::ceil((limit - s.start) / s.delta);
    if (!(c < 9e15)) return ResourceExhausted("Range of ", c, " elements");
    count = c > 0 ? int64_t(c) : 0;
  } else {
    s.istart = ctx.input(0).value->GetAsInt64(0);
    const int64_t limit = ctx.input(1).value->GetAsInt64(0);
    s.idelta = ctx.input(2).value->GetAsInt64(0);
    if (s.idelta == 0) return InvalidArgument("delta is 0");
    const double c = std::ceil((double(limit) - double(s.istart)) / double(s.idelta));
    if (!(c < 9e15)) return ResourceExhausted("Range of ", c, " elements");
    count = c > 0 ? int64_t(c) : 0;
  }
  QRT_RETURN_IF_ERROR(CheckedElementCount({count}, DataTypeSize(t)).status());
  ctx.SetOutput(0, t, {count});
  ctx.SetKernel<RangeState, RunRange>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kRangeOp{"", "Range", 3, 3, 1, 1, PrepareRange};

}  // namespace qrt
