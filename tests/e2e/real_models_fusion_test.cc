// The fusion passes on the real QDQ models in ../shared/models (see its MANIFEST): the
// number of rewrites each pass makes, and outputs bit-identical with and without passes
// on the reference inputs. Skips when ../shared/models is absent.
#include <gtest/gtest.h>

#include <map>

#include "loaders/model_io.h"
#include "passes/pass_manager.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct RealModel {
  const char* name;
  int mul, add, unary;  // expected fuse-dq-mul-q, fuse-dq-add-q, fuse-qdq-unary rewrites
};

// Mul/Add counts are the MANIFEST's DQ->Mul->Q / DQ->Add->Q chains; every one fuses.
// YOLOv8n's 58 SiLUs become LookupTable(sigmoid) + QuantizedMul; its head's DQ -> Div(constant)
// -> Q is the 59th table. The QOperator MobileFaceNet's 33 DQ -> PRelu(slope per channel) -> Q
// become per-channel tables.
const RealModel kModels[] = {
    {"qdq_yolov8n_224", 58, 8, 59},         {"qdq_mobilenetv2_224", 0, 10, 0},  {"qdq_mobilefacenet_randcal", 0, 12, 0},
    {"ort_qdq_layernorm_reshape", 1, 5, 0}, {"ort_qdq_silu_per_axis", 1, 0, 1}, {"qop_mobilefacenet_faces", 0, 0, 33},
};

class RealModelFusion : public ::testing::TestWithParam<RealModel> {};

TEST_P(RealModelFusion, FusesEveryChainAndKeepsEveryBit) {
  const RealModel& m = GetParam();
  const std::string base = testing::SharedModelsDir() + "/" + m.name;
  if (!testing::FileExists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is not present";
  auto graph = LoadModel(base + ".onnx");
  ASSERT_TRUE(graph.ok()) << graph.status().message();

  Graph fused = *graph;
  PassStats stats;
  ASSERT_TRUE(RunPasses(fused, "default", true, &stats).ok());
  std::map<std::string, int> counts(stats.begin(), stats.end());
  EXPECT_EQ(counts["fuse-dq-mul-q"], m.mul);
  EXPECT_EQ(counts["fuse-dq-add-q"], m.add);
  EXPECT_EQ(counts["fuse-qdq-unary"], m.unary);

  auto inputs = testing::ReadTestDataSet(base + "/ort130_noopt_ref_0", "input");
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  auto unfused_out = testing::RunGraph(*graph, *inputs, "none");
  ASSERT_TRUE(unfused_out.ok()) << unfused_out.status().message();
  auto fused_out = testing::RunGraph(*graph, *inputs, "default");
  ASSERT_TRUE(fused_out.ok()) << fused_out.status().message();
  ASSERT_EQ(fused_out->size(), unfused_out->size());
  for (size_t k = 0; k < fused_out->size(); ++k) {
    EXPECT_EQ(testing::CompareBits((*fused_out)[k], (*unfused_out)[k]), "") << m.name << " output " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, RealModelFusion, ::testing::ValuesIn(kModels),
                         [](const ::testing::TestParamInfo<RealModel>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace qrt
