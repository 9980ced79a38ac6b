// InstanceNormalization: each (n, c) plane of [N, C, ...] (m elements) normalized by its own
// mean and variance, times scale[c], plus B[c]. float32 in ONNX Runtime's order (Eigen):
//   mean = EigenSum(x) / m  (the plane's packets aligned as in a 16-byte aligned buffer)
//   sq = EigenSum((x - mean)^2) (packets from the plane's first element: an expression has no
//        address to align to);  inv = 1 / sqrtf(sq / m + epsilon)
//   cs = inv * scale;  shift = B - mean * cs;  y = x * cs + shift
// EigenSum: ops/kernels/reduce/float_reduce.h. Other float types: the same formula with the
// sums in double in input order, the rest in the element type (float16/bfloat16: float32).
#include <cmath>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/kernels/reduce/float_reduce.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct InstanceNormState {
  DataType dtype;
  int64_t batch = 1, channels = 1, plane = 1;
  float epsilon = 1e-5f;
};

void InstanceNormFloat32(const InstanceNormState& s, const float* x, const float* scale, const float* bias, float* y) {
  const int64_t m = s.plane;
  auto add = [](float a, float b) { return a + b; };
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t c = 0; c < s.channels; ++c) {
      const int64_t base = (n * s.channels + c) * m;
      const float* p = x + base;
      const int64_t lead = (4 - base % 4) % 4;
      const float mean = ref::FoldEigen(
                             m, lead, 0.f, [&](int64_t j) { return p[j]; }, add) /
                         float(m);
      const float sq = ref::FoldEigen(
          m, 0, 0.f,
          [&](int64_t j) {
            const float d = p[j] - mean;
            return d * d;
          },
          add);
      const float inv = 1.0f / std::sqrt(sq / float(m) + s.epsilon);
      const float cs = inv * scale[c];
      const float shift = bias[c] - mean * cs;
      for (int64_t i = 0; i < m; ++i) y[base + i] = p[i] * cs + shift;
    }
  }
}

Status RunInstanceNorm(const InstanceNormState& s, const RunArgs& args) {
  if (s.dtype == DataType::kFloat32) {
    InstanceNormFloat32(s, args.input(0)->data<float>(), args.input(1)->data<float>(), args.input(2)->data<float>(),
                        args.output(0)->data<float>());
    return Status::Ok();
  }
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using C = typename E::Compute;
    if constexpr (std::is_floating_point_v<C>) {
      const auto* x = args.input(0)->data<typename E::Stored>();
      const auto* scale = args.input(1)->data<typename E::Stored>();
      const auto* bias = args.input(2)->data<typename E::Stored>();
      auto* y = args.output(0)->data<typename E::Stored>();
      for (int64_t n = 0; n < s.batch; ++n) {
        for (int64_t c = 0; c < s.channels; ++c) {
          const int64_t base = (n * s.channels + c) * s.plane;
          double sum = 0;
          for (int64_t i = 0; i < s.plane; ++i) sum += double(E::Load(x[base + i]));
          const double mean = sum / double(s.plane);
          double sq = 0;
          for (int64_t i = 0; i < s.plane; ++i) {
            const double d = double(E::Load(x[base + i])) - mean;
            sq += d * d;
          }
          const C m = C(mean);
          const C denom = std::sqrt(C(sq / double(s.plane)) + C(s.epsilon));
          const C sc = E::Load(scale[c]), b = E::Load(bias[c]);
          for (int64_t i = 0; i < s.plane; ++i) y[base + i] = E::Store((E::Load(x[base + i]) - m) / denom * sc + b);
        }
      }
    }
  });
  return Status::Ok();
}

Status PrepareInstanceNorm(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (!IsFloatType(x.dtype)) return InvalidArgument("input must be a float type, not ", DataTypeName(x.dtype));
  if (x.dims.size() < 2) return InvalidArgument("input must have rank >= 2");
  InstanceNormState s;
  s.dtype = x.dtype;
  s.batch = x.dims[0];
  s.channels = x.dims[1];
  for (size_t d = 2; d < x.dims.size(); ++d) s.plane *= x.dims[d];
  for (int i = 1; i <= 2; ++i) {
    if (ctx.input(i).dtype != x.dtype) return InvalidArgument("input ", i, " must have the input's dtype");
    if (ctx.input(i).dims != Dims{s.channels})
      return InvalidArgument("input ", i, " must have shape [", s.channels, "]");
  }
  QRT_ASSIGN_OR_RETURN(s.epsilon, ctx.attrs().GetFloat("epsilon", 1e-5f));
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<InstanceNormState, RunInstanceNorm>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kInstanceNormalizationOp{"", "InstanceNormalization", 3, 3, 1, 1, PrepareInstanceNorm};

}  // namespace qrt
