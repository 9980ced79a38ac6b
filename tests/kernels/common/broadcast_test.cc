#include "ops/kernels/common/broadcast.h"

#include <gtest/gtest.h>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

TEST(BroadcastDims, NumpyRules) {
  EXPECT_EQ(BroadcastDims({2, 3, 4}, {3, 1}).value(), (Dims{2, 3, 4}));
  EXPECT_EQ(BroadcastDims({}, {5}).value(), (Dims{5}));
  EXPECT_EQ(BroadcastDims({1, 4}, {3, 1}).value(), (Dims{3, 4}));
  EXPECT_EQ(BroadcastDims({0, 1}, {1, 3}).value(), (Dims{0, 3}));
  QRT_EXPECT_ERROR(BroadcastDims({2, 3}, {4}), "not broadcastable");
}

TEST(BroadcastsTo, Rules) {
  EXPECT_TRUE(BroadcastsTo({3, 1}, {2, 3, 4}));
  EXPECT_FALSE(BroadcastsTo({2, 3, 4}, {3, 4}));
  EXPECT_FALSE(BroadcastsTo({2}, {3}));
}

TEST(StridedLoop, PerChannelCollapsesToRunsOfHW) {
  const Dims out = {1, 8, 5, 7};
  const StridedLoop l = MakeStridedLoop({out, {1, 8, 1, 1}, out}, out);
  EXPECT_EQ(l.inner, 35);
  EXPECT_EQ(l.outer_dims, (std::vector<int64_t>{8}));
  EXPECT_EQ(l.inner_inc, (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(l.outer_strides[1], (std::vector<int64_t>{1}));
  EXPECT_EQ(l.num_runs, 8);
}

TEST(StridedLoop, SameShapeIsOneRun) {
  const Dims out = {2, 3, 4};
  const StridedLoop l = MakeStridedLoop({out, out}, out);
  EXPECT_EQ(l.inner, 24);
  EXPECT_EQ(l.num_runs, 1);
}

TEST(StridedLoop, ConstInRunSplitsInnerDim) {
  const Dims out = {4, 6};
  const StridedLoop l = MakeStridedLoop({out, {1, 6}, out}, out, {false, true, false});
  EXPECT_EQ(l.inner, 1);
  EXPECT_EQ(l.num_runs, 24);
  std::vector<int64_t> param_offsets;
  ForEachRun(l, [&](const int64_t* off) { param_offsets.push_back(off[1]); });
  ASSERT_EQ(param_offsets.size(), 24u);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(param_offsets[i], i % 6);
}

TEST(StridedLoop, OffsetsFollowOutputOrder) {
  const Dims out = {2, 3, 4};
  const StridedLoop l = MakeStridedLoop({{3, 1}, {2, 1, 4}, out}, out);
  std::vector<int64_t> a, b, c;
  ForEachRun(l, [&](const int64_t* off) {
    for (int64_t i = 0; i < l.inner; ++i) {
      a.push_back(off[0] + i * l.inner_inc[0]);
      b.push_back(off[1] + i * l.inner_inc[1]);
      c.push_back(off[2] + i * l.inner_inc[2]);
    }
  });
  ASSERT_EQ(c.size(), 24u);
  for (int64_t e = 0; e < 24; ++e) {
    const int64_t n = e / 12, h = (e / 4) % 3, w = e % 4;
    EXPECT_EQ(c[e], e);
    EXPECT_EQ(a[e], h);
    EXPECT_EQ(b[e], n * 4 + w);
  }
}

TEST(StridedLoop, EmptyAndScalar) {
  EXPECT_EQ(MakeStridedLoop({{0, 3}, {0, 3}}, {0, 3}).num_runs, 0);
  const StridedLoop s = MakeStridedLoop({{}, {1}}, {1});
  EXPECT_EQ(s.num_runs, 1);
  EXPECT_EQ(s.inner, 1);
}

}  // namespace
}  // namespace qrt
