// Graphviz DOT of a graph, for `qrt inspect --dot`.
#pragma once

#include <string>

#include "qrt/qrt.hpp"

namespace qrt::cli {

// Ops made by qrt's passes (domain "qrt" nodes) are drawn filled, so fusions stand out.
std::string GraphToDot(const api::Graph& graph, const std::string& name);

}  // namespace qrt::cli
