// Session: repeated runs with the same and with different symbolic shapes, memory
// reuse in the arena, one CompiledModel shared by concurrent sessions, and clear
// errors for wrong inputs.
#include "runtime/session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "loaders/json_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

using testing::Contains;

constexpr const char* kSource = "session.json";

std::shared_ptr<const CompiledModel> CompileJson(const std::string& text, const std::string& passes = "default") {
  StatusOr<Graph> g = LoadJsonText(text, kSource, ".");
  EXPECT_TRUE(g.ok()) << g.status().message();
  if (!g.ok()) return nullptr;
  CompileOptions opts;
  opts.passes = passes;
  auto m = Compile(std::move(g).value(), opts);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? *m : nullptr;
}

// y = Q(DQ(x) * 1.5 + b) with x:u8[N,4], b a per-column float; z = Relu(DQ(x) - 2).
std::string QdqModel(const std::string& batch_dim) {
  return R"({"format": "qrt.graph", "version": 1,
    "inputs": [{"name": "x", "dtype": "uint8", "shape": [)" +
         batch_dim + R"(, 4]}],
    "initializers": [
      {"name": "s", "dtype": "float32", "shape": [], "data": [0.1]},
      {"name": "zp", "dtype": "uint8", "shape": [], "data": [128]},
      {"name": "k", "dtype": "float32", "shape": [], "data": [1.5]},
      {"name": "b", "dtype": "float32", "shape": [4], "data": [0.5, -0.25, 3, -7]},
      {"name": "two", "dtype": "float32", "shape": [], "data": [2]},
      {"name": "ys", "dtype": "float32", "shape": [], "data": [0.05]},
      {"name": "yzp", "dtype": "int8", "shape": [], "data": [-3]}],
    "nodes": [
      {"name": "dq", "op": "DequantizeLinear", "inputs": ["x", "s", "zp"], "outputs": ["f"]},
      {"name": "mul", "op": "Mul", "inputs": ["f", "k"], "outputs": ["m"]},
      {"name": "add", "op": "Add", "inputs": ["m", "b"], "outputs": ["a"]},
      {"name": "q", "op": "QuantizeLinear", "inputs": ["a", "ys", "yzp"], "outputs": ["y"]},
      {"name": "sub", "op": "Sub", "inputs": ["f", "two"], "outputs": ["d"]},
      {"name": "relu", "op": "Relu", "inputs": ["d"], "outputs": ["z"]}],
    "outputs": [{"name": "y"}, {"name": "z"}]})";
}

// The model's arithmetic, one f32 op at a time.
void Reference(const std::vector<uint8_t>& x, std::vector<int8_t>* y, std::vector<float>* z) {
  const float b[4] = {0.5f, -0.25f, 3.0f, -7.0f};
  y->clear();
  z->clear();
  for (size_t i = 0; i < x.size(); ++i) {
    const float f = (float(x[i]) - 128.0f) * 0.1f;
    const float a = f * 1.5f + b[i % 4];
    float q = std::nearbyint(a / 0.05f) + -3.0f;
    q = std::fmin(std::fmax(q, -128.0f), 127.0f);
    y->push_back(int8_t(q));
    z->push_back(std::fmax(f - 2.0f, 0.0f));
  }
}

Tensor Input(int64_t batch, uint32_t seed) {
  std::vector<uint8_t> v(size_t(batch) * 4);
  for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t((i * 37 + seed * 101) % 256);
  return Tensor::FromVector<uint8_t>(v, {batch, 4});
}

void ExpectMatchesReference(const Tensor& x, const std::vector<Tensor>& out) {
  std::vector<uint8_t> xv(x.data<uint8_t>(), x.data<uint8_t>() + x.numel());
  std::vector<int8_t> y;
  std::vector<float> z;
  Reference(xv, &y, &z);
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].dims(), x.dims());
  ASSERT_EQ(out[1].dims(), x.dims());
  ASSERT_EQ(out[0].dtype(), DataType::kInt8);
  for (size_t i = 0; i < y.size(); ++i) {
    EXPECT_EQ(out[0].data<int8_t>()[i], y[i]) << "y[" << i << "] for x " << int(xv[i]);
    EXPECT_EQ(out[1].data<float>()[i], z[i]) << "z[" << i << "]";
  }
}

TEST(Session, RunsTwiceWithTheSameShape) {
  auto model = CompileJson(QdqModel("2"));
  ASSERT_NE(model, nullptr);
  ASSERT_NE(model->default_plan(), nullptr) << "static shapes are planned at compile time";
  Session session(model);
  std::vector<Tensor> out;
  const void* first_output = nullptr;
  for (uint32_t seed : {1u, 2u, 1u}) {
    Tensor x = Input(2, seed);
    ASSERT_TRUE(session.Run({x}, &out).ok());
    ExpectMatchesReference(x, out);
    // Same shapes: the session keeps its plan and arena, so outputs land in the same place.
    if (first_output == nullptr) first_output = out[0].raw();
    EXPECT_EQ(out[0].raw(), first_output);
  }
}

TEST(Session, RunsWithDifferentSymbolicShapes) {
  auto model = CompileJson(QdqModel("\"N\""));
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->default_plan(), nullptr);
  Session session(model);
  std::vector<Tensor> out;
  for (int64_t batch : {3, 1, 7, 3, 0}) {
    SCOPED_TRACE(batch);
    Tensor x = Input(batch, uint32_t(batch));
    Status s = session.Run({x}, &out);
    ASSERT_TRUE(s.ok()) << s.message();
    ExpectMatchesReference(x, out);
  }
}

TEST(Session, FusionOnAndOffGiveIdenticalBits) {
  auto fused = CompileJson(QdqModel("\"N\""), "default");
  auto plain = CompileJson(QdqModel("\"N\""), "none");
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(plain, nullptr);
  Session a(fused), b(plain);
  Tensor x = Input(64, 5);
  std::vector<Tensor> oa, ob;
  ASSERT_TRUE(a.Run({x}, &oa).ok());
  ASSERT_TRUE(b.Run({x}, &ob).ok());
  for (size_t k = 0; k < oa.size(); ++k) EXPECT_EQ(testing::CompareBits(oa[k], ob[k]), "") << k;
}

TEST(Session, ArenaReusesIntermediateBuffers) {
  // A chain of five unary ops on 1024 floats: five 4 KiB intermediates, at most two live
  // at once (plus the graph output, which lives to the end).
  const std::string text = R"({"format": "qrt.graph", "version": 1,
    "inputs": [{"name": "x", "dtype": "float32", "shape": [1024]}],
    "nodes": [{"op": "Relu", "inputs": ["x"], "outputs": ["a"]},
              {"op": "Neg", "inputs": ["a"], "outputs": ["b"]},
              {"op": "Abs", "inputs": ["b"], "outputs": ["c"]},
              {"op": "Neg", "inputs": ["c"], "outputs": ["d"]},
              {"op": "Relu", "inputs": ["d"], "outputs": ["e"]},
              {"op": "Sigmoid", "inputs": ["e"], "outputs": ["y"]}],
    "outputs": [{"name": "y"}]})";
  auto model = CompileJson(text, "none");
  ASSERT_NE(model, nullptr);
  Session session(model);
  std::vector<float> xv(1024);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(int(i) - 512);
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({Tensor::FromVector<float>(xv, {1024})}, &out).ok());
  const size_t sum = 6 * 4096;
  EXPECT_GT(session.arena_bytes(), 0u);
  EXPECT_LE(session.arena_bytes(), 3 * 4096u) << "sum of intermediates " << sum;
  for (size_t i = 0; i < xv.size(); ++i)
    EXPECT_EQ(out[0].data<float>()[i], 0.5f);  // sigmoid(relu(-|relu(x)|)) = sigmoid(0)
}

TEST(Session, ConcurrentSessionsShareOneCompiledModel) {
  // Symbolic batch: each thread plans its own shapes concurrently through PlanFor.
  auto model = CompileJson(QdqModel("\"N\""));
  ASSERT_NE(model, nullptr);
  constexpr int kThreads = 4, kIters = 25;
  std::vector<std::vector<Tensor>> inputs(kThreads), want(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    inputs[t].push_back(Input(1 + t * 5, uint32_t(t)));
    Session s(model);
    std::vector<Tensor> out;
    ASSERT_TRUE(s.Run(inputs[t], &out).ok());
    for (const Tensor& o : out) want[t].push_back(o.Clone());
  }
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Session s(model);
      std::vector<Tensor> out;
      for (int it = 0; it < kIters && errors[t].empty(); ++it) {
        // Alternate between this thread's shape and a shared one to exercise re-planning.
        const bool own = it % 2 == 0;
        const std::vector<Tensor>& in = own ? inputs[t] : inputs[0];
        const std::vector<Tensor>& expected = own ? want[t] : want[0];
        Status st = s.Run(in, &out);
        if (!st.ok()) {
          errors[t] = st.message();
          break;
        }
        for (size_t k = 0; k < out.size(); ++k) {
          const std::string diff = testing::CompareBits(out[k], expected[k]);
          if (!diff.empty())
            errors[t] = "iteration " + std::to_string(it) + " output " + std::to_string(k) + ": " + diff;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  for (int t = 0; t < kThreads; ++t) ExpectMatchesReference(inputs[t][0], want[t]);
}

TEST(Session, ConcurrentSessionsOnAStaticModel) {
  auto model = CompileJson(QdqModel("16"));
  ASSERT_NE(model, nullptr);
  Tensor x = Input(16, 9);
  std::vector<Tensor> want;
  {
    Session s(model);
    ASSERT_TRUE(s.Run({x}, &want).ok());
    for (Tensor& t : want) t = t.Clone();
  }
  std::vector<std::string> errors(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Session s(model);
      std::vector<Tensor> out;
      for (int it = 0; it < 50; ++it) {
        Status st = s.Run({x}, &out);
        if (!st.ok()) {
          errors[t] = st.message();
          return;
        }
        for (size_t k = 0; k < out.size(); ++k) {
          if (!testing::CompareBits(out[k], want[k]).empty()) {
            errors[t] = "mismatch";
            return;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
}

void ExpectRunError(Session& s, const std::vector<Tensor>& inputs, const std::vector<std::string>& parts) {
  std::vector<Tensor> out;
  Status st = s.Run(inputs, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.message();
  for (const std::string& p : parts) EXPECT_PRED2(Contains, st.message(), p);
}

TEST(Session, WrongInputsGiveClearErrors) {
  auto model = CompileJson(QdqModel("\"N\""));
  ASSERT_NE(model, nullptr);
  Session s(model);
  ExpectRunError(s, {}, {kSource, "1 inputs", "0 given"});
  ExpectRunError(s, {Input(1, 0), Input(1, 0)}, {kSource, "1 inputs", "2 given"});
  ExpectRunError(s, {Tensor::FromVector<int8_t>({1, 2, 3, 4}, {1, 4})}, {kSource, "'x'", "uint8", "int8"});
  ExpectRunError(s, {Tensor::FromVector<uint8_t>({1, 2, 3}, {1, 3})}, {kSource, "'x'", "[N,4]", "[1,3]"});
  ExpectRunError(s, {Tensor::FromVector<uint8_t>({1, 2, 3, 4}, {4})}, {kSource, "'x'", "[N,4]", "[4]"});
  ExpectRunError(s, {Tensor::Borrow(DataType::kUInt8, {1, 4}, nullptr)}, {kSource, "'x'", "no data"});
  // The session still works after errors.
  std::vector<Tensor> out;
  Tensor x = Input(2, 3);
  ASSERT_TRUE(s.Run({x}, &out).ok());
  ExpectMatchesReference(x, out);
}

TEST(Session, RepeatedSymbolMustBindOneSize) {
  const std::string text = R"({"format": "qrt.graph", "version": 1,
    "inputs": [{"name": "sq", "dtype": "float32", "shape": ["N", "N"]}],
    "nodes": [{"op": "Relu", "inputs": ["sq"], "outputs": ["y"]}],
    "outputs": [{"name": "y"}]})";
  auto model = CompileJson(text);
  ASSERT_NE(model, nullptr);
  Session s(model);
  std::vector<Tensor> out;
  ASSERT_TRUE(s.Run({Tensor::FromVector<float>({-1, 1, 2, -2}, {2, 2})}, &out).ok());
  ExpectRunError(s, {Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3})}, {kSource, "'sq'", "'N'"});
}

TEST(Session, ShapeErrorsFoundAtPlanTimeNameTheNode) {
  // [N,4] + [3] cannot broadcast: the error comes when shapes are bound, naming the node.
  const std::string text = R"({"format": "qrt.graph", "version": 1,
    "inputs": [{"name": "x", "dtype": "float32", "shape": ["N", 4]}],
    "initializers": [{"name": "c", "dtype": "float32", "shape": [3], "data": [1, 2, 3]}],
    "nodes": [{"name": "bad_add", "op": "Add", "inputs": ["x", "c"], "outputs": ["y"]}],
    "outputs": [{"name": "y"}]})";
  auto model = CompileJson(text);
  ASSERT_NE(model, nullptr);
  Session s(model);
  std::vector<Tensor> out;
  Status st = s.Run({Tensor::FromVector<float>({1, 2, 3, 4}, {1, 4})}, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_PRED2(Contains, st.message(), kSource);
  EXPECT_PRED2(Contains, st.message(), "'bad_add'");
  EXPECT_PRED2(Contains, st.message(), "Add");

  // With static shapes the same error comes from Compile.
  StatusOr<Graph> g = LoadJsonText(
      R"({"format": "qrt.graph", "version": 1,
          "inputs": [{"name": "x", "dtype": "float32", "shape": [2, 4]}],
          "initializers": [{"name": "c", "dtype": "float32", "shape": [3], "data": [1, 2, 3]}],
          "nodes": [{"name": "bad_add", "op": "Add", "inputs": ["x", "c"], "outputs": ["y"]}],
          "outputs": [{"name": "y"}]})",
      kSource, ".");
  ASSERT_TRUE(g.ok());
  auto m = Compile(std::move(g).value(), CompileOptions());
  ASSERT_FALSE(m.ok());
  EXPECT_PRED2(Contains, m.status().message(), "'bad_add'");
}

}  // namespace
}  // namespace qrt
