// ONNX Runtime's QOperator ops on 8-bit tensors (domain com.microsoft), each defined as its
// DequantizeLinear -> float op -> QuantizeLinear chain and computed the way ONNX Runtime does:
// - QLinearSigmoid, QLinearLeakyRelu: a 256-entry table of the chain over every code (x =
//   (q - x_zp) * x_scale; ORT's Sigmoid approximation, or x < 0 ? alpha x : x; y = sat(rint(y /
//   y_scale) + y_zp)), applied byte by byte.
// - QLinearConcat(Y_scale, Y_zp, X_1, X_1_scale, X_1_zp, ...): each input copied when its scale
//   and zero point are the output's, otherwise through its requantization table.
// - QLinearWhere(condition, X, X_scale, X_zp, Y, Y_scale, Y_zp, Z_scale, Z_zp): X and Y each
//   requantized to Z's grid through a table (ORT builds the same identity tables), then selected,
//   all three numpy-broadcast.
// - QLinearReduceMean(data, data_scale, data_zp, reduced_scale, reduced_zp; axes, keepdims): ONNX
//   Runtime's CPU provider has no kernel, so its definition is the reference: the input
//   dequantized, ReduceMean's own kernel (ops/reduce.cc), the mean quantized.
// The pools are in qlinear_pool.cc.
// Scales and zero points are per tensor and known when the graph is planned.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ops/elementwise.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/eltwise/lookup_table.h"
#include "ops/kernels/eltwise/sigmoid_tanh.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/qlinear_params.h"

namespace qrt {
namespace {

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

// ---- QLinearWhere ----

struct WhereState {
  std::vector<uint8_t> x_table, y_table;
  StridedLoop loop;
};

Status RunWhere(const WhereState& s, const RunArgs& args) {
  const uint8_t* tx = s.x_table.data();
  const uint8_t* ty = s.y_table.data();
  BroadcastMap3(s.loop, args.input(0)->data<uint8_t>(), static_cast<const uint8_t*>(args.input(1)->raw()),
                static_cast<const uint8_t*>(args.input(4)->raw()), static_cast<uint8_t*>(args.output(0)->raw()),
                [tx, ty](uint8_t c, uint8_t x, uint8_t y) { return c ? tx[x] : ty[y]; });
  return Status::Ok();
}

Status PrepareWhere(PrepareContext& ctx) {
  const TensorInfo& c = ctx.input(0);
  const TensorInfo& x = ctx.input(1);
  const TensorInfo& y = ctx.input(4);
  if (c.dtype != DataType::kBool) return InvalidArgument("condition must be bool, not ", DataTypeName(c.dtype));
  const DataType t = x.dtype;
  if (t != DataType::kUInt8 && t != DataType::kInt8) return InvalidArgument("X must be uint8 or int8");
  if (y.dtype != t) return InvalidArgument("X and Y dtypes differ: ", DataTypeName(t), " and ", DataTypeName(y.dtype));
  QRT_ASSIGN_OR_RETURN(QParams xq, ReadQParams(ctx, 2, t));
  QRT_ASSIGN_OR_RETURN(QParams yq, ReadQParams(ctx, 5, t));
  QRT_ASSIGN_OR_RETURN(QParams zq, ReadQParams(ctx, 7, t));
  QRT_ASSIGN_OR_RETURN(Dims xy, BroadcastDims(x.dims, y.dims));
  QRT_ASSIGN_OR_RETURN(Dims out, BroadcastDims(c.dims, xy));
  const auto identity = [](const float* in, float* res) { std::memcpy(res, in, 256 * sizeof(float)); };
  WhereState s;
  s.x_table = BuildTable(t, xq, zq, identity);
  s.y_table = BuildTable(t, yq, zq, identity);
  s.loop = MakeStridedLoop({c.dims, x.dims, y.dims, out}, out);
  ctx.SetOutput(0, t, out);
  ctx.SetKernel<WhereState, RunWhere>(std::move(s));
  return Status::Ok();
}

// ---- QLinearReduceMean ----

struct ReduceMeanState {
  Kernel mean;  // ReduceMean's float kernel
  QParams in, out;
  DequantizeToF32Fn dequantize = nullptr;
  QuantizeF32Fn quantize = nullptr;
};

Status RunReduceMean(const ReduceMeanState& s, const RunArgs& args) {
  const Tensor& x = *args.input(0);
  Tensor& y = *args.output(0);
  float* xf = ThreadScratchFloats(ScratchSlot::kWrappedIn, size_t(x.numel()));
  float* yf = ThreadScratchFloats(ScratchSlot::kWrappedOut, size_t(y.numel()));
  s.dequantize(x.numel(), x.raw(), s.in.scale, s.in.zp, xf);
  Tensor x_float = Tensor::Borrow(DataType::kFloat32, x.dims(), xf);
  Tensor y_float = Tensor::Borrow(DataType::kFloat32, y.dims(), yf);
  const Tensor* inputs[1] = {&x_float};
  Tensor* outputs[1] = {&y_float};
  QRT_RETURN_IF_ERROR(s.mean.run(s.mean.state.get(), RunArgs{inputs, outputs, 1, 1}));
  s.quantize(y.numel(), yf, s.out.scale, s.out.zp, y.raw());
  return Status::Ok();
}

Status PrepareReduceMean(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const DataType t = x.dtype;
  if (t != DataType::kUInt8 && t != DataType::kInt8) return InvalidArgument("data must be uint8 or int8");
  if (!ctx.attrs().Has("axes")) return InvalidArgument("QLinearReduceMean needs the axes attribute");
  ReduceMeanState s;
  QRT_ASSIGN_OR_RETURN(s.in, ReadQParams(ctx, 1, t));
  QRT_ASSIGN_OR_RETURN(s.out, ReadQParams(ctx, 3, t));
  TensorInfo xf;
  xf.dtype = DataType::kFloat32;
  xf.dims = x.dims;
  PrepareContext mean(ctx.node(), {xf}, ctx.options());
  QRT_RETURN_IF_ERROR(kReduceMeanOp.prepare(mean));
  const Dims y_dims = mean.output(0).dims;
  s.mean = mean.TakeKernel();
  s.dequantize = SelectDequantizeToF32(t, ctx.isa());
  s.quantize = SelectQuantizeF32(t, ctx.isa());
  ctx.SetOutput(0, t, y_dims);
  ctx.SetKernel<ReduceMeanState, RunReduceMean>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kQLinearSigmoidOp{"com.microsoft", "QLinearSigmoid", 4, 5, 1, 1, PrepareTableOp<TableOp::kSigmoid>};
const OpDef kQLinearLeakyReluOp{"com.microsoft", "QLinearLeakyRelu", 4, 5, 1, 1, PrepareTableOp<TableOp::kLeakyRelu>};
const OpDef kQLinearConcatOp{"com.microsoft", "QLinearConcat", 5, 1 << 12, 1, 1, PrepareConcat};
const OpDef kQLinearWhereOp{"com.microsoft", "QLinearWhere", 9, 9, 1, 1, PrepareWhere};
const OpDef kQLinearReduceMeanOp{"com.microsoft", "QLinearReduceMean", 4, 5, 1, 1, PrepareReduceMean};

}  // namespace qrt
