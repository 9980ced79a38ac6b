// f(constants...) -> constant: a node whose inputs are all initializers is evaluated now
// and its outputs become initializers. DequantizeLinear is kept: the fusion passes match
// on it, and the planner folds it at plan time anyway.
#include "ops/ops.h"
#include "passes/evaluate.h"
#include "passes/passes.h"

namespace qrt {
namespace {

constexpr size_t kMaxFoldedBytes = size_t(64) << 20;

bool Foldable(const Graph& g, const Node& n) {
  if (n.inputs.empty()) return false;
  if (n.def == &kDequantizeLinearOp) return false;
  for (ValueId in : n.inputs) {
    if (in.valid() && !g.IsConstant(in)) return false;
  }
  size_t bytes = 0;
  for (ValueId in : n.inputs) {
    if (in.valid()) bytes += g.ConstantOf(in)->nbytes();
  }
  return bytes <= kMaxFoldedBytes;
}

}  // namespace

StatusOr<int> FoldConstants(Graph& graph, Explanations* /*explain: a whole-graph pass, no candidates*/) {
  QRT_ASSIGN_OR_RETURN(std::vector<NodeId> order, graph.TopologicalOrder());
  int folded = 0;
  for (NodeId id : order) {
    const Node& n = graph.node(id);
    if (!Foldable(graph, n)) continue;
    std::vector<ValueId> outs;
    for (ValueId o : n.outputs) {
      if (o.valid()) outs.push_back(o);
    }
    // A node that cannot be evaluated stays; compiling the graph reports why.
    StatusOr<std::vector<Tensor>> values = EvaluateNodes(graph, {id}, {}, outs);
    if (!values.ok()) continue;
    size_t bytes = 0;
    for (const Tensor& t : *values) bytes += t.nbytes();
    if (bytes > kMaxFoldedBytes) continue;
    graph.EraseNode(id);
    for (size_t k = 0; k < outs.size(); ++k) {
      Value& v = graph.value(outs[k]);
      v.dtype = (*values)[k].dtype();
      v.shape = ShapeFromDims((*values)[k].dims());
      v.constant = std::move((*values)[k]);
      v.folded = true;
    }
    ++folded;
  }
  return folded;
}

}  // namespace qrt
