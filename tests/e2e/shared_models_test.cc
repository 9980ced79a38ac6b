// The small third-party models in ../shared/models whose origin provides reference
// outputs: qrt must reproduce them exactly. Skips cleanly when ../shared is absent.
#include <gtest/gtest.h>

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
  for (const char* passes : {"none", "default"}) {
    for (Isa isa : {Isa::kScalar, Isa::kAvx2}) {
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
                         ::testing::Values("onnx2c_qlinearmul_int8", "onnx2c_qlinearadd_uint8"));

}  // namespace
}  // namespace qrt
