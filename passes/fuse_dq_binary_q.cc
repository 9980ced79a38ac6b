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
#include "ops/quantized_binary.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

struct Operand {
  ValueId data, scale, zero_point;
  std::optional<int64_t> axis;  // per-axis DQ
};

// "" when v is the output of a DequantizeLinear the fused kernel can replay, else why not.
std::string MatchOperand(const Graph& g, ValueId v, Operand* out) {
  NodeId dq = ProducerIs(g, v, kDequantizeLinearOp);
  if (!dq.valid()) return "an operand is not a DequantizeLinear's output";
  const Node& n = g.node(dq);
  if (n.inputs.size() < 2 || !n.inputs[0].valid()) return "an operand's DequantizeLinear has no input";
  ValueId x = n.inputs[0], s = n.inputs[1];
  ValueId zp = InputOr(n, 2);
  if (!IsUsableScale(g, s)) return "an operand's scale is not a constant, non-zero float32 of at most 1e30";
  const Tensor* scale = g.ConstantOf(s);
  if (zp.valid()) {
    const Tensor* z = g.ConstantOf(zp);
    if (z == nullptr || z->dims() != scale->dims() || !IsQuantType(z->dtype(), n.opset)) {
      return "an operand's zero point is not a constant of the scale's shape and a quantized type";
    }
  }
  // The data dtype is known for graph inputs, constants and outputs of earlier fusions;
  // a zero point also names it. Anything else may be 16/32-bit: leave it.
  DataType dt = zp.valid() ? g.ConstantOf(zp)->dtype() : g.value(x).dtype;
  if (g.IsConstant(x)) dt = g.ConstantOf(x)->dtype();
  if (!IsQuantType(dt, n.opset)) return "an operand's data is not of a quantized type this opset allows";
  out->data = x;
  out->scale = s;
  out->zero_point = zp;
  out->axis.reset();
  if (scale->numel() != 1 || scale->rank() != 0) {
    if (scale->rank() != 1) return "an operand's scale has rank > 1";
    if (scale->numel() != 1) {
      auto axis = n.attrs.GetInt("axis", 1);
      if (!axis.ok() || n.attrs.Has("block_size")) return "an operand's DequantizeLinear is blocked";
      out->axis = *axis;
    }
  }
  return "";
}

template <class Op>
StatusOr<Verdict> Fuse(Rewriter& rw, NodeId q_id) {
  const Graph& g = rw.graph();
  const Node& q = g.node(q_id);
  if (q.inputs.size() < 3 || !q.inputs[0].valid()) return Refuse("no zero point input");
  if (!IsConstScalar(g, q.inputs[1]) || !IsUsableScale(g, q.inputs[1])) {
    return Refuse("the output scale is not one constant, non-zero float32");
  }
  if (!IsConstScalar(g, q.inputs[2]) || !IsQuantType(g.ConstantOf(q.inputs[2])->dtype(), q.opset)) {
    return Refuse("the output zero point is not one constant of a quantized type");
  }
  const std::string_view binary = Op::kBinary.op_type;
  NodeId bin_id = ProducerIs(g, q.inputs[0], Op::kBinary);
  if (!bin_id.valid()) return Refuse(StrCat("its input is not made by ", binary));
  if (!HasSingleUse(g, q.inputs[0])) return Refuse(StrCat("the ", binary, "'s output has other readers"));
  const Node& bin = g.node(bin_id);
  if (bin.inputs.size() != 2) return Refuse(StrCat("the ", binary, " does not have two inputs"));
  Operand a, b;
  std::string why = MatchOperand(g, bin.inputs[0], &a);
  if (why.empty()) why = MatchOperand(g, bin.inputs[1], &b);
  if (!why.empty()) return Refuse(why);

  QuantizedBinaryAttrs attrs;
  attrs.requantize = Requantize::kDivide;
  attrs.a_axis = a.axis;
  attrs.b_axis = b.axis;
  Node fused = MakeNode(Op::kFused, bin.name, std::vector<ValueId>(qbin::kInputCount), q.outputs, ToAttributes(attrs));
  fused.inputs[qbin::kA] = a.data;
  fused.inputs[qbin::kAScale] = a.scale;
  fused.inputs[qbin::kAZeroPoint] = a.zero_point;
  fused.inputs[qbin::kB] = b.data;
  fused.inputs[qbin::kBScale] = b.scale;
  fused.inputs[qbin::kBZeroPoint] = b.zero_point;
  fused.inputs[qbin::kCScale] = q.inputs[1];
  fused.inputs[qbin::kCZeroPoint] = q.inputs[2];
  const ValueId dq_a = bin.inputs[0], dq_b = bin.inputs[1];
  rw.EraseNode(q_id);
  rw.EraseNode(bin_id);
  rw.AddNode(std::move(fused));
  for (ValueId v : {dq_a, dq_b}) {
    NodeId dq = g.value(v).producer;
    if (dq.valid() && !g.node(dq).dead && g.Consumers(v).empty() && !g.IsGraphOutput(v)) rw.EraseNode(dq);
  }
  return Rewrote();
}

struct MulOp {
  static constexpr const OpDef& kBinary = kMulOp;
  static constexpr const OpDef& kFused = kQuantizedMulOp;
};
struct AddOp {
  static constexpr const OpDef& kBinary = kAddOp;
  static constexpr const OpDef& kFused = kQuantizedAddOp;
};

}  // namespace

StatusOr<int> FuseDqMulQ(Graph& graph, Explanations* explain) {
  return RunPatterns(graph, "fuse-dq-mul-q", {{"dq-mul-q", &kQuantizeLinearOp, Fuse<MulOp>}}, explain);
}
StatusOr<int> FuseDqAddQ(Graph& graph, Explanations* explain) {
  return RunPatterns(graph, "fuse-dq-add-q", {{"dq-add-q", &kQuantizeLinearOp, Fuse<AddOp>}}, explain);
}

}  // namespace qrt
