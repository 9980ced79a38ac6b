// nhwc-layout: convolutions run channels-last, the transposes between them cancel, and
// the outputs keep every bit.
//
//   x -DQ-Conv-Q-DQ-PRelu-Split-+-Conv-Sigmoid*-Add-Relu-+bias-Concat-Conv-> y
//                                '--------------------'----------'
//   =>  Transpose -> NhwcConv ... NhwcConv -> Transpose (only the two at the edges remain)
#include <gtest/gtest.h>

#include <cstring>
#include <iomanip>
#include <map>
#include <random>
#include <sstream>

#include "loaders/json_loader.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

std::string Floats(size_t n, std::mt19937& rng, float scale) {
  std::ostringstream os;
  os << std::setprecision(9) << "[";
  std::uniform_real_distribution<float> u(-scale, scale);
  for (size_t i = 0; i < n; ++i) os << (i ? "," : "") << u(rng);
  os << "]";
  return os.str();
}

std::string Const(const std::string& name, const std::vector<int>& dims, std::mt19937& rng, float scale = 0.5f) {
  size_t n = 1;
  std::ostringstream d;
  d << "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    n *= size_t(dims[i]);
    d << (i ? "," : "") << dims[i];
  }
  d << "]";
  return R"({"name":")" + name + R"(","dtype":"float32","shape":)" + d.str() + R"(,"data":)" + Floats(n, rng, scale) + "}";
}

// The graph in the file comment: a residual, a split, a concat, SiLU, PRelu with a
// per-channel slope, a per-channel constant add and per-tensor Q/DQ.
std::string ResidualGraph() {
  std::mt19937 rng(5);
  std::ostringstream j;
  j << R"({"format":"qrt.graph","version":1,"opsets":{"":13},)"
    << R"("inputs":[{"name":"x","dtype":"uint8","shape":[1,8,10,10]}],"outputs":[{"name":"y"}],"initializers":[)"
    << R"({"name":"sx","dtype":"float32","shape":[],"data":[0.02]},)"
    << R"({"name":"zx","dtype":"uint8","shape":[],"data":[128]},)"
    << R"({"name":"sq","dtype":"float32","shape":[],"data":[0.05]},)"
    << R"({"name":"zq","dtype":"uint8","shape":[],"data":[120]},)"
    << R"({"name":"split","dtype":"int64","shape":[2],"data":[8,8]},)" << Const("w1", {16, 8, 3, 3}, rng) << ","
    << Const("b1", {16}, rng) << "," << Const("slope", {16, 1, 1}, rng) << "," << Const("w2", {8, 8, 1, 1}, rng)
    << "," << Const("bias", {1, 8, 1, 1}, rng) << "," << Const("w3", {4, 16, 3, 3}, rng) << "],"
    << R"("nodes":[)"
    << R"({"op":"DequantizeLinear","inputs":["x","sx","zx"],"outputs":["xf"]},)"
    << R"({"name":"conv1","op":"Conv","inputs":["xf","w1","b1"],"outputs":["c1"],"attrs":{"pads":[1,1,1,1]}},)"
    << R"({"op":"QuantizeLinear","inputs":["c1","sq","zq"],"outputs":["q1"]},)"
    << R"({"op":"DequantizeLinear","inputs":["q1","sq","zq"],"outputs":["d1"]},)"
    << R"({"op":"PRelu","inputs":["d1","slope"],"outputs":["p1"]},)"
    << R"({"op":"Split","inputs":["p1","split"],"outputs":["a","b"],"attrs":{"axis":1}},)"
    << R"({"name":"conv2","op":"Conv","inputs":["a","w2"],"outputs":["c2"]},)"
    << R"({"op":"Sigmoid","inputs":["c2"],"outputs":["s2"]},)"
    << R"({"op":"Mul","inputs":["c2","s2"],"outputs":["silu"]},)"
    << R"({"op":"Add","inputs":["silu","b"],"outputs":["r"]},)"
    << R"({"op":"Relu","inputs":["r"],"outputs":["rr"]},)"
    << R"({"op":"Add","inputs":["rr","bias"],"outputs":["rb"]},)"
    << R"({"op":"Concat","inputs":["rb","a"],"outputs":["cat"],"attrs":{"axis":-3}},)"
    << R"({"name":"conv3","op":"Conv","inputs":["cat","w3"],"outputs":["y"],"attrs":{"pads":[0,1,0,1]}}]})";
  return j.str();
}

// Conv -> MaxPool -> Conv -> MaxPool -> Conv: MaxPool keeps NCHW, so every convolution
// would need its own transposes, which cost more than the reorders they save.
std::string PoolChainGraph() {
  std::mt19937 rng(9);
  std::ostringstream j;
  j << R"({"format":"qrt.graph","version":1,"opsets":{"":13},)"
    << R"("inputs":[{"name":"x","dtype":"float32","shape":[1,4,16,16]}],"outputs":[{"name":"y"}],"initializers":[)"
    << Const("w1", {4, 4, 3, 3}, rng) << "," << Const("w2", {4, 4, 3, 3}, rng) << "," << Const("w3", {4, 4, 3, 3}, rng)
    << "],"
    << R"("nodes":[)"
    << R"({"op":"Conv","inputs":["x","w1"],"outputs":["c1"],"attrs":{"pads":[1,1,1,1]}},)"
    << R"({"op":"MaxPool","inputs":["c1"],"outputs":["p1"],"attrs":{"kernel_shape":[2,2],"strides":[2,2]}},)"
    << R"({"op":"Conv","inputs":["p1","w2"],"outputs":["c2"],"attrs":{"pads":[1,1,1,1]}},)"
    << R"({"op":"MaxPool","inputs":["c2"],"outputs":["p2"],"attrs":{"kernel_shape":[2,2],"strides":[2,2]}},)"
    << R"({"op":"Conv","inputs":["p2","w3"],"outputs":["y"],"attrs":{"pads":[1,1,1,1]}}]})";
  return j.str();
}

struct Compiled {
  std::shared_ptr<const CompiledModel> model;
  std::map<std::string, int> ops;
};

Compiled CompileJson(const std::string& json, const std::string& passes, Isa isa) {
  Graph g = LoadJsonText(json, "nhwc.json", ".").value();
  CompileOptions o;
  o.passes = passes;
  o.max_isa = isa;
  Compiled c{Compile(std::move(g), o).value(), {}};
  const Graph& out = c.model->graph();
  for (uint32_t i = 0; i < out.num_nodes(); ++i) {
    const Node& n = out.node(NodeId{i});
    if (!n.dead) ++c.ops[(n.domain.empty() ? "" : n.domain + ":") + n.op_type];
  }
  return c;
}

Tensor RunOnce(const Compiled& c, const Tensor& x) {
  Session s(c.model);
  std::vector<Tensor> out;
  EXPECT_TRUE(s.Run({x}, &out).ok());
  return out.at(0).Clone();
}

Tensor RandomInput(DataType t, const Dims& dims) {
  Tensor x = Tensor::Allocate(t, dims).value();
  std::mt19937 rng(3);
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (t == DataType::kUInt8) x.data<uint8_t>()[i] = uint8_t(rng());
    else x.data<float>()[i] = float(int(rng() % 2001) - 1000) / 500.f;
  }
  return x;
}

TEST(LayoutNhwc, ResidualBlockKeepsEveryBitAndOnlyEdgeTransposes) {
  const std::string json = ResidualGraph();
  const Tensor x = RandomInput(DataType::kUInt8, {1, 8, 10, 10});
  for (Isa isa : {Isa::kAvx2, Isa::kScalar}) {
    const Compiled none = CompileJson(json, "none", isa);
    const Compiled nhwc = CompileJson(json, "nhwc-layout,eliminate-dead-nodes", isa);
    EXPECT_EQ(nhwc.ops.at("qrt:NhwcConv"), 3);
    EXPECT_EQ(nhwc.ops.count("Conv"), 0u);
    EXPECT_EQ(nhwc.ops.at("Transpose"), 2);  // the input's and the output's
    const Tensor want = RunOnce(none, x), got = RunOnce(nhwc, x);
    EXPECT_EQ(testing::CompareBits(got, want), "") << "isa " << int(isa);
  }
}

TEST(LayoutNhwc, RevertsWhereTransposesWouldStay) {
  const Compiled c = CompileJson(PoolChainGraph(), "nhwc-layout,eliminate-dead-nodes", Isa::kAvx2);
  EXPECT_EQ(c.ops.at("Conv"), 3);
  EXPECT_EQ(c.ops.count("qrt:NhwcConv"), 0u);
  EXPECT_EQ(c.ops.count("Transpose"), 0u);
  EXPECT_EQ(c.model->pass_stats().front().second, 0);
}

// A convolution whose output is a graph output, and one read twice.
TEST(LayoutNhwc, GraphOutputsKeepTheirLayout) {
  std::mt19937 rng(2);
  std::ostringstream j;
  j << R"({"format":"qrt.graph","version":1,"opsets":{"":13},)"
    << R"("inputs":[{"name":"x","dtype":"float32","shape":[2,3,7,5]}],"outputs":[{"name":"c1"},{"name":"y"}],)"
    << R"("initializers":[)" << Const("w1", {6, 3, 3, 3}, rng) << "," << Const("w2", {6, 6, 1, 1}, rng) << "],"
    << R"("nodes":[{"op":"Conv","inputs":["x","w1"],"outputs":["c1"],"attrs":{"pads":[1,1,1,1],"strides":[2,1]}},)"
    << R"({"op":"Conv","inputs":["c1","w2"],"outputs":["c2"]},)"
    << R"({"op":"Add","inputs":["c2","c1"],"outputs":["y"]}]})";
  const Tensor x = RandomInput(DataType::kFloat32, {2, 3, 7, 5});
  const Compiled none = CompileJson(j.str(), "none", Isa::kAvx2);
  const Compiled nhwc = CompileJson(j.str(), "default,nhwc-layout", Isa::kAvx2);
  EXPECT_EQ(nhwc.ops.at("qrt:NhwcConv"), 2);
  Session a(none.model), b(nhwc.model);
  std::vector<Tensor> want, got;
  ASSERT_TRUE(a.Run({x}, &want).ok());
  ASSERT_TRUE(b.Run({x}, &got).ok());
  ASSERT_EQ(got.size(), 2u);
  for (size_t k = 0; k < 2; ++k) EXPECT_EQ(testing::CompareBits(got[k], want[k]), "") << "output " << k;
}

}  // namespace
}  // namespace qrt
