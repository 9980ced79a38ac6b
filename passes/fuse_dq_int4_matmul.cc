// MatMul(A, DequantizeLinear(W)) -> qrt:MatMulInt4(A, packed W)       (fuse-dq-int4-matmul)
//
//   W(int4) --DQ--> B --.                 W packed --.
//               A ------ MatMul --> Y  =>      A ------ MatMulInt4 --> Y
//
// A 4-bit weight matrix kept as one code per byte and dequantized into a float B at every run
// becomes two codes per byte, dequantized a slice of columns at a time inside the product
// (ops/matmul_int4.h) with the same floats, float(q - zp) * scale, and the same GEMM order as
// MatMul's: bit-identical, with neither B nor the wide codes in memory. Legality: W a constant
// 2-D int4/uint4 [K, N] (K, N >= 1); the DQ's scale a constant float32 and its zero point, if
// any, a constant of W's type, per tensor, per axis or blocked (opset 21); the DQ's output
// float32 and MatMul's second input; A float32. A DQ read elsewhere stays for its other readers.
#include "ops/matmul_int4.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

StatusOr<Verdict> Fuse(Rewriter& rw, NodeId mm_id) {
  const Graph& g = rw.graph();
  const Node& mm = g.node(mm_id);
  if (mm.inputs.size() != 2 || !mm.inputs[0].valid()) return Refuse("it does not have two inputs");
  const NodeId dq_id = ProducerIs(g, mm.inputs[1], kDequantizeLinearOp);
  if (!dq_id.valid()) return Refuse("B is not made by DequantizeLinear");
  const Node& dq = g.node(dq_id);
  const Tensor* w = dq.inputs.empty() ? nullptr : g.ConstantOf(dq.inputs[0]);
  if (w == nullptr || !Is4BitType(w->dtype())) return Refuse("the DequantizeLinear's data is not a 4-bit constant");
  if (w->rank() != 2 || w->dims()[0] < 1 || w->dims()[1] < 1) return Refuse("the 4-bit weights are not a 2-D matrix");
  const Tensor* scale = dq.inputs.size() > 1 ? g.ConstantOf(dq.inputs[1]) : nullptr;
  if (scale == nullptr || scale->dtype() != DataType::kFloat32) return Refuse("the scale is not a float32 constant");
  const ValueId zp_id = InputOr(dq, 2);
  const Tensor* zp = zp_id.valid() ? g.ConstantOf(zp_id) : nullptr;
  if (zp_id.valid() && (zp == nullptr || zp->dtype() != w->dtype() || zp->numel() != scale->numel())) {
    return Refuse("the zero point is not a constant of the weights' type and the scale's size");
  }
  if (ImpliedDtype(g, mm.inputs[0]) != DataType::kFloat32 || ImpliedDtype(g, mm.inputs[1]) != DataType::kFloat32) {
    return Refuse("A or the dequantized B is not float32");
  }
  const int64_t k = w->dims()[0], n = w->dims()[1];
  int64_t axis = dq.attrs.Has("axis") ? dq.attrs.GetInt("axis", 1).value() : 1;
  if (axis < 0) axis += 2;
  const int64_t block = dq.attrs.Has("block_size") ? dq.attrs.GetInt("block_size", 0).value() : 0;
  if (axis != 0 && axis != 1) return Refuse("the DequantizeLinear's axis is not 0 or 1");

  // Two codes per byte along each row of W.
  const bool is_signed = w->dtype() == DataType::kInt4;
  const int64_t row_bytes = (n + 1) / 2;
  Tensor packed = Tensor::Allocate(DataType::kUInt8, {k, row_bytes}).value();
  const uint8_t* wide = static_cast<const uint8_t*>(w->raw());
  uint8_t* out = static_cast<uint8_t*>(packed.raw());
  for (int64_t r = 0; r < k; ++r) {
    for (int64_t c = 0; c < row_bytes; ++c) {
      const uint8_t lo = wide[r * n + 2 * c] & 15, hi = 2 * c + 1 < n ? wide[r * n + 2 * c + 1] & 15 : 0;
      out[r * row_bytes + c] = uint8_t(lo | (hi << 4));
    }
  }
  std::optional<Tensor> zp_bytes;
  if (zp) {  // one code per byte already; as int8 / uint8
    zp_bytes = Tensor::Allocate(is_signed ? DataType::kInt8 : DataType::kUInt8, zp->dims()).value();
    std::copy(static_cast<const uint8_t*>(zp->raw()), static_cast<const uint8_t*>(zp->raw()) + zp->numel(),
              static_cast<uint8_t*>(zp_bytes->raw()));
  }

  const std::string name = mm.name;
  const ValueId a = mm.inputs[0], y = mm.outputs[0], scale_id = dq.inputs[1], b = mm.inputs[1];
  const ValueId codes_id = rw.AddConstant(name + "_int4_codes", std::move(packed));
  const ValueId zp_new = zp_bytes ? rw.AddConstant(name + "_int4_zero_point", std::move(*zp_bytes)) : ValueId{};
  Attributes attrs;
  attrs.Set("n", n);
  attrs.Set("signed", int64_t(is_signed));
  attrs.Set("axis", axis);
  attrs.Set("block_size", block);
  rw.EraseNode(mm_id);
  Node fused = MakeNode(kQrtMatMulInt4Op, name, std::vector<ValueId>(mmi4::kInputCount), {y}, std::move(attrs));
  fused.inputs[mmi4::kA] = a;
  fused.inputs[mmi4::kCodes] = codes_id;
  fused.inputs[mmi4::kScale] = scale_id;
  fused.inputs[mmi4::kZeroPoint] = zp_new;
  if (!zp_new.valid()) fused.inputs.pop_back();
  rw.AddNode(std::move(fused));
  if (g.Consumers(b).empty() && !g.IsGraphOutput(b)) rw.EraseNode(dq_id);
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseDqInt4MatMul(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-dq-int4-matmul", {{"dq-int4-matmul", &kMatMulOp, Fuse}}, explain);
}

}  // namespace qrt
