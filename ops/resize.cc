// Resize (opsets 10-21). Every axis maps output index o to a source coordinate x with the
// coordinate_transformation_mode, in ONNX Runtime's float order (ops/resize_coordinates.h,
// docs/float-order.md): the formulas' length_resized is the output length, the scale is a
// float (sizes give float(out) / float(in)), and an axis of scale 1 keeps o (but for
// tf_crop_and_resize, whose roi can move it). Opset 10 has only `mode`: asymmetric
// coordinates and, for nearest, ceil when shrinking and truncation otherwise.
//   nearest  one tap, x rounded by nearest_mode and clamped to the input. Copies bytes:
//            every dtype.
//   linear   x clamped to [0, in-1]; taps i1 = trunc(x) and i2 = min(i1 + 1, in-1) weighted
//            |x - i2| and |x - i1| (0.5 each when i1 == i2).
//   cubic    taps floor(x)-1 .. floor(x)+2 (clamped to the input) with Keys' coefficients
//            for cubic_coeff_a; exclude_outside zeroes taps outside the input and divides
//            by the sum of those left.
// The interpolated axes are those ORT's kernels interpolate (2-D and 3-D: all; 4-D with the
// two outer scales 1: the last two, with the first and last 1: the middle two; 5-D with the
// two outer scales 1: the last three), and elsewhere every axis that changes. Linear sums,
// innermost axis fastest, the terms (w_inner * ... * w_outer) * x, starting from the first
// term. Cubic interpolates along the innermost axis first, sum of (c / sum) * x from 0, then
// each outer axis as the sum of (inner * c) / sum from 0. float64 computes in double, every
// other float type in float. tf_crop_and_resize gives extrapolation_value where an
// interpolated coordinate leaves [0, in-1].
// antialias (opset 18, linear and cubic) stretches the filter by max(1, in/out): each
// interpolated axis in turn, innermost first, is a pass over a float buffer whose output j
// sums w * x from 0 over its window, the weights those of ORT's filter (triangle, or Keys'
// cubic for cubic_coeff_a) at (i - center + 0.5) / stretch, normalized by one multiply by
// 1 / their sum; without exclude_outside the weights outside the input fold onto the edges.
#include <algorithm>
#include <array>
#include <cmath>

#include "ops/kernels/common/index_map.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/resize_coordinates.h"

namespace qrt {
namespace {

enum class Mode { kNearest, kLinear, kCubic };

// A coordinate made safe to convert to an integer: a NaN (inf - inf from a huge roi) or
// an out-of-range float converted to int64 is undefined behaviour. Clamping to +-2^40
// keeps every index and fraction a real coordinate gives (both are clamped to the input
// afterwards, and a float beyond 2^24 has no fraction); NaN lands before the input.
template <class F>
F Tame(F x) {
  constexpr F kLimit = F(int64_t(1) << 40);
  return std::isnan(x) ? F(-1) : std::clamp(x, -kLimit, kLimit);
}

// Per interpolated axis, output index o's taps are [start[o], start[o+1]) of offset (input
// index * stride) and weight; outside[o] makes the element the extrapolation value.
template <class F>
struct AxisTaps {
  int axis = 0;
  std::vector<int64_t> start;
  std::vector<int64_t> offset;
  std::vector<F> weight;
  std::vector<F> sum;  // cubic: the divisor of each output index
  std::vector<char> outside;
};

template <class F>
struct InterpState {
  DataType dtype;
  Mode mode;
  Dims out_dims;
  std::vector<int64_t> pass_stride;  // per axis: input stride of a pass-through axis, else 0
  std::vector<AxisTaps<F>> axes;     // interpolated axes, innermost first
  std::vector<int> axis_slot;        // per axis: index into `axes`, or -1
  F fill = 0;
};

template <class F>
F Load(DataType t, const void* x, int64_t i) {
  if constexpr (sizeof(F) == 8) {
    return static_cast<const double*>(x)[i];
  } else {
    return LoadFloat(t, x, i);
  }
}

template <class F>
void Store(DataType t, void* y, int64_t i, F v) {
  if constexpr (sizeof(F) == 8) {
    static_cast<double*>(y)[i] = v;
  } else {
    StoreFloat(t, y, i, v);
  }
}

// Cubic along axes[level] and the axes inside it, at input offset `base`.
template <class F>
F CubicAt(const InterpState<F>& s, const void* x, const int64_t* idx, size_t level, int64_t base) {
  const AxisTaps<F>& a = s.axes[level];
  const size_t o = size_t(idx[a.axis]);
  const F sum = a.sum[o];
  F r = 0;
  for (int64_t t = a.start[o]; t < a.start[o + 1]; ++t) {
    if (level == 0) {
      r += a.weight[size_t(t)] / sum * Load<F>(s.dtype, x, base + a.offset[size_t(t)]);
    } else {
      r += CubicAt(s, x, idx, level - 1, base + a.offset[size_t(t)]) * a.weight[size_t(t)] / sum;
    }
  }
  return r;
}

template <class F>
F LinearAt(const InterpState<F>& s, const void* x, const int64_t* idx, int64_t base) {
  const size_t n = s.axes.size();
  int64_t t[kMaxRank];
  for (size_t k = 0; k < n; ++k) t[k] = s.axes[k].start[size_t(idx[s.axes[k].axis])];
  F acc = 0;
  bool first = true;
  while (true) {
    int64_t off = base;
    F w = s.axes[0].weight[size_t(t[0])];
    off += s.axes[0].offset[size_t(t[0])];
    for (size_t k = 1; k < n; ++k) {
      w = w * s.axes[k].weight[size_t(t[k])];
      off += s.axes[k].offset[size_t(t[k])];
    }
    const F term = w * Load<F>(s.dtype, x, off);
    acc = first ? term : acc + term;
    first = false;
    size_t k = 0;
    for (; k < n; ++k) {
      const AxisTaps<F>& a = s.axes[k];
      if (++t[k] < a.start[size_t(idx[a.axis]) + 1]) break;
      t[k] = a.start[size_t(idx[a.axis])];
    }
    if (k == n) break;
  }
  return acc;
}

template <class F>
Status RunInterp(const InterpState<F>& s, const RunArgs& args) {
  const void* x = args.input(0)->raw();
  void* y = args.output(0)->raw();
  const size_t r = s.out_dims.size();
  const int64_t total = ElementCount(s.out_dims);
  int64_t idx[kMaxRank] = {0};
  for (int64_t e = 0; e < total; ++e) {
    bool outside = false;
    int64_t base = 0;
    for (size_t a = 0; a < r; ++a) {
      if (s.axis_slot[a] < 0) {
        base += idx[a] * s.pass_stride[a];
      } else {
        outside = outside || s.axes[size_t(s.axis_slot[a])].outside[size_t(idx[a])];
      }
    }
    F v = s.fill;
    if (!outside) v = s.mode == Mode::kLinear ? LinearAt(s, x, idx, base) : CubicAt(s, x, idx, s.axes.size() - 1, base);
    Store<F>(s.dtype, y, e, v);
    for (size_t a = r; a-- > 0;) {
      if (++idx[a] < s.out_dims[a]) break;
      idx[a] = 0;
    }
  }
  return Status::Ok();
}

// Linear over the last two axes with two taps on each (the usual upsampling of an NCHW image),
// in float32 or float64: LinearAt's terms in its order, unrolled, without its per-element
// tap walk and dtype switch.
template <class F>
bool LinearRowsApply(const InterpState<F>& s) {
  const size_t r = s.out_dims.size();
  if (s.mode != Mode::kLinear || s.axes.size() != 2 || r < 2 || s.axes[0].axis != int(r - 1) ||
      s.axes[1].axis != int(r - 2)) {
    return false;
  }
  if (s.dtype != (sizeof(F) == 8 ? DataType::kFloat64 : DataType::kFloat32)) return false;
  for (const AxisTaps<F>& a : s.axes) {
    for (size_t o = 0; o + 1 < a.start.size(); ++o) {
      if (a.start[o + 1] - a.start[o] != 2) return false;
    }
  }
  return true;
}

template <class F>
Status RunLinearRows(const InterpState<F>& s, const RunArgs& args) {
  const F* x = static_cast<const F*>(args.input(0)->raw());
  F* y = static_cast<F*>(args.output(0)->raw());
  const size_t r = s.out_dims.size();
  const AxisTaps<F>& w = s.axes[0];
  const AxisTaps<F>& h = s.axes[1];
  const int64_t out_w = s.out_dims[r - 1], out_h = s.out_dims[r - 2];
  const int64_t outer = out_w * out_h == 0 ? 0 : ElementCount(s.out_dims) / (out_w * out_h);
  int64_t idx[kMaxRank] = {0};
  for (int64_t e = 0; e < outer; ++e) {
    int64_t base = 0;
    for (size_t a = 0; a + 2 < r; ++a) base += idx[a] * s.pass_stride[a];
    for (int64_t oh = 0; oh < out_h; ++oh) {
      const int64_t th = h.start[size_t(oh)];
      const F* row0 = x + base + h.offset[size_t(th)];
      const F* row1 = x + base + h.offset[size_t(th + 1)];
      const F wh0 = h.weight[size_t(th)], wh1 = h.weight[size_t(th + 1)];
      const bool h_outside = h.outside[size_t(oh)] != 0;
      for (int64_t ow = 0; ow < out_w; ++ow, ++y) {
        const int64_t tw = w.start[size_t(ow)];
        if (h_outside || w.outside[size_t(ow)]) {
          *y = s.fill;
          continue;
        }
        const int64_t c0 = w.offset[size_t(tw)], c1 = w.offset[size_t(tw + 1)];
        const F ww0 = w.weight[size_t(tw)], ww1 = w.weight[size_t(tw + 1)];
        F acc = (ww0 * wh0) * row0[c0];
        acc = acc + (ww1 * wh0) * row0[c1];
        acc = acc + (ww0 * wh1) * row1[c0];
        acc = acc + (ww1 * wh1) * row1[c1];
        *y = acc;
      }
    }
    for (size_t a = r - 2; a-- > 0;) {
      if (++idx[a] < s.out_dims[a]) break;
      idx[a] = 0;
    }
  }
  return Status::Ok();
}

// antialias: per interpolated axis (innermost first), output j sums input indices
// [lo[j], hi[j]) with weights weight[j * window ...].
struct AntialiasAxis {
  int axis = 0;
  int64_t in = 0, out = 0;
  int64_t window = 0;
  std::vector<int64_t> lo, hi;
  std::vector<float> weight;
  std::vector<char> outside;
};

struct AntialiasState {
  DataType dtype;
  Dims in_dims, out_dims;
  std::vector<AntialiasAxis> axes;
  float fill = 0;
  bool extrapolate = false;
};

// One axis pass over a float tensor of `dims` (dims[axis] == a.in), into `dst`.
void AntialiasPass(const AntialiasAxis& a, const Dims& dims, const float* src, float* dst) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < a.axis; ++d) outer *= dims[size_t(d)];
  for (size_t d = size_t(a.axis) + 1; d < dims.size(); ++d) inner *= dims[d];
  for (int64_t o = 0; o < outer; ++o) {
    const float* sp = src + o * a.in * inner;
    float* dp = dst + o * a.out * inner;
    for (int64_t j = 0; j < a.out; ++j) {
      const float* w = a.weight.data() + j * a.window;
      for (int64_t k = 0; k < inner; ++k) {
        float sum = 0;
        for (int64_t t = a.lo[size_t(j)]; t < a.hi[size_t(j)]; ++t) sum += sp[t * inner + k] * w[t - a.lo[size_t(j)]];
        dp[j * inner + k] = sum;
      }
    }
  }
}

Status RunAntialias(const AntialiasState& s, const RunArgs& args) {
  const int64_t n_in = ElementCount(s.in_dims), n_out = ElementCount(s.out_dims);
  // Two float buffers large enough for any intermediate shape.
  int64_t largest = std::max(n_in, n_out);
  Dims dims = s.in_dims;
  for (const AntialiasAxis& a : s.axes) {
    dims[size_t(a.axis)] = a.out;
    largest = std::max(largest, ElementCount(dims));
  }
  float* buf[2] = {ThreadScratchFloats(ScratchSlot::kOp0, size_t(largest)),
                   ThreadScratchFloats(ScratchSlot::kOp1, size_t(largest))};
  for (int64_t i = 0; i < n_in; ++i) buf[0][i] = LoadFloat(s.dtype, args.input(0)->raw(), i);
  dims = s.in_dims;
  int cur = 0;
  for (const AntialiasAxis& a : s.axes) {
    if (a.out == a.in) continue;  // ORT copies an axis whose length stays
    AntialiasPass(a, dims, buf[cur], buf[1 - cur]);
    dims[size_t(a.axis)] = a.out;
    cur = 1 - cur;
  }
  float* y = buf[cur];
  if (s.extrapolate) {
    int64_t idx[kMaxRank] = {0};
    for (int64_t e = 0; e < n_out; ++e) {
      for (const AntialiasAxis& a : s.axes) {
        if (a.outside[size_t(idx[a.axis])]) y[e] = s.fill;
      }
      for (size_t d = s.out_dims.size(); d-- > 0;) {
        if (++idx[d] < s.out_dims[d]) break;
        idx[d] = 0;
      }
    }
  }
  for (int64_t i = 0; i < n_out; ++i) StoreFloat(s.dtype, args.output(0)->raw(), i, y[i]);
  return Status::Ok();
}

// ORT's filters: the triangle for linear, Keys' cubic for cubic.
float AntialiasFilter(Mode mode, float a, float x) {
  if (x < 0) x = -x;
  if (mode == Mode::kLinear) return x < 1 ? 1 - x : 0;
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return (((x - 5) * x + 8) * x - 4) * a;
  return 0;
}

struct NearestState {
  IndexMap map;
  size_t elem_size = 0;
  unsigned char fill[8] = {0};
};

Status RunNearest(const NearestState& s, const RunArgs& args) {
  RunIndexMap(s.map, s.elem_size, args.input(0)->raw(), args.output(0)->raw(), s.fill);
  return Status::Ok();
}

struct EmptyOutput {};
Status WriteNothing(const EmptyOutput&, const RunArgs&) { return Status::Ok(); }

StatusOr<ResizeCoord> ParseCoord(const std::string& s, int64_t opset) {
  if (s == "half_pixel") return ResizeCoord::kHalfPixel;
  if (s == "half_pixel_symmetric" && opset >= 18) return ResizeCoord::kHalfPixelSymmetric;
  if (s == "pytorch_half_pixel") return ResizeCoord::kPytorchHalfPixel;
  if (s == "align_corners") return ResizeCoord::kAlignCorners;
  if (s == "asymmetric") return ResizeCoord::kAsymmetric;
  if (s == "tf_half_pixel_for_nn" && opset < 18) return ResizeCoord::kTfHalfPixelForNn;
  if (s == "tf_crop_and_resize") return ResizeCoord::kTfCropAndResize;
  return InvalidArgument("unknown coordinate_transformation_mode '", s, "'");
}

StatusOr<ResizeRound> ParseRound(const std::string& s) {
  if (s == "round_prefer_floor") return ResizeRound::kPreferFloor;
  if (s == "round_prefer_ceil") return ResizeRound::kPreferCeil;
  if (s == "floor") return ResizeRound::kFloor;
  if (s == "ceil") return ResizeRound::kCeil;
  return InvalidArgument("unknown nearest_mode '", s, "'");
}

// A float or int input needed at plan time, as doubles; an absent or empty input gives
// an empty vector.
StatusOr<std::vector<double>> ReadKnown(const PrepareContext& ctx, int input, const char* what) {
  if (!ctx.has_input(input) || ElementCount(ctx.input(input).dims) == 0) return std::vector<double>();
  if (ctx.input(input).dims.size() != 1) return InvalidArgument(what, " must be 1-D");
  if (ctx.input(input).value == nullptr) return NeedsConstant(ctx, input, what);
  const Tensor& t = *ctx.input(input).value;
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.GetAsDouble(i));
  return v;
}

struct Geometry {
  int64_t in = 0, out = 0;
  float scale = 1;
  float roi_start = 0, roi_end = 1;
};

// The axes linear and cubic interpolate (see the top).
std::vector<char> InterpolatedAxes(Mode mode, const std::vector<Geometry>& geo) {
  const size_t rank = geo.size();
  std::vector<char> on(rank, 0);
  auto scale = [&](size_t d) { return geo[d].scale; };
  auto set = [&](std::initializer_list<size_t> axes) {
    for (size_t d : axes) on[d] = 1;
  };
  const bool linear = mode == Mode::kLinear;
  if (rank == 2 || (linear && rank == 3)) {
    set({0, 1});
    if (rank == 3) on[2] = 1;
  } else if (rank == 4 && scale(0) == 1 && scale(1) == 1) {
    set({2, 3});
  } else if (rank == 4 && scale(0) == 1 && scale(3) == 1) {
    set({1, 2});
  } else if (linear && rank == 5 && scale(0) == 1 && scale(1) == 1) {
    set({2, 3, 4});
  }
  for (size_t d = 0; d < rank; ++d) {
    if (geo[d].scale != 1 || geo[d].in != geo[d].out) on[d] = 1;
  }
  return on;
}

template <class F>
F Coordinate(ResizeCoord coord, const Geometry& g, int64_t o) {
  if (g.scale == 1 && coord != ResizeCoord::kTfCropAndResize) return F(o);
  ResizeAxis<F> a;
  a.scale = F(g.scale);
  a.out = F(g.out);
  a.in = F(g.in);
  a.roi_start = F(g.roi_start);
  a.roi_end = F(g.roi_end);
  return Tame(ResizeSourceCoordinate<F>(coord, a, o));
}

template <class F>
void BuildTaps(Mode mode, ResizeCoord coord, const Geometry& g, int64_t stride, F cubic_a, bool exclude_outside,
               AxisTaps<F>& taps) {
  const bool crop = coord == ResizeCoord::kTfCropAndResize;
  const F last = F(g.in - 1);
  for (int64_t o = 0; o < g.out; ++o) {
    taps.start.push_back(int64_t(taps.offset.size()));
    const F xc = Coordinate<F>(coord, g, o);
    taps.outside.push_back(crop && (xc < 0 || xc > last));
    auto add = [&](int64_t i, F w) {
      taps.offset.push_back(std::clamp<int64_t>(i, 0, g.in - 1) * stride);
      taps.weight.push_back(w);
    };
    if (mode == Mode::kLinear) {
      const F x = std::max(F(0), std::min(xc, last));
      const int64_t i1 = std::min(int64_t(x), g.in - 1);
      const int64_t i2 = std::min(i1 + 1, g.in - 1);
      const bool same = i1 == i2;
      add(i1, same ? F(0.5) : std::fabs(x - F(i2)));
      add(i2, same ? F(0.5) : std::fabs(x - F(i1)));
      taps.sum.push_back(1);
    } else {
      const F f = std::floor(xc);
      const int64_t base = int64_t(f);
      std::array<F, 4> c = ResizeCubicCoefficients<F>(xc - f, cubic_a);
      F sum = 1;
      if (exclude_outside) {
        sum = 0;
        for (int k = 0; k < 4; ++k) {
          const int64_t i = base - 1 + k;
          if (i < 0 || i >= g.in) c[size_t(k)] = 0;
          sum += c[size_t(k)];
        }
      }
      for (int k = 0; k < 4; ++k) add(base - 1 + k, c[size_t(k)]);
      taps.sum.push_back(sum);
    }
  }
  taps.start.push_back(int64_t(taps.offset.size()));
}

// ORT's antialias weights for one axis (see the top).
AntialiasAxis BuildAntialiasAxis(Mode mode, ResizeCoord coord, const Geometry& g, int axis, float cubic_a,
                                 bool exclude_outside) {
  AntialiasAxis a;
  a.axis = axis;
  a.in = g.in;
  a.out = g.out;
  const float stretch = 1.0f / g.scale;
  const float half_support = mode == Mode::kLinear ? 1.0f : 2.0f;
  const float support = stretch >= 1.0f ? half_support * stretch : half_support;
  a.window = int64_t(std::ceil(support)) * 2 + 1;
  const float inv_stretch = stretch >= 1.0f ? 1.0f / stretch : 1.0f;
  std::vector<float> w(size_t(a.window));
  a.weight.assign(size_t(a.window * g.out), 0.f);
  for (int64_t i = 0; i < g.out; ++i) {
    const float center = 0.5f + (stretch == 1.0f ? float(i) : Coordinate<float>(coord, g, i));
    a.outside.push_back(center - 0.5f < 0 || center - 0.5f > float(g.in - 1));
    const int64_t min_real = int64_t(std::floor(center - support + 0.5f));
    int64_t max_real = int64_t(std::floor(center + support + 0.5f));
    max_real = min_real + std::clamp<int64_t>(max_real - min_real, 0, a.window);
    const int64_t min_cut = std::clamp<int64_t>(min_real, 0, g.in), max_cut = std::clamp<int64_t>(max_real, 0, g.in);
    const int64_t lo = exclude_outside ? min_cut : min_real;
    const int64_t count = (exclude_outside ? max_cut : max_real) - lo;
    a.lo.push_back(min_cut);
    a.hi.push_back(max_cut);
    std::fill(w.begin(), w.end(), 0.f);
    float total = 0;
    for (int64_t x = 0; x < count; ++x) {
      w[size_t(x)] = AntialiasFilter(mode, cubic_a, (float(x + lo) - center + 0.5f) * inv_stretch);
      total += w[size_t(x)];
    }
    if (!exclude_outside && min_cut < max_cut) {
      // The weights of taps before the input fold onto the first one inside, those after
      // it onto the last one; then the inside taps move to the front.
      const int64_t before = std::clamp<int64_t>(-lo, 0, count - 1);
      for (int64_t x = 0; x < before; ++x) w[size_t(before)] += w[size_t(x)];
      const int64_t after = std::clamp<int64_t>(count + lo - g.in, 0, count - 1);
      for (int64_t x = count - after; x < count; ++x) w[size_t(count - after - 1)] += w[size_t(x)];
      if ((before | after) > 0) {
        for (int64_t x = 0; x < max_cut - min_cut; ++x) w[size_t(x)] = w[size_t(x + before)];
      }
    }
    const float inv_total = total == 0.0f ? 1.0f : 1.0f / total;
    for (int64_t x = 0; x < max_cut - min_cut; ++x) a.weight[size_t(i * a.window + x)] = w[size_t(x)] * inv_total;
  }
  return a;
}

template <class F>
void SetInterpKernel(PrepareContext& ctx, Mode mode, ResizeCoord coord, const std::vector<Geometry>& geo,
                     const Dims& in_dims, const Dims& out, double cubic_a, bool exclude_outside, double fill) {
  InterpState<F> s;
  s.dtype = ctx.input(0).dtype;
  s.mode = mode;
  s.out_dims = out;
  s.fill = F(fill);
  const std::vector<int64_t> strides = ContiguousStrides(in_dims);
  const std::vector<char> on = InterpolatedAxes(mode, geo);
  s.pass_stride.assign(geo.size(), 0);
  s.axis_slot.assign(geo.size(), -1);
  for (size_t d = geo.size(); d-- > 0;) {
    if (!on[d]) {
      s.pass_stride[d] = strides[d];
      continue;
    }
    s.axis_slot[d] = int(s.axes.size());
    AxisTaps<F>& taps = s.axes.emplace_back();
    taps.axis = int(d);
    BuildTaps<F>(mode, coord, geo[d], strides[d], F(cubic_a), exclude_outside, taps);
  }
  if (s.axes.empty()) {  // nothing changes: one tap of weight 1 on the innermost axis
    const size_t d = geo.size() - 1;
    s.pass_stride[d] = 0;
    s.axis_slot[d] = 0;
    AxisTaps<F>& taps = s.axes.emplace_back();
    taps.axis = int(d);
    for (int64_t o = 0; o < geo[d].out; ++o) {
      taps.start.push_back(o);
      taps.offset.push_back(o * strides[d]);
      taps.weight.push_back(1);
      taps.sum.push_back(1);
      taps.outside.push_back(0);
    }
    taps.start.push_back(geo[d].out);
  }
  if (LinearRowsApply(s)) {
    ctx.SetKernel<InterpState<F>, RunLinearRows<F>>(std::move(s));
  } else {
    ctx.SetKernel<InterpState<F>, RunInterp<F>>(std::move(s));
  }
}

Status PrepareResize(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const int64_t rank = int64_t(x.dims.size());
  const Attributes& at = ctx.attrs();
  const int64_t opset = ctx.opset();
  if (rank == 0) return InvalidArgument("Resize needs an input of rank >= 1");

  QRT_ASSIGN_OR_RETURN(std::string mode_name, at.GetString("mode", std::string("nearest")));
  Mode mode;
  if (mode_name == "nearest") {
    mode = Mode::kNearest;
  } else if (mode_name == "linear") {
    mode = Mode::kLinear;
  } else if (mode_name == "cubic" && opset >= 11) {
    mode = Mode::kCubic;
  } else {
    return InvalidArgument("unknown Resize mode '", mode_name, "'");
  }
  ResizeCoord coord = ResizeCoord::kAsymmetric;
  ResizeRound round = ResizeRound::kOpset10;
  double cubic_a = -0.75, extrapolation = 0;
  bool exclude_outside = false;
  std::string policy = "stretch";
  std::vector<int64_t> axes_attr;
  if (opset >= 11) {
    QRT_ASSIGN_OR_RETURN(std::string c, at.GetString("coordinate_transformation_mode", std::string("half_pixel")));
    QRT_ASSIGN_OR_RETURN(coord, ParseCoord(c, opset));
    QRT_ASSIGN_OR_RETURN(std::string n, at.GetString("nearest_mode", std::string("round_prefer_floor")));
    QRT_ASSIGN_OR_RETURN(round, ParseRound(n));
    QRT_ASSIGN_OR_RETURN(float a, at.GetFloat("cubic_coeff_a", -0.75f));
    QRT_ASSIGN_OR_RETURN(int64_t ex, at.GetInt("exclude_outside", 0));
    QRT_ASSIGN_OR_RETURN(float ev, at.GetFloat("extrapolation_value", 0.f));
    cubic_a = a;
    exclude_outside = ex != 0;
    extrapolation = ev;
  }
  bool antialias = false;
  if (opset >= 18) {
    QRT_ASSIGN_OR_RETURN(int64_t aa, at.GetInt("antialias", 0));
    antialias = aa != 0 && mode != Mode::kNearest;
    if (antialias && x.dtype == DataType::kFloat64) return Unsupported("Resize antialias on float64");
    QRT_ASSIGN_OR_RETURN(policy, at.GetString("keep_aspect_ratio_policy", std::string("stretch")));
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
      return InvalidArgument("unknown keep_aspect_ratio_policy '", policy, "'");
    }
    if (at.Has("axes")) {
      QRT_ASSIGN_OR_RETURN(axes_attr, at.GetInts("axes"));
    }
  }
  if (mode != Mode::kNearest && !IsFloatType(x.dtype)) {
    return Unsupported("Resize ", mode_name, " on ", DataTypeName(x.dtype), " (only float types)");
  }

  // Axes the roi/scales/sizes entries refer to.
  std::vector<int64_t> axes;
  if (axes_attr.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  } else {
    QRT_ASSIGN_OR_RETURN(axes, NormalizeAxes(axes_attr, rank));
  }
  const size_t na = axes.size();

  std::vector<double> roi, scales, sizes;
  const int scales_input = opset < 11 ? 1 : 2;
  if (ctx.has_input(scales_input)) QRT_RETURN_IF_ERROR(ExpectDType(ctx, scales_input, {DataType::kFloat32}));
  if (opset < 11) {
    QRT_ASSIGN_OR_RETURN(scales, ReadKnown(ctx, 1, "scales"));
    if (scales.empty()) return InvalidArgument("Resize needs scales");
  } else {
    if (coord == ResizeCoord::kTfCropAndResize) {
      QRT_ASSIGN_OR_RETURN(roi, ReadKnown(ctx, 1, "roi"));
    }
    QRT_ASSIGN_OR_RETURN(scales, ReadKnown(ctx, 2, "scales"));
    if (ctx.has_input(3)) {
      QRT_RETURN_IF_ERROR(ExpectDType(ctx, 3, {DataType::kInt64}));
      QRT_ASSIGN_OR_RETURN(sizes, ReadKnown(ctx, 3, "sizes"));
    }
    if (scales.empty() == sizes.empty()) return InvalidArgument("Resize needs exactly one of scales and sizes");
  }
  if (!scales.empty() && scales.size() != na) {
    return InvalidArgument("scales has ", scales.size(), " entries for ", na, " axes");
  }
  if (!sizes.empty() && sizes.size() != na) {
    return InvalidArgument("sizes has ", sizes.size(), " entries for ", na, " axes");
  }
  if (coord == ResizeCoord::kTfCropAndResize && roi.size() != 2 * na) {
    return InvalidArgument("tf_crop_and_resize needs roi with ", 2 * na, " entries, got ", roi.size());
  }
  for (size_t i = 0; i < roi.size(); ++i) {
    if (!std::isfinite(roi[i])) return InvalidArgument("roi[", i, "] = ", roi[i], " is not finite");
  }

  std::vector<Geometry> geo(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) geo[size_t(d)].in = geo[size_t(d)].out = x.dims[size_t(d)];
  // keep_aspect_ratio_policy: one float scale for every listed axis, the output length
  // round(scale * in) in float (as ORT computes it).
  float policy_scale = 0;
  if (!sizes.empty() && policy != "stretch") {
    for (size_t i = 0; i < na; ++i) {
      const int64_t in = x.dims[size_t(axes[i])];
      if (in == 0) return InvalidArgument("cannot resize an empty axis to a size");
      const float s = float(sizes[i]) / float(in);
      policy_scale = i == 0 ? s : (policy == "not_larger" ? std::min(policy_scale, s) : std::max(policy_scale, s));
    }
  }
  for (size_t i = 0; i < na; ++i) {
    Geometry& g = geo[size_t(axes[i])];
    if (!roi.empty()) {
      g.roi_start = float(roi[i]);
      g.roi_end = float(roi[i + na]);
    }
    if (!scales.empty()) {
      if (!(scales[i] > 0) || scales[i] > 1e9) return InvalidArgument("scale ", scales[i], " must be > 0 (and finite)");
      g.scale = float(scales[i]);
      // The spec's floor(in * scale), exactly (ORT rounds the product to float first).
      double len = double(g.in) * scales[i];
      if (coord == ResizeCoord::kTfCropAndResize) len *= roi[i + na] - roi[i];
      if (!(len >= 0 && len < double(int64_t(1) << 40)))
        return InvalidArgument("output length ", len, " is out of range");
      g.out = int64_t(std::floor(len));
    } else {
      if (sizes[i] < 0 || sizes[i] > double(int64_t(1) << 40)) return InvalidArgument("invalid size ", sizes[i]);
      if (g.in == 0) return InvalidArgument("cannot resize an empty axis to a size");
      if (policy == "stretch") {
        g.out = int64_t(sizes[i]);
        g.scale = float(g.out) / float(g.in);
      } else {
        g.scale = policy_scale;
        g.out = int64_t(std::round(policy_scale * float(g.in)));
      }
      if (!(g.scale > 0)) return InvalidArgument("Resize to size 0 on axis ", axes[i], " is not supported");
    }
  }
  Dims out(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) out[size_t(d)] = geo[size_t(d)].out;
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, DataTypeSize(x.dtype)).status());
  const std::vector<int64_t> strides = ContiguousStrides(x.dims);
  const bool crop = coord == ResizeCoord::kTfCropAndResize;
  ctx.SetOutput(0, x.dtype, out);

  if (mode == Mode::kNearest) {
    NearestState s;
    s.elem_size = DataTypeSize(x.dtype);
    ScalarToBytes(x.dtype, extrapolation, s.fill);
    s.map.out_dims = out;
    s.map.tables.resize(size_t(rank));
    for (size_t d = 0; d < size_t(rank); ++d) {
      const Geometry& g = geo[d];
      for (int64_t o = 0; o < g.out; ++o) {
        const float xc = Coordinate<float>(coord, g, o);
        if (crop && (xc < 0 || xc > float(g.in - 1))) {
          s.map.tables[d].push_back(kIndexMapFill);
          continue;
        }
        const int64_t i = std::clamp<int64_t>(ResizeNearestIndex(round, xc, g.scale < 1), 0, g.in - 1);
        s.map.tables[d].push_back(i * strides[d]);
      }
    }
    FinishIndexMap(s.map);
    ctx.SetKernel<NearestState, RunNearest>(std::move(s));
    return Status::Ok();
  }

  // Linear and cubic visit every combination of their per-axis taps (2 or 4 per
  // interpolated axis): bound the work as the sizes are bounded, so a model cannot ask for
  // days of arithmetic.
  {
    double work = double(ElementCount(out));
    for (char on : InterpolatedAxes(mode, geo)) {
      if (on) work *= mode == Mode::kLinear ? 2 : 4;
    }
    constexpr double kMaxWork = double(int64_t(1) << 32);
    if (work > kMaxWork) {
      return ResourceExhausted("Resize ", mode_name, " to ", DimsToString(out), " needs ", work,
                               " weighted taps, over the limit of 2^32");
    }
  }
  if (ElementCount(out) == 0) {
    ctx.SetKernel<EmptyOutput, WriteNothing>(EmptyOutput{});
    return Status::Ok();
  }
  if (antialias) {
    // A downscale by k stretches the window k times: bound the weight tables and the work.
    double work = 0;
    for (size_t d = 0; d < geo.size(); ++d) {
      const double window = 2 * std::ceil((mode == Mode::kLinear ? 1.0 : 2.0) * std::max(1.0, 1.0 / geo[d].scale)) + 1;
      if (window * double(geo[d].out) > double(int64_t(1) << 27)) {
        return ResourceExhausted("Resize antialias weight table of ", window, " x ", geo[d].out, " on axis ", d,
                                 " is too large");
      }
      work += window * double(std::max(ElementCount(x.dims), ElementCount(out)));
    }
    if (work > double(int64_t(1) << 32)) {
      return ResourceExhausted("Resize antialias needs ", work, " weighted taps, over the limit of 2^32");
    }
    AntialiasState s;
    s.dtype = x.dtype;
    s.in_dims = x.dims;
    s.out_dims = out;
    s.fill = float(extrapolation);
    s.extrapolate = crop;
    const std::vector<char> on = InterpolatedAxes(mode, geo);
    for (size_t d = geo.size(); d-- > 0;) {
      if (on[d]) s.axes.push_back(BuildAntialiasAxis(mode, coord, geo[d], int(d), float(cubic_a), exclude_outside));
    }
    ctx.SetKernel<AntialiasState, RunAntialias>(std::move(s));
    return Status::Ok();
  }
  if (x.dtype == DataType::kFloat64) {
    SetInterpKernel<double>(ctx, mode, coord, geo, x.dims, out, cubic_a, exclude_outside, extrapolation);
  } else {
    SetInterpKernel<float>(ctx, mode, coord, geo, x.dims, out, cubic_a, exclude_outside, extrapolation);
  }
  return Status::Ok();
}

}  // namespace

const OpDef kResizeOp{"", "Resize", 1, 4, 1, 1, PrepareResize};

}  // namespace qrt
