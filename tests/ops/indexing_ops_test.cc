// GatherElements, GatherND, ScatterElements, ScatterND, OneHot, TopK, ArgMax/ArgMin: negative
// indices, ties, NaN, reductions, out-of-range indices (data: a run-time error, known: plan time).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::AxisAttr;
using testing::Data;
using testing::I64;
using testing::Known;
using testing::RunSingleNode;
using testing::Values;

TEST(GatherElements, NegativeIndicesAndRangeErrors) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto out = RunSingleNode("GatherElements", 13, {Data(x), Data(Tensor::FromVector<int64_t>({-1, 0, 1, 2}, {2, 2}))},
                           AxisAttr(1));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{3, 1, 5, 6}));
  Status s = RunSingleNode("GatherElements", 13, {Data(x), Data(Tensor::FromVector<int64_t>({3}, {1, 1}))}, AxisAttr(1))
                 .status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("out of range"), std::string::npos) << s.message();
}

TEST(GatherNd, BatchDimsAndSlices) {
  const Tensor x = Tensor::FromVector<int32_t>({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2});
  auto slices = RunSingleNode("GatherND", 13, {Data(x), Data(Tensor::FromVector<int64_t>({1, 0}, {2, 1}))}, {});
  ASSERT_TRUE(slices.ok()) << slices.status().message();
  EXPECT_EQ((*slices)[0].dims(), (Dims{2, 2, 2}));
  EXPECT_EQ(Values<int32_t>((*slices)[0]), (std::vector<int32_t>{4, 5, 6, 7, 0, 1, 2, 3}));
  Attributes b;
  b.Set("batch_dims", int64_t(1));
  auto batched = RunSingleNode("GatherND", 13, {Data(x), Data(Tensor::FromVector<int64_t>({1, -1, 0, 1}, {2, 2}))}, b);
  ASSERT_TRUE(batched.ok()) << batched.status().message();
  EXPECT_EQ(Values<int32_t>((*batched)[0]), (std::vector<int32_t>{3, 5}));
}

TEST(Scatter, ElementsWithReductionsAndNd) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4}, {1, 4});
  const Tensor idx = Tensor::FromVector<int64_t>({1, 1, -1}, {1, 3});
  const Tensor upd = Tensor::FromVector<float>({10, 20, 30}, {1, 3});
  auto none = RunSingleNode("ScatterElements", 16, {Data(x), Data(idx), Data(upd)}, AxisAttr(1));
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(Values<float>((*none)[0]), (std::vector<float>{1, 20, 3, 30}));  // later updates win
  Attributes add = AxisAttr(1);
  add.Set("reduction", std::string("add"));
  auto sum = RunSingleNode("ScatterElements", 16, {Data(x), Data(idx), Data(upd)}, add);
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(Values<float>((*sum)[0]), (std::vector<float>{1, 32, 3, 34}));
  add.Set("reduction", std::string("max"));
  auto mx = RunSingleNode("ScatterElements", 18, {Data(x), Data(idx), Data(upd)}, add);
  ASSERT_TRUE(mx.ok());
  EXPECT_EQ(Values<float>((*mx)[0]), (std::vector<float>{1, 20, 3, 30}));
  auto nd =
      RunSingleNode("ScatterND", 16,
                    {Data(Tensor::FromVector<float>({0, 0, 0, 0}, {2, 2})),
                     Data(Tensor::FromVector<int64_t>({1}, {1, 1})), Data(Tensor::FromVector<float>({7, 8}, {1, 2}))},
                    {});
  ASSERT_TRUE(nd.ok()) << nd.status().message();
  EXPECT_EQ(Values<float>((*nd)[0]), (std::vector<float>{0, 0, 7, 8}));
  EXPECT_FALSE(RunSingleNode("ScatterElements", 16,
                             {Data(x), Data(Tensor::FromVector<int64_t>({4}, {1, 1})),
                              Data(Tensor::FromVector<float>({1}, {1, 1}))},
                             AxisAttr(1))
                   .ok());
}

TEST(OneHot, AxisNegativeIndicesAndOutOfRange) {
  auto out =
      RunSingleNode("OneHot", 11,
                    {Data(Tensor::FromVector<int64_t>({0, -1, 5}, {3})), Known(Tensor::FromVector<int64_t>({3}, {})),
                     Known(Tensor::FromVector<float>({-1, 1}, {2}))},
                    AxisAttr(0));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{3, 3}));
  // Column j is index j's one-hot: 0 -> row 0, -1 -> row 2, 5 (out of range) -> none.
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, -1, -1, -1, -1, -1, -1, 1, -1}));
}

TEST(TopK, TiesKeepInputOrderAndNanRanksFirst) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = Tensor::FromVector<float>({3, 1, 3, nan, 2}, {1, 5});
  auto top = RunSingleNode("TopK", 11, {Data(x), Known(I64({3}))}, {}, 2);
  ASSERT_TRUE(top.ok()) << top.status().message();
  EXPECT_EQ(Values<int64_t>((*top)[1]), (std::vector<int64_t>{3, 0, 2}));
  Attributes smallest;
  smallest.Set("largest", int64_t(0));
  auto low = RunSingleNode("TopK", 11, {Data(x), Known(I64({2}))}, smallest, 2);
  ASSERT_TRUE(low.ok());
  EXPECT_EQ(Values<float>((*low)[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values<int64_t>((*low)[1]), (std::vector<int64_t>{1, 4}));
  EXPECT_FALSE(RunSingleNode("TopK", 11, {Data(x), Known(I64({6}))}, {}, 2).ok());
}

// Long float32 rows take the candidate filter (ops/kernels/select/better_than.h): the same K
// as a stable sort by TopK's order, on ties, NaN, signed zeros, ascending and descending rows,
// at both tiers.
TEST(TopK, LongRowsEqualAStableSort) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::mt19937 rng(20261202);
  for (int pattern = 0; pattern < 4; ++pattern) {
    const int64_t rows = 3, n = 1500;
    std::vector<float> x(static_cast<size_t>(rows * n));
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t j = int64_t(i) % n;
      x[i] = pattern == 0   ? float(int(rng() % 40) - 20)  // many ties
             : pattern == 1 ? float(j)                     // ascending: the threshold keeps moving
             : pattern == 2 ? float(n - j)                 // descending
                            : (rng() % 97 == 0 ? nan : (rng() % 2 ? 0.f : -0.f));  // NaN and signed zeros
    }
    for (bool largest : {true, false}) {
      for (int64_t k : {1, 7, 100, 359}) {
        std::vector<float> want_v;
        std::vector<int64_t> want_i;
        for (int64_t r = 0; r < rows; ++r) {
          std::vector<int64_t> order(static_cast<size_t>(n));
          for (int64_t j = 0; j < n; ++j) order[size_t(j)] = j;
          const float* row = x.data() + r * n;
          std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
            const float va = row[a], vb = row[b];
            if (std::isnan(va) || std::isnan(vb))
              return largest ? (std::isnan(va) && !std::isnan(vb)) : (!std::isnan(va) && std::isnan(vb));
            return largest ? va > vb : va < vb;
          });
          for (int64_t j = 0; j < k; ++j) {
            want_v.push_back(row[order[size_t(j)]]);
            want_i.push_back(order[size_t(j)]);
          }
        }
        Attributes a;
        a.Set("largest", int64_t(largest));
        for (Isa isa : TiersThisCpuHas()) {
          auto top =
              RunSingleNode("TopK", 11, {Data(Tensor::FromVector<float>(x, {rows, n})), Known(I64({k}))}, a, 2, isa);
          ASSERT_TRUE(top.ok()) << top.status().message();
          EXPECT_EQ(Values<int64_t>((*top)[1]), want_i)
              << "pattern " << pattern << " k " << k << " largest " << largest;
          const std::vector<float> got_v = Values<float>((*top)[0]);
          ASSERT_EQ(got_v.size(), want_v.size());
          for (size_t j = 0; j < got_v.size(); ++j) {
            EXPECT_TRUE(std::memcmp(&got_v[j], &want_v[j], 4) == 0) << "pattern " << pattern << " value " << j;
          }
        }
      }
    }
  }
}

TEST(ArgMax, FirstOrLastIndexAndKeepdims) {
  const Tensor x = Tensor::FromVector<int32_t>({1, 5, 5, 2, 0, 0}, {2, 3});
  Attributes a = AxisAttr(1);
  auto first = RunSingleNode("ArgMax", 13, {Data(x)}, a);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ((*first)[0].dims(), (Dims{2, 1}));
  EXPECT_EQ(Values<int64_t>((*first)[0]), (std::vector<int64_t>{1, 0}));
  a.Set("select_last_index", int64_t(1));
  a.Set("keepdims", int64_t(0));
  auto last = RunSingleNode("ArgMin", 13, {Data(x)}, a);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ((*last)[0].dims(), (Dims{2}));
  EXPECT_EQ(Values<int64_t>((*last)[0]), (std::vector<int64_t>{0, 2}));
}

}  // namespace
}  // namespace qrt
