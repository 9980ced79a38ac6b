// The 8-bit floats and the 4-bit integers: every float8 code decodes to a value that encodes
// back to it, ties round to even, out-of-range values saturate or not as asked (with ONNX
// Runtime's e4m3fn quirk), and QuantizeLinear / DequantizeLinear to int4, uint4 and float8,
// blocked, through JSON and an ONNX round trip (4-bit values packed two per byte on disk).
#include "runtime/float8.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "loaders/json_loader.h"
#include "loaders/model_io.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

constexpr DataType kFloat8Types[] = {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                                     DataType::kFloat8E5M2FNUZ};

TEST(Float8, EveryCodeRoundTrips) {
  for (DataType t : kFloat8Types) {
    for (int c = 0; c < 256; ++c) {
      const float v = Float8ToFloat(t, uint8_t(c));
      if (std::isnan(v)) continue;
      if (std::isinf(v)) {
        EXPECT_EQ(FloatToFloat8(t, v, false), c) << DataTypeName(t) << " code " << c;
        continue;
      }
      EXPECT_EQ(FloatToFloat8(t, v, false), c) << DataTypeName(t) << " code " << c << " = " << v;
      EXPECT_EQ(FloatToFloat8(t, v, true), c) << DataTypeName(t) << " code " << c << " = " << v;
    }
  }
}

TEST(Float8, LimitsTiesAndSpecials) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(Float8ToFloat(DataType::kFloat8E4M3FN, 0x7E), 448.f);
  EXPECT_EQ(Float8ToFloat(DataType::kFloat8E4M3FNUZ, 0x7F), 240.f);
  EXPECT_EQ(Float8ToFloat(DataType::kFloat8E5M2, 0x7B), 57344.f);
  EXPECT_EQ(Float8ToFloat(DataType::kFloat8E5M2FNUZ, 0x7F), 57344.f);
  EXPECT_EQ(Float8ToFloat(DataType::kFloat8E4M3FN, 0x01), std::ldexp(1.f, -9));  // smallest subnormal
  // Ties to even: 1.0625 is halfway between 1 (0x38) and 1.125 (0x39) in e4m3fn.
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, 1.0625f, true), 0x38);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, 1.1875f, true), 0x3A);               // 1.125..1.25: to 1.25
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, std::ldexp(1.f, -10), true), 0x00);  // half the smallest
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, std::ldexp(1.5f, -10), true), 0x01);
  // Negative zero: kept by e4m3fn and e5m2, +0 in the fnuz types (0x80 is their NaN).
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, -0.f, true), 0x80);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FNUZ, -0.f, true), 0x00);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2FNUZ, -1e-30f, true), 0x00);
  // Saturation and its absence.
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, 1e6f, true), 0x7E);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, -1e6f, false), 0xFF);  // NaN
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, 470.f, false), 0x7F);  // rounds past 448
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, 464.f, false), 0x7E);  // tie to even: 448
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, 485.f, false), 0x7E);  // ONNX Runtime's quirk
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, 500.f, false), 0x7F);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2, inf, false), 0x7C);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2, -inf, true), 0xFB);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2, 61440.f, false), 0x7C);  // tie rounds up to 65536
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2, 61439.f, false), 0x7B);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FNUZ, inf, false), 0x80);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FNUZ, 250.f, true), 0x7F);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, -nan, true), 0xFF);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2FNUZ, nan, true), 0x80);
  EXPECT_TRUE(std::isnan(Float8ToFloat(DataType::kFloat8E5M2, 0x7D)));
}

// y = Q(x) to `qtype`, z = DQ(y), both written so the test reads the codes and the values.
std::string QdqJson(const std::string& qtype, const std::string& zp_data, const std::string& attrs,
                    const std::string& scale_shape, const std::string& scale_data) {
  return R"({"format": "qrt.graph", "version": 1, "opsets": {"": 21},
    "inputs": [{"name": "x", "dtype": "float32", "shape": [2, 4]}],
    "initializers": [{"name": "s", "dtype": "float32", "shape": )" +
         scale_shape + R"(, "data": )" + scale_data + R"(},
                     {"name": "zp", "dtype": ")" +
         qtype + R"(", "shape": )" + scale_shape + R"(, "data": )" + zp_data + R"(}],
    "nodes": [{"name": "q", "op": "QuantizeLinear", "inputs": ["x", "s", "zp"], "outputs": ["y"], "attrs": )" +
         attrs + R"(},
              {"name": "dq", "op": "DequantizeLinear", "inputs": ["y", "s", "zp"], "outputs": ["z"], "attrs": )" +
         attrs + R"(}],
    "outputs": [{"name": "y"}, {"name": "z"}]})";
}

TEST(LowBitQdq, Int4BlockedRoundTripsThroughOnnx) {
  // Blocks of 2 along axis 1: scales [2, 2], zero points -1 and 2 / 0 and 3.
  const std::string json =
      QdqJson("int4", "[-1, 2, 0, 3]", R"({"axis": 1, "block_size": 2})", "[2, 2]", "[0.5, 1, 0.25, 2]");
  StatusOr<Graph> g = LoadJsonText(json, "int4.json", ".");
  ASSERT_TRUE(g.ok()) << g.status().message();
  testing::TempDir dir;
  ASSERT_TRUE(SaveModel(*g, dir.path() + "/int4.onnx").ok());
  StatusOr<Graph> back = LoadModel(dir.path() + "/int4.onnx");
  ASSERT_TRUE(back.ok()) << back.status().message();
  const Tensor x = Tensor::FromVector<float>({1.25f, -9.f, 3.f, 100.f, -0.375f, 0.f, -7.f, 5.f}, {2, 4});
  for (Graph* graph : {&*g, &*back}) {
    auto out = testing::RunGraph(*graph, {x});
    ASSERT_TRUE(out.ok()) << out.status().message();
    const Tensor& y = (*out)[0];
    ASSERT_EQ(y.dtype(), DataType::kInt4);
    // rint(x / s) + zp, clamped to [-8, 7]: 1.25/0.5 = 2.5 -> 2 (even) - 1 = 1; -18 - 1 -> -8;
    // 3/1 + 2 = 5; 100 + 2 -> 7; -1.5 -> -2 + 0; 0; -3.5 -> -4 + 3 = -1; 2.5 -> 2 + 3 = 5.
    const std::vector<int64_t> want = {1, -8, 5, 7, -2, 0, -1, 5};
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(y.GetAsInt64(i), want[size_t(i)]) << i;
    const Tensor& z = (*out)[1];
    const std::vector<float> zs = {1.f, -3.5f, 3.f, 5.f, -0.5f, 0.f, -8.f, 4.f};
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(z.data<float>()[i], zs[size_t(i)]) << i;
  }
  // A 4-bit initializer out of range is refused by the JSON loader.
  std::string bad = json;
  bad.replace(bad.find("[-1, 2, 0, 3]"), 13, "[-9, 2, 0, 3]");
  EXPECT_FALSE(LoadJsonText(bad, "int4.json", ".").ok());
}

TEST(LowBitQdq, Float8SaturatesAsAsked) {
  const Tensor x = Tensor::FromVector<float>({1.0625f, -1000.f, 0.3f, -0.f, 470.f, 485.f, 1e-9f, 2.f}, {2, 4});
  for (int saturate : {0, 1}) {
    const std::string json = QdqJson("float8e4m3fn", "0", StrCat(R"({"saturate": )", saturate, "}"), "[]", "1");
    StatusOr<Graph> g = LoadJsonText(json, "f8.json", ".");
    ASSERT_TRUE(g.ok()) << g.status().message();
    auto out = testing::RunGraph(*g, {x});
    ASSERT_TRUE(out.ok()) << out.status().message();
    const uint8_t* y = (*out)[0].data<uint8_t>();
    for (int64_t i = 0; i < 8; ++i) {
      EXPECT_EQ(y[i], FloatToFloat8(DataType::kFloat8E4M3FN, x.data<float>()[i], saturate != 0)) << i;
    }
    EXPECT_EQ(y[1], saturate ? 0xFE : 0xFF);
    EXPECT_EQ(y[3], 0x80);  // -0 stays -0: the zero point is not added
    const float* z = (*out)[1].data<float>();
    EXPECT_EQ(z[0], 1.f);
    EXPECT_EQ(z[7], 2.f);
    EXPECT_EQ(std::isnan(z[4]), saturate == 0);
  }
  // Float8 quantization needs opset 19.
  std::string old = QdqJson("float8e5m2", "0", "{}", "[]", "1");
  old.replace(old.find(R"({"": 21})"), 8, R"({"": 18})");
  StatusOr<Graph> g = LoadJsonText(old, "f8.json", ".");
  ASSERT_TRUE(g.ok());
  auto out = testing::RunGraph(*g, {x});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(testing::Contains(out.status().message(), "needs opset 19")) << out.status().message();
}

}  // namespace
}  // namespace qrt
