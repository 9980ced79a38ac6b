// --threads: two intra-op threads (oneDNN's convolutions and matmuls, qrt's split
// element-wise runs) give exactly the outputs of one, on the bundled model and on the
// real CNNs in ../shared/models (skipped when absent).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "qrt/qrt.hpp"
#include "tests/test_util.h"

namespace {

namespace api = qrt::api;

// Runs `model_path` on `input_path` with `threads` threads; returns each output's bytes.
std::vector<std::string> RunWithThreads(const std::string& model_path, const std::string& input_path, int threads) {
  api::Options options;
  options.threads = threads;
  api::Model model = api::Model::Load(model_path, options).value();
  api::Tensor input = api::Tensor::Read(input_path).value();
  api::Context ctx = api::Context::Create(model).value();
  ctx.BindInput(0, input.view()).ThrowIfError();
  ctx.Run().ThrowIfError();
  std::vector<std::string> outs;
  for (size_t k = 0; k < model.graph().outputs().size(); ++k) {
    const api::TensorView t = ctx.Output(k).value();
    outs.emplace_back(static_cast<const char*>(t.raw()), t.size_bytes());
  }
  return outs;
}

class Threads : public ::testing::TestWithParam<std::string> {};

TEST_P(Threads, TwoThreadsGiveTheBitsOfOne) {
  std::string model, input;
  if (GetParam() == "bundled") {
    const std::string dir = qrt::testing::SourceDir() + "/models/qdq_mul_add";
    model = dir + "/model.onnx";
    input = dir + "/test_data_set_0/input_0.pb";
  } else {
    const std::string shared = qrt::testing::SharedModelsDir();
    model = shared + "/" + GetParam() + ".onnx";
    input = shared + "/" + GetParam() + "/ort130_ref_0/input_0.pb";
    if (!qrt::testing::FileExists(model) || !qrt::testing::FileExists(input)) {
      GTEST_SKIP() << GetParam() << " is not in ../shared/models";
    }
  }
  const std::vector<std::string> one = RunWithThreads(model, input, 1);
  const std::vector<std::string> two = RunWithThreads(model, input, 2);
  ASSERT_EQ(one.size(), two.size());
  for (size_t k = 0; k < one.size(); ++k) EXPECT_TRUE(one[k] == two[k]) << "output " << k;
}

INSTANTIATE_TEST_SUITE_P(Models, Threads,
                         ::testing::Values("bundled", "qdq_mobilenetv2_224", "qdq_yolov8n_224",
                                           "qdq_mobilefacenet_randcal"));

}  // namespace
