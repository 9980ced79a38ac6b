// Every pass's entry point. Each is defined in its own file in passes/.
#pragma once

#include "runtime/graph.h"

namespace qrt {

// Identity(x) -> x, unless the Identity's output is a graph output.
StatusOr<int> EliminateIdentity(Graph& graph);
// Q(DQ(a) * DQ(b)) -> QuantizedMul(a, b, requantize=divide): bit-identical.
StatusOr<int> FuseDqMulQ(Graph& graph);
// Q(DQ(a) + DQ(b)) -> QuantizedAdd(a, b, requantize=divide): bit-identical.
StatusOr<int> FuseDqAddQ(Graph& graph);
// Removes nodes none of whose outputs reach a graph output.
StatusOr<int> EliminateDeadNodes(Graph& graph);

}  // namespace qrt
