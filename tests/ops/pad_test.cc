// Pad: every mode on int8, negative pads and the axes input, opset 10 attributes, errors.
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

Attributes Mode(const char* m) {
  Attributes a;
  a.Set("mode", std::string(m));
  return a;
}

TEST(Pad, PadInt8EveryMode) {
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

TEST(Pad, PadNegativePadsCropAndAxesInput) {
  // [2, 3] uint8; opset 18 axes = [1]: crop one column at the front, add one (edge) at the back.
  const Tensor x = Tensor::FromVector<uint8_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto out = RunSingleNode("Pad", 18, {Data(x), Known(I64({-1, 1})), Omitted(), Known(I64({1}))}, Mode("edge"));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 3}));
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{2, 3, 3, 5, 6, 6}));
}

TEST(Pad, PadOpset10AttributesAndErrors) {
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

}  // namespace
}  // namespace qrt
