// MeanVarianceNormalization over `axes` (default [0, 2, 3]), as the ONNX function body
// defines it: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9). The means are summed in double in
// input order and rounded to the element type; the rest is in the element type.
#include <cmath>
#include <type_traits>
#include <vector>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct MvnState {
  DataType dtype;
  std::vector<int64_t> kept, reduced;  // offsets, as in ops/reduce.cc
};

Status RunMvn(const MvnState& s, const RunArgs& args) {
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using C = typename E::Compute;
    if constexpr (std::is_floating_point_v<C>) {
      const auto* x = args.input(0)->data<typename E::Stored>();
      auto* y = args.output(0)->data<typename E::Stored>();
      const double count = double(s.reduced.size());
      for (int64_t k : s.kept) {
        double sum = 0, sum_sq = 0;
        for (int64_t r : s.reduced) {
          const C v = E::Load(x[k + r]);
          sum += double(v);
          sum_sq += double(v * v);
        }
        const C mean = C(sum / count), mean_sq = C(sum_sq / count);
        const C denom = std::sqrt(mean_sq - mean * mean) + C(1e-9);
        for (int64_t r : s.reduced) y[k + r] = E::Store((E::Load(x[k + r]) - mean) / denom);
      }
    }
  });
  return Status::Ok();
}

Status PrepareMvn(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (!IsFloatType(x.dtype)) return InvalidArgument("input must be a float type, not ", DataTypeName(x.dtype));
  const int64_t rank = int64_t(x.dims.size());
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.attrs().GetInts("axes", std::vector<int64_t>{0, 2, 3}));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> norm, NormalizeAxes(axes, rank));
  std::vector<char> reduce(size_t(rank), 0);
  for (int64_t a : norm) reduce[size_t(a)] = 1;
  std::vector<int64_t> strides(size_t(rank), 1);
  for (size_t d = size_t(rank); d-- > 1;) strides[d - 1] = strides[d] * x.dims[d];
  MvnState s;
  s.dtype = x.dtype;
  s.kept = {0};
  s.reduced = {0};
  for (size_t d = 0; d < size_t(rank); ++d) {
    std::vector<int64_t>& list = reduce[d] ? s.reduced : s.kept;
    std::vector<int64_t> next;
    for (int64_t base : list) {
      for (int64_t i = 0; i < x.dims[d]; ++i) next.push_back(base + i * strides[d]);
    }
    list.swap(next);
  }
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<MvnState, RunMvn>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kMeanVarianceNormalizationOp{"", "MeanVarianceNormalization", 1, 1, 1, 1, PrepareMvn};

}  // namespace qrt
