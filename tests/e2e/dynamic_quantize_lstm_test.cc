// com.microsoft DynamicQuantizeLSTM against ONNX Runtime 1.30's outputs (every output, bit for
// bit), kept in tests/data/ort_dynamic_lstm/<case>/ by tools/audit/dynamic_lstm_cases.py: both
// directions, uint8 and int8 weights per tensor and per column, bias, peepholes, initial states,
// sequence lengths with empty and finished rows, clip, input_forget, every activation, Y absent,
// inputs on the quantizer's rounding ties; with and without the passes, at every tier.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/test_util.h"

namespace qrt {
namespace {

std::string CasesDir() { return testing::SourceDir() + "/tests/data/ort_dynamic_lstm"; }

std::vector<std::string> Cases() {
  std::vector<std::string> names;
  for (const std::string& name : testing::ListDir(CasesDir())) {
    if (testing::FileExists(CasesDir() + "/" + name + "/model.onnx")) names.push_back(name);
  }
  return names;
}

class DynamicQuantizeLstmCase : public ::testing::TestWithParam<std::string> {};

TEST_P(DynamicQuantizeLstmCase, EqualsOnnxRuntime) {
  const std::string dir = CasesDir() + "/" + GetParam();
  const testing::OrtCpuOfData ort_cpu(dir);
  auto inputs = testing::ReadTestDataSet(dir + "/test_data_set_0", "input");
  auto expected = testing::ReadTestDataSet(dir + "/test_data_set_0", "output");
  ASSERT_TRUE(inputs.ok() && expected.ok()) << dir;
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

INSTANTIATE_TEST_SUITE_P(OrtCases, DynamicQuantizeLstmCase, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(DynamicQuantizeLstm, DataIsPresent) {
  EXPECT_GE(Cases().size(), 30u) << "tests/data/ort_dynamic_lstm lost its cases";
}

}  // namespace
}  // namespace qrt
