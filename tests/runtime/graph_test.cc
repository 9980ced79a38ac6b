// Graph: structure validation, topological order, and handle consistency across
// EraseNode / ReplaceAllUses / Compact.
#include "runtime/graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ops/registry.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

using testing::Contains;

ValueId AddInput(Graph& g, const std::string& name, Dims dims = {4}) {
  Value v;
  v.name = name;
  v.dtype = DataType::kFloat32;
  v.shape = ShapeFromDims(dims);
  ValueId id = g.AddValue(std::move(v)).value();
  g.inputs.push_back(id);
  return id;
}

ValueId AddConstant(Graph& g, const std::string& name, std::vector<float> data) {
  Value v;
  v.name = name;
  v.dtype = DataType::kFloat32;
  Tensor t = Tensor::FromVector<float>(data, {int64_t(data.size())});
  v.shape = ShapeFromDims(t.dims());
  v.constant = std::move(t);
  return g.AddValue(std::move(v)).value();
}

ValueId AddValue(Graph& g, const std::string& name) {
  Value v;
  v.name = name;
  return g.AddValue(std::move(v)).value();
}

NodeId AddOp(Graph& g, const std::string& op, std::vector<ValueId> ins, std::vector<ValueId> outs,
             const std::string& name) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.opset = 13;
  n.def = FindOp("", op);
  EXPECT_NE(n.def, nullptr) << op;
  n.inputs = std::move(ins);
  n.outputs = std::move(outs);
  return g.AddNode(std::move(n));
}

std::vector<std::string> NodeNames(const Graph& g, const std::vector<NodeId>& ids) {
  std::vector<std::string> names;
  for (NodeId id : ids) names.push_back(g.node(id).name);
  return names;
}

TEST(Graph, AddValueRejectsTakenNames) {
  Graph g;
  AddValue(g, "a");
  Value dup;
  dup.name = "a";
  StatusOr<ValueId> id = g.AddValue(dup);
  ASSERT_FALSE(id.ok());
  EXPECT_PRED2(Contains, id.status().message(), "'a'");
  ValueId u1 = g.AddUniqueValue("a");
  ValueId u2 = g.AddUniqueValue("a");
  EXPECT_NE(g.value(u1).name, "a");
  EXPECT_NE(g.value(u1).name, g.value(u2).name);
  EXPECT_EQ(g.FindValue(g.value(u2).name), u2);
  EXPECT_FALSE(g.FindValue("nope").valid());
}

TEST(Graph, ValidateAcceptsAWellFormedGraph) {
  Graph g;
  ValueId x = AddInput(g, "x");
  ValueId c = AddConstant(g, "c", {1, 2, 3, 4});
  ValueId a = AddValue(g, "a"), y = AddValue(g, "y");
  AddOp(g, "Add", {x, c}, {a}, "add");
  AddOp(g, "Relu", {a}, {y}, "relu");
  g.outputs.push_back(y);
  EXPECT_TRUE(g.Validate().ok()) << g.Validate().message();
  EXPECT_EQ(g.value(a).producer, NodeId{0});
  EXPECT_EQ(g.Consumers(a), std::vector<NodeId>{NodeId{1}});
  EXPECT_TRUE(g.IsGraphOutput(y));
  EXPECT_FALSE(g.IsGraphOutput(a));
  EXPECT_TRUE(g.IsConstant(c));
  EXPECT_FALSE(g.IsConstant(x));
}

TEST(Graph, ValidateRejectsDoubleDefinition) {
  Graph g;
  g.source = "g.onnx";
  ValueId x = AddInput(g, "x");
  ValueId y = AddValue(g, "y");
  AddOp(g, "Relu", {x}, {y}, "first");
  AddOp(g, "Sigmoid", {x}, {y}, "second");
  g.outputs.push_back(y);
  Status s = g.Validate();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_PRED2(Contains, s.message(), "g.onnx: node 'second' (#1, Sigmoid)");
  EXPECT_PRED2(Contains, s.message(), "'y'");

  // A node writing a graph input or a constant is a double definition too.
  Graph h;
  ValueId hx = AddInput(h, "x");
  ValueId hc = AddConstant(h, "c", {1});
  AddOp(h, "Relu", {hx}, {hx}, "over_input");
  h.outputs.push_back(hx);
  EXPECT_FALSE(h.Validate().ok());
  Graph k;
  ValueId kx = AddInput(k, "x");
  ValueId kc = AddConstant(k, "c", {1});
  AddOp(k, "Relu", {kx}, {kc}, "over_constant");
  k.outputs.push_back(kc);
  Status ks = k.Validate();
  ASSERT_FALSE(ks.ok());
  EXPECT_PRED2(Contains, ks.message(), "'over_constant'");
  (void)hc;
}

TEST(Graph, ValidateRejectsUndefinedInput) {
  Graph g;
  g.source = "m.json";
  ValueId x = AddInput(g, "x");
  ValueId ghost = AddValue(g, "ghost"), y = AddValue(g, "y");
  AddOp(g, "Add", {x, ghost}, {y}, "add");
  g.outputs.push_back(y);
  Status s = g.Validate();
  ASSERT_FALSE(s.ok());
  EXPECT_PRED2(Contains, s.message(), "m.json: node 'add' (#0, Add)");
  EXPECT_PRED2(Contains, s.message(), "'ghost'");
}

TEST(Graph, ValidateRejectsUnproducedOutputAndInputInitializer) {
  Graph g;
  ValueId x = AddInput(g, "x");
  ValueId y = AddValue(g, "y");
  g.outputs.push_back(y);
  Status s = g.Validate();
  ASSERT_FALSE(s.ok());
  EXPECT_PRED2(Contains, s.message(), "'y'");

  Graph h;
  ValueId c = AddConstant(h, "c", {1});
  h.inputs.push_back(c);
  h.outputs.push_back(c);
  Status hs = h.Validate();
  ASSERT_FALSE(hs.ok());
  EXPECT_PRED2(Contains, hs.message(), "'c'");
  (void)x;
}

TEST(Graph, ValidateRejectsCycles) {
  // x -> add(x, b) -> a -> relu -> b -> (back into add)
  Graph g;
  ValueId x = AddInput(g, "x");
  ValueId a = AddValue(g, "a"), b = AddValue(g, "b");
  AddOp(g, "Add", {x, b}, {a}, "add");
  AddOp(g, "Relu", {a}, {b}, "relu");
  g.outputs.push_back(b);
  Status s = g.Validate();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_PRED2(Contains, s.message(), "cycle");
  EXPECT_FALSE(g.TopologicalOrder().ok());

  // A self-loop.
  Graph h;
  ValueId hx = AddInput(h, "x");
  ValueId hs = AddValue(h, "s");
  AddOp(h, "Add", {hx, hs}, {hs}, "self");
  h.outputs.push_back(hs);
  Status st = h.Validate();
  ASSERT_FALSE(st.ok());
  EXPECT_PRED2(Contains, st.message(), "'self'");
}

TEST(Graph, TopologicalOrderPutsProducersFirstAndIsStable) {
  // Nodes in file order: d(c), c(b), a(x), b(a), e(x), f(x). Dependencies: a<b<c<d; e and f free.
  Graph g;
  ValueId x = AddInput(g, "x");
  ValueId va = AddValue(g, "va"), vb = AddValue(g, "vb"), vc = AddValue(g, "vc"), vd = AddValue(g, "vd");
  ValueId ve = AddValue(g, "ve"), vf = AddValue(g, "vf");
  AddOp(g, "Relu", {vc}, {vd}, "d");
  AddOp(g, "Relu", {vb}, {vc}, "c");
  AddOp(g, "Relu", {x}, {va}, "a");
  AddOp(g, "Relu", {va}, {vb}, "b");
  AddOp(g, "Relu", {x}, {ve}, "e");
  AddOp(g, "Relu", {x}, {vf}, "f");
  g.outputs = {vd, ve, vf};
  auto order = g.TopologicalOrder();
  ASSERT_TRUE(order.ok()) << order.status().message();
  const std::vector<std::string> names = NodeNames(g, *order);
  ASSERT_EQ(names.size(), 6u);
  auto pos = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  EXPECT_LT(pos("a"), pos("b"));
  EXPECT_LT(pos("b"), pos("c"));
  EXPECT_LT(pos("c"), pos("d"));
  EXPECT_LT(pos("e"), pos("f")) << "independent nodes keep file order";
  // Kahn's with file-order ties: a is the first ready node in file order.
  EXPECT_EQ(names.front(), "a");

  // Erased nodes drop out of the order.
  g.EraseNode(NodeId{5});
  g.outputs = {vd, ve};
  order = g.TopologicalOrder();
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(order->size(), 5u);
  EXPECT_EQ(g.num_live_nodes(), 5u);
  EXPECT_FALSE(g.value(vf).producer.valid());
}

TEST(Graph, CompactKeepsHandlesConsistent) {
  // x -> relu1 -> a -> neg -> b -> relu2 -> y; plus an unused constant and value.
  // Erase `neg` and read `a` where `b` was read: x -> relu1 -> a -> relu2 -> y.
  Graph g;
  g.source = "compact.json";
  AddConstant(g, "unused_const", {9});
  ValueId x = AddInput(g, "x");
  AddValue(g, "unused");
  ValueId a = AddValue(g, "a"), b = AddValue(g, "b"), y = AddValue(g, "y");
  ValueId c = AddConstant(g, "c", {-1, -2, -3, -4});
  ValueId s = AddValue(g, "s"), z = AddValue(g, "z");
  AddOp(g, "Relu", {x}, {a}, "relu1");
  NodeId neg = AddOp(g, "Neg", {a}, {b}, "neg");
  AddOp(g, "Relu", {b}, {y}, "relu2");
  AddOp(g, "Add", {y, c}, {s}, "add");
  AddOp(g, "Sigmoid", {x}, {z}, "dead_sigmoid");
  g.outputs = {s, y};
  ASSERT_TRUE(g.Validate().ok());

  g.ReplaceAllUses(b, a);
  g.EraseNode(neg);
  g.EraseNode(NodeId{4});
  EXPECT_EQ(g.Consumers(b).size(), 0u);
  EXPECT_EQ(g.Consumers(a).size(), 1u);
  ASSERT_TRUE(g.Validate().ok()) << g.Validate().message();
  g.Compact();
  ASSERT_TRUE(g.Validate().ok()) << g.Validate().message();

  EXPECT_EQ(g.num_nodes(), 3u);
  EXPECT_EQ(g.num_live_nodes(), 3u);
  for (const char* gone : {"unused", "unused_const", "b", "z"}) EXPECT_FALSE(g.FindValue(gone).valid()) << gone;
  EXPECT_EQ(g.num_values(), 5u);  // x, a, y, c, s
  for (uint32_t i = 0; i < g.num_values(); ++i) {
    const Value& v = g.value(ValueId{i});
    EXPECT_EQ(g.FindValue(v.name), ValueId{i}) << v.name;
    if (v.producer.valid()) {
      ASSERT_LT(v.producer.index, g.num_nodes());
      const Node& p = g.node(v.producer);
      EXPECT_NE(std::find(p.outputs.begin(), p.outputs.end(), ValueId{i}), p.outputs.end()) << v.name;
    }
  }
  auto name = [&](ValueId id) { return g.value(id).name; };
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(name(g.inputs[0]), "x");
  ASSERT_EQ(g.outputs.size(), 2u);
  EXPECT_EQ(name(g.outputs[0]), "s");
  EXPECT_EQ(name(g.outputs[1]), "y");
  EXPECT_TRUE(g.IsConstant(g.FindValue("c")));
  const std::vector<std::string> want_nodes = {"relu1", "relu2", "add"};
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(g.node(NodeId{i}).name, want_nodes[i]);
  EXPECT_EQ(name(g.node(NodeId{1}).inputs[0]), "a");
  EXPECT_EQ(name(g.node(NodeId{2}).inputs[0]), "y");
  EXPECT_EQ(name(g.node(NodeId{2}).inputs[1]), "c");
  EXPECT_EQ(g.value(g.FindValue("y")).producer, NodeId{1});
  EXPECT_EQ(g.NodeLabel(NodeId{2}), "node 'add' (#2, Add)");

  // The compacted graph still computes: s = relu(relu(x)) + c.
  auto out = testing::RunGraph(g, {Tensor::FromVector<float>({-1, 0, 2, 5}, {4})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const float* sv = (*out)[0].data<float>();
  EXPECT_EQ(std::vector<float>(sv, sv + 4), (std::vector<float>{-1, -2, -1, 1}));
}

TEST(Graph, CompactKeepsOmittedOptionalInputsInvalid) {
  Graph g;
  ValueId x = AddInput(g, "x");
  ValueId s = AddConstant(g, "s", {0.5f});
  AddValue(g, "junk");
  ValueId q = AddValue(g, "q");
  AddOp(g, "QuantizeLinear", {x, s, ValueId{}}, {q}, "q");
  g.outputs = {q};
  g.Compact();
  ASSERT_TRUE(g.Validate().ok()) << g.Validate().message();
  ASSERT_EQ(g.node(NodeId{0}).inputs.size(), 3u);
  EXPECT_FALSE(g.node(NodeId{0}).inputs[2].valid());
  EXPECT_EQ(g.value(g.node(NodeId{0}).inputs[1]).name, "s");
}

TEST(Graph, ShapeHelpers) {
  Shape s = {Dim::Static(2), Dim::Symbolic("N"), Dim::Symbolic("")};
  EXPECT_EQ(ShapeToString(s), "[2,N,?]");
  EXPECT_FALSE(StaticDims(s).has_value());
  EXPECT_EQ(*StaticDims(ShapeFromDims({3, 0, 1})), (Dims{3, 0, 1}));
}

}  // namespace
}  // namespace qrt
