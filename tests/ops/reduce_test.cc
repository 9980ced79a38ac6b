// ReduceMean: axes as attribute and input, the float32 sum order, int32 truncation, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::AxisAttr;
using testing::Data;
using testing::Known;
using testing::Omitted;
using testing::RunSingleNode;
using testing::Values;

TEST(ReduceMean, ReduceMeanAxesAttributeAndInput) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Attributes a;
  a.Set("axes", std::vector<int64_t>{-1});
  a.Set("keepdims", int64_t(0));
  auto attr = RunSingleNode("ReduceMean", 13, {Data(x)}, a);
  ASSERT_TRUE(attr.ok()) << attr.status().message();
  EXPECT_EQ((*attr)[0].dims(), (Dims{2}));
  EXPECT_EQ(Values<float>((*attr)[0]), (std::vector<float>{2, 5}));

  auto input = RunSingleNode("ReduceMean", 18, {Data(x), Known(Tensor::FromVector<int64_t>({0}, {1}))}, {});
  ASSERT_TRUE(input.ok()) << input.status().message();
  EXPECT_EQ((*input)[0].dims(), (Dims{1, 3}));
  EXPECT_EQ(Values<float>((*input)[0]), (std::vector<float>{2.5f, 3.5f, 4.5f}));

  auto all = RunSingleNode("ReduceMean", 18, {Data(x)}, {});
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ((*all)[0].dims(), (Dims{1, 1}));
  EXPECT_EQ(Values<float>((*all)[0]), (std::vector<float>{3.5f}));

  Attributes noop;
  noop.Set("noop_with_empty_axes", int64_t(1));
  auto same = RunSingleNode("ReduceMean", 18, {Data(x), Omitted()}, noop);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ((*same)[0].dims(), (Dims{2, 3}));
  EXPECT_EQ(Values<float>((*same)[0]), Values<float>(x));
}

// float32 folds in ONNX Runtime's order for the reduction's shape (docs/float-order.md):
// values spread over 2^40, so that any other order gives other bits. The expected sums are
// written out here from the order's description, not through the kernel's helpers.

std::vector<float> Spread(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (float& e : v) {
    seed = seed * 1664525u + 1013904223u;
    e = std::ldexp(float(int32_t(seed >> 8) - (1 << 23)), int(seed % 41) - 30);
  }
  return v;
}

// Eigen's 4-float packet order for a row starting `lead` elements before a 16-byte boundary.
float EigenOrderSum(const float* x, int n, int lead) {
  const int packets = (n - lead) / 4;
  if (packets == 0) {
    float r = x[0];
    for (int i = 1; i < n; ++i) r += x[i];
    return r;
  }
  float a[4], b[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; ++k) a[k] = x[lead + k];
  if (packets >= 2) {
    for (int k = 0; k < 4; ++k) b[k] = x[lead + 4 + k];
    int p = 2;
    for (; p + 1 < packets; p += 2) {
      for (int k = 0; k < 4; ++k) a[k] += x[lead + 4 * p + k], b[k] += x[lead + 4 * p + 4 + k];
    }
    for (int k = 0; k < 4; ++k) a[k] += b[k];
    if (p < packets) {
      for (int k = 0; k < 4; ++k) a[k] += x[lead + 4 * p + k];
    }
  }
  float r = (a[0] + a[2]) + (a[1] + a[3]);
  for (int i = 0; i < lead; ++i) r += x[i];
  for (int i = lead + 4 * packets; i < n; ++i) r += x[i];
  return r;
}

TEST(ReduceMean, Float32LastAxisInEigenOrderOtherAxesInInputOrder) {
  const int rows = 5, n = 37;
  const std::vector<float> v = Spread(rows * n, 12345);
  const Tensor x = Tensor::FromVector<float>(v, {rows, n});
  Attributes a;
  a.Set("keepdims", int64_t(0));
  auto last = RunSingleNode("ReduceMean", 18, {Data(x), Known(testing::I64({1}))}, a);
  ASSERT_TRUE(last.ok()) << last.status().message();
  for (int r = 0; r < rows; ++r) {
    const int lead = (4 - (r * n) % 4) % 4;
    const float want = EigenOrderSum(v.data() + r * n, n, lead) / float(n);
    EXPECT_EQ(std::memcmp(&(*last)[0].data<float>()[r], &want, 4), 0) << "row " << r << " lead " << lead;
  }
  auto first = RunSingleNode("ReduceSum", 18, {Data(x), Known(testing::I64({0}))}, a);
  ASSERT_TRUE(first.ok()) << first.status().message();
  for (int c = 0; c < n; ++c) {
    float want = v[size_t(c)];
    for (int r = 1; r < rows; ++r) want += v[size_t(r * n + c)];
    EXPECT_EQ(std::memcmp(&(*first)[0].data<float>()[c], &want, 4), 0) << "column " << c;
  }
}

TEST(ReduceSum, Float32MiddleAxisInGroupsOfFour) {
  const int outer = 2, n = 11, inner = 3;
  const std::vector<float> v = Spread(outer * n * inner, 777);
  auto out = RunSingleNode("ReduceSum", 18,
                           {Data(Tensor::FromVector<float>(v, {outer, n, inner})), Known(testing::I64({1}))}, {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  for (int o = 0; o < outer; ++o) {
    for (int k = 0; k < inner; ++k) {
      auto at = [&](int j) { return v[size_t((o * n + j) * inner + k)]; };
      float c = ((at(0) + at(1)) + at(2)) + at(3);
      c = (((at(4) + at(5)) + at(6)) + at(7)) + c;
      c = (at(8) + at(9)) + c;
      c = at(10) + c;
      EXPECT_EQ(std::memcmp(&(*out)[0].data<float>()[o * inner + k], &c, 4), 0) << o << "," << k;
    }
  }
}

TEST(ReduceOps, EdgeCases) {
  Attributes keep0;
  keep0.Set("keepdims", int64_t(0));
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // Max/Min propagate NaN; empty reductions give the identities.
  auto mx = RunSingleNode("ReduceMax", 18,
                          {Data(Tensor::FromVector<float>({1, nan, 3, 2}, {2, 2})), Known(testing::I64({1}))}, keep0);
  ASSERT_TRUE(mx.ok()) << mx.status().message();
  EXPECT_TRUE(std::isnan(Values<float>((*mx)[0])[0]));
  EXPECT_EQ(Values<float>((*mx)[0])[1], 3.f);
  const Tensor empty = Tensor::Allocate(DataType::kFloat32, {2, 0}).value();
  for (auto [op, want] : std::vector<std::pair<const char*, float>>{{"ReduceSum", 0.f},
                                                                    {"ReduceProd", 1.f},
                                                                    {"ReduceMax", -inf},
                                                                    {"ReduceMin", inf},
                                                                    {"ReduceLogSumExp", -inf}}) {
    auto got = RunSingleNode(op, 18, {Data(empty), Known(testing::I64({1}))}, keep0);
    ASSERT_TRUE(got.ok()) << op << ": " << got.status().message();
    EXPECT_EQ(Values<float>((*got)[0]), (std::vector<float>{want, want})) << op;
  }
  // Integers wrap; int8 Max; the L2 of integers.
  auto sum =
      RunSingleNode("ReduceSum", 13, {Data(Tensor::FromVector<int32_t>({2147483647, 1}, {2})), Omitted()}, keep0);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_EQ(Values<int32_t>((*sum)[0]), (std::vector<int32_t>{-2147483647 - 1}));
  auto i8 = RunSingleNode("ReduceMax", 18, {Data(Tensor::FromVector<int8_t>({-128, 5, -3}, {3}))}, keep0);
  ASSERT_TRUE(i8.ok()) << i8.status().message();
  EXPECT_EQ(Values<int8_t>((*i8)[0]), (std::vector<int8_t>{5}));
  // Opset 13 ReduceSum takes axes as an input; ReduceProd at 13 as an attribute.
  Attributes axes;
  axes.Set("axes", std::vector<int64_t>{0});
  axes.Set("keepdims", int64_t(0));
  auto prod = RunSingleNode("ReduceProd", 13, {Data(Tensor::FromVector<float>({2, 3, 4, 5}, {2, 2}))}, axes);
  ASSERT_TRUE(prod.ok()) << prod.status().message();
  EXPECT_EQ(Values<float>((*prod)[0]), (std::vector<float>{8, 15}));
  // LogSumExp does not overflow on large inputs.
  auto lse = RunSingleNode("ReduceLogSumExp", 18, {Data(Tensor::FromVector<float>({1000, 1000}, {2}))}, keep0);
  ASSERT_TRUE(lse.ok()) << lse.status().message();
  EXPECT_NEAR(Values<float>((*lse)[0])[0], 1000.f + std::log(2.f), 1e-3);
  // bool input is refused except by Max/Min.
  EXPECT_FALSE(RunSingleNode("ReduceSum", 13, {Data(Tensor::FromVector<bool>({true}, {1}))}, keep0).ok());
}

TEST(ReduceMean, ReduceMeanInt32TruncatesAndBadAxesFail) {
  Attributes a;
  a.Set("axes", std::vector<int64_t>{1});
  auto out = RunSingleNode("ReduceMean", 13, {Data(Tensor::FromVector<int32_t>({1, 2, -1, -2}, {2, 2}))}, a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{1, -1}));  // 1.5 -> 1, -1.5 -> -1
  a.Set("axes", std::vector<int64_t>{2});
  EXPECT_FALSE(RunSingleNode("ReduceMean", 13, {Data(Tensor::FromVector<float>({1, 2}, {1, 2}))}, a).ok());
  a.Set("axes", std::vector<int64_t>{1, -1});
  EXPECT_FALSE(RunSingleNode("ReduceMean", 13, {Data(Tensor::FromVector<float>({1, 2}, {1, 2}))}, a).ok());
}

}  // namespace
}  // namespace qrt
