#include "passes/rewriter.h"

#include <algorithm>
#include <set>
#include <utility>

namespace qrt {
namespace {

std::string OpLabel(const Node& n) { return n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type; }

}  // namespace

StatusOr<int> RunPatterns(Graph& graph, std::string_view pass, const std::vector<Pattern>& patterns,
                          Explanations* explain, VisitOrder order) {
  constexpr int kMaxRounds = 64;
  Rewriter rw(graph);
  int rewrites = 0;
  Explanations refusals;
  // (pattern, node) pairs rewritten: their later refusals are of the node the rewrite made
  // (a fused node keeps the anchor's name), not of a candidate left as it was.
  std::set<std::pair<std::string_view, std::string>> rewritten;
  for (int round = 0;; ++round) {
    if (round == kMaxRounds) return Internal("pass ", pass, " still rewrote after ", kMaxRounds, " rounds");
    refusals.clear();
    int this_round = 0;
    // Nodes added in this round wait for the next one.
    std::vector<NodeId> visit;
    if (order == VisitOrder::kNodes) {
      for (uint32_t i = 0; i < uint32_t(graph.num_nodes()); ++i) visit.push_back(NodeId{i});
    } else {
      QRT_ASSIGN_OR_RETURN(visit, graph.TopologicalOrder());
      if (order == VisitOrder::kConsumersFirst) std::reverse(visit.begin(), visit.end());
    }
    for (const NodeId id : visit) {
      const uint32_t i = id.index;
      for (const Pattern& p : patterns) {
        const Node& anchor = graph.node(NodeId{i});
        if (anchor.dead || anchor.def != p.anchor) continue;
        Explanation e{std::string(pass), std::string(p.name), anchor.name, OpLabel(anchor), false, {}};
        const int before = rw.changes();
        QRT_ASSIGN_OR_RETURN(Verdict v, p.apply(rw, NodeId{i}));
        if (!v.rewritten) {
          if (rw.changes() != before) return Internal("pattern ", p.name, " changed the graph, then refused");
          e.reason = std::move(v.reason);
          refusals.push_back(std::move(e));
          continue;
        }
        ++this_round;
        rewritten.emplace(p.name, e.node);
        e.rewritten = true;
        if (explain != nullptr) explain->push_back(std::move(e));
      }
    }
    rewrites += this_round;
    if (this_round == 0) break;
  }
  if (explain != nullptr) {
    for (Explanation& e : refusals) {
      if (!rewritten.count({e.pattern, e.node})) explain->push_back(std::move(e));
    }
  }
  return rewrites;
}

}  // namespace qrt
