// A graph before and after the passes as one self-contained HTML page: what
// `qrt inspect --html`, qrt_graph_to_html and Python's Graph.to_html() write.
#pragma once

#include <string>
#include <vector>

#include "runtime/graph.h"

namespace qrt {

// Run time of one node of the `after` graph, by node name (microseconds per run).
struct HtmlNodeTime {
  std::string node;
  double microseconds = 0;
};

// One self-contained page (inline CSS, script and SVG; no URL is fetched): `before` (the
// loaded graph) and `after` (the optimized graph) side by side, each drawn as a layered DAG
// laid out here (deterministic: the same graphs give the same page). Every node is an SVG
// group `class="node"` with `data-name` and `data-op`; hovering it shows its op, attributes,
// its values' dtypes and shapes and, for quantizing ops, their constant scales and zero
// points. Nodes of `after` that the passes made (domain "qrt", or absent from `before`) are
// `class="node fused"` with `data-replaces`: the names of the `before` nodes they replaced
// (absent from `after`, between the fused node's inputs and outputs), which carry
// `data-fused-into`. `profile` (may be empty) colours each node of `after` by its share of the
// total time. Every name is escaped. Values are looked up by name in both graphs only.
std::string GraphsToHtml(const Graph& before, const Graph& after, const std::string& title,
                         const std::vector<HtmlNodeTime>& profile);

}  // namespace qrt
