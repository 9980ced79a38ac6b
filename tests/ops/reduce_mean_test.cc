// ReduceMean: axes as attribute and input, the float32 sum order, int32 truncation, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
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

// float32 reduces eight outputs at a time: full groups, a tail, inner and outer axes, against
// the definition (a double sum in input order, one division, one rounding to float). The
// values are spread over 2^40 so that a different order or a float sum gives other bits.

TEST(ReduceMean, ReduceMeanFloat32SumsInInputOrderInDouble) {
  const Dims dims = {3, 37, 5, 7};
  std::vector<float> v(3 * 37 * 5 * 7);
  uint32_t state = 12345;
  for (float& e : v) {
    state = state * 1664525u + 1013904223u;
    e = std::ldexp(float(int32_t(state >> 8) - (1 << 23)), int(state % 41) - 30);
  }
  const Tensor x = Tensor::FromVector<float>(v, dims);
  for (const std::vector<int64_t>& axes : {std::vector<int64_t>{2, 3}, {1}, {0, 2}}) {
    Attributes a;
    a.Set("axes", axes);
    auto out = RunSingleNode("ReduceMean", 13, {Data(x)}, a);
    ASSERT_TRUE(out.ok()) << out.status().message();
    const std::vector<float> got = Values<float>((*out)[0]);
    // Expected, output by output in row-major order of the kept axes.
    std::vector<float> want;
    bool reduced[4] = {};
    for (int64_t ax : axes) reduced[ax] = true;
    int64_t count = 1;
    for (int d = 0; d < 4; ++d) count *= reduced[d] ? dims[size_t(d)] : 1;
    int64_t idx[4];
    for (idx[0] = 0; idx[0] < (reduced[0] ? 1 : dims[0]); ++idx[0])
      for (idx[1] = 0; idx[1] < (reduced[1] ? 1 : dims[1]); ++idx[1])
        for (idx[2] = 0; idx[2] < (reduced[2] ? 1 : dims[2]); ++idx[2])
          for (idx[3] = 0; idx[3] < (reduced[3] ? 1 : dims[3]); ++idx[3]) {
            double sum = 0;
            int64_t r[4];
            for (r[0] = 0; r[0] < (reduced[0] ? dims[0] : 1); ++r[0])
              for (r[1] = 0; r[1] < (reduced[1] ? dims[1] : 1); ++r[1])
                for (r[2] = 0; r[2] < (reduced[2] ? dims[2] : 1); ++r[2])
                  for (r[3] = 0; r[3] < (reduced[3] ? dims[3] : 1); ++r[3]) {
                    int64_t flat = 0;
                    for (int d = 0; d < 4; ++d) flat = flat * dims[size_t(d)] + idx[d] + r[d];
                    sum += double(v[size_t(flat)]);
                  }
            want.push_back(float(sum / double(count)));
          }
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0)
          << "output " << i << ": " << got[i] << " vs " << want[i];
    }
  }
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
