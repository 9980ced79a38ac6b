// com.microsoft QLinearAveragePool and QLinearGlobalAveragePool over 8-bit [N, C, spatial...]
// (or [N, spatial..., C] with channels_last), computed as ONNX Runtime's CPU kernels do:
// - QLinearGlobalAveragePool, and QLinearAveragePool whose kernel is the whole plane without
//   padding: the plane's int32 sum requantized as MLAS does,
//   sat(rint(float(sum - x_zp * n) * (x_scale / (y_scale * n))) + y_zp);
// - QLinearAveragePool otherwise: X dequantized to floats ((x - x_zp) * x_scale), each window's
//   floats summed in row-major order from 0, divided by a float count, and quantized as
//   sat(int32(nearbyintf(y / y_scale + y_zp))). The window on each axis is
//   [max(0, o * stride - pad), min(o * stride - pad + kernel, n)): the count is its size, or with
//   count_include_pad the kernel's size even where the window runs past the end padding.
// Output sizes and auto_pad follow AveragePool's rules; there are no dilations.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/qlinear_params.h"

namespace qrt {
namespace {

enum Input : int { kX = 0, kXScale = 1, kXZeroPoint = 2, kYScale = 3, kYZeroPoint = 4, kInputCount = 5 };

struct PoolLayout {
  DataType dtype = DataType::kUInt8;
  bool channels_last = false;
  int64_t batch = 1, channels = 1;
  Dims in, out;  // spatial dims
  QParams x, y;
};

// ---- the whole plane: integer sum ----

template <class T>
void GlobalTyped(const PoolLayout& s, const T* x, T* y) {
  const int64_t plane = ElementCount(s.in);
  const float scale = s.x.scale / (s.y.scale * float(plane));
  const int32_t bias = -s.x.zp * int32_t(plane);
  const float lo = float(int32_t(std::numeric_limits<T>::min()) - s.y.zp);
  const float hi = float(int32_t(std::numeric_limits<T>::max()) - s.y.zp);
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t c = 0; c < s.channels; ++c) {
      int32_t sum = 0;
      for (int64_t i = 0; i < plane; ++i) {
        sum += int32_t(s.channels_last ? x[(n * plane + i) * s.channels + c] : x[(n * s.channels + c) * plane + i]);
      }
      float v = float(sum + bias) * scale;
      v = v >= lo ? v : lo;
      v = v <= hi ? v : hi;
      y[n * s.channels + c] = T(int32_t(std::nearbyint(v)) + s.y.zp);
    }
  }
}

Status RunGlobal(const PoolLayout& s, const RunArgs& args) {
  if (s.dtype == DataType::kUInt8) {
    GlobalTyped(s, args.input(kX)->data<uint8_t>(), args.output(0)->data<uint8_t>());
  } else {
    GlobalTyped(s, args.input(kX)->data<int8_t>(), args.output(0)->data<int8_t>());
  }
  return Status::Ok();
}

// ---- windows: float sums ----

struct WindowPool {
  PoolLayout layout;
  // Per spatial axis and output index: the window [begin, end) inside the input.
  std::vector<std::vector<int64_t>> begin, end;
  bool include_pad = false;
  int64_t kernel_size = 1;
};

template <class T>
void WindowTyped(const WindowPool& p, const T* x, T* y) {
  const PoolLayout& s = p.layout;
  const size_t sr = s.in.size();
  const int64_t in_plane = ElementCount(s.in), out_plane = ElementCount(s.out);
  // Strides of the spatial axes in an NCHW plane (times channels for NHWC).
  std::vector<int64_t> stride(sr, 1);
  for (size_t a = sr - 1; a > 0; --a) stride[a - 1] = stride[a] * s.in[a];
  const int64_t step = s.channels_last ? s.channels : 1;
  std::vector<float> xf(size_t(s.batch * s.channels * in_plane));
  for (size_t i = 0; i < xf.size(); ++i) xf[i] = s.x.scale * float(int32_t(x[i]) - s.x.zp);
  const int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  std::vector<int64_t> o(sr), t(sr);
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t c = 0; c < s.channels; ++c) {
      const float* plane =
          xf.data() + (s.channels_last ? n * in_plane * s.channels + c : (n * s.channels + c) * in_plane);
      std::fill(o.begin(), o.end(), 0);
      for (int64_t op = 0; op < out_plane; ++op) {
        int64_t count = 1;
        bool empty = false;
        for (size_t a = 0; a < sr; ++a) {
          t[a] = p.begin[a][size_t(o[a])];
          count *= p.end[a][size_t(o[a])] - t[a];
          empty = empty || t[a] >= p.end[a][size_t(o[a])];
        }
        float sum = 0.f;
        while (!empty) {  // row-major over the window
          int64_t off = 0;
          for (size_t a = 0; a < sr; ++a) off += t[a] * stride[a];
          sum += plane[off * step];
          size_t a = sr;
          while (a > 0) {
            --a;
            if (++t[a] < p.end[a][size_t(o[a])]) break;
            t[a] = p.begin[a][size_t(o[a])];
            if (a == 0) empty = true;
          }
        }
        const float avg = sum / float(p.include_pad ? p.kernel_size : count);
        const int32_t q = CastToInt32LikeX86(std::nearbyintf(avg / s.y.scale + float(s.y.zp)));
        const int64_t y_off =
            s.channels_last ? (n * out_plane + op) * s.channels + c : (n * s.channels + c) * out_plane + op;
        y[y_off] = T(std::max(lo, std::min(q, hi)));
        for (size_t a = sr; a > 0; --a) {
          if (++o[a - 1] < s.out[a - 1]) break;
          o[a - 1] = 0;
        }
      }
    }
  }
}

Status RunWindows(const WindowPool& p, const RunArgs& args) {
  if (p.layout.dtype == DataType::kUInt8) {
    WindowTyped(p, args.input(kX)->data<uint8_t>(), args.output(0)->data<uint8_t>());
  } else {
    WindowTyped(p, args.input(kX)->data<int8_t>(), args.output(0)->data<int8_t>());
  }
  return Status::Ok();
}

// ---- prepare ----

StatusOr<PoolLayout> ReadLayout(const PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(kX);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, kX, {DataType::kUInt8, DataType::kInt8}));
  if (x.dims.size() < 3) return InvalidArgument("X must have rank >= 3");
  PoolLayout s;
  s.dtype = x.dtype;
  QRT_ASSIGN_OR_RETURN(s.x, ReadQParams(ctx, kXScale, x.dtype));
  QRT_ASSIGN_OR_RETURN(s.y, ReadQParams(ctx, kYScale, x.dtype));
  QRT_ASSIGN_OR_RETURN(int64_t last, ctx.attrs().GetInt("channels_last", 0));
  s.channels_last = last != 0;
  const size_t r = x.dims.size();
  s.batch = x.dims[0];
  s.channels = s.channels_last ? x.dims[r - 1] : x.dims[1];
  s.in.assign(x.dims.begin() + (s.channels_last ? 1 : 2), x.dims.end() - (s.channels_last ? 1 : 0));
  return s;
}

Dims OutputDims(const PoolLayout& s) {
  Dims out = {s.batch};
  if (!s.channels_last) out.push_back(s.channels);
  out.insert(out.end(), s.out.begin(), s.out.end());
  if (s.channels_last) out.push_back(s.channels);
  return out;
}

Status PrepareGlobal(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(PoolLayout s, ReadLayout(ctx));
  const int64_t plane = ElementCount(s.in);
  if (plane == 0 || plane > (int64_t(1) << 23)) return InvalidArgument("the pooled plane has ", plane, " elements");
  s.out.assign(s.in.size(), 1);
  ctx.SetOutput(0, s.dtype, OutputDims(s));
  ctx.SetKernel<PoolLayout, RunGlobal>(std::move(s));
  return Status::Ok();
}

Status PrepareAveragePool(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(PoolLayout s, ReadLayout(ctx));
  const size_t sr = s.in.size();
  if (sr > 3) return Unsupported("QLinearAveragePool over ", sr, " spatial axes (ONNX Runtime takes 1 to 3)");
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ctx.attrs().GetInts("kernel_shape"));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.attrs().GetInts("strides", std::vector<int64_t>(sr, 1)));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ctx.attrs().GetInts("pads", std::vector<int64_t>(2 * sr, 0)));
  QRT_ASSIGN_OR_RETURN(int64_t ceil_mode, ctx.attrs().GetInt("ceil_mode", 0));
  QRT_ASSIGN_OR_RETURN(int64_t include_pad, ctx.attrs().GetInt("count_include_pad", 0));
  QRT_ASSIGN_OR_RETURN(std::string auto_pad, ctx.attrs().GetString("auto_pad", std::string("NOTSET")));
  if (kernel.size() != sr || strides.size() != sr || pads.size() != 2 * sr) {
    return InvalidArgument("kernel_shape, strides and pads must have ", sr, ", ", sr, " and ", 2 * sr, " entries");
  }
  constexpr int64_t kLimit = int64_t(1) << 24;
  WindowPool p;
  p.include_pad = include_pad != 0;
  p.begin.resize(sr);
  p.end.resize(sr);
  bool whole_plane = true;
  for (size_t a = 0; a < sr; ++a) {
    const int64_t n = s.in[a], k = kernel[a], st = strides[a];
    int64_t pb = pads[a], pe = pads[a + sr];
    if (k < 1 || k > kLimit || st < 1 || st > kLimit || pb < 0 || pe < 0 || pb > kLimit || pe > kLimit) {
      return InvalidArgument("invalid pooling geometry on spatial axis ", a, ": kernel ", k, ", stride ", st, ", pads ",
                             pb, "/", pe);
    }
    int64_t out;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (n + st - 1) / st;
      const int64_t total = std::max<int64_t>(0, (out - 1) * st + k - n);
      pb = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else if (auto_pad == "VALID") {
      pb = pe = 0;
      if (n < k) return InvalidArgument("window of ", k, " exceeds spatial axis ", a, " of length ", n);
      out = (n - k) / st + 1;
    } else if (auto_pad == "NOTSET") {
      const int64_t room = n + pb + pe - k;
      if (room < 0) return InvalidArgument("window of ", k, " exceeds padded spatial axis ", a);
      out = (ceil_mode ? (room + st - 1) / st : room / st) + 1;
      if (ceil_mode && (out - 1) * st >= n + pb) --out;
    } else {
      return InvalidArgument("unknown auto_pad '", auto_pad, "'");
    }
    whole_plane = whole_plane && k == n && pb == 0 && pe == 0;
    s.out.push_back(out);
    p.kernel_size *= k;
    for (int64_t o = 0; o < out; ++o) {
      const int64_t start = o * st - pb;
      p.begin[a].push_back(std::max<int64_t>(start, 0));
      p.end[a].push_back(std::min(start + k, n));
    }
  }
  const int64_t plane = ElementCount(s.in);
  if (whole_plane) {  // ONNX Runtime's global path, integer sums
    if (plane == 0 || plane > (int64_t(1) << 23)) return InvalidArgument("the pooled plane has ", plane, " elements");
    ctx.SetOutput(0, s.dtype, OutputDims(s));
    ctx.SetKernel<PoolLayout, RunGlobal>(std::move(s));
    return Status::Ok();
  }
  p.layout = s;
  ctx.SetOutput(0, s.dtype, OutputDims(s));
  ctx.SetKernel<WindowPool, RunWindows>(std::move(p));
  return Status::Ok();
}

}  // namespace

const OpDef kQLinearAveragePoolOp{"com.microsoft",   "QLinearAveragePool", kYScale + 1, kInputCount, 1, 1,
                                  PrepareAveragePool};
const OpDef kQLinearGlobalAveragePoolOp{"com.microsoft", "QLinearGlobalAveragePool", kYScale + 1, kInputCount, 1, 1,
                                        PrepareGlobal};

}  // namespace qrt
