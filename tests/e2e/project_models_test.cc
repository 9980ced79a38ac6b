// The CNNs qrt makes in other producers' quantization styles (models/, written by
// tools/make_style_models.py with ONNX Runtime 1.30's outputs of the literal graph): each
// gives ORT's bits with and without the default passes, at every ISA tier this CPU has, with
// one and two threads; and the default passes fuse the style's chains.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "loaders/model_io.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

std::string ModelDir(const std::string& name) { return testing::SourceDir() + "/models/" + name; }

class ProjectModels : public ::testing::TestWithParam<std::string> {};

TEST_P(ProjectModels, GiveOnnxRuntimesBitsAtEveryTier) {
  const std::string dir = ModelDir(GetParam());
  const testing::OrtCpuOfData ort_cpu(dir);
  auto inputs = testing::ReadTestDataSet(dir + "/test_data_set_0", "input");
  auto want = testing::ReadTestDataSet(dir + "/test_data_set_0", "output");
  ASSERT_TRUE(inputs.ok() && want.ok()) << dir;
  for (const char* passes : {"none", "default"}) {
    for (Isa isa : TiersThisCpuHas()) {
      for (int threads : {1, 2}) {
        auto g = LoadModel(dir + "/model.onnx");
        ASSERT_TRUE(g.ok()) << g.status().message();
        std::vector<Tensor> in;
        for (const Tensor& t : *inputs) in.push_back(t.Clone());
        auto got = testing::RunGraph(std::move(g).value(), in, passes, isa, threads);
        ASSERT_TRUE(got.ok()) << got.status().message();
        ASSERT_EQ(got->size(), want->size());
        for (size_t k = 0; k < want->size(); ++k) {
          EXPECT_EQ(testing::CompareBits((*got)[k], (*want)[k]), "")
              << GetParam() << " output " << k << ", passes " << passes << ", " << IsaName(isa) << ", " << threads
              << " threads";
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Styles, ProjectModels,
                         ::testing::Values("vitis_relu6_cnn", "dynamic_convinteger_cnn", "bert_tiny_qdq",
                                           "bert_tiny_dynamic", "bert_tiny_ort_fused", "bert_tiny_qattention",
                                           "decoder_nbits_rope"));

// Vitis AI's Conv -> Clip(0, 6) -> Q -> DQ chains become fused convolutions with a clamp;
// quantize_dynamic's ConvInteger -> Cast -> Mul -> Add chains one integer convolution each.
TEST(ProjectModels, DefaultPassesFuseEachStylesChains) {
  auto vitis = LoadModel(ModelDir("vitis_relu6_cnn") + "/model.onnx");
  ASSERT_TRUE(vitis.ok()) << vitis.status().message();
  const auto [fused, ops] = testing::DefaultPassOutcome(std::move(vitis).value(), "fuse-conv-fake-quant");
  EXPECT_EQ(fused, 4);
  EXPECT_EQ(ops.count("Clip"), 0u);
  EXPECT_EQ(ops.count("Conv"), 0u);
  auto dynamic = LoadModel(ModelDir("dynamic_convinteger_cnn") + "/model.onnx");
  ASSERT_TRUE(dynamic.ok()) << dynamic.status().message();
  const auto [epilogues, dyn_ops] = testing::DefaultPassOutcome(std::move(dynamic).value(), "fuse-integer-epilogue");
  EXPECT_GE(epilogues, 3);
  EXPECT_EQ(dyn_ops.count("Cast"), 0u);
  EXPECT_EQ(dyn_ops.count("ConvInteger"), 0u);
}

}  // namespace
}  // namespace qrt
