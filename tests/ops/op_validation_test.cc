// Op validations done when the graph is planned (issue 8): shapes, dtypes, attribute
// and axis ranges, scales, pads and strides, constant indices. Each bad model fails at
// Compile with an error naming the file, the node and the reason; kernels never see
// such a node. Indices that are data can only be checked at run time: that error names
// the node too.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "loaders/json_loader.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

using testing::Contains;

constexpr const char* kSource = "bad.json";

// A model with float32 input x of `x_shape`, the given initializers and one node "n".
std::string OneNode(const std::string& x_shape, const std::string& node, const std::string& inits = "",
                    int opset = 13) {
  return R"({"format": "qrt.graph", "version": 1, "opsets": {"": )" + std::to_string(opset) + R"(},
    "inputs": [{"name": "x", "dtype": "float32", "shape": )" +
         x_shape + R"(}],
    "initializers": [)" +
         inits + R"(],
    "nodes": [)" +
         node + R"(],
    "outputs": [{"name": "y"}]})";
}

StatusOr<std::shared_ptr<const CompiledModel>> CompileText(const std::string& json) {
  QRT_ASSIGN_OR_RETURN(Graph g, LoadJsonText(json, kSource, "."));
  CompileOptions options;
  options.passes = "none";  // the node itself must be planned, not folded or fused away
  return Compile(std::move(g), options);
}

// Compile fails with a message naming the file, node 'n' and every part of the reason.
void ExpectPlanError(const std::string& json, const std::vector<std::string>& reason) {
  StatusOr<std::shared_ptr<const CompiledModel>> m = CompileText(json);
  ASSERT_FALSE(m.ok()) << json;
  EXPECT_NE(m.status().code(), StatusCode::kInternal) << m.status().message();
  EXPECT_PRED2(Contains, m.status().message(), kSource);
  EXPECT_PRED2(Contains, m.status().message(), "node 'n'");
  for (const std::string& r : reason) EXPECT_PRED2(Contains, m.status().message(), r);
}

std::string Init(const std::string& name, const std::string& dtype, const std::string& shape, const std::string& data) {
  return R"({"name": ")" + name + R"(", "dtype": ")" + dtype + R"(", "shape": )" + shape + R"(, "data": )" + data + "}";
}

// ---- shapes and dtypes ------------------------------------------------------------------

TEST(OpValidation, ShapesThatDoNotBroadcast) {
  ExpectPlanError(OneNode("[2, 3]", R"({"name": "n", "op": "Add", "inputs": ["x", "b"], "outputs": ["y"]})",
                          Init("b", "float32", "[4]", "[1, 2, 3, 4]")),
                  {"broadcast"});
}

TEST(OpValidation, MismatchedDtypes) {
  ExpectPlanError(OneNode("[2]", R"({"name": "n", "op": "Mul", "inputs": ["x", "b"], "outputs": ["y"]})",
                          Init("b", "int64", "[2]", "[1, 2]")),
                  {"dtypes differ", "float32", "int64"});
}

TEST(OpValidation, ReshapeToAnotherElementCount) {
  ExpectPlanError(OneNode("[2, 3]", R"({"name": "n", "op": "Reshape", "inputs": ["x", "s"], "outputs": ["y"]})",
                          Init("s", "int64", "[2]", "[4, 2]")),
                  {"cannot reshape"});
  ExpectPlanError(OneNode("[2, 3]", R"({"name": "n", "op": "Reshape", "inputs": ["x", "s"], "outputs": ["y"]})",
                          Init("s", "int64", "[2]", "[-1, -1]")),
                  {"more than one -1"});
}

TEST(OpValidation, ConcatShapesDiffer) {
  ExpectPlanError(OneNode("[2, 3]", R"({"name": "n", "op": "Concat", "inputs": ["x", "b"], "outputs": ["y"],
                                       "attrs": {"axis": 0}})",
                          Init("b", "float32", "[1, 2]", "[1, 2]")),
                  {"does not match"});
}

// Declared input shapes need no data, so a tiny model can put every input at the size
// limit. The ops bound their output before computing m * n * k (which overflowed int64
// here before: UB, found by review) or sizing anything from it.
TEST(OpValidation, ProductsOfInputsAtTheSizeLimit) {
  const auto two_inputs = [](const std::string& a, const std::string& b, const std::string& node) {
    return R"({"format": "qrt.graph", "version": 1,
      "inputs": [{"name": "a", "dtype": "float32", "shape": )" +
           a + R"(},
                 {"name": "b", "dtype": "float32", "shape": )" +
           b + R"(}],
      "nodes": [)" +
           node + R"(], "outputs": [{"name": "y"}]})";
  };
  ExpectPlanError(two_inputs("[4294967296, 1]", "[1, 4294967296]",
                             R"({"name": "n", "op": "MatMul", "inputs": ["a", "b"], "outputs": ["y"]})"),
                  {"size limit"});
  ExpectPlanError(two_inputs("[2, 2147483648, 1]", "[1, 1, 2147483648]",
                             R"({"name": "n", "op": "MatMul", "inputs": ["a", "b"], "outputs": ["y"]})"),
                  {"size limit"});
  ExpectPlanError(two_inputs("[4294967296, 1]", "[4294967296, 1]",
                             R"({"name": "n", "op": "Gemm", "inputs": ["a", "b"], "outputs": ["y"],
                                 "attrs": {"transB": 1}})"),
                  {"size limit"});
  ExpectPlanError(two_inputs("[1, 1, 65536, 65536]", "[65536, 1, 1, 1]",
                             R"({"name": "n", "op": "Conv", "inputs": ["a", "b"], "outputs": ["y"]})"),
                  {"size limit"});
}

// ---- attribute and axis ranges -----------------------------------------------------------

TEST(OpValidation, AxisOutOfRange) {
  for (const char* op : {"Softmax", "Concat", "Gather"}) {
    const std::string inputs = std::string(op) == "Gather" ? R"(["x", "i"])" : R"(["x"])";
    ExpectPlanError(OneNode("[2, 3]",
                            R"({"name": "n", "op": ")" + std::string(op) + R"(", "inputs": )" + inputs +
                                R"(, "outputs": ["y"], "attrs": {"axis": 2}})",
                            Init("i", "int64", "[1]", "[0]")),
                    {"axis 2", "out of range"});
  }
}

TEST(OpValidation, PermutationThatIsNotOne) {
  ExpectPlanError(OneNode("[2, 3]", R"({"name": "n", "op": "Transpose", "inputs": ["x"], "outputs": ["y"],
                                       "attrs": {"perm": [0, 0]}})"),
                  {"not a permutation"});
}

TEST(OpValidation, UnknownEnumAttribute) {
  ExpectPlanError(OneNode("[2]", R"({"name": "n", "op": "Pad", "inputs": ["x", "p"], "outputs": ["y"],
                                    "attrs": {"mode": "mirror"}})",
                          Init("p", "int64", "[2]", "[1, 1]")),
                  {"unknown Pad mode 'mirror'"});
}

TEST(OpValidation, PerAxisScaleAxisOutOfRange) {
  ExpectPlanError(OneNode("[2, 3]", R"({"name": "n", "op": "QuantizeLinear", "inputs": ["x", "s", "z"],
                                       "outputs": ["y"], "attrs": {"axis": 5}})",
                          Init("s", "float32", "[3]", "[1, 1, 1]") + ", " + Init("z", "uint8", "[3]", "[0, 0, 0]")),
                  {"axis 5", "out of range"});
}

// ---- scales -----------------------------------------------------------------------------

TEST(OpValidation, ResizeScalesMustBePositiveAndFinite) {
  for (const char* scale : {"0", "-2", R"("nan")", R"("inf")"}) {
    ExpectPlanError(OneNode("[1, 1, 2, 2]", R"({"name": "n", "op": "Resize", "inputs": ["x", "", "s"],
                                               "outputs": ["y"]})",
                            Init("s", "float32", "[4]", std::string("[1, 1, 1, ") + scale + "]")),
                    {"must be > 0 (and finite)"});
  }
}

// ONNX defines QuantizeLinear by IEEE arithmetic, so zero, infinite and NaN scales are
// not errors: x / 0 is +-inf and saturates, NaN becomes the zero point. What matters is
// that no kernel turns a non-finite value into an integer (UB) on either ISA.
TEST(OpValidation, QuantizeLinearNonFiniteScalesSaturate) {
  for (Isa isa : TiersThisCpuHas()) {
    for (const char* scale : {"0", R"("inf")", R"("nan")", R"("-inf")", "1e-45"}) {
      StatusOr<Graph> g =
          LoadJsonText(OneNode("[4]", R"({"name": "n", "op": "QuantizeLinear",
                                                   "inputs": ["x", "s", "z"], "outputs": ["y"]})",
                               Init("s", "float32", "[]", scale) + ", " + Init("z", "uint8", "[]", "10")),
                       kSource, ".");
      ASSERT_TRUE(g.ok()) << g.status().message();
      const float nan = std::numeric_limits<float>::quiet_NaN();
      auto out =
          testing::RunGraph(std::move(g).value(), {Tensor::FromVector<float>({-3.f, 0.f, 5.f, nan}, {4})}, "none", isa);
      ASSERT_TRUE(out.ok()) << scale << ": " << out.status().message();
      for (int i = 0; i < 4; ++i) EXPECT_LE((*out)[0].data<uint8_t>()[i], 255);
    }
  }
}

// ---- pads and strides -------------------------------------------------------------------

std::string ConvNode(const std::string& attrs) {
  return R"({"name": "n", "op": "Conv", "inputs": ["x", "w"], "outputs": ["y"], "attrs": {)" + attrs + "}}";
}
const std::string kConvW = Init("w", "float32", "[1, 1, 1, 1]", "[1]");

TEST(OpValidation, ConvNegativePads) {
  ExpectPlanError(OneNode("[1, 1, 4, 4]", ConvNode(R"("pads": [0, -1, 0, 0])"), kConvW), {"pads must be in [0,"});
}

TEST(OpValidation, ConvHugePadsStridesDilations) {
  ExpectPlanError(OneNode("[1, 1, 4, 4]", ConvNode(R"("pads": [0, 9223372036854775807, 0, 0])"), kConvW), {"pads"});
  ExpectPlanError(OneNode("[1, 1, 4, 4]", ConvNode(R"("dilations": [1, 9223372036854775807])"), kConvW),
                  {"dilations must be in [1,"});
  ExpectPlanError(OneNode("[1, 1, 4, 4]", ConvNode(R"("strides": [1, 4611686018427387904])"), kConvW),
                  {"strides and dilations"});
}

TEST(OpValidation, ConvZeroOrNegativeStrides) {
  ExpectPlanError(OneNode("[1, 1, 4, 4]", ConvNode(R"("strides": [0, 1])"), kConvW), {"strides"});
  ExpectPlanError(OneNode("[1, 1, 4, 4]", ConvNode(R"("strides": [1, -2])"), kConvW), {"strides"});
}

std::string PoolNode(const std::string& attrs) {
  return R"({"name": "n", "op": "MaxPool", "inputs": ["x"], "outputs": ["y"], "attrs": {"kernel_shape": [1, 1], )" +
         attrs + "}}";
}

TEST(OpValidation, PoolNegativePadsAndStrides) {
  ExpectPlanError(OneNode("[1, 1, 4, 4]", PoolNode(R"("pads": [-1, 0, 0, 0])")), {"invalid pooling geometry"});
  ExpectPlanError(OneNode("[1, 1, 4, 4]", PoolNode(R"("strides": [1, 0])")), {"invalid pooling geometry"});
}

// 2^24 pads around a one-element axis with a 2^24 kernel: the window table would have
// 2^48 entries. It is refused before a single entry is made.
TEST(OpValidation, PoolWindowTableTooLarge) {
  ExpectPlanError(OneNode("[1, 1, 1, 1]", R"({"name": "n", "op": "MaxPool", "inputs": ["x"], "outputs": ["y"],
                                             "attrs": {"kernel_shape": [1, 16777216],
                                                       "pads": [0, 16777216, 0, 16777216]}})"),
                  {"window table", "too large"});
}

TEST(OpValidation, PadThatLeavesANegativeLength) {
  ExpectPlanError(OneNode("[2]", R"({"name": "n", "op": "Pad", "inputs": ["x", "p"], "outputs": ["y"]})",
                          Init("p", "int64", "[2]", "[-2, -1]")),
                  {"negative length"});
  ExpectPlanError(OneNode("[2]", R"({"name": "n", "op": "Pad", "inputs": ["x", "p"], "outputs": ["y"]})",
                          Init("p", "int64", "[2]", "[9223372036854775807, 0]")),
                  {"out of range"});
}

// ---- indices ------------------------------------------------------------------------------

TEST(OpValidation, GatherConstantIndexOutOfRange) {
  ExpectPlanError(OneNode("[3]", R"({"name": "n", "op": "Gather", "inputs": ["x", "i"], "outputs": ["y"]})",
                          Init("i", "int64", "[2]", "[0, 3]")),
                  {"index 3", "out of range"});
  ExpectPlanError(OneNode("[3]", R"({"name": "n", "op": "Gather", "inputs": ["x", "i"], "outputs": ["y"]})",
                          Init("i", "int64", "[1]", "[-9223372036854775808]")),
                  {"out of range"});
}

// Indices that are data are checked once per run, before any row is copied.
TEST(OpValidation, GatherDataIndexOutOfRangeFailsTheRun) {
  const std::string json = R"({"format": "qrt.graph", "version": 1,
    "inputs": [{"name": "x", "dtype": "float32", "shape": [3]}, {"name": "i", "dtype": "int32", "shape": [2]}],
    "nodes": [{"name": "n", "op": "Gather", "inputs": ["x", "i"], "outputs": ["y"]}],
    "outputs": [{"name": "y"}]})";
  StatusOr<std::shared_ptr<const CompiledModel>> m = CompileText(json);
  ASSERT_TRUE(m.ok()) << m.status().message();
  Session s(*m);
  std::vector<Tensor> out;
  Status st = s.Run({Tensor::FromVector<float>({1, 2, 3}, {3}), Tensor::FromVector<int32_t>({0, -4}, {2})}, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_PRED2(Contains, st.message(), kSource);
  EXPECT_PRED2(Contains, st.message(), "node 'n'");
  EXPECT_PRED2(Contains, st.message(), "index -4 is out of range");
  ASSERT_TRUE(s.Run({Tensor::FromVector<float>({1, 2, 3}, {3}), Tensor::FromVector<int32_t>({2, -3}, {2})}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], 3.f);
  EXPECT_EQ(out[0].data<float>()[1], 1.f);
}

TEST(OpValidation, SliceStepZeroAndBadAxes) {
  const std::string slice = R"({"name": "n", "op": "Slice", "inputs": ["x", "s", "e", "a", "t"], "outputs": ["y"]})";
  const std::string se = Init("s", "int64", "[1]", "[0]") + ", " + Init("e", "int64", "[1]", "[2]") + ", ";
  ExpectPlanError(
      OneNode("[3]", slice, se + Init("a", "int64", "[1]", "[0]") + ", " + Init("t", "int64", "[1]", "[0]")),
      {"step", "is 0"});
  ExpectPlanError(
      OneNode("[3]", slice, se + Init("a", "int64", "[1]", "[1]") + ", " + Init("t", "int64", "[1]", "[1]")),
      {"axis 1", "out of range"});
}

// Starts and ends outside the axis are clamped, as ONNX says, even at the int64 extremes.
TEST(OpValidation, SliceExtremeStartsAndEndsAreClamped) {
  const std::string json = OneNode(
      "[3]", R"({"name": "n", "op": "Slice", "inputs": ["x", "s", "e", "a", "t"], "outputs": ["y"]})",
      Init("s", "int64", "[1]", "[9223372036854775807]") + ", " + Init("e", "int64", "[1]", "[-9223372036854775808]") +
          ", " + Init("a", "int64", "[1]", "[0]") + ", " + Init("t", "int64", "[1]", "[-9223372036854775808]"));
  StatusOr<Graph> g = LoadJsonText(json, kSource, ".");
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto out = testing::RunGraph(std::move(g).value(), {Tensor::FromVector<float>({1, 2, 3}, {3})}, "none");
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ((*out)[0].numel(), 1);  // from the last element, one huge step backwards
  EXPECT_EQ((*out)[0].data<float>()[0], 3.f);
}

TEST(OpValidation, TileNegativeRepeat) {
  ExpectPlanError(OneNode("[2]", R"({"name": "n", "op": "Tile", "inputs": ["x", "r"], "outputs": ["y"]})",
                          Init("r", "int64", "[1]", "[-1]")),
                  {"negative repeat"});
}

}  // namespace
}  // namespace qrt
