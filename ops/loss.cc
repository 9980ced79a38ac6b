// The loss ops: NegativeLogLikelihoodLoss(input [N, C, d...], target [N, d...], weight [C]?)
// and SoftmaxCrossEntropyLoss(scores, labels, weights?) = the same loss over
// LogSoftmax(scores, axis 1), whose log-probabilities are the optional second output.
//   loss[n, d] = -input[n, t, d] * w[t]  (t = target[n, d]; 0 where t == ignore_index)
//   reduction none: loss; sum: sum of loss; mean: sum of loss / sum of w[t] over the
//   elements not ignored (w = 1 without weights). Sums in double, one rounding.
// A target outside [0, C) that is not ignore_index is an error.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Reduction { kNone, kSum, kMean };

struct LossState {
  DataType dtype, target_dtype;
  int64_t n = 1, c = 1, inner = 1;  // input as [n, c, inner]
  Reduction reduction = Reduction::kMean;
  bool has_ignore = false;
  int64_t ignore_index = 0;
  bool softmax = false;  // SoftmaxCrossEntropyLoss
  bool has_weight = false;
};

template <class E>
Status LossTyped(const LossState& s, const RunArgs& args) {
  using S = typename E::Stored;
  using C = typename E::Compute;
  const S* x = args.input(0)->data<S>();
  const Tensor& target = *args.input(1);
  const S* w = s.has_weight ? args.input(2)->data<S>() : nullptr;
  const int64_t plane = s.c * s.inner;
  std::vector<double> logp;
  if (s.softmax) {
    // log-softmax over the class axis, in double, rounded once where it is an output.
    logp.resize(size_t(s.n * plane));
    S* lp_out = args.num_outputs > 1 && args.output(1) ? args.output(1)->data<S>() : nullptr;
    for (int64_t b = 0; b < s.n; ++b) {
      for (int64_t k = 0; k < s.inner; ++k) {
        const int64_t base = b * plane + k;
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < s.c; ++j) m = std::max(m, double(E::Load(x[base + j * s.inner])));
        double sum = 0;
        for (int64_t j = 0; j < s.c; ++j) sum += std::exp(double(E::Load(x[base + j * s.inner])) - m);
        const double log_sum = std::log(sum);
        for (int64_t j = 0; j < s.c; ++j) {
          const int64_t at = base + j * s.inner;
          logp[size_t(at)] = double(E::Load(x[at])) - m - log_sum;
          if (lp_out) lp_out[at] = E::Store(C(logp[size_t(at)]));
        }
      }
    }
  }
  S* y = args.output(0)->data<S>();
  double total = 0, weight_sum = 0;
  for (int64_t b = 0; b < s.n; ++b) {
    for (int64_t k = 0; k < s.inner; ++k) {
      const int64_t t = target.GetAsInt64(b * s.inner + k);
      double loss = 0, wt = 0;
      if (!(s.has_ignore && t == s.ignore_index)) {
        if (t < 0 || t >= s.c) return InvalidArgument("target ", t, " is out of range for ", s.c, " classes");
        const int64_t at = b * plane + t * s.inner + k;
        wt = w ? double(E::Load(w[t])) : 1.0;
        const double v = s.softmax ? logp[size_t(at)] : double(E::Load(x[at]));
        loss = -v * wt;
      }
      if (s.reduction == Reduction::kNone) y[b * s.inner + k] = E::Store(C(loss));
      total += loss;
      weight_sum += wt;
    }
  }
  if (s.reduction == Reduction::kSum) y[0] = E::Store(C(total));
  if (s.reduction == Reduction::kMean) y[0] = E::Store(C(weight_sum == 0 ? 0.0 : total / weight_sum));
  return Status::Ok();
}

Status RunLoss(const LossState& s, const RunArgs& args) {
  Status st;
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    if constexpr (std::is_floating_point_v<typename E::Compute>) st = LossTyped<E>(s, args);
  });
  return st;
}

template <bool kSoftmax>
Status PrepareLoss(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& t = ctx.input(1);
  if (!IsFloatType(x.dtype)) return InvalidArgument("input must be a float type, not ", DataTypeName(x.dtype));
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt32, DataType::kInt64}));
  if (x.dims.size() < 2) return InvalidArgument("input must be [N, C, ...]");
  Dims expect = {x.dims[0]};
  expect.insert(expect.end(), x.dims.begin() + 2, x.dims.end());
  if (t.dims != expect) {
    return InvalidArgument("target ", DimsToString(t.dims), " must have shape ", DimsToString(expect));
  }
  LossState s;
  s.dtype = x.dtype;
  s.target_dtype = t.dtype;
  s.softmax = kSoftmax;
  s.n = x.dims[0];
  s.c = x.dims[1];
  for (size_t d = 2; d < x.dims.size(); ++d) s.inner *= x.dims[d];
  if (ctx.has_input(2)) {
    if (ctx.input(2).dtype != x.dtype || ctx.input(2).dims != Dims{s.c}) {
      return InvalidArgument("weight must be [", s.c, "] of the input's dtype");
    }
    s.has_weight = true;
  }
  QRT_ASSIGN_OR_RETURN(std::string reduction, ctx.attrs().GetString("reduction", "mean"));
  if (reduction == "none") {
    s.reduction = Reduction::kNone;
  } else if (reduction == "sum") {
    s.reduction = Reduction::kSum;
  } else if (reduction == "mean") {
    s.reduction = Reduction::kMean;
  } else {
    return InvalidArgument("reduction must be none, sum or mean, not \"", reduction, "\"");
  }
  s.has_ignore = ctx.attrs().Has("ignore_index");
  if (s.has_ignore) {
    QRT_ASSIGN_OR_RETURN(s.ignore_index, ctx.attrs().GetInt("ignore_index"));
  }
  ctx.SetOutput(0, x.dtype, s.reduction == Reduction::kNone ? t.dims : Dims{});
  if (kSoftmax && ctx.num_outputs() > 1) ctx.SetOutput(1, x.dtype, x.dims);
  ctx.SetKernel<LossState, RunLoss>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kNegativeLogLikelihoodLossOp{"", "NegativeLogLikelihoodLoss", 2, 3, 1, 1, PrepareLoss<false>};
const OpDef kSoftmaxCrossEntropyLossOp{"", "SoftmaxCrossEntropyLoss", 2, 3, 1, 2, PrepareLoss<true>};

}  // namespace qrt
