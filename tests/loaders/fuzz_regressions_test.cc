// Inputs the libFuzzer targets (tools/fuzz) crashed on, each kept as a regression test
// with the bytes of the crashing input (or the model rebuilt in code when that reads
// better) and the clean error or result qrt now gives. Run the sanitizer build
// (tools/sanitize.sh) to have these catch what ASan and UBSan caught.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "loaders/json_loader.h"
#include "loaders/model_io.h"
#include "loaders/onnx_loader.h"
#include "runtime/model.h"
#include "runtime/op_def.h"
#include "runtime/session.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

using testing::Contains;

// "0a1b..." -> bytes.
std::string Hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += char(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

StatusOr<Graph> LoadOnnxBytes(const std::string& bytes) {
  return LoadOnnxBuffer(bytes.data(), bytes.size(), "fuzz.onnx", "");
}

// onnx_loader_fuzz: a graph name that is not UTF-8 ("test_sigmoid_\xe5xample"). ONNX
// names are bytes, but JSON text is UTF-8: nlohmann's dump() threw type_error 316 out of
// GraphToJson, through `qrt convert`, to std::terminate.
TEST(FuzzRegression, NonUtf8NameIsAnErrorWhenWritingJson) {
  const std::string model =
      Hex("0807120c6261636b656e642d746573743a490a0f0a017812017922075369676d6f69641214746573"
          "745f7369676d6f69645fe578616d706c655a0f0a0178120a0a08080112040a020803620f0a017912"
          "0a0a08080112040a02080342040a00100d");
  StatusOr<Graph> g = LoadOnnxBytes(model);
  ASSERT_TRUE(g.ok()) << g.status().message();
  StatusOr<std::string> json = GraphToJson(*g, nullptr);
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument);
  EXPECT_PRED2(Contains, json.status().message(), "fuzz.onnx");
  EXPECT_PRED2(Contains, json.status().message(), "not valid UTF-8");
  EXPECT_TRUE(GraphToOnnx(*g, nullptr).ok());  // ONNX holds any bytes
}

// run_model_fuzz: Resize (linear, tf_crop_and_resize) whose roi is a graph input; the
// run fed a NaN roi, the source coordinate became NaN and was converted to int64
// (UBSan: "-nan is outside the range of representable values of type 'long'").
// A non-finite roi is now refused when the plan is made for it, naming the node.
TEST(FuzzRegression, ResizeNanRoiIsRefusedNotConvertedToAnIndex) {
  const std::string model =
      Hex("0807120c6261636b656e642d746573743a8c020a87010a01580a03726f690a000a0573697a657312"
          "01592206526573697a652a370a1e636f6f7264696e6174655f7472616e73666f726d6174696f6e5f"
          "6d6f6465221274665f63726f705f616e645f726573697a65a001032a1d0a136578747261706f6c61"
          "74696f6e5f76616c75651500002041a001012a110a046d6f646522066c696e656172a00103121e74"
          "6573745f726573697a655f74665f63726f705f61ee645f706573697a655a1b0a015812160a140801"
          "12100a0208010a0208010a0208040a0208045a110a03726f69120a0a08080112040a0208085a130a"
          "0573697a6573120a0a08080712040a020804621b0a015912160a14080112100a0208010a0208010a"
          "0208030a02080342040a00100d");
  for (Isa isa : TiersThisCpuHas()) {
    StatusOr<Graph> g = LoadOnnxBytes(model);
    ASSERT_TRUE(g.ok()) << g.status().message();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> x(16);
    for (int i = 0; i < 16; ++i) x[size_t(i)] = float(i);
    const std::vector<Tensor> feeds = {Tensor::FromVector<float>(x, {1, 1, 4, 4}),
                                       Tensor::FromVector<float>({0, 0, nan, 0, 1, 1, 1, 1}, {8}),
                                       Tensor::FromVector<int64_t>({1, 1, 3, 3}, {4})};
    StatusOr<std::vector<Tensor>> out = testing::RunGraph(*g, feeds, "default", isa);
    ASSERT_FALSE(out.ok());
    EXPECT_PRED2(Contains, out.status().message(), "fuzz.onnx");
    EXPECT_PRED2(Contains, out.status().message(), "Resize");
    EXPECT_PRED2(Contains, out.status().message(), "roi[2] = nan is not finite");
    // A finite roi still runs.
    const std::vector<Tensor> good = {feeds[0], Tensor::FromVector<float>({0, 0, 0.25f, 0, 1, 1, 1, 1}, {8}), feeds[2]};
    out = testing::RunGraph(std::move(g).value(), good, "default", isa);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ((*out)[0].dims(), (Dims{1, 1, 3, 3}));
  }
}

// run_model_fuzz: a Reshape with only its data input at opset 12 (the shape became an
// attribute in opset 5). prepare read input 1 of a one-input node: ASan
// heap-buffer-overflow in ExpectDType. Now a clear error; and any index past a node's
// inputs reads as an omitted input, for every op.
TEST(FuzzRegression, ReshapeWithoutItsShapeInput) {
  const std::string json =
      R"({"format": "qrt.graph", "initializers": [], "inputs": [{"dtype": "float32", "name": "x", "shape": [1, 3, 32, 32]}], "name": "test_maxpool_2d_same_upper", "nodes": [{"attrs": {"auto_pad": "SAME_UPPER", "kernel_shape": [1, 2]}, "domain": "", "inputs": ["x"], "name": "MaxPool_0", "op": "Reshape", "outputs": ["y"]}], "opsets": {"": 12}, "outputs": [{"dtype": "float32", "name": "y"}], "version": 1})";
  StatusOr<Graph> g = LoadJsonText(json, "fuzz.json", "");
  ASSERT_TRUE(g.ok()) << g.status().message();
  StatusOr<std::shared_ptr<const CompiledModel>> m = Compile(std::move(g).value(), CompileOptions());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_PRED2(Contains, m.status().message(), "fuzz.json: node 'MaxPool_0' (#0, Reshape)");
  EXPECT_PRED2(Contains, m.status().message(), "Reshape at opset 12 needs the shape input");
}

TEST(FuzzRegression, InputsPastTheNodeReadAsOmitted) {
  Node node;
  node.outputs.resize(1);
  TensorInfo x;
  x.dtype = DataType::kFloat32;
  x.dims = {2};
  PrepareContext ctx(node, {x}, PlanOptions());
  EXPECT_EQ(ctx.input(0).dtype, DataType::kFloat32);
  for (int i : {1, 7, -1}) {
    EXPECT_EQ(ctx.input(i).dtype, DataType::kUndefined);
    EXPECT_TRUE(ctx.input(i).dims.empty());
    EXPECT_EQ(ctx.input(i).value, nullptr);
    EXPECT_FALSE(ctx.has_input(i));
  }
}

// run_model_fuzz: a number too large for a double ("6.8815212E4975586") makes nlohmann
// throw out_of_range (406), not parse_error; only parse_error was caught, so the
// exception reached std::terminate. Minimised from crash-5dae41ee (24 KB).
TEST(FuzzRegression, JsonNumberOverflowIsAnError) {
  for (const char* number : {"6.8815212E4975586", "-1e999", "1e400"}) {
    const std::string json = std::string(R"({"format": "qrt.graph", "version": 1, "nodes": [
        {"op": "LeakyRelu", "inputs": ["x"], "outputs": ["y"], "attrs": {"alpha": )") +
                             number + "}}]}";
    StatusOr<Graph> g = LoadJsonText(json, "fuzz.json", "");
    ASSERT_FALSE(g.ok()) << number;
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
    EXPECT_PRED2(Contains, g.status().message(), "fuzz.json: invalid JSON");
    EXPECT_PRED2(Contains, g.status().message(), "number overflow");
  }
}

// run_model_fuzz (crash-b944df27, an ONNX Mul on uint16): 49325 * 49325 in uint16 promoted
// to int and overflowed (UBSan: signed integer overflow in ops/binary.cc). Integer Add, Sub,
// Mul and PRelu wrap modulo 2^bits, computed in unsigned arithmetic.
TEST(FuzzRegression, NarrowIntegerMulWraps) {
  const auto run = [](const char* dtype, const std::string& values) {
    const std::string json = std::string(R"({"format": "qrt.graph", "version": 1, "opsets": {"": 14},
        "inputs": [{"name": "x", "dtype": ")") +
                             dtype + R"(", "shape": [3]}], "outputs": [{"name": "y"}],
        "initializers": [{"name": "c", "dtype": ")" +
                             dtype + R"(", "shape": [3], "data": )" + values + R"(}],
        "nodes": [{"op": "Mul", "inputs": ["x", "c"], "outputs": ["y"]}]})";
    StatusOr<Graph> g = LoadJsonText(json, "fuzz.json", "");
    EXPECT_TRUE(g.ok()) << g.status().message();
    return g;
  };
  {
    StatusOr<Graph> g = run("uint16", "[49325, 65535, 2]");
    auto m = Compile(std::move(g).value(), CompileOptions());
    ASSERT_TRUE(m.ok()) << m.status().message();
    Session s(*m);
    std::vector<Tensor> out;
    ASSERT_TRUE(s.Run({Tensor::FromVector<uint16_t>({49325, 65535, 40000}, {3})}, &out).ok());
    EXPECT_EQ(out[0].data<uint16_t>()[0], uint16_t((49325u * 49325u) & 0xFFFF));
    EXPECT_EQ(out[0].data<uint16_t>()[1], uint16_t(1));      // (2^16 - 1)^2 = 1 mod 2^16
    EXPECT_EQ(out[0].data<uint16_t>()[2], uint16_t(14464));  // 80000 mod 65536
  }
  {
    StatusOr<Graph> g = run("int16", "[-32768, 32767, 300]");
    auto m = Compile(std::move(g).value(), CompileOptions());
    ASSERT_TRUE(m.ok()) << m.status().message();
    Session s(*m);
    std::vector<Tensor> out;
    ASSERT_TRUE(s.Run({Tensor::FromVector<int16_t>({-32768, 32767, 300}, {3})}, &out).ok());
    EXPECT_EQ(out[0].data<int16_t>()[0], int16_t(0));      // 2^30 mod 2^16
    EXPECT_EQ(out[0].data<int16_t>()[1], int16_t(1));      // (2^15 - 1)^2 = 2^30 - 2^16 + 1
    EXPECT_EQ(out[0].data<int16_t>()[2], int16_t(24464));  // 90000 - 65536
  }
}

// run_model_fuzz (timeout-d62cc0a0): Resize cubic on a 1x1x91x4 input with uint8 scales up to
// 255 on every axis ran for minutes: cubic visits 4 taps per resized axis, 256 per output in
// 4-D, over a 64 MB output. Scales must be float32 (ONNX), and linear/cubic work (outputs x
// taps) is bounded at 2^32 like sizes are.
TEST(FuzzRegression, ResizeScalesDtypeAndWorkAreBounded) {
  const auto compile = [](const char* scales_dtype, const std::string& scales) {
    const std::string json = std::string(R"({"format": "qrt.graph", "version": 1, "opsets": {"": 13},
        "inputs": [{"name": "x", "dtype": "float32", "shape": [1, 1, 91, 4]}], "outputs": [{"name": "y"}],
        "initializers": [{"name": "scales", "dtype": ")") +
                             scales_dtype + R"(", "shape": [4], "data": )" + scales + R"(}],
        "nodes": [{"name": "up", "op": "Resize", "inputs": ["x", "", "scales"], "outputs": ["y"], "attrs": {"mode": "cubic"}}]})";
    StatusOr<Graph> g = LoadJsonText(json, "fuzz.json", "");
    EXPECT_TRUE(g.ok()) << g.status().message();
    return Compile(std::move(g).value(), CompileOptions());
  };
  auto bad_dtype = compile("uint8", "[3, 200, 51, 90]");
  ASSERT_FALSE(bad_dtype.ok());
  EXPECT_EQ(bad_dtype.status().code(), StatusCode::kInvalidArgument);
  EXPECT_PRED2(Contains, bad_dtype.status().message(), "node 'up'");
  EXPECT_PRED2(Contains, bad_dtype.status().message(), "uint8");
  // 3 x 20 x 910 x 360 outputs (79 MB) x 4^4 taps: over 2^32.
  auto too_much = compile("float32", "[3, 20, 10, 90]");
  ASSERT_FALSE(too_much.ok());
  EXPECT_EQ(too_much.status().code(), StatusCode::kResourceExhausted);
  EXPECT_PRED2(Contains, too_much.status().message(), "weighted taps");
  // The same upsampling on the two spatial axes only is fine: 16 taps per output.
  auto fine = compile("float32", "[1, 1, 2, 2]");
  EXPECT_TRUE(fine.ok()) << fine.status().message();
}

// run_model_fuzz (crash-128f6774): a Cast whose only output is omitted ("") in a graph with
// no outputs ran with --passes none and wrote through a null output (UBSan: reference
// binding to null). A required output must have a name; the error names the node.
TEST(FuzzRegression, RequiredOutputWithoutAName) {
  const std::string json = R"({"format": "qrt.graph", "version": 1, "opsets": {"": 13},
      "inputs": [{"name": "input", "dtype": "float64", "shape": [6, 264]}], "outputs": [],
      "nodes": [{"name": "Cast_0", "op": "Cast", "inputs": ["input"], "outputs": [""], "attrs": {"to": 5}}]})";
  StatusOr<Graph> g = LoadJsonText(json, "fuzz.json", "");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_PRED2(Contains, g.status().message(), "fuzz.json");
  EXPECT_PRED2(Contains, g.status().message(), "Cast_0");
  EXPECT_PRED2(Contains, g.status().message(), "output 0 of Cast is required but has no name");
}

}  // namespace
}  // namespace qrt
