// fuse-qdq-unary and fold-constants.
//
//   Before:  x -DQ-> f -Q-> y            After:  x -LookupTable(table)-> y
//
// Every input code is fed through both forms, on scalar and AVX2 kernels: the outputs
// must be the same bits.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "loaders/json_loader.h"
#include "passes/pass_manager.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

std::string UnaryChain(const std::string& op, const std::string& x_type, const std::string& y_type,
                       const std::string& attrs, bool silu) {
  const bool xs = x_type == "int8", ys = y_type == "int8";
  std::string inits = std::string(R"({"name":"sx","dtype":"float32","shape":[],"data":[0.0625]},)") +
                      R"({"name":"zx","dtype":")" + x_type + R"(","shape":[],"data":[)" + (xs ? "-5" : "120") + "]}," +
                      R"({"name":"sy","dtype":"float32","shape":[],"data":[0.03]},)" + R"({"name":"zy","dtype":")" +
                      y_type + R"(","shape":[],"data":[)" + (ys ? "3" : "7") + "]}," +
                      R"({"name":"lo","dtype":"float32","shape":[],"data":[-1.5]},)" +
                      R"({"name":"hi","dtype":"float32","shape":[],"data":[2.25]})";
  std::string f_inputs = op == "Clip" ? R"(["xf","lo","hi"])" : R"(["xf"])";
  std::string nodes = R"({"name":"dq","op":"DequantizeLinear","inputs":["x","sx","zx"],"outputs":["xf"]},)"
                      R"({"name":"f","op":")" +
                      op + R"(","inputs":)" + f_inputs + R"(,"outputs":["ff"])" +
                      (attrs.empty() ? "" : R"(,"attrs":)" + attrs) + "}," +
                      R"({"name":"q","op":"QuantizeLinear","inputs":["ff","sy","zy"],"outputs":["y"]})";
  std::string out = "y";
  if (silu) {  // YOLO's SiLU: x * sigmoid(x), the product quantized again
    nodes += R"(,{"name":"dq2","op":"DequantizeLinear","inputs":["y","sy","zy"],"outputs":["yf"]},)"
             R"({"name":"mul","op":"Mul","inputs":["xf","yf"],"outputs":["m"]},)"
             R"({"name":"q2","op":"QuantizeLinear","inputs":["m","sy","zy"],"outputs":["z"]})";
    out = "z";
  }
  return R"({"format":"qrt.graph","version":1,"opsets":{"":13},"inputs":[{"name":"x","dtype":")" + x_type +
         R"(","shape":[2,256]}],"outputs":[{"name":")" + out + R"("}],"initializers":[)" + inits + R"(],"nodes":[)" +
         nodes + "]}";
}

std::map<std::string, int> Rewrites(const std::string& json) {
  Graph g = LoadJsonText(json, "chain.json", ".").value();
  PassStats stats;
  EXPECT_TRUE(RunPasses(g, "default", true, &stats).ok());
  std::map<std::string, int> m(stats.begin(), stats.end());
  for (uint32_t i = 0; i < g.num_nodes(); ++i) {
    if (!g.node(NodeId{i}).dead) ++m["op:" + g.node(NodeId{i}).op_type];
  }
  return m;
}

// The graph with and without passes on x: the scalar tier's unfused output against the fused
// one at every tier, bit for bit.
void ExpectFusedEqualsUnfused(const std::string& json, const Tensor& x) {
  auto reference = testing::RunGraph(LoadJsonText(json, "chain.json", ".").value(), {x}, "none", Isa::kScalar);
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  for (Isa isa : TiersThisCpuHas()) {
    auto fused = testing::RunGraph(LoadJsonText(json, "chain.json", ".").value(), {x}, "default", isa);
    ASSERT_TRUE(fused.ok()) << fused.status().message();
    EXPECT_EQ(testing::CompareBits((*fused)[0], (*reference)[0]), "") << json;
  }
}

void ExpectExact(const std::string& json) {
  Tensor x = Tensor::Allocate(
                 *ParseDataType(json.find(R"("x","dtype":"int8")") != std::string::npos ? "int8" : "uint8"), {2, 256})
                 .value();
  for (int k = 0; k < 512; ++k) static_cast<uint8_t*>(x.raw())[k] = uint8_t(k * 37 + 11);  // every byte, twice
  ExpectFusedEqualsUnfused(json, x);
}

TEST(FuseQdqUnary, EveryUnaryOpAndTypeIsExact) {
  const std::pair<const char*, const char*> ops[] = {{"Sigmoid", ""},
                                                     {"Tanh", ""},
                                                     {"Relu", ""},
                                                     {"Clip", ""},
                                                     {"LeakyRelu", R"({"alpha":0.1})"},
                                                     {"HardSigmoid", R"({"alpha":0.3,"beta":0.4})"},
                                                     {"Exp", ""},
                                                     {"Neg", ""},
                                                     {"Abs", ""},
                                                     {"Sqrt", ""}};
  for (const auto& [op, attrs] : ops) {
    for (const char* xt : {"uint8", "int8"}) {
      for (const char* yt : {"uint8", "int8"}) {
        const std::string json = UnaryChain(op, xt, yt, attrs, false);
        auto m = Rewrites(json);
        EXPECT_EQ(m["fuse-qdq-unary"], 1) << op << " " << xt << " " << yt;
        EXPECT_EQ(m["op:LookupTable"], 1);
        EXPECT_EQ(m.count(std::string("op:") + op), 0u);
        EXPECT_EQ(m.count("op:DequantizeLinear"), 0u);
        ExpectExact(json);
      }
    }
  }
}

TEST(FuseQdqUnary, SiluBecomesTwoIntegerOps) {
  const std::string json = UnaryChain("Sigmoid", "uint8", "uint8", "", true);
  auto m = Rewrites(json);
  EXPECT_EQ(m["fuse-qdq-unary"], 1);
  EXPECT_EQ(m["fuse-dq-mul-q"], 1);
  EXPECT_EQ(m["op:LookupTable"], 1);
  EXPECT_EQ(m["op:QuantizedMul"], 1);
  int ops = 0;
  for (const auto& [key, n] : m) ops += key.rfind("op:", 0) == 0 ? n : 0;
  EXPECT_EQ(ops, 2);
  ExpectExact(json);
}

// Replaces the one occurrence of `from` in `s`.
void ReplaceOnce(std::string& s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  s.replace(at, from.size(), to);
}

TEST(FuseQdqUnary, DoesNotFuseWhenIllegal) {
  // f's output is also a graph output.
  std::string out = UnaryChain("Sigmoid", "uint8", "uint8", "", false);
  ReplaceOnce(out, R"("outputs":[{"name":"y"}])", R"("outputs":[{"name":"y"},{"name":"ff"}])");
  // Per-axis DQ scale: the table would depend on the channel.
  std::string per_axis = UnaryChain("Tanh", "uint8", "uint8", "", false);
  ReplaceOnce(per_axis, R"("shape":[],"data":[0.0625])", R"("shape":[2],"data":[0.0625,0.5])");
  ReplaceOnce(per_axis, R"("shape":[],"data":[120])", R"("shape":[2],"data":[120,3])");
  ReplaceOnce(per_axis, R"("outputs":["xf"]})", R"("outputs":["xf"],"attrs":{"axis":0}})");
  for (const std::string& json : {out, per_axis}) {
    auto m = Rewrites(json);
    EXPECT_EQ(m["fuse-qdq-unary"], 0) << json;
    EXPECT_EQ(m["op:QuantizeLinear"], 1) << json;
    ExpectExact(json);
  }
}

// x -DQ-> xf -(nodes, ending in "ff")-> -Q-> y, with the named scalar float constants.
std::string RegionChain(const std::string& x_type, const std::string& y_type, const std::string& nodes,
                        const std::vector<std::pair<std::string, float>>& consts, const std::string& outputs = "") {
  std::string inits = std::string(R"({"name":"sx","dtype":"float32","shape":[],"data":[0.047]},)") +
                      R"({"name":"zx","dtype":")" + x_type + R"(","shape":[],"data":[)" +
                      (x_type == "int8" ? "-128" : "255") + "]}," +
                      R"({"name":"sy","dtype":"float32","shape":[],"data":[0.021]},)" + R"({"name":"zy","dtype":")" +
                      y_type + R"(","shape":[],"data":[)" + (y_type == "int8" ? "-3" : "0") + "]}";
  for (const auto& [name, v] : consts) {
    inits += R"(,{"name":")" + name + R"(","dtype":"float32","shape":[],"data":[)" + std::to_string(v) + "]}";
  }
  return R"({"format":"qrt.graph","version":1,"opsets":{"":18},"inputs":[{"name":"x","dtype":")" + x_type +
         R"(","shape":[2,256]}],"outputs":[{"name":"y"})" + outputs + R"(],"initializers":[)" + inits +
         R"(],"nodes":[{"name":"dq","op":"DequantizeLinear","inputs":["x","sx","zx"],"outputs":["xf"]},)" + nodes +
         R"(,{"name":"q","op":"QuantizeLinear","inputs":["ff","sy","zy"],"outputs":["y"]}]})";
}

std::string OpJson(const std::string& op, const std::string& inputs, const std::string& out,
                   const std::string& attrs = "") {
  return R"({"op":")" + op + R"(","inputs":[)" + inputs + R"(],"outputs":[")" + out + R"("])" +
         (attrs.empty() ? "" : R"(,"attrs":)" + attrs) + "}";
}

// The expanded Gelu (PyTorch's export), HardSwish as HardSigmoid -> Mul, SiLU read from one
// DQ, Mish as Softplus -> Tanh -> Mul, and a long chain: each becomes one table, exactly.
TEST(FuseQdqUnary, ElementwiseRegionsBecomeOneTable) {
  const std::vector<std::pair<std::string, float>> gelu_consts = {{"sqrt2", 1.4142135f}, {"one", 1.f}, {"half", 0.5f}};
  const std::string gelu = OpJson("Div", R"("xf","sqrt2")", "a") + "," + OpJson("Erf", R"("a")", "b") + "," +
                           OpJson("Add", R"("b","one")", "c") + "," + OpJson("Mul", R"("xf","c")", "d") + "," +
                           OpJson("Mul", R"("d","half")", "ff");
  const std::string hardswish = OpJson("HardSigmoid", R"("xf")", "h", R"({"alpha":0.16666667,"beta":0.5})") + "," +
                                OpJson("Mul", R"("xf","h")", "ff");
  const std::string silu = OpJson("Sigmoid", R"("xf")", "s") + "," + OpJson("Mul", R"("s","xf")", "ff");
  const std::string mish = OpJson("Softplus", R"("xf")", "p") + "," + OpJson("Tanh", R"("p")", "t") + "," +
                           OpJson("Mul", R"("xf","t")", "ff");
  std::string chain = OpJson("Mul", R"("xf","half")", "v0");
  for (int k = 1; k < 20; ++k) {
    chain +=
        "," + OpJson(k % 2 ? "Add" : "Sigmoid",
                     k % 2 ? R"("v)" + std::to_string(k - 1) + R"(","one")" : R"("v)" + std::to_string(k - 1) + R"(")",
                     "v" + std::to_string(k));
  }
  chain += "," + OpJson("Neg", R"("v19")", "ff");
  const std::pair<std::string, int> cases[] = {{gelu, 5}, {hardswish, 2}, {silu, 2}, {mish, 3}, {chain, 21}};
  for (const auto& [nodes, count] : cases) {
    for (const char* xt : {"uint8", "int8"}) {
      for (const char* yt : {"uint8", "int8"}) {
        const std::string json = RegionChain(xt, yt, nodes, gelu_consts);
        auto m = Rewrites(json);
        EXPECT_EQ(m["fuse-qdq-unary"], 1) << json;
        EXPECT_EQ(m["op:LookupTable"], 1) << json;
        int ops = 0;
        for (const auto& [key, n] : m) ops += key.rfind("op:", 0) == 0 ? n : 0;
        EXPECT_EQ(ops, 1) << count << " ops and the Q/DQ should be one table: " << json;
        ExpectExact(json);
      }
    }
  }
}

TEST(FuseQdqUnary, RefusesRegionsThatAreNotFunctionsOfOneCode) {
  const std::vector<std::pair<std::string, float>> consts = {{"one", 1.f}};
  std::vector<std::string> refused;
  // A second DequantizeLinear (of a graph input): two codes, not one.
  std::string two_dq = RegionChain("uint8", "uint8", OpJson("Add", R"("xf","wf")", "ff"), consts);
  ReplaceOnce(two_dq, R"({"name":"dq",)",
              R"({"op":"DequantizeLinear","inputs":["x2","sx","zx"],"outputs":["wf"]},{"name":"dq",)");
  ReplaceOnce(two_dq, R"("inputs":[)", R"("inputs":[{"name":"x2","dtype":"uint8","shape":[2,256]},)");
  refused.push_back(two_dq);
  // A constant of two non-1 dims: the output would depend on the position, not on one channel.
  std::string wide = RegionChain("uint8", "uint8", OpJson("Add", R"("xf","c2")", "ff"), consts);
  ReplaceOnce(
      wide, R"("initializers":[)", R"("initializers":[{"name":"c2","dtype":"float32","shape":[2,256],"data":[)" + [] {
        std::string d;
        for (int k = 0; k < 512; ++k) d += (k ? "," : "") + std::to_string(k % 7);
        return d;
      }() + "]},");
  refused.push_back(wide);
  // An inner value is also a graph output, or read by an op outside the region.
  refused.push_back(RegionChain("uint8", "int8",
                                OpJson("Sigmoid", R"("xf")", "s") + "," + OpJson("Mul", R"("s","xf")", "ff"), consts,
                                R"(,{"name":"s"})"));
  refused.push_back(RegionChain(
      "uint8", "int8",
      OpJson("Sigmoid", R"("xf")", "s") + "," + OpJson("Mul", R"("s","xf")", "ff") + "," + OpJson("Neg", R"("s")", "n"),
      consts, R"(,{"name":"n"})"));
  // Softmax is not element-wise.
  refused.push_back(RegionChain("uint8", "uint8", OpJson("Softmax", R"("xf")", "ff"), consts));
  for (const std::string& json : refused) {
    auto m = Rewrites(json);
    EXPECT_EQ(m["fuse-qdq-unary"], 0) << json;
    EXPECT_EQ(m.count("op:LookupTable"), 0u) << json;
    if (json.find(R"("x2")") == std::string::npos) ExpectExact(json);
  }
}

// A graph of DQ -> nodes -> Q on an input x of `dims` (uint8, scale and zero points fixed), with
// float constants `consts` as name -> (shape, values); before x, an optional QLinearConv.
std::string ChannelChain(const std::string& dims, const std::string& nodes,
                         const std::vector<std::tuple<std::string, std::string, std::string>>& consts,
                         bool after_conv = false) {
  std::string inits = R"({"name":"sx","dtype":"float32","shape":[],"data":[0.05]},)"
                      R"({"name":"zx","dtype":"uint8","shape":[],"data":[128]},)"
                      R"({"name":"sy","dtype":"float32","shape":[],"data":[0.03]},)"
                      R"({"name":"zy","dtype":"uint8","shape":[],"data":[100]})";
  for (const auto& [name, shape, data] : consts) {
    inits += R"(,{"name":")" + name + R"(","dtype":"float32","shape":)" + shape + R"(,"data":)" + data + "}";
  }
  std::string all_nodes;
  std::string x = "x";
  if (after_conv) {  // 2 -> 3 channels, 1x1: x's shape reaches the chain only through the weight
    inits += R"(,{"name":"w","dtype":"uint8","shape":[3,2,1,1],"data":[130,120,128,140,100,160]})"
             R"(,{"name":"sw","dtype":"float32","shape":[],"data":[0.1]})"
             R"(,{"name":"zw","dtype":"uint8","shape":[],"data":[128]})"
             R"(,{"name":"sc","dtype":"float32","shape":[],"data":[0.3]})";
    all_nodes = R"({"op":"QLinearConv","inputs":["x","sx","zx","w","sw","zw","sc","zx"],"outputs":["c"]},)";
    x = "c";
  }
  all_nodes += R"({"name":"dq","op":"DequantizeLinear","inputs":[")" + x + R"(","sx","zx"],"outputs":["xf"]},)" +
               nodes + R"(,{"name":"q","op":"QuantizeLinear","inputs":["ff","sy","zy"],"outputs":["y"]})";
  return R"({"format":"qrt.graph","version":1,"opsets":{"":18},"inputs":[{"name":"x","dtype":"uint8","shape":)" + dims +
         R"(}],"outputs":[{"name":"y"}],"initializers":[)" + inits + R"(],"nodes":[)" + all_nodes + "]}";
}

// Fused and unfused outputs on x of `dims` whose every run of 256 elements holds every code
// (shifted per run, so each channel sees every code), at every tier.
void ExpectExactOn(const std::string& json, const Dims& dims) {
  Tensor x = Tensor::Allocate(DataType::kUInt8, dims).value();
  for (int64_t k = 0; k < x.numel(); ++k) static_cast<uint8_t*>(x.raw())[k] = uint8_t(k + 37 * (k / 256) + k / 7);
  ExpectFusedEqualsUnfused(json, x);
}

// Constants with one value per channel of one axis (PRelu's slope [C, 1, 1], a bias of the last
// axis, two constants of the first axis) make one table per channel, exactly.
TEST(FuseQdqUnary, PerChannelConstantsMakeATablePerChannel) {
  struct Case {
    std::string json;
    Dims dims;
  };
  const std::string prelu = OpJson("PRelu", R"("xf","slope")", "ff");
  const auto slope3 = std::make_tuple(std::string("slope"), std::string("[3,1,1]"), std::string("[0.25,-0.5,1.5]"));
  std::string last_axis = "[";
  for (int k = 0; k < 256; ++k) last_axis += (k ? "," : "") + std::to_string(k % 11 - 5);
  last_axis += "]";
  const Case cases[] = {
      {ChannelChain("[2,3,16,16]", prelu, {slope3}), {2, 3, 16, 16}},
      {ChannelChain("[1,2,16,16]", prelu, {slope3}, true), {1, 2, 16, 16}},
      {ChannelChain("[2,256]", OpJson("Add", R"("xf","bias")", "a") + "," + OpJson("Sigmoid", R"("a")", "ff"),
                    {{"bias", "[256]", last_axis}}),
       {2, 256}},
      {ChannelChain("[4,512]", OpJson("Mul", R"("xf","k")", "a") + "," + OpJson("PRelu", R"("a","slope")", "ff"),
                    {{"k", "[4,1]", "[1,-2,0.5,3]"}, {"slope", "[4,1]", "[0.1,0.2,-1,2]"}}),
       {4, 512}},
  };
  for (const Case& c : cases) {
    auto m = Rewrites(c.json);
    EXPECT_EQ(m["fuse-qdq-unary"], 1) << c.json;
    EXPECT_EQ(m["op:LookupTable"], 1) << c.json;
    EXPECT_EQ(m.count("op:PRelu") + m.count("op:DequantizeLinear"), 0u) << c.json;
    ExpectExactOn(c.json, c.dims);
  }
}

// Per-channel constants the table cannot stand for: of two axes, of a rank above x's (the output
// would grow), of another channel count than x has there.
TEST(FuseQdqUnary, RefusesPerChannelConstantsThatChangeTheShape) {
  const std::string two = OpJson("Mul", R"("xf","k")", "a") + "," + OpJson("Add", R"("a","b")", "ff");
  const std::vector<std::pair<std::string, Dims>> refused = {
      {ChannelChain("[4,8]", two, {{"k", "[4,1]", "[1,2,3,4]"}, {"b", "[8]", "[1,2,3,4,5,6,7,8]"}}), {4, 8}},
      {ChannelChain("[4,8]", OpJson("Add", R"("xf","b")", "ff"), {{"b", "[1,1,8]", "[1,2,3,4,5,6,7,8]"}}), {4, 8}},
      {ChannelChain("[4,1]", OpJson("Add", R"("xf","b")", "ff"), {{"b", "[3]", "[1,2,3]"}}), {4, 1}},
  };
  for (const auto& [json, dims] : refused) {
    auto m = Rewrites(json);
    EXPECT_EQ(m["fuse-qdq-unary"], 0) << json;
    EXPECT_EQ(m.count("op:LookupTable"), 0u) << json;
    ExpectExactOn(json, dims);
  }
}

TEST(FoldConstants, FoldsConstantSubgraphsButKeepsDequantizeLinear) {
  // shape = Add(c1, c2) is constant; w2 = Reshape(w, shape) is constant; DQ(w2) must stay.
  const char* json = R"({"format":"qrt.graph","version":1,
   "inputs":[{"name":"x","dtype":"float32","shape":[2,3]}], "outputs":[{"name":"y"}],
   "initializers":[{"name":"c1","dtype":"int64","shape":[2],"data":[1,2]},
                   {"name":"c2","dtype":"int64","shape":[2],"data":[1,1]},
                   {"name":"w","dtype":"uint8","shape":[6],"data":[0,1,2,3,4,255]},
                   {"name":"s","dtype":"float32","shape":[],"data":[0.5]},
                   {"name":"z","dtype":"uint8","shape":[],"data":[2]}],
   "nodes":[{"op":"Add","inputs":["c1","c2"],"outputs":["shape"]},
            {"op":"Reshape","inputs":["w","shape"],"outputs":["w2"]},
            {"op":"DequantizeLinear","inputs":["w2","s","z"],"outputs":["wf"]},
            {"op":"Mul","inputs":["x","wf"],"outputs":["y"]}]})";
  auto m = Rewrites(json);
  EXPECT_EQ(m["fold-constants"], 2);
  EXPECT_EQ(m.count("op:Add"), 0u);
  EXPECT_EQ(m.count("op:Reshape"), 0u);
  EXPECT_EQ(m["op:DequantizeLinear"], 1);
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto got = testing::RunGraph(LoadJsonText(json, "f.json", ".").value(), {x});
  ASSERT_TRUE(got.ok()) << got.status().message();
  const float want[] = {1 * -1.f, 2 * -0.5f, 3 * 0.f, 4 * 0.5f, 5 * 1.f, 6 * 126.5f};
  for (int i = 0; i < 6; ++i) EXPECT_EQ((*got)[0].data<float>()[i], want[i]) << i;
}

}  // namespace
}  // namespace qrt
