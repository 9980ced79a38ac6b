// Comparisons, logic, BitShift and Where (ops/comparison.cc, ops/logical.cc, ops/where.cc):
// broadcasting, NaN, wide shifts, legacy broadcast, errors.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::Known;
using testing::RunSingleNode;
using testing::Values;

TEST(Comparison, BroadcastsAndTreatsNanAsUnordered) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor a = Tensor::FromVector<float>({1, 2, nan, 4, 5, 6}, {2, 3});
  const Tensor b = Tensor::FromVector<float>({2, 2, 2}, {3});
  auto eq = RunSingleNode("Equal", 13, {Data(a), Data(b)}, {});
  auto gt = RunSingleNode("Greater", 13, {Data(a), Data(b)}, {});
  auto le = RunSingleNode("LessOrEqual", 16, {Data(a), Data(b)}, {});
  ASSERT_TRUE(eq.ok() && gt.ok() && le.ok());
  EXPECT_EQ((*eq)[0].dtype(), DataType::kBool);
  EXPECT_EQ(Values<uint8_t>((*eq)[0]), (std::vector<uint8_t>{0, 1, 0, 0, 0, 0}));
  EXPECT_EQ(Values<uint8_t>((*gt)[0]), (std::vector<uint8_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(Values<uint8_t>((*le)[0]), (std::vector<uint8_t>{1, 1, 0, 0, 0, 0}));
  // int64 near the ends compares exactly (no detour through float).
  const int64_t big = std::numeric_limits<int64_t>::max();
  auto lt = RunSingleNode(
      "Less", 13, {Data(Tensor::FromVector<int64_t>({big - 1}, {1})), Data(Tensor::FromVector<int64_t>({big}, {1}))},
      {});
  ASSERT_TRUE(lt.ok());
  EXPECT_EQ(Values<uint8_t>((*lt)[0]), (std::vector<uint8_t>{1}));
  EXPECT_FALSE(RunSingleNode("Greater", 13, {Data(a), Data(Tensor::FromVector<int32_t>({1}, {1}))}, {}).ok());
  EXPECT_FALSE(RunSingleNode("Equal", 13, {Data(a), Data(Tensor::FromVector<float>({1, 2}, {2}))}, {}).ok());
}

TEST(Logical, TruthTablesAndBitShift) {
  const Tensor a = Tensor::FromVector<bool>({false, false, true, true}, {4});
  const Tensor b = Tensor::FromVector<bool>({false, true, false, true}, {4});
  auto both = RunSingleNode("And", 7, {Data(a), Data(b)}, {});
  auto either = RunSingleNode("Or", 7, {Data(a), Data(b)}, {});
  auto one = RunSingleNode("Xor", 7, {Data(a), Data(b)}, {});
  ASSERT_TRUE(both.ok() && either.ok() && one.ok());
  EXPECT_EQ(Values<uint8_t>((*both)[0]), (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(Values<uint8_t>((*either)[0]), (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(Values<uint8_t>((*one)[0]), (std::vector<uint8_t>{0, 1, 1, 0}));
  Attributes left;
  left.Set("direction", std::string("LEFT"));
  auto sh = RunSingleNode(
      "BitShift", 11,
      {Data(Tensor::FromVector<uint8_t>({1, 255, 3}, {3})), Data(Tensor::FromVector<uint8_t>({7, 1, 9}, {3}))}, left);
  ASSERT_TRUE(sh.ok()) << sh.status().message();
  EXPECT_EQ(Values<uint8_t>((*sh)[0]), (std::vector<uint8_t>{128, 254, 0}));  // a shift of 9 >= 8 bits gives 0
  left.Set("direction", std::string("UP"));
  EXPECT_FALSE(RunSingleNode("BitShift", 11,
                             {Data(Tensor::FromVector<uint8_t>({1}, {1})), Data(Tensor::FromVector<uint8_t>({1}, {1}))},
                             left)
                   .ok());
}

TEST(Logical, LegacyBroadcastAlignsBAtAxis) {
  // Opset 6 And with broadcast=1, axis=0: B [2] aligned with A's first axis of [2, 3].
  Attributes a;
  a.Set("broadcast", int64_t(1));
  a.Set("axis", int64_t(0));
  auto out = RunSingleNode("And", 6,
                           {Data(Tensor::FromVector<bool>({true, true, true, true, true, true}, {2, 3})),
                            Data(Tensor::FromVector<bool>({true, false}, {2}))},
                           a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{1, 1, 1, 0, 0, 0}));
  // Without broadcast=1 the shapes must agree.
  EXPECT_FALSE(RunSingleNode(
                   "And", 6,
                   {Data(Tensor::FromVector<bool>({true, true}, {2})), Data(Tensor::FromVector<bool>({true}, {1}))}, {})
                   .ok());
}

TEST(Where, BroadcastsAllThreeOperands) {
  auto out =
      RunSingleNode("Where", 16,
                    {Data(Tensor::FromVector<bool>({true, false}, {2, 1})),
                     Data(Tensor::FromVector<int64_t>({1, 2, 3}, {3})), Data(Tensor::FromVector<int64_t>({-1}, {1}))},
                    {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 3}));
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{1, 2, 3, -1, -1, -1}));
  EXPECT_FALSE(RunSingleNode("Where", 16,
                             {Data(Tensor::FromVector<float>({1}, {1})), Data(Tensor::FromVector<float>({1}, {1})),
                              Data(Tensor::FromVector<float>({1}, {1}))},
                             {})
                   .ok());  // the condition must be bool
}

// Each way the operands can run along the innermost axis (contiguous, one value, broadcast
// from an outer axis), against the selection computed element by element here.
TEST(Where, EveryOperandLayoutAgreesWithTheDefinition) {
  const Dims out = {3, 4, 37};
  const std::vector<Dims> layouts = {{3, 4, 37}, {1}, {4, 1}, {37}, {3, 1, 37}};
  for (const Dims& cd : layouts) {
    for (const Dims& xd : layouts) {
      for (const Dims& yd : layouts) {
        if (cd != out && xd != out && yd != out) continue;  // the output is the full shape
        Tensor c = Tensor::Allocate(DataType::kBool, cd).value();
        Tensor x = Tensor::Allocate(DataType::kFloat32, xd).value();
        Tensor y = Tensor::Allocate(DataType::kFloat32, yd).value();
        for (int64_t i = 0; i < c.numel(); ++i) c.data<uint8_t>()[i] = (i * 7 + 3) % 5 < 2;
        for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i) + 0.5f;
        for (int64_t i = 0; i < y.numel(); ++i) y.data<float>()[i] = -float(i) - 0.25f;
        auto got = RunSingleNode("Where", 16, {Data(c.Clone()), Data(x.Clone()), Data(y.Clone())}, {});
        ASSERT_TRUE(got.ok()) << got.status().message();
        ASSERT_EQ((*got)[0].dims(), out);
        // Index of output element (i, j, k) in an operand of dims d, right-aligned, size-1 axes fixed.
        auto at = [&](const Dims& d, int64_t i, int64_t j, int64_t k) {
          const int64_t full[3] = {i, j, k};
          int64_t idx = 0;
          for (size_t a = 0; a < d.size(); ++a) {
            const int64_t v = d[a] == 1 ? 0 : full[3 - d.size() + a];
            idx = idx * d[a] + v;
          }
          return idx;
        };
        for (int64_t i = 0, e = 0; i < 3; ++i) {
          for (int64_t j = 0; j < 4; ++j) {
            for (int64_t k = 0; k < 37; ++k, ++e) {
              const float want = c.data<uint8_t>()[at(cd, i, j, k)] ? x.data<float>()[at(xd, i, j, k)]
                                                                    : y.data<float>()[at(yd, i, j, k)];
              ASSERT_EQ((*got)[0].data<float>()[e], want)
                  << DimsToString(cd) << " " << DimsToString(xd) << " " << DimsToString(yd) << " at " << e;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace qrt
