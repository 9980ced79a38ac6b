// ONNX Runtime's QOperator ops on 8-bit tensors (domain com.microsoft), each defined as its
// DequantizeLinear -> float op -> QuantizeLinear chain and computed the way ONNX Runtime does:
// - QLinearSigmoid, QLinearLeakyRelu: a 256-entry table of the chain over every code (x =
//   (q - x_zp) * x_scale; ORT's Sigmoid approximation, or x < 0 ? alpha x : x; y = sat(rint(y /
//   y_scale) + y_zp)), applied byte by byte.
// - QLinearConcat(Y_scale, Y_zp, X_1, X_1_scale, X_1_zp, ...): each input copied when its scale
//   and zero point are the output's, otherwise through its requantization table.
// The pools are in qlinear_pool.cc.
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

}  // namespace

const OpDef kQLinearSigmoidOp{"com.microsoft", "QLinearSigmoid", 4, 5, 1, 1, PrepareTableOp<TableOp::kSigmoid>};
const OpDef kQLinearLeakyReluOp{"com.microsoft", "QLinearLeakyRelu", 4, 5, 1, 1, PrepareTableOp<TableOp::kLeakyRelu>};
const OpDef kQLinearConcatOp{"com.microsoft", "QLinearConcat", 5, 1 << 12, 1, 1, PrepareConcat};

}  // namespace qrt
