// Tile on uint8.
#include <gtest/gtest.h>

#include <limits>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::I64;
using testing::Known;
using testing::Omitted;
using testing::RunSingleNode;
using testing::Values;

TEST(Tile, TileUint8) {
  auto out = RunSingleNode("Tile", 13, {Data(Tensor::FromVector<uint8_t>({1, 2}, {1, 2})), Known(I64({2, 2}))}, {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 4}));
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{1, 2, 1, 2, 1, 2, 1, 2}));
  auto bad = RunSingleNode("Tile", 13, {Data(Tensor::FromVector<uint8_t>({1, 2}, {1, 2})), Known(I64({2}))}, {});
  EXPECT_FALSE(bad.ok());
  auto negative =
      RunSingleNode("Tile", 13, {Data(Tensor::FromVector<uint8_t>({1, 2}, {1, 2})), Known(I64({1, -1}))}, {});
  EXPECT_FALSE(negative.ok());
}

}  // namespace
}  // namespace qrt
