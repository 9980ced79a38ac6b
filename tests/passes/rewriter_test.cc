// The rewrite driver: patterns run to a fixed point in the chosen order, a refusal leaves the
// graph as it was (a pattern that mutates and then refuses is an error), rewrites and the last
// round's refusals are recorded for explain, and a pattern that keeps undoing itself stops.
//
//   Relu -> Relu -> Relu -> Neg       a pattern folds Relu(Relu(x)) -> Relu(x)
#include "passes/rewriter.h"

#include <gtest/gtest.h>

#include "ops/ops.h"
#include "ops/registry.h"

namespace qrt {
namespace {

ValueId AddNamed(Graph& g, const std::string& name) {
  Value v;
  v.name = name;
  v.dtype = DataType::kFloat32;
  v.shape = ShapeFromDims({4});
  return g.AddValue(std::move(v)).value();
}

NodeId AddOp(Graph& g, const std::string& op, ValueId in, ValueId out, const std::string& name) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.opset = 13;
  n.def = FindOp("", op);
  n.inputs = {in};
  n.outputs = {out};
  return g.AddNode(std::move(n));
}

// x -> Relu r0 -> Relu r1 -> Relu r2 -> Neg -> y
Graph Chain() {
  Graph g;
  ValueId x = AddNamed(g, "x");
  g.inputs.push_back(x);
  ValueId a = AddNamed(g, "a"), b = AddNamed(g, "b"), c = AddNamed(g, "c"), y = AddNamed(g, "y");
  AddOp(g, "Relu", x, a, "r0");
  AddOp(g, "Relu", a, b, "r1");
  AddOp(g, "Relu", b, c, "r2");
  AddOp(g, "Neg", c, y, "neg");
  g.outputs.push_back(y);
  return g;
}

// Relu(Relu(x)) -> Relu(x), anchored at the outer Relu.
StatusOr<Verdict> FoldRelu(Rewriter& rw, NodeId outer) {
  const Graph& g = rw.graph();
  const Node& n = g.node(outer);
  const NodeId inner = g.value(n.inputs[0]).producer;
  if (!inner.valid() || g.node(inner).dead || g.node(inner).op_type != "Relu") return Refuse("input not a Relu");
  if (g.Consumers(n.inputs[0]).size() != 1) return Refuse("inner Relu has other readers");
  // Relu(Relu(x)) -> Relu(x): the outer Relu's readers read the inner one's output.
  const ValueId out = n.outputs[0], mid = n.inputs[0];
  rw.EraseNode(outer);
  rw.ReplaceAllUses(out, mid);
  return Rewrote();
}

TEST(Rewriter, RunsToAFixedPointAndExplains) {
  Graph g = Chain();
  Explanations explain;
  auto n = RunPatterns(g, "fold", {{"relu-relu", &kReluOp, FoldRelu}}, &explain);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(*n, 2);  // r1, then r2 (whose input is then r0's output); a second round finds none
  int relus = 0;
  for (uint32_t i = 0; i < g.num_nodes(); ++i) relus += !g.node(NodeId{i}).dead && g.node(NodeId{i}).op_type == "Relu";
  EXPECT_EQ(relus, 1);
  int rewritten = 0, refused = 0;
  for (const Explanation& e : explain) {
    EXPECT_EQ(e.pass, "fold");
    EXPECT_EQ(e.pattern, "relu-relu");
    if (e.rewritten) {
      ++rewritten;
      EXPECT_TRUE(e.reason.empty());
    } else {
      ++refused;
      EXPECT_EQ(e.node, "r0");  // the one Relu left: its input is the graph input
      EXPECT_EQ(e.reason, "input not a Relu");
    }
  }
  EXPECT_EQ(rewritten, 2);
  EXPECT_EQ(refused, 1);
  EXPECT_TRUE(g.Validate().ok());
}

TEST(Rewriter, ARefusalAfterAChangeIsAnError) {
  Graph g = Chain();
  auto bad = [](Rewriter& rw, NodeId id) -> StatusOr<Verdict> {
    rw.Edit(id).name += "_touched";
    return Refuse("changed my mind");
  };
  auto n = RunPatterns(g, "bad", {{"bad", &kNegOp, bad}}, nullptr);
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("changed the graph, then refused"), std::string::npos) << n.status().message();
}

TEST(Rewriter, APatternThatNeverSettlesStops) {
  Graph g = Chain();
  // Renames the Neg every time: always a "rewrite".
  auto flip = [](Rewriter& rw, NodeId id) -> StatusOr<Verdict> {
    rw.Edit(id).name += "'";
    return Rewrote();
  };
  auto n = RunPatterns(g, "flip", {{"flip", &kNegOp, flip}}, nullptr);
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("still rewrote after 64 rounds"), std::string::npos) << n.status().message();
}

TEST(Rewriter, ConsumersFirstVisitsTheChainFromItsEnd) {
  Graph g = Chain();
  std::vector<std::string> seen;
  static std::vector<std::string>* log;
  log = &seen;
  auto record = [](Rewriter& rw, NodeId id) -> StatusOr<Verdict> {
    log->push_back(rw.graph().node(id).name);
    return Refuse("only looking");
  };
  ASSERT_TRUE(RunPatterns(g, "look", {{"look", &kReluOp, record}}, nullptr, VisitOrder::kConsumersFirst).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"r2", "r1", "r0"}));
  seen.clear();
  ASSERT_TRUE(RunPatterns(g, "look", {{"look", &kReluOp, record}}, nullptr, VisitOrder::kProducersFirst).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"r0", "r1", "r2"}));
}

}  // namespace
}  // namespace qrt
