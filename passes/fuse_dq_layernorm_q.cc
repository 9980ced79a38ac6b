// Q(LayerNormalization(DQ(x), scale, bias)) -> qrt:LayerNormQuantized(x, scale, bias)
//                                                                     (fuse-dq-layernorm-q)
//
//   x --DQ--> LayerNormalization --Q--> y    =>    x --LayerNormQuantized--> y
//
// A QDQ transformer's layer norms: the fused op runs DequantizeLinear's, LayerNormalization's
// and QuantizeLinear's kernels one normalized row at a time (ops/layer_norm_quantized.h), so
// the output is the same bits and neither float tensor is written. Legality: x int8/uint8 with
// a constant per-tensor DQ; a float32 LayerNormalization (float32 Scale and B) whose Y only this
// Q reads, whose Mean and InvStdDev nobody reads, and that is no graph output; the Q per tensor
// with a constant float32 scale and an 8-bit zero point (or none, without output_dtype). A DQ
// read elsewhere stays for its other readers.
#include "ops/layer_norm_quantized.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

// Whether the LayerNormalization's Mean and InvStdDev outputs are absent or unread.
bool StatisticsUnused(const Graph& g, const Node& ln) {
  for (size_t i = 1; i < ln.outputs.size(); ++i) {
    const ValueId v = ln.outputs[i];
    if (v.valid() && (!g.Consumers(v).empty() || g.IsGraphOutput(v))) return false;
  }
  return true;
}

StatusOr<Verdict> Fuse(Rewriter& rw, NodeId q_id) {
  const Graph& g = rw.graph();
  const Node& q = g.node(q_id);
  if (std::string why = PerTensor8BitQRefusal(g, q); !why.empty()) return Refuse(why);
  const NodeId ln_id = ProducerIs(g, InputOr(q, 0), kLayerNormalizationOp);
  if (!ln_id.valid()) return Refuse("its input is not made by LayerNormalization");
  if (!HasSingleUse(g, q.inputs[0])) return Refuse("the LayerNormalization's output has other readers");
  const Node& ln = g.node(ln_id);
  if (!StatisticsUnused(g, ln)) return Refuse("the LayerNormalization's Mean or InvStdDev is read");
  if (ImpliedDtype(g, ln.outputs[0]) != DataType::kFloat32) return Refuse("the LayerNormalization is not float32");
  for (size_t i = 1; i < ln.inputs.size(); ++i) {
    if (ln.inputs[i].valid() && ImpliedDtype(g, ln.inputs[i]) != DataType::kFloat32) {
      return Refuse("the LayerNormalization's Scale or B is not float32");
    }
  }
  const NodeId dq_id = ProducerIs(g, InputOr(ln, 0), kDequantizeLinearOp);
  if (!dq_id.valid()) return Refuse("the LayerNormalization's input is not made by DequantizeLinear");
  const Node& dq = g.node(dq_id);
  if (std::string why = PerTensor8BitDqRefusal(g, dq); !why.empty()) return Refuse(why);

  const ValueId q_zp = InputOr(q, 2), dq_out = dq.outputs[0];
  std::vector<ValueId> inputs(lnq::kInputCount);
  inputs[lnq::kX] = dq.inputs[0];
  inputs[lnq::kScale] = InputOr(ln, 1);
  inputs[lnq::kBias] = InputOr(ln, 2);
  inputs[lnq::kXScale] = dq.inputs[1];
  inputs[lnq::kXZeroPoint] = InputOr(dq, 2);
  inputs[lnq::kYScale] = q.inputs[1];
  inputs[lnq::kYZeroPoint] = q_zp;
  if (!q_zp.valid()) inputs.pop_back();
  Attributes attrs = ln.attrs;  // axis, epsilon, stash_type
  const std::string name = ln.name;
  const ValueId y = q.outputs[0];
  rw.EraseNode(q_id);
  rw.EraseNode(ln_id);
  rw.AddNode(MakeNode(kQrtLayerNormQuantizedOp, name, std::move(inputs), {y}, std::move(attrs)));
  if (g.Consumers(dq_out).empty() && !g.IsGraphOutput(dq_out)) rw.EraseNode(dq_id);
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseDqLayerNormQ(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-dq-layernorm-q", {{"dq-layernorm-q", &kQuantizeLinearOp, Fuse}}, explain);
}

}  // namespace qrt
