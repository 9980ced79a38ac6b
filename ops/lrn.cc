// LRN (local response normalization across channels) on [N, C, ...]:
//   y = x / (bias + alpha / size * sum_{c' in window} x[c']^2)^beta
// the window [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped to the channels; the sum of
// squares in double, the rest in the element type (float16/bfloat16: float32).
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct LrnState {
  DataType dtype;
  int64_t batch = 1, channels = 1, plane = 1, size = 1;
  float alpha = 1e-4f, beta = 0.75f, bias = 1.f;
};

Status RunLrn(const LrnState& s, const RunArgs& args) {
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using C = typename E::Compute;
    if constexpr (std::is_floating_point_v<C>) {
      const auto* x = args.input(0)->data<typename E::Stored>();
      auto* y = args.output(0)->data<typename E::Stored>();
      const int64_t before = (s.size - 1) / 2, after = s.size - 1 - before;
      const C scale = C(s.alpha) / C(s.size);
      for (int64_t n = 0; n < s.batch; ++n) {
        for (int64_t c = 0; c < s.channels; ++c) {
          const int64_t lo = std::max<int64_t>(0, c - before), hi = std::min(s.channels - 1, c + after);
          for (int64_t i = 0; i < s.plane; ++i) {
            double sq = 0;
            for (int64_t k = lo; k <= hi; ++k) {
              const double v = double(E::Load(x[(n * s.channels + k) * s.plane + i]));
              sq += v * v;
            }
            const int64_t at = (n * s.channels + c) * s.plane + i;
            const C denom = std::pow(C(s.bias) + scale * C(sq), C(s.beta));
            y[at] = E::Store(E::Load(x[at]) / denom);
          }
        }
      }
    }
  });
  return Status::Ok();
}

Status PrepareLrn(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (!IsFloatType(x.dtype)) return InvalidArgument("input must be a float type, not ", DataTypeName(x.dtype));
  if (x.dims.size() < 3) return InvalidArgument("input must have rank >= 3 [N, C, D1, ...]");
  LrnState s;
  s.dtype = x.dtype;
  s.batch = x.dims[0];
  s.channels = x.dims[1];
  for (size_t d = 2; d < x.dims.size(); ++d) s.plane *= x.dims[d];
  QRT_ASSIGN_OR_RETURN(s.size, ctx.attrs().GetInt("size"));
  if (s.size < 1) return InvalidArgument("size ", s.size, " must be positive");
  QRT_ASSIGN_OR_RETURN(s.alpha, ctx.attrs().GetFloat("alpha", 1e-4f));
  QRT_ASSIGN_OR_RETURN(s.beta, ctx.attrs().GetFloat("beta", 0.75f));
  QRT_ASSIGN_OR_RETURN(s.bias, ctx.attrs().GetFloat("bias", 1.f));
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<LrnState, RunLrn>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kLrnOp{"", "LRN", 1, 1, 1, 1, PrepareLrn};

}  // namespace qrt
