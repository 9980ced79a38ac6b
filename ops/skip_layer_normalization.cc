// com.microsoft SkipLayerNormalization and SkipSimplifiedLayerNormalization: the last axis of
// s = input + skip (+ bias), normalized (by mean and standard deviation, or by the root mean
// square), times gamma, plus beta (optional, not in the simplified form); outputs the result
// and, optionally, the mean (0 in the simplified form, as ORT writes it), the inverse standard
// deviation and s itself. float32 in ONNX Runtime 1.30's orders, found number by number
// against it (docs/float-order.md): the sum in float, (input + skip) + bias; then
// SkipLayerNormalization is Welford's update for every row length (LayerNormShortRows, eight rows
// at a time in AVX2 lanes; not MLAS's kernel), SkipSimplifiedLayerNormalization the plain RMS loop
// (ref::RmsNormPlainRow).
#include <algorithm>
#include <vector>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/norm/layer_norm.h"
#include "ops/kernels/norm/rms_norm.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct SkipLnState {
  int64_t rows = 1, n = 1;
  float epsilon = 1e-12f;
  bool has_beta = false, has_bias = false, skip_broadcast = false;
  bool simplified = false;
  LayerNormRowsFn welford_rows = ref::LayerNormShortRows;
};

Status RunSkipLn(const SkipLnState& s, const RunArgs& args) {
  const float* x = args.input(0)->data<float>();
  const float* skip = args.input(1)->data<float>();
  const float* gamma = args.input(2)->data<float>();
  const float* beta = s.has_beta ? args.input(3)->data<float>() : nullptr;
  const float* bias = s.has_bias ? args.input(s.simplified ? 3 : 4)->data<float>() : nullptr;
  float* y = args.output(0)->data<float>();
  float* mean_out = args.num_outputs > 1 && args.output(1) ? args.output(1)->data<float>() : nullptr;
  float* inv_out = args.num_outputs > 2 && args.output(2) ? args.output(2)->data<float>() : nullptr;
  float* sum_out = args.num_outputs > 3 && args.output(3) ? args.output(3)->data<float>() : nullptr;
  // s = input + skip (+ bias) for every row, then the rows normalized.
  float* sums = sum_out != nullptr ? sum_out : ThreadScratchFloats(ScratchSlot::kOp0, size_t(s.rows * s.n));
  const int64_t skip_rows = args.input(1)->numel() / std::max<int64_t>(s.n, 1);
  for (int64_t r = 0; r < s.rows; ++r) {
    const float* sk = skip + (s.skip_broadcast ? r % skip_rows : r) * s.n;
    const float* in = x + r * s.n;
    float* row = sums + r * s.n;
    if (bias != nullptr) {
      for (int64_t i = 0; i < s.n; ++i) row[i] = (in[i] + sk[i]) + bias[i];
    } else {
      for (int64_t i = 0; i < s.n; ++i) row[i] = in[i] + sk[i];
    }
  }
  if (!s.simplified) {
    s.welford_rows(s.rows, s.n, sums, gamma, beta, s.epsilon, y, mean_out, inv_out);
    return Status::Ok();
  }
  for (int64_t r = 0; r < s.rows; ++r) {
    float inv;
    ref::RmsNormPlainRow(s.n, sums + r * s.n, gamma, s.epsilon, y + r * s.n, &inv);
    if (mean_out) mean_out[r] = 0.f;
    if (inv_out) inv_out[r] = inv;
  }
  return Status::Ok();
}

// Inputs: input, skip, gamma, then beta and bias (SkipLayerNormalization) or bias alone
// (SkipSimplifiedLayerNormalization).
template <bool kSimplified>
Status PrepareSkipLn(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.dtype != DataType::kFloat32) return Unsupported("SkipLayerNormalization on ", DataTypeName(x.dtype));
  if (x.dims.size() < 2) return InvalidArgument("input must have rank >= 2");
  SkipLnState s;
  s.n = x.dims.back();
  s.rows = ElementCount(x.dims) / std::max<int64_t>(s.n, 1);
  const TensorInfo& skip = ctx.input(1);
  if (skip.dtype != x.dtype || skip.dims.empty() || skip.dims.back() != s.n || ElementCount(skip.dims) == 0 ||
      ElementCount(x.dims) % ElementCount(skip.dims) != 0) {
    return InvalidArgument("skip ", DimsToString(skip.dims), " does not fit input ", DimsToString(x.dims));
  }
  s.skip_broadcast = skip.dims != x.dims;
  for (int i : {2, 3, 4}) {
    if (kSimplified && i == 4) continue;
    if (!ctx.has_input(i)) continue;
    if (ctx.input(i).dtype != x.dtype || ElementCount(ctx.input(i).dims) != s.n) {
      return InvalidArgument("input ", i, " must hold ", s.n, " float32 values");
    }
  }
  if (!ctx.has_input(2)) return InvalidArgument("gamma is required");
  s.simplified = kSimplified;
  s.welford_rows = SelectLayerNormShortRows(ctx.isa());
  s.has_beta = !kSimplified && ctx.has_input(3);
  s.has_bias = ctx.has_input(kSimplified ? 3 : 4);
  QRT_ASSIGN_OR_RETURN(s.epsilon, ctx.attrs().GetFloat("epsilon", 1e-12f));
  Dims stat = x.dims;
  stat.back() = 1;
  ctx.SetOutput(0, x.dtype, x.dims);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DataType::kFloat32, stat);
  if (ctx.num_outputs() > 2) ctx.SetOutput(2, DataType::kFloat32, stat);
  if (ctx.num_outputs() > 3) ctx.SetOutput(3, x.dtype, x.dims);
  ctx.SetKernel<SkipLnState, RunSkipLn>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kSkipLayerNormalizationOp{"com.microsoft", "SkipLayerNormalization", 3, 5, 1, 4, PrepareSkipLn<false>};
const OpDef kSkipSimplifiedLayerNormalizationOp{"com.microsoft",    "SkipSimplifiedLayerNormalization", 3, 4, 1, 4,
                                                PrepareSkipLn<true>};

}  // namespace qrt
