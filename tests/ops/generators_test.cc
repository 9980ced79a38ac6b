// Ops that make or reshape tensors from known values: ConstantOfShape, Range, EyeLike, Expand,
// Trilu, CumSum, Size, Dropout, DepthToSpace/SpaceToDepth; and their limits.
#include <gtest/gtest.h>

#include <vector>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::I64;
using testing::Known;
using testing::RunSingleNode;
using testing::Values;

TEST(Generators, ConstantOfShapeRangeEyeLike) {
  Attributes v;
  v.Set("value", Tensor::FromVector<int32_t>({7}, {1}));
  auto c = RunSingleNode("ConstantOfShape", 9, {Known(I64({2, 0}))}, v);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ((*c)[0].dims(), (Dims{2, 0}));
  auto c2 = RunSingleNode("ConstantOfShape", 9, {Known(I64({3}))}, v);
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(Values<int32_t>((*c2)[0]), (std::vector<int32_t>{7, 7, 7}));
  EXPECT_FALSE(RunSingleNode("ConstantOfShape", 9, {Known(I64({-1}))}, v).ok());
  EXPECT_FALSE(RunSingleNode("ConstantOfShape", 9, {Known(I64({int64_t(1) << 40, int64_t(1) << 40}))}, v).ok());

  auto r = RunSingleNode("Range", 11,
                         {Known(Tensor::FromVector<float>({1}, {})), Known(Tensor::FromVector<float>({2}, {})),
                          Known(Tensor::FromVector<float>({0.3f}, {}))},
                         {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const float d = 0.3f, a1 = 1 + d, a2 = a1 + d, a3 = a2 + d;  // accumulated, not 1 + i * d
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{1, a1, a2, a3}));
  auto down = RunSingleNode("Range", 11,
                            {Known(Tensor::FromVector<int64_t>({5}, {})), Known(Tensor::FromVector<int64_t>({0}, {})),
                             Known(Tensor::FromVector<int64_t>({-2}, {}))},
                            {});
  ASSERT_TRUE(down.ok());
  EXPECT_EQ(Values<int64_t>((*down)[0]), (std::vector<int64_t>{5, 3, 1}));
  EXPECT_FALSE(RunSingleNode("Range", 11,
                             {Known(Tensor::FromVector<int64_t>({0}, {})), Known(Tensor::FromVector<int64_t>({5}, {})),
                              Known(Tensor::FromVector<int64_t>({0}, {}))},
                             {})
                   .ok());

  Attributes k;
  k.Set("k", int64_t(1));
  auto eye = RunSingleNode("EyeLike", 9, {Data(Tensor::FromVector<float>(std::vector<float>(6, 5.f), {2, 3}))}, k);
  ASSERT_TRUE(eye.ok()) << eye.status().message();
  EXPECT_EQ(Values<float>((*eye)[0]), (std::vector<float>{0, 1, 0, 0, 0, 1}));
}

TEST(Generators, ExpandTriluCumSum) {
  auto e = RunSingleNode("Expand", 13, {Data(Tensor::FromVector<int8_t>({1, 2}, {2, 1})), Known(I64({2, 3}))}, {});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(Values<int8_t>((*e)[0]), (std::vector<int8_t>{1, 1, 1, 2, 2, 2}));
  auto e2 = RunSingleNode("Expand", 13, {Data(Tensor::FromVector<int8_t>({1, 2, 3}, {3})), Known(I64({2, 1}))}, {});
  ASSERT_TRUE(e2.ok());
  EXPECT_EQ((*e2)[0].dims(), (Dims{2, 3}));  // numpy rule: the input's larger dims stay
  EXPECT_FALSE(
      RunSingleNode("Expand", 13, {Data(Tensor::FromVector<int8_t>({1, 2, 3}, {3})), Known(I64({2}))}, {}).ok());

  const Tensor m = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3});
  Attributes lower;
  lower.Set("upper", int64_t(0));
  auto t = RunSingleNode("Trilu", 14, {Data(m), Known(Tensor::FromVector<int64_t>({-1}, {}))}, lower);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(Values<int32_t>((*t)[0]), (std::vector<int32_t>{0, 0, 0, 4, 0, 0, 7, 8, 0}));

  Attributes rev;
  rev.Set("reverse", int64_t(1));
  rev.Set("exclusive", int64_t(1));
  auto cs = RunSingleNode(
      "CumSum", 14, {Data(Tensor::FromVector<int32_t>({1, 2, 3}, {3})), Known(Tensor::FromVector<int64_t>({0}, {}))},
      rev);
  ASSERT_TRUE(cs.ok()) << cs.status().message();
  EXPECT_EQ(Values<int32_t>((*cs)[0]), (std::vector<int32_t>{5, 3, 0}));
}

TEST(Generators, SizeDropoutAndBlocks) {
  auto size = RunSingleNode("Size", 13, {Data(Tensor::FromVector<float>(std::vector<float>(6), {2, 3}))}, {});
  ASSERT_TRUE(size.ok()) << size.status().message();
  EXPECT_EQ(Values<int64_t>((*size)[0]), (std::vector<int64_t>{6}));
  auto drop = RunSingleNode("Dropout", 13, {Data(Tensor::FromVector<float>({1, 2}, {2}))}, {}, 2);
  ASSERT_TRUE(drop.ok()) << drop.status().message();
  EXPECT_EQ(Values<float>((*drop)[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values<uint8_t>((*drop)[1]), (std::vector<uint8_t>{1, 1}));
  // Training mode draws a mask (tests/ops/random_test.cc): each output is 0 or x / (1 - ratio).
  auto train = RunSingleNode("Dropout", 13,
                             {Data(Tensor::FromVector<float>({1}, {1})), Known(Tensor::FromVector<float>({0.5f}, {})),
                              Known(Tensor::FromVector<bool>({true}, {}))},
                             {});
  ASSERT_TRUE(train.ok()) << train.status().message();
  EXPECT_TRUE((*train)[0].data<float>()[0] == 0.f || (*train)[0].data<float>()[0] == 2.f);

  std::vector<float> v(16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i);
  Attributes b;
  b.Set("blocksize", int64_t(2));
  auto s2d = RunSingleNode("SpaceToDepth", 13, {Data(Tensor::FromVector<float>(v, {1, 1, 4, 4}))}, b);
  ASSERT_TRUE(s2d.ok()) << s2d.status().message();
  EXPECT_EQ((*s2d)[0].dims(), (Dims{1, 4, 2, 2}));
  EXPECT_EQ(Values<float>((*s2d)[0])[0], 0.f);
  EXPECT_EQ(Values<float>((*s2d)[0])[4], 1.f);  // channel 1 holds each block's (0, 1) pixel
  for (const char* mode : {"DCR", "CRD"}) {
    Attributes d = b;
    d.Set("mode", std::string(mode));
    auto round = RunSingleNode("DepthToSpace", 13, {Data((*s2d)[0])}, d);
    ASSERT_TRUE(round.ok()) << round.status().message();
    if (std::string(mode) == "DCR") EXPECT_EQ(Values<float>((*round)[0]), v);  // DCR inverts SpaceToDepth
  }
  EXPECT_FALSE(RunSingleNode("DepthToSpace", 13, {Data(Tensor::FromVector<float>(v, {1, 2, 2, 4}))}, b).ok());
}

}  // namespace
}  // namespace qrt
