// Q(f(DQ(x))) -> LookupTable(x, table)                          (fuse-qdq-unary)
//
//   x --DQ--> f --Q--> y      =>      x --LookupTable(table[256])--> y
//
// For an element-wise unary float op f and per-tensor 8-bit quantization, y depends only
// on the 256 possible codes of x. The table is made now by running the unfused DQ -> f ->
// Q chain itself on every code, so the fused op is exact by construction. Legality:
// x is int8/uint8; DQ and Q have constant per-tensor scales and zero points; f's other
// inputs (Clip's bounds) are constants; f's output is read only by this Q and is not a
// graph output. A DQ read elsewhere stays for its other readers.
#include <algorithm>

#include "ops/lookup_table.h"
#include "passes/evaluate.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

const OpDef* const kUnaryOps[] = {&kSigmoidOp,     &kTanhOp, &kReluOp, &kClipOp, &kLeakyReluOp,
                                  &kHardSigmoidOp, &kExpOp,  &kNegOp,  &kAbsOp,  &kSqrtOp};

bool IsUnary(const Node& n) {
  return std::find(std::begin(kUnaryOps), std::end(kUnaryOps), n.def) != std::end(kUnaryOps);
}

// The 8-bit dtype of a DQ's data, if the graph states it (zero point or declared dtype).
DataType DqDataType(const Graph& g, const Node& dq) {
  if (dq.inputs.size() > 2 && g.IsConstant(dq.inputs[2])) return g.ConstantOf(dq.inputs[2])->dtype();
  if (g.IsConstant(dq.inputs[0])) return g.ConstantOf(dq.inputs[0])->dtype();
  return g.value(dq.inputs[0]).dtype;
}

StatusOr<Verdict> FuseChain(Rewriter& rw, NodeId q_id) {
  const Graph& g = rw.graph();
  const Node& q = g.node(q_id);
  if (q.inputs.size() < 2 || !IsConstScalar(g, q.inputs[1])) return Refuse("the scale is not one constant");
  const bool q_has_zp = q.inputs.size() > 2 && q.inputs[2].valid();
  if (q_has_zp && !(IsConstScalar(g, q.inputs[2]) && Is8Bit(g.ConstantOf(q.inputs[2])->dtype()))) {
    return Refuse("the zero point is not one constant 8-bit value");
  }
  if (!q_has_zp && q.attrs.Has("output_dtype")) return Refuse("no zero point, with output_dtype");
  NodeId f_id = q.inputs[0].valid() ? g.value(q.inputs[0]).producer : NodeId{};
  if (!f_id.valid() || !IsUnary(g.node(f_id))) return Refuse("its input is not made by a unary op the pass covers");
  if (!HasSingleUse(g, q.inputs[0])) return Refuse("the unary op's output has other readers");
  const Node& f = g.node(f_id);
  bool others_const = true;
  for (size_t k = 1; k < f.inputs.size(); ++k) others_const &= !f.inputs[k].valid() || g.IsConstant(f.inputs[k]);
  if (!others_const || f.inputs.empty()) return Refuse("the unary op's other inputs are not constants");
  NodeId dq_id = ProducerIs(g, f.inputs[0], kDequantizeLinearOp);
  if (!dq_id.valid()) return Refuse("the unary op's input is not made by DequantizeLinear");
  const Node& dq = g.node(dq_id);
  if (dq.inputs.size() < 2 || !dq.inputs[0].valid() || !IsConstScalar(g, dq.inputs[1])) {
    return Refuse("the DequantizeLinear's scale is not one constant");
  }
  if (dq.inputs.size() > 2 && dq.inputs[2].valid() && !IsConstScalar(g, dq.inputs[2])) {
    return Refuse("the DequantizeLinear's zero point is not one constant");
  }
  const DataType x_type = DqDataType(g, dq);
  if (!Is8Bit(x_type)) return Refuse("the DequantizeLinear's data is not 8-bit");

  // Every code, as its byte pattern: table[k] is the output for the code whose byte is k.
  Tensor codes = Tensor::Allocate(x_type, {256}).value();
  for (int k = 0; k < 256; ++k) static_cast<uint8_t*>(codes.raw())[k] = uint8_t(k);
  StatusOr<std::vector<Tensor>> table = EvaluateNodes(g, {dq_id, f_id, q_id}, {{dq.inputs[0], codes}}, {q.outputs[0]});
  // An invalid chain: compiling the graph reports why.
  if (!table.ok()) return Refuse(StrCat("the chain does not evaluate: ", table.status().message()));

  const std::string f_name = f.name;
  const ValueId x = dq.inputs[0], y = q.outputs[0], dq_out = f.inputs[0];
  const ValueId table_id = rw.AddConstant(f_name + "_table", std::move((*table)[0]));
  rw.EraseNode(q_id);
  rw.EraseNode(f_id);
  Node fused = MakeNode(kLookupTableOp, f_name, std::vector<ValueId>(lut::kInputCount), {y});
  fused.inputs[lut::kX] = x;
  fused.inputs[lut::kTable] = table_id;
  rw.AddNode(std::move(fused));
  if (g.Consumers(dq_out).empty() && !g.IsGraphOutput(dq_out)) rw.EraseNode(dq_id);
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseQdqUnary(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-qdq-unary", {{"dq-unary-q", &kQuantizeLinearOp, FuseChain}}, explain);
}

}  // namespace qrt
