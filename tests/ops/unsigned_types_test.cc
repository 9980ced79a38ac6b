// uint32 and uint64 tensors through the ops that take every integer type: values above the
// signed range, shifts at and past the width, Mod, Max/Min, Cast, and the npy reader and writer.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "loaders/npy.h"
#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::RunSingleNode;

template <class T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

TEST(UnsignedTypes, MaxMinAndModAboveTheSignedRange) {
  const Tensor a = Tensor::FromVector<uint32_t>({4000000000u, 1u}, {2});
  const Tensor b = Tensor::FromVector<uint32_t>({3u, 4000000001u}, {2});
  auto mx = RunSingleNode("Max", 13, {Data(a), Data(b)}, {});
  ASSERT_TRUE(mx.ok()) << mx.status().message();
  EXPECT_EQ(Values<uint32_t>((*mx)[0]), (std::vector<uint32_t>{4000000000u, 4000000001u}));
  auto mn = RunSingleNode("Min", 13, {Data(a), Data(b)}, {});
  ASSERT_TRUE(mn.ok());
  EXPECT_EQ(Values<uint32_t>((*mn)[0]), (std::vector<uint32_t>{3u, 1u}));
  const uint64_t big = std::numeric_limits<uint64_t>::max();
  auto mod = RunSingleNode(
      "Mod", 13, {Data(Tensor::FromVector<uint64_t>({big, 7}, {2})), Data(Tensor::FromVector<uint64_t>({10, 3}, {2}))},
      {});
  ASSERT_TRUE(mod.ok()) << mod.status().message();
  EXPECT_EQ(Values<uint64_t>((*mod)[0]), (std::vector<uint64_t>{5, 1}));
}

TEST(UnsignedTypes, ShiftsAtAndPastTheWidth) {
  Attributes left;
  left.Set("direction", std::string("LEFT"));
  auto y = RunSingleNode(
      "BitShift", 11,
      {Data(Tensor::FromVector<uint64_t>({1, 1, 3}, {3})), Data(Tensor::FromVector<uint64_t>({63, 64, 1}, {3}))}, left);
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Values<uint64_t>((*y)[0]), (std::vector<uint64_t>{uint64_t(1) << 63, 0, 6}));
  Attributes right;
  right.Set("direction", std::string("RIGHT"));
  auto r = RunSingleNode(
      "BitShift", 11,
      {Data(Tensor::FromVector<uint32_t>({0x80000000u, 5u}, {2})), Data(Tensor::FromVector<uint32_t>({31, 40}, {2}))},
      right);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Values<uint32_t>((*r)[0]), (std::vector<uint32_t>{1u, 0u}));
  auto bad = RunSingleNode(
      "BitShift", 11, {Data(Tensor::FromVector<int32_t>({1}, {1})), Data(Tensor::FromVector<int32_t>({1}, {1}))}, left);
  EXPECT_FALSE(bad.ok());
}

TEST(UnsignedTypes, CastAndNpy) {
  Attributes to_u32;
  to_u32.Set("to", int64_t(12));
  auto c = RunSingleNode("Cast", 13, {Data(Tensor::FromVector<float>({3.9f, -2.f, 5e9f}, {3}))}, to_u32);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ((*c)[0].dtype(), DataType::kUInt32);
  EXPECT_EQ(Values<uint32_t>((*c)[0]), (std::vector<uint32_t>{3u, 0u, 4294967295u}));  // truncated, saturated
  const Tensor t = Tensor::FromVector<uint64_t>({std::numeric_limits<uint64_t>::max(), 2}, {2});
  testing::TempDir dir;
  const std::string path = dir.path() + "/u64.npy";
  ASSERT_TRUE(WriteNpy(path, t).ok());
  auto back = ReadNpy(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->dtype(), DataType::kUInt64);
  EXPECT_EQ(Values<uint64_t>(*back), Values<uint64_t>(t));
}

}  // namespace
}  // namespace qrt
