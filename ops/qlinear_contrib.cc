// ONNX Runtime's QOperator ops on 8-bit tensors (domain com.microsoft), each defined as its
// DequantizeLinear -> float op -> QuantizeLinear chain and computed the way ONNX Runtime does:
// - QLinearSigmoid, QLinearLeakyRelu: a 256-entry table of the chain over every code (x =
//   (q - x_zp) * x_scale; ORT's Sigmoid approximation, or x < 0 ? alpha x : x; y = sat(rint(y /
//   y_scale) + y_zp)), applied byte by byte.
// - QLinearConcat(Y_scale, Y_zp, X_1, X_1_scale, X_1_zp, ...): each input copied when its scale
//   and zero point are the output's, otherwise through its requantization table.
// - QLinearGlobalAveragePool: the plane's int32 sum requantized as MLAS does,
//   sat(rint(float(sum - x_zp * n) * (x_scale / (y_scale * n))) + y_zp) (NCHW, or NHWC with
//   channels_last).
// Scales and zero points are per tensor and known when the graph is planned.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ops/kernels/eltwise/lookup_table.h"
#include "ops/kernels/eltwise/sigmoid_tanh.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct QParams {
  float scale = 1;
  int32_t zp = 0;
};

// A per-tensor scale (input i) and optional zero point (input i + 1), known at plan time.
StatusOr<QParams> ReadQParams(const PrepareContext& ctx, int i, DataType q_dtype) {
  QParams p;
  if (!ctx.has_input(i) || ctx.input(i).dtype != DataType::kFloat32 || ElementCount(ctx.input(i).dims) != 1) {
    return InvalidArgument("input ", i, " must be a float32 scale, one per tensor");
  }
  if (ctx.input(i).value == nullptr) return NeedsConstant(ctx, i, "scale");
  p.scale = ctx.input(i).value->data<float>()[0];
  if (!(p.scale > 0) || !std::isfinite(p.scale)) return InvalidArgument("scale ", p.scale, " must be positive");
  if (ctx.has_input(i + 1)) {
    if (ctx.input(i + 1).dtype != q_dtype || ElementCount(ctx.input(i + 1).dims) != 1) {
      return InvalidArgument("input ", i + 1, " must be a zero point of the tensor's dtype, one per tensor");
    }
    if (ctx.input(i + 1).value == nullptr) return NeedsConstant(ctx, i + 1, "zero point");
    p.zp = int32_t(ctx.input(i + 1).value->GetAsInt64(0));
  }
  return p;
}

// table[k] = Q(f(DQ(code k))), k the code's byte pattern.
template <class F>
std::vector<uint8_t> BuildTable(DataType dtype, QParams in, QParams out, F f) {
  std::vector<uint8_t> codes(256), table(256);
  for (int k = 0; k < 256; ++k) codes[size_t(k)] = uint8_t(k);
  std::vector<float> x(256), y(256);
  if (dtype == DataType::kUInt8) {
    ref::DequantizeU8ToF32(256, codes.data(), in.scale, in.zp, x.data());
  } else {
    ref::DequantizeS8ToF32(256, codes.data(), in.scale, in.zp, x.data());
  }
  f(x.data(), y.data());
  if (dtype == DataType::kUInt8) {
    ref::QuantizeF32ToU8(256, y.data(), out.scale, out.zp, table.data());
  } else {
    ref::QuantizeF32ToS8(256, y.data(), out.scale, out.zp, table.data());
  }
  return table;
}

struct TableState {
  std::vector<uint8_t> table;
  LookupTableFn kernel = nullptr;
};

Status RunTable(const TableState& s, const RunArgs& args) {
  s.kernel(args.input(0)->numel(), static_cast<const uint8_t*>(args.input(0)->raw()), s.table.data(),
           static_cast<uint8_t*>(args.output(0)->raw()));
  return Status::Ok();
}

enum class TableOp { kSigmoid, kLeakyRelu };

template <TableOp kOp>
Status PrepareTableOp(PrepareContext& ctx) {
  const DataType t = ctx.input(0).dtype;
  if (t != DataType::kUInt8 && t != DataType::kInt8) return InvalidArgument("X must be uint8 or int8");
  QRT_ASSIGN_OR_RETURN(QParams in, ReadQParams(ctx, 1, t));
  QRT_ASSIGN_OR_RETURN(QParams out, ReadQParams(ctx, 3, t));
  TableState s;
  if (kOp == TableOp::kSigmoid) {
    s.table = BuildTable(t, in, out, [](const float* x, float* y) { ref::Sigmoid(256, x, y); });
  } else {
    QRT_ASSIGN_OR_RETURN(float alpha, ctx.attrs().GetFloat("alpha", 0.01f));
    s.table = BuildTable(t, in, out, [alpha](const float* x, float* y) {
      for (int k = 0; k < 256; ++k) y[k] = x[k] < 0 ? x[k] * alpha : x[k];
    });
  }
  s.kernel = SelectLookupTable(ctx.isa());
  ctx.SetOutput(0, t, ctx.input(0).dims);
  ctx.SetKernel<TableState, RunTable>(std::move(s));
  return Status::Ok();
}

// ---- QLinearConcat ----

struct ConcatState {
  int64_t outer = 1;
  std::vector<int64_t> block;                // per input: elements per outer step
  std::vector<std::vector<uint8_t>> tables;  // per input: empty when copied
};

Status RunConcat(const ConcatState& s, const RunArgs& args) {
  uint8_t* y = static_cast<uint8_t*>(args.output(0)->raw());
  int64_t row = 0;
  for (int64_t b : s.block) row += b;
  for (size_t k = 0; k < s.block.size(); ++k) {
    const uint8_t* x = static_cast<const uint8_t*>(args.input(int(2 + 3 * k))->raw());
    int64_t col = 0;
    for (size_t j = 0; j < k; ++j) col += s.block[j];
    for (int64_t o = 0; o < s.outer; ++o) {
      uint8_t* dst = y + o * row + col;
      const uint8_t* src = x + o * s.block[k];
      if (s.tables[k].empty()) {
        std::memcpy(dst, src, size_t(s.block[k]));
      } else {
        for (int64_t i = 0; i < s.block[k]; ++i) dst[i] = s.tables[k][src[i]];
      }
    }
  }
  return Status::Ok();
}

Status PrepareConcat(PrepareContext& ctx) {
  if (ctx.num_inputs() < 5 || (ctx.num_inputs() - 2) % 3 != 0) {
    return InvalidArgument("QLinearConcat takes Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) triples");
  }
  const DataType t = ctx.input(2).dtype;
  if (t != DataType::kUInt8 && t != DataType::kInt8) return InvalidArgument("inputs must be uint8 or int8");
  QRT_ASSIGN_OR_RETURN(QParams out, ReadQParams(ctx, 0, t));
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis"));
  const Dims& first = ctx.input(2).dims;
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, int64_t(first.size())));
  ConcatState s;
  Dims out_dims = first;
  out_dims[size_t(axis)] = 0;
  for (int64_t d = 0; d < axis; ++d) s.outer *= first[size_t(d)];
  for (int k = 2; k < ctx.num_inputs(); k += 3) {
    const TensorInfo& x = ctx.input(k);
    if (x.dtype != t || x.dims.size() != first.size()) return InvalidArgument("input ", k, " differs in dtype or rank");
    for (size_t d = 0; d < first.size(); ++d) {
      if (int64_t(d) != axis && x.dims[d] != first[d]) return InvalidArgument("input ", k, " differs off the axis");
    }
    QRT_ASSIGN_OR_RETURN(QParams in, ReadQParams(ctx, k + 1, t));
    out_dims[size_t(axis)] += x.dims[size_t(axis)];
    s.block.push_back(s.outer == 0 ? 0 : ElementCount(x.dims) / std::max<int64_t>(s.outer, 1));
    if (in.scale == out.scale && in.zp == out.zp) {
      s.tables.emplace_back();
    } else {
      s.tables.push_back(BuildTable(t, in, out, [](const float* x, float* y) { std::memcpy(y, x, 256 * 4); }));
    }
  }
  ctx.SetOutput(0, t, out_dims);
  ctx.SetKernel<ConcatState, RunConcat>(std::move(s));
  return Status::Ok();
}

// ---- QLinearGlobalAveragePool ----

struct GapState {
  DataType dtype;
  int64_t batch = 1, channels = 1, plane = 1;
  bool channels_last = false;
  QParams in, out;
};

template <class T>
void GapTyped(const GapState& s, const T* x, T* y) {
  const float scale = s.in.scale / (s.out.scale * float(s.plane));
  const int32_t bias = -s.in.zp * int32_t(s.plane);
  const float lo = float(int32_t(std::numeric_limits<T>::min()) - s.out.zp);
  const float hi = float(int32_t(std::numeric_limits<T>::max()) - s.out.zp);
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t c = 0; c < s.channels; ++c) {
      int32_t sum = 0;
      for (int64_t i = 0; i < s.plane; ++i) {
        sum += int32_t(s.channels_last ? x[(n * s.plane + i) * s.channels + c] : x[(n * s.channels + c) * s.plane + i]);
      }
      float v = float(sum + bias) * scale;
      v = v >= lo ? v : lo;
      v = v <= hi ? v : hi;
      y[n * s.channels + c] = T(int32_t(std::nearbyint(v)) + s.out.zp);
    }
  }
}

Status RunGap(const GapState& s, const RunArgs& args) {
  if (s.dtype == DataType::kUInt8) {
    GapTyped(s, args.input(0)->data<uint8_t>(), args.output(0)->data<uint8_t>());
  } else {
    GapTyped(s, args.input(0)->data<int8_t>(), args.output(0)->data<int8_t>());
  }
  return Status::Ok();
}

Status PrepareGap(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.dtype != DataType::kUInt8 && x.dtype != DataType::kInt8) return InvalidArgument("X must be uint8 or int8");
  if (x.dims.size() < 3) return InvalidArgument("X must have rank >= 3");
  GapState s;
  s.dtype = x.dtype;
  QRT_ASSIGN_OR_RETURN(s.in, ReadQParams(ctx, 1, x.dtype));
  QRT_ASSIGN_OR_RETURN(s.out, ReadQParams(ctx, 3, x.dtype));
  QRT_ASSIGN_OR_RETURN(int64_t last, ctx.attrs().GetInt("channels_last", 0));
  s.channels_last = last != 0;
  const size_t r = x.dims.size();
  s.batch = x.dims[0];
  s.channels = s.channels_last ? x.dims[r - 1] : x.dims[1];
  for (size_t d = s.channels_last ? 1 : 2; d < (s.channels_last ? r - 1 : r); ++d) s.plane *= x.dims[d];
  if (s.plane == 0 || s.plane > (int64_t(1) << 23))
    return InvalidArgument("the pooled plane has ", s.plane, " elements");
  Dims out = x.dims;
  for (size_t d = s.channels_last ? 1 : 2; d < (s.channels_last ? r - 1 : r); ++d) out[d] = 1;
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<GapState, RunGap>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kQLinearSigmoidOp{"com.microsoft", "QLinearSigmoid", 4, 5, 1, 1, PrepareTableOp<TableOp::kSigmoid>};
const OpDef kQLinearLeakyReluOp{"com.microsoft", "QLinearLeakyRelu", 4, 5, 1, 1, PrepareTableOp<TableOp::kLeakyRelu>};
const OpDef kQLinearConcatOp{"com.microsoft", "QLinearConcat", 5, 1 << 12, 1, 1, PrepareConcat};
const OpDef kQLinearGlobalAveragePoolOp{"com.microsoft", "QLinearGlobalAveragePool", 4, 5, 1, 1, PrepareGap};

}  // namespace qrt
