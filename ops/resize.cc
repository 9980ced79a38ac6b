// Resize (opsets 10-21). Every axis maps output index o to an input coordinate x with
// the coordinate_transformation_mode (in double; length_resized is in*scale when scales
// are given, the size when sizes are):
//   half_pixel            (o + 0.5) / scale - 0.5
//   half_pixel_symmetric  in/2 * (1 - length_resized/(scale*in)) + (o + 0.5) / scale - 0.5
//   pytorch_half_pixel    length_resized > 1 ? (o + 0.5) / scale - 0.5 : 0
//   align_corners         length_resized == 1 ? 0 : o * (in - 1) / (length_resized - 1)
//   asymmetric            o / scale
//   tf_half_pixel_for_nn  (o + 0.5) / scale
//   tf_crop_and_resize    roi-relative; a coordinate outside [0, in-1] gives
//                         extrapolation_value
// Opset 10 has no attributes but `mode`: it uses asymmetric coordinates and, for
// nearest, floor (the Upsample rule).
// Then, per axis, taps (input index, weight) with indices clamped to [0, in-1] (the
// edge padding of the ONNX reference):
//   nearest  one tap; x rounded by nearest_mode (round_prefer_floor: a .5 fraction rounds
//            down; round_prefer_ceil: up; floor; ceil). Copies bytes: every dtype.
//   linear   floor(x) and floor(x)+1 weighted 1-r and r, r = x - floor(x).
//   cubic    floor(x)-1 .. floor(x)+2 with Keys' coefficients for cubic_coeff_a;
//            exclude_outside zeroes taps outside the input and renormalizes.
// Linear and cubic take float types: the output is the sum over all tap combinations of
// the product of the axes' weights times the input, accumulated in double and rounded
// once. antialias is not implemented.
#include <algorithm>
#include <array>
#include <cmath>

#include "ops/kernels/index_map.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Coord { kHalfPixel, kHalfPixelSymmetric, kPytorchHalfPixel, kAlignCorners, kAsymmetric,
                   kTfHalfPixelForNn, kTfCropAndResize };
enum class Round { kPreferFloor, kPreferCeil, kFloor, kCeil };

struct AxisGeometry {
  int64_t in = 0, out = 0;
  double scale = 1;
  double length_resized = 0;
  double roi_start = 0, roi_end = 1;
};

double SourceCoordinate(Coord c, const AxisGeometry& g, int64_t o) {
  const double x = double(o), in = double(g.in), s = g.scale, lr = g.length_resized;
  switch (c) {
    case Coord::kHalfPixel: return (x + 0.5) / s - 0.5;
    case Coord::kHalfPixelSymmetric: {
      const double adjustment = lr / (s * in);
      const double center = in / 2;
      return center * (1 - adjustment) + (x + 0.5) / s - 0.5;
    }
    case Coord::kPytorchHalfPixel: return lr > 1 ? (x + 0.5) / s - 0.5 : 0.0;
    case Coord::kAlignCorners: return lr == 1 ? 0.0 : x * (in - 1) / (lr - 1);
    case Coord::kAsymmetric: return x / s;
    case Coord::kTfHalfPixelForNn: return (x + 0.5) / s;
    case Coord::kTfCropAndResize:
      if (lr > 1) return g.roi_start * (in - 1) + x * (g.roi_end - g.roi_start) * (in - 1) / (lr - 1);
      return 0.5 * (g.roi_start + g.roi_end) * (in - 1);
  }
  return 0;
}

// The source coordinate, made safe to convert to an integer: huge finite roi values
// can still give inf - inf = NaN, and a NaN or an out-of-range double converted to
// int64 is undefined behaviour. NaN lands outside the input (-1: the extrapolation
// value in tf_crop_and_resize, clamped to the first element otherwise).
double Coordinate(Coord coord, const AxisGeometry& g, int64_t o) {
  const double xc = SourceCoordinate(coord, g, o);
  return std::isnan(xc) ? -1.0 : std::clamp(xc, -1e15, 1e15);
}

int64_t RoundNearest(Round r, double x) {
  const double f = std::floor(x);
  const double frac = x - f;
  if (frac == 0) return int64_t(f);
  switch (r) {
    case Round::kPreferFloor: return int64_t(frac <= 0.5 ? f : f + 1);
    case Round::kPreferCeil: return int64_t(frac < 0.5 ? f : f + 1);
    case Round::kFloor: return int64_t(f);
    case Round::kCeil: return int64_t(f + 1);
  }
  return int64_t(f);
}

// Per axis, the taps of output index o are [start[o], start[o+1]); an axis entry with
// outside[o] set makes the whole output element the extrapolation value.
struct AxisTaps {
  std::vector<int64_t> start;
  std::vector<int64_t> offset;  // input index * stride
  std::vector<double> weight;
  std::vector<char> outside;
};

struct InterpState {
  DataType dtype;
  Dims out_dims;
  std::vector<AxisTaps> axes;
  double fill = 0;
};

void Store(DataType t, void* p, int64_t i, double v) {
  switch (t) {
    case DataType::kFloat64: static_cast<double*>(p)[i] = v; break;
    case DataType::kFloat16: static_cast<uint16_t*>(p)[i] = FloatToHalf(float(v)); break;
    case DataType::kBFloat16: static_cast<uint16_t*>(p)[i] = FloatToBFloat16(float(v)); break;
    default: static_cast<float*>(p)[i] = float(v); break;
  }
}

Status RunInterp(const InterpState& s, const RunArgs& args) {
  const void* x = args.input(0)->raw();
  void* y = args.output(0)->raw();
  const size_t r = s.out_dims.size();
  const int64_t total = ElementCount(s.out_dims);
  int64_t idx[kMaxRank] = {0};
  int64_t t[kMaxRank] = {0};
  for (int64_t e = 0; e < total; ++e) {
    bool outside = false;
    for (size_t a = 0; a < r; ++a) outside = outside || s.axes[a].outside[size_t(idx[a])];
    double acc = s.fill;
    if (!outside) {
      acc = 0;
      for (size_t a = 0; a < r; ++a) t[a] = s.axes[a].start[size_t(idx[a])];
      while (true) {
        int64_t off = 0;
        double w = 1;
        for (size_t a = 0; a < r; ++a) {
          off += s.axes[a].offset[size_t(t[a])];
          w *= s.axes[a].weight[size_t(t[a])];
        }
        const double v = s.dtype == DataType::kFloat64 ? static_cast<const double*>(x)[off]
                                                       : double(LoadFloat(s.dtype, x, off));
        acc += w * v;
        size_t a = r;
        while (a-- > 0) {
          if (++t[a] < s.axes[a].start[size_t(idx[a]) + 1]) break;
          t[a] = s.axes[a].start[size_t(idx[a])];
        }
        if (a == size_t(-1)) break;
      }
    }
    Store(s.dtype, y, e, acc);
    for (size_t a = r; a-- > 0;) {
      if (++idx[a] < s.out_dims[a]) break;
      idx[a] = 0;
    }
  }
  return Status::Ok();
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

std::array<double, 4> CubicCoefficients(double r, double a) {
  return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
          ((a + 2) * r - (a + 3)) * r * r + 1,
          ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
          ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a};
}

StatusOr<Coord> ParseCoord(const std::string& s, int64_t opset) {
  if (s == "half_pixel") return Coord::kHalfPixel;
  if (s == "half_pixel_symmetric" && opset >= 18) return Coord::kHalfPixelSymmetric;
  if (s == "pytorch_half_pixel") return Coord::kPytorchHalfPixel;
  if (s == "align_corners") return Coord::kAlignCorners;
  if (s == "asymmetric") return Coord::kAsymmetric;
  if (s == "tf_half_pixel_for_nn" && opset < 18) return Coord::kTfHalfPixelForNn;
  if (s == "tf_crop_and_resize") return Coord::kTfCropAndResize;
  return InvalidArgument("unknown coordinate_transformation_mode '", s, "'");
}

StatusOr<Round> ParseRound(const std::string& s) {
  if (s == "round_prefer_floor") return Round::kPreferFloor;
  if (s == "round_prefer_ceil") return Round::kPreferCeil;
  if (s == "floor") return Round::kFloor;
  if (s == "ceil") return Round::kCeil;
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

Status PrepareResize(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const int64_t rank = int64_t(x.dims.size());
  const Attributes& at = ctx.attrs();
  const int64_t opset = ctx.opset();

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
  Coord coord = Coord::kAsymmetric;
  Round round = Round::kFloor;
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
  if (opset >= 18) {
    QRT_ASSIGN_OR_RETURN(int64_t antialias, at.GetInt("antialias", 0));
    if (antialias != 0 && mode != Mode::kNearest) return Unsupported("Resize antialias = 1");
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
    std::vector<char> seen(size_t(rank), 0);
    for (int64_t a : axes_attr) {
      QRT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank));
      if (seen[size_t(ax)]) return InvalidArgument("axis ", a, " is repeated");
      seen[size_t(ax)] = 1;
      axes.push_back(ax);
    }
  }
  const size_t na = axes.size();

  std::vector<double> roi, scales, sizes;
  const int scales_input = opset < 11 ? 1 : 2;
  if (ctx.has_input(scales_input)) QRT_RETURN_IF_ERROR(ExpectDType(ctx, scales_input, {DataType::kFloat32}));
  if (opset < 11) {
    QRT_ASSIGN_OR_RETURN(scales, ReadKnown(ctx, 1, "scales"));
    if (scales.empty()) return InvalidArgument("Resize needs scales");
  } else {
    if (coord == Coord::kTfCropAndResize) {
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
  if (coord == Coord::kTfCropAndResize && roi.size() != 2 * na) {
    return InvalidArgument("tf_crop_and_resize needs roi with ", 2 * na, " entries, got ", roi.size());
  }
  for (size_t i = 0; i < roi.size(); ++i) {
    if (!std::isfinite(roi[i])) return InvalidArgument("roi[", i, "] = ", roi[i], " is not finite");
  }

  std::vector<AxisGeometry> geo(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    geo[size_t(d)].in = geo[size_t(d)].out = x.dims[size_t(d)];
    geo[size_t(d)].length_resized = double(x.dims[size_t(d)]);
  }
  double policy_scale = 0;
  if (!sizes.empty() && policy != "stretch") {
    for (size_t i = 0; i < na; ++i) {
      const double in = double(x.dims[size_t(axes[i])]);
      if (in == 0) return InvalidArgument("cannot resize an empty axis to a size");
      const double s = sizes[i] / in;
      policy_scale = i == 0 ? s : (policy == "not_larger" ? std::min(policy_scale, s) : std::max(policy_scale, s));
    }
  }
  for (size_t i = 0; i < na; ++i) {
    AxisGeometry& g = geo[size_t(axes[i])];
    if (!roi.empty()) {
      g.roi_start = roi[i];
      g.roi_end = roi[i + na];
    }
    if (!scales.empty()) {
      g.scale = scales[i];
      if (!(g.scale > 0) || g.scale > 1e9) return InvalidArgument("scale ", g.scale, " must be > 0 (and finite)");
      double len = double(g.in) * g.scale;
      if (coord == Coord::kTfCropAndResize) len *= g.roi_end - g.roi_start;
      if (!(len >= 0 && len < double(int64_t(1) << 40))) return InvalidArgument("output length ", len, " is out of range");
      g.out = int64_t(std::floor(len));
      g.length_resized = double(g.in) * g.scale;
    } else {
      if (sizes[i] < 0 || sizes[i] > double(int64_t(1) << 40)) return InvalidArgument("invalid size ", sizes[i]);
      if (g.in == 0) return InvalidArgument("cannot resize an empty axis to a size");
      if (policy == "stretch") {
        g.out = int64_t(sizes[i]);
        g.scale = double(g.out) / double(g.in);
      } else {
        g.scale = policy_scale;
        g.out = int64_t(std::round(policy_scale * double(g.in)));
      }
      g.length_resized = double(g.out);
      if (g.scale <= 0) return InvalidArgument("Resize to size 0 on axis ", axes[i], " is not supported");
    }
  }
  Dims out(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) out[size_t(d)] = geo[size_t(d)].out;
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, DataTypeSize(x.dtype)).status());
  const std::vector<int64_t> strides = ContiguousStrides(x.dims);
  const bool crop = coord == Coord::kTfCropAndResize;

  if (mode == Mode::kNearest) {
    NearestState s;
    s.elem_size = DataTypeSize(x.dtype);
    ScalarToBytes(x.dtype, extrapolation, s.fill);
    s.map.out_dims = out;
    s.map.tables.resize(size_t(rank));
    for (size_t d = 0; d < size_t(rank); ++d) {
      const AxisGeometry& g = geo[d];
      for (int64_t o = 0; o < g.out; ++o) {
        const double xc = Coordinate(coord, g, o);
        if (crop && (xc < 0 || xc > double(g.in - 1))) {
          s.map.tables[d].push_back(kIndexMapFill);
          continue;
        }
        const int64_t i = std::clamp<int64_t>(RoundNearest(round, xc), 0, g.in - 1);
        s.map.tables[d].push_back(i * strides[d]);
      }
    }
    FinishIndexMap(s.map);
    ctx.SetOutput(0, x.dtype, out);
    ctx.SetKernel<NearestState, RunNearest>(std::move(s));
    return Status::Ok();
  }

  // Linear and cubic visit every combination of their per-axis taps (2 or 4 per resized axis):
  // bound the work as the sizes are bounded, so a model cannot ask for days of arithmetic.
  {
    double work = double(ElementCount(out));
    for (int64_t d = 0; d < rank; ++d) {
      if (geo[size_t(d)].in != geo[size_t(d)].out || geo[size_t(d)].scale != 1) work *= mode == Mode::kLinear ? 2 : 4;
    }
    constexpr double kMaxWork = double(int64_t(1) << 32);
    if (work > kMaxWork) {
      return ResourceExhausted("Resize ", mode_name, " to ", DimsToString(out), " needs ", work,
                               " weighted taps, over the limit of 2^32");
    }
  }
  InterpState s;
  s.dtype = x.dtype;
  s.out_dims = out;
  s.fill = extrapolation;
  s.axes.resize(size_t(rank));
  for (size_t d = 0; d < size_t(rank); ++d) {
    const AxisGeometry& g = geo[d];
    AxisTaps& taps = s.axes[d];
    for (int64_t o = 0; o < g.out; ++o) {
      taps.start.push_back(int64_t(taps.offset.size()));
      const double xc = Coordinate(coord, g, o);
      const bool outside = crop && (xc < 0 || xc > double(g.in - 1));
      taps.outside.push_back(outside);
      if (outside) continue;
      const double f = std::floor(xc);
      const double ratio = xc - f;
      const int64_t base = int64_t(f);
      auto add = [&](int64_t i, double w) {
        if (w == 0) return;
        taps.offset.push_back(std::clamp<int64_t>(i, 0, g.in - 1) * strides[d]);
        taps.weight.push_back(w);
      };
      if (mode == Mode::kLinear) {
        add(base, 1 - ratio);
        add(base + 1, ratio);
      } else {
        std::array<double, 4> c = CubicCoefficients(ratio, cubic_a);
        if (exclude_outside) {
          double sum = 0;
          for (int k = 0; k < 4; ++k) {
            const int64_t i = base - 1 + k;
            if (i < 0 || i >= g.in) c[size_t(k)] = 0;
            sum += c[size_t(k)];
          }
          for (double& w : c) w /= sum;
        }
        for (int k = 0; k < 4; ++k) add(base - 1 + k, c[size_t(k)]);
      }
      if (int64_t(taps.offset.size()) == taps.start.back()) {  // every weight was 0: keep one tap
        taps.offset.push_back(std::clamp<int64_t>(base, 0, g.in - 1) * strides[d]);
        taps.weight.push_back(0);
      }
    }
    taps.start.push_back(int64_t(taps.offset.size()));
  }
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<InterpState, RunInterp>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kResizeOp{"", "Resize", 1, 4, 1, 1, PrepareResize};

}  // namespace qrt
