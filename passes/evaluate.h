// Runs a piece of a graph on its own, at compile time: the engine behind constant
// folding and lookup-table fusion.
#pragma once

#include <utility>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/graph.h"

namespace qrt {

// Evaluates `nodes` (live nodes of `graph`, producers before consumers) with each
// `bound` value set to its tensor; every other input they read must be a constant.
// Returns the tensors of `outputs`. By default it uses the reference kernels, which every
// bit-exact optimized kernel matches, so the result is what the graph itself computes.
StatusOr<std::vector<Tensor>> EvaluateNodes(const Graph& graph, const std::vector<NodeId>& nodes,
                                            const std::vector<std::pair<ValueId, Tensor>>& bound,
                                            const std::vector<ValueId>& outputs, Isa isa = Isa::kScalar);

}  // namespace qrt
