// The contracts of qrt's own ops (ops/*.h): the slot enums agree with the registered input
// counts, and the typed attributes survive the trip through a node's attributes, which is how
// the passes hand them to the ops.
#include <gtest/gtest.h>

#include "ops/conv_quantize_dequantize.h"
#include "ops/lookup_table.h"
#include "ops/ops.h"
#include "ops/qlinear_conv.h"
#include "ops/quantize_dequantize.h"
#include "ops/quantized_binary.h"
#include "ops/registry.h"

namespace qrt {
namespace {

TEST(QrtOpContracts, SlotCountsMatchTheRegistry) {
  struct Expect {
    const OpDef* op;
    int min_inputs, max_inputs;
  };
  const Expect expects[] = {
      {&kQuantizedMulOp, qbin::kCZeroPoint, qbin::kInputCount},
      {&kQuantizedAddOp, qbin::kCZeroPoint, qbin::kInputCount},
      {&kQLinearMulOp, qbin::kCZeroPoint, qbin::kInputCount},
      {&kLookupTableOp, lut::kInputCount, lut::kInputCount},
      {&kQuantizeDequantizeOp, qdq::kZeroPoint, qdq::kInputCount},
      {&kQrtQLinearConvOp, qlconv::kB, qlconv::kInputCount},
      {&kQLinearConvOp, qlconv::kB, qlconv::kInputCount},
      {&kQrtConvQuantizeDequantizeOp, cqd::kZeroPoint, cqd::kInputCount},
  };
  for (const Expect& e : expects) {
    SCOPED_TRACE(std::string(e.op->domain) + ":" + std::string(e.op->op_type));
    EXPECT_EQ(e.op->min_inputs, e.min_inputs);
    EXPECT_EQ(e.op->max_inputs, e.max_inputs);
    // The registry resolves the name to this very definition, so identity by OpDef holds.
    EXPECT_EQ(FindOp(e.op->domain, e.op->op_type), e.op);
  }
}

TEST(QrtOpContracts, QuantizedBinaryAttributesRoundTrip) {
  QuantizedBinaryAttrs a;
  EXPECT_TRUE(ToAttributes(a).all().empty()) << "defaults are left out";
  a.requantize = Requantize::kDivide;
  a.output_dtype = DataType::kInt8;
  a.a_axis = -1;
  a.b_axis = 2;
  const Attributes attrs = ToAttributes(a);
  EXPECT_EQ(*attrs.GetString("requantize"), "divide");
  EXPECT_EQ(*attrs.GetString("output_dtype"), "int8");
  auto back = QuantizedBinaryAttrsFrom(attrs);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->requantize, Requantize::kDivide);
  EXPECT_EQ(back->output_dtype, DataType::kInt8);
  EXPECT_EQ(back->a_axis, std::optional<int64_t>(-1));
  EXPECT_EQ(back->b_axis, std::optional<int64_t>(2));
  for (Requantize r : {Requantize::kReciprocal, Requantize::kDivide, Requantize::kCombined}) {
    EXPECT_EQ(*ParseRequantize(RequantizeName(r)), r);
  }
}

TEST(QrtOpContracts, QuantizedBinaryAttributeErrorsNameTheAttribute) {
  Attributes bad_rule;
  bad_rule.Set("requantize", std::string("nearest"));
  auto r = QuantizedBinaryAttrsFrom(bad_rule);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nearest"), std::string::npos) << r.status().message();
  Attributes bad_type;
  bad_type.Set("output_dtype", std::string("int3"));
  r = QuantizedBinaryAttrsFrom(bad_type);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("output_dtype"), std::string::npos) << r.status().message();
  Attributes bad_axis;
  bad_axis.Set("A_axis", std::string("one"));
  EXPECT_FALSE(QuantizedBinaryAttrsFrom(bad_axis).ok());
}

TEST(QrtOpContracts, QLinearConvClampRoundTrip) {
  auto none = QLinearConvClamp::From(Attributes{});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->output_min, std::numeric_limits<int32_t>::min());
  EXPECT_EQ(none->output_max, std::numeric_limits<int32_t>::max());
  Attributes attrs;
  QLinearConvClamp{3, 200}.SetOn(attrs);
  auto back = QLinearConvClamp::From(attrs);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->output_min, 3);
  EXPECT_EQ(back->output_max, 200);
  Attributes inverted;
  QLinearConvClamp{9, 2}.SetOn(inverted);
  auto bad = QLinearConvClamp::From(inverted);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("output_min"), std::string::npos);
}

}  // namespace
}  // namespace qrt
