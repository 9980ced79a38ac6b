// LpNormalization: x divided by its L1 (p=1) or L2 (p=2, default) norm along `axis`; the
// norm summed in double in input order and rounded to the element type once; a zero norm
// leaves the zeros (0/0 is not taken).
#include <cmath>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct LpNormState {
  DataType dtype;
  int64_t outer = 1, n = 1, inner = 1, p = 2;
};

Status RunLpNorm(const LpNormState& s, const RunArgs& args) {
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using C = typename E::Compute;
    if constexpr (std::is_floating_point_v<C>) {
      const auto* x = args.input(0)->data<typename E::Stored>();
      auto* y = args.output(0)->data<typename E::Stored>();
      for (int64_t o = 0; o < s.outer; ++o) {
        for (int64_t k = 0; k < s.inner; ++k) {
          const int64_t base = o * s.n * s.inner + k;
          double sum = 0;
          for (int64_t i = 0; i < s.n; ++i) {
            const double v = double(E::Load(x[base + i * s.inner]));
            sum += s.p == 1 ? std::fabs(v) : v * v;
          }
          const C norm = C(s.p == 1 ? sum : std::sqrt(sum));
          for (int64_t i = 0; i < s.n; ++i) {
            const C v = E::Load(x[base + i * s.inner]);
            y[base + i * s.inner] = E::Store(norm == C(0) ? v : v / norm);
          }
        }
      }
    }
  });
  return Status::Ok();
}

Status PrepareLpNorm(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (!IsFloatType(x.dtype)) return InvalidArgument("input must be a float type, not ", DataTypeName(x.dtype));
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("input must have rank >= 1");
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", -1));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  LpNormState s;
  s.dtype = x.dtype;
  QRT_ASSIGN_OR_RETURN(s.p, ctx.attrs().GetInt("p", 2));
  if (s.p != 1 && s.p != 2) return InvalidArgument("p must be 1 or 2, not ", s.p);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t v = x.dims[size_t(d)];
    if (d < axis) s.outer *= v;
    if (d == axis) s.n = v;
    if (d > axis) s.inner *= v;
  }
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<LpNormState, RunLpNorm>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kLpNormalizationOp{"", "LpNormalization", 1, 1, 1, 1, PrepareLpNorm};

}  // namespace qrt
