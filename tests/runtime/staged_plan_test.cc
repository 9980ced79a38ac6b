// Staged plans: a node whose output shape depends on data (NonZero here) and everything that
// reads what it computes are prepared when they run, while the rest keeps its arena and its
// plan-time kernels. Runs with different data give different shapes from one plan.
#include <gtest/gtest.h>

#include <vector>

#include "loaders/json_loader.h"
#include "runtime/session.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

// x: f32[70] (more elements than a plan specialises on, runtime/model.cc) -> r = Relu(x); i = NonZero(r) (int64[1, n]);
// g = Gather(r, Reshape(i, [-1])) + 1; z = r * 2 (static).
constexpr const char* kModel = R"({"format": "qrt.graph", "version": 1,
  "inputs": [{"name": "x", "dtype": "float32", "shape": [70]}],
  "initializers": [
    {"name": "flat", "dtype": "int64", "shape": [1], "data": [-1]},
    {"name": "one", "dtype": "float32", "shape": [], "data": [1]},
    {"name": "two", "dtype": "float32", "shape": [], "data": [2]}],
  "nodes": [
    {"name": "relu", "op": "Relu", "inputs": ["x"], "outputs": ["r"]},
    {"name": "nz", "op": "NonZero", "inputs": ["r"], "outputs": ["i"]},
    {"name": "flatten", "op": "Reshape", "inputs": ["i", "flat"], "outputs": ["j"]},
    {"name": "gather", "op": "Gather", "inputs": ["r", "j"], "outputs": ["p"]},
    {"name": "plus", "op": "Add", "inputs": ["p", "one"], "outputs": ["g"]},
    {"name": "twice", "op": "Mul", "inputs": ["r", "two"], "outputs": ["z"]}],
  "outputs": [{"name": "g"}, {"name": "z"}]})";

std::shared_ptr<const CompiledModel> CompileModel() {
  StatusOr<Graph> g = LoadJsonText(kModel, "staged.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message();
  auto m = Compile(std::move(g).value(), CompileOptions{});
  EXPECT_TRUE(m.ok()) << m.status().message();
  return *m;
}

std::vector<float> Values(const Tensor& t) { return std::vector<float>(t.data<float>(), t.data<float>() + t.numel()); }

// 70 elements: `head` first, then -1 (Relu makes it 0).
Tensor Input(std::vector<float> head) {
  head.resize(70, -1.0f);
  return Tensor::FromVector<float>(head, {70});
}

TEST(StagedPlan, OnlyWhatReadsADataDependentShapeIsPreparedAtRun) {
  auto model = CompileModel();
  EXPECT_EQ(model->default_plan(), nullptr);  // NonZero's prepare needs r's values
  const Tensor x = Input({1, -2, 0, 3.5f, -1, 4});
  auto plan = model->PlanFor({x});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ((*plan)->steps_prepared_at_run, 4u);  // NonZero, Reshape, Gather, Add
  size_t static_steps = 0;
  for (const PlanStep& step : (*plan)->steps) static_steps += step.prepared_at_run ? 0 : 1;
  EXPECT_EQ(static_steps, 2u);                   // Relu and Mul keep their kernels...
  EXPECT_GE((*plan)->arena_bytes, 2u * 70 * 4);  // ...and their arena
  EXPECT_EQ((*plan)->input_values[0], nullptr);  // the plan serves any x of that shape
}

TEST(StagedPlan, EachRunGetsItsOwnShapes) {
  Session session(CompileModel());
  struct Case {
    std::vector<float> x, g;
  };
  const std::vector<Case> cases = {
      {{1, -2, 0, 3.5f, -1, 4}, {2, 4.5f, 5}},
      {{-1, -1, -1, -1, -1, -1}, {}},
      {{0.5f, 1, 2, 3, 4, 5}, {1.5f, 2, 3, 4, 5, 6}},
      {{7, 0, 0, 0, 0, 8}, {8, 9}},
      {{0, 0, 0, 0, 9, 0}, {10}},
  };
  for (const Case& c : cases) {
    std::vector<Tensor> out;
    const Tensor x = Input(c.x);
    ASSERT_TRUE(session.Run({x}, &out).ok());
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].dims(), Dims{int64_t(c.g.size())});
    EXPECT_EQ(Values(out[0]), c.g);
    std::vector<float> z;
    for (int64_t k = 0; k < x.numel(); ++k) z.push_back(x.data<float>()[k] > 0 ? x.data<float>()[k] * 2 : 0);
    EXPECT_EQ(Values(out[1]), z);
  }
}

TEST(StagedPlan, BoundOutputBuffersAreCheckedAfterTheRun) {
  Session session(CompileModel());
  std::vector<float> buffer(3, -9);
  ASSERT_TRUE(session.SetOutputBuffer(0, buffer.data(), buffer.size() * sizeof(float)).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({Input({1, -2, 0, 3.5f, -1, 4})}, &out).ok());
  EXPECT_EQ(buffer, (std::vector<float>{2, 4.5f, 5}));
  Status wrong = session.Run({Input({1, 1})}, &out);
  EXPECT_FALSE(wrong.ok());
  EXPECT_TRUE(testing::Contains(wrong.message(), "its bound buffer has 12")) << wrong.message();
}

TEST(StagedPlan, ErrorsAtRunNameTheNode) {
  // Reshape to [4] is fine for four non-zeros, and wrong for any other count.
  std::string text = kModel;
  text.replace(text.find(R"("data": [-1])"), 12, R"("data": [4])");
  StatusOr<Graph> g = LoadJsonText(text, "staged.json", ".");
  ASSERT_TRUE(g.ok());
  auto m = Compile(std::move(g).value(), CompileOptions{});
  ASSERT_TRUE(m.ok());
  Session session(*m);
  std::vector<Tensor> out;
  EXPECT_TRUE(session.Run({Input({1, 2, 3, 4})}, &out).ok());
  Status s = session.Run({Input({1, 2, 3})}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(testing::Contains(s.message(), "flatten")) << s.message();
}

}  // namespace
}  // namespace qrt
