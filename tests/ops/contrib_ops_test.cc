// com.microsoft ops: QGemm, MatMulIntegerToFloat and DynamicQuantizeMatMul (against their integer
// definitions), QLinearSoftmax and QLinearAveragePool on cases worked by hand, the GELU family and
// SkipLayerNormalization (against their formulas), and their errors. The QLinear ops and the
// integer-to-float matmuls are checked bit for bit against ONNX Runtime in tests/data/audit.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "loaders/model_builder.h"
#include "tests/ops/linalg_test_util.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

// Runs one com.microsoft node whose inputs are all initializers but the first `runtime` ones.
StatusOr<std::vector<Tensor>> RunMs(const std::string& op, const std::vector<Tensor>& inputs, const Attributes& attrs,
                                    int num_outputs = 1, Isa isa = kIsaAuto, size_t runtime = 1) {
  ModelBuilder b("contrib", {{"", 17}, {"com.microsoft", 1}}, false);
  NodeSpec node;
  node.name = "n";
  node.op_type = op;
  node.domain = "com.microsoft";
  node.attrs = attrs;
  std::vector<Tensor> fed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    if (inputs[i].dtype() == DataType::kUndefined) {
      node.inputs.push_back("");
      continue;
    }
    if (i < runtime) {
      QRT_RETURN_IF_ERROR(b.AddInput(name, inputs[i].dtype(), ShapeFromDims(inputs[i].dims())));
      fed.push_back(inputs[i].Clone());
    } else {
      QRT_RETURN_IF_ERROR(b.AddInitializer(name, inputs[i].Clone()));
    }
    node.inputs.push_back(name);
  }
  for (int o = 0; o < num_outputs; ++o) node.outputs.push_back("y" + std::to_string(o));
  QRT_RETURN_IF_ERROR(b.AddNode(std::move(node)));
  for (int o = 0; o < num_outputs; ++o) {
    QRT_RETURN_IF_ERROR(b.AddOutput("y" + std::to_string(o), DataType::kUndefined, std::nullopt));
  }
  QRT_ASSIGN_OR_RETURN(Graph g, b.Finish());
  return testing::RunGraph(std::move(g), fed, "none", isa);
}

// Random 8-bit codes (every value, the ends included), or floats in [-2, 2).
Tensor RandomCodes(DataType dt, const Dims& dims, std::mt19937& rng) {
  Tensor t = Tensor::Allocate(dt, dims).value();
  std::uniform_int_distribution<int> d(0, 255);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int v = i % 17 == 0 ? (i % 2 ? 255 : 0) : d(rng);
    if (dt == DataType::kUInt8)
      t.data<uint8_t>()[i] = uint8_t(v);
    else if (dt == DataType::kInt8)
      t.data<int8_t>()[i] = int8_t(v - 128);
    else
      t.data<float>()[i] = float(v - 128) / 64.f;
  }
  return t;
}

// The op at every tier this CPU has, with B (input `b`) constant and at run time, equals the
// scalar tier's result bit for bit (ref::GemmInteger's accumulators).
void ExpectTiersMatchScalar(const std::string& op, const std::vector<Tensor>& in, const Attributes& at, size_t b,
                            const std::string& label) {
  auto want = RunMs(op, in, at, 1, Isa::kScalar);
  ASSERT_TRUE(want.ok()) << label << ": " << want.status().message();
  for (Isa isa : TiersThisCpuHas()) {
    for (size_t runtime : {size_t(1), b + 1}) {
      auto got = RunMs(op, in, at, 1, isa, runtime);
      ASSERT_TRUE(got.ok()) << label << ": " << got.status().message();
      EXPECT_EQ(testing::CompareBits((*got)[0], (*want)[0]), "")
          << label << " at " << IsaName(isa) << (runtime > 1 ? ", B at run time" : "");
    }
  }
}

TEST(QGemm, EveryTierEqualsTheScalarOne) {
  std::mt19937 rng(41);
  const int64_t m = 19, n = 37, k = 45;  // odd k, a ragged last panel, rows past a tile
  for (DataType at_type : {DataType::kUInt8, DataType::kInt8}) {
    for (DataType bt : {DataType::kInt8, DataType::kUInt8}) {
      for (int trans = 0; trans < 4; ++trans) {
        for (bool quantized : {false, true}) {
          const bool ta = trans & 1, tb = trans & 2;
          Attributes a;
          a.Set("transA", int64_t(ta));
          a.Set("transB", int64_t(tb));
          a.Set("alpha", 0.75f);
          std::vector<Tensor> in = {RandomCodes(at_type, ta ? Dims{k, m} : Dims{m, k}, rng),
                                    Tensor::FromVector<float>({0.02f}, {}),
                                    RandomCodes(at_type, {}, rng),
                                    RandomCodes(bt, tb ? Dims{n, k} : Dims{k, n}, rng),
                                    testing::linalg::RandomTensor(DataType::kFloat32, {n}, 0.001, 0.01, rng),
                                    RandomCodes(bt, {n}, rng),
                                    testing::linalg::RandomTensor(DataType::kInt32, {n}, -3000, 3000, rng)};
          if (quantized) {
            in.push_back(Tensor::FromVector<float>({0.5f}, {}));
            in.push_back(RandomCodes(DataType::kUInt8, {}, rng));
          }
          const std::string label = std::string(DataTypeName(at_type)) + " x " + std::string(DataTypeName(bt)) +
                                    " trans " + std::to_string(trans) + (quantized ? " quantized" : " float");
          ExpectTiersMatchScalar("QGemm", in, a, 3, label);
        }
      }
    }
  }
}

TEST(MatMulIntegerToFloat, EveryTierEqualsTheScalarOne) {
  std::mt19937 rng(42);
  for (DataType at_type : {DataType::kUInt8, DataType::kInt8}) {
    for (DataType bt : {DataType::kInt8, DataType::kUInt8}) {
      std::vector<Tensor> in = {RandomCodes(at_type, {2, 9, 33}, rng),
                                RandomCodes(bt, {33, 21}, rng),
                                Tensor::FromVector<float>({0.03f}, {}),
                                testing::linalg::RandomTensor(DataType::kFloat32, {21}, 0.001, 0.01, rng),
                                RandomCodes(at_type, {}, rng),
                                RandomCodes(bt, {21}, rng),
                                testing::linalg::RandomTensor(DataType::kFloat32, {21}, -1, 1, rng)};
      ExpectTiersMatchScalar("MatMulIntegerToFloat", in, {}, 1,
                             std::string(DataTypeName(at_type)) + " x " + std::string(DataTypeName(bt)));
    }
  }
}

TEST(DynamicQuantizeMatMul, EveryTierEqualsTheScalarOne) {
  std::mt19937 rng(43);
  for (DataType bt : {DataType::kInt8, DataType::kUInt8}) {
    std::vector<Tensor> in = {RandomCodes(DataType::kFloat32, {3, 7, 50}, rng), RandomCodes(bt, {50, 18}, rng),
                              testing::linalg::RandomTensor(DataType::kFloat32, {18}, 0.001, 0.01, rng),
                              RandomCodes(bt, {18}, rng),
                              testing::linalg::RandomTensor(DataType::kFloat32, {18}, -1, 1, rng)};
    ExpectTiersMatchScalar("DynamicQuantizeMatMul", in, {}, 1, std::string(DataTypeName(bt)));
  }
}

TEST(QGemm, EqualsTheIntegerDefinition) {
  // A^T (transA) [K=3, M=2] u8, B [N=2, K=3] s8 (transB) with per-column zero points, C int32.
  const Tensor a = Tensor::FromVector<uint8_t>({10, 200, 30, 40, 250, 6}, {3, 2});
  const Tensor b = Tensor::FromVector<int8_t>({1, -2, 3, -128, 127, 5}, {2, 3});
  Attributes at;
  at.Set("transA", int64_t(1));
  at.Set("transB", int64_t(1));
  at.Set("alpha", 0.5f);
  const std::vector<float> bs = {0.02f, 0.03f};
  const std::vector<int8_t> bz = {1, -1};
  auto out = RunMs("QGemm",
                   {a, Tensor::FromVector<float>({0.1f}, {}), Tensor::FromVector<uint8_t>({128}, {}), b,
                    Tensor::FromVector<float>(bs, {2}), Tensor::FromVector<int8_t>(bz, {2}),
                    Tensor::FromVector<int32_t>({100, -50}, {2})},
                   at);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ((*out)[0].dims(), (Dims{2, 2}));
  ASSERT_EQ((*out)[0].dtype(), DataType::kFloat32);
  for (int m = 0; m < 2; ++m) {
    for (int n = 0; n < 2; ++n) {
      int32_t acc = n == 0 ? 100 : -50;
      for (int k = 0; k < 3; ++k)
        acc += (int32_t(a.data<uint8_t>()[k * 2 + m]) - 128) * (int32_t(b.data<int8_t>()[n * 3 + k]) - bz[n]);
      const float want = float(acc) * ((0.5f * 0.1f) * bs[size_t(n)]);
      EXPECT_EQ((*out)[0].data<float>()[m * 2 + n], want) << m << "," << n;
    }
  }
  EXPECT_FALSE(RunMs("QGemm",
                     {a, Tensor::FromVector<float>({0.1f}, {}), Tensor::FromVector<uint8_t>({128}, {}),
                      Tensor::FromVector<int8_t>({1, 2}, {1, 2}), Tensor::FromVector<float>({1}, {}),
                      Tensor::FromVector<int8_t>({0}, {})},
                     {})
                   .ok());  // K mismatch
}

TEST(GeluFamily, Formulas) {
  const std::vector<float> v = {-3, -0.5f, 0, 0.7f, 2.5f};
  const Tensor x = Tensor::FromVector<float>(v, {1, 5});
  const Tensor bias = Tensor::FromVector<float>({0.1f, 0.2f, 0.3f, 0.4f, 0.5f}, {5});
  auto gelu = RunMs("Gelu", {x}, {});
  auto bias_gelu = RunMs("BiasGelu", {x, bias}, {});
  auto fast = RunMs("FastGelu", {x}, {});
  auto quick = RunMs("QuickGelu", {x}, {});
  ASSERT_TRUE(gelu.ok() && bias_gelu.ok() && fast.ok() && quick.ok());
  for (size_t i = 0; i < v.size(); ++i) {
    const double t = v[i], tb = t + bias.data<float>()[i];
    EXPECT_NEAR((*gelu)[0].data<float>()[i], 0.5 * t * (1 + std::erf(t / std::sqrt(2.0))), 1e-6);
    EXPECT_NEAR((*bias_gelu)[0].data<float>()[i], 0.5 * tb * (1 + std::erf(tb / std::sqrt(2.0))), 1e-6);
    EXPECT_NEAR((*fast)[0].data<float>()[i], 0.5 * t * (1 + std::tanh(0.7978845608 * (t + 0.044715 * t * t * t))),
                1e-6);
    EXPECT_NEAR((*quick)[0].data<float>()[i], t / (1 + std::exp(-1.702 * t)), 1e-6);
  }
  EXPECT_FALSE(RunMs("BiasGelu", {x, Tensor::FromVector<float>({1, 2}, {2})}, {}).ok());
}

TEST(SkipLayerNormalization, NormalizesTheSumAndReturnsIt) {
  const int n = 12;
  std::vector<float> x(2 * n), skip(2 * n), gamma(n), beta(n), bias(n);
  for (int i = 0; i < 2 * n; ++i) x[size_t(i)] = std::sin(float(i)), skip[size_t(i)] = std::cos(float(i) * 0.3f);
  for (int i = 0; i < n; ++i)
    gamma[size_t(i)] = 1 + 0.1f * float(i), beta[size_t(i)] = 0.05f * float(i), bias[size_t(i)] = -0.2f;
  Attributes at;
  at.Set("epsilon", 1e-5f);
  auto out = RunMs("SkipLayerNormalization",
                   {Tensor::FromVector<float>(x, {2, n}), Tensor::FromVector<float>(skip, {2, n}),
                    Tensor::FromVector<float>(gamma, {n}), Tensor::FromVector<float>(beta, {n}),
                    Tensor::FromVector<float>(bias, {n})},
                   at, 4);
  ASSERT_TRUE(out.ok()) << out.status().message();
  for (int r = 0; r < 2; ++r) {
    double mean = 0, var = 0;
    std::vector<double> s(n);
    for (int i = 0; i < n; ++i)
      s[size_t(i)] = double(x[size_t(r * n + i)]) + skip[size_t(r * n + i)] + bias[size_t(i)], mean += s[size_t(i)];
    mean /= n;
    for (int i = 0; i < n; ++i) var += (s[size_t(i)] - mean) * (s[size_t(i)] - mean);
    const double inv = 1 / std::sqrt(var / n + 1e-5);
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR((*out)[0].data<float>()[r * n + i], (s[size_t(i)] - mean) * inv * gamma[size_t(i)] + beta[size_t(i)],
                  1e-5);
      EXPECT_NEAR((*out)[3].data<float>()[r * n + i], s[size_t(i)], 1e-6);
    }
    EXPECT_NEAR((*out)[2].data<float>()[r], inv, 1e-4);
  }
}

TEST(QLinearSoftmax, EqualCodesShareTheRowEvenly) {
  // Every code equal: each output is nearbyint(floor(1 / y_scale) / D) + y_zp, whatever x_scale.
  Attributes at;
  at.Set("opset", int64_t(13));
  for (int64_t d : {1, 2, 7, 256}) {
    const Tensor x = Tensor::FromVector<uint8_t>(std::vector<uint8_t>(size_t(2 * d), 77), {2, d});
    auto out = RunMs("QLinearSoftmax",
                     {x, Tensor::FromVector<float>({0.3f}, {}), Tensor::FromVector<uint8_t>({5}, {}),
                      Tensor::FromVector<float>({1.f / 256}, {}), Tensor::FromVector<uint8_t>({3}, {})},
                     at);
    ASSERT_TRUE(out.ok()) << out.status().message();
    // D = 1: e[255] * 256 overflows float, and ONNX Runtime's cast of the infinite quotient gives
    // 0, so the output is the zero point (tests/data/audit/qlinearsoftmax_u8_short_rows_1).
    const int want = d == 1 ? 3 : std::min(255, int(std::nearbyint(256.0 / double(d))) + 3);
    for (int64_t i = 0; i < 2 * d; ++i) ASSERT_EQ(int((*out)[0].data<uint8_t>()[i]), want) << "D " << d;
  }
}

TEST(QLinearSoftmax, SaturatesAndRejectsBadAttributes) {
  // One dominant code: its share rounds to floor(1 / 0.003) = 333, above both 8-bit ranges.
  Attributes at;
  at.Set("opset", int64_t(12));
  at.Set("axis", int64_t(1));
  const Tensor xs = Tensor::FromVector<int8_t>({127, -128, -128}, {1, 3});
  auto s8 = RunMs("QLinearSoftmax",
                  {xs, Tensor::FromVector<float>({1.f}, {}), Tensor::FromVector<int8_t>({0}, {}),
                   Tensor::FromVector<float>({0.003f}, {}), Tensor::FromVector<int8_t>({-128}, {})},
                  at);
  ASSERT_TRUE(s8.ok()) << s8.status().message();
  EXPECT_EQ(int((*s8)[0].data<int8_t>()[0]), 127);  // 333 - 128 = 205, saturated
  EXPECT_EQ(int((*s8)[0].data<int8_t>()[1]), -128);
  Attributes no_opset;
  auto bad = RunMs("QLinearSoftmax",
                   {xs, Tensor::FromVector<float>({1.f}, {}), Tensor::FromVector<int8_t>({0}, {}),
                    Tensor::FromVector<float>({0.003f}, {})},
                   no_opset);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("opset"), std::string::npos) << bad.status().message();
  Attributes far_axis = at;
  far_axis.Set("axis", int64_t(2));
  EXPECT_FALSE(RunMs("QLinearSoftmax",
                     {xs, Tensor::FromVector<float>({1.f}, {}), Tensor::FromVector<int8_t>({0}, {}),
                      Tensor::FromVector<float>({0.003f}, {})},
                     far_axis)
                   .ok());
}

TEST(QLinearAveragePool, WindowAverageOfDequantizedCodes) {
  // [1, 1, 1, 4], kernel 1x2, stride 2: windows {10, 11} and {200, 255}, zero points 10 and 0.
  Attributes at;
  at.Set("kernel_shape", std::vector<int64_t>{1, 2});
  at.Set("strides", std::vector<int64_t>{1, 2});
  const Tensor x = Tensor::FromVector<uint8_t>({10, 11, 200, 255}, {1, 1, 1, 4});
  auto out = RunMs("QLinearAveragePool",
                   {x, Tensor::FromVector<float>({0.5f}, {}), Tensor::FromVector<uint8_t>({10}, {}),
                    Tensor::FromVector<float>({0.25f}, {}), Tensor::FromVector<uint8_t>({0}, {})},
                   at);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ((*out)[0].dims(), (Dims{1, 1, 1, 2}));
  // (0 + 0.5) / 2 / 0.25 = 1; (95 + 122.5) / 2 / 0.25 = 435 -> 255.
  EXPECT_EQ(int((*out)[0].data<uint8_t>()[0]), 1);
  EXPECT_EQ(int((*out)[0].data<uint8_t>()[1]), 255);
  Attributes bad;
  bad.Set("kernel_shape", std::vector<int64_t>{2});
  EXPECT_FALSE(RunMs("QLinearAveragePool",
                     {x, Tensor::FromVector<float>({0.5f}, {}), Tensor::FromVector<uint8_t>({10}, {}),
                      Tensor::FromVector<float>({0.25f}, {})},
                     bad)
                   .ok());
}

TEST(MatMulIntegerToFloat, ScalesThenAddsTheBias) {
  // A [2, 3] u8 (zp 100), B [3, 2] s8 per-column zero points and scales, bias [2].
  const std::vector<uint8_t> a = {100, 101, 255, 0, 90, 130};
  const std::vector<int8_t> b = {1, -2, 127, -128, 5, 6};
  const std::vector<int8_t> bz = {0, -1};
  const std::vector<float> bs = {0.5f, 0.03f}, bias = {1.5f, -2.f};
  auto out = RunMs("MatMulIntegerToFloat",
                   {Tensor::FromVector<uint8_t>(a, {2, 3}), Tensor::FromVector<int8_t>(b, {3, 2}),
                    Tensor::FromVector<float>({0.1f}, {}), Tensor::FromVector<float>(bs, {2}),
                    Tensor::FromVector<uint8_t>({100}, {}), Tensor::FromVector<int8_t>(bz, {2}),
                    Tensor::FromVector<float>(bias, {2})},
                   {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      int32_t acc = 0;
      for (int k = 0; k < 3; ++k) acc += (int32_t(a[size_t(i * 3 + k)]) - 100) * (b[size_t(k * 2 + j)] - bz[size_t(j)]);
      const float want = float(acc) * (0.1f * bs[size_t(j)]) + bias[size_t(j)];
      EXPECT_EQ((*out)[0].data<float>()[i * 2 + j], want) << i << "," << j;
    }
  }
  // B of rank 3 is refused, as is a bias of the wrong length.
  EXPECT_FALSE(RunMs("MatMulIntegerToFloat",
                     {Tensor::FromVector<uint8_t>(a, {2, 3}), Tensor::FromVector<int8_t>(b, {1, 3, 2}),
                      Tensor::FromVector<float>({0.1f}, {}), Tensor::FromVector<float>({0.5f}, {})},
                     {})
                   .ok());
  EXPECT_FALSE(RunMs("MatMulIntegerToFloat",
                     {Tensor::FromVector<uint8_t>(a, {2, 3}), Tensor::FromVector<int8_t>(b, {3, 2}),
                      Tensor::FromVector<float>({0.1f}, {}), Tensor::FromVector<float>({0.5f}, {}), Tensor(), Tensor(),
                      Tensor::FromVector<float>({1.f, 2.f, 3.f}, {3})},
                     {})
                   .ok());
}

TEST(DynamicQuantizeMatMul, ZeroInputGivesTheBias) {
  // An all-zero A has scale 1 and zero point 0 (not 0 as DynamicQuantizeLinear's), so Y = bias.
  auto out = RunMs("DynamicQuantizeMatMul",
                   {Tensor::FromVector<float>(std::vector<float>(6, 0.f), {2, 3}),
                    Tensor::FromVector<int8_t>({1, 2, 3, 4, 5, 6}, {3, 2}), Tensor::FromVector<float>({0.25f}, {}),
                    Tensor(), Tensor::FromVector<float>({0.75f, -1.f}, {2})},
                   {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].data<float>()[0], 0.75f);
  EXPECT_EQ((*out)[0].data<float>()[3], -1.f);
  // A = [-1, 0, 2]: lo -1, hi 2, scale 3/255, zero point 85; codes 0, 85, 255.
  auto one = RunMs("DynamicQuantizeMatMul",
                   {Tensor::FromVector<float>({-1.f, 0.f, 2.f}, {1, 3}), Tensor::FromVector<int8_t>({1, 0, 0}, {3, 1}),
                    Tensor::FromVector<float>({1.f}, {})},
                   {});
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ((*one)[0].data<float>()[0], float(0 - 85) * (3.0f / 255.0f));
}

// Attention with one head of size 1, Q = K = V = x (weights [1, 1, 1], bias 0) and scale 1:
// scores x_i x_j, so row 0 of x = [0, 1] averages [0, 1] and row 1 weights key 1 by e / (1 + e).
// A key mask dropping key 1 leaves both rows on key 0; causal rows mask key 1 for row 0 only
// (ORT never masks the last row causally).
TEST(Attention, OneHeadByHand) {
  const Tensor x = Tensor::FromVector<float>({0.f, 1.f}, {1, 2, 1});
  const Tensor w = Tensor::FromVector<float>({1.f, 1.f, 1.f}, {1, 3});
  const Tensor bias = Tensor::FromVector<float>({0.f, 0.f, 0.f}, {3});
  const float e = std::exp(1.f);
  Attributes attrs;
  attrs.Set("num_heads", int64_t(1));
  attrs.Set("scale", 1.f);
  for (Isa isa : TiersThisCpuHas()) {
    auto plain = RunMs("Attention", {x, w, bias}, attrs, 1, isa);
    ASSERT_TRUE(plain.ok()) << plain.status().message();
    EXPECT_NEAR((*plain)[0].data<float>()[0], 0.5f, 1e-6f);
    EXPECT_NEAR((*plain)[0].data<float>()[1], e / (1.f + e), 1e-6f);
    auto masked = RunMs("Attention", {x, w, bias, Tensor::FromVector<int32_t>({1, 0}, {1, 2})}, attrs, 1, isa);
    ASSERT_TRUE(masked.ok()) << masked.status().message();
    EXPECT_NEAR((*masked)[0].data<float>()[0], 0.f, 1e-30f);
    EXPECT_NEAR((*masked)[0].data<float>()[1], 0.f, 1e-30f);
    Attributes causal = attrs;
    causal.Set("unidirectional", int64_t(1));
    auto rows = RunMs("Attention", {x, w, bias}, causal, 1, isa);
    ASSERT_TRUE(rows.ok()) << rows.status().message();
    EXPECT_EQ((*rows)[0].data<float>()[0], 0.f);
    EXPECT_NEAR((*rows)[0].data<float>()[1], e / (1.f + e), 1e-6f);
  }
}

// What ORT's CPU kernel refuses (or crashes on) is a clear error naming the reason.
TEST(Attention, RefusesWithReasons) {
  const Tensor x = Tensor::FromVector<float>(std::vector<float>(2 * 3 * 4, 0.5f), {2, 3, 4});
  const Tensor w = Tensor::FromVector<float>(std::vector<float>(4 * 12, 0.1f), {4, 12});
  const Tensor bias = Tensor::FromVector<float>(std::vector<float>(12, 0.f), {12});
  const Tensor none;
  Attributes attrs;
  attrs.Set("num_heads", int64_t(2));
  auto expect_error = [&](const std::vector<Tensor>& in, const Attributes& a, const std::string& words) {
    auto r = RunMs("Attention", in, a);
    ASSERT_FALSE(r.ok()) << words;
    EXPECT_NE(r.status().message().find(words), std::string::npos) << r.status().message();
  };
  expect_error({x, w}, attrs, "bias is required");
  Attributes rotary = attrs;
  rotary.Set("do_rotary", int64_t(1));
  expect_error({x, w, bias}, rotary, "do_rotary");
  Attributes three = attrs;
  three.Set("num_heads", int64_t(3));
  expect_error({x, w, bias}, three, "not a multiple of num_heads");
  expect_error({x, w, bias, Tensor::FromVector<int32_t>({1, 1, 1, 1, 1}, {5})}, attrs, "key mask of shape [5]");
  const Tensor past = Tensor::FromVector<float>(std::vector<float>(2 * 2 * 2 * 1 * 2, 0.f), {2, 2, 2, 1, 2});
  const Tensor attn_bias = Tensor::FromVector<float>(std::vector<float>(2 * 3 * 4, 0.f), {1, 2, 3, 4});
  expect_error({x, w, bias, none, past, attn_bias}, attrs, "past and attention_bias");
  expect_error({x, w, bias, Tensor::FromVector<int32_t>({3, -1}, {2})}, attrs, "is negative");
}

// MultiHeadAttention, one head of size 1, Q = K = V = x = [0, 1], scale 1: the qk output is the
// scores x_s x_t before their softmax, present_key is past then the new keys, and the plain and
// flash paths give the by-hand averages (ORT_DISABLE_FLASH_ATTENTION picks the plain one).
TEST(MultiHeadAttention, OneHeadByHandOnBothPaths) {
  const Tensor x = Tensor::FromVector<float>({0.f, 1.f}, {1, 2, 1});
  const float e = std::exp(1.f);
  Attributes attrs;
  attrs.Set("num_heads", int64_t(1));
  attrs.Set("scale", 1.f);
  const Tensor none;
  auto with_qk = RunMs("MultiHeadAttention", {x, x, x}, attrs, 4);
  ASSERT_TRUE(with_qk.ok()) << with_qk.status().message();
  EXPECT_EQ((*with_qk)[3].dims(), (Dims{1, 1, 2, 2}));
  const float want_qk[4] = {0.f, 0.f, 0.f, 1.f};
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*with_qk)[3].data<float>()[i], want_qk[i]) << i;
  EXPECT_EQ((*with_qk)[1].data<float>()[1], 1.f);  // present_key = the keys (no past)
  for (const char* flash : {"0", "1"}) {
    setenv("ORT_DISABLE_FLASH_ATTENTION", flash, 1);
    auto out = RunMs("MultiHeadAttention", {x, x, x}, attrs);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_NEAR((*out)[0].data<float>()[0], 0.5f, 1e-6f) << flash;
    EXPECT_NEAR((*out)[0].data<float>()[1], e / (1.f + e), 1e-6f) << flash;
  }
  unsetenv("ORT_DISABLE_FLASH_ATTENTION");
  const Tensor past = Tensor::FromVector<float>({3.f}, {1, 1, 1, 1});
  auto with_past = RunMs("MultiHeadAttention", {x, x, x, none, none, none, past, past}, attrs, 3);
  ASSERT_TRUE(with_past.ok()) << with_past.status().message();
  EXPECT_EQ((*with_past)[1].dims(), (Dims{1, 1, 3, 1}));
  const float want_present[3] = {3.f, 0.f, 1.f};
  for (int i = 0; i < 3; ++i) EXPECT_EQ((*with_past)[1].data<float>()[i], want_present[i]) << i;
}

TEST(MultiHeadAttention, RefusesWithReasons) {
  const Tensor q = Tensor::FromVector<float>(std::vector<float>(2 * 3 * 8, 0.5f), {2, 3, 8});
  Attributes attrs;
  attrs.Set("num_heads", int64_t(2));
  auto expect_error = [&](const std::vector<Tensor>& in, const std::string& words) {
    auto r = RunMs("MultiHeadAttention", in, attrs);
    ASSERT_FALSE(r.ok()) << words;
    EXPECT_NE(r.status().message().find(words), std::string::npos) << r.status().message();
  };
  expect_error({q}, "without key and value");
  expect_error({Tensor::FromVector<float>(std::vector<float>(2 * 3 * 2 * 3 * 4, 0.f), {2, 3, 2, 3, 4})},
               "packed Q, K and V");
  const Tensor k = Tensor::FromVector<float>(std::vector<float>(2 * 5 * 8, 0.5f), {2, 5, 8});
  expect_error({q, Tensor::FromVector<float>(std::vector<float>(2 * 5 * 7, 0.f), {2, 5, 7}), k}, "do not fit query");
  expect_error({q, k, k, Tensor(), Tensor::FromVector<int32_t>({1, 2, 3, 4}, {4})}, "key mask of shape [4]");
  // past_sequence_length outside ORT's decoding step: ORT's kernel writes past its buffers there.
  const Tensor one = Tensor::FromVector<float>(std::vector<float>(2 * 8, 0.5f), {2, 1, 8});
  const Tensor past = Tensor::FromVector<float>(std::vector<float>(2 * 2 * 6 * 4, 0.f), {2, 2, 6, 4});
  const Tensor p3 = Tensor::FromVector<int32_t>({3}, {});
  expect_error({one, one, one, Tensor(), Tensor(), Tensor(), past, past, p3}, "without cache_indirection");
  const Tensor beams = Tensor::FromVector<int32_t>(std::vector<int32_t>(2 * 6, 0), {1, 2, 6});
  auto decode = [&](const Tensor& p, int outputs) {
    return RunMs("MultiHeadAttention", {one, one, one, Tensor(), Tensor(), Tensor(), past, past, p, beams}, attrs,
                 outputs);
  };
  auto no_present = decode(p3, 1);
  ASSERT_FALSE(no_present.ok());
  EXPECT_NE(no_present.status().message().find("without present_key"), std::string::npos);
  auto empty_past = decode(Tensor::FromVector<int32_t>({0}, {}), 3);
  ASSERT_FALSE(empty_past.ok());
  EXPECT_NE(empty_past.status().message().find("past_sequence_length 0"), std::string::npos);
  auto step = decode(p3, 3);  // zero past, one token: every probability on zero values
  ASSERT_TRUE(step.ok()) << step.status().message();
  EXPECT_EQ((*step)[1].dims(), (Dims{2, 2, 6, 4}));
  EXPECT_EQ((*step)[1].data<float>()[3 * 4], 0.5f);  // present_key row 3 of (0, 0): the new key
}

// DynamicQuantizeLSTM's refusals: a sequence length past the sequence, per-column uint8 zero
// points that differ (ORT's kernel takes one), layout 1, an unknown activation.
TEST(DynamicQuantizeLstm, RefusesWithReasons) {
  const int64_t seq = 2, batch = 1, in = 3, hidden = 2;
  const Tensor x = Tensor::FromVector<float>(std::vector<float>(seq * batch * in, 0.5f), {seq, batch, in});
  Tensor w = Tensor::Allocate(DataType::kUInt8, {1, in, 4 * hidden}).value();
  Tensor r = Tensor::Allocate(DataType::kUInt8, {1, hidden, 4 * hidden}).value();
  const Tensor scale = Tensor::FromVector<float>({0.01f}, {1});
  Tensor zp = Tensor::Allocate(DataType::kUInt8, {1}).value();
  Tensor zp_columns = Tensor::Allocate(DataType::kUInt8, {1, 4 * hidden}).value();
  static_cast<uint8_t*>(zp_columns.raw())[3] = 7;
  const Tensor scale_columns = Tensor::FromVector<float>(std::vector<float>(4 * hidden, 0.01f), {1, 4 * hidden});
  const Tensor none;
  Attributes attrs;
  attrs.Set("hidden_size", hidden);
  auto expect_error = [&](const std::vector<Tensor>& inputs, const Attributes& a, const std::string& words) {
    auto got = RunMs("DynamicQuantizeLSTM", inputs, a, 1, kIsaAuto, 5);
    ASSERT_FALSE(got.ok()) << words;
    EXPECT_NE(got.status().message().find(words), std::string::npos) << got.status().message();
  };
  const Tensor too_long = Tensor::FromVector<int32_t>({3}, {1});
  expect_error({x, w, r, none, too_long, none, none, none, scale, zp, scale, zp}, attrs, "is not in [0, 2]");
  expect_error({x, w, r, none, none, none, none, none, scale_columns, zp_columns, scale, zp}, attrs,
               "must be all equal");
  Attributes layout = attrs;
  layout.Set("layout", int64_t(1));
  expect_error({x, w, r, none, none, none, none, none, scale, zp, scale, zp}, layout, "layout 1");
  Attributes unknown = attrs;
  unknown.Set("activations", std::vector<std::string>{"Sigmoid", "Cosh", "Tanh"});
  expect_error({x, w, r, none, none, none, none, none, scale, zp, scale, zp}, unknown, "unknown activation \"cosh\"");
}

}  // namespace
}  // namespace qrt
