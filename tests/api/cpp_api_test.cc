// The header-only C++ wrapper: RAII, Result/Status, exceptions, spans, and one
// compiled model shared by contexts running on several threads.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "qrt/qrt.hpp"
#include "tests/test_util.h"

// Defined in no_exceptions_smoke.cc, compiled with -fno-exceptions.
int qrt_cpp_no_exceptions_smoke(const char* model_path, const char* input_path, const char* output_path);

namespace {

namespace api = qrt::api;

std::string ModelDir() { return qrt::testing::SourceDir() + "/models/qdq_mul_add"; }

TEST(CppApi, LoadRunAndReadOutputs) {
  api::Model model = api::Model::Load(ModelDir() + "/model.onnx").value();
  api::Tensor input = api::Tensor::Read(ModelDir() + "/test_data_set_0/input_0.pb").value();
  api::Tensor expected = api::Tensor::Read(ModelDir() + "/test_data_set_0/output_0.pb").value();

  const std::vector<api::ValueInfo> ins = model.graph().inputs();
  ASSERT_EQ(ins.size(), 1u);
  EXPECT_EQ(ins[0].name, "x");
  EXPECT_EQ(ins[0].dtype, QRT_UINT8);
  EXPECT_EQ(ins[0].shape, (std::vector<int64_t>{1, 8, 4, 4}));

  api::Context ctx = api::Context::Create(model).value();
  // Typed binding from a plain pointer and a shape.
  const api::Span<const uint8_t> x = input.view().data<uint8_t>();
  ASSERT_EQ(x.size(), 128u);
  ctx.BindInput(0, x.data(), {1, 8, 4, 4}).ThrowIfError();
  ctx.Run().ThrowIfError();
  const api::TensorView y = ctx.Output(0).value();
  const api::Span<const float> got = y.data<float>(), want = expected.view().data<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(std::memcmp(&got[i], &want[i], 4), 0) << i;
  EXPECT_TRUE(y.data<uint8_t>().empty());  // wrong element type: an empty span, not a reinterpretation
}

TEST(CppApi, ErrorsAsResultsAndAsExceptions) {
  api::Result<api::Model> missing = api::Model::Load("/nowhere/m.onnx");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), QRT_NOT_FOUND);
  EXPECT_TRUE(qrt::testing::Contains(missing.status().message(), "/nowhere/m.onnx"));
  try {
    api::Model::Load("/nowhere/m.onnx").value();
    FAIL() << "value() of an error must throw";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.code(), QRT_NOT_FOUND);
    EXPECT_TRUE(qrt::testing::Contains(e.what(), "/nowhere/m.onnx"));
  }
  api::Result<api::Model> bad_isa = api::Model::Load(ModelDir() + "/model.onnx", {"default", "mmx", 1, 0});
  EXPECT_EQ(bad_isa.status().code(), QRT_INVALID_ARGUMENT);
  api::Context empty;  // default-constructed: every call fails cleanly
  EXPECT_EQ(empty.Run().code(), QRT_INVALID_ARGUMENT);
}

TEST(CppApi, ModelsAreSharedAndGraphsLoadFromMemory) {
  api::Graph g = api::Graph::Load(ModelDir() + "/model.onnx").value();
  EXPECT_EQ(g.nodes().size(), 9u);
  api::Model a = api::Model::Compile(g, {"none", "scalar", 1, 0}).value();
  api::Model b = a;  // copies share one compiled model
  EXPECT_EQ(b.graph().nodes().size(), 9u);
  EXPECT_EQ(b.isa(), "scalar");
  EXPECT_EQ(a.graph().input_index("x").value(), 0u);
  EXPECT_FALSE(a.graph().output_index("nope").ok());
}

// Many contexts of one compiled model on several threads at once give exactly the
// outputs one thread gives.
TEST(CppApi, OneModelManyThreads) {
  api::Model model = api::Model::Load(ModelDir() + "/model.onnx").value();
  constexpr int kThreads = 4, kRuns = 40;
  std::mt19937 rng(7);
  std::vector<std::vector<uint8_t>> inputs(kRuns, std::vector<uint8_t>(128));
  for (auto& in : inputs) {
    for (uint8_t& v : in) v = uint8_t(rng());
  }
  const std::vector<int64_t> shape{1, 8, 4, 4};
  auto run_all = [&](std::vector<std::vector<float>>* outs, int first) {
    api::Context ctx = api::Context::Create(model).value();
    for (int r = 0; r < kRuns; ++r) {
      const int k = (first + r) % kRuns;
      if (!ctx.BindInput(0, inputs[k].data(), shape).ok() || !ctx.Run().ok()) return;
      const api::Span<const float> y = ctx.Output(0).value().data<float>();
      (*outs)[k].assign(y.begin(), y.end());
    }
  };
  std::vector<std::vector<float>> reference(kRuns);
  run_all(&reference, 0);
  std::vector<std::vector<std::vector<float>>> results(kThreads, std::vector<std::vector<float>>(kRuns));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(run_all, &results[t], t * 7);
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int k = 0; k < kRuns; ++k) {
      ASSERT_EQ(results[t][k].size(), 128u) << "thread " << t << " run " << k;
      EXPECT_EQ(std::memcmp(results[t][k].data(), reference[k].data(), 128 * 4), 0) << "thread " << t << " run " << k;
    }
  }
}

extern "C" int qrt_c99_smoke(const char* model_path, const char* input_path, const char* output_path);
// qrt.hpp compiled with -fno-exceptions (tests/api/no_exceptions_smoke.cc).
TEST(CppApiWithoutExceptions, RunsTheBundledModel) {
  EXPECT_EQ(qrt_cpp_no_exceptions_smoke((ModelDir() + "/model.onnx").c_str(),
                                        (ModelDir() + "/test_data_set_0/input_0.pb").c_str(),
                                        (ModelDir() + "/test_data_set_0/output_0.pb").c_str()),
            0);
}

// The C API compiles as C99 (tests/api/c99_smoke.c) and works from C.
TEST(CApiFromC, RunsTheBundledModel) {
  EXPECT_EQ(qrt_c99_smoke((ModelDir() + "/model.onnx").c_str(), (ModelDir() + "/test_data_set_0/input_0.pb").c_str(),
                          (ModelDir() + "/test_data_set_0/output_0.pb").c_str()),
            0);
}

}  // namespace
