// Pooling on 8-bit types, padding rules (count_include_pad, ceil_mode's dropped window),
// MaxPool Indices in both storage orders, and geometry errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::RunSingleNode;
using testing::Values;

Attributes Pool(std::vector<int64_t> kernel, std::vector<int64_t> strides, std::vector<int64_t> pads) {
  Attributes a;
  a.Set("kernel_shape", std::move(kernel));
  a.Set("strides", std::move(strides));
  a.Set("pads", std::move(pads));
  return a;
}

TEST(Pool, MaxPoolUint8AndInt8IgnorePadding) {
  auto u8 = RunSingleNode(
      "MaxPool", 12,
      {Data(Tensor::FromVector<uint8_t>({1, 9, 2, 3, 4, 5, 6, 7, 8, 0, 255, 1, 2, 3, 4, 5}, {1, 1, 4, 4}))},
      Pool({2, 2}, {2, 2}, {0, 0, 0, 0}));
  ASSERT_TRUE(u8.ok()) << u8.status().message();
  EXPECT_EQ(Values<uint8_t>((*u8)[0]), (std::vector<uint8_t>{9, 7, 8, 255}));
  // All negative int8: the padding must not contribute a 0.
  auto s8 = RunSingleNode("MaxPool", 12, {Data(Tensor::FromVector<int8_t>({-5, -3, -2, -8}, {1, 1, 2, 2}))},
                          Pool({3, 3}, {1, 1}, {1, 1, 1, 1}));
  ASSERT_TRUE(s8.ok()) << s8.status().message();
  EXPECT_EQ(Values<int8_t>((*s8)[0]), (std::vector<int8_t>{-2, -2, -2, -2}));
}

TEST(Pool, AveragePoolCountIncludePad) {
  // 1-D [1, 2, 3], kernel 2, stride 1, pads 1/1 -> 4 windows.
  const Tensor x = Tensor::FromVector<float>({1, 2, 3}, {1, 1, 3});
  auto excl = RunSingleNode("AveragePool", 11, {Data(x)}, Pool({2}, {1}, {1, 1}));
  ASSERT_TRUE(excl.ok()) << excl.status().message();
  EXPECT_EQ(Values<float>((*excl)[0]), (std::vector<float>{1, 1.5f, 2.5f, 3}));
  Attributes a = Pool({2}, {1}, {1, 1});
  a.Set("count_include_pad", int64_t(1));
  auto incl = RunSingleNode("AveragePool", 11, {Data(x)}, a);
  ASSERT_TRUE(incl.ok()) << incl.status().message();
  EXPECT_EQ(Values<float>((*incl)[0]), (std::vector<float>{0.5f, 1.5f, 2.5f, 1.5f}));
}

TEST(Pool, CeilModeDropsAWindowStartingInThePadding) {
  // length 4, kernel 2, stride 2, end pad 1: ceil gives 3 windows, but the third would
  // start at 4, inside the end padding, so it is dropped.
  Attributes a = Pool({2}, {2}, {0, 1});
  a.Set("ceil_mode", int64_t(1));
  auto out = RunSingleNode("MaxPool", 12, {Data(Tensor::FromVector<float>({1, 2, 3, 4}, {1, 1, 4}))}, a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{1, 1, 2}));
  // length 5 keeps its third window (start 4 < 5): [5] alone.
  auto five = RunSingleNode("MaxPool", 12, {Data(Tensor::FromVector<float>({1, 2, 3, 4, 5}, {1, 1, 5}))}, a);
  ASSERT_TRUE(five.ok()) << five.status().message();
  EXPECT_EQ(Values<float>((*five)[0]), (std::vector<float>{2, 4, 5}));
}

TEST(Pool, MaxPoolIndicesInBothStorageOrders) {
  // Two channels of 2x2; the max of channel 1 is at (h=1, w=0).
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 9, 7}, {1, 2, 2, 2});
  Attributes a = Pool({2, 2}, {1, 1}, {0, 0, 0, 0});
  auto row = RunSingleNode("MaxPool", 12, {Data(x)}, a, 2);
  ASSERT_TRUE(row.ok()) << row.status().message();
  EXPECT_EQ(Values<float>((*row)[0]), (std::vector<float>{4, 9}));
  EXPECT_EQ(Values<int64_t>((*row)[1]), (std::vector<int64_t>{3, 4 + 2}));
  a.Set("storage_order", int64_t(1));
  auto col = RunSingleNode("MaxPool", 12, {Data(x)}, a, 2);
  ASSERT_TRUE(col.ok()) << col.status().message();
  EXPECT_EQ(Values<int64_t>((*col)[1]), (std::vector<int64_t>{3, 4 + 1}));
}

TEST(Pool, GlobalPools) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 6, -1, -2, -3, -6}, {1, 2, 2, 2});
  auto avg = RunSingleNode("GlobalAveragePool", 13, {Data(x)}, {});
  ASSERT_TRUE(avg.ok()) << avg.status().message();
  EXPECT_EQ((*avg)[0].dims(), (Dims{1, 2, 1, 1}));
  EXPECT_EQ(Values<float>((*avg)[0]), (std::vector<float>{3, -3}));
  auto max = RunSingleNode("GlobalMaxPool", 13, {Data(x)}, {});
  ASSERT_TRUE(max.ok()) << max.status().message();
  EXPECT_EQ(Values<float>((*max)[0]), (std::vector<float>{6, -1}));
}

TEST(Pool, GeometryErrors) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4}, {1, 1, 2, 2});
  EXPECT_FALSE(RunSingleNode("MaxPool", 12, {Data(x)}, Pool({2}, {1}, {0, 0})).ok());
  EXPECT_FALSE(RunSingleNode("MaxPool", 12, {Data(x)}, Pool({3, 3}, {1, 1}, {0, 0, 0, 0})).ok());
  EXPECT_FALSE(RunSingleNode("MaxPool", 12, {Data(x)}, Pool({2, 2}, {0, 1}, {0, 0, 0, 0})).ok());
  EXPECT_FALSE(
      RunSingleNode("AveragePool", 11, {Data(Tensor::FromVector<uint8_t>({1}, {1, 1, 1}))}, Pool({1}, {1}, {0, 0}))
          .ok());
}

// The float32 MaxPool fast path (padded plane, MaxRows kernels; picked under the SIMD ISA)
// against the tap-list loop (the scalar ISA), bit for bit, on inputs with NaN payloads, signed
// zeros, infinities and ties; SPPF's 5x5 window and SPP's 9x9 and 13x13 (the separable
// reduction), dilations, asymmetric and auto pads, ceil mode, row strides, and 2 channels x 2
// images.
TEST(Pool, MaxPoolFastPathEqualsTheTapLists) {
  std::mt19937 rng(7);
  // 8-bit codes (the byte kernels): every value, the ends of the type among them.
  auto codes = [&](const Dims& dims, DataType type) {
    Tensor t = Tensor::Allocate(type, dims).value();
    for (int64_t i = 0; i < t.numel(); ++i)
      t.data<uint8_t>()[i] = rng() % 5 == 0 ? uint8_t(rng() % 2 ? 0 : 255) : uint8_t(rng());
    if (type == DataType::kInt8 && t.numel() > 1) t.data<uint8_t>()[1] = 0x80;  // -128
    return t;
  };
  auto input = [&](const Dims& dims) {
    Tensor t = Tensor::Allocate(DataType::kFloat32, dims).value();
    const float traps[] = {0.f,
                           -0.f,
                           std::numeric_limits<float>::quiet_NaN(),
                           -std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity()};
    for (int64_t i = 0; i < t.numel(); ++i) {
      t.data<float>()[i] = rng() % 5 == 0 ? traps[rng() % 6] : float(int(rng() % 7) - 3);
    }
    return t;
  };
  struct Case {
    Dims x;
    Attributes attrs;
  };
  std::vector<Case> cases;
  cases.push_back({{2, 2, 7, 9}, Pool({5, 5}, {1, 1}, {2, 2, 2, 2})});
  cases.push_back({{1, 3, 20, 37}, Pool({3, 3}, {1, 1}, {1, 1, 1, 1})});
  cases.push_back({{1, 2, 11, 13}, Pool({3, 2}, {2, 1}, {0, 1, 2, 0})});
  Attributes dilated = Pool({2, 3}, {1, 1}, {1, 2, 1, 2});
  dilated.Set("dilations", std::vector<int64_t>{2, 2});
  cases.push_back({{1, 2, 9, 10}, dilated});
  Attributes ceil = Pool({3, 3}, {3, 1}, {0, 0, 0, 0});
  ceil.Set("ceil_mode", int64_t(1));
  cases.push_back({{1, 1, 10, 8}, ceil});
  Attributes same;
  same.Set("kernel_shape", std::vector<int64_t>{4, 4});
  same.Set("auto_pad", std::string("SAME_LOWER"));
  cases.push_back({{1, 2, 6, 70}, same});
  // Column strides: the padded rows split into phases.
  cases.push_back({{1, 3, 20, 37}, Pool({3, 3}, {2, 2}, {1, 1, 1, 1})});
  cases.push_back({{2, 2, 17, 30}, Pool({3, 2}, {1, 3}, {0, 2, 1, 1})});
  cases.push_back({{1, 2, 13, 13}, Pool({5, 5}, {2, 2}, {2, 2, 2, 2})});
  Attributes dilated_s2 = Pool({3, 3}, {2, 2}, {2, 2, 2, 2});
  dilated_s2.Set("dilations", std::vector<int64_t>{2, 2});
  cases.push_back({{1, 2, 16, 19}, dilated_s2});
  // Windows entirely over padding (the fast path is refused: they give the lowest float).
  cases.push_back({{1, 2, 5, 6}, Pool({1, 1}, {1, 1}, {1, 1, 1, 1})});
  cases.push_back({{1, 2, 40, 70}, Pool({3, 3}, {1, 1}, {1, 1, 1, 1})});  // rows over 32 bytes, with a tail
  // SPP's large windows (the rows reduced apart, then the columns), one wider than the plane.
  cases.push_back({{1, 2, 13, 21}, Pool({13, 13}, {1, 1}, {6, 6, 6, 6})});
  cases.push_back({{1, 2, 20, 20}, Pool({9, 9}, {1, 1}, {4, 4, 4, 4})});
  cases.push_back({{1, 2, 19, 23}, Pool({7, 5}, {2, 1}, {3, 2, 3, 2})});
  // Rows under 32 at column stride 1 (the planes side by side in groups): SPPF's 7 x 7 planes
  // in more than one group (the last one short), and planes too large for a group of two.
  cases.push_back({{1, 150, 7, 7}, Pool({5, 5}, {1, 1}, {2, 2, 2, 2})});
  cases.push_back({{1, 3, 300, 20}, Pool({3, 4}, {1, 1}, {1, 1, 1, 2})});
  cases.push_back({{2, 3, 4, 4}, Pool({1, 3}, {1, 1}, {0, 1, 0, 1})});  // one pass: the rows' only
  cases.push_back({{2, 3, 6, 5}, Pool({3, 1}, {2, 1}, {1, 0, 1, 0})});  // one pass: the columns' only
  for (DataType type : {DataType::kFloat32, DataType::kUInt8, DataType::kInt8}) {
    for (const Case& c : cases) {
      const Tensor x = type == DataType::kFloat32 ? input(c.x) : codes(c.x, type);
      const std::string what = DimsToString(c.x) + " " + std::string(DataTypeName(type));
      auto lists = RunSingleNode("MaxPool", 12, {Data(x.Clone())}, c.attrs, 1, Isa::kScalar);
      ASSERT_TRUE(lists.ok()) << what;
      // The tap lists with Indices (a branch per tap) and without (selects) pick the same values.
      auto with_indices = RunSingleNode("MaxPool", 12, {Data(x.Clone())}, c.attrs, 2, Isa::kScalar);
      ASSERT_TRUE(with_indices.ok()) << what;
      EXPECT_EQ(testing::CompareBits((*with_indices)[0], (*lists)[0]), "") << what;
      for (Isa isa : TiersThisCpuHas()) {
        auto fast = RunSingleNode("MaxPool", 12, {Data(x.Clone())}, c.attrs, 1, isa);
        ASSERT_TRUE(fast.ok()) << what;
        EXPECT_EQ(testing::CompareBits((*fast)[0], (*lists)[0]), "") << what << " at " << IsaName(isa);
      }
    }
  }
  auto corner = RunSingleNode("MaxPool", 12, {Data(input({1, 1, 3, 3}))}, Pool({1, 1}, {1, 1}, {1, 1, 1, 1}));
  ASSERT_TRUE(corner.ok());
  EXPECT_EQ((*corner)[0].data<float>()[0], std::numeric_limits<float>::lowest());
  // GlobalMaxPool keeps its tap list; both ISAs agree.
  const Tensor g = input({2, 3, 5, 9});
  auto g_simd = RunSingleNode("GlobalMaxPool", 12, {Data(g.Clone())}, Attributes(), 1, kIsaAuto);
  auto g_ref = RunSingleNode("GlobalMaxPool", 12, {Data(g.Clone())}, Attributes(), 1, Isa::kScalar);
  ASSERT_TRUE(g_simd.ok() && g_ref.ok());
  EXPECT_EQ(testing::CompareBits((*g_simd)[0], (*g_ref)[0]), "");
}

TEST(Pool, LpPoolWorkedByHand) {
  // [3, -4, 0, 12], kernel 2, stride 2: p = 2 -> sqrt(9 + 16) = 5, sqrt(0 + 144) = 12;
  // p = 1 -> 7, 12; p = 3 -> cbrt(27 + 64) = 91^(1/3).
  const Tensor x = Tensor::FromVector<float>({3, -4, 0, 12}, {1, 1, 4});
  for (int64_t p : {1, 2, 3}) {
    Attributes a = Pool({2}, {2}, {0, 0});
    a.Set("p", p);
    auto y = RunSingleNode("LpPool", 11, {Data(x)}, a);
    ASSERT_TRUE(y.ok()) << y.status().message();
    const std::vector<float> got = Values<float>((*y)[0]);
    ASSERT_EQ(got.size(), 2u);
    const std::vector<float> want = p == 1   ? std::vector<float>{7, 12}
                                    : p == 2 ? std::vector<float>{5, 12}
                                             : std::vector<float>{std::pow(91.f, 1.f / 3), std::pow(1728.f, 1.f / 3)};
    EXPECT_EQ(got, want) << "p = " << p;
  }
  // GlobalLpPool over the whole plane, padding contributing nothing to LpPool.
  auto g = RunSingleNode("GlobalLpPool", 2, {Data(x)}, Attributes());
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(Values<float>((*g)[0]), (std::vector<float>{13}));  // sqrt(9 + 16 + 144)
  Attributes padded = Pool({3}, {1}, {1, 1});
  auto pp = RunSingleNode("LpPool", 11, {Data(x)}, padded);
  ASSERT_TRUE(pp.ok()) << pp.status().message();
  EXPECT_EQ(Values<float>((*pp)[0])[0], 5.f);
  Attributes bad = Pool({2}, {2}, {0, 0});
  bad.Set("p", int64_t(0));
  EXPECT_FALSE(RunSingleNode("LpPool", 11, {Data(x)}, bad).ok());
}

}  // namespace
}  // namespace qrt
