// CumSum(x, axis): running sums along one axis (a known scalar), forward or reverse,
// inclusive or exclusive. Each sum adds the next element to the previous sum in the element
// type (ONNX Runtime's order); integers wrap.
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

// The accumulator: the element type, or its unsigned twin for integers (wraps, no UB).
template <class C, bool = std::is_integral_v<C>>
struct Accumulator {
  using type = C;
};
template <class C>
struct Accumulator<C, true> {
  using type = std::make_unsigned_t<C>;
};

struct CumSumState {
  DataType dtype;
  int64_t outer = 1, n = 1, inner = 1;
  bool exclusive = false, reverse = false;
};

Status RunCumSum(const CumSumState& s, const RunArgs& args) {
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using S = typename E::Stored;
    using C = typename E::Compute;
    if constexpr (!std::is_same_v<C, bool>) {
      using A = typename Accumulator<C>::type;
      const S* x = args.input(0)->data<S>();
      S* y = args.output(0)->data<S>();
      for (int64_t o = 0; o < s.outer; ++o) {
        for (int64_t k = 0; k < s.inner; ++k) {
          const int64_t base = o * s.n * s.inner + k;
          A sum = A(0);
          for (int64_t j = 0; j < s.n; ++j) {
            const int64_t i = s.reverse ? s.n - 1 - j : j;
            const int64_t at = base + i * s.inner;
            const A v = A(E::Load(x[at]));
            if (s.exclusive) {
              y[at] = E::Store(C(sum));
              sum = A(sum + v);
            } else {
              sum = A(sum + v);
              y[at] = E::Store(C(sum));
            }
          }
        }
      }
    }
  });
  return Status::Ok();
}

Status PrepareCumSum(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.dtype == DataType::kBool || x.dtype == DataType::kUndefined) {
    return InvalidArgument("input dtype ", DataTypeName(x.dtype), " is not numeric");
  }
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt32, DataType::kInt64}));
  if (ElementCount(ctx.input(1).dims) != 1) return InvalidArgument("axis must be a scalar");
  if (ctx.input(1).value == nullptr) return NeedsConstant(ctx, 1, "axis");
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("input must have rank >= 1");
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.input(1).value->GetAsInt64(0), rank));
  CumSumState s;
  s.dtype = x.dtype;
  QRT_ASSIGN_OR_RETURN(int64_t exclusive, ctx.attrs().GetInt("exclusive", 0));
  QRT_ASSIGN_OR_RETURN(int64_t reverse, ctx.attrs().GetInt("reverse", 0));
  s.exclusive = exclusive != 0;
  s.reverse = reverse != 0;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t v = x.dims[size_t(d)];
    if (d < axis) s.outer *= v;
    if (d == axis) s.n = v;
    if (d > axis) s.inner *= v;
  }
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<CumSumState, RunCumSum>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kCumSumOp{"", "CumSum", 2, 2, 1, 1, PrepareCumSum};

}  // namespace qrt
