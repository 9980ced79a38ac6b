// The exactness audit's cases (tools/audit/): tie-heavy DequantizeLinear -> op ->
// QuantizeLinear models with ONNX Runtime 1.30's literal output (--opt disabled), kept in
// tests/data/audit/<case>/ as ONNX backend tests. qrt must give the same bits with and
// without its passes, at the scalar and the SIMD tiers, without ONNX Runtime installed.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/test_util.h"

namespace qrt {
namespace {

std::string AuditDir() { return testing::SourceDir() + "/tests/data/audit"; }

std::vector<std::string> AuditCases() {
  std::vector<std::string> names;
  for (const std::string& name : testing::ListDir(AuditDir())) {
    if (testing::FileExists(AuditDir() + "/" + name + "/model.onnx")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

class AuditCase : public ::testing::TestWithParam<std::string> {};

TEST_P(AuditCase, EqualsOnnxRuntimeLiteralOutput) {
  const std::string dir = AuditDir() + "/" + GetParam();
  const testing::OrtCpuOfData ort_cpu(dir);
  auto inputs = testing::ReadTestDataSet(dir + "/test_data_set_0", "input");
  auto expected = testing::ReadTestDataSet(dir + "/test_data_set_0", "output");
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  ASSERT_EQ(expected->size(), 1u);
  for (const char* passes : {"none", "default"}) {
    for (Isa isa : TiersThisCpuHas()) {
      auto got = testing::RunModelFile(dir + "/model.onnx", *inputs, passes, isa);
      ASSERT_TRUE(got.ok()) << got.status().message();
      ASSERT_EQ(got->size(), 1u);
      EXPECT_EQ(testing::CompareBits((*got)[0], (*expected)[0]), "")
          << GetParam() << " passes " << passes << " isa " << IsaName(isa);
    }
  }
}

TEST(Audit, DataIsPresent) { EXPECT_GE(AuditCases().size(), 200u) << "tests/data/audit lost its cases"; }

INSTANTIATE_TEST_SUITE_P(Cases, AuditCase, ::testing::ValuesIn(AuditCases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace qrt
