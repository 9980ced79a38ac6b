// Scan: hand-checked cumulative sums (axes, directions, captures), captures surviving
// the writers, the tract quantized-LSTM model with the body's passes on and off, and
// prepare-time errors. The ONNX node tests test_scan9_sum run in the conformance suite.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "loaders/json_loader.h"
#include "loaders/model_io.h"
#include "loaders/onnx_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

using testing::Contains;

// Outer graph: inputs init [2], xs (scan input), w [2]; Scan(init, xs) -> (final, ys).
// Body: s' = s + x, y = s' * w, where w is read from the outer graph (a capture).
// `w_source` defines the outer value named "w" (an input, an initializer or an Identity).
std::string ScanJson(const std::string& xs_shape, const std::string& scan_attrs, const std::string& w_source,
                     int opset = 11) {
  return R"({"format": "qrt.graph", "version": 1, "opsets": {"": )" + std::to_string(opset) + R"(},
    "inputs": [{"name": "init", "dtype": "float32", "shape": [2]},
               {"name": "xs", "dtype": "float32", "shape": )" +
         xs_shape + R"(}
               )" +
         (w_source == "input" ? R"(, {"name": "w", "dtype": "float32", "shape": [2]})" : "") + R"(],
    "initializers": [)" +
         (w_source == "initializer" ? R"({"name": "w", "dtype": "float32", "shape": [2], "data": [10, 100]})" : "") +
         (w_source == "identity" ? R"({"name": "w0", "dtype": "float32", "shape": [2], "data": [10, 100]})" : "") +
         R"(],
    "nodes": [)" +
         (w_source == "identity" ? R"({"op": "Identity", "inputs": ["w0"], "outputs": ["w"]},)" : "") + R"(
      {"name": "scan", "op": "Scan", "inputs": ["init", "xs"], "outputs": ["final", "ys"],
       "attrs": {"num_scan_inputs": 1 )" +
         scan_attrs + R"(, "body": {"graph": {
         "inputs": [{"name": "s", "dtype": "float32", "shape": [2]}, {"name": "x", "dtype": "float32"}],
         "outputs": [{"name": "s_next"}, {"name": "y"}],
         "nodes": [{"op": "Add", "inputs": ["s", "x"], "outputs": ["s_next"]},
                   {"op": "Mul", "inputs": ["s_next", "w"], "outputs": ["y"]}]}}}}],
    "outputs": [{"name": "final"}, {"name": "ys"}]})";
}

StatusOr<Graph> Load(const std::string& json) { return LoadJsonText(json, "scan.json", "."); }

// `text` with the first `from` replaced by `to` (`from` must occur).
std::string ReplaceOnce(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

std::vector<float> Floats(const Tensor& t) { return std::vector<float>(t.data<float>(), t.data<float>() + t.numel()); }

Tensor F32(std::vector<float> v, Dims dims) { return Tensor::FromVector<float>(v, std::move(dims)); }

const std::vector<float> kInit = {1, 2};
const std::vector<float> kW = {10, 100};

TEST(ScanTest, CumulativeSumAlongAxis0WithCapturedInput) {
  StatusOr<Graph> g = Load(ScanJson("[3, 2]", "", "input"));
  ASSERT_TRUE(g.ok()) << g.status().message();
  // The capture is the Scan node's implicit third input.
  const Node& scan = g->node(NodeId{0});
  ASSERT_EQ(scan.op_type, "Scan");
  EXPECT_EQ(scan.inputs.size(), 3u);
  EXPECT_EQ(NumImplicitInputs(scan), 1u);
  EXPECT_EQ(g->value(scan.inputs[2]).name, "w");
  for (const char* passes : {"none", "default"}) {
    SCOPED_TRACE(passes);
    auto out = testing::RunGraph(*g, {F32(kInit, {2}), F32({1, 1, 2, 2, 3, 3}, {3, 2}), F32(kW, {2})}, passes);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{7, 8}));
    EXPECT_EQ((*out)[1].dims(), (Dims{3, 2}));
    EXPECT_EQ(Floats((*out)[1]), (std::vector<float>{20, 300, 40, 500, 70, 800}));
  }
}

TEST(ScanTest, AxesAndDirections) {
  // xs [2, 3] scanned along axis 1 backwards: steps read columns 2, 1, 0. ys stacks along
  // axis 1, reversed, so step t lands in column 2 - t.
  StatusOr<Graph> g = Load(ScanJson("[2, 3]",
                                    R"(, "scan_input_axes": [1], "scan_input_directions": [1],
                                       "scan_output_axes": [-1], "scan_output_directions": [1])",
                                    "initializer"));
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto out = testing::RunGraph(*g, {F32(kInit, {2}), F32({1, 2, 3, 4, 5, 6}, {2, 3})}, "none");
  ASSERT_TRUE(out.ok()) << out.status().message();
  // s: [1,2] + [3,6] = [4,8]; + [2,5] = [6,13]; + [1,4] = [7,17].
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{7, 17}));
  EXPECT_EQ((*out)[1].dims(), (Dims{2, 3}));
  EXPECT_EQ(Floats((*out)[1]), (std::vector<float>{70, 60, 40, 1700, 1300, 800}));
}

TEST(ScanTest, EmptySequenceReturnsInitialState) {
  StatusOr<Graph> g = Load(ScanJson("[0, 2]", "", "initializer"));
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto out = testing::RunGraph(*g, {F32(kInit, {2}), F32({}, {0, 2})}, "none");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Floats((*out)[0]), kInit);
  EXPECT_EQ((*out)[1].dims(), (Dims{0, 2}));
}

// A Scan inside a Scan body whose body reads "w" from the outermost graph: the capture
// is forwarded as an implicit input at each level. s' = s + sum_i x[i] * w.
TEST(ScanTest, NestedScanReadsOutermostValue) {
  const std::string json = R"({"format": "qrt.graph", "version": 1, "opsets": {"": 16},
    "inputs": [{"name": "init", "dtype": "float32", "shape": [2]},
               {"name": "xs", "dtype": "float32", "shape": [3, 2]},
               {"name": "w", "dtype": "float32", "shape": [2]}],
    "nodes": [{"name": "outer", "op": "Scan", "inputs": ["init", "xs"], "outputs": ["final", "ys"],
      "attrs": {"num_scan_inputs": 1, "body": {"graph": {
        "inputs": [{"name": "s", "dtype": "float32"}, {"name": "x", "dtype": "float32"}],
        "outputs": [{"name": "s_next"}, {"name": "y"}],
        "nodes": [
          {"name": "inner", "op": "Scan", "inputs": ["s", "x"], "outputs": ["s_next"],
           "attrs": {"num_scan_inputs": 1, "body": {"graph": {
             "inputs": [{"name": "a", "dtype": "float32"}, {"name": "e", "dtype": "float32"}],
             "outputs": [{"name": "a_next"}],
             "nodes": [{"op": "Mul", "inputs": ["e", "w"], "outputs": ["ew"]},
                       {"op": "Add", "inputs": ["a", "ew"], "outputs": ["a_next"]}]}}}},
          {"op": "Identity", "inputs": ["s_next"], "outputs": ["y"]}]}}}}],
    "outputs": [{"name": "final"}, {"name": "ys"}]})";
  StatusOr<Graph> g = Load(json);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->node(NodeId{0}).inputs.size(), 3u);
  auto out = testing::RunGraph(*g, {F32(kInit, {2}), F32({1, 1, 2, 2, 3, 3}, {3, 2}), F32(kW, {2})}, "default");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{121, 1202}));
  EXPECT_EQ(Floats((*out)[1]), (std::vector<float>{21, 202, 61, 602, 121, 1202}));
}

// Sessions on several threads share the Scan kernel state (and its cached scratch).
TEST(ScanTest, ConcurrentSessionsAgree) {
  StatusOr<Graph> g = Load(ScanJson("[2, 3]", R"(, "scan_input_axes": [1])", "input"));
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto model = Compile(std::move(g).value(), CompileOptions{});
  ASSERT_TRUE(model.ok()) << model.status().message();
  const std::vector<Tensor> feeds = {F32(kInit, {2}), F32({1, 2, 3, 4, 5, 6}, {2, 3}), F32(kW, {2})};
  std::vector<Tensor> want;
  {
    Session session(*model);
    ASSERT_TRUE(session.Run(feeds, &want).ok());
    for (Tensor& t : want) t = t.Clone();
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < mismatches.size(); ++i) {
    threads.emplace_back([&, i] {
      Session session(*model);
      std::vector<Tensor> got;
      for (int run = 0; run < 200; ++run) {
        if (!session.Run(feeds, &got).ok()) {
          ++mismatches[i];
          continue;
        }
        for (size_t k = 0; k < want.size(); ++k) mismatches[i] += !testing::CompareBits(got[k], want[k]).empty();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

// eliminate-identity rewires the Scan's implicit input from "w" to "w0"; the writers
// define "w" again with an Identity so the body's reference stays valid.
TEST(ScanTest, WritersKeepCapturesBound) {
  StatusOr<Graph> g = Load(ScanJson("[3, 2]", "", "identity"));
  ASSERT_TRUE(g.ok()) << g.status().message();
  CompileOptions options;
  auto compiled = Compile(*g, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  const Graph& optimized = (*compiled)->graph();
  ASSERT_EQ(optimized.num_live_nodes(), 1u);
  const std::vector<Tensor> feeds = {F32(kInit, {2}), F32({1, 1, 2, 2, 3, 3}, {3, 2})};
  auto want = testing::RunGraph(*g, feeds, "none");
  ASSERT_TRUE(want.ok()) << want.status().message();

  auto onnx = GraphToOnnx(optimized, nullptr);
  ASSERT_TRUE(onnx.ok()) << onnx.status().message();
  auto json = GraphToJson(optimized, nullptr);
  ASSERT_TRUE(json.ok()) << json.status().message();
  EXPECT_TRUE(Contains(*json, "w_capture")) << *json;
  std::vector<StatusOr<Graph>> reloaded;
  reloaded.push_back(LoadOnnxBuffer(onnx->data(), onnx->size(), "scan.onnx", "."));
  reloaded.push_back(Load(*json));
  for (StatusOr<Graph>& r : reloaded) {
    ASSERT_TRUE(r.ok()) << r.status().message();
    // Written with its two declared inputs only; the capture comes back as implicit.
    for (uint32_t i = 0; i < r->num_nodes(); ++i) {
      const Node& n = r->node(NodeId{i});
      if (n.op_type == "Scan") {
        EXPECT_EQ(n.inputs.size(), 3u);
      }
    }
    auto got = testing::RunGraph(std::move(r).value(), feeds, "none");
    ASSERT_TRUE(got.ok()) << got.status().message();
    for (size_t k = 0; k < want->size(); ++k) EXPECT_EQ(testing::CompareBits((*got)[k], (*want)[k]), "");
  }
}

// A Kaldi-style quantized LSTM from tract: QLinearConv and DQ->Mul->Q / DQ->Add->Q chains
// inside the Scan body, sequence along axis 2. Must match tract's output bit for bit
// with the body compiled with and without the passes.
TEST(ScanTractModel, QlstmMatchesGoldenWithPassesOnAndOff) {
  const std::string dir = testing::SharedModelsDir();
  const std::string model = dir + "/tract_qlstm_scan.onnx";
  if (!testing::FileExists(model)) GTEST_SKIP() << model << " is not available";
  auto inputs = testing::ReadTestDataSet(dir + "/tract_qlstm_scan/test_data_set_0", "input");
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  auto expected = testing::ReadTestDataSet(dir + "/tract_qlstm_scan/test_data_set_0", "output");
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  std::vector<std::vector<Tensor>> results;
  for (const char* passes : {"none", "default"}) {
    for (Isa isa : TiersThisCpuHas()) {
      SCOPED_TRACE(std::string(passes) + (isa == Isa::kScalar ? " scalar" : " avx2"));
      auto out = testing::RunModelFile(model, *inputs, passes, isa);
      ASSERT_TRUE(out.ok()) << out.status().message();
      ASSERT_EQ(out->size(), expected->size());
      for (size_t k = 0; k < out->size(); ++k) EXPECT_EQ(testing::CompareBits((*out)[k], (*expected)[k]), "");
    }
  }
  // The body really has fusable chains: compiled alone, the default passes fuse them.
  auto graph = LoadOnnxFile(model);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  std::shared_ptr<Graph> body;
  for (uint32_t i = 0; i < graph->num_nodes(); ++i) {
    const Node& n = graph->node(NodeId{i});
    if (n.op_type == "Scan") body = n.attrs.GetGraph("body").value();
  }
  ASSERT_NE(body, nullptr);
  auto compiled = Compile(*body, CompileOptions{});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  int fused = 0;
  for (const auto& [pass, count] : (*compiled)->pass_stats()) {
    if (pass == "fuse-dq-mul-q" || pass == "fuse-dq-add-q") fused += count;
  }
  EXPECT_GT(fused, 0);
}

// Errors: loading succeeds, planning fails with a message naming the problem.
Status PlanError(const std::string& json, const std::vector<Tensor>& feeds) {
  StatusOr<Graph> g = Load(json);
  if (!g.ok()) return g.status();
  auto out = testing::RunGraph(std::move(g).value(), feeds, "none");
  return out.ok() ? Status::Ok() : out.status();
}

TEST(ScanTest, RejectsScanInputCountLargerThanInputs) {
  std::string json = ScanJson("[3, 2]", "", "initializer");
  json = ReplaceOnce(json, "\"num_scan_inputs\": 1", "\"num_scan_inputs\": 3");
  Status s = PlanError(json, {F32(kInit, {2}), F32({1, 1, 2, 2, 3, 3}, {3, 2})});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s.message(), "num_scan_inputs is 3")) << s.message();
  EXPECT_TRUE(Contains(s.message(), "node 'scan'")) << s.message();
}

TEST(ScanTest, RejectsDifferentSequenceLengths) {
  // Two scan inputs of lengths 3 and 2 (the body reads only the first).
  std::string json = ScanJson("[3, 2]", "", "initializer");
  json = ReplaceOnce(json, "\"num_scan_inputs\": 1", "\"num_scan_inputs\": 2");
  json = ReplaceOnce(json, "[\"init\", \"xs\"]", "[\"xs\", \"xs2\"]");
  json = ReplaceOnce(json, "\"inputs\": [{\"name\": \"init\"",
                     R"("inputs": [{"name": "xs2", "dtype": "float32", "shape": [2, 2]}, {"name": "init")");
  Status s = PlanError(json, {F32({1, 2, 3, 4}, {2, 2}), F32(kInit, {2}), F32({1, 1, 2, 2, 3, 3}, {3, 2})});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s.message(), "scan input 1 has sequence length 2 along axis 0; scan input 0 has 3"))
      << s.message();
}

TEST(ScanTest, RejectsAxisOutOfRangeAndBadDirection) {
  Status s = PlanError(ScanJson("[3, 2]", R"(, "scan_input_axes": [2])", "initializer"),
                       {F32(kInit, {2}), F32({1, 1, 2, 2, 3, 3}, {3, 2})});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s.message(), "scan_input_axes[0]")) << s.message();
  s = PlanError(ScanJson("[3, 2]", R"(, "scan_output_directions": [2])", "initializer"),
                {F32(kInit, {2}), F32({1, 1, 2, 2, 3, 3}, {3, 2})});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s.message(), "scan_output_directions[0] is 2")) << s.message();
}

TEST(ScanTest, RejectsBodyWithWrongOutputCount) {
  std::string json = ScanJson("[3, 2]", "", "initializer");
  json = ReplaceOnce(json, "\"outputs\": [\"final\", \"ys\"]", "\"outputs\": [\"final\", \"ys\", \"zs\"]");
  json = ReplaceOnce(json, "\"outputs\": [{\"name\": \"final\"}, {\"name\": \"ys\"}]",
                     "\"outputs\": [{\"name\": \"final\"}, {\"name\": \"ys\"}, {\"name\": \"zs\"}]");
  Status s = PlanError(json, {F32(kInit, {2}), F32({1, 1, 2, 2, 3, 3}, {3, 2})});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s.message(), "the body has 2 outputs; Scan with 1 states and 2 scan outputs needs 3"))
      << s.message();
}

// Scan-8: a batch axis before the sequence, sequence_lens per row (scan output rows past a
// row's length are zeros), and a reversed scan input. s' = s + x, y = s' * w.
TEST(ScanTest, Scan8ScansEachBatchRowForItsLength) {
  const std::string json = R"({"format": "qrt.graph", "version": 1, "opsets": {"": 8},
    "inputs": [{"name": "lens", "dtype": "int64", "shape": [2]}, {"name": "init", "dtype": "float32", "shape": [2, 1]},
               {"name": "xs", "dtype": "float32", "shape": [2, 3, 1]}],
    "initializers": [{"name": "w", "dtype": "float32", "shape": [1], "data": [10]}],
    "nodes": [{"name": "scan", "op": "Scan", "inputs": ["lens", "init", "xs"], "outputs": ["final", "ys"],
      "attrs": {"num_scan_inputs": 1, "directions": [DIRECTION], "body": {"graph": {
        "inputs": [{"name": "s", "dtype": "float32"}, {"name": "x", "dtype": "float32"}],
        "outputs": [{"name": "s_next"}, {"name": "y"}],
        "nodes": [{"op": "Add", "inputs": ["s", "x"], "outputs": ["s_next"]},
                  {"op": "Mul", "inputs": ["s_next", "w"], "outputs": ["y"]}]}}}}],
    "outputs": [{"name": "final"}, {"name": "ys"}]})";
  const std::vector<Tensor> inputs = {Tensor::FromVector<int64_t>({3, 1}, {2}), F32({0, 100}, {2, 1}),
                                      F32({1, 2, 3, 4, 5, 6}, {2, 3, 1})};
  StatusOr<Graph> forward = Load(ReplaceOnce(json, "DIRECTION", "0"));
  ASSERT_TRUE(forward.ok()) << forward.status().message();
  auto out = testing::RunGraph(*forward, inputs, "none");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{6, 104}));  // row 1 takes one step
  EXPECT_EQ((*out)[1].dims(), (Dims{2, 3, 1}));
  EXPECT_EQ(Floats((*out)[1]), (std::vector<float>{10, 30, 60, 1040, 0, 0}));
  StatusOr<Graph> backward = Load(ReplaceOnce(json, "DIRECTION", "1"));
  ASSERT_TRUE(backward.ok()) << backward.status().message();
  out = testing::RunGraph(*backward, inputs, "none");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Floats((*out)[1]), (std::vector<float>{30, 50, 60, 1040, 0, 0}));  // 3, 2, 1 within the length
  Status bad = PlanError(
      json, {Tensor::FromVector<int64_t>({4, 1}, {2}), F32({0, 100}, {2, 1}), F32({1, 2, 3, 4, 5, 6}, {2, 3, 1})});
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace qrt
