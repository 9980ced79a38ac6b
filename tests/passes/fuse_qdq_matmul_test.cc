// fuse-qdq-matmul: Q(MatMul(DQ, DQ)) -> QLinearMatMul and Q(Gemm(DQ, DQ, DQ)) -> a 1x1
// qrt:QLinearConv between two Reshapes. Exact int32 sums requantized once, so at most one
// quantization step from the unfused float graph (measured on random data, and on the
// classifier of the real MobileNetV2 when ../shared/models has it).
#include <gtest/gtest.h>

#include <iomanip>
#include <map>
#include <random>
#include <sstream>

#include "loaders/json_loader.h"
#include "loaders/model_io.h"
#include "passes/pass_manager.h"
#include "tests/e2e/e2e_util.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct Spec {
  bool gemm = false;
  bool trans_b = false;
  bool per_column = true;
  bool bias = true;
  float alpha = 1.f;
  bool bias_scale_mismatch = false;
  int m = 3, k = 40, n = 12;
  uint32_t seed = 1;
};

template <class T>
std::string List(const std::vector<T>& v) {
  std::ostringstream os;
  os << std::setprecision(9) << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  return os.str() + "]";
}

std::string Json(const Spec& s) {
  std::mt19937 rng(s.seed);
  std::vector<int> w(size_t(s.k * s.n));
  for (int& v : w) v = int(rng() % 256) - 128;
  const int cols = s.per_column ? s.n : 1;
  std::vector<float> sw(static_cast<size_t>(cols));
  for (float& v : sw) v = 0.002f + float(rng() % 1000) * 1e-5f;
  const float sa = 0.0213f;
  std::vector<float> sb(sw.size());
  for (size_t i = 0; i < sb.size(); ++i) sb[i] = sa * sw[i] * (s.bias_scale_mismatch ? 1.5f : 1.f);
  std::vector<int> b(size_t(s.n));
  for (int& v : b) v = int(rng() % 20001) - 10000;
  const std::vector<int> wdims = s.trans_b ? std::vector<int>{s.n, s.k} : std::vector<int>{s.k, s.n};
  const int w_axis = s.trans_b ? 0 : 1;
  const std::string sdims = s.per_column ? List(std::vector<int>{s.n}) : "[]";
  std::ostringstream j;
  j << std::setprecision(9) << R"({"format":"qrt.graph","version":1,"opsets":{"":13},)"
    << R"("inputs":[{"name":"a","dtype":"uint8","shape":[)" << s.m << "," << s.k << R"(]}],"outputs":[{"name":"y"}],)"
    << R"("initializers":[{"name":"sa","dtype":"float32","shape":[],"data":[)" << sa << "]},"
    << R"({"name":"za","dtype":"uint8","shape":[],"data":[119]},)"
    << R"({"name":"w","dtype":"int8","shape":)" << List(wdims) << R"(,"data":)" << List(w) << "},"
    << R"({"name":"sw","dtype":"float32","shape":)" << sdims << R"(,"data":)" << List(sw) << "},"
    << R"({"name":"b","dtype":"int32","shape":[)" << s.n << R"(],"data":)" << List(b) << "},"
    << R"({"name":"sb","dtype":"float32","shape":)" << sdims << R"(,"data":)" << List(sb) << "},"
    << R"({"name":"sy","dtype":"float32","shape":[],"data":[0.09]},)"
    << R"({"name":"zy","dtype":"uint8","shape":[],"data":[128]}],"nodes":[)"
    << R"({"op":"DequantizeLinear","inputs":["a","sa","za"],"outputs":["af"]},)"
    << R"({"op":"DequantizeLinear","inputs":["w","sw"],"outputs":["wf"],"attrs":{"axis":)" << w_axis << "}},"
    << R"({"op":"DequantizeLinear","inputs":["b","sb"],"outputs":["bf"],"attrs":{"axis":0}},)";
  if (s.gemm) {
    j << R"({"name":"mm","op":"Gemm","inputs":["af","wf")" << (s.bias ? R"(,"bf")" : "") << R"(],"outputs":["p"],)"
      << R"("attrs":{"transB":)" << int(s.trans_b) << R"(,"alpha":)" << s.alpha << "}},";
  } else {
    j << R"({"name":"mm","op":"MatMul","inputs":["af","wf"],"outputs":["p"]},)";
  }
  j << R"({"op":"QuantizeLinear","inputs":["p","sy","zy"],"outputs":["y"]}]})";
  return j.str();
}

int Fusions(const std::string& json) {
  Graph g = LoadJsonText(json, "mm.json", ".").value();
  PassStats stats;
  EXPECT_TRUE(RunPasses(g, "default,fuse-qdq-matmul", true, &stats).ok());
  for (auto& [name, n] : stats) {
    if (name == "fuse-qdq-matmul") return n;
  }
  return -1;
}

TEST(FuseQdqMatMul, FusesAndStaysWithinOneStep) {
  std::vector<Spec> specs;
  for (bool gemm : {false, true}) {
    for (bool per_column : {true, false}) {
      Spec s;
      s.gemm = gemm;
      s.per_column = per_column;
      specs.push_back(s);
    }
  }
  Spec trans;
  trans.gemm = trans.trans_b = true;
  specs.push_back(trans);
  Spec no_bias;
  no_bias.gemm = true;
  no_bias.bias = false;
  specs.push_back(no_bias);
  Spec long_k;  // a long reduction with full-range weights
  long_k.k = 700;
  long_k.gemm = true;
  specs.push_back(long_k);
  int worst = 0;
  int64_t differing = 0, total = 0;
  for (Spec& s : specs) {
    for (uint32_t seed : {1u, 2u, 3u}) {
      s.seed = seed;
      const std::string json = Json(s);
      ASSERT_EQ(Fusions(json), 1) << "gemm " << s.gemm << " per_column " << s.per_column;
      Graph g = LoadJsonText(json, "mm.json", ".").value();
      std::mt19937 rng(seed);
      Tensor a = Tensor::Allocate(DataType::kUInt8, {s.m, s.k}).value();
      for (int64_t i = 0; i < a.numel(); ++i) a.data<uint8_t>()[i] = uint8_t(rng());
      for (Isa isa : TiersThisCpuHas()) {
        auto want = testing::RunGraph(g, {a}, "none", isa);
        auto got = testing::RunGraph(g, {a}, "default,fuse-qdq-matmul", isa);
        ASSERT_TRUE(want.ok() && got.ok()) << (want.ok() ? got.status().message() : want.status().message());
        ASSERT_EQ((*got)[0].dims(), (*want)[0].dims());
        for (int64_t i = 0; i < (*want)[0].numel(); ++i) {
          const int d = int(std::abs((*want)[0].GetAsInt64(i) - (*got)[0].GetAsInt64(i)));
          worst = std::max(worst, d);
          differing += d != 0;
          ++total;
        }
      }
    }
  }
  std::printf("[fuse-qdq-matmul] random: %lld of %lld outputs differ, max %d step\n", static_cast<long long>(differing),
              static_cast<long long>(total), worst);
  EXPECT_LE(worst, 1);
  EXPECT_LT(differing, total / 10);  // the float graph is inexact only near ties
}

TEST(FuseQdqMatMul, DoesNotFuseWhenIllegal) {
  Spec alpha;
  alpha.gemm = true;
  alpha.alpha = 0.5f;
  Spec mismatch;
  mismatch.gemm = true;
  mismatch.bias_scale_mismatch = true;
  for (const Spec& s : {alpha, mismatch}) EXPECT_EQ(Fusions(Json(s)), 0);
}

// The real MobileNetV2's classifier (its one Gemm) is its last layer: the whole model's
// output may move by at most one output step.
TEST(FuseQdqMatMul, MobileNetV2ClassifierWithinOneStep) {
  const std::string base = testing::SharedModelsDir() + "/qdq_mobilenetv2_224";
  if (!testing::FileExists(base + ".onnx")) GTEST_SKIP() << "qdq_mobilenetv2_224 is not in ../shared/models";
  Graph g = LoadModel(base + ".onnx").value();
  auto inputs = testing::ReadTestDataSet(base + "/ort130_noopt_ref_0", "input");
  ASSERT_TRUE(inputs.ok());
  auto want = testing::RunGraph(g, *inputs, "default");
  auto got = testing::RunGraph(g, *inputs, "default,fuse-qdq-matmul");
  ASSERT_TRUE(want.ok() && got.ok());
  const testing::OutputStep step = testing::FindOutputStep(g, 0);
  ASSERT_FALSE(step.step.empty());
  const testing::StepError e = testing::ErrorInSteps((*got)[0], (*want)[0], step);
  std::printf("[fuse-qdq-matmul] MobileNetV2 classifier: max %.2f steps, mean %.4f\n", e.max, e.mean);
  EXPECT_LE(e.max, 1.0 + 1e-6);
}

}  // namespace
}  // namespace qrt
