// The four reference quantization ops as graph nodes: loaded from JSON and from ONNX
// (custom domains), run through the executor and through the `qrt` CLI, checked against
// values worked out by hand from op-semantics.md.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "loaders/json_loader.h"
#include "loaders/model_io.h"
#include "loaders/npy.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

// x (f32 [4]) -> FakeQuantize(levels 5, [0,8] -> [0,8]) -> fq
//             -> QuantizeV2(qint8, SCALED, [-2,5]) -> qv2, qmin, qmax
// q (i32 [2]) -> UniformDequantize(scale 0.5, zp 3) -> ud
// a, b (u8 [1]) -> QuantizedMul reciprocal / divide (0.5, 0.25, 0.03) -> mr, md
const char* kGraph = R"({
 "format": "qrt.graph", "version": 1,
 "inputs": [{"name": "x", "dtype": "float32", "shape": [4]},
            {"name": "q", "dtype": "qint32", "shape": [2]},
            {"name": "a", "dtype": "quint8", "shape": [1]},
            {"name": "b", "dtype": "uint8", "shape": [1]}],
 "outputs": [{"name": "fq"}, {"name": "qv2"}, {"name": "qmin"}, {"name": "qmax"}, {"name": "ud"},
             {"name": "mr"}, {"name": "md"}],
 "initializers": [
  {"name": "lo", "dtype": "float32", "shape": [], "data": [0]},
  {"name": "hi", "dtype": "float32", "shape": [], "data": [8]},
  {"name": "mn", "dtype": "float32", "shape": [], "data": [-2]},
  {"name": "mx", "dtype": "float32", "shape": [], "data": [5]},
  {"name": "us", "dtype": "float32", "shape": [], "data": [0.5]},
  {"name": "uz", "dtype": "int32", "shape": [], "data": [3]},
  {"name": "sa", "dtype": "float32", "shape": [], "data": [0.5]},
  {"name": "sb", "dtype": "float32", "shape": [], "data": [0.25]},
  {"name": "sc", "dtype": "float32", "shape": [], "data": [0.03]},
  {"name": "z", "dtype": "uint8", "shape": [], "data": [0]}
 ],
 "nodes": [
  {"name": "fq", "op": "FakeQuantize", "domain": "org.openvinotoolkit", "inputs": ["x", "lo", "hi", "lo", "hi"],
   "outputs": ["fq"], "attrs": {"levels": 5}},
  {"name": "qv2", "op": "QuantizeV2", "inputs": ["x", "mn", "mx"], "outputs": ["qv2", "qmin", "qmax"],
   "attrs": {"T": "qint8", "mode": "SCALED"}},
  {"name": "ud", "op": "UniformDequantize", "domain": "qrt", "inputs": ["q", "us", "uz"], "outputs": ["ud"],
   "attrs": {"quantization_min_val": -2147483648, "quantization_max_val": 2147483647}},
  {"name": "mr", "op": "QuantizedMul", "inputs": ["a", "sa", "z", "b", "sb", "z", "sc", "z"], "outputs": ["mr"]},
  {"name": "md", "op": "QuantizedMul", "inputs": ["a", "sa", "z", "b", "sb", "z", "sc", "z"], "outputs": ["md"],
   "attrs": {"requantize": "divide"}}
 ]})";

std::vector<Tensor> Inputs() {
  return {Tensor::FromVector<float>({1.f, 3.f, -2.f, -5.5f}, {4}),
          Tensor::FromVector<int32_t>({20000001, 16777222}, {2}), Tensor::FromVector<uint8_t>({1}, {1}),
          Tensor::FromVector<uint8_t>({3}, {1})};
}

void CheckOutputs(const std::vector<Tensor>& out) {
  ASSERT_EQ(out.size(), 7u);
  // FakeQuantize levels=5 over [0,8]: index 0.5 rounds to 0 (ties to even), 1.5 to 2.
  EXPECT_EQ(out[0].data<float>()[0], 0.f);
  EXPECT_EQ(out[0].data<float>()[1], 4.f);
  EXPECT_EQ(out[0].data<float>()[2], 0.f);  // below the range
  // QuantizeV2 SCALED qint8 over [-2,5]: s = min(64, 25.4) = 25.4.
  EXPECT_EQ(out[1].dtype(), DataType::kInt8);
  EXPECT_EQ(out[1].data<int8_t>()[2], -51);
  EXPECT_EQ(out[1].data<int8_t>()[3], -128);
  EXPECT_FLOAT_EQ(out[2].data<float>()[0], -128.f / 25.4f);
  EXPECT_EQ(out[3].data<float>()[0], 5.f);
  EXPECT_TRUE(out[2].dims().empty());
  // UniformDequantize: the int32 difference is exact, then one f32 multiply.
  EXPECT_EQ(out[4].data<float>()[0], 9999999.0f);
  EXPECT_EQ(out[4].data<float>()[1], float(16777219) * 0.5f);
  // QuantizedMul on p = 0.375: Simd's reciprocal rule gives 13, ONNX's division 12.
  EXPECT_EQ(out[5].data<uint8_t>()[0], 13);
  EXPECT_EQ(out[6].data<uint8_t>()[0], 12);
}

TEST(QuantizationOps, RunFromJson) {
  for (Isa isa : TiersThisCpuHas()) {
    auto g = LoadJsonText(kGraph, "ops.json", ".");
    ASSERT_TRUE(g.ok()) << g.status().message();
    auto out = testing::RunGraph(std::move(g).value(), Inputs(), "default", isa);
    ASSERT_TRUE(out.ok()) << out.status().message();
    CheckOutputs(*out);
  }
}

TEST(QuantizationOps, RunFromOnnxCustomDomainsThroughTheCli) {
  auto g = LoadJsonText(kGraph, "ops.json", ".");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const std::string dir = ::testing::TempDir() + "/qrt_quant_ops";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(SaveModel(*g, dir + "/ops.onnx").ok());
  ASSERT_TRUE(SaveModel(*g, dir + "/ops.json").ok());
  const char* names[] = {"x", "q", "a", "b"};
  std::vector<Tensor> in = Inputs();
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(WriteNpy(dir + "/" + names[i] + ".npy", in[size_t(i)]).ok());
  for (const char* model : {"ops.onnx", "ops.json"}) {
    const std::string out_dir = dir + "/out_" + model;
    auto r = testing::RunCommand(testing::CliPath() + " run " + dir + "/" + model + " --inputs " + dir +
                                 " --output-dir " + out_dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<Tensor> out;
    for (const char* o : {"fq", "qv2", "qmin", "qmax", "ud", "mr", "md"}) {
      auto t = ReadNpy(out_dir + "/" + o + ".npy");
      ASSERT_TRUE(t.ok()) << t.status().message();
      out.push_back(std::move(t).value());
    }
    CheckOutputs(out);
  }
}

TEST(QuantizationOps, ValidationErrorsNameTheNode) {
  std::string bad = kGraph;
  bad.replace(bad.find("\"levels\": 5"), 11, "\"levels\": 1");
  auto g = LoadJsonText(bad, "bad.json", ".");
  ASSERT_TRUE(g.ok());
  auto out = testing::RunGraph(std::move(g).value(), Inputs());
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("bad.json: node 'fq'"), std::string::npos) << out.status().message();
  EXPECT_NE(out.status().message().find("levels"), std::string::npos) << out.status().message();
}

}  // namespace
}  // namespace qrt
