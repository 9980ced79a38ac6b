// Det: the determinant of each [M, M] matrix in the last two axes, by LU decomposition with
// partial pivoting in double, rounded once to the element type.
#include <cmath>
#include <utility>
#include <vector>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct DetState {
  DataType dtype;
  int64_t batch = 1, m = 0;
};

double Determinant(std::vector<double>& a, int64_t m) {
  double det = 1;
  for (int64_t k = 0; k < m; ++k) {
    int64_t pivot = k;
    for (int64_t i = k + 1; i < m; ++i) {
      if (std::fabs(a[size_t(i * m + k)]) > std::fabs(a[size_t(pivot * m + k)])) pivot = i;
    }
    if (a[size_t(pivot * m + k)] == 0) return 0;
    if (pivot != k) {
      for (int64_t j = 0; j < m; ++j) std::swap(a[size_t(k * m + j)], a[size_t(pivot * m + j)]);
      det = -det;
    }
    const double p = a[size_t(k * m + k)];
    det *= p;
    for (int64_t i = k + 1; i < m; ++i) {
      const double f = a[size_t(i * m + k)] / p;
      for (int64_t j = k; j < m; ++j) a[size_t(i * m + j)] -= f * a[size_t(k * m + j)];
    }
  }
  return det;
}

Status RunDet(const DetState& s, const RunArgs& args) {
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using C = typename E::Compute;
    if constexpr (std::is_floating_point_v<C>) {
      const auto* x = args.input(0)->data<typename E::Stored>();
      auto* y = args.output(0)->data<typename E::Stored>();
      std::vector<double> a(size_t(s.m * s.m));
      for (int64_t b = 0; b < s.batch; ++b) {
        for (int64_t i = 0; i < s.m * s.m; ++i) a[size_t(i)] = double(E::Load(x[b * s.m * s.m + i]));
        y[b] = E::Store(C(Determinant(a, s.m)));
      }
    }
  });
  return Status::Ok();
}

Status PrepareDet(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (!IsFloatType(x.dtype)) return InvalidArgument("input must be a float type");
  const size_t r = x.dims.size();
  if (r < 2 || x.dims[r - 1] != x.dims[r - 2])
    return InvalidArgument("input must be [*, M, M], not ", DimsToString(x.dims));
  DetState s;
  s.dtype = x.dtype;
  s.m = x.dims[r - 1];
  for (size_t d = 0; d + 2 < r; ++d) s.batch *= x.dims[d];
  ctx.SetOutput(0, x.dtype, Dims(x.dims.begin(), x.dims.end() - 2));
  ctx.SetKernel<DetState, RunDet>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kDetOp{"", "Det", 1, 1, 1, 1, PrepareDet};

}  // namespace qrt
