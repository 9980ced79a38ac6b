// Slice, Pad and Tile: negative steps and clamping, every Pad mode, 8-bit types, and the
// validation errors.
#include <gtest/gtest.h>

#include <limits>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::Known;
using testing::Omitted;
using testing::RunSingleNode;
using testing::Values;

Tensor I64(std::vector<int64_t> v) {
  const int64_t n = int64_t(v.size());
  return Tensor::FromVector<int64_t>(v, {n});
}

TEST(SlicePadTile, SliceUint8NegativeStepFromTheEnd) {
  std::vector<uint8_t> v = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  auto out = RunSingleNode("Slice", 13,
                           {Data(Tensor::FromVector<uint8_t>(v, {10})), Known(I64({-1})),
                            Known(I64({std::numeric_limits<int64_t>::min()})), Omitted(), Known(I64({-3}))},
                           {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{9, 6, 3, 0}));
}

TEST(SlicePadTile, SliceClampsAndTakesNegativeAxes) {
  // x: [2, 4] int8; axis -1 from 1 to "infinity" with step 2; axis 0 from -100 (-> 0) to 1.
  auto out = RunSingleNode("Slice", 13,
                           {Data(Tensor::FromVector<int8_t>({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4})),
                            Known(I64({1, -100})), Known(I64({std::numeric_limits<int64_t>::max(), 1})),
                            Known(I64({-1, 0})), Known(I64({2, 1}))},
                           {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{1, 2}));
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int8_t>{1, 3}));
}

TEST(SlicePadTile, SliceStartsFedAsDataAreSpecialised) {
  auto out = RunSingleNode("Slice", 13,
                           {Data(Tensor::FromVector<float>({1, 2, 3, 4}, {4})), Data(I64({1})), Data(I64({3}))}, {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{2, 3}));
}

TEST(SlicePadTile, SliceRejectsBadAxesAndZeroStep) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2});
  auto range = RunSingleNode("Slice", 13, {Data(x), Known(I64({0})), Known(I64({1})), Known(I64({2}))}, {});
  ASSERT_FALSE(range.ok());
  EXPECT_TRUE(testing::Contains(range.status().message(), "out of range")) << range.status().message();
  auto repeated =
      RunSingleNode("Slice", 13, {Data(x), Known(I64({0, 0})), Known(I64({1, 1})), Known(I64({1, -1}))}, {});
  ASSERT_FALSE(repeated.ok());
  EXPECT_TRUE(testing::Contains(repeated.status().message(), "repeated")) << repeated.status().message();
  auto step =
      RunSingleNode("Slice", 13, {Data(x), Known(I64({0})), Known(I64({1})), Known(I64({0})), Known(I64({0}))}, {});
  EXPECT_FALSE(step.ok());
  auto lengths = RunSingleNode("Slice", 13, {Data(x), Known(I64({0, 0})), Known(I64({1}))}, {});
  EXPECT_FALSE(lengths.ok());
}

Attributes Mode(const char* m) {
  Attributes a;
  a.Set("mode", std::string(m));
  return a;
}

TEST(SlicePadTile, PadInt8EveryMode) {
  const Tensor x = Tensor::FromVector<int8_t>({1, 2, 3}, {3});
  auto reflect = RunSingleNode("Pad", 13, {Data(x), Known(I64({2, 3}))}, Mode("reflect"));
  ASSERT_TRUE(reflect.ok()) << reflect.status().message();
  EXPECT_EQ(Values<int8_t>((*reflect)[0]), (std::vector<int8_t>{3, 2, 1, 2, 3, 2, 1, 2}));
  auto edge = RunSingleNode("Pad", 13, {Data(x), Known(I64({2, 1}))}, Mode("edge"));
  ASSERT_TRUE(edge.ok()) << edge.status().message();
  EXPECT_EQ(Values<int8_t>((*edge)[0]), (std::vector<int8_t>{1, 1, 1, 2, 3, 3}));
  auto wrap = RunSingleNode("Pad", 19, {Data(x), Known(I64({1, 2}))}, Mode("wrap"));
  ASSERT_TRUE(wrap.ok()) << wrap.status().message();
  EXPECT_EQ(Values<int8_t>((*wrap)[0]), (std::vector<int8_t>{3, 1, 2, 3, 1, 2}));
  auto constant = RunSingleNode("Pad", 13, {Data(x), Known(I64({1, 1})), Data(Tensor::FromVector<int8_t>({-5}, {}))},
                                Mode("constant"));
  ASSERT_TRUE(constant.ok()) << constant.status().message();
  EXPECT_EQ(Values<int8_t>((*constant)[0]), (std::vector<int8_t>{-5, 1, 2, 3, -5}));
}

TEST(SlicePadTile, PadNegativePadsCropAndAxesInput) {
  // [2, 3] uint8; opset 18 axes = [1]: crop one column at the front, add one (edge) at the back.
  const Tensor x = Tensor::FromVector<uint8_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto out = RunSingleNode("Pad", 18, {Data(x), Known(I64({-1, 1})), Omitted(), Known(I64({1}))}, Mode("edge"));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 3}));
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{2, 3, 3, 5, 6, 6}));
}

TEST(SlicePadTile, PadOpset10AttributesAndErrors) {
  Attributes a = Mode("constant");
  a.Set("pads", std::vector<int64_t>{0, 1, 0, 0});
  a.Set("value", 300.f);  // saturates to 255 for uint8
  auto out = RunSingleNode("Pad", 10, {Data(Tensor::FromVector<uint8_t>({7, 8}, {1, 2}))}, a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{255, 7, 8}));

  const Tensor x = Tensor::FromVector<float>({1, 2}, {2});
  EXPECT_FALSE(RunSingleNode("Pad", 13, {Data(x), Known(I64({1}))}, Mode("constant")).ok());
  EXPECT_FALSE(RunSingleNode("Pad", 13, {Data(x), Known(I64({-2, -1}))}, Mode("constant")).ok());
  EXPECT_FALSE(RunSingleNode("Pad", 13, {Data(x), Known(I64({1, 1}))}, Mode("mirror")).ok());
}

TEST(SlicePadTile, TileUint8) {
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
