// com.microsoft ops: QGemm (against its integer definition), the GELU family and
// SkipLayerNormalization (against their formulas), and their errors. The QLinear table ops are
// checked bit for bit against ONNX Runtime in tests/data/audit.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "loaders/model_builder.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

// Runs one com.microsoft node whose inputs are all initializers but the first.
StatusOr<std::vector<Tensor>> RunMs(const std::string& op, const std::vector<Tensor>& inputs, const Attributes& attrs,
                                    int num_outputs = 1) {
  ModelBuilder b("contrib", {{"", 17}, {"com.microsoft", 1}}, false);
  NodeSpec node;
  node.name = "n";
  node.op_type = op;
  node.domain = "com.microsoft";
  node.attrs = attrs;
  QRT_RETURN_IF_ERROR(b.AddInput("x0", inputs[0].dtype(), std::nullopt));
  node.inputs.push_back("x0");
  for (size_t i = 1; i < inputs.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    if (inputs[i].dtype() == DataType::kUndefined) {
      node.inputs.push_back("");
      continue;
    }
    QRT_RETURN_IF_ERROR(b.AddInitializer(name, inputs[i].Clone()));
    node.inputs.push_back(name);
  }
  for (int o = 0; o < num_outputs; ++o) node.outputs.push_back("y" + std::to_string(o));
  QRT_RETURN_IF_ERROR(b.AddNode(std::move(node)));
  for (int o = 0; o < num_outputs; ++o) {
    QRT_RETURN_IF_ERROR(b.AddOutput("y" + std::to_string(o), DataType::kUndefined, std::nullopt));
  }
  QRT_ASSIGN_OR_RETURN(Graph g, b.Finish());
  return testing::RunGraph(std::move(g), {inputs[0].Clone()}, "none");
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

}  // namespace
}  // namespace qrt
