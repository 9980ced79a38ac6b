// Mul(x, Sigmoid(x)) or Mul(Sigmoid(x), x) -> qrt:Silu(x)                     (fuse-silu)
//
//   x --Sigmoid--> s;  Mul(x, s) --> y      =>      x --Silu--> y
//
// SiLU (swish) as exporters write it: YOLO's and EfficientNet's activation. The fused op runs
// Sigmoid's own kernel a block at a time and multiplies in the Mul's operand order, so it is
// bit-identical, and the sigmoid tensor is never written. Legality: float32 x (implied by the
// graph: the fused op takes no other type); s read only by this Mul and not a graph output; the
// Mul's operands exactly x and s (no broadcast: the same value).
#include "ops/ops.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

StatusOr<Verdict> FuseMul(Rewriter& rw, NodeId mul_id) {
  const Graph& g = rw.graph();
  const Node& mul = g.node(mul_id);
  if (mul.inputs.size() != 2 || mul.outputs.size() != 1) return Refuse("malformed Mul");
  int sigmoid_slot = -1;
  for (int i = 0; i < 2; ++i) {
    const NodeId p = ProducerIs(g, mul.inputs[size_t(i)], kSigmoidOp);
    if (p.valid() && g.node(p).inputs.size() == 1 && g.node(p).inputs[0] == mul.inputs[size_t(1 - i)]) {
      sigmoid_slot = i;
      break;
    }
  }
  if (sigmoid_slot < 0) return Refuse("not x times Sigmoid(x)");
  const ValueId s = mul.inputs[size_t(sigmoid_slot)], x = mul.inputs[size_t(1 - sigmoid_slot)];
  if (!HasSingleUse(g, s)) return Refuse("the sigmoid has other readers or is a graph output");
  if (ImpliedDtype(g, x) != DataType::kFloat32) return Refuse("x is not known to be float32");
  Node fused = MakeNode(kQrtSiluOp, mul.name, {x}, {mul.outputs[0]});
  if (sigmoid_slot == 0) fused.attrs.Set("sigmoid_first", int64_t(1));
  rw.EraseNode(g.value(s).producer);
  rw.EraseNode(mul_id);
  rw.AddNode(std::move(fused));
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseSilu(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-silu", {{"x-times-sigmoid", &kMulOp, FuseMul}}, explain);
}

}  // namespace qrt
