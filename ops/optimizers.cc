// The training optimizers of ai.onnx.preview.training: Adagrad, Momentum and Adam, one update step
// of N tensors, as ONNX's operator text defines them, computed in double and rounded once to each
// tensor's float type. R is the learning rate and T the update count (scalars); for each i the
// inputs X_i (the weights), G_i (their gradient) and the state (Adagrad: H_i, the accumulated
// squares; Momentum: V_i, the velocity; Adam: V_i and H_i), the outputs the new X_i and state.
//   g = norm_coefficient * x + grad
//   Adagrad:  h' = h + g^2; x' = x - R / (1 + T * decay_factor) * g / (sqrt(h') + epsilon)
//   Momentum: v' = alpha * v + (T > 0 ? beta : 1) * g; x' = x - R * v' (standard) or
//             x - R * (g + alpha * v') (nesterov)
//   Adam:     v' = alpha * v + (1 - alpha) * g; h' = beta * h + (1 - beta) * g^2;
//             r = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R;
//             x' = (1 - norm_coefficient_post) * (x - r * v' / (sqrt(h') + epsilon))
#include <cmath>
#include <string>
#include <vector>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Optimizer { kAdagrad, kMomentum, kAdam };

struct OptimizerState {
  Optimizer kind;
  int n = 0;  // tensors updated
  double decay = 0, epsilon = 1e-6, norm = 0, norm_post = 0, alpha = 0.9, beta = 0.999;
  bool nesterov = false;
};

double Scalar(const Tensor& t) { return t.GetAsDouble(0); }

void Store(Tensor& t, int64_t i, double v) {
  DispatchElem(t.dtype(), [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using C = typename E::Compute;
    if constexpr (std::is_floating_point_v<C>) t.data<typename E::Stored>()[i] = E::Store(C(v));
  });
}

Status RunOptimizer(const OptimizerState& s, const RunArgs& args) {
  const double r = Scalar(*args.input(0));
  const double t = Scalar(*args.input(1));
  for (int k = 0; k < s.n; ++k) {
    const Tensor& x = *args.input(2 + k);
    const Tensor& grad = *args.input(2 + s.n + k);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double xv = x.GetAsDouble(i), g = s.norm * xv + grad.GetAsDouble(i);
      switch (s.kind) {
        case Optimizer::kAdagrad: {
          const double h = args.input(2 + 2 * s.n + k)->GetAsDouble(i) + g * g;
          const double rate = r / (1 + t * s.decay);
          if (args.output(k)) Store(*args.output(k), i, xv - rate * g / (std::sqrt(h) + s.epsilon));
          if (args.output(s.n + k)) Store(*args.output(s.n + k), i, h);
          break;
        }
        case Optimizer::kMomentum: {
          const double v = s.alpha * args.input(2 + 2 * s.n + k)->GetAsDouble(i) + (t > 0 ? s.beta : 1.0) * g;
          const double step = s.nesterov ? g + s.alpha * v : v;
          if (args.output(k)) Store(*args.output(k), i, xv - r * step);
          if (args.output(s.n + k)) Store(*args.output(s.n + k), i, v);
          break;
        }
        case Optimizer::kAdam: {
          const double v = s.alpha * args.input(2 + 2 * s.n + k)->GetAsDouble(i) + (1 - s.alpha) * g;
          const double h = s.beta * args.input(2 + 3 * s.n + k)->GetAsDouble(i) + (1 - s.beta) * g * g;
          const double rate = t > 0 ? r * std::sqrt(1 - std::pow(s.beta, t)) / (1 - std::pow(s.alpha, t)) : r;
          const double x_new = (1 - s.norm_post) * (xv - rate * v / (std::sqrt(h) + s.epsilon));
          if (args.output(k)) Store(*args.output(k), i, x_new);
          if (args.output(s.n + k)) Store(*args.output(s.n + k), i, v);
          if (args.output(2 * s.n + k)) Store(*args.output(2 * s.n + k), i, h);
          break;
        }
      }
    }
  }
  return Status::Ok();
}

template <Optimizer kKind>
Status PrepareOptimizer(PrepareContext& ctx) {
  const int states = kKind == Optimizer::kAdam ? 2 : 1;  // per tensor, beside X and G
  const int per = 2 + states;
  if ((ctx.num_inputs() - 2) % per != 0 || ctx.num_inputs() < 2 + per) {
    return InvalidArgument("expected R, T and ", per, " inputs per tensor, got ", ctx.num_inputs(), " inputs");
  }
  OptimizerState s;
  s.kind = kKind;
  s.n = (ctx.num_inputs() - 2) / per;
  if (ctx.num_outputs() != (1 + states) * s.n) {
    return InvalidArgument("expected ", (1 + states) * s.n, " outputs for ", s.n, " tensors, got ", ctx.num_outputs());
  }
  for (int i : {0, 1}) {
    if (ElementCount(ctx.input(i).dims) != 1) return InvalidArgument(i == 0 ? "R" : "T", " must be a scalar");
  }
  for (int k = 0; k < s.n; ++k) {
    const TensorInfo& x = ctx.input(2 + k);
    if (!IsFloatType(x.dtype)) return InvalidArgument("X_", k, " must be a float tensor");
    for (int j = 1; j < per; ++j) {
      const TensorInfo& other = ctx.input(2 + j * s.n + k);
      if (other.dims != x.dims || !IsFloatType(other.dtype)) {
        return InvalidArgument("input ", 2 + j * s.n + k, " must be a float tensor of X_", k, "'s shape ",
                               DimsToString(x.dims));
      }
    }
    for (int j = 0; j <= states; ++j)
      ctx.SetOutput(j * s.n + k, ctx.input(2 + (j == 0 ? 0 : j + 1) * s.n + k).dtype, x.dims);
  }
  QRT_ASSIGN_OR_RETURN(float norm, ctx.attrs().GetFloat("norm_coefficient", 0.f));
  s.norm = norm;
  if (kKind == Optimizer::kAdagrad) {
    QRT_ASSIGN_OR_RETURN(float decay, ctx.attrs().GetFloat("decay_factor", 0.f));
    QRT_ASSIGN_OR_RETURN(float eps, ctx.attrs().GetFloat("epsilon", 1e-6f));
    s.decay = decay, s.epsilon = eps;
  } else if (kKind == Optimizer::kMomentum) {
    QRT_ASSIGN_OR_RETURN(float alpha, ctx.attrs().GetFloat("alpha"));
    QRT_ASSIGN_OR_RETURN(float beta, ctx.attrs().GetFloat("beta"));
    QRT_ASSIGN_OR_RETURN(std::string mode, ctx.attrs().GetString("mode"));
    if (mode != "standard" && mode != "nesterov") return InvalidArgument("mode must be standard or nesterov");
    s.alpha = alpha, s.beta = beta, s.nesterov = mode == "nesterov";
  } else {
    QRT_ASSIGN_OR_RETURN(float alpha, ctx.attrs().GetFloat("alpha", 0.9f));
    QRT_ASSIGN_OR_RETURN(float beta, ctx.attrs().GetFloat("beta", 0.999f));
    QRT_ASSIGN_OR_RETURN(float eps, ctx.attrs().GetFloat("epsilon", 1e-6f));
    QRT_ASSIGN_OR_RETURN(float post, ctx.attrs().GetFloat("norm_coefficient_post", 0.f));
    s.alpha = alpha, s.beta = beta, s.epsilon = eps, s.norm_post = post;
  }
  ctx.SetKernel<OptimizerState, RunOptimizer>(std::move(s));
  return Status::Ok();
}

}  // namespace

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";
const OpDef kAdagradOp{kTrainingDomain, "Adagrad", 5, 1 << 20, 2, 1 << 20, PrepareOptimizer<Optimizer::kAdagrad>};
const OpDef kMomentumOp{kTrainingDomain, "Momentum", 5, 1 << 20, 2, 1 << 20, PrepareOptimizer<Optimizer::kMomentum>};
const OpDef kAdamOp{kTrainingDomain, "Adam", 6, 1 << 20, 3, 1 << 20, PrepareOptimizer<Optimizer::kAdam>};

}  // namespace qrt
