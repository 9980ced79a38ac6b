// Q(DQ(a) * DQ(b)) -> QuantizedMul(a, b), requantize = divide     (fuse-dq-mul-q)
// Q(DQ(a) + DQ(b)) -> QuantizedAdd(a, b), requantize = divide     (fuse-dq-add-q)
//
//   a --DQ--.                       a --.
//            Mul/Add --Q--> y   =>       QuantizedMul/Add(divide) --> y
//   b --DQ--'                       b --'
//
// The fused kernel replays DequantizeLinear, Mul/Add and QuantizeLinear one f32 op at a
// time (op-semantics.md 4.2): it keeps all six scales and zero points and divides by the
// output scale, so fusion never changes a bit. Legality:
// - the Mul/Add output is read only by this Q and is not a graph output;
// - both operands come from DequantizeLinear of 8-bit data, or 16-bit from opset 21 (mixes
//   allowed; the same
//   DQ may feed both operands), with constant float32 scales and zero points that are
//   per-tensor, or 1-D per-axis on an operand;
// - the Q has a constant per-tensor scale and an 8-bit (or opset-21 16-bit) output;
// - every scale is non-zero and |scale| <= 1e30 (then no NaN can arise in either form).
// DQ nodes left without readers are erased here; DQs read elsewhere stay for those readers.
#include "passes/match_util.h"
#include "passes/passes.h"
#include "ops/registry.h"

namespace qrt {
namespace {

struct Operand {
  ValueId data, scale, zero_point;
  std::optional<int64_t> axis;  // per-axis DQ
};

bool MatchOperand(const Graph& g, ValueId v, Operand* out) {
  NodeId dq = ProducerIs(g, v, "DequantizeLinear");
  if (!dq.valid()) return false;
  const Node& n = g.node(dq);
  if (n.inputs.size() < 2 || !n.inputs[0].valid()) return false;
  ValueId x = n.inputs[0], s = n.inputs[1];
  ValueId zp = InputOr(n, 2);
  if (!IsUsableScale(g, s)) return false;
  const Tensor* scale = g.ConstantOf(s);
  if (zp.valid()) {
    const Tensor* z = g.ConstantOf(zp);
    if (z == nullptr || z->dims() != scale->dims() || !IsQuantType(z->dtype(), n.opset)) return false;
  }
  // The data dtype is known for graph inputs, constants and outputs of earlier fusions;
  // a zero point also names it. Anything else may be 16/32-bit: leave it.
  DataType dt = zp.valid() ? g.ConstantOf(zp)->dtype() : g.value(x).dtype;
  if (g.IsConstant(x)) dt = g.ConstantOf(x)->dtype();
  if (!IsQuantType(dt, n.opset)) return false;
  out->data = x;
  out->scale = s;
  out->zero_point = zp;
  out->axis.reset();
  if (scale->numel() != 1 || scale->rank() != 0) {
    if (scale->rank() != 1) return false;
    if (scale->numel() != 1) {
      auto axis = n.attrs.GetInt("axis", 1);
      if (!axis.ok() || n.attrs.Has("block_size")) return false;
      out->axis = *axis;
    }
  }
  return true;
}

StatusOr<int> Fuse(Graph& g, std::string_view binary_op, std::string_view fused_op) {
  int rewrites = 0;
  const OpDef* def = FindOp("qrt", fused_op);
  if (def == nullptr) return Internal("op qrt:", fused_op, " is not registered");
  const size_t n_nodes = g.num_nodes();
  for (uint32_t i = 0; i < n_nodes; ++i) {
    const Node& q = g.node(NodeId{i});
    if (q.dead || !q.domain.empty() || q.op_type != "QuantizeLinear" || q.inputs.size() < 3) continue;
    if (!q.inputs[0].valid() || !IsConstScalar(g, q.inputs[1]) || !IsUsableScale(g, q.inputs[1])) continue;
    if (!IsConstScalar(g, q.inputs[2]) || !IsQuantType(g.ConstantOf(q.inputs[2])->dtype(), q.opset)) continue;
    NodeId bin_id = ProducerIs(g, q.inputs[0], binary_op);
    if (!bin_id.valid() || !HasSingleUse(g, q.inputs[0])) continue;
    const Node& bin = g.node(bin_id);
    if (bin.inputs.size() != 2) continue;
    Operand a, b;
    if (!MatchOperand(g, bin.inputs[0], &a) || !MatchOperand(g, bin.inputs[1], &b)) continue;

    Node fused = MakeNode(def, bin.name,
                          {a.data, a.scale, a.zero_point, b.data, b.scale, b.zero_point, q.inputs[1], q.inputs[2]},
                          q.outputs);
    fused.attrs.Set("requantize", std::string("divide"));
    if (a.axis) fused.attrs.Set("A_axis", *a.axis);
    if (b.axis) fused.attrs.Set("B_axis", *b.axis);
    const ValueId dq_a = bin.inputs[0], dq_b = bin.inputs[1];
    g.EraseNode(NodeId{i});
    g.EraseNode(bin_id);
    g.AddNode(std::move(fused));
    for (ValueId v : {dq_a, dq_b}) {
      NodeId dq = g.value(v).producer;
      if (dq.valid() && !g.node(dq).dead && g.Consumers(v).empty() && !g.IsGraphOutput(v)) g.EraseNode(dq);
    }
    ++rewrites;
  }
  return rewrites;
}

}  // namespace

StatusOr<int> FuseDqMulQ(Graph& graph) { return Fuse(graph, "Mul", "QuantizedMul"); }
StatusOr<int> FuseDqAddQ(Graph& graph) { return Fuse(graph, "Add", "QuantizedAdd"); }

}  // namespace qrt
