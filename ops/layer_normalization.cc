// LayerNormalization (opset 17): each row of the trailing axes [axis, rank) normalized by
// its mean and standard deviation, times Scale, plus B (optional); optional outputs Mean and
// InvStdDev of shape dims[:axis] + [1]*. float32 with float32 scale and bias follows ONNX
// Runtime 1.30 bit for bit (ops/kernels/norm/layer_norm.h): MLAS's centered two-pass kernel
// for rows of 8 or more, Welford's update for shorter ones. Other types, in the compute type:
//   mean = (sum x) / n;  msq = (sum x*x) / n  (both sums in input order)
//   d = sqrt(msq - mean*mean + epsilon);  y = (x - mean) / d * scale + bias
// float64 computes in double; float16 and bfloat16 in float32, rounded once.
#include <cmath>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/norm/layer_norm.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "ops/layer_norm_quantize_dequantize.h"
#include "ops/layer_norm_quantized.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/quantize_dequantize.h"

namespace qrt {
namespace {

struct LayerNormState {
  DataType dtype, scale_dtype;
  int64_t rows = 1, n = 1;
  float epsilon = 1e-5f;
  bool has_bias = false;
  LayerNormRowFn row = ref::LayerNormRow;  // float32 rows of n (layer_norm.h)
  // qrt:LayerNormQuantizeDequantize: the fake quantizations of each input and output row.
  QuantizeDequantizeF32Fn in_fake_quant = nullptr, out_fake_quant = nullptr;
  // qrt:LayerNormQuantized: X's codes to floats and the result to Y's codes.
  DequantizeToF32Fn dequantize = nullptr;
  QuantizeF32Fn quantize = nullptr;
};

// EX, EP, ES: the input's, the scale's and the statistics' element types.
template <class EX, class EP, class ES>
void LayerNormTyped(const LayerNormState& s, const RunArgs& args) {
  using C = std::conditional_t<std::is_same_v<typename EX::Compute, double>, double, float>;
  const auto* x = args.input(0)->data<typename EX::Stored>();
  const auto* scale = args.input(1)->data<typename EP::Stored>();
  const auto* bias = s.has_bias ? args.input(2)->data<typename EP::Stored>() : nullptr;
  auto* y = args.output(0)->data<typename EX::Stored>();
  auto* mean_out = args.num_outputs > 1 && args.output(1) ? args.output(1)->data<typename ES::Stored>() : nullptr;
  auto* inv_out = args.num_outputs > 2 && args.output(2) ? args.output(2)->data<typename ES::Stored>() : nullptr;
  const C n = C(s.n);
  for (int64_t r = 0; r < s.rows; ++r) {
    const auto* row = x + r * s.n;
    auto* out = y + r * s.n;
    if constexpr (std::is_same_v<typename EX::Stored, float> && std::is_same_v<typename EP::Stored, float>) {
      float mean, inv;
      s.row(s.n, row, scale, bias, s.epsilon, out, &mean, &inv);
      if (mean_out) mean_out[r] = mean;
      if (inv_out) inv_out[r] = inv;
      continue;
    }
    C sum = 0, sum_sq = 0;
    for (int64_t i = 0; i < s.n; ++i) {
      const C v = C(EX::Load(row[i]));
      sum += v;
      sum_sq += v * v;
    }
    const C mean = sum / n;
    const C d = std::sqrt(sum_sq / n - mean * mean + C(s.epsilon));
    for (int64_t i = 0; i < s.n; ++i) {
      C v = (C(EX::Load(row[i])) - mean) / d * C(EP::Load(scale[i]));
      if (bias) v = v + C(EP::Load(bias[i]));
      out[i] = EX::Store(typename EX::Compute(v));
    }
    if (mean_out) mean_out[r] = ES::Store(typename ES::Compute(mean));
    if (inv_out) inv_out[r] = ES::Store(typename ES::Compute(C(1) / d));
  }
}

template <class Tag>
constexpr bool IsFloatTag() {
  return std::is_same_v<Tag, float> || std::is_same_v<Tag, double> || std::is_same_v<Tag, Float16Tag> ||
         std::is_same_v<Tag, BFloat16Tag>;
}

Status RunLayerNorm(const LayerNormState& s, const RunArgs& args) {
  DispatchElem(s.dtype, [&](auto xt) {
    DispatchElem(s.scale_dtype, [&](auto pt) {
      using XT = decltype(xt);
      using PT = decltype(pt);
      if constexpr (IsFloatTag<XT>() && IsFloatTag<PT>()) LayerNormTyped<Elem<XT>, Elem<PT>, Elem<float>>(s, args);
    });
  });
  return Status::Ok();
}

// Checks X, Scale and B and the attributes; fills s and returns the statistics' dims. X holds
// floats, or with `x_codes` the 8-bit codes of qrt:LayerNormQuantized (s.dtype is then float32,
// the type the rows are normalized in).
StatusOr<Dims> PrepareLayerNormState(PrepareContext& ctx, LayerNormState& s, bool x_codes = false) {
  const TensorInfo& x = ctx.input(0);
  if (x_codes ? !Is8BitInteger(x.dtype) : !IsFloatType(x.dtype)) {
    return InvalidArgument("X must be ", x_codes ? "8-bit" : "a float type", ", not ", DataTypeName(x.dtype));
  }
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("X must have rank >= 1");
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", -1));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  QRT_ASSIGN_OR_RETURN(int64_t stash, ctx.attrs().GetInt("stash_type", 1));
  if (stash != 1) return Unsupported("stash_type ", stash, " (qrt computes float32 statistics)");
  s.dtype = x_codes ? DataType::kFloat32 : x.dtype;
  QRT_ASSIGN_OR_RETURN(s.epsilon, ctx.attrs().GetFloat("epsilon", 1e-5f));
  for (int64_t d = 0; d < rank; ++d) (d < axis ? s.rows : s.n) *= x.dims[size_t(d)];
  const Dims norm_dims(x.dims.begin() + axis, x.dims.end());
  for (int i = 1; i <= 2; ++i) {
    if (!ctx.has_input(i)) continue;
    const TensorInfo& p = ctx.input(i);
    if (!IsFloatType(p.dtype)) return InvalidArgument("input ", i, " must be a float type");
    if (ElementCount(p.dims) != s.n || !BroadcastsTo(p.dims, norm_dims)) {
      return Unsupported("input ", i, " of shape ", DimsToString(p.dims), " is not the normalized shape ",
                         DimsToString(norm_dims));
    }
  }
  if (!ctx.has_input(1)) return InvalidArgument("Scale is required");
  s.scale_dtype = ctx.input(1).dtype;
  s.has_bias = ctx.has_input(2);
  s.row = SelectLayerNormRow(ctx.isa(), s.n);
  if (s.has_bias && ctx.input(2).dtype != s.scale_dtype) return InvalidArgument("Scale and B must share a dtype");
  Dims stat_dims = x.dims;
  for (int64_t d = axis; d < rank; ++d) stat_dims[size_t(d)] = 1;
  return stat_dims;
}

Status PrepareLayerNorm(PrepareContext& ctx) {
  LayerNormState s;
  QRT_ASSIGN_OR_RETURN(Dims stat_dims, PrepareLayerNormState(ctx, s));
  const TensorInfo& x = ctx.input(0);
  ctx.SetOutput(0, x.dtype, x.dims);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DataType::kFloat32, stat_dims);
  if (ctx.num_outputs() > 2) ctx.SetOutput(2, DataType::kFloat32, stat_dims);
  ctx.SetKernel<LayerNormState, RunLayerNorm>(std::move(s));
  return Status::Ok();
}

Status RunLayerNormQdq(const LayerNormState& s, const RunArgs& args) {
  const float* x = args.input(lnqd::kX)->data<float>();
  const float* scale = args.input(lnqd::kScale)->data<float>();
  const float* bias = s.has_bias ? args.input(lnqd::kBias)->data<float>() : nullptr;
  float* y = args.output(0)->data<float>();
  const FakeQuantStep out = FakeQuantFromInputs(args, lnqd::kOutScale, s.out_fake_quant);
  FakeQuantStep in;
  float* row_in = nullptr;
  if (s.in_fake_quant != nullptr) {
    in = FakeQuantFromInputs(args, lnqd::kInScale, s.in_fake_quant);
    row_in = ThreadScratchFloats(ScratchSlot::kOp1, size_t(s.n));
  }
  for (int64_t r = 0; r < s.rows; ++r) {
    const float* src = x + r * s.n;
    if (row_in != nullptr) {
      in.map(s.n, src, in.scale, in.zero_point, row_in);
      src = row_in;
    }
    float* dst = y + r * s.n;
    float mean, inv;
    s.row(s.n, src, scale, bias, s.epsilon, dst, &mean, &inv);
    out.map(s.n, dst, out.scale, out.zero_point, dst);
  }
  return Status::Ok();
}

Status PrepareLayerNormQdq(PrepareContext& ctx) {
  LayerNormState s;
  QRT_RETURN_IF_ERROR(PrepareLayerNormState(ctx, s).status());
  if (s.dtype != DataType::kFloat32 || s.scale_dtype != DataType::kFloat32) {
    return InvalidArgument("X, Scale and B must be float32");
  }
  if (ctx.has_input(lnqd::kInScale)) {
    QRT_ASSIGN_OR_RETURN(s.in_fake_quant, PrepareFakeQuant(ctx, lnqd::kInScale));
  } else if (ctx.has_input(lnqd::kInZeroPoint)) {
    return InvalidArgument("an input zero point without an input scale");
  }
  if (!ctx.has_input(lnqd::kOutScale)) return InvalidArgument("the output scale is required");
  QRT_ASSIGN_OR_RETURN(s.out_fake_quant, PrepareFakeQuant(ctx, lnqd::kOutScale));
  ctx.SetOutput(0, DataType::kFloat32, ctx.input(lnqd::kX).dims);
  ctx.SetKernel<LayerNormState, RunLayerNormQdq>(std::move(s));
  return Status::Ok();
}

int32_t ScalarZeroPoint(const Tensor* zp) {
  if (zp == nullptr) return 0;
  return zp->dtype() == DataType::kInt8 ? zp->data<int8_t>()[0] : zp->data<uint8_t>()[0];
}

Status RunLayerNormQuantized(const LayerNormState& s, const RunArgs& args) {
  const uint8_t* x = static_cast<const uint8_t*>(args.input(lnq::kX)->raw());
  const float* scale = args.input(lnq::kScale)->data<float>();
  const float* bias = s.has_bias ? args.input(lnq::kBias)->data<float>() : nullptr;
  uint8_t* y = static_cast<uint8_t*>(args.output(0)->raw());
  const float x_scale = args.input(lnq::kXScale)->data<float>()[0];
  const float y_scale = args.input(lnq::kYScale)->data<float>()[0];
  const int32_t x_zp = ScalarZeroPoint(args.input(lnq::kXZeroPoint));
  const int32_t y_zp = ScalarZeroPoint(args.input(lnq::kYZeroPoint));
  float* in = ThreadScratchFloats(ScratchSlot::kOp0, size_t(s.n));
  float* out = ThreadScratchFloats(ScratchSlot::kOp1, size_t(s.n));
  for (int64_t r = 0; r < s.rows; ++r) {
    s.dequantize(s.n, x + r * s.n, x_scale, x_zp, in);
    float mean, inv;
    s.row(s.n, in, scale, bias, s.epsilon, out, &mean, &inv);
    s.quantize(s.n, out, y_scale, y_zp, y + r * s.n);
  }
  return Status::Ok();
}

Status PrepareLayerNormQuantized(PrepareContext& ctx) {
  LayerNormState s;
  QRT_RETURN_IF_ERROR(PrepareLayerNormState(ctx, s, /*x_codes=*/true).status());
  if (s.scale_dtype != DataType::kFloat32) return InvalidArgument("Scale and B must be float32");
  for (int i : {lnq::kXScale, lnq::kYScale}) {
    if (ctx.input(i).dtype != DataType::kFloat32 || ElementCount(ctx.input(i).dims) != 1) {
      return InvalidArgument("input ", i, " must be one float32 scale");
    }
  }
  const DataType x_type = ctx.input(lnq::kX).dtype;
  if (ctx.has_input(lnq::kXZeroPoint) &&
      (ctx.input(lnq::kXZeroPoint).dtype != x_type || ElementCount(ctx.input(lnq::kXZeroPoint).dims) != 1)) {
    return InvalidArgument("X's zero point must be one ", DataTypeName(x_type));
  }
  const DataType y_type = ctx.has_input(lnq::kYZeroPoint) ? ctx.input(lnq::kYZeroPoint).dtype : DataType::kUInt8;
  if (!Is8BitInteger(y_type) ||
      (ctx.has_input(lnq::kYZeroPoint) && ElementCount(ctx.input(lnq::kYZeroPoint).dims) != 1)) {
    return InvalidArgument("Y's zero point must be one 8-bit value");
  }
  s.dequantize = SelectDequantizeToF32(x_type, ctx.isa());
  s.quantize = SelectQuantizeF32(y_type, ctx.isa());
  ctx.SetOutput(0, y_type, ctx.input(lnq::kX).dims);
  ctx.SetKernel<LayerNormState, RunLayerNormQuantized>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kLayerNormalizationOp{"", "LayerNormalization", 2, 3, 1, 3, PrepareLayerNorm};
const OpDef kLayerNormQuantizeDequantizeOp{
    "qrt", "LayerNormQuantizeDequantize", lnqd::kOutScale + 1, lnqd::kInputCount, 1, 1, PrepareLayerNormQdq};
const OpDef kQrtLayerNormQuantizedOp{"qrt", "LayerNormQuantized",     lnq::kYScale + 1, lnq::kInputCount, 1,
                                     1,     PrepareLayerNormQuantized};

}  // namespace qrt
