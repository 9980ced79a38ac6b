// fuse-qdq-conv: Q([Relu|Clip](Conv(DQ(x), DQ(w), DQ(b)))) -> qrt:QLinearConv.
//
//   x -DQ-.                               x, w, b -QLinearConv[clamp]-> y
//   w -DQ--Conv-[Relu|Clip]-Q-> y   =>
//   b -DQ-'
//
// Not bit-exact by nature (exact int32 sums vs float sums): the promise is at most one
// quantization step from the unfused float graph, measured on random data and on every
// convolution of the real models, layer by layer.
#include <gtest/gtest.h>

#include <cstdio>
#include <iomanip>
#include <map>
#include <random>
#include <sstream>

#include "loaders/json_loader.h"
#include "loaders/model_io.h"
#include "passes/evaluate.h"
#include "passes/pass_manager.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct ConvSpec {
  int c = 8, m = 16, k = 3, group = 1, stride = 1, pad = 1, hw = 9;
  std::string x_type = "uint8", w_type = "int8", y_type = "uint8";
  std::string act;  // "", "Relu", "Clip"
  bool per_channel = true;
  bool bias = true;
  bool bias_scale_mismatch = false;
  bool conv_is_output = false;
  int w_axis = 0;
  uint32_t seed = 1;
};

template <class T>
std::string List(const std::vector<T>& v) {
  std::ostringstream os;
  os << std::setprecision(9);  // floats survive the trip through decimal text exactly
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  os << "]";
  return os.str();
}

std::string Json(const ConvSpec& s) {
  std::mt19937 rng(s.seed);
  const int cg = s.c / s.group;
  std::vector<int> w(size_t(s.m * cg * s.k * s.k));
  const bool ws = s.w_type == "int8";
  for (int& v : w) v = ws ? int(rng() % 256) - 128 : int(rng() % 256);
  std::vector<float> sw(size_t(s.per_channel ? s.m : 1));
  for (float& v : sw) v = 0.002f + float(rng() % 1000) * 1e-5f;
  std::vector<int> wz(sw.size());
  for (int& v : wz) v = ws ? int(rng() % 11) - 5 : 120 + int(rng() % 16);
  const float sx = 0.0173f;
  std::vector<float> sb(sw.size());
  for (size_t i = 0; i < sb.size(); ++i) sb[i] = sx * sw[i] * (s.bias_scale_mismatch ? 1.5f : 1.f);
  std::vector<int> b(size_t(s.m));
  for (int& v : b) v = int(rng() % 20001) - 10000;
  std::vector<int64_t> wdims{s.m, cg, s.k, s.k};
  const std::string sdims = s.per_channel ? List(std::vector<int>{s.m}) : "[]";
  std::ostringstream j;
  j << std::setprecision(9);
  j << R"({"format":"qrt.graph","version":1,"opsets":{"":13},)"
    << R"("inputs":[{"name":"x","dtype":")" << s.x_type << R"(","shape":[1,)" << s.c << "," << s.hw << "," << s.hw
    << "]}],"
    << R"("outputs":[{"name":"y"})" << (s.conv_is_output ? R"(,{"name":"c"})" : "") << "],"
    << R"("initializers":[)"
    << R"({"name":"sx","dtype":"float32","shape":[],"data":[)" << sx << "]},"
    << R"({"name":"zx","dtype":")" << s.x_type << R"(","shape":[],"data":[)" << (s.x_type == "int8" ? -7 : 131) << "]},"
    << R"({"name":"w","dtype":")" << s.w_type << R"(","shape":)" << List(wdims) << R"(,"data":)" << List(w) << "},"
    << R"({"name":"sw","dtype":"float32","shape":)" << sdims << R"(,"data":)" << List(sw) << "},"
    << R"({"name":"zw","dtype":")" << s.w_type << R"(","shape":)" << sdims << R"(,"data":)" << List(wz) << "},"
    << R"({"name":"b","dtype":"int32","shape":[)" << s.m << R"(],"data":)" << List(b) << "},"
    << R"({"name":"sb","dtype":"float32","shape":)" << sdims << R"(,"data":)" << List(sb) << "},"
    << R"({"name":"lo","dtype":"float32","shape":[],"data":[-0.5]},)"
    << R"({"name":"hi","dtype":"float32","shape":[],"data":[1.25]},)"
    << R"({"name":"sy","dtype":"float32","shape":[],"data":[0.011]},)"
    << R"({"name":"zy","dtype":")" << s.y_type << R"(","shape":[],"data":[)" << (s.y_type == "int8" ? 5 : 100) << "]}],"
    << R"("nodes":[)"
    << R"({"op":"DequantizeLinear","inputs":["x","sx","zx"],"outputs":["xf"]},)"
    << R"({"op":"DequantizeLinear","inputs":["w","sw","zw"],"outputs":["wf"],"attrs":{"axis":)" << s.w_axis << "}},"
    << R"({"op":"DequantizeLinear","inputs":["b","sb"],"outputs":["bf"],"attrs":{"axis":0}},)"
    << R"({"name":"conv","op":"Conv","inputs":["xf","wf")" << (s.bias ? R"(,"bf")" : "") << R"(],"outputs":["c"],)"
    << R"("attrs":{"group":)" << s.group << R"(,"strides":[)" << s.stride << "," << s.stride << R"(],"pads":[)" << s.pad
    << "," << s.pad << "," << s.pad << "," << s.pad << "]}},";
  std::string q_in = "c";
  if (s.act == "Relu") {
    j << R"({"op":"Relu","inputs":["c"],"outputs":["a"]},)";
    q_in = "a";
  } else if (s.act == "Clip") {
    j << R"({"op":"Clip","inputs":["c","lo","hi"],"outputs":["a"]},)";
    q_in = "a";
  }
  j << R"({"op":"QuantizeLinear","inputs":[")" << q_in << R"(","sy","zy"],"outputs":["y"]}]})";
  return j.str();
}

const char* kFusePasses = "default,fuse-qdq-conv";

int Fusions(const std::string& json, std::map<std::string, int>* ops) {
  Graph g = LoadJsonText(json, "conv.json", ".").value();
  PassStats stats;
  EXPECT_TRUE(RunPasses(g, kFusePasses, true, &stats).ok());
  for (uint32_t i = 0; i < g.num_nodes(); ++i) {
    if (!g.node(NodeId{i}).dead) ++(*ops)[g.node(NodeId{i}).op_type];
  }
  for (auto& [name, n] : stats) {
    if (name == "fuse-qdq-conv") return n;
  }
  return -1;
}

// Max |fused - unfused| in output steps over random inputs; also counts differing elements.
int MaxStepDiff(const std::string& json, Isa isa, int64_t* differing, int64_t* total) {
  std::mt19937 rng(99);
  Graph g = LoadJsonText(json, "conv.json", ".").value();
  const Value& xv = g.value(g.inputs[0]);
  Dims dims = *StaticDims(*xv.shape);
  int worst = 0;
  for (int trial = 0; trial < 3; ++trial) {
    Tensor x = Tensor::Allocate(xv.dtype, dims).value();
    for (int64_t i = 0; i < x.numel(); ++i) static_cast<uint8_t*>(x.raw())[i] = uint8_t(rng());
    auto a = testing::RunGraph(g, {x}, "none", isa);
    auto b = testing::RunGraph(g, {x}, kFusePasses, isa);
    EXPECT_TRUE(a.ok() && b.ok());
    if (!a.ok() || !b.ok()) return 1000;
    for (int64_t i = 0; i < (*a)[0].numel(); ++i) {
      const int d = int(std::abs((*a)[0].GetAsInt64(i) - (*b)[0].GetAsInt64(i)));
      worst = std::max(worst, d);
      *differing += d != 0;
      ++*total;
    }
  }
  return worst;
}

TEST(FuseQdqConv, FusesAndStaysWithinOneStep) {
  std::vector<ConvSpec> specs;
  for (const char* act : {"", "Relu", "Clip"}) {
    for (bool per_channel : {true, false}) {
      ConvSpec s;
      s.act = act;
      s.per_channel = per_channel;
      specs.push_back(s);
    }
  }
  ConvSpec depthwise;
  depthwise.c = depthwise.m = depthwise.group = 16;
  specs.push_back(depthwise);
  ConvSpec strided;
  strided.stride = 2;
  strided.pad = 0;
  strided.k = 1;
  strided.bias = false;
  specs.push_back(strided);
  ConvSpec s8;
  s8.x_type = "int8";
  s8.y_type = "int8";
  s8.act = "Relu";
  specs.push_back(s8);
  ConvSpec u8w;
  u8w.w_type = "uint8";
  specs.push_back(u8w);
  ConvSpec wide;  // a long reduction with full-range weights: the exact reference path
  wide.c = 96;
  wide.m = 8;
  specs.push_back(wide);
  int64_t differing = 0, total = 0;
  for (ConvSpec& s : specs) {
    for (uint32_t seed : {1u, 2u}) {
      s.seed = seed;
      const std::string json = Json(s);
      std::map<std::string, int> ops;
      EXPECT_EQ(Fusions(json, &ops), 1) << s.x_type << " " << s.w_type << " act=" << s.act << " pc=" << s.per_channel
                                        << " c=" << s.c << " g=" << s.group;
      EXPECT_EQ(ops["QLinearConv"], 1);
      EXPECT_EQ(ops.count("Conv") + ops.count("DequantizeLinear") + ops.count("Relu") + ops.count("Clip"), 0u);
      for (Isa isa : TiersThisCpuHas()) {
        EXPECT_LE(MaxStepDiff(json, isa, &differing, &total), 1) << "act " << s.act << " c " << s.c;
      }
    }
  }
  std::printf("fuse-qdq-conv on random data: %lld of %lld outputs differ from the float graph (by at most one step)\n",
              static_cast<long long>(differing), static_cast<long long>(total));
  EXPECT_GT(total, 10000);
}

TEST(FuseQdqConv, DoesNotFuseWhenIllegal) {
  ConvSpec mismatch;
  mismatch.bias_scale_mismatch = true;
  ConvSpec output;
  output.conv_is_output = true;
  ConvSpec axis1;  // per-channel weights must be per output channel (axis 0)
  axis1.per_channel = true;
  axis1.w_axis = 1;
  axis1.c = axis1.m;
  for (const ConvSpec& s : {mismatch, output, axis1}) {
    std::map<std::string, int> ops;
    EXPECT_EQ(Fusions(Json(s), &ops), 0);
    // Unfused: a float convolution (fuse-conv-fake-quant may give it the fake quantization).
    EXPECT_EQ(ops["Conv"] + ops["ConvQuantizeDequantize"], 1);
    EXPECT_EQ(ops["QLinearConv"], 0);
  }
}

// Every convolution of a real QDQ model, layer by layer: the same quantized input fed to
// the fused node and to the unfused chain; at most one step apart.
TEST(FuseQdqConv, RealModelsLayerByLayer) {
  int layers = 0, worst = 0;
  int64_t differing = 0, total = 0;
  for (const char* name : {"qdq_mobilenetv2_224", "qdq_mobilefacenet_randcal"}) {
    const std::string base = testing::SharedModelsDir() + "/" + name;
    if (!testing::FileExists(base + ".onnx")) continue;
    Graph g = LoadModel(base + ".onnx").value();
    // Each fusable chain, as (quantized conv input, Q output) of the unfused graph.
    Graph fused = g;
    PassStats stats;
    ASSERT_TRUE(RunPasses(fused, kFusePasses, true, &stats).ok());
    std::vector<std::pair<std::string, std::string>> chains;  // x value name, y value name
    for (uint32_t i = 0; i < fused.num_nodes(); ++i) {
      const Node& n = fused.node(NodeId{i});
      if (!n.dead && n.domain == "qrt" && n.op_type == "QLinearConv") {
        chains.emplace_back(fused.value(n.inputs[0]).name, fused.value(n.outputs[0]).name);
      }
    }
    ASSERT_FALSE(chains.empty());
    // The quantized inputs of every chain, from one unfused run.
    Graph probe = g;
    for (auto& [x, y] : chains) probe.outputs.push_back(probe.FindValue(x));
    auto inputs = testing::ReadTestDataSet(base + "/ort130_noopt_ref_0", "input");
    ASSERT_TRUE(inputs.ok());
    auto values = testing::RunGraph(probe, *inputs, "none");
    ASSERT_TRUE(values.ok()) << values.status().message();
    for (size_t c = 0; c < chains.size(); ++c) {
      const Tensor& x = (*values)[g.outputs.size() + c];
      ValueId gy = g.FindValue(chains[c].second), fy = fused.FindValue(chains[c].second);
      // The unfused chain: every node between x and y.
      std::vector<NodeId> chain_nodes;
      for (NodeId n = g.value(gy).producer; n.valid();) {
        chain_nodes.insert(chain_nodes.begin(), n);
        const Node& node = g.node(n);
        if (node.op_type == "DequantizeLinear") break;
        NodeId next;
        for (ValueId in : node.inputs) {
          if (in.valid() && g.value(in).producer.valid() && !g.IsConstant(in)) {
            const Node& p = g.node(g.value(in).producer);
            // Follow the activation path, adding the weight/bias DQs of the Conv.
            if (node.op_type == "Conv" && p.op_type == "DequantizeLinear" && g.IsConstant(p.inputs[0])) {
              chain_nodes.insert(chain_nodes.begin(), g.value(in).producer);
              continue;
            }
            next = g.value(in).producer;
          }
        }
        n = next;
      }
      auto a = EvaluateNodes(g, chain_nodes, {{g.FindValue(chains[c].first), x}}, {gy}, kIsaAuto);
      auto b =
          EvaluateNodes(fused, {fused.value(fy).producer}, {{fused.FindValue(chains[c].first), x}}, {fy}, kIsaAuto);
      ASSERT_TRUE(a.ok()) << a.status().message();
      ASSERT_TRUE(b.ok()) << b.status().message();
      for (int64_t i = 0; i < (*a)[0].numel(); ++i) {
        const int d = int(std::abs((*a)[0].GetAsInt64(i) - (*b)[0].GetAsInt64(i)));
        worst = std::max(worst, d);
        differing += d != 0;
        ++total;
      }
      ++layers;
    }
  }
  if (layers == 0) GTEST_SKIP() << "no real models present";
  std::printf("fuse-qdq-conv on %d real layers: %lld of %lld outputs differ, max %d step\n", layers,
              static_cast<long long>(differing), static_cast<long long>(total), worst);
  EXPECT_LE(worst, 1);
}

}  // namespace
}  // namespace qrt
