// The random generators: RandomUniform, RandomNormal (a shape attribute), RandomUniformLike,
// RandomNormalLike (the shape of an input), Bernoulli (1 with each input's probability) and
// Multinomial (sample_size class indices per row of unnormalised log-probabilities). Each run
// draws new values: the kernel runs every time (never at plan time). With a `seed` attribute
// the node's generator starts from that seed when the plan is made and continues from run to
// run, so a fresh compile repeats the same sequence; without one it starts from a random seed.
// The values are qrt's own (no two runtimes share a generator): the ONNX node tests of these ops
// check their dtypes, shapes and ranges.
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Draw { kUniform, kNormal, kBernoulli, kMultinomial };

struct Generator {
  std::mutex mutex;
  std::mt19937_64 engine;
};

struct RandomState {
  Draw draw;
  DataType dtype;
  double a = 0, b = 1;  // uniform: [low, high); normal: mean, scale
  int64_t rows = 0, classes = 0, samples = 1;
  std::shared_ptr<Generator> generator;
};

template <class F>
void Fill(const RandomState& s, Tensor& y, F next) {
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using C = typename E::Compute;
    auto* p = y.data<typename E::Stored>();
    for (int64_t i = 0; i < y.numel(); ++i) p[i] = E::Store(C(next(i)));
  });
}

Status RunRandom(const RandomState& s, const RunArgs& args) {
  std::lock_guard<std::mutex> lock(s.generator->mutex);
  std::mt19937_64& g = s.generator->engine;
  Tensor& y = *args.output(0);
  switch (s.draw) {
    case Draw::kUniform: {
      std::uniform_real_distribution<double> d(s.a, s.b);
      Fill(s, y, [&](int64_t) { return d(g); });
      break;
    }
    case Draw::kNormal: {
      std::normal_distribution<double> d(s.a, s.b);
      Fill(s, y, [&](int64_t) { return d(g); });
      break;
    }
    case Draw::kBernoulli: {
      const Tensor& p = *args.input(0);
      std::uniform_real_distribution<double> d(0.0, 1.0);
      Fill(s, y, [&](int64_t i) { return d(g) < p.GetAsDouble(i) ? 1.0 : 0.0; });
      break;
    }
    case Draw::kMultinomial: {
      const Tensor& x = *args.input(0);
      std::vector<double> weights(size_t(s.classes));
      for (int64_t r = 0; r < s.rows; ++r) {
        double top = -INFINITY;
        for (int64_t c = 0; c < s.classes; ++c) top = std::max(top, x.GetAsDouble(r * s.classes + c));
        for (int64_t c = 0; c < s.classes; ++c) weights[size_t(c)] = std::exp(x.GetAsDouble(r * s.classes + c) - top);
        std::discrete_distribution<int64_t> d(weights.begin(), weights.end());
        for (int64_t k = 0; k < s.samples; ++k) {
          const int64_t v = d(g);
          if (s.dtype == DataType::kInt32)
            y.data<int32_t>()[r * s.samples + k] = int32_t(v);
          else
            y.data<int64_t>()[r * s.samples + k] = v;
        }
      }
      break;
    }
  }
  return Status::Ok();
}

StatusOr<std::shared_ptr<Generator>> MakeGenerator(const PrepareContext& ctx) {
  auto g = std::make_shared<Generator>();
  if (ctx.attrs().Has("seed")) {
    QRT_ASSIGN_OR_RETURN(float seed, ctx.attrs().GetFloat("seed"));
    uint32_t bits;
    std::memcpy(&bits, &seed, sizeof bits);
    g->engine.seed(bits);
  } else {
    g->engine.seed(std::random_device{}());
  }
  return g;
}

// The dtype attribute (an ONNX code), or `fallback` when absent.
StatusOr<DataType> DtypeAttr(const PrepareContext& ctx, DataType fallback, bool floats_only) {
  if (!ctx.attrs().Has("dtype")) return fallback;
  QRT_ASSIGN_OR_RETURN(int64_t code, ctx.attrs().GetInt("dtype"));
  const std::optional<DataType> t = DataTypeFromOnnx(int(code));
  if (!t || (floats_only && !IsFloatType(*t))) return InvalidArgument("dtype ", code, " is not a supported type here");
  return *t;
}

template <Draw kDraw, bool kLike>
Status PrepareRandom(PrepareContext& ctx) {
  RandomState s;
  s.draw = kDraw;
  Dims dims;
  if (kLike) {
    QRT_ASSIGN_OR_RETURN(s.dtype, DtypeAttr(ctx, ctx.input(0).dtype, true));
    dims = ctx.input(0).dims;
  } else {
    QRT_ASSIGN_OR_RETURN(s.dtype, DtypeAttr(ctx, DataType::kFloat32, true));
    QRT_ASSIGN_OR_RETURN(dims, ctx.attrs().GetInts("shape"));
    for (int64_t d : dims) {
      if (d < 0) return InvalidArgument("shape has a negative dimension ", d);
    }
    QRT_RETURN_IF_ERROR(CheckedElementCount(dims, DataTypeSize(s.dtype)).status());
  }
  if (!IsFloatType(s.dtype)) return InvalidArgument("the output must be a float type");
  if (kDraw == Draw::kUniform) {
    QRT_ASSIGN_OR_RETURN(float low, ctx.attrs().GetFloat("low", 0.f));
    QRT_ASSIGN_OR_RETURN(float high, ctx.attrs().GetFloat("high", 1.f));
    if (!(low < high)) return InvalidArgument("low ", low, " must be below high ", high);
    s.a = low, s.b = high;
  } else {
    QRT_ASSIGN_OR_RETURN(float mean, ctx.attrs().GetFloat("mean", 0.f));
    QRT_ASSIGN_OR_RETURN(float scale, ctx.attrs().GetFloat("scale", 1.f));
    if (!(scale > 0)) return InvalidArgument("scale ", scale, " must be positive");
    s.a = mean, s.b = scale;
  }
  QRT_ASSIGN_OR_RETURN(s.generator, MakeGenerator(ctx));
  ctx.SetOutput(0, s.dtype, dims);
  ctx.SetRunsEveryTime();
  ctx.SetKernel<RandomState, RunRandom>(std::move(s));
  return Status::Ok();
}

Status PrepareBernoulli(PrepareContext& ctx) {
  RandomState s;
  s.draw = Draw::kBernoulli;
  if (!IsFloatType(ctx.input(0).dtype)) return InvalidArgument("the probabilities must be floats");
  QRT_ASSIGN_OR_RETURN(s.dtype, DtypeAttr(ctx, ctx.input(0).dtype, false));
  if (!DispatchElem(s.dtype, [](auto) {})) return InvalidArgument("unsupported output dtype");
  QRT_ASSIGN_OR_RETURN(s.generator, MakeGenerator(ctx));
  ctx.SetOutput(0, s.dtype, ctx.input(0).dims);
  ctx.SetRunsEveryTime();
  ctx.SetKernel<RandomState, RunRandom>(std::move(s));
  return Status::Ok();
}

Status PrepareMultinomial(PrepareContext& ctx) {
  RandomState s;
  s.draw = Draw::kMultinomial;
  const TensorInfo& x = ctx.input(0);
  if (!IsFloatType(x.dtype) || x.dims.size() != 2) return InvalidArgument("input must be float [batch, classes]");
  QRT_ASSIGN_OR_RETURN(s.dtype, DtypeAttr(ctx, DataType::kInt32, false));
  if (s.dtype != DataType::kInt32 && s.dtype != DataType::kInt64)
    return InvalidArgument("dtype must be int32 or int64");
  QRT_ASSIGN_OR_RETURN(s.samples, ctx.attrs().GetInt("sample_size", 1));
  if (s.samples < 1) return InvalidArgument("sample_size must be positive");
  s.rows = x.dims[0], s.classes = x.dims[1];
  if (s.classes < 1) return InvalidArgument("there must be at least one class");
  QRT_RETURN_IF_ERROR(CheckedElementCount({s.rows, s.samples}, 8).status());
  QRT_ASSIGN_OR_RETURN(s.generator, MakeGenerator(ctx));
  ctx.SetOutput(0, s.dtype, {s.rows, s.samples});
  ctx.SetRunsEveryTime();
  ctx.SetKernel<RandomState, RunRandom>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kRandomUniformOp{"", "RandomUniform", 0, 0, 1, 1, PrepareRandom<Draw::kUniform, false>};
const OpDef kRandomNormalOp{"", "RandomNormal", 0, 0, 1, 1, PrepareRandom<Draw::kNormal, false>};
const OpDef kRandomUniformLikeOp{"", "RandomUniformLike", 1, 1, 1, 1, PrepareRandom<Draw::kUniform, true>};
const OpDef kRandomNormalLikeOp{"", "RandomNormalLike", 1, 1, 1, 1, PrepareRandom<Draw::kNormal, true>};
const OpDef kBernoulliOp{"", "Bernoulli", 1, 1, 1, 1, PrepareBernoulli};
const OpDef kMultinomialOp{"", "Multinomial", 1, 1, 1, 1, PrepareMultinomial};

}  // namespace qrt
