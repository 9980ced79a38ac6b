// Identity(x) -> x: consumers read x directly. Kept when its output is a graph
// output, since that would rename the output.
#include "ops/ops.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

StatusOr<Verdict> ForwardIdentity(Rewriter& rw, NodeId id) {
  const Node& n = rw.graph().node(id);
  if (n.inputs.size() != 1 || n.outputs.size() != 1 || !n.inputs[0].valid()) {
    return Refuse("not one input and one output");
  }
  if (rw.graph().IsGraphOutput(n.outputs[0])) return Refuse("its output is a graph output (it would be renamed)");
  // Identity(x) -> x
  const ValueId in = n.inputs[0], out = n.outputs[0];
  rw.EraseNode(id);
  rw.ReplaceAllUses(out, in);
  return Rewrote();
}

}  // namespace

StatusOr<int> EliminateIdentity(Graph& graph, Explanations* explain) {
  return RunPatterns(graph, "eliminate-identity", {{"forward-identity", &kIdentityOp, ForwardIdentity}}, explain);
}

}  // namespace qrt
