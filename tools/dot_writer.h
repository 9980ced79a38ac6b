// Graphviz DOT of a graph, for `qrt inspect --dot`.
#pragma once

#include <string>

#include "runtime/graph.h"

namespace qrt::cli {

// Ops made by qrt's passes (domain "qrt" nodes) are drawn filled, so fusions stand out.
std::string GraphToDot(const Graph& graph);

}  // namespace qrt::cli
