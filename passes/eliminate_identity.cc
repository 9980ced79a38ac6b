// Identity(x) -> x: consumers read x directly. Kept when its output is a graph
// output, since that would rename the output.
#include "passes/passes.h"

namespace qrt {

StatusOr<int> EliminateIdentity(Graph& graph) {
  int rewrites = 0;
  for (uint32_t i = 0; i < graph.num_nodes(); ++i) {
    Node& n = graph.node(NodeId{i});
    if (n.dead || n.op_type != "Identity" || !n.domain.empty()) continue;
    if (n.inputs.size() != 1 || n.outputs.size() != 1 || !n.inputs[0].valid()) continue;
    if (graph.IsGraphOutput(n.outputs[0])) continue;
    ValueId in = n.inputs[0], out = n.outputs[0];
    graph.EraseNode(NodeId{i});
    graph.ReplaceAllUses(out, in);
    ++rewrites;
  }
  return rewrites;
}

}  // namespace qrt
