// NonMaxSuppression(boxes [B, N, 4], scores [B, C, N], max_output_boxes_per_class, iou_threshold,
// score_threshold): per batch and class, the boxes whose score is above score_threshold, taken
// by descending score (the lower index first on equal scores), each kept unless its IoU with a
// box already kept exceeds iou_threshold, at most max_output_boxes_per_class of them (0 or
// absent: none). Output: int64 [count, 3] of (batch, class, box), batch by batch, class by
// class, in the order kept. As ONNX Runtime computes it, in float: boxes are [y1, x1, y2, x2]
// (either corner order) or, with center_point_box 1, [x_center, y_center, width, height]; boxes
// that do not overlap, or of no area, never suppress. Data-dependent (data_dependent.h).
#include <algorithm>
#include <numeric>
#include <vector>

#include "ops/data_dependent.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct Corners {
  float y_min, x_min, y_max, x_max;
};

Corners CornersOf(const float* b, bool center) {
  if (center) {
    const float half_w = b[2] / 2.f, half_h = b[3] / 2.f;
    return {b[1] - half_h, b[0] - half_w, b[1] + half_h, b[0] + half_w};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

bool Suppresses(const Corners& a, const Corners& b, float iou_threshold) {
  const float ix_min = std::max(a.x_min, b.x_min), ix_max = std::min(a.x_max, b.x_max);
  const float iy_min = std::max(a.y_min, b.y_min), iy_max = std::min(a.y_max, b.y_max);
  if (ix_max <= ix_min || iy_max <= iy_min) return false;
  const float intersection = (ix_max - ix_min) * (iy_max - iy_min);
  const float area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
  const float area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
  if (area_a <= 0.f || area_b <= 0.f) return false;
  const float union_area = area_a + area_b - intersection;
  if (union_area <= 0.f) return false;
  return intersection / union_area > iou_threshold;
}

// A scalar input's value (an optional one: `fallback` when absent).
template <class T>
StatusOr<T> ScalarInput(const PrepareContext& ctx, int i, DataType dtype, T fallback, const char* what) {
  if (!ctx.has_input(i)) return fallback;
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, i, {dtype}));
  if (ElementCount(ctx.input(i).dims) != 1) return InvalidArgument(what, " must have one element");
  if (ctx.input(i).value == nullptr) return NeedsConstant(ctx, i, what);
  return ctx.input(i).value->data<T>()[0];
}

Status PrepareNonMaxSuppression(PrepareContext& ctx) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kFloat32}));
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kFloat32}));
  const Dims& bd = ctx.input(0).dims;
  const Dims& sd = ctx.input(1).dims;
  if (bd.size() != 3 || bd[2] != 4) return InvalidArgument("boxes must be [batch, boxes, 4], got ", DimsToString(bd));
  if (sd.size() != 3 || sd[0] != bd[0] || sd[2] != bd[1]) {
    return InvalidArgument("scores must be [batch, classes, boxes] for boxes ", DimsToString(bd), ", got ",
                           DimsToString(sd));
  }
  QRT_ASSIGN_OR_RETURN(int64_t max_out,
                       ScalarInput<int64_t>(ctx, 2, DataType::kInt64, 0, "max_output_boxes_per_class"));
  QRT_ASSIGN_OR_RETURN(float iou, ScalarInput<float>(ctx, 3, DataType::kFloat32, 0.f, "iou_threshold"));
  const bool has_score_threshold = ctx.has_input(4);
  QRT_ASSIGN_OR_RETURN(float score_threshold, ScalarInput<float>(ctx, 4, DataType::kFloat32, 0.f, "score_threshold"));
  QRT_ASSIGN_OR_RETURN(int64_t center, ctx.attrs().GetInt("center_point_box", 0));
  if (center != 0 && center != 1) return InvalidArgument("center_point_box must be 0 or 1, got ", center);
  if (ctx.input(0).value == nullptr) return NeedsConstant(ctx, 0, "boxes, whose survivors are the output's shape");
  if (ctx.input(1).value == nullptr) return NeedsConstant(ctx, 1, "scores, whose survivors are the output's shape");
  const float* boxes = ctx.input(0).value->data<float>();
  const float* scores = ctx.input(1).value->data<float>();
  const int64_t batches = bd[0], n = bd[1], classes = sd[1];
  std::vector<int64_t> selected;  // (batch, class, box) triples
  std::vector<Corners> corners(static_cast<size_t>(n));
  std::vector<int64_t> order, kept;
  for (int64_t b = 0; b < batches && max_out > 0; ++b) {
    for (int64_t i = 0; i < n; ++i) corners[size_t(i)] = CornersOf(boxes + (b * n + i) * 4, center != 0);
    for (int64_t c = 0; c < classes; ++c) {
      const float* s = scores + (b * classes + c) * n;
      order.clear();
      for (int64_t i = 0; i < n; ++i) {
        if (!has_score_threshold || s[i] > score_threshold) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t z) { return s[a] > s[z]; });
      kept.clear();
      for (int64_t i : order) {
        if (int64_t(kept.size()) >= max_out) break;
        bool keep = true;
        for (int64_t k : kept) {
          if (Suppresses(corners[size_t(i)], corners[size_t(k)], iou)) {
            keep = false;
            break;
          }
        }
        if (!keep) continue;
        kept.push_back(i);
        selected.insert(selected.end(), {b, c, i});
      }
    }
  }
  std::vector<Tensor> outputs;
  outputs.push_back(Tensor::FromVector<int64_t>(selected, {int64_t(selected.size() / 3), 3}));
  SetComputedOutputs(ctx, std::move(outputs));
  return Status::Ok();
}

}  // namespace

const OpDef kNonMaxSuppressionOp{"", "NonMaxSuppression", 2, 5, 1, 1, PrepareNonMaxSuppression};

}  // namespace qrt
