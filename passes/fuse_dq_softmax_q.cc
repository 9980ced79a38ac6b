// Q(Softmax(DQ(x))) -> qrt:SoftmaxQuantized(x)                       (fuse-dq-softmax-q)
//
//   x --DQ--> Softmax --Q--> y      =>      x --SoftmaxQuantized--> y
//
// A quantized transformer's attention probabilities: the fused op runs DequantizeLinear's,
// Softmax's and QuantizeLinear's kernels one row at a time (ops/softmax_quantized.h), so the
// output is the same bits and neither float tensor is written. Legality: x int8/uint8 with a
// constant per-tensor DQ; a float32 Softmax whose output only this Q reads and that is no graph
// output; the Q per tensor with a constant float32 scale and an 8-bit zero point (or none,
// without output_dtype). A DQ read elsewhere stays for its other readers.
#include "ops/softmax_quantized.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

StatusOr<Verdict> Fuse(Rewriter& rw, NodeId q_id) {
  const Graph& g = rw.graph();
  const Node& q = g.node(q_id);
  if (std::string why = PerTensor8BitQRefusal(g, q); !why.empty()) return Refuse(why);
  const ValueId q_zp = InputOr(q, 2);
  const NodeId sm_id = ProducerIs(g, InputOr(q, 0), kSoftmaxOp);
  if (!sm_id.valid()) return Refuse("its input is not made by Softmax");
  if (!HasSingleUse(g, q.inputs[0])) return Refuse("the Softmax's output has other readers");
  const Node& sm = g.node(sm_id);
  if (ImpliedDtype(g, sm.outputs[0]) != DataType::kFloat32) return Refuse("the Softmax is not float32");
  const NodeId dq_id = ProducerIs(g, InputOr(sm, 0), kDequantizeLinearOp);
  if (!dq_id.valid()) return Refuse("the Softmax's input is not made by DequantizeLinear");
  const Node& dq = g.node(dq_id);
  if (std::string why = PerTensor8BitDqRefusal(g, dq); !why.empty()) return Refuse(why);
  const ValueId dq_zp = InputOr(dq, 2);

  Attributes attrs;
  const bool coerce_2d = sm.opset < 13;
  attrs.Set("coerce_2d", int64_t(coerce_2d));
  attrs.Set("axis", sm.attrs.Has("axis") ? sm.attrs.GetInt("axis", 0).value() : (coerce_2d ? 1 : -1));
  const std::string name = sm.name;
  const ValueId x = dq.inputs[0], y = q.outputs[0], dq_out = dq.outputs[0];
  std::vector<ValueId> inputs(smq::kInputCount);
  inputs[smq::kX] = x;
  inputs[smq::kXScale] = dq.inputs[1];
  inputs[smq::kXZeroPoint] = dq_zp;
  inputs[smq::kYScale] = q.inputs[1];
  inputs[smq::kYZeroPoint] = q_zp;
  if (!q_zp.valid()) inputs.pop_back();
  rw.EraseNode(q_id);
  rw.EraseNode(sm_id);
  rw.AddNode(MakeNode(kQrtSoftmaxQuantizedOp, name, std::move(inputs), {y}, std::move(attrs)));
  if (g.Consumers(dq_out).empty() && !g.IsGraphOutput(dq_out)) rw.EraseNode(dq_id);
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseDqSoftmaxQ(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-dq-softmax-q", {{"dq-softmax-q", &kQuantizeLinearOp, Fuse}}, explain);
}

}  // namespace qrt
