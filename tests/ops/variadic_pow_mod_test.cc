// Max/Min/Sum/Mean, Pow and Mod (ops/variadic.cc, ops/pow.cc, ops/mod.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::Known;
using testing::RunSingleNode;
using testing::Values;

TEST(Variadic, FoldsLeftToRightWithBroadcasting) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor a = Tensor::FromVector<float>({1, 5, nan, 2}, {2, 2});
  const Tensor b = Tensor::FromVector<float>({3, 0}, {2});
  const Tensor c = Tensor::FromVector<float>({4}, {1});
  auto mx = RunSingleNode("Max", 13, {Data(a), Data(b), Data(c)}, {});
  ASSERT_TRUE(mx.ok()) << mx.status().message();
  const std::vector<float> m = Values<float>((*mx)[0]);
  EXPECT_EQ(m[0], 4.f);
  EXPECT_EQ(m[1], 5.f);
  EXPECT_TRUE(std::isnan(m[2]));
  EXPECT_EQ(m[3], 4.f);
  // Mean is the left-to-right float sum times 1/count.
  const Tensor x = Tensor::FromVector<float>({1e8f, 1}, {2});
  const Tensor y = Tensor::FromVector<float>({1, 1e-8f}, {2});
  const Tensor z = Tensor::FromVector<float>({-1e8f, 3}, {2});
  auto mean = RunSingleNode("Mean", 13, {Data(x), Data(y), Data(z)}, {});
  ASSERT_TRUE(mean.ok());
  const float want0 = ((1e8f + 1.f) + -1e8f) * (1.f / 3.f);
  const float want1 = ((1.f + 1e-8f) + 3.f) * (1.f / 3.f);
  EXPECT_EQ(Values<float>((*mean)[0]), (std::vector<float>{want0, want1}));
  // One input is a copy; int Min works; int Sum is refused (ONNX defines float Sum only).
  auto one = RunSingleNode("Sum", 13, {Data(a)}, {});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(std::memcmp((*one)[0].raw(), a.raw(), a.nbytes()), 0);
  auto mn = RunSingleNode(
      "Min", 13, {Data(Tensor::FromVector<int32_t>({3, -7}, {2})), Data(Tensor::FromVector<int32_t>({0}, {1}))}, {});
  ASSERT_TRUE(mn.ok());
  EXPECT_EQ(Values<int32_t>((*mn)[0]), (std::vector<int32_t>{0, -7}));
  EXPECT_FALSE(RunSingleNode("Sum", 13, {Data(Tensor::FromVector<int32_t>({3}, {1}))}, {}).ok());
}

TEST(Pow, SquaresAndCubesMultiplyOtherExponentsCallPow) {
  const std::vector<float> v = {1.1f, 2.3f, 0.7f};
  const Tensor x = Tensor::FromVector<float>(v, {3});
  for (float e : {2.f, 3.f, 0.5f, 2.2f}) {
    auto out = RunSingleNode("Pow", 15, {Data(x), Known(Tensor::FromVector<float>({e}, {}))}, {});
    ASSERT_TRUE(out.ok()) << out.status().message();
    for (size_t i = 0; i < v.size(); ++i) {
      const float want = e == 2.f ? v[i] * v[i] : e == 3.f ? (v[i] * v[i]) * v[i] : std::pow(v[i], e);
      EXPECT_EQ(Values<float>((*out)[0])[i], want) << "exponent " << e;
    }
  }
  // int32 base with an int64 exponent; float base with an int exponent through double.
  auto ip = RunSingleNode(
      "Pow", 15, {Data(Tensor::FromVector<int32_t>({2, -3}, {2})), Data(Tensor::FromVector<int64_t>({10, 3}, {2}))},
      {});
  ASSERT_TRUE(ip.ok()) << ip.status().message();
  EXPECT_EQ(Values<int32_t>((*ip)[0]), (std::vector<int32_t>{1024, -27}));
  EXPECT_FALSE(RunSingleNode("Pow", 15,
                             {Data(Tensor::FromVector<int8_t>({2}, {1})), Data(Tensor::FromVector<int8_t>({2}, {1}))},
                             {})
                   .ok());
}

TEST(Mod, SignRulesAndDivisionByZero) {
  const Tensor a = Tensor::FromVector<int32_t>({7, -7, 7, -7, 5, std::numeric_limits<int32_t>::min()}, {6});
  const Tensor b = Tensor::FromVector<int32_t>({3, 3, -3, -3, 0, -1}, {6});
  auto py = RunSingleNode("Mod", 13, {Data(a), Data(b)}, {});
  ASSERT_TRUE(py.ok()) << py.status().message();
  EXPECT_EQ(Values<int32_t>((*py)[0]), (std::vector<int32_t>{1, 2, -2, -1, 0, 0}));
  Attributes fmod;
  fmod.Set("fmod", int64_t(1));
  auto c = RunSingleNode("Mod", 13, {Data(a), Data(b)}, fmod);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Values<int32_t>((*c)[0]), (std::vector<int32_t>{1, -1, 1, -1, 0, 0}));
  auto f = RunSingleNode(
      "Mod", 13, {Data(Tensor::FromVector<float>({-5.5f}, {1})), Data(Tensor::FromVector<float>({2}, {1}))}, fmod);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(Values<float>((*f)[0]), (std::vector<float>{-1.5f}));
  EXPECT_FALSE(RunSingleNode("Mod", 13,
                             {Data(Tensor::FromVector<float>({1}, {1})), Data(Tensor::FromVector<float>({2}, {1}))}, {})
                   .ok());
}

}  // namespace
}  // namespace qrt
