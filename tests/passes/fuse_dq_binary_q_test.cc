// fuse-dq-mul-q and fuse-dq-add-q: structure after the pass, one negative test per
// legality rule, and the promise: outputs bit-identical with and without the pass, for
// scalar and AVX2 kernels, on random and edge inputs.
//
//   Before:  a -DQ-.                  After:  a -.
//                   Mul/Add -Q-> y               QuantizedMul/Add(divide) -> y
//            b -DQ-'                          b -'
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "loaders/json_loader.h"
#include "passes/pass_manager.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct ChainSpec {
  std::string op = "Mul";  // Mul or Add
  std::string a_type = "uint8", b_type = "uint8", y_type = "uint8";
  std::string a_shape = "[2,3,4,5]", b_shape = "[2,3,4,5]";
  std::string a_scale = "[0.05]", a_scale_shape = "[]", a_zp = "[128]";
  std::string b_scale = "[0.02]", b_scale_shape = "[]", b_zp = "[120]";
  std::string y_scale = "[0.03]", y_zp = "[100]";
  bool b_constant = false;      // B is an initializer
  std::string b_data = "";      // JSON data for a constant B
  bool same_dq = false;         // x * x from one DQ
  bool mul_is_output = false;   // the Mul/Add output is also a graph output
  bool extra_mul_user = false;  // a second node reads the Mul/Add output
  bool b_axis = false;          // per-axis scale on B (axis 1)
  int opset = 13;
  bool a_scale_input = false;  // A's scale is a graph input, not a constant
};

std::string Json(const ChainSpec& s) {
  std::string inits =
      (s.a_scale_input
           ? std::string()
           : R"({"name":"sa","dtype":"float32","shape":)" + s.a_scale_shape + R"(,"data":)" + s.a_scale + "},") +
      R"({"name":"za","dtype":")" + s.a_type + R"(","shape":)" + s.a_scale_shape + R"(,"data":)" + s.a_zp + "}," +
      R"({"name":"sb","dtype":"float32","shape":)" + s.b_scale_shape + R"(,"data":)" + s.b_scale + "}," +
      R"({"name":"zb","dtype":")" + s.b_type + R"(","shape":)" + s.b_scale_shape + R"(,"data":)" + s.b_zp + "}," +
      R"({"name":"sy","dtype":"float32","shape":[],"data":)" + s.y_scale + "}," + R"({"name":"zy","dtype":")" +
      s.y_type + R"(","shape":[],"data":)" + s.y_zp + "}";
  std::string inputs = R"({"name":"a","dtype":")" + s.a_type + R"(","shape":)" + s.a_shape + "}";
  if (s.b_constant) {
    inits += R"(,{"name":"b","dtype":")" + s.b_type + R"(","shape":)" + s.b_shape + R"(,"data":)" + s.b_data + "}";
  } else if (!s.same_dq) {
    inputs += R"(,{"name":"b","dtype":")" + s.b_type + R"(","shape":)" + s.b_shape + "}";
  }
  if (s.a_scale_input) inputs += R"(,{"name":"sa","dtype":"float32","shape":[]})";
  std::string b_axis = s.b_axis ? R"(,"attrs":{"axis":1})" : "";
  std::string nodes = R"({"name":"dq_a","op":"DequantizeLinear","inputs":["a","sa","za"],"outputs":["af"]},)";
  if (!s.same_dq)
    nodes += R"({"name":"dq_b","op":"DequantizeLinear","inputs":["b","sb","zb"],"outputs":["bf"])" + b_axis + "},";
  nodes += R"({"name":"bin","op":")" + s.op + R"(","inputs":["af",")" + std::string(s.same_dq ? "af" : "bf") +
           R"("],"outputs":["m"]},)";
  nodes += R"({"name":"q","op":"QuantizeLinear","inputs":["m","sy","zy"],"outputs":["y"]})";
  std::string outputs = R"({"name":"y"})";
  if (s.mul_is_output) outputs += R"(,{"name":"m"})";
  if (s.extra_mul_user) {
    nodes += R"(,{"name":"other","op":"Relu","inputs":["m"],"outputs":["r"]})";
    outputs += R"(,{"name":"r"})";
  }
  return R"({"format":"qrt.graph","version":1,"opsets":{"":)" + std::to_string(s.opset) + R"(},"inputs":[)" + inputs +
         R"(],"outputs":[)" + outputs + R"(],"initializers":[)" + inits + R"(],"nodes":[)" + nodes + "]}";
}

Graph Load(const ChainSpec& s) {
  StatusOr<Graph> g = LoadJsonText(Json(s), "chain.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << Json(s);
  return std::move(g).value();
}

std::map<std::string, int> Ops(const Graph& g) {
  std::map<std::string, int> h;
  for (uint32_t i = 0; i < g.num_nodes(); ++i) {
    if (!g.node(NodeId{i}).dead) ++h[g.node(NodeId{i}).op_type];
  }
  return h;
}

int Rewrites(const ChainSpec& s, std::map<std::string, int>* ops) {
  Graph g = Load(s);
  PassStats stats;
  Status st = RunPasses(g, "default", true, &stats);
  EXPECT_TRUE(st.ok()) << st.message();
  *ops = Ops(g);
  int n = 0;
  for (auto& [name, c] : stats) {
    if (name.rfind("fuse-", 0) == 0) n += c;
  }
  return n;
}

Tensor RandomTensor(const std::string& type, const Dims& dims, std::mt19937& rng) {
  DataType dt = *ParseDataType(type);
  Tensor t = Tensor::Allocate(dt, dims).value();
  // Random bytes (every byte of 16-bit elements too), biased towards the ends of the
  // range so saturation is exercised.
  for (int64_t i = 0; i < int64_t(t.nbytes()); ++i) {
    uint8_t v = uint8_t(rng());
    if (i % 7 == 0) v = (i % 2) ? 0x00 : 0xff;
    if (i % 11 == 0) v = (i % 2) ? 0x7f : 0x80;
    static_cast<uint8_t*>(t.raw())[i] = v;
  }
  return t;
}

Dims ParseDims(const std::string& s) {
  Dims d;
  std::string num;
  for (char c : s) {
    if (c >= '0' && c <= '9')
      num += c;
    else if (!num.empty()) {
      d.push_back(std::stoll(num));
      num.clear();
    }
  }
  return d;
}

// The promise: same bits with and without fusion, on scalar and AVX2 kernels.
void ExpectFusionExact(const ChainSpec& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Tensor> inputs{RandomTensor(s.a_type, ParseDims(s.a_shape), rng)};
  if (!s.b_constant && !s.same_dq) inputs.push_back(RandomTensor(s.b_type, ParseDims(s.b_shape), rng));
  if (s.a_scale_input) inputs.push_back(Tensor::FromVector<float>({0.05f}, {}));
  EXPECT_EQ(testing::CompareFusedToUnfused([&] { return Load(s); }, inputs, {"default", "fuse-dq-mul-q,fuse-dq-add-q"}),
            "")
      << "seed " << seed << "\n"
      << Json(s);
}

TEST(FuseDqBinaryQ, FusesMulAndAddAndStaysExact) {
  for (const char* op : {"Mul", "Add"}) {
    ChainSpec s;
    s.op = op;
    std::map<std::string, int> ops;
    EXPECT_EQ(Rewrites(s, &ops), 1);
    EXPECT_EQ(ops.count("DequantizeLinear"), 0u);
    EXPECT_EQ(ops[std::string("Quantized") + op], 1);
    EXPECT_EQ(ops.size(), 1u);
    ExpectFusionExact(s, 1);
  }
}

TEST(FuseDqBinaryQ, Int8AndMixedTypes) {
  const char* types[][3] = {
      {"int8", "int8", "int8"}, {"uint8", "int8", "uint8"}, {"int8", "uint8", "int8"}, {"uint8", "uint8", "int8"}};
  for (auto& t : types) {
    for (const char* op : {"Mul", "Add"}) {
      ChainSpec s;
      s.op = op;
      s.a_type = t[0];
      s.b_type = t[1];
      s.y_type = t[2];
      s.a_zp = t[0][0] == 'i' ? "[-3]" : "[128]";
      s.b_zp = t[1][0] == 'i' ? "[127]" : "[0]";
      s.y_zp = t[2][0] == 'i' ? "[-128]" : "[255]";
      std::map<std::string, int> ops;
      EXPECT_EQ(Rewrites(s, &ops), 1) << t[0] << t[1] << t[2];
      ExpectFusionExact(s, 2);
    }
  }
}

TEST(FuseDqBinaryQ, SixteenBitChainsFuseFromOpset21) {
  const char* types[][3] = {{"uint16", "uint16", "uint16"}, {"int16", "int16", "int16"}, {"uint8", "int16", "uint16"}};
  for (auto& t : types) {
    for (const char* op : {"Mul", "Add"}) {
      ChainSpec s;
      s.op = op;
      s.opset = 21;
      s.a_type = t[0];
      s.b_type = t[1];
      s.y_type = t[2];
      s.a_zp = t[0][0] == 'i' ? "[-300]" : "[128]";
      s.b_zp = t[1][0] == 'i' ? "[32767]" : "[0]";
      s.y_zp = t[2][0] == 'i' ? "[-32768]" : "[65535]";
      std::map<std::string, int> ops;
      EXPECT_EQ(Rewrites(s, &ops), 1) << t[0] << t[1] << t[2];
      ExpectFusionExact(s, 5);
      s.opset = 13;  // 16-bit QuantizeLinear is not ONNX before opset 21: left alone
      EXPECT_EQ(Rewrites(s, &ops), 0) << t[0] << t[1] << t[2];
    }
  }
}

TEST(FuseDqBinaryQ, BroadcastScalarPerAxisAndSameOperand) {
  ChainSpec bc;
  bc.b_shape = "[1,3,1,1]";
  ChainSpec scalar;
  scalar.b_constant = true;
  scalar.b_shape = "[]";
  scalar.b_data = "[200]";
  ChainSpec per_axis;
  per_axis.b_shape = "[1,3,1,1]";
  per_axis.b_axis = true;
  per_axis.b_scale = "[0.01,0.02,0.5]";
  per_axis.b_scale_shape = "[3]";
  per_axis.b_zp = "[0,128,255]";
  ChainSpec square;
  square.same_dq = true;
  ChainSpec ties;  // scales that make many products land on .5 exactly
  ties.a_scale = "[0.5]";
  ties.b_scale = "[0.25]";
  ties.y_scale = "[0.25]";
  ties.a_zp = "[0]";
  ties.b_zp = "[0]";
  ties.y_zp = "[0]";
  for (ChainSpec* s : {&bc, &scalar, &per_axis, &square, &ties}) {
    for (const char* op : {"Mul", "Add"}) {
      s->op = op;
      std::map<std::string, int> ops;
      EXPECT_EQ(Rewrites(*s, &ops), 1) << Json(*s);
      ExpectFusionExact(*s, 3);
    }
  }
}

TEST(FuseDqBinaryQ, DoesNotFuseWhenIllegal) {
  ChainSpec out;
  out.mul_is_output = true;
  ChainSpec extra;
  extra.extra_mul_user = true;
  ChainSpec zero_scale;
  zero_scale.y_scale = "[0.0]";
  ChainSpec nan_scale;
  nan_scale.a_scale = "[\"nan\"]";
  ChainSpec huge_scale;  // 255 * 1e37 overflows: inf * 0 would be NaN in the chain
  huge_scale.a_scale = "[1e37]";
  ChainSpec scale_input;  // not a constant: the fused node could not check it
  scale_input.a_scale_input = true;
  for (ChainSpec* s : {&out, &extra, &zero_scale, &nan_scale, &huge_scale, &scale_input}) {
    std::map<std::string, int> ops;
    EXPECT_EQ(Rewrites(*s, &ops), 0) << Json(*s);
    EXPECT_EQ(ops["Mul"], 1);
    EXPECT_EQ(ops["QuantizeLinear"], 1);
    ExpectFusionExact(*s, 4);  // unfused graphs still run, and identically
  }
}

TEST(FuseDqBinaryQ, BundledModelFusesAndMatchesItsExpectedOutputBitForBit) {
  const std::string dir = testing::SourceDir() + "/models/qdq_mul_add";
  auto inputs = testing::ReadTestDataSet(dir + "/test_data_set_0", "input");
  auto expected = testing::ReadTestDataSet(dir + "/test_data_set_0", "output");
  ASSERT_TRUE(inputs.ok() && expected.ok());
  for (const char* passes : {"none", "default"}) {
    for (Isa isa : TiersThisCpuHas()) {
      auto got = testing::RunModelFile(dir + "/model.onnx", *inputs, passes, isa);
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ(testing::CompareBits((*got)[0], (*expected)[0]), "") << passes << " " << IsaName(isa);
    }
  }
}

}  // namespace
}  // namespace qrt
