// ONNX <-> JSON round trips (issue 2: "every form of the same model gives identical
// outputs"). Each model runs as loaded, after ONNX -> JSON -> load, and after
// ONNX -> JSON -> ONNX -> load; the outputs must be bit-identical.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "loaders/json_loader.h"
#include "loaders/model_io.h"
#include "loaders/onnx_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

const std::string kNodeTestDir = "/usr/share/libonnx-testdata/data/node";

StatusOr<Graph> ViaJson(const Graph& g, const Plan* plan) {
  QRT_ASSIGN_OR_RETURN(std::string text, GraphToJson(g, plan));
  return LoadJsonText(text, "round_trip.json", ".");
}

StatusOr<Graph> ViaOnnx(const Graph& g, const Plan* plan) {
  QRT_ASSIGN_OR_RETURN(std::string bytes, GraphToOnnx(g, plan));
  return LoadOnnxBuffer(bytes.data(), bytes.size(), "round_trip.onnx", ".");
}

// Runs `original` and each converted form on `inputs`; every output must match bit for bit.
void ExpectRoundTripsBitExact(const Graph& original, const std::vector<Tensor>& inputs,
                              const std::string& passes = "default") {
  StatusOr<std::vector<Tensor>> want = testing::RunGraph(original, inputs, passes);
  ASSERT_TRUE(want.ok()) << want.status().message();

  // Conversions as `qrt convert` makes them: from the compiled graph with its plan.
  CompileOptions none;
  none.passes = "none";
  auto compiled = Compile(original, none);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  const Plan* plan = (*compiled)->default_plan().get();

  struct Form {
    const char* name;
    StatusOr<Graph> graph;
  };
  StatusOr<Graph> json = ViaJson(original, nullptr);
  ASSERT_TRUE(json.ok()) << json.status().message();
  std::vector<Form> forms;
  forms.push_back({"onnx->json", ViaJson(original, nullptr)});
  forms.push_back({"onnx->json (with plan)", ViaJson((*compiled)->graph(), plan)});
  forms.push_back({"onnx->json->onnx", ViaOnnx(*json, nullptr)});
  forms.push_back({"onnx->onnx (with plan)", ViaOnnx((*compiled)->graph(), plan)});
  for (Form& f : forms) {
    SCOPED_TRACE(f.name);
    ASSERT_TRUE(f.graph.ok()) << f.graph.status().message();
    EXPECT_EQ(f.graph->inputs.size(), original.inputs.size());
    EXPECT_EQ(f.graph->num_live_nodes(), original.num_live_nodes());
    StatusOr<std::vector<Tensor>> got = testing::RunGraph(std::move(f.graph).value(), inputs, passes);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->size(), want->size());
    for (size_t k = 0; k < want->size(); ++k) {
      EXPECT_EQ(testing::CompareBits((*got)[k], (*want)[k]), "") << "output " << k;
    }
  }
}

class NodeTestRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(NodeTestRoundTrip, OutputsAreBitIdentical) {
  const std::string dir = kNodeTestDir + "/" + GetParam();
  if (!testing::DirExists(dir)) GTEST_SKIP() << dir << " is not installed";
  StatusOr<Graph> g = LoadOnnxFile(dir + "/model.onnx");
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto inputs = testing::ReadTestDataSet(dir + "/test_data_set_0", "input");
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  // The original must itself be right, or bit-identity proves little.
  auto expected = testing::ReadTestDataSet(dir + "/test_data_set_0", "output");
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  auto got = testing::RunGraph(*g, *inputs);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->size(), expected->size());
  for (size_t k = 0; k < got->size(); ++k) {
    EXPECT_EQ(testing::CompareTensors((*got)[k], (*expected)[k], 1e-3, 1e-7), "") << "output " << k;
  }
  ExpectRoundTripsBitExact(*g, *inputs);
}

INSTANTIATE_TEST_SUITE_P(OnnxNodeTests, NodeTestRoundTrip,
                         ::testing::Values("test_add_bcast", "test_mul_uint8", "test_sub_bcast", "test_div",
                                           "test_quantizelinear", "test_quantizelinear_axis", "test_dequantizelinear",
                                           "test_dequantizelinear_axis", "test_reshape_negative_dim",
                                           "test_reshape_zero_and_negative_dim", "test_reshape_allowzero_reordered",
                                           "test_cast_FLOAT_to_FLOAT16", "test_cast_FLOAT16_to_FLOAT", "test_sigmoid",
                                           "test_relu", "test_identity", "test_leakyrelu", "test_leakyrelu_default",
                                           "test_div_uint8"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST(RoundTrip, QdqMulAddModel) {
  const std::string dir = testing::SourceDir() + "/models/qdq_mul_add";
  StatusOr<Graph> g = LoadOnnxFile(dir + "/model.onnx");
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto inputs = testing::ReadTestDataSet(dir + "/test_data_set_0", "input");
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  auto expected = testing::ReadTestDataSet(dir + "/test_data_set_0", "output");
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  for (const char* passes : {"default", "none"}) {
    SCOPED_TRACE(passes);
    auto got = testing::RunGraph(*g, *inputs, passes);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(testing::CompareBits((*got)[0], (*expected)[0]), "");
    ExpectRoundTripsBitExact(*g, *inputs, passes);
  }
}

TEST(RoundTrip, JsonWithSpecialFloatsAndSymbolicDims) {
  // NaN payloads, -0.0 and infinities in initializers; symbolic and unnamed dims.
  const std::string text = R"({"format": "qrt.graph", "version": 1,
    "inputs": [{"name": "x", "dtype": "float32", "shape": ["N", -1]}],
    "initializers": [
      {"name": "c", "dtype": "float32", "shape": [4], "data_base64": "AQDA/wAAAIAAAIB/AACA/w=="},
      {"name": "h", "dtype": "float16", "shape": [2], "data": ["nan", -0.0]}],
    "nodes": [{"name": "add", "op": "Add", "inputs": ["x", "c"], "outputs": ["y"]},
              {"name": "cast", "op": "Cast", "inputs": ["h"], "outputs": ["hf"], "attrs": {"to": 1}},
              {"name": "mul", "op": "Mul", "inputs": ["y", "hf"], "outputs": ["z"]}],
    "outputs": [{"name": "y"}, {"name": "hf"}]})";
  StatusOr<Graph> g = LoadJsonText(text, "special.json", ".");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Shape& s = *g->value(g->inputs[0]).shape;
  ExpectRoundTripsBitExact(*g, {Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4})});
  StatusOr<Graph> back = ViaJson(*g, nullptr);
  ASSERT_TRUE(back.ok()) << back.status().message();
  const Shape& s2 = *back->value(back->inputs[0]).shape;
  ASSERT_EQ(s2.size(), 2u);
  EXPECT_EQ(s2[0].symbol, s[0].symbol);
  EXPECT_FALSE(s2[1].is_static());
  const Tensor* c = back->ConstantOf(back->FindValue("c"));
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(testing::CompareBits(*c, *g->ConstantOf(g->FindValue("c"))), "");
}

TEST(RoundTrip, NonFiniteFloatAttributes) {
  // Clip before opset 11 takes min/max as float attributes; infinite bounds are valid.
  const std::string text = R"({"format": "qrt.graph", "version": 1, "opsets": {"ai.onnx": 10},
    "inputs": [{"name": "x", "dtype": "float32", "shape": [3]}],
    "nodes": [{"name": "clip", "op": "Clip", "inputs": ["x"], "outputs": ["y"],
               "attrs": {"min": -0.5, "max": 2.5}},
              {"name": "lrelu", "op": "LeakyRelu", "inputs": ["y"], "outputs": ["z"], "attrs": {"alpha": 0.25}}],
    "outputs": [{"name": "z"}]})";
  StatusOr<Graph> g = LoadJsonText(text, "clip.json", ".");
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto out = testing::RunGraph(*g, {Tensor::FromVector<float>({-4, 1, 100}, {3})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].data<float>()[0], -0.125f);
  EXPECT_EQ((*out)[0].data<float>()[2], 2.5f);
  ExpectRoundTripsBitExact(*g, {Tensor::FromVector<float>({-4, 1, 100}, {3})});

  // The same bounds set to infinities, as a converter writes them.
  Node& clip = g->node(NodeId{0});
  clip.attrs.Set("min", -std::numeric_limits<float>::infinity());
  clip.attrs.Set("max", std::numeric_limits<float>::infinity());
  ExpectRoundTripsBitExact(*g, {Tensor::FromVector<float>({-4, 1, 100}, {3})});
}

}  // namespace
}  // namespace qrt
