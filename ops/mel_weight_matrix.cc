// MelWeightMatrix (opset 17): the [dft_length / 2 + 1, num_mel_bins] matrix of triangular filters
// that maps a linear-frequency spectrum to mel bins, as ONNX defines it: num_mel_bins + 2 points
// evenly spaced in mel (2595 log10(1 + f / 700)) from lower_edge_hertz to upper_edge_hertz, the
// step being the span over num_mel_bins + 2, converted back to hertz and to spectrum bins
// floor((dft_length + 1) f / sample_rate); filter i rises from point i to point i + 1 (a single 1
// when they coincide) and falls to point i + 2. Computed in double, rounded once to
// output_datatype (float32 by default). The inputs are known scalars.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

StatusOr<double> KnownScalar(const PrepareContext& ctx, int i, const char* what) {
  if (ElementCount(ctx.input(i).dims) != 1) return InvalidArgument(what, " must be a scalar");
  if (ctx.input(i).value == nullptr) return NeedsConstant(ctx, i, what);
  return ctx.input(i).value->GetAsDouble(0);
}

struct MelState {
  DataType dtype;
  std::vector<double> weights;  // bins x mel bins
};

Status RunMel(const MelState& s, const RunArgs& args) {
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using C = typename E::Compute;
    auto* y = args.output(0)->data<typename E::Stored>();
    for (size_t i = 0; i < s.weights.size(); ++i) y[i] = E::Store(C(s.weights[i]));
  });
  return Status::Ok();
}

Status PrepareMelWeightMatrix(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(double mel_bins_d, KnownScalar(ctx, 0, "num_mel_bins"));
  QRT_ASSIGN_OR_RETURN(double dft_d, KnownScalar(ctx, 1, "dft_length"));
  QRT_ASSIGN_OR_RETURN(double rate, KnownScalar(ctx, 2, "sample_rate"));
  QRT_ASSIGN_OR_RETURN(double lower, KnownScalar(ctx, 3, "lower_edge_hertz"));
  QRT_ASSIGN_OR_RETURN(double upper, KnownScalar(ctx, 4, "upper_edge_hertz"));
  constexpr double kMaxSize = double(int64_t(1) << 24);
  if (!(mel_bins_d >= 1 && mel_bins_d <= kMaxSize) || !(dft_d >= 1 && dft_d <= kMaxSize) || !(rate > 0)) {
    return InvalidArgument("num_mel_bins ", mel_bins_d, ", dft_length ", dft_d, " and sample_rate ", rate,
                           " must be positive (and at most 2^24)");
  }
  if (!(lower >= 0 && upper >= lower && std::isfinite(upper))) {
    return InvalidArgument("the edges must satisfy 0 <= lower_edge_hertz <= upper_edge_hertz");
  }
  QRT_ASSIGN_OR_RETURN(int64_t code, ctx.attrs().GetInt("output_datatype", 1));
  const std::optional<DataType> dtype = DataTypeFromOnnx(int(code));
  if (!dtype || !IsFloatType(*dtype)) return InvalidArgument("output_datatype ", code, " is not a float type");
  const int64_t mel_bins = int64_t(mel_bins_d), dft = int64_t(dft_d), bins = dft / 2 + 1;
  if (double(bins) * double(mel_bins) > kMaxSize) return InvalidArgument("the matrix would have over 2^24 entries");
  const double low_mel = 2595 * std::log10(1 + lower / 700), high_mel = 2595 * std::log10(1 + upper / 700);
  const double step = (high_mel - low_mel) / double(mel_bins + 2);
  std::vector<int64_t> points(size_t(mel_bins + 2));
  for (int64_t k = 0; k < mel_bins + 2; ++k) {
    const double hz = 700 * (std::pow(10.0, (double(k) * step + low_mel) / 2595) - 1);
    points[size_t(k)] = int64_t(std::floor(double(dft + 1) * hz / rate));
  }
  MelState s;
  s.dtype = *dtype;
  s.weights.assign(size_t(bins * mel_bins), 0.0);
  auto set = [&](int64_t j, int64_t i, double v) {
    if (j >= 0 && j < bins) s.weights[size_t(j * mel_bins + i)] = v;
  };
  for (int64_t i = 0; i < mel_bins; ++i) {
    const int64_t lo = points[size_t(i)], center = points[size_t(i + 1)], hi = points[size_t(i + 2)];
    if (center == lo) {
      set(center, i, 1.0);
    } else {
      for (int64_t j = std::max<int64_t>(lo, 0); j <= std::min(center, bins - 1); ++j) {
        set(j, i, double(j - lo) / double(center - lo));
      }
    }
    for (int64_t j = std::max<int64_t>(center, 0); j < std::min(hi, bins); ++j) {
      set(j, i, double(hi - j) / double(hi - center));
    }
  }
  ctx.SetOutput(0, s.dtype, {bins, mel_bins});
  ctx.SetKernel<MelState, RunMel>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kMelWeightMatrixOp{"", "MelWeightMatrix", 5, 5, 1, 1, PrepareMelWeightMatrix};

}  // namespace qrt
