// DFT (opset 17) and STFT: the discrete Fourier transform by its definition, each output bin
//   X[k] = sum_n x[n] * exp(-+2 pi i k n / N)   (the inverse divides by N)
// summed in double in order of n and rounded once; real input has a last dim of 1, complex of
// 2 (re, im); dft_length pads with zeros or truncates; onesided keeps the N/2 + 1 first bins.
// STFT frames the signal by frame_step, multiplies each frame by the window (if given) and
// takes the DFT of every frame.
#include <cmath>
#include <vector>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct DftState {
  DataType dtype;
  bool stft = false, inverse = false, onesided = false, complex_in = false;
  int64_t outer = 1, length = 0, inner = 1;  // the signal axis between outer and inner dims
  int64_t n = 0, bins = 0;                   // DFT size and bins kept
  int64_t frames = 1, step = 0, frame_length = 0;
  bool has_window = false;
};

// One transform of `n` complex points read by at(j) -> (re, im), into out[b] for b < bins.
template <class At, class Out>
void Transform(int64_t n, int64_t bins, bool inverse, At at, Out out) {
  const double sign = inverse ? 1.0 : -1.0, two_pi = 6.283185307179586476925286766559;
  for (int64_t k = 0; k < bins; ++k) {
    double re = 0, im = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double a = sign * two_pi * double((k * j) % n) / double(n);
      const auto [xr, xi] = at(j);
      re += xr * std::cos(a) - xi * std::sin(a);
      im += xr * std::sin(a) + xi * std::cos(a);
    }
    if (inverse) re /= double(n), im /= double(n);
    out(k, re, im);
  }
}

template <class E>
void DftTyped(const DftState& s, const RunArgs& args) {
  using C = typename E::Compute;
  const auto* x = args.input(0)->data<typename E::Stored>();
  auto* y = args.output(0)->data<typename E::Stored>();
  const int64_t comps = s.complex_in ? 2 : 1;
  const auto* window = s.has_window ? args.input(2)->data<typename E::Stored>() : nullptr;
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t f = 0; f < s.frames; ++f) {
      for (int64_t i = 0; i < s.inner; ++i) {
        auto at = [&](int64_t j) -> std::pair<double, double> {
          const int64_t t = s.stft ? f * s.step + j : j;
          if (j >= (s.stft ? s.frame_length : s.length) || t >= s.length) return {0.0, 0.0};
          const int64_t base = ((o * s.length + t) * s.inner + i) * comps;
          const double w = window ? double(E::Load(window[j])) : 1.0;
          return {double(E::Load(x[base])) * w, comps == 2 ? double(E::Load(x[base + 1])) * w : 0.0};
        };
        Transform(s.n, s.bins, s.inverse, at, [&](int64_t k, double re, double im) {
          const int64_t base = (((o * s.frames + f) * s.bins + k) * s.inner + i) * 2;
          y[base] = E::Store(C(re));
          y[base + 1] = E::Store(C(im));
        });
      }
    }
  }
}

Status RunDft(const DftState& s, const RunArgs& args) {
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    if constexpr (std::is_floating_point_v<typename E::Compute>) DftTyped<E>(s, args);
  });
  return Status::Ok();
}

StatusOr<int64_t> KnownScalar(const PrepareContext& ctx, int i, const char* what) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, i, {DataType::kInt32, DataType::kInt64}));
  if (ElementCount(ctx.input(i).dims) != 1) return InvalidArgument(what, " must be a scalar");
  if (ctx.input(i).value == nullptr) return NeedsConstant(ctx, i, what);
  return ctx.input(i).value->GetAsInt64(0);
}

Status PrepareDft(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (!IsFloatType(x.dtype)) return InvalidArgument("input must be a float type");
  const int64_t rank = int64_t(x.dims.size());
  if (rank < 2 || (x.dims.back() != 1 && x.dims.back() != 2)) return InvalidArgument("the last dim must be 1 or 2");
  if (ctx.opset() >= 20) return Unsupported("DFT-20 (axis as an input)");
  DftState s;
  s.dtype = x.dtype;
  s.complex_in = x.dims.back() == 2;
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", 1));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank - 1));
  QRT_ASSIGN_OR_RETURN(int64_t inverse, ctx.attrs().GetInt("inverse", 0));
  QRT_ASSIGN_OR_RETURN(int64_t onesided, ctx.attrs().GetInt("onesided", 0));
  s.inverse = inverse != 0;
  s.onesided = onesided != 0;
  if (s.onesided && s.complex_in) return InvalidArgument("onesided needs a real input");
  for (int64_t d = 0; d < rank - 1; ++d) {
    if (d < axis) s.outer *= x.dims[size_t(d)];
    if (d > axis) s.inner *= x.dims[size_t(d)];
  }
  s.length = x.dims[size_t(axis)];
  s.n = s.length;
  if (ctx.has_input(1)) {
    QRT_ASSIGN_OR_RETURN(s.n, KnownScalar(ctx, 1, "dft_length"));
  }
  if (s.n < 1) return InvalidArgument("dft_length must be positive");
  s.bins = s.onesided ? s.n / 2 + 1 : s.n;
  Dims out = x.dims;
  out[size_t(axis)] = s.bins;
  out.back() = 2;
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, DataTypeSize(x.dtype)).status());
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<DftState, RunDft>(std::move(s));
  return Status::Ok();
}

Status PrepareStft(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (!IsFloatType(x.dtype)) return InvalidArgument("signal must be a float type");
  if (x.dims.size() != 3 || (x.dims[2] != 1 && x.dims[2] != 2))
    return InvalidArgument("signal must be [batch, length, 1 or 2]");
  DftState s;
  s.stft = true;
  s.dtype = x.dtype;
  s.complex_in = x.dims[2] == 2;
  s.outer = x.dims[0];
  s.length = x.dims[1];
  QRT_ASSIGN_OR_RETURN(s.step, KnownScalar(ctx, 1, "frame_step"));
  if (s.step < 1) return InvalidArgument("frame_step must be positive");
  if (ctx.has_input(2)) {
    if (ctx.input(2).dtype != x.dtype || ctx.input(2).dims.size() != 1) return InvalidArgument("window must be 1-D");
    s.has_window = true;
    s.frame_length = ctx.input(2).dims[0];
  }
  if (ctx.has_input(3)) {
    QRT_ASSIGN_OR_RETURN(int64_t fl, KnownScalar(ctx, 3, "frame_length"));
    if (s.has_window && fl != s.frame_length) return InvalidArgument("frame_length differs from the window's length");
    s.frame_length = fl;
  }
  if (s.frame_length < 1 || s.frame_length > s.length)
    return InvalidArgument("frame_length must be in [1, signal length]");
  QRT_ASSIGN_OR_RETURN(int64_t onesided, ctx.attrs().GetInt("onesided", 1));
  s.onesided = onesided != 0 && !s.complex_in;
  s.n = s.frame_length;
  s.bins = s.onesided ? s.n / 2 + 1 : s.n;
  s.frames = (s.length - s.frame_length) / s.step + 1;
  const Dims out = {s.outer, s.frames, s.bins, 2};
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, DataTypeSize(x.dtype)).status());
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<DftState, RunDft>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kDftOp{"", "DFT", 1, 2, 1, 1, PrepareDft};
const OpDef kStftOp{"", "STFT", 2, 4, 1, 1, PrepareStft};

}  // namespace qrt
