// Ops against ONNX Runtime 1.30's outputs (every output, bit for bit), kept as ONNX backend tests
// under tests/data/<folder>/<case>/ by the generators in tools/audit:
//   ort_dynamic_lstm   com.microsoft DynamicQuantizeLSTM (dynamic_lstm_cases.py): both
//                      directions, uint8 and int8 weights per tensor and per column, bias,
//                      peepholes, initial states, sequence lengths with empty and finished rows,
//                      clip, input_forget, every activation, Y absent, inputs on the quantizer's ties
//   ort_mha_decoding   com.microsoft MultiHeadAttention's beam-search decoding step
//                      (mha_decoding_cases.py): beams, cache indirection, key masks, attention
//                      bias broadcasts, scales, the qk output, head sizes 1 to 128
// With and without the passes, at every tier; each case's ort_cpu says whose kernels ORT ran.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_util.h"

namespace qrt {
namespace {

const char* const kFolders[] = {"ort_dynamic_lstm", "ort_mha_decoding"};

std::string DataDir() { return testing::SourceDir() + "/tests/data"; }

// "<folder>/<case>" for every case.
std::vector<std::string> Cases(const std::string& folder = "") {
  std::vector<std::string> names;
  for (const char* f : kFolders) {
    if (!folder.empty() && folder != f) continue;
    for (const std::string& name : testing::ListDir(DataDir() + "/" + f)) {
      if (testing::FileExists(DataDir() + "/" + f + "/" + name + "/model.onnx")) names.push_back(f + ("/" + name));
    }
  }
  return names;
}

class OrtOpCase : public ::testing::TestWithParam<std::string> {};

TEST_P(OrtOpCase, EqualsOnnxRuntime) {
  const std::string dir = DataDir() + "/" + GetParam();
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

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) c = c == '/' ? '_' : c;
  return name;
}

INSTANTIATE_TEST_SUITE_P(Data, OrtOpCase, ::testing::ValuesIn(Cases()), CaseName);

TEST(OrtOpCases, DataIsPresent) {
  EXPECT_GE(Cases("ort_dynamic_lstm").size(), 30u) << "tests/data/ort_dynamic_lstm lost its cases";
  EXPECT_GE(Cases("ort_mha_decoding").size(), 25u) << "tests/data/ort_mha_decoding lost its cases";
}

}  // namespace
}  // namespace qrt
