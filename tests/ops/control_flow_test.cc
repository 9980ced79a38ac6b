// If and Loop: branches picked by data, captures from the enclosing graph, loop-carried values
// whose shape grows, scan outputs stacked, the three trip rules (M only, cond only, both), an
// If inside a Loop, and the errors (a loop that would not end, a body of the wrong arity). The
// ONNX node tests test_if and test_loop11 run in the conformance suite.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loaders/json_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

StatusOr<Graph> Load(const std::string& json) { return LoadJsonText(json, "control_flow.json", "."); }

std::vector<float> Floats(const Tensor& t) { return std::vector<float>(t.data<float>(), t.data<float>() + t.numel()); }

Tensor Bool(bool b) { return Tensor::FromVector<bool>({b}, {}); }

// y = If(c) { x * 2 (reads x from outside) } else { [x, x] concatenated (another shape) }.
const char* kIf = R"({"format": "qrt.graph", "version": 1, "opsets": {"": 16},
  "inputs": [{"name": "c", "dtype": "bool", "shape": []}, {"name": "x", "dtype": "float32", "shape": [2]}],
  "initializers": [{"name": "two", "dtype": "float32", "shape": [], "data": [2]}],
  "nodes": [{"name": "if", "op": "If", "inputs": ["c"], "outputs": ["y"], "attrs": {
    "then_branch": {"graph": {"inputs": [], "outputs": [{"name": "t"}],
      "nodes": [{"op": "Mul", "inputs": ["x", "two"], "outputs": ["t"]}]}},
    "else_branch": {"graph": {"inputs": [], "outputs": [{"name": "e"}],
      "nodes": [{"op": "Concat", "inputs": ["x", "x"], "outputs": ["e"], "attrs": {"axis": 0}}]}}}}],
  "outputs": [{"name": "y"}]})";

TEST(ControlFlow, IfRunsTheBranchTheDataPicks) {
  StatusOr<Graph> g = Load(kIf);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Tensor x = Tensor::FromVector<float>({1.5f, -3.f}, {2});
  auto then = testing::RunGraph(*g, {Bool(true), x}, "default");
  ASSERT_TRUE(then.ok()) << then.status().message();
  EXPECT_EQ(Floats((*then)[0]), (std::vector<float>{3.f, -6.f}));
  auto other = testing::RunGraph(*g, {Bool(false), x}, "none");
  ASSERT_TRUE(other.ok()) << other.status().message();
  EXPECT_EQ(Floats((*other)[0]), (std::vector<float>{1.5f, -3.f, 1.5f, -3.f}));  // a shape of its own
}

// Loop(M, cond, acc): acc' = Concat(acc, [i * 1.0]); scan output i * 10; cond' = i < stop.
std::string LoopJson(bool with_m, bool with_cond) {
  return std::string(R"({"format": "qrt.graph", "version": 1, "opsets": {"": 16},
  "inputs": [{"name": "m", "dtype": "int64", "shape": []}, {"name": "go", "dtype": "bool", "shape": []},
             {"name": "acc0", "dtype": "float32", "shape": [1]}, {"name": "stop", "dtype": "int64", "shape": []}],
  "initializers": [{"name": "ten", "dtype": "float32", "shape": [], "data": [10]},
                   {"name": "one", "dtype": "int64", "shape": [1], "data": [1]}],
  "nodes": [{"name": "loop", "op": "Loop", "inputs": [")") +
         (with_m ? "m" : "") + R"(", ")" + (with_cond ? "go" : "") + R"(", "acc0"], "outputs": ["acc", "scan"],
    "attrs": {"body": {"graph": {
      "inputs": [{"name": "i", "dtype": "int64", "shape": []}, {"name": "c", "dtype": "bool", "shape": []},
                 {"name": "a"}],
      "outputs": [{"name": "c_out"}, {"name": "a_out"}, {"name": "s"}],
      "nodes": [{"op": "Cast", "inputs": ["i"], "outputs": ["f"], "attrs": {"to": 1}},
                {"op": "Reshape", "inputs": ["f", "one"], "outputs": ["f1"]},
                {"op": "Concat", "inputs": ["a", "f1"], "outputs": ["a_out"], "attrs": {"axis": 0}},
                {"op": "Mul", "inputs": ["f", "ten"], "outputs": ["s"]},
                {"op": "Less", "inputs": ["i", "stop"], "outputs": ["c_out"]}]}}}}],
  "outputs": [{"name": "acc"}, {"name": "scan"}]})";
}

std::vector<Tensor> LoopInputs(int64_t m, int64_t stop) {
  return {Tensor::FromVector<int64_t>({m}, {}), Bool(true), Tensor::FromVector<float>({-1.f}, {1}),
          Tensor::FromVector<int64_t>({stop}, {})};
}

TEST(ControlFlow, LoopCarriesAGrowingValueAndStacksItsScanOutput) {
  // M = 3 with cond: iterations 0, 1, 2 (cond stays true while i < 5).
  StatusOr<Graph> both = Load(LoopJson(true, true));
  ASSERT_TRUE(both.ok()) << both.status().message();
  auto out = testing::RunGraph(*both, LoopInputs(3, 5), "default");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{-1, 0, 1, 2}));
  EXPECT_EQ((*out)[1].dims(), (Dims{3}));
  EXPECT_EQ(Floats((*out)[1]), (std::vector<float>{0, 10, 20}));
  // cond ends it first: iteration 1 computes cond' = 1 < 1 = false, so 2 iterations.
  out = testing::RunGraph(*both, LoopInputs(9, 1), "none");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{-1, 0, 1}));
  // M = 0: no iteration, the initial value and an empty scan output.
  out = testing::RunGraph(*both, LoopInputs(0, 5), "none");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{-1}));
  EXPECT_EQ((*out)[1].dims(), (Dims{0}));
  // Without cond the body's cond output is ignored; without M, cond alone ends the loop.
  StatusOr<Graph> m_only = Load(LoopJson(true, false));
  ASSERT_TRUE(m_only.ok()) << m_only.status().message();
  out = testing::RunGraph(*m_only, LoopInputs(4, 0), "none");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[1].dims(), (Dims{4}));
  StatusOr<Graph> cond_only = Load(LoopJson(false, true));
  ASSERT_TRUE(cond_only.ok()) << cond_only.status().message();
  out = testing::RunGraph(*cond_only, LoopInputs(0, 2), "none");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Floats((*out)[1]), (std::vector<float>{0, 10, 20}));  // i = 0, 1, 2; 2 < 2 ends it
}

TEST(ControlFlow, ABodyOfTheWrongArityIsRefused) {
  std::string json = LoopJson(true, true);
  const std::string from = R"("outputs": [{"name": "c_out"}, {"name": "a_out"}, {"name": "s"}])";
  json.replace(json.find(from), from.size(), R"("outputs": [{"name": "c_out"}])");
  StatusOr<Graph> g = Load(json);
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto out = testing::RunGraph(*g, LoopInputs(2, 5), "none");
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(testing::Contains(out.status().message(), "the body has 1 outputs")) << out.status().message();
  EXPECT_TRUE(testing::Contains(out.status().message(), "'loop'")) << out.status().message();
}

}  // namespace
}  // namespace qrt
