// The small third-party models in ../shared/models (every one but the deep CNNs, which
// deep_cnn_accuracy_test.cc covers). Issue 5: where the origin provides test_data_set_0, qrt
// reproduces it (integers exactly, floats within 1e-5 relative); against ONNX Runtime 1.30's
// literal output `ort130_noopt_ref_0`, `--passes none` is within float rounding (1e-5 relative)
// and `--passes default` within one step of the output quantizer (within float rounding where
// an output has no quantizer). Skips cleanly when ../shared is absent.
#include <gtest/gtest.h>

#include <cstdio>

#include "loaders/model_io.h"
#include "tests/e2e/e2e_util.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

class SharedModelTest : public ::testing::TestWithParam<const char*> {};

TEST_P(SharedModelTest, MatchesOriginReference) {
  const std::string base = testing::SharedModelsDir() + "/" + GetParam();
  if (!testing::FileExists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is not present";
  auto inputs = testing::ReadTestDataSet(base + "/test_data_set_0", "input");
  auto expected = testing::ReadTestDataSet(base + "/test_data_set_0", "output");
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  ASSERT_FALSE(expected->empty());
  for (const char* passes : {"none", "default"}) {
    for (Isa isa : TiersThisCpuHas()) {
      auto got = testing::RunModelFile(base + ".onnx", *inputs, passes, isa);
      ASSERT_TRUE(got.ok()) << got.status().message();
      ASSERT_EQ(got->size(), expected->size());
      for (size_t k = 0; k < got->size(); ++k) {
        EXPECT_EQ(testing::CompareTensors((*got)[k], (*expected)[k], 1e-5, 0), "")
            << GetParam() << " output " << k << " passes " << passes << " isa " << IsaName(isa);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, SharedModelTest,
                         ::testing::Values("onnx2c_qlinearmul_int8", "onnx2c_qlinearadd_uint8", "onnxnode_qlinearconv",
                                           "onnxnode_convinteger_with_padding", "tract_qtdnn_qlinearconv",
                                           "tract_qlstm_scan"));

class SharedModelOrtReference : public ::testing::TestWithParam<const char*> {};

TEST_P(SharedModelOrtReference, MatchesOrtLiteralOutput) {
  const std::string name = GetParam();
  const std::string base = testing::SharedModelsDir() + "/" + name;
  if (!testing::FileExists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is not present";
  auto graph = LoadModel(base + ".onnx");
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  auto inputs = testing::ReadTestDataSet(base + "/ort130_noopt_ref_0", "input");
  auto ort_inputs = testing::ReadTestDataSet(base + "/ort130_ref_0", "input");
  auto ref = testing::ReadTestDataSet(base + "/ort130_noopt_ref_0", "output");
  ASSERT_TRUE(inputs.ok() && ort_inputs.ok() && ref.ok());
  ASSERT_EQ(inputs->size(), graph->inputs.size());
  ASSERT_EQ(ort_inputs->size(), inputs->size());
  for (size_t k = 0; k < inputs->size(); ++k) {
    ASSERT_EQ(testing::CompareBits((*ort_inputs)[k], (*inputs)[k]), "") << "input " << k;
  }
  ASSERT_EQ(ref->size(), graph->outputs.size());

  for (Isa isa : TiersThisCpuHas()) {
    auto none = testing::RunGraph(*graph, *inputs, "none", isa);
    ASSERT_TRUE(none.ok()) << none.status().message();
    auto dflt = testing::RunGraph(*graph, *inputs, "default", isa);
    ASSERT_TRUE(dflt.ok()) << dflt.status().message();
    ASSERT_EQ(none->size(), ref->size());
    ASSERT_EQ(dflt->size(), ref->size());
    for (size_t k = 0; k < ref->size(); ++k) {
      const std::string what = name + " output " + std::to_string(k) + " isa " + std::string(IsaName(isa));
      EXPECT_EQ(testing::CompareTensors((*none)[k], (*ref)[k], 1e-5, 0), "") << what << " --passes none";
      const testing::OutputStep step = testing::FindOutputStep(*graph, k);
      if (step.step.empty()) {
        EXPECT_EQ(testing::CompareTensors((*dflt)[k], (*ref)[k], 1e-5, 0), "") << what << " --passes default";
        continue;
      }
      ASSERT_EQ(testing::CompareTensors((*dflt)[k], (*ref)[k], 0, 1e30), "") << what;  // dtype and dims
      const testing::StepError e = testing::ErrorInSteps((*dflt)[k], (*ref)[k], step);
      std::printf("[small] %-28s output %zu isa %-6s --passes default: mean %.4f max %.4f steps (%s)\n", name.c_str(),
                  k, std::string(IsaName(isa)).c_str(), e.mean, e.max, step.how.c_str());
      EXPECT_LE(e.max, 1.0 + 1e-6) << what << " --passes default: more than one output quantization step";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, SharedModelOrtReference,
                         ::testing::Values("ort_qdq_layernorm_reshape", "ort_qdq_silu_per_axis",
                                           "ort_dynquant_matmulinteger", "yolox_nano_416_convinteger_dyn_opset11"));

// Models whose shared reference was made on a CPU without VNNI, where ONNX Runtime's u8 x s8
// kernels saturate byte-pair sums at int16 (tests/data/ort_vnni_refs/README.md): qrt matches,
// bit for bit, ONNX Runtime's exact output on a VNNI CPU, kept in tests/data/ort_vnni_refs,
// under both pass settings and at both tiers.
class SharedModelOrtVnniReference : public ::testing::TestWithParam<const char*> {};

TEST_P(SharedModelOrtVnniReference, MatchesOrtExactIntegerOutput) {
  const std::string name = GetParam();
  const std::string base = testing::SharedModelsDir() + "/" + name;
  if (!testing::FileExists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is not present";
  auto inputs = testing::ReadTestDataSet(base + "/ort130_noopt_ref_0", "input");
  auto ref = testing::ReadTestDataSet(testing::SourceDir() + "/tests/data/ort_vnni_refs/" + name, "output");
  ASSERT_TRUE(inputs.ok() && ref.ok());
  for (const char* passes : {"none", "default"}) {
    for (Isa isa : TiersThisCpuHas()) {
      auto got = testing::RunModelFile(base + ".onnx", *inputs, passes, isa);
      ASSERT_TRUE(got.ok()) << got.status().message();
      ASSERT_EQ(got->size(), ref->size());
      for (size_t k = 0; k < ref->size(); ++k) {
        EXPECT_EQ(testing::CompareBits((*got)[k], (*ref)[k]), "")
            << name << " output " << k << " passes " << passes << " isa " << IsaName(isa);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, SharedModelOrtVnniReference,
                         ::testing::Values("tinycnn_cifar10_qlinear_qgemm", "mnist_tiny_transformer_dyn_int8"));

}  // namespace
}  // namespace qrt
