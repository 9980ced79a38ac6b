// DequantizeLinear -> MaxPool -> QuantizeLinear => MaxPool on the codes   (fuse-dq-maxpool-q)
//
//   q --DQ(s, z)--> x --MaxPool--> m --Q(s, z)--> r      =>      q --MaxPool--> r
//
// YOLO's SPPF (three 5x5 MaxPools in a row) and every QDQ CNN with a max pool: ONNX Runtime's
// quantizer gives the pool's QuantizeLinear its input's scale and zero point. DequantizeLinear is
// non-decreasing in the code (s > 0), so the largest dequantized value of a window is the
// dequantized largest code; QuantizeLinear gives that code back (Q(DQ(c)) = c for a positive
// normal s at most FLT_MAX / 256: fuse-conv-fake-quant's argument); a window over nothing but
// padding gives the float -inf's code, the type's lowest, as the 8-bit MaxPool does. DQ's
// values are never NaN, and +0 is the only zero it makes. So the result is the same codes.
// Legality: both ends per tensor with constants, the same scale, zero point and 8-bit type; a
// MaxPool (opset 12 or later: 8-bit input) without Indices whose output only this Q reads and
// that is no graph output. A DQ read elsewhere stays for its other readers.
#include <cstring>

#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

// The zero point's value (absent: 0).
int32_t ZeroPointValue(const Graph& g, ValueId zp) {
  if (!zp.valid()) return 0;
  const Tensor* t = g.ConstantOf(zp);
  return t->dtype() == DataType::kInt8 ? int32_t(t->data<int8_t>()[0]) : int32_t(t->data<uint8_t>()[0]);
}

StatusOr<Verdict> Fuse(Rewriter& rw, NodeId q_id) {
  const Graph& g = rw.graph();
  const Node& q = g.node(q_id);
  if (std::string why = PerTensor8BitQRefusal(g, q); !why.empty()) return Refuse(why);
  const NodeId pool_id = ProducerIs(g, InputOr(q, 0), kMaxPoolOp);
  if (!pool_id.valid()) return Refuse("its input is not made by MaxPool");
  if (!HasSingleUse(g, q.inputs[0])) return Refuse("the MaxPool's output has other readers or is a graph output");
  const Node& pool = g.node(pool_id);
  if (pool.outputs.size() != 1 || pool.inputs.size() != 1) return Refuse("the MaxPool has Indices");
  if (pool.opset < 12) return Refuse("MaxPool before opset 12 takes no 8-bit input");
  const NodeId dq_id = ProducerIs(g, InputOr(pool, 0), kDequantizeLinearOp);
  if (!dq_id.valid()) return Refuse("the MaxPool's input is not made by DequantizeLinear");
  const Node& dq = g.node(dq_id);
  if (std::string why = PerTensor8BitDqRefusal(g, dq); !why.empty()) return Refuse(why);
  const ValueId dq_zp = InputOr(dq, 2), q_zp = InputOr(q, 2);
  const DataType codes = dq_zp.valid() ? g.ConstantOf(dq_zp)->dtype() : ImpliedDtype(g, dq.inputs[0]);
  const DataType out = q_zp.valid() ? g.ConstantOf(q_zp)->dtype() : DataType::kUInt8;
  if (codes != out) return Refuse("the codes' types differ");
  const float s = g.ConstantOf(dq.inputs[1])->data<float>()[0], t = g.ConstantOf(q.inputs[1])->data<float>()[0];
  if (std::memcmp(&s, &t, sizeof s) != 0 || ZeroPointValue(g, dq_zp) != ZeroPointValue(g, q_zp)) {
    return Refuse("the scales or zero points differ");
  }
  if (!CodesRoundTrip(s)) {
    return Refuse("the scale is not a positive normal float at most FLT_MAX / 256");
  }
  Node codes_pool = pool;
  codes_pool.inputs = {dq.inputs[0]};
  codes_pool.outputs = {q.outputs[0]};
  const ValueId dq_out = dq.outputs[0];
  rw.EraseNode(q_id);
  rw.EraseNode(pool_id);
  rw.AddNode(std::move(codes_pool));
  if (g.Consumers(dq_out).empty() && !g.IsGraphOutput(dq_out)) rw.EraseNode(dq_id);
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseDqMaxPoolQ(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-dq-maxpool-q", {{"dq-maxpool-q", &kQuantizeLinearOp, Fuse}}, explain);
}

}  // namespace qrt
