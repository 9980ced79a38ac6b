// Dropout. At inference (no training_mode, or false, or a ratio of 0) it copies its input and
// its optional mask is all true. In training mode (opset 12+, a known true training_mode) it
// keeps each element with probability 1 - ratio: mask = uniform draw >= ratio, y = mask ? x /
// (1 - ratio) : 0, computed in double and rounded once to x's type. Each run draws a new mask
// (the kernel runs every time); a `seed` attribute starts the node's generator from that seed.
#include <cstring>
#include <memory>
#include <mutex>
#include <random>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

Status RunDropoutInference(const RunArgs& args) {
  const Tensor& x = *args.input(0);
  Tensor& y = *args.output(0);
  if (x.nbytes() && y.raw() != x.raw()) std::memcpy(y.raw(), x.raw(), x.nbytes());
  if (args.num_outputs > 1 && args.output(1) != nullptr) {
    Tensor& mask = *args.output(1);
    std::memset(mask.raw(), 1, mask.nbytes());
  }
  return Status::Ok();
}

struct DropoutState {
  DataType dtype;
  double ratio = 0.5;
  struct Generator {
    std::mutex mutex;
    std::mt19937_64 engine;
  };
  std::shared_ptr<Generator> generator;
};

Status RunDropoutTraining(const DropoutState& s, const RunArgs& args) {
  const Tensor& x = *args.input(0);
  Tensor& y = *args.output(0);
  bool* mask = args.num_outputs > 1 && args.output(1) ? args.output(1)->data<bool>() : nullptr;
  std::lock_guard<std::mutex> lock(s.generator->mutex);
  std::uniform_real_distribution<double> draw(0.0, 1.0);
  const double scale = 1.0 / (1.0 - s.ratio);
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using C = typename E::Compute;
    if constexpr (std::is_floating_point_v<C>) {
      const auto* px = x.data<typename E::Stored>();
      auto* py = y.data<typename E::Stored>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        const bool keep = draw(s.generator->engine) >= s.ratio;
        py[i] = E::Store(C(keep ? double(E::Load(px[i])) * scale : 0.0));
        if (mask) mask[i] = keep;
      }
    }
  });
  return Status::Ok();
}

Status PrepareDropout(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  bool training = false;
  double ratio = 0.5;
  if (ctx.opset() >= 12 && ctx.has_input(2)) {
    const TensorInfo& mode = ctx.input(2);
    if (mode.dtype != DataType::kBool || ElementCount(mode.dims) != 1) {
      return InvalidArgument("training_mode must be a bool scalar");
    }
    if (mode.value == nullptr) return NeedsConstant(ctx, 2, "training_mode");
    training = mode.value->GetAsInt64(0) != 0;
    if (ctx.has_input(1)) {
      if (ElementCount(ctx.input(1).dims) != 1) return InvalidArgument("ratio must be a scalar");
      if (ctx.input(1).value == nullptr) return NeedsConstant(ctx, 1, "ratio");
      ratio = ctx.input(1).value->GetAsDouble(0);
    }
  }
  ctx.SetOutput(0, x.dtype, x.dims);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DataType::kBool, x.dims);
  if (!training || ratio == 0) {
    ctx.SetKernel<RunDropoutInference>();
    return Status::Ok();
  }
  if (!(ratio > 0 && ratio < 1)) return InvalidArgument("ratio must be in [0, 1), got ", ratio);
  if (!IsFloatType(x.dtype)) return InvalidArgument("Dropout in training mode takes floats");
  DropoutState s;
  s.dtype = x.dtype;
  s.ratio = ratio;
  s.generator = std::make_shared<DropoutState::Generator>();
  if (ctx.attrs().Has("seed")) {
    QRT_ASSIGN_OR_RETURN(int64_t seed, ctx.attrs().GetInt("seed"));
    s.generator->engine.seed(uint64_t(seed));
  } else {
    s.generator->engine.seed(std::random_device{}());
  }
  ctx.SetRunsEveryTime();
  ctx.SetKernel<DropoutState, RunDropoutTraining>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kDropoutOp{"", "Dropout", 1, 3, 1, 2, PrepareDropout};

}  // namespace qrt
