// GridSample on [N, C, H, W] with a grid [N, H_out, W_out, 2] of normalized (x, y) positions
// in [-1, 1]: modes bilinear/linear, nearest, bicubic/cubic (opsets 16 and 20 spellings);
// padding zeros, border, reflection; align_corners. float32 in ONNX Runtime's order:
//   x = align_corners ? ((gx + 1) / 2) * (W - 1) : ((gx + 1) * W - 1) / 2   (y likewise)
//   bilinear: x1 = floor(x), x2 = x1 + 1, dx1 = x - x1, dx2 = x2 - x (y likewise);
//     zeros padding without align_corners: ((w11 p11 + w12 p12) + w21 p21) + w22 p22 with
//     w11 = dy2 dx2, w12 = dy2 dx1, w21 = dy1 dx2, w22 = dy1 dx1; otherwise
//     dy2 * (dx2 * p11 + dx1 * p12) + dy1 * (dx2 * p21 + dx1 * p22)
//   nearest: the pixel at (nearbyint(y), nearbyint(x))
//   bicubic: the 4x4 pixels from (y0, x0) = (floor(y) - 1, floor(x) - 1), Keys' weights
//     (A = -0.75) of t = |(x - x0) - 1|; each row's weighted sum left to right, then the rows'
// Padding acts on pixel indices only (the coordinates are never clamped): a pixel outside the
// image reads 0 (zeros), the clamped index (border) or the reflected one (reflection: into
// [0, L-1] with align_corners, else [-0.5, L-0.5]).
// Other float types widen to float32 and round once.
#include <cmath>
#include <vector>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Mode { kLinear, kNearest, kCubic };
enum class Padding { kZeros, kBorder, kReflection };

struct GridSampleState {
  DataType dtype, grid_dtype;
  Mode mode = Mode::kLinear;
  Padding padding = Padding::kZeros;
  bool align_corners = false;
  int64_t n = 1, c = 1, h = 1, w = 1, oh = 1, ow = 1;
};

float Denormalize(float v, int64_t length, bool align) {
  return align ? (v + 1) / 2 * float(length - 1) : ((v + 1) * float(length) - 1) / 2;
}

float Reflect(float x, float lo, float hi) {
  const float range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const float d = lo - x;
    const int64_t k = int64_t(d / range);
    const float r = d - float(k) * range;
    return k % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const float d = x - hi;
    const int64_t k = int64_t(d / range);
    const float r = d - float(k) * range;
    return k % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

struct Image {
  const float* p;
  int64_t h, w;
  Padding padding;
  float lo_x, hi_x, lo_y, hi_y;  // the reflection bounds
  float At(int64_t r, int64_t c) const {
    if (padding == Padding::kBorder) {
      r = std::min(std::max<int64_t>(r, 0), h - 1);
      c = std::min(std::max<int64_t>(c, 0), w - 1);
    } else if (padding == Padding::kReflection) {
      c = int64_t(Reflect(float(c), lo_x, hi_x));
      r = int64_t(Reflect(float(r), lo_y, hi_y));
    }
    if (r < 0 || r >= h || c < 0 || c >= w) return 0.f;
    return p[r * w + c];
  }
};

void CubicWeights(float t, float* k) {
  const float a = -0.75f;
  const float x0 = t + 1, x1 = t, x2 = 1 - t, x3 = 2 - t;
  k[0] = ((a * x0 - 5 * a) * x0 + 8 * a) * x0 - 4 * a;
  k[1] = ((a + 2) * x1 - (a + 3)) * x1 * x1 + 1;
  k[2] = ((a + 2) * x2 - (a + 3)) * x2 * x2 + 1;
  k[3] = ((a * x3 - 5 * a) * x3 + 8 * a) * x3 - 4 * a;
}

void SampleFloat(const GridSampleState& s, const float* x, const float* grid, float* y) {
  for (int64_t n = 0; n < s.n; ++n) {
    const float* g = grid + n * s.oh * s.ow * 2;
    for (int64_t c = 0; c < s.c; ++c) {
      Image img{x + (n * s.c + c) * s.h * s.w, s.h, s.w, s.padding, 0, 0, 0, 0};
      img.lo_x = s.align_corners ? 0.f : -0.5f;
      img.hi_x = s.align_corners ? float(s.w - 1) : float(s.w) - 0.5f;
      img.lo_y = s.align_corners ? 0.f : -0.5f;
      img.hi_y = s.align_corners ? float(s.h - 1) : float(s.h) - 0.5f;
      float* out = y + (n * s.c + c) * s.oh * s.ow;
      for (int64_t i = 0; i < s.oh * s.ow; ++i) {
        const float fx = Denormalize(g[2 * i], s.w, s.align_corners);
        const float fy = Denormalize(g[2 * i + 1], s.h, s.align_corners);
        if (!(std::fabs(fx) < 1e15f) || !(std::fabs(fy) < 1e15f)) {  // NaN, inf or no pixel near
          out[i] = s.padding == Padding::kZeros ? 0.f : std::nanf("");
          continue;
        }
        if (s.mode == Mode::kNearest) {
          out[i] = img.At(int64_t(std::nearbyint(fy)), int64_t(std::nearbyint(fx)));
        } else if (s.mode == Mode::kLinear) {
          const int64_t x1 = int64_t(std::floor(fx)), y1 = int64_t(std::floor(fy)), x2 = x1 + 1, y2 = y1 + 1;
          const float dx2 = float(x2) - fx, dx1 = fx - float(x1), dy2 = float(y2) - fy, dy1 = fy - float(y1);
          if (s.padding == Padding::kZeros && !s.align_corners) {
            const float w11 = dy2 * dx2, w12 = dy2 * dx1, w21 = dy1 * dx2, w22 = dy1 * dx1;
            out[i] = ((w11 * img.At(y1, x1) + w12 * img.At(y1, x2)) + w21 * img.At(y2, x1)) + w22 * img.At(y2, x2);
          } else {
            out[i] = dy2 * (dx2 * img.At(y1, x1) + dx1 * img.At(y1, x2)) +
                     dy1 * (dx2 * img.At(y2, x1) + dx1 * img.At(y2, x2));
          }
        } else {
          const int64_t x0 = int64_t(std::floor(fx)) - 1, y0 = int64_t(std::floor(fy)) - 1;
          float kx[4], ky[4];
          CubicWeights(std::fabs((fx - float(x0)) - 1), kx);
          CubicWeights(std::fabs((fy - float(y0)) - 1), ky);
          float sum = 0;
          for (int r = 0; r < 4; ++r) {
            float row = 0;
            for (int q = 0; q < 4; ++q) row += kx[q] * img.At(y0 + r, x0 + q);
            sum += ky[r] * row;
          }
          out[i] = sum;
        }
      }
    }
  }
}

Status RunGridSample(const GridSampleState& s, const RunArgs& args) {
  const Tensor& x = *args.input(0);
  const Tensor& grid = *args.input(1);
  Tensor& y = *args.output(0);
  if (s.dtype == DataType::kFloat32 && s.grid_dtype == DataType::kFloat32) {
    SampleFloat(s, x.data<float>(), grid.data<float>(), y.data<float>());
    return Status::Ok();
  }
  const std::vector<float> xf = ToFloat32Vector(x), gf = ToFloat32Vector(grid);
  std::vector<float> yf(size_t(y.numel()));
  SampleFloat(s, xf.data(), gf.data(), yf.data());
  StoreFromFloat32(yf, y);
  return Status::Ok();
}

Status PrepareGridSample(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& g = ctx.input(1);
  if (!IsFloatType(x.dtype) || !IsFloatType(g.dtype)) return InvalidArgument("X and grid must be float tensors");
  if (x.dims.size() != 4) return Unsupported("GridSample on rank ", x.dims.size(), " (qrt has the 2-D form)");
  if (g.dims.size() != 4 || g.dims[0] != x.dims[0] || g.dims[3] != 2) {
    return InvalidArgument("grid ", DimsToString(g.dims), " must be [N, H_out, W_out, 2] for X ", DimsToString(x.dims));
  }
  GridSampleState s;
  s.dtype = x.dtype;
  s.grid_dtype = g.dtype;
  s.n = x.dims[0], s.c = x.dims[1], s.h = x.dims[2], s.w = x.dims[3], s.oh = g.dims[1], s.ow = g.dims[2];
  QRT_ASSIGN_OR_RETURN(std::string mode, ctx.attrs().GetString("mode", ctx.opset() >= 20 ? "linear" : "bilinear"));
  if (mode == "bilinear" || mode == "linear") {
    s.mode = Mode::kLinear;
  } else if (mode == "nearest") {
    s.mode = Mode::kNearest;
  } else if (mode == "bicubic" || mode == "cubic") {
    s.mode = Mode::kCubic;
  } else {
    return InvalidArgument("mode \"", mode, "\" is not linear, nearest or cubic");
  }
  QRT_ASSIGN_OR_RETURN(std::string padding, ctx.attrs().GetString("padding_mode", "zeros"));
  if (padding == "zeros") {
    s.padding = Padding::kZeros;
  } else if (padding == "border") {
    s.padding = Padding::kBorder;
  } else if (padding == "reflection") {
    s.padding = Padding::kReflection;
  } else {
    return InvalidArgument("padding_mode \"", padding, "\" is not zeros, border or reflection");
  }
  QRT_ASSIGN_OR_RETURN(int64_t align, ctx.attrs().GetInt("align_corners", 0));
  s.align_corners = align != 0;
  ctx.SetOutput(0, x.dtype, {s.n, s.c, s.oh, s.ow});
  ctx.SetKernel<GridSampleState, RunGridSample>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kGridSampleOp{"", "GridSample", 2, 2, 1, 1, PrepareGridSample};

}  // namespace qrt
