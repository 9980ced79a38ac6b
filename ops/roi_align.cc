// RoiAlign (opsets 10 and 16) on [N, C, H, W] with rois [R, 4] (x1, y1, x2, y2) and their batch
// indices: each output bin averages (mode avg) or takes the largest of (mode max) bilinear
// samples on a grid of sampling_ratio (or ceil(roi size / bins)) points per bin side. float32
// in ONNX Runtime's order: with half_pixel (opset 16's default) the roi is shifted by -0.5 and
// not widened, otherwise its sides are at least 1; a sample at
//   y = start_h + ph * bin_h + (iy + 0.5) * bin_h / grid_h   (x likewise)
// outside [-1, H] x [-1, W] counts as 0; else clamped at 0, y_low = int(y) (at H-1 the sample
// sits on the last row), weights hy*hx, hy*lx, ly*hx, ly*lx; avg sums w1 v1 + w2 v2 + w3 v3 +
// w4 v4 per sample, then divides by the sample count; max keeps the largest of the four
// weighted values over the samples.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct RoiAlignState {
  int64_t c = 1, h = 1, w = 1, rois = 0, batch = 1, out_h = 1, out_w = 1, sampling = 0;
  float spatial_scale = 1;
  bool half_pixel = true, max_mode = false;
};

struct Sample {
  int64_t p1 = 0, p2 = 0, p3 = 0, p4 = 0;
  float w1 = 0, w2 = 0, w3 = 0, w4 = 0;
};

Sample MakeSample(float y, float x, int64_t height, int64_t width) {
  Sample s;
  if (y < -1.0f || y > float(height) || x < -1.0f || x > float(width)) return s;
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y_low = int64_t(y), x_low = int64_t(x), y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = float(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = float(x_low);
  } else {
    x_high = x_low + 1;
  }
  const float ly = y - float(y_low), lx = x - float(x_low), hy = 1.f - ly, hx = 1.f - lx;
  s.p1 = y_low * width + x_low, s.p2 = y_low * width + x_high, s.p3 = y_high * width + x_low;
  s.p4 = y_high * width + x_high;
  s.w1 = hy * hx, s.w2 = hy * lx, s.w3 = ly * hx, s.w4 = ly * lx;
  return s;
}

// Samples per bin side: sampling_ratio, or ceil(roi size / bins); a roi too large (or NaN) for
// a sane grid is an error, a negative one samples nothing.
StatusOr<int64_t> GridSide(const RoiAlignState& s, float roi_size, int64_t bins) {
  if (s.sampling > 0) return s.sampling;
  const double g = std::ceil(double(roi_size) / double(bins));
  if (g != g || g > 65536) return InvalidArgument("a roi of size ", roi_size, " needs too many samples");
  return g < 0 ? int64_t(0) : int64_t(g);
}

Status RoiAlignFloat(const RoiAlignState& s, const float* x, const float* rois, const Tensor& batch_index, float* y) {
  const float offset = s.half_pixel ? 0.5f : 0.f;
  std::vector<Sample> samples;
  for (int64_t r = 0; r < s.rois; ++r) {
    const float* roi = rois + r * 4;
    const int64_t b = batch_index.GetAsInt64(r);
    const float start_w = roi[0] * s.spatial_scale - offset, start_h = roi[1] * s.spatial_scale - offset;
    const float end_w = roi[2] * s.spatial_scale - offset, end_h = roi[3] * s.spatial_scale - offset;
    float roi_w = end_w - start_w, roi_h = end_h - start_h;
    if (!s.half_pixel) roi_w = std::max(roi_w, 1.f), roi_h = std::max(roi_h, 1.f);
    const float bin_h = roi_h / float(s.out_h), bin_w = roi_w / float(s.out_w);
    QRT_ASSIGN_OR_RETURN(const int64_t grid_h, GridSide(s, roi_h, s.out_h));
    QRT_ASSIGN_OR_RETURN(const int64_t grid_w, GridSide(s, roi_w, s.out_w));
    if (grid_h * grid_w * s.out_h * s.out_w > (int64_t(1) << 26))
      return InvalidArgument("roi ", r, " needs too many samples");
    const int64_t count = std::max<int64_t>(grid_h * grid_w, 1);
    samples.clear();
    for (int64_t ph = 0; ph < s.out_h; ++ph)
      for (int64_t pw = 0; pw < s.out_w; ++pw)
        for (int64_t iy = 0; iy < grid_h; ++iy) {
          const float yy = start_h + float(ph) * bin_h + (float(iy) + .5f) * bin_h / float(grid_h);
          for (int64_t ix = 0; ix < grid_w; ++ix) {
            const float xx = start_w + float(pw) * bin_w + (float(ix) + .5f) * bin_w / float(grid_w);
            samples.push_back(MakeSample(yy, xx, s.h, s.w));
          }
        }
    for (int64_t c = 0; c < s.c; ++c) {
      const float* plane = x + (b * s.c + c) * s.h * s.w;
      float* out = y + (r * s.c + c) * s.out_h * s.out_w;
      size_t k = 0;
      for (int64_t bin = 0; bin < s.out_h * s.out_w; ++bin) {
        float acc = 0;
        bool first = true;
        for (int64_t j = 0; j < grid_h * grid_w; ++j, ++k) {
          const Sample& p = samples[k];
          if (s.max_mode) {
            const float v = std::max(std::max(std::max(p.w1 * plane[p.p1], p.w2 * plane[p.p2]), p.w3 * plane[p.p3]),
                                     p.w4 * plane[p.p4]);
            acc = first ? v : std::max(acc, v);
            first = false;
          } else {
            acc += p.w1 * plane[p.p1] + p.w2 * plane[p.p2] + p.w3 * plane[p.p3] + p.w4 * plane[p.p4];
          }
        }
        out[bin] = s.max_mode ? acc : acc / float(count);
      }
    }
  }
  return Status::Ok();
}

Status RunRoiAlign(const RoiAlignState& s, const RunArgs& args) {
  const Tensor& bi = *args.input(2);
  for (int64_t r = 0; r < s.rois; ++r) {
    const int64_t b = bi.GetAsInt64(r);
    if (b < 0 || b >= s.batch) return InvalidArgument("batch index ", b, " of roi ", r, " is out of range");
  }
  return RoiAlignFloat(s, args.input(0)->data<float>(), args.input(1)->data<float>(), bi,
                       args.output(0)->data<float>());
}

Status PrepareRoiAlign(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.dtype != DataType::kFloat32 || ctx.input(1).dtype != DataType::kFloat32) {
    return Unsupported("RoiAlign on ", DataTypeName(x.dtype), " (qrt has float32)");
  }
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 2, {DataType::kInt64}));
  if (x.dims.size() != 4) return InvalidArgument("X must be [N, C, H, W]");
  const Dims& r = ctx.input(1).dims;
  if (r.size() != 2 || r[1] != 4) return InvalidArgument("rois must be [num_rois, 4]");
  if (ctx.input(2).dims != Dims{r[0]}) return InvalidArgument("batch_indices must be [num_rois]");
  RoiAlignState s;
  s.batch = x.dims[0], s.c = x.dims[1], s.h = x.dims[2], s.w = x.dims[3], s.rois = r[0];
  QRT_ASSIGN_OR_RETURN(std::string mode, ctx.attrs().GetString("mode", "avg"));
  if (mode != "avg" && mode != "max") return InvalidArgument("mode must be avg or max, not \"", mode, "\"");
  s.max_mode = mode == "max";
  QRT_ASSIGN_OR_RETURN(s.out_h, ctx.attrs().GetInt("output_height", 1));
  QRT_ASSIGN_OR_RETURN(s.out_w, ctx.attrs().GetInt("output_width", 1));
  QRT_ASSIGN_OR_RETURN(s.sampling, ctx.attrs().GetInt("sampling_ratio", 0));
  QRT_ASSIGN_OR_RETURN(s.spatial_scale, ctx.attrs().GetFloat("spatial_scale", 1.f));
  if (s.out_h < 1 || s.out_w < 1 || s.sampling < 0) return InvalidArgument("bad output size or sampling_ratio");
  std::string coord = "output_half_pixel";
  if (ctx.opset() >= 16) {
    QRT_ASSIGN_OR_RETURN(coord, ctx.attrs().GetString("coordinate_transformation_mode", "half_pixel"));
  }
  if (coord != "half_pixel" && coord != "output_half_pixel") {
    return InvalidArgument("coordinate_transformation_mode \"", coord, "\" is not half_pixel or output_half_pixel");
  }
  s.half_pixel = coord == "half_pixel";
  const Dims out = {s.rois, s.c, s.out_h, s.out_w};
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, sizeof(float)).status());
  ctx.SetOutput(0, DataType::kFloat32, out);
  ctx.SetKernel<RoiAlignState, RunRoiAlign>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kRoiAlignOp{"", "RoiAlign", 3, 3, 1, 1, PrepareRoiAlign};

}  // namespace qrt
