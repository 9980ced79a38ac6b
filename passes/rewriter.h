// The rewrite driver. A pass is a list of patterns; each pattern starts from one anchor node
// kind, decides whether it applies there, and if it does, rewrites the graph through a
// Rewriter. Nothing is mutated before the pattern has decided: a refusal returns the reason
// and leaves the graph as it was. The driver runs the patterns over every live anchor, round
// after round, until a round rewrites nothing, and records what each candidate became, for
// `qrt inspect --explain`.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/graph.h"
#include "runtime/op_def.h"

namespace qrt {

// One candidate anchor's outcome under one pattern.
struct Explanation {
  std::string pass, pattern;
  std::string node, op;  // the anchor's name and op ("domain:op_type" outside ONNX's domain)
  bool rewritten = false;
  std::string reason;  // why it was not rewritten; empty when it was
};
using Explanations = std::vector<Explanation>;

// A pattern's verdict at an anchor.
struct Verdict {
  bool rewritten = false;
  std::string reason;
};
inline Verdict Rewrote() { return {true, {}}; }
inline Verdict Refuse(std::string why) { return {false, std::move(why)}; }

// The only way a pattern changes the graph; it counts the changes.
class Rewriter {
 public:
  explicit Rewriter(Graph& graph) : graph_(graph) {}
  const Graph& graph() const { return graph_; }
  NodeId AddNode(Node n) {
    ++changes_;
    return graph_.AddNode(std::move(n));
  }
  StatusOr<ValueId> AddValue(Value v) {
    ++changes_;
    return graph_.AddValue(std::move(v));
  }
  // A new value named after `base` (made unique).
  ValueId AddUniqueValue(const std::string& base, DataType dtype) {
    ++changes_;
    return graph_.AddUniqueValue(base, dtype);
  }
  // A new constant named after `base` (made unique), of `value`'s dtype and shape.
  ValueId AddConstant(const std::string& base, Tensor value) {
    ++changes_;
    const ValueId id = graph_.AddUniqueValue(base, value.dtype());
    graph_.value(id).shape = ShapeFromDims(value.dims());
    graph_.value(id).constant = std::move(value);
    return id;
  }
  void EraseNode(NodeId id) {
    ++changes_;
    graph_.EraseNode(id);
  }
  void ReplaceAllUses(ValueId from, ValueId to) {
    ++changes_;
    graph_.ReplaceAllUses(from, to);
  }
  // A live node's attributes or inputs, for a rewrite that keeps the node.
  Node& Edit(NodeId id) {
    ++changes_;
    return graph_.node(id);
  }
  // The graph itself, for rewrites whose helpers take it (fuse-qdq-matmul's): only once the
  // pattern has decided to rewrite. Counts as a change.
  Graph& Mutate() {
    ++changes_;
    return graph_;
  }
  int changes() const { return changes_; }

 private:
  Graph& graph_;
  int changes_ = 0;
};

struct Pattern {
  std::string_view name;  // the caller keeps the characters alive while the pattern runs
  const OpDef* anchor;    // the anchor's op
  // A function, or an object carrying state (a user pattern's parsed form: user_patterns.h).
  std::function<StatusOr<Verdict>(Rewriter& rw, NodeId anchor)> apply;
};

// The order in which a round visits the anchors: the graph's node order, its topological
// order, or the reverse (consumers first: a pattern that matches a chain backwards from its
// end takes the longest chain).
enum class VisitOrder { kNodes, kProducersFirst, kConsumersFirst };

// Applies `patterns` at every live node of their anchor kinds, in `order`, until a round
// rewrites nothing (an error past 64 rounds: a pattern that undoes another). Returns the
// rewrites. Appends to `explain` (if not null) each rewrite as it happens and each refusal of
// the last round, under the pass name `pass` (but those of a node a pattern rewrote earlier
// under the same name: that is the rewrite's product).
StatusOr<int> RunPatterns(Graph& graph, std::string_view pass, const std::vector<Pattern>& patterns,
                          Explanations* explain, VisitOrder order = VisitOrder::kNodes);

}  // namespace qrt
