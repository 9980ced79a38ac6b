// The float-order audit's cases (tools/audit/float_orders.py): single float32 ops on inputs
// spread over many magnitudes, with ONNX Runtime 1.30's output (--opt disabled), kept in
// tests/data/float_orders/<case>/. qrt must give the same bits at every tier, with and
// without its passes, without ONNX Runtime installed.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/test_util.h"

namespace qrt {
namespace {

std::string CasesDir() { return testing::SourceDir() + "/tests/data/float_orders"; }

std::vector<std::string> Cases() {
  std::vector<std::string> names;
  for (const std::string& name : testing::ListDir(CasesDir())) {
    if (testing::FileExists(CasesDir() + "/" + name + "/model.onnx")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

class FloatOrderCase : public ::testing::TestWithParam<std::string> {};

TEST_P(FloatOrderCase, EqualsOnnxRuntimeBits) {
  const std::string dir = CasesDir() + "/" + GetParam();
  auto inputs = testing::ReadTestDataSet(dir + "/test_data_set_0", "input");
  auto expected = testing::ReadTestDataSet(dir + "/test_data_set_0", "output");
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  for (const char* passes : {"none", "default"}) {
    for (Isa isa : TiersThisCpuHas()) {
      auto got = testing::RunModelFile(dir + "/model.onnx", *inputs, passes, isa);
      ASSERT_TRUE(got.ok()) << got.status().message();
      ASSERT_EQ(got->size(), expected->size());
      for (size_t k = 0; k < got->size(); ++k) {
        EXPECT_EQ(testing::CompareBits((*got)[k], (*expected)[k]), "")
            << GetParam() << " output " << k << " passes " << passes << " isa " << IsaName(isa);
      }
    }
  }
}

TEST(FloatOrders, DataIsPresent) { EXPECT_GE(Cases().size(), 90u) << "tests/data/float_orders lost its cases"; }

INSTANTIATE_TEST_SUITE_P(Cases, FloatOrderCase, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace qrt
