// The element-wise unary ops: definitions at edge values (NaN, infinities, ties, signed
// zero), integer wrapping, attributes, float16, and dtype errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/half.h"
#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::RunSingleNode;
using testing::Values;

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

std::vector<float> RunOp(const char* op, const std::vector<float>& x, const Attributes& a = {}, int64_t opset = 18) {
  auto out = RunSingleNode(op, opset, {Data(Tensor::FromVector<float>(x, {int64_t(x.size())}))}, a);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status().message();
  return out.ok() ? Values<float>((*out)[0]) : std::vector<float>();
}

TEST(Unary, RoundingOpsAtTiesAndSpecials) {
  const std::vector<float> x = {2.5f, -2.5f, 0.5f, -0.5f, 1.5f, 3.7f, -3.7f, kInf};
  EXPECT_EQ(RunOp("Round", x), (std::vector<float>{2, -2, 0, -0.f, 2, 4, -4, kInf}));
  EXPECT_EQ(RunOp("Floor", x), (std::vector<float>{2, -3, 0, -1, 1, 3, -4, kInf}));
  EXPECT_EQ(RunOp("Ceil", x), (std::vector<float>{3, -2, 1, -0.f, 2, 4, -3, kInf}));
  EXPECT_TRUE(std::signbit(RunOp("Round", {-0.5f})[0]));  // -0, as nearbyint gives
  EXPECT_TRUE(std::isnan(RunOp("Floor", {kNan})[0]));
}

TEST(Unary, MathFunctionsMatchTheirDefinitions) {
  EXPECT_EQ(RunOp("Reciprocal", {4, -0.f}), (std::vector<float>{0.25f, -kInf}));
  EXPECT_EQ(RunOp("Log", {1, 0})[1], -kInf);
  EXPECT_TRUE(std::isnan(RunOp("Log", {-1})[0]));
  EXPECT_EQ(RunOp("Sign", {-3, 0, 2}), (std::vector<float>{-1, 0, 1}));
  EXPECT_TRUE(std::isnan(RunOp("Sign", {kNan})[0]));
  EXPECT_FLOAT_EQ(RunOp("Erf", {0.5f})[0], std::erf(0.5f));
  EXPECT_FLOAT_EQ(RunOp("Atanh", {0.5f})[0], std::atanh(0.5f));
  // Softplus does not overflow where exp(x) would.
  EXPECT_EQ(RunOp("Softplus", {100})[0], 100.f);
  EXPECT_FLOAT_EQ(RunOp("Softplus", {0})[0], std::log(2.f));
  EXPECT_FLOAT_EQ(RunOp("Softsign", {3})[0], 0.75f);
}

TEST(Unary, ActivationsAndTheirAttributes) {
  Attributes alpha;
  alpha.Set("alpha", 2.0f);
  EXPECT_FLOAT_EQ(RunOp("Elu", {-1, 2}, alpha)[0], 2.f * (std::exp(-1.f) - 1.f));
  EXPECT_EQ(RunOp("Elu", {-1, 2}, alpha)[1], 2.f);
  EXPECT_EQ(RunOp("ThresholdedRelu", {1, 2, 3}, alpha), (std::vector<float>{0, 0, 3}));
  EXPECT_FLOAT_EQ(RunOp("Celu", {-1}, alpha)[0], 2.f * (std::exp(-0.5f) - 1.f));
  const std::vector<float> selu = RunOp("Selu", {-1, 1});
  EXPECT_FLOAT_EQ(selu[1], 1.05070102214813232421875f);
  EXPECT_FLOAT_EQ(selu[0], 1.05070102214813232421875f * 1.67326319217681884765625f * (std::exp(-1.f) - 1.f));
  EXPECT_EQ(RunOp("HardSwish", {-4, 0, 4}), (std::vector<float>{-0.f, 0, 4}));
  EXPECT_FLOAT_EQ(RunOp("HardSwish", {1})[0], 1.f * (1.f / 6.f + 0.5f));
  Attributes shrink;
  shrink.Set("lambd", 1.0f);
  shrink.Set("bias", 0.5f);
  EXPECT_EQ(RunOp("Shrink", {-2, -1, 0, 1, 2}, shrink), (std::vector<float>{-1.5f, 0, 0, 0, 1.5f}));
  Attributes tanh_gelu;
  tanh_gelu.Set("approximate", std::string("tanh"));
  EXPECT_NEAR(RunOp("Gelu", {1}, {}, 20)[0], 0.8413447f, 1e-6);
  EXPECT_NEAR(RunOp("Gelu", {1}, tanh_gelu, 20)[0], 0.8411920f, 1e-6);
  tanh_gelu.Set("approximate", std::string("fast"));
  EXPECT_FALSE(RunSingleNode("Gelu", 20, {Data(Tensor::FromVector<float>({1}, {1}))}, tanh_gelu).ok());
  EXPECT_NEAR(RunOp("Mish", {1})[0], 0.8650984f, 1e-6);
}

TEST(Unary, IntegerOpsWrapAndFloatOnlyOpsRefuseIntegers) {
  auto sign = RunSingleNode("Sign", 13, {Data(Tensor::FromVector<int8_t>({-128, 0, 5}, {3}))}, {});
  ASSERT_TRUE(sign.ok()) << sign.status().message();
  EXPECT_EQ(Values<int8_t>((*sign)[0]), (std::vector<int8_t>{-1, 0, 1}));
  auto neg = RunSingleNode("Neg", 13, {Data(Tensor::FromVector<int8_t>({-128, 5}, {2}))}, {});
  ASSERT_TRUE(neg.ok());
  EXPECT_EQ(Values<int8_t>((*neg)[0]), (std::vector<int8_t>{-128, -5}));  // wraps
  Status s = RunSingleNode("Floor", 13, {Data(Tensor::FromVector<int32_t>({1}, {1}))}, {}).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("int32"), std::string::npos) << s.message();
}

TEST(Unary, Float16ComputesInFloatAndRoundsOnce) {
  const std::vector<uint16_t> h = {FloatToHalf(2.5f), FloatToHalf(-1.25f)};
  Tensor x = Tensor::Allocate(DataType::kFloat16, {2}).value();
  std::memcpy(x.raw(), h.data(), 4);
  auto out = RunSingleNode("Floor", 13, {Data(x)}, {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(HalfToFloat((*out)[0].data<uint16_t>()[0]), 2.f);
  EXPECT_EQ(HalfToFloat((*out)[0].data<uint16_t>()[1]), -2.f);
}

TEST(Unary, Predicates) {
  Attributes pos_only;
  pos_only.Set("detect_negative", int64_t(0));
  auto inf = RunSingleNode("IsInf", 10, {Data(Tensor::FromVector<float>({kInf, -kInf, kNan, 1}, {4}))}, pos_only);
  ASSERT_TRUE(inf.ok()) << inf.status().message();
  EXPECT_EQ(Values<uint8_t>((*inf)[0]), (std::vector<uint8_t>{1, 0, 0, 0}));
  auto nan = RunSingleNode("IsNaN", 13, {Data(Tensor::FromVector<float>({kInf, kNan}, {2}))}, {});
  ASSERT_TRUE(nan.ok());
  EXPECT_EQ(Values<uint8_t>((*nan)[0]), (std::vector<uint8_t>{0, 1}));
  auto no = RunSingleNode("Not", 1, {Data(Tensor::FromVector<bool>({true, false}, {2}))}, {});
  ASSERT_TRUE(no.ok());
  EXPECT_EQ(Values<uint8_t>((*no)[0]), (std::vector<uint8_t>{0, 1}));
  EXPECT_FALSE(RunSingleNode("Not", 1, {Data(Tensor::FromVector<float>({1}, {1}))}, {}).ok());
}

TEST(Unary, EmptyTensors) {
  auto out = RunSingleNode("Log", 13, {Data(Tensor::Allocate(DataType::kFloat32, {0, 3}).value())}, {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{0, 3}));
}

}  // namespace
}  // namespace qrt
