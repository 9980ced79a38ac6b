// The random generators (ops/random.cc): ranges, new values on every run of a session, the same
// sequence from the same seed in a fresh compile, Bernoulli at probabilities 0 and 1, Multinomial's
// certain class, and bad attributes refused.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "loaders/model_builder.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::RunSingleNode;

// RandomUniform(shape [n], low 2, high 3), with a seed or without.
std::shared_ptr<const CompiledModel> Uniform(int64_t n, bool seeded) {
  ModelBuilder b("random", {{"", 13}}, false);
  NodeSpec node;
  node.name = "r", node.op_type = "RandomUniform", node.outputs = {"y"};
  node.attrs.Set("shape", std::vector<int64_t>{n});
  node.attrs.Set("low", 2.f);
  node.attrs.Set("high", 3.f);
  if (seeded) node.attrs.Set("seed", 7.f);
  EXPECT_TRUE(b.AddNode(std::move(node)).ok());
  EXPECT_TRUE(b.AddOutput("y", DataType::kUndefined, std::nullopt).ok());
  auto g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status().message();
  auto m = Compile(std::move(*g), {});
  EXPECT_TRUE(m.ok()) << m.status().message();
  return *m;
}

std::vector<float> Draw(Session& s) {
  std::vector<Tensor> out;
  EXPECT_TRUE(s.Run({}, &out).ok());
  return std::vector<float>(out[0].data<float>(), out[0].data<float>() + out[0].numel());
}

TEST(Random, UniformStaysInRangeAndDrawsAnewEachRun) {
  Session session(Uniform(1000, false));
  const std::vector<float> a = Draw(session), b = Draw(session);
  ASSERT_EQ(a.size(), 1000u);
  for (float v : a) ASSERT_TRUE(v >= 2.f && v < 3.f) << v;
  EXPECT_NE(a, b);  // the kernel runs every time, not once at plan time
  Session first(Uniform(8, true)), second(Uniform(8, true));
  EXPECT_EQ(Draw(first), Draw(second));  // the same seed, the same sequence
}

TEST(Random, BernoulliAndMultinomialAtCertainty) {
  Attributes seeded;
  seeded.Set("seed", 3.f);
  auto y = RunSingleNode("Bernoulli", 15, {Data(Tensor::FromVector<float>({0.f, 1.f, 1.f, 0.f}, {4}))}, seeded);
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(std::vector<float>((*y)[0].data<float>(), (*y)[0].data<float>() + 4), (std::vector<float>{0, 1, 1, 0}));
  Attributes samples;
  samples.Set("sample_size", int64_t(5));
  const float inf = INFINITY;
  auto m = RunSingleNode("Multinomial", 7, {Data(Tensor::FromVector<float>({-inf, 0.f, -inf}, {1, 3}))}, samples);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ((*m)[0].dims(), (Dims{1, 5}));
  for (int i = 0; i < 5; ++i) EXPECT_EQ((*m)[0].data<int32_t>()[i], 1);
}

TEST(Random, NormalHasItsMeanAndBadAttributesAreRefused) {
  Attributes a;
  a.Set("mean", 5.f);
  a.Set("scale", 0.1f);
  a.Set("seed", 1.f);
  auto y = RunSingleNode("RandomNormalLike", 13, {Data(Tensor::Allocate(DataType::kFloat32, {10000}).value())}, a);
  ASSERT_TRUE(y.ok()) << y.status().message();
  double sum = 0;
  for (int64_t i = 0; i < 10000; ++i) sum += (*y)[0].data<float>()[i];
  EXPECT_NEAR(sum / 10000, 5.0, 0.01);
  Attributes bad = a;
  bad.Set("scale", -1.f);
  EXPECT_FALSE(
      RunSingleNode("RandomNormalLike", 13, {Data(Tensor::Allocate(DataType::kFloat32, {4}).value())}, bad).ok());
  Attributes inverted;
  inverted.Set("low", 1.f);
  inverted.Set("high", 0.f);
  EXPECT_FALSE(
      RunSingleNode("RandomUniformLike", 13, {Data(Tensor::Allocate(DataType::kFloat32, {4}).value())}, inverted).ok());
}

TEST(Random, TrainingDropoutScalesWhatItKeeps) {
  std::vector<float> x(10000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f + float(i % 7);
  Attributes seeded;
  seeded.Set("seed", int64_t(11));
  auto y = RunSingleNode(
      "Dropout", 13,
      {Data(Tensor::FromVector<float>(x, {10000})), testing::Known(Tensor::FromVector<float>({0.25f}, {})),
       testing::Known(Tensor::FromVector<bool>({true}, {}))},
      seeded, 2);
  ASSERT_TRUE(y.ok()) << y.status().message();
  int kept = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const bool m = (*y)[1].data<bool>()[i];
    kept += m;
    ASSERT_EQ((*y)[0].data<float>()[i], m ? float(double(x[i]) / 0.75) : 0.f) << i;
  }
  EXPECT_NEAR(kept / 10000.0, 0.75, 0.02);
  // At inference, or with ratio 0, a copy and an all-true mask; a ratio of 1 is refused.
  auto copy =
      RunSingleNode("Dropout", 13,
                    {Data(Tensor::FromVector<float>({1, 2}, {2})), testing::Known(Tensor::FromVector<float>({0.f}, {})),
                     testing::Known(Tensor::FromVector<bool>({true}, {}))},
                    {}, 2);
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ((*copy)[0].data<float>()[1], 2.f);
  EXPECT_TRUE((*copy)[1].data<bool>()[0]);
  EXPECT_FALSE(
      RunSingleNode("Dropout", 13,
                    {Data(Tensor::FromVector<float>({1, 2}, {2})), testing::Known(Tensor::FromVector<float>({1.f}, {})),
                     testing::Known(Tensor::FromVector<bool>({true}, {}))},
                    {})
          .ok());
}

}  // namespace
}  // namespace qrt
