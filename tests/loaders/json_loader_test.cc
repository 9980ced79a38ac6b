// The JSON graph format contract (issue 2, docs/json-format.md): every field the
// format defines, run through small graphs with hand-computed results, and every
// error path, which must name the file and the node or field at fault.
#include "loaders/json_loader.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "loaders/base64.h"
#include "ops/registry.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

constexpr const char* kSource = "model.json";

using testing::Contains;

using testing::TempDir;

// A qrt.graph document from its four arrays (each a JSON array text).
std::string Doc(const std::string& inputs, const std::string& initializers, const std::string& nodes,
                const std::string& outputs) {
  return R"({"format": "qrt.graph", "version": 1, "inputs": )" + inputs + R"(, "initializers": )" + initializers +
         R"(, "nodes": )" + nodes + R"(, "outputs": )" + outputs + "}";
}

StatusOr<Graph> Load(const std::string& text, const std::string& base_dir = ".") {
  return LoadJsonText(text, kSource, base_dir);
}

StatusOr<std::vector<Tensor>> LoadAndRun(const std::string& text, const std::vector<Tensor>& inputs) {
  QRT_ASSIGN_OR_RETURN(Graph g, Load(text));
  return testing::RunGraph(std::move(g), inputs);
}

template <class T>
std::vector<T> Values(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DataTypeOf<T>::value);
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

// Loading must fail with `code`, and the message must contain every one of `parts`.
void ExpectLoadError(const std::string& text, StatusCode code, const std::vector<std::string>& parts) {
  StatusOr<Graph> g = Load(text);
  ASSERT_FALSE(g.ok()) << "loaded:\n" << text;
  EXPECT_EQ(g.status().code(), code) << g.status().message();
  for (const std::string& p : parts) EXPECT_PRED2(Contains, g.status().message(), p);
}

// ---- Computation ---------------------------------------------------------------------

// x:u8[N,4] -> DQ(0.5, 10) -> Mul(2.0) -> Q(0.25, 3) -> y:u8, with a symbolic batch.
const std::string kDqMulQ =
    Doc(R"([{"name": "x", "dtype": "uint8", "shape": ["N", 4]}])",
        R"([{"name": "x_scale", "dtype": "float32", "shape": [], "data": [0.5]},
        {"name": "x_zp", "dtype": "uint8", "shape": [], "data": [10]},
        {"name": "two", "dtype": "float32", "shape": [], "data": [2.0]},
        {"name": "y_scale", "dtype": "float32", "shape": [], "data": [0.25]},
        {"name": "y_zp", "dtype": "uint8", "shape": [], "data": [3]}])",
        R"([{"name": "dq", "op": "DequantizeLinear", "inputs": ["x", "x_scale", "x_zp"], "outputs": ["xf"]},
        {"name": "mul", "op": "Mul", "domain": "", "inputs": ["xf", "two"], "outputs": ["m"]},
        {"name": "q", "op": "QuantizeLinear", "domain": "ai.onnx", "inputs": ["m", "y_scale", "y_zp"],
         "outputs": ["y"]}])",
        R"([{"name": "y"}])");

TEST(JsonLoader, DqMulQWithSymbolicBatch) {
  StatusOr<Graph> g = Load(kDqMulQ);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Value& x = g->value(g->inputs[0]);
  ASSERT_TRUE(x.shape.has_value());
  ASSERT_EQ(x.shape->size(), 2u);
  EXPECT_FALSE((*x.shape)[0].is_static());
  EXPECT_EQ((*x.shape)[0].symbol, "N");
  EXPECT_EQ((*x.shape)[1].value, 4);

  // (x - 10) * 0.5 * 2 / 0.25 + 3 = 4x - 37; 0 saturates from below, 255 from above.
  Tensor one = Tensor::FromVector<uint8_t>({10, 11, 12, 20}, {1, 4});
  auto out = LoadAndRun(kDqMulQ, {one});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{3, 7, 11, 43}));
  EXPECT_EQ((*out)[0].dims(), (Dims{1, 4}));

  Tensor two = Tensor::FromVector<uint8_t>({10, 11, 12, 20, 0, 9, 73, 255}, {2, 4});
  out = LoadAndRun(kDqMulQ, {two});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{3, 7, 11, 43, 0, 0, 255, 255}));
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 4}));
}

TEST(JsonLoader, QuantizeRoundsHalfToEvenBeforeZeroPoint) {
  // x / 1 = {0.5, 1.5, 2.5, -0.5, -1.5}: rint -> {0, 2, 2, -0, -2}; + zp 1 -> {1, 3, 3, 1, -1};
  // int8 keeps -1 (rounding after adding zp would give {2, 3, 4, 1, 0}).
  const std::string text = Doc(R"([{"name": "x", "dtype": "float32", "shape": [5]}])",
                               R"([{"name": "s", "dtype": "float32", "shape": [], "data": [1]},
                                   {"name": "zp", "dtype": "int8", "shape": [], "data": [1]}])",
                               R"([{"op": "QuantizeLinear", "inputs": ["x", "s", "zp"], "outputs": ["y"]}])",
                               R"([{"name": "y", "dtype": "int8", "shape": [5]}])");
  auto out = LoadAndRun(text, {Tensor::FromVector<float>({0.5f, 1.5f, 2.5f, -0.5f, -1.5f}, {5})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int8_t>{1, 3, 3, 1, -1}));
}

TEST(JsonLoader, FloatDataAcceptsNanAndInfinities) {
  const std::string text = Doc(R"([{"name": "x", "dtype": "float32", "shape": [5]}])",
                               R"([{"name": "c", "dtype": "float32", "shape": [5],
                                    "data": ["nan", "inf", "-inf", 1.5, -2]}])",
                               R"([{"op": "Add", "inputs": ["x", "c"], "outputs": ["y"]}])", R"([{"name": "y"}])");
  StatusOr<Graph> g = Load(text);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Tensor* c = g->ConstantOf(g->FindValue("c"));
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(std::isnan(c->data<float>()[0]));
  EXPECT_EQ(c->data<float>()[1], INFINITY);
  EXPECT_EQ(c->data<float>()[2], -INFINITY);

  auto out = LoadAndRun(text, {Tensor::FromVector<float>({1, 2, 3, 0.25f, 0.5f}, {5})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::vector<float> y = Values<float>((*out)[0]);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], INFINITY);
  EXPECT_EQ(y[2], -INFINITY);
  EXPECT_EQ(y[3], 1.75f);
  EXPECT_EQ(y[4], -1.5f);
}

TEST(JsonLoader, NanAndInfinityInFloat64AndFloat16Data) {
  const std::string text = Doc("[]",
                               R"([{"name": "d", "dtype": "float64", "shape": [3], "data": ["nan", "inf", "-inf"]},
                                   {"name": "h", "dtype": "float16", "shape": [4], "data": ["nan", "inf", "-inf", 1]}])",
                               "[]", R"([{"name": "d"}, {"name": "h"}])");
  StatusOr<Graph> g = Load(text);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Tensor* d = g->ConstantOf(g->FindValue("d"));
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(std::isnan(d->data<double>()[0]));
  EXPECT_EQ(d->data<double>()[1], HUGE_VAL);
  EXPECT_EQ(d->data<double>()[2], -HUGE_VAL);
  const Tensor* h = g->ConstantOf(g->FindValue("h"));
  ASSERT_NE(h, nullptr);
  const uint16_t* hb = h->data<uint16_t>();
  EXPECT_EQ(hb[0] & 0x7C00, 0x7C00);  // NaN: all-ones exponent, nonzero mantissa
  EXPECT_NE(hb[0] & 0x03FF, 0);
  EXPECT_EQ(hb[1], 0x7C00);
  EXPECT_EQ(hb[2], 0xFC00);
  EXPECT_EQ(hb[3], 0x3C00);
}

TEST(JsonLoader, IntAndBoolData) {
  // Bool data may be true/false or 0/1. Cast(to=INT32=6) shows the stored values.
  const std::string text = Doc("[]",
                               R"([{"name": "b", "dtype": "bool", "shape": [4], "data": [true, false, 1, 0]},
          {"name": "i", "dtype": "int64", "shape": [2, 2], "data": [-9007199254740993, 0, 7, 9223372036854775807]},
          {"name": "u", "dtype": "uint16", "shape": [2], "data": [0, 65535]}])",
                               R"([{"op": "Cast", "inputs": ["b"], "outputs": ["bi"], "attrs": {"to": 6}}])",
                               R"([{"name": "bi"}, {"name": "i"}, {"name": "u"}])");
  StatusOr<Graph> g = Load(text);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Tensor* i = g->ConstantOf(g->FindValue("i"));
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->dims(), (Dims{2, 2}));
  EXPECT_EQ(Values<int64_t>(*i), (std::vector<int64_t>{-9007199254740993LL, 0, 7, INT64_MAX}));
  const Tensor* u = g->ConstantOf(g->FindValue("u"));
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->data<uint16_t>()[1], 65535);

  auto out = testing::RunGraph(std::move(g).value(), {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{1, 0, 1, 0}));
}

TEST(JsonLoader, IntegerDataOutOfRangeIsAnError) {
  ExpectLoadError(
      Doc("[]", R"([{"name": "w", "dtype": "uint8", "shape": [2], "data": [1, 256]}])", "[]", R"([{"name": "w"}])"),
      StatusCode::kInvalidArgument, {kSource, "'w'", "256", "uint8"});
  ExpectLoadError(
      Doc("[]", R"([{"name": "w", "dtype": "int8", "shape": [1], "data": [0.5]}])", "[]", R"([{"name": "w"}])"),
      StatusCode::kInvalidArgument, {kSource, "'w'", "not an integer"});
  ExpectLoadError(
      Doc("[]", R"([{"name": "w", "dtype": "int32", "shape": [1], "data": ["nan"]}])", "[]", R"([{"name": "w"}])"),
      StatusCode::kInvalidArgument, {kSource, "'w'"});
  ExpectLoadError(
      Doc("[]", R"([{"name": "w", "dtype": "float32", "shape": [1], "data": ["NaN!"]}])", "[]", R"([{"name": "w"}])"),
      StatusCode::kInvalidArgument, {kSource, "'w'", "NaN!"});
}

TEST(JsonLoader, DataBase64IsRawLittleEndianBytes) {
  // 01 ff 80 7f as int8 = {1, -1, -128, 127}; DQ(scale 0.5, zp omitted) halves them.
  ASSERT_EQ(Base64Encode("\x01\xff\x80\x7f", 4), "Af+Afw==");
  // float32 1.0 = 00 00 80 3f, -2.0 = 00 00 00 c0.
  ASSERT_EQ(Base64Encode("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8), "AACAPwAAAMA=");
  const std::string text = Doc("[]",
                               R"([{"name": "w", "dtype": "int8", "shape": [2, 2], "data_base64": "Af+Afw=="},
                                   {"name": "s", "dtype": "float32", "shape": [], "data": [0.5]},
                                   {"name": "f", "dtype": "float32", "shape": [2], "data_base64": "AACAPwAAAMA="}])",
                               R"([{"op": "DequantizeLinear", "inputs": ["w", "s", ""], "outputs": ["y"]}])",
                               R"([{"name": "y"}, {"name": "f"}])");
  StatusOr<Graph> g = Load(text);
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto out = testing::RunGraph(std::move(g).value(), {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0.5f, -0.5f, -64.0f, 63.5f}));
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 2}));
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{1.0f, -2.0f}));
}

TEST(JsonLoader, FileDataIsReadRelativeToTheJsonFile) {
  TempDir dir;
  const float w[4] = {1.5f, -2.0f, 0.25f, 1e-3f};
  ASSERT_EQ(mkdir((dir.path() + "/weights").c_str(), 0755), 0);
  dir.Write("weights/w.bin", std::string(reinterpret_cast<const char*>(w), sizeof(w)));
  const std::string path =
      dir.Write("model.json", Doc(R"([{"name": "x", "dtype": "float32", "shape": [4]}])",
                                  R"([{"name": "w", "dtype": "float32", "shape": [4], "file": "weights/w.bin"}])",
                                  R"([{"op": "Mul", "inputs": ["x", "w"], "outputs": ["y"]}])", R"([{"name": "y"}])"));
  StatusOr<Graph> g = LoadJsonFile(path);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->source, path);
  auto out = testing::RunGraph(std::move(g).value(), {Tensor::FromVector<float>({2, 2, 2, 1000}, {4})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{3.0f, -4.0f, 0.5f, 1e-3f * 1000.0f}));
}

TEST(JsonLoader, FileDataErrors) {
  TempDir dir;
  dir.Write("short.bin", std::string(12, '\0'));
  auto load = [&](const std::string& file) {
    const std::string path = dir.Write(
        "model.json", Doc("[]", R"([{"name": "big", "dtype": "float32", "shape": [4], "file": ")" + file + R"("}])",
                          "[]", R"([{"name": "big"}])"));
    return LoadJsonFile(path);
  };
  const std::string model = dir.path() + "/model.json";
  for (const std::string& escaping :
       {std::string("../x.bin"), std::string("/etc/passwd"), std::string("a/../../x.bin")}) {
    StatusOr<Graph> g = load(escaping);
    ASSERT_FALSE(g.ok()) << escaping;
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument) << g.status().message();
    EXPECT_PRED2(Contains, g.status().message(), model);
    EXPECT_PRED2(Contains, g.status().message(), "'big'");
    EXPECT_PRED2(Contains, g.status().message(), escaping);
  }
  StatusOr<Graph> missing = load("nope.bin");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_PRED2(Contains, missing.status().message(), model);
  EXPECT_PRED2(Contains, missing.status().message(), "'big'");
  EXPECT_PRED2(Contains, missing.status().message(), "nope.bin");

  StatusOr<Graph> short_file = load("short.bin");
  ASSERT_FALSE(short_file.ok());
  EXPECT_EQ(short_file.status().code(), StatusCode::kInvalidArgument);
  EXPECT_PRED2(Contains, short_file.status().message(), "'big'");
  EXPECT_PRED2(Contains, short_file.status().message(), "12 bytes");
  EXPECT_PRED2(Contains, short_file.status().message(), "16");
}

TEST(JsonLoader, OmittedDomainPrefersOnnxThenQrt) {
  StatusOr<Graph> g = Load(kDqMulQ);
  ASSERT_TRUE(g.ok()) << g.status().message();
  for (uint32_t i = 0; i < g->num_nodes(); ++i) {
    EXPECT_EQ(g->node(NodeId{i}).domain, "") << g->NodeLabel(NodeId{i});
    EXPECT_NE(g->node(NodeId{i}).def, nullptr);
  }
  // An op qrt has only in its own domain resolves there when the domain is omitted.
  const OpDef* qrt_only = nullptr;
  for (const OpDef* op : AllOps()) {
    if (op->domain == "qrt" && FindOp("", op->op_type) == nullptr) qrt_only = op;
  }
  if (qrt_only == nullptr) GTEST_SKIP() << "no op lives only in the qrt domain yet";
  // Feed it as many inputs and outputs as it takes; the loader checks counts, not types.
  std::string ins, outs;
  for (int i = 0; i < qrt_only->min_inputs; ++i) ins += std::string(i ? ", " : "") + "\"x\"";
  for (int i = 0; i < qrt_only->min_outputs; ++i) outs += std::string(i ? ", " : "") + "\"y" + std::to_string(i) + "\"";
  const std::string text = Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
                               R"([{"name": "n", "op": ")" + std::string(qrt_only->op_type) + R"(", "inputs": [)" +
                                   ins + "], \"outputs\": [" + outs + "]}]",
                               R"([{"name": "y0"}])");
  StatusOr<Graph> q = Load(text);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->node(NodeId{0}).domain, "qrt");
  EXPECT_EQ(q->node(NodeId{0}).def, qrt_only);
}

TEST(JsonLoader, ExplicitDomainIsNotSearchedElsewhere) {
  const std::string text =
      Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
          R"([{"name": "r", "op": "Relu", "domain": "qrt", "inputs": ["x"], "outputs": ["y"]}])", R"([{"name": "y"}])");
  ExpectLoadError(text, StatusCode::kUnsupported, {kSource, "'r'", "Relu", "qrt"});
}

TEST(JsonLoader, OmittedOptionalInputs) {
  // QuantizeLinear without a zero point gives uint8 with zp 0: {0.4, 1.6, -3, 300} -> {0, 2, 0, 255}.
  const std::string text = Doc(R"([{"name": "x", "dtype": "float32", "shape": [4]}])",
                               R"([{"name": "s", "dtype": "float32", "shape": [], "data": [1.0]}])",
                               R"([{"name": "q", "op": "QuantizeLinear", "inputs": ["x", "s", ""], "outputs": ["y"]},
                                   {"name": "dq", "op": "DequantizeLinear", "inputs": ["y", "s", ""], "outputs": ["z"]}])",
                               R"([{"name": "y"}, {"name": "z"}])");
  StatusOr<Graph> g = Load(text);
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto out = testing::RunGraph(std::move(g).value(), {Tensor::FromVector<float>({0.4f, 1.6f, -3, 300}, {4})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{0, 2, 0, 255}));
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{0, 2, 0, 255}));
}

TEST(JsonLoader, AttributeTyping) {
  const std::string text = Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
                               R"([{"name": "id", "op": "Identity", "inputs": ["x"], "outputs": ["y"], "attrs": {
            "i": 3, "neg": -7, "f_frac": 1.5, "f_exp": 1e-3, "f_whole": 2.0, "s": "hello",
            "t": true, "fl": false, "ints": [1, -2, 3], "floats": [1.0, 2, 3.5], "strs": ["a", "b"],
            "bools": [true, false], "empty": [], "f_nan": "nan", "f_ninf": "-inf",
            "floats_special": [1.5, "inf", "nan", "-inf"], "floats_bool": [true, 0.5]}}])",
                               R"([{"name": "y"}])");
  StatusOr<Graph> g = Load(text);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Attributes& a = g->node(NodeId{0}).attrs;
  auto type_of = [&](const char* name) { return TypeOf(*a.Find(name)); };
  EXPECT_EQ(type_of("i"), AttrType::kInt);
  EXPECT_EQ(*a.GetInt("i"), 3);
  EXPECT_EQ(*a.GetInt("neg"), -7);
  EXPECT_EQ(type_of("f_frac"), AttrType::kFloat);
  EXPECT_EQ(*a.GetFloat("f_frac"), 1.5f);
  EXPECT_EQ(type_of("f_exp"), AttrType::kFloat);
  EXPECT_EQ(*a.GetFloat("f_exp"), 1e-3f);
  EXPECT_EQ(type_of("f_whole"), AttrType::kFloat) << "2.0 has a fraction part: a float";
  EXPECT_FALSE(a.GetInt("f_whole").ok()) << "a float attribute must not read as an int";
  EXPECT_EQ(type_of("s"), AttrType::kString);
  EXPECT_EQ(*a.GetString("s"), "hello");
  EXPECT_EQ(type_of("t"), AttrType::kInt);
  EXPECT_EQ(*a.GetInt("t"), 1);
  EXPECT_EQ(*a.GetInt("fl"), 0);
  EXPECT_EQ(type_of("ints"), AttrType::kInts);
  EXPECT_EQ(*a.GetInts("ints"), (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(type_of("floats"), AttrType::kFloats);
  EXPECT_EQ(*a.GetFloats("floats"), (std::vector<float>{1.0f, 2.0f, 3.5f}));
  EXPECT_EQ(type_of("strs"), AttrType::kStrings);
  EXPECT_EQ(std::get<std::vector<std::string>>(*a.Find("strs")), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*a.GetInts("bools"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(type_of("empty"), AttrType::kInts);
  // As in tensor data, "nan", "inf" and "-inf" are floats (JSON has no literal for them).
  EXPECT_EQ(type_of("f_nan"), AttrType::kFloat);
  EXPECT_TRUE(std::isnan(*a.GetFloat("f_nan")));
  EXPECT_EQ(*a.GetFloat("f_ninf"), -INFINITY);
  ASSERT_EQ(type_of("floats_special"), AttrType::kFloats);
  const std::vector<float> special = *a.GetFloats("floats_special");
  ASSERT_EQ(special.size(), 4u);
  EXPECT_EQ(special[0], 1.5f);
  EXPECT_EQ(special[1], INFINITY);
  EXPECT_TRUE(std::isnan(special[2]));
  EXPECT_EQ(special[3], -INFINITY);
  EXPECT_EQ(*a.GetFloats("floats_bool"), (std::vector<float>{1.0f, 0.5f}));
}

TEST(JsonLoader, BadAttributeValues) {
  auto with_attrs = [](const std::string& attrs) {
    return Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
               R"([{"name": "id", "op": "Identity", "inputs": ["x"], "outputs": ["y"], "attrs": )" + attrs + "}]",
               R"([{"name": "y"}])");
  };
  ExpectLoadError(with_attrs(R"({"l": [1, "a"]})"), StatusCode::kInvalidArgument, {kSource, "'id'", "'l'", "mixes"});
  ExpectLoadError(with_attrs(R"({"o": {"what": 1}})"), StatusCode::kInvalidArgument, {kSource, "'id'", "'o'"});
  ExpectLoadError(with_attrs(R"({"n": null})"), StatusCode::kInvalidArgument, {kSource, "'id'", "'n'"});
  ExpectLoadError(with_attrs(R"({"nested": [[1]]})"), StatusCode::kInvalidArgument, {kSource, "'id'", "'nested'"});
  ExpectLoadError(with_attrs(R"([1, 2])"), StatusCode::kInvalidArgument, {kSource, "'id'", "attrs"});
  ExpectLoadError(with_attrs(R"({"big": 18446744073709551615})"), StatusCode::kInvalidArgument,
                  {kSource, "'id'", "'big'", "range"});
  ExpectLoadError(with_attrs(R"({"bigs": [1, 18446744073709551615]})"), StatusCode::kInvalidArgument,
                  {kSource, "'id'", "'bigs'", "range"});
}

TEST(JsonLoader, ConstantNodeWithTensorAttribute) {
  // y = Reshape(x + c, shape) with c and shape from Constant nodes.
  const std::string text = Doc(R"([{"name": "x", "dtype": "float32", "shape": [4]}])", "[]",
                               R"([{"name": "c", "op": "Constant", "outputs": ["c"],
           "attrs": {"value": {"tensor": {"dtype": "float32", "shape": [4], "data": [1.5, -2, "inf", 0]}}}},
          {"name": "shp", "op": "Constant", "outputs": ["shape"], "attrs": {"value_ints": [2, -1]}},
          {"name": "k", "op": "Constant", "outputs": ["k"], "attrs": {"value_float": 0.5}},
          {"name": "add", "op": "Add", "inputs": ["x", "c"], "outputs": ["s"]},
          {"name": "mul", "op": "Mul", "inputs": ["s", "k"], "outputs": ["m"]},
          {"name": "r", "op": "Reshape", "inputs": ["m", "shape"], "outputs": ["y"]}])",
                               R"([{"name": "y"}])");
  StatusOr<Graph> g = Load(text);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Tensor* c = g->ConstantOf(g->FindValue("c"));
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->dims(), (Dims{4}));
  const Tensor* shape = g->ConstantOf(g->FindValue("shape"));
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(Values<int64_t>(*shape), (std::vector<int64_t>{2, -1}));
  auto out = testing::RunGraph(std::move(g).value(), {Tensor::FromVector<float>({0.5f, 1, 2, -3}, {4})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 2}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1.0f, -0.5f, INFINITY, -1.5f}));
}

TEST(JsonLoader, ConstantNodeErrors) {
  auto constant = [](const std::string& attrs) {
    return Doc("[]", "[]", R"([{"name": "k", "op": "Constant", "outputs": ["k"], "attrs": )" + attrs + "}]",
               R"([{"name": "k"}])");
  };
  ExpectLoadError(constant("{}"), StatusCode::kInvalidArgument, {kSource, "'k'", "Constant"});
  ExpectLoadError(constant(R"({"value": 3})"), StatusCode::kInvalidArgument, {kSource, "'k'", "'value'"});
  ExpectLoadError(constant(R"({"value": {"tensor": {"dtype": "float32", "shape": [2], "data": [1]}}})"),
                  StatusCode::kInvalidArgument, {kSource, "'k'", "'value'", "1 elements"});
}

TEST(JsonLoader, OutputDtypeAndShapeAreOptional) {
  const std::string declared = Doc(R"([{"name": "x", "dtype": "float32", "shape": [2]}])", "[]",
                                   R"([{"op": "Relu", "inputs": ["x"], "outputs": ["y"]}])",
                                   R"([{"name": "y", "dtype": "float32", "shape": [2]}])");
  const std::string bare = Doc(R"([{"name": "x", "dtype": "float32", "shape": [2]}])", "[]",
                               R"([{"op": "Relu", "inputs": ["x"], "outputs": ["y"]}])", R"([{"name": "y"}])");
  for (const std::string& text : {declared, bare}) {
    auto out = LoadAndRun(text, {Tensor::FromVector<float>({-1, 2}, {2})});
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0, 2}));
  }
}

TEST(JsonLoader, DeclaredOutputTypeMustMatchTheComputedOne) {
  auto with_output = [](const std::string& decl) {
    return Doc(R"([{"name": "x", "dtype": "float32", "shape": [2, 3]}])", "[]",
               R"([{"name": "relu_1", "op": "Relu", "inputs": ["x"], "outputs": ["y"]}])", "[" + decl + "]");
  };
  auto compile = [](const std::string& text) -> Status {
    QRT_ASSIGN_OR_RETURN(Graph g, Load(text));
    return Compile(std::move(g), CompileOptions()).status();
  };
  EXPECT_TRUE(compile(with_output(R"({"name": "y", "dtype": "float32", "shape": [2, 3]})")).ok());
  EXPECT_TRUE(compile(with_output(R"({"name": "y", "shape": ["N", 3]})")).ok());
  EXPECT_TRUE(compile(with_output(R"({"name": "y", "shape": [-1, -1]})")).ok());
  for (const char* bad : {R"({"name": "y", "dtype": "int8"})", R"({"name": "y", "shape": [3, 2]})",
                          R"({"name": "y", "shape": [6]})", R"({"name": "y", "shape": ["N", 3, 1]})"}) {
    Status s = compile(with_output(bad));
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
    EXPECT_PRED2(Contains, s.message(), kSource);
    EXPECT_PRED2(Contains, s.message(), "'relu_1'");
    EXPECT_PRED2(Contains, s.message(), "output 'y'");
  }
}

TEST(JsonLoader, TensorFlowDtypeAliases) {
  const std::string text =
      Doc(R"([{"name": "x", "dtype": "quint8", "shape": [2]}])",
          R"([{"name": "s", "dtype": "float32", "shape": [], "data": [2]},
                                   {"name": "zp", "dtype": "quint8", "shape": [], "data": [1]}])",
          R"([{"op": "DequantizeLinear", "inputs": ["x", "s", "zp"], "outputs": ["y"]}])", R"([{"name": "y"}])");
  StatusOr<Graph> g = Load(text);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->value(g->inputs[0]).dtype, DataType::kUInt8);
  auto out = testing::RunGraph(std::move(g).value(), {Tensor::FromVector<uint8_t>({0, 5}, {2})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{-2, 8}));
}

// ---- Error paths --------------------------------------------------------------------

TEST(JsonLoaderErrors, BadJsonSyntax) {
  ExpectLoadError(R"({"format": "qrt.graph", "version": 1, "nodes": [)", StatusCode::kInvalidArgument,
                  {kSource, "invalid JSON"});
  ExpectLoadError("", StatusCode::kInvalidArgument, {kSource});
  ExpectLoadError("[1, 2]", StatusCode::kInvalidArgument, {kSource});
}

TEST(JsonLoaderErrors, BadJsonSyntaxFromFileNamesThePath) {
  TempDir dir;
  const std::string path = dir.Write("broken.json", "{\"format\": \"qrt.graph\",,}");
  StatusOr<Graph> g = LoadJsonFile(path);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_PRED2(Contains, g.status().message(), path);

  StatusOr<Graph> missing = LoadJsonFile(dir.path() + "/absent.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_PRED2(Contains, missing.status().message(), "absent.json");
}

TEST(JsonLoaderErrors, WrongFormatOrVersion) {
  ExpectLoadError(R"({"format": "onnx.graph", "version": 1})", StatusCode::kInvalidArgument,
                  {kSource, "format", "onnx.graph"});
  ExpectLoadError(R"({"version": 1})", StatusCode::kInvalidArgument, {kSource, "format"});
  ExpectLoadError(R"({"format": "qrt.graph", "version": 2})", StatusCode::kUnsupported, {kSource, "version", "2"});
  ExpectLoadError(R"({"format": "qrt.graph", "version": "1"})", StatusCode::kInvalidArgument, {kSource, "version"});
  ExpectLoadError(R"({"format": "qrt.graph"})", StatusCode::kInvalidArgument, {kSource, "version"});
}

TEST(JsonLoaderErrors, UnknownOpNamesOpAndNode) {
  ExpectLoadError(
      Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
          R"([{"name": "conv_7", "op": "FancyConv", "inputs": ["x"], "outputs": ["y"]}])", R"([{"name": "y"}])"),
      StatusCode::kUnsupported, {kSource, "'conv_7'", "FancyConv"});
  ExpectLoadError(Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
                      R"([{"name": "n", "op": "Relu", "domain": "com.example", "inputs": ["x"], "outputs": ["y"]}])",
                      R"([{"name": "y"}])"),
                  StatusCode::kUnsupported, {kSource, "'n'", "Relu", "com.example"});
}

TEST(JsonLoaderErrors, UnknownDtype) {
  ExpectLoadError(Doc(R"([{"name": "x", "dtype": "float7", "shape": [1]}])", "[]", "[]", R"([{"name": "x"}])"),
                  StatusCode::kUnsupported, {kSource, "inputs[0]", "float7"});
  ExpectLoadError(
      Doc("[]", R"([{"name": "w", "dtype": "complex64", "shape": [1], "data": [1]}])", "[]", R"([{"name": "w"}])"),
      StatusCode::kUnsupported, {kSource, "'w'", "complex64"});
  ExpectLoadError(Doc(R"([{"name": "x", "dtype": 1, "shape": [1]}])", "[]", "[]", R"([{"name": "x"}])"),
                  StatusCode::kInvalidArgument, {kSource, "inputs[0]", "dtype"});
}

TEST(JsonLoaderErrors, DataLengthMismatch) {
  ExpectLoadError(Doc("[]", R"([{"name": "w", "dtype": "float32", "shape": [2, 3], "data": [1, 2, 3, 4, 5]}])", "[]",
                      R"([{"name": "w"}])"),
                  StatusCode::kInvalidArgument, {kSource, "'w'", "5 elements", "6"});
  ExpectLoadError(Doc("[]", R"([{"name": "w", "dtype": "int16", "shape": [2], "data_base64": "AAAA"}])", "[]",
                      R"([{"name": "w"}])"),
                  StatusCode::kInvalidArgument, {kSource, "'w'", "3 bytes", "4"});
  ExpectLoadError(Doc("[]", R"([{"name": "w", "dtype": "float32", "shape": [1]}])", "[]", R"([{"name": "w"}])"),
                  StatusCode::kInvalidArgument, {kSource, "'w'", "data"});
  ExpectLoadError(
      Doc("[]", R"([{"name": "w", "dtype": "float32", "shape": [1], "data": [1], "data_base64": "AACAPw=="}])", "[]",
          R"([{"name": "w"}])"),
      StatusCode::kInvalidArgument, {kSource, "'w'", "exactly one"});
  ExpectLoadError(
      Doc("[]", R"([{"name": "w", "dtype": "float32", "shape": ["N"], "data": [1]}])", "[]", R"([{"name": "w"}])"),
      StatusCode::kInvalidArgument, {kSource, "'w'", "static"});
}

TEST(JsonLoaderErrors, Base64Garbage) {
  for (const char* bad : {"!!!!", "AAA", "AA=A", "AA AA"}) {
    ExpectLoadError(
        Doc("[]", R"([{"name": "w", "dtype": "int8", "shape": [3], "data_base64": ")" + std::string(bad) + R"("}])",
            "[]", R"([{"name": "w"}])"),
        StatusCode::kInvalidArgument, {kSource, "'w'"});
  }
}

TEST(JsonLoaderErrors, UndefinedInputName) {
  ExpectLoadError(
      Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
          R"([{"name": "add", "op": "Add", "inputs": ["x", "ghost"], "outputs": ["y"]}])", R"([{"name": "y"}])"),
      StatusCode::kInvalidArgument, {kSource, "'add'", "Add", "'ghost'"});
  ExpectLoadError(
      Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
          R"([{"name": "r", "op": "Relu", "inputs": ["x"], "outputs": ["y"]}])", R"([{"name": "nothing"}])"),
      StatusCode::kInvalidArgument, {kSource, "'nothing'"});
}

TEST(JsonLoaderErrors, DuplicateValueDefinitions) {
  // Two nodes writing one value.
  ExpectLoadError(Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
                      R"([{"name": "r1", "op": "Relu", "inputs": ["x"], "outputs": ["y"]},
                          {"name": "r2", "op": "Sigmoid", "inputs": ["x"], "outputs": ["y"]}])",
                      R"([{"name": "y"}])"),
                  StatusCode::kInvalidArgument, {kSource, "'r2'", "'y'", "more than once"});
  // A node overwriting a graph input.
  ExpectLoadError(Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
                      R"([{"name": "r1", "op": "Relu", "inputs": ["x"], "outputs": ["x"]}])", R"([{"name": "x"}])"),
                  StatusCode::kInvalidArgument, {kSource, "'r1'", "'x'"});
  // An input and an initializer of one name.
  ExpectLoadError(Doc(R"([{"name": "w", "dtype": "float32", "shape": [1]}])",
                      R"([{"name": "w", "dtype": "float32", "shape": [1], "data": [1]}])", "[]", R"([{"name": "w"}])"),
                  StatusCode::kInvalidArgument, {kSource, "'w'"});
  // Two initializers of one name.
  ExpectLoadError(Doc("[]", R"([{"name": "w", "dtype": "float32", "shape": [1], "data": [1]},
                                {"name": "w", "dtype": "float32", "shape": [1], "data": [2]}])",
                      "[]", R"([{"name": "w"}])"),
                  StatusCode::kInvalidArgument, {kSource, "'w'", "more than once"});
  // Two graph inputs of one name.
  ExpectLoadError(
      Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}, {"name": "x", "dtype": "int8", "shape": [1]}])", "[]",
          "[]", R"([{"name": "x"}])"),
      StatusCode::kInvalidArgument, {kSource, "'x'", "more than once"});
}

TEST(JsonLoaderErrors, Cycle) {
  ExpectLoadError(Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
                      R"([{"name": "a", "op": "Add", "inputs": ["x", "b_out"], "outputs": ["a_out"]},
                          {"name": "b", "op": "Relu", "inputs": ["a_out"], "outputs": ["b_out"]}])",
                      R"([{"name": "b_out"}])"),
                  StatusCode::kInvalidArgument, {kSource, "cycle", "node '"});
  // A node reading its own output.
  ExpectLoadError(
      Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
          R"([{"name": "self", "op": "Add", "inputs": ["x", "s"], "outputs": ["s"]}])", R"([{"name": "s"}])"),
      StatusCode::kInvalidArgument, {kSource, "'self'", "cycle"});
}

TEST(JsonLoaderErrors, NodesOutOfOrderAreNotACycle) {
  // A node may read a value a later node in the file defines.
  const std::string text = Doc(R"([{"name": "x", "dtype": "float32", "shape": [2]}])", "[]",
                               R"([{"name": "second", "op": "Relu", "inputs": ["n"], "outputs": ["y"]},
                                   {"name": "first", "op": "Sigmoid", "inputs": ["x"], "outputs": ["s"]},
                                   {"name": "neg", "op": "Sub", "inputs": ["x", "s"], "outputs": ["n"]}])",
                               R"([{"name": "y"}])");
  auto out = LoadAndRun(text, {Tensor::FromVector<float>({0, 100}, {2})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // Relu(x - sigmoid(x)): x=0 -> 0 - 0.5 -> 0; x=100 -> 100 - 1 = 99.
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0, 99}));
}

TEST(JsonLoaderErrors, WrongAttributeTypeFailsAtCompileNamingNodeAndAttribute) {
  // Per-axis scale, so DequantizeLinear must read `axis`.
  const std::string text = Doc(R"([{"name": "x", "dtype": "uint8", "shape": [2, 3]}])",
                               R"([{"name": "s", "dtype": "float32", "shape": [3], "data": [1, 2, 3]}])",
                               R"([{"name": "dq_w", "op": "DequantizeLinear", "inputs": ["x", "s"], "outputs": ["y"],
                                    "attrs": {"axis": "one"}}])",
                               R"([{"name": "y"}])");
  StatusOr<Graph> g = Load(text);
  ASSERT_TRUE(g.ok()) << "attribute types are checked by the op: " << g.status().message();
  StatusOr<std::shared_ptr<const CompiledModel>> m = Compile(std::move(g).value(), CompileOptions());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_PRED2(Contains, m.status().message(), kSource);
  EXPECT_PRED2(Contains, m.status().message(), "'dq_w'");
  EXPECT_PRED2(Contains, m.status().message(), "DequantizeLinear");
  EXPECT_PRED2(Contains, m.status().message(), "'axis'");
  EXPECT_PRED2(Contains, m.status().message(), "string");
}

TEST(JsonLoaderErrors, WrongAttributeTypeWithSymbolicShapeFailsAtRun) {
  const std::string text = Doc(R"([{"name": "x", "dtype": "float32", "shape": ["N"]}])", "[]",
                               R"([{"name": "cast", "op": "Cast", "inputs": ["x"], "outputs": ["y"],
                                    "attrs": {"to": 1.5}}])",
                               R"([{"name": "y"}])");
  auto out = LoadAndRun(text, {Tensor::FromVector<float>({1}, {1})});
  ASSERT_FALSE(out.ok());
  EXPECT_PRED2(Contains, out.status().message(), kSource);
  EXPECT_PRED2(Contains, out.status().message(), "'cast'");
  EXPECT_PRED2(Contains, out.status().message(), "'to'");
}

TEST(JsonLoaderErrors, WrongInputCount) {
  ExpectLoadError(Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
                      R"([{"name": "r", "op": "Relu", "inputs": ["x", "x"], "outputs": ["y"]}])", R"([{"name": "y"}])"),
                  StatusCode::kInvalidArgument, {kSource, "'r'", "Relu", "2 inputs"});
  ExpectLoadError(Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
                      R"([{"name": "a", "op": "Add", "inputs": ["x"], "outputs": ["y"]}])", R"([{"name": "y"}])"),
                  StatusCode::kInvalidArgument, {kSource, "'a'", "Add", "1 inputs"});
  ExpectLoadError(Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
                      R"([{"name": "a", "op": "Relu", "inputs": ["x"], "outputs": []}])", R"([{"name": "x"}])"),
                  StatusCode::kInvalidArgument, {kSource, "'a'", "0 outputs"});
}

TEST(JsonLoaderErrors, MalformedStructure) {
  ExpectLoadError(R"({"format": "qrt.graph", "version": 1, "nodes": {}})", StatusCode::kInvalidArgument,
                  {kSource, "nodes"});
  ExpectLoadError(Doc(R"([{"dtype": "float32", "shape": [1]}])", "[]", "[]", "[]"), StatusCode::kInvalidArgument,
                  {kSource, "inputs[0]", "name"});
  ExpectLoadError(Doc(R"([{"name": "x", "dtype": "float32", "shape": [1.5]}])", "[]", "[]", R"([{"name": "x"}])"),
                  StatusCode::kInvalidArgument, {kSource, "inputs[0]", "dimension"});
  ExpectLoadError(Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
                      R"([{"name": "r", "inputs": ["x"], "outputs": ["y"]}])", R"([{"name": "y"}])"),
                  StatusCode::kInvalidArgument, {kSource, "nodes[0]", "op"});
  ExpectLoadError(Doc(R"([{"name": "x", "dtype": "float32", "shape": [1]}])", "[]",
                      R"([{"name": "r", "op": "Relu", "inputs": "x", "outputs": ["y"]}])", R"([{"name": "y"}])"),
                  StatusCode::kInvalidArgument, {kSource, "'r'", "inputs"});
  ExpectLoadError(Doc(R"([{"name": "x", "shape": [1]}])", "[]", "[]", R"([{"name": "x"}])"),
                  StatusCode::kInvalidArgument, {kSource, "'x'", "type"});
}

}  // namespace
}  // namespace qrt
