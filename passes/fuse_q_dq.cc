// DQ(Q(x)) -> qrt:QuantizeDequantize(x, scale, zp)                          (fuse-q-dq)
//
//   x --Q(s, z)--> q --DQ(s, z)--> y      =>      x --QuantizeDequantize(s, z)--> y
//
// In a QDQ graph every float activation between two float ops passes through such a pair.
// The fused op computes the same float y in one pass, without writing and re-reading the 8-bit
// q: it runs QuantizeLinear's and DequantizeLinear's own f32 operations on the same numbers,
// so it is bit-identical. Legality: Q and DQ share one per-tensor constant
// float32 scale and 8-bit zero point (bit for bit; an absent zero point on both, with Q's
// default uint8); q is read only by this DQ and is not a graph output (otherwise Q would run
// anyway and the fused op would quantize twice). Runs after the fusions that match DQ inputs.
#include <cstring>

#include "ops/quantize_dequantize.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

// Both absent, or constants of the same dtype, shape and bytes.
bool SameConstant(const Graph& g, ValueId a, ValueId b) {
  if (!a.valid() || !b.valid()) return !a.valid() && !b.valid();
  const Tensor* ta = g.ConstantOf(a);
  const Tensor* tb = g.ConstantOf(b);
  return ta != nullptr && tb != nullptr && ta->dtype() == tb->dtype() && ta->dims() == tb->dims() &&
         std::memcmp(ta->raw(), tb->raw(), ta->nbytes()) == 0;
}

StatusOr<Verdict> FusePair(Rewriter& rw, NodeId dq_id) {
  const Graph& g = rw.graph();
  const Node& dq = g.node(dq_id);
  if (dq.inputs.size() < 2 || dq.outputs.size() != 1 || !dq.outputs[0].valid()) return Refuse("malformed node");
  const NodeId q_id = ProducerIs(g, dq.inputs[0], kQuantizeLinearOp);
  if (!q_id.valid()) return Refuse("its input is not a QuantizeLinear's output");
  if (!HasSingleUse(g, dq.inputs[0])) return Refuse("the 8-bit tensor has other readers or is a graph output");
  const Node& q = g.node(q_id);
  if (q.inputs.size() < 2 || !q.inputs[0].valid()) return Refuse("the QuantizeLinear has no input");
  const ValueId scale = q.inputs[1], zero_point = InputOr(q, 2);
  if (!IsConstScalar(g, scale) || g.ConstantOf(scale)->dtype() != DataType::kFloat32) {
    return Refuse("the scale is not one constant float32");
  }
  if (zero_point.valid() && !(IsConstScalar(g, zero_point) && Is8Bit(g.ConstantOf(zero_point)->dtype()))) {
    return Refuse("the zero point is not one constant 8-bit value");
  }
  if (!zero_point.valid() && q.attrs.Has("output_dtype")) return Refuse("no zero point, with output_dtype");
  // DQ's parameters: Q's values in Q's shapes, so that an unfused graph that would not
  // compile (say a [1,1] DQ scale) does not compile fused either.
  if (!SameConstant(g, scale, dq.inputs[1]) || !SameConstant(g, zero_point, InputOr(dq, 2))) {
    return Refuse("the QuantizeLinear and DequantizeLinear parameters differ");
  }
  // x --QuantizeDequantize(s, z)--> y
  Node fused = MakeNode(kQuantizeDequantizeOp, dq.name, {}, {dq.outputs[0]});
  fused.inputs.resize(zero_point.valid() ? qdq::kInputCount : qdq::kZeroPoint);
  fused.inputs[qdq::kX] = q.inputs[0];
  fused.inputs[qdq::kScale] = scale;
  if (zero_point.valid()) fused.inputs[qdq::kZeroPoint] = zero_point;
  rw.EraseNode(dq_id);
  rw.EraseNode(q_id);
  rw.AddNode(std::move(fused));
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseQDq(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-q-dq", {{"q-dq-pair", &kDequantizeLinearOp, FusePair}}, explain);
}

}  // namespace qrt
