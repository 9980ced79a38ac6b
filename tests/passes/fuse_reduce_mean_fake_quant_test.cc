// fuse-reduce-mean-fake-quant (opt-in): the QDQ form of global average pooling becomes one node,
// and the promise: outputs bit-identical with and without the pass (scalar and AVX2 kernels), for
// contiguous runs at every 16-byte phase, for reductions that are not one run (the fallback),
// with axes as an attribute (opset 13) and as an input (opset 18), with and without the output
// QDQ; one negative test per legality rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "loaders/json_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

// Opt-in (pass_manager.cc says why).
const std::string kPasses = "default,fuse-reduce-mean-fake-quant";

struct RmSpec {
  Dims x_dims = {2, 6, 7, 7};
  std::string axes = "[2,3]";
  int opset = 13;
  bool out_qdq = true;
  bool keepdims = true;
  bool xf_used = false;  // xf is also a graph output
  bool noop = false;     // opset 18, noop_with_empty_axes=1 and no axes
};

std::string DimsJson(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

std::string Json(const RmSpec& s) {
  std::string inits = R"({"name":"s1","dtype":"float32","shape":[],"data":[0.043]},)"
                      R"({"name":"z1","dtype":"uint8","shape":[],"data":[117]},)"
                      R"({"name":"s2","dtype":"float32","shape":[],"data":[0.011]},)"
                      R"({"name":"z2","dtype":"uint8","shape":[],"data":[3]})";
  const bool axes_input = s.opset >= 18 && !s.noop;
  if (axes_input) {
    const int64_t count = int64_t(std::count(s.axes.begin(), s.axes.end(), ',')) + 1;
    inits += R"(,{"name":"axes","dtype":"int64","shape":[)" + std::to_string(count) + R"(],"data":)" + s.axes + "}";
  }
  std::string attrs = R"("keepdims":)" + std::to_string(int(s.keepdims));
  if (s.opset < 18) attrs += R"(,"axes":)" + s.axes;
  if (s.noop) attrs += R"(,"noop_with_empty_axes":1)";
  std::string nodes = R"({"name":"q1","op":"QuantizeLinear","inputs":["x","s1","z1"],"outputs":["xq"]},)"
                      R"({"name":"dq1","op":"DequantizeLinear","inputs":["xq","s1","z1"],"outputs":["xf"]},)";
  nodes += R"({"name":"rm","op":"ReduceMean","inputs":["xf")" + std::string(axes_input ? R"(,"axes")" : "") +
           R"(],"outputs":[")" + std::string(s.out_qdq ? "m" : "y") + R"("],"attrs":{)" + attrs + "}}";
  if (s.out_qdq) {
    nodes += R"(,{"name":"q2","op":"QuantizeLinear","inputs":["m","s2","z2"],"outputs":["mq"]},)"
             R"({"name":"dq2","op":"DequantizeLinear","inputs":["mq","s2","z2"],"outputs":["y"]})";
  }
  std::string outputs = R"({"name":"y"})";
  if (s.xf_used) outputs += R"(,{"name":"xf"})";
  return R"({"format":"qrt.graph","version":1,"opsets":{"":)" + std::to_string(s.opset) +
         R"(},"inputs":[{"name":"x","dtype":"float32","shape":)" + DimsJson(s.x_dims) + R"(}],"outputs":[)" + outputs +
         R"(],"initializers":[)" + inits + R"(],"nodes":[)" + nodes + "]}";
}

Graph Load(const RmSpec& s) {
  StatusOr<Graph> g = LoadJsonText(Json(s), "rm.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << Json(s);
  return std::move(g).value();
}

Tensor Inputs(const RmSpec& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(1.f, 3.f);
  Tensor t = Tensor::Allocate(DataType::kFloat32, s.x_dims).value();
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = i % 6 == 0 ? 0.0215f * float(i % 13) : d(rng);
  return t;
}

void ExpectExact(const RmSpec& s, uint32_t seed) {
  EXPECT_EQ(testing::CompareFusedToUnfused([&] { return Load(s); }, {Inputs(s, seed)},
                                           {kPasses, "fuse-reduce-mean-fake-quant"}),
            "")
      << Json(s);
}

TEST(FuseReduceMeanFakeQuant, FusesAndStaysExact) {
  std::vector<RmSpec> specs(6);
  specs[1].x_dims = {1, 5, 3, 5};  // runs of 15: every 16-byte phase
  specs[2].opset = 18;
  specs[3].out_qdq = false;
  specs[4].axes = "[1]";  // the channels: not one run per output (the whole-tensor fallback)
  specs[5].axes = "[-1]";
  specs[5].keepdims = false;
  for (const RmSpec& s : specs) {
    const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "fuse-reduce-mean-fake-quant", kPasses);
    EXPECT_EQ(n, 1) << Json(s);
    EXPECT_EQ(ops.count("ReduceMean"), 0u);
    EXPECT_EQ(ops.count("QuantizeDequantize"), 0u);
    EXPECT_EQ(ops.at("ReduceMeanQuantizeDequantize"), 1);
    ExpectExact(s, 5);
  }
}

TEST(FuseReduceMeanFakeQuant, RefusesWhenTheRulesDoNotHold) {
  RmSpec used;
  used.xf_used = true;
  RmSpec noop;
  noop.opset = 18;
  noop.noop = true;
  for (const RmSpec& s : {used, noop}) {
    const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "fuse-reduce-mean-fake-quant", kPasses);
    EXPECT_EQ(n, 0) << Json(s);
    EXPECT_EQ(ops.at("ReduceMean"), 1);
    ExpectExact(s, 6);
  }
}

}  // namespace
}  // namespace qrt
