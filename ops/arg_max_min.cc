// ArgMax and ArgMin along one axis, to int64 indices: the first extreme element, or the last
// with select_last_index. A NaN counts as the extreme (numpy's rule), so the first NaN wins.
#include <cmath>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct ArgState {
  DataType dtype;
  int64_t outer = 1, n = 1, inner = 1;
  bool last = false;
};

template <bool kMax, class C>
bool Better(C v, C best) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(best)) return false;
    if (std::isnan(v)) return true;
  }
  return kMax ? v > best : v < best;
}

template <bool kMax>
Status RunArg(const ArgState& s, const RunArgs& args) {
  int64_t* y = args.output(0)->data<int64_t>();
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using S = typename E::Stored;
    const S* x = args.input(0)->data<S>();
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t k = 0; k < s.inner; ++k) {
        const S* row = x + o * s.n * s.inner + k;
        auto best = E::Load(row[0]);
        int64_t at = 0;
        for (int64_t i = 1; i < s.n; ++i) {
          const auto v = E::Load(row[i * s.inner]);
          if (Better<kMax>(v, best) || (s.last && v == best)) best = v, at = i;
        }
        y[o * s.inner + k] = at;
      }
    }
  });
  return Status::Ok();
}

template <bool kMax>
Status PrepareArg(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.dtype == DataType::kBool || x.dtype == DataType::kUndefined) {
    return InvalidArgument("input dtype ", DataTypeName(x.dtype), " is not numeric");
  }
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("input must have rank >= 1");
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", 0));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  QRT_ASSIGN_OR_RETURN(int64_t keepdims, ctx.attrs().GetInt("keepdims", 1));
  QRT_ASSIGN_OR_RETURN(int64_t last, ctx.attrs().GetInt("select_last_index", 0));
  ArgState s;
  s.dtype = x.dtype;
  s.last = last != 0;
  Dims out;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t v = x.dims[size_t(d)];
    if (d < axis) s.outer *= v;
    if (d > axis) s.inner *= v;
    if (d == axis) {
      s.n = v;
      if (keepdims) out.push_back(1);
    } else {
      out.push_back(v);
    }
  }
  if (s.n == 0 && ElementCount(out) != 0) return InvalidArgument("the reduced axis ", axis, " is empty");
  ctx.SetOutput(0, DataType::kInt64, out);
  ctx.SetKernel<ArgState, RunArg<kMax>>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kArgMaxOp{"", "ArgMax", 1, 1, 1, 1, PrepareArg<true>};
const OpDef kArgMinOp{"", "ArgMin", 1, 1, 1, 1, PrepareArg<false>};

}  // namespace qrt
