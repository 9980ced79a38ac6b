// Removes nodes whose outputs reach no graph output. Walks back from the outputs.
#include <vector>

#include "passes/passes.h"

namespace qrt {

StatusOr<int> EliminateDeadNodes(Graph& graph, Explanations* /*explain: a whole-graph pass, no candidates*/) {
  std::vector<char> live_value(graph.num_values(), 0);
  std::vector<ValueId> stack(graph.outputs.begin(), graph.outputs.end());
  while (!stack.empty()) {
    ValueId v = stack.back();
    stack.pop_back();
    if (!v.valid() || live_value[v.index]) continue;
    live_value[v.index] = 1;
    NodeId p = graph.value(v).producer;
    if (!p.valid()) continue;
    for (ValueId in : graph.node(p).inputs) stack.push_back(in);
  }
  int removed = 0;
  for (uint32_t i = 0; i < graph.num_nodes(); ++i) {
    const Node& n = graph.node(NodeId{i});
    if (n.dead) continue;
    bool live = false;
    for (ValueId out : n.outputs) live = live || (out.valid() && live_value[out.index]);
    if (!live) {
      graph.EraseNode(NodeId{i});
      ++removed;
    }
  }
  return removed;
}

}  // namespace qrt
