// Hostile-input limits (issue 8): every size and count a model file controls is
// checked before anything is allocated, and the error names the file, the entry
// (initializer, input, node, attribute) and the reason. One test (or more) per limit;
// the op validations done at plan time are in op_validation_test.cc.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "loaders/json_loader.h"
#include "loaders/model_builder.h"
#include "loaders/npy.h"
#include "loaders/onnx_loader.h"
#include "loaders/tensor_proto.h"
#include "runtime/model.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

using testing::Contains;

constexpr const char* kOnnx = "limits.onnx";
constexpr const char* kJson = "limits.json";

// Expects `s` to fail with `code` and a message holding every part.
void ExpectError(const Status& s, StatusCode code, const std::vector<std::string>& parts) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), code) << s.message();
  for (const std::string& p : parts) EXPECT_PRED2(Contains, s.message(), p);
}

onnx::ModelProto NewModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  m.mutable_graph()->set_name("g");
  return m;
}

onnx::TensorProto* AddInit(onnx::ModelProto& m, const std::string& name, std::vector<int64_t> dims) {
  onnx::TensorProto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  return t;
}

void AddInput(onnx::ModelProto& m, const std::string& name, std::vector<int64_t> dims) {
  auto* tt = m.mutable_graph()->add_input();
  tt->set_name(name);
  auto* type = tt->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) type->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& name, const std::string& op,
                         std::vector<std::string> inputs, std::vector<std::string> outputs) {
  onnx::NodeProto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(op);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

StatusOr<Graph> LoadOnnx(const onnx::ModelProto& m, const std::string& dir = ".") {
  const std::string bytes = m.SerializeAsString();
  return LoadOnnxBuffer(bytes.data(), bytes.size(), kOnnx, dir);
}

StatusOr<Graph> LoadJson(const std::string& text) { return LoadJsonText(text, kJson, "."); }

std::string JsonModel(const std::string& body) { return R"({"format": "qrt.graph", "version": 1, )" + body + "}"; }

// Restores the process-wide tensor limit however the test ends.
class ScopedTensorLimit {
 public:
  explicit ScopedTensorLimit(int64_t bytes) { SetMaxTensorBytes(bytes); }
  ~ScopedTensorLimit() { SetMaxTensorBytes(kMaxTensorBytes); }
};

// ---- tensor element counts and byte sizes --------------------------------------------

TEST(TensorSizeLimit, OnnxInitializerOverTheByteLimit) {
  onnx::ModelProto m = NewModel();
  AddInit(m, "w", {1 << 20, 1 << 20, 1 << 20});  // 2^60 floats; no data needed to be refused
  ExpectError(LoadOnnx(m).status(), StatusCode::kResourceExhausted, {kOnnx, "initializer 'w'", "size limit"});
}

TEST(TensorSizeLimit, DimsWhoseProductOverflowsInt64) {
  onnx::ModelProto m = NewModel();
  AddInit(m, "w", {int64_t(1) << 62, int64_t(1) << 62, 4});
  ExpectError(LoadOnnx(m).status(), StatusCode::kResourceExhausted, {kOnnx, "initializer 'w'", "size limit"});
}

TEST(TensorSizeLimit, NegativeDim) {
  onnx::ModelProto m = NewModel();
  AddInit(m, "w", {2, -3});
  ExpectError(LoadOnnx(m).status(), StatusCode::kInvalidArgument, {kOnnx, "initializer 'w'", "negative dimension -3"});
}

// Ops multiply subsets of dims (outer and inner counts, strides); a zero elsewhere must
// not let those products overflow, so an empty tensor's other dims are bounded too.
TEST(TensorSizeLimit, EmptyTensorWithHugeOtherDims) {
  EXPECT_EQ(CheckedElementCount({0, 1 << 10, 1 << 10}, 4).value(), 0);
  EXPECT_EQ(CheckedElementCount({0, int64_t(1) << 40, int64_t(1) << 40}, 1).status().code(),
            StatusCode::kResourceExhausted);
  onnx::ModelProto m = NewModel();
  AddInit(m, "w", {0, int64_t(1) << 40, int64_t(1) << 40});
  ExpectError(LoadOnnx(m).status(), StatusCode::kResourceExhausted, {kOnnx, "initializer 'w'", "size limit"});
}

TEST(TensorSizeLimit, JsonInitializerOverTheByteLimit) {
  const std::string json = JsonModel(R"("initializers": [{"name": "w", "dtype": "float32",
      "shape": [1099511627776, 1099511627776], "data_base64": ""}], "outputs": [{"name": "w"}])");
  ExpectError(LoadJson(json).status(), StatusCode::kResourceExhausted, {kJson, "initializers[0] 'w'", "size limit"});
}

// A declared static input shape that could never be allocated is refused at load time.
TEST(TensorSizeLimit, GraphInputDeclaredOverTheByteLimit) {
  onnx::ModelProto m = NewModel();
  AddInput(m, "x", {1 << 20, 1 << 20, 1 << 20});
  AddNode(m.mutable_graph(), "relu", "Relu", {"x"}, {"y"});
  m.mutable_graph()->add_output()->set_name("y");
  ExpectError(LoadOnnx(m).status(), StatusCode::kResourceExhausted, {kOnnx, "graph input 'x'", "size limit"});

  const std::string json = JsonModel(R"("inputs": [{"name": "x", "dtype": "int8", "shape": [65536, 65536, 65536]}],
      "outputs": [{"name": "x"}])");
  ExpectError(LoadJson(json).status(), StatusCode::kResourceExhausted, {kJson, "graph input 'x'", "size limit"});
}

// A shape computed at plan time is checked before its buffer is planned.
TEST(TensorSizeLimit, PlannedOutputOverTheByteLimit) {
  const std::string json = JsonModel(R"("inputs": [{"name": "x", "dtype": "float32", "shape": [1, 1]}],
      "initializers": [{"name": "r", "dtype": "int64", "shape": [2], "data": [1048576, 1048576]}],
      "nodes": [{"name": "tile", "op": "Tile", "inputs": ["x", "r"], "outputs": ["y"]}],
      "outputs": [{"name": "y"}])");
  StatusOr<Graph> g = LoadJson(json);
  ASSERT_TRUE(g.ok()) << g.status().message();
  ExpectError(Compile(std::move(g).value(), CompileOptions()).status(), StatusCode::kResourceExhausted,
              {kJson, "node 'tile'", "size limit"});
}

TEST(TensorSizeLimit, NpyHeaderOverTheByteLimit) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }";
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
  std::string npy =
      std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header;
  ExpectError(ParseNpy(npy.data(), npy.size(), "big.npy").status(), StatusCode::kResourceExhausted,
              {"big.npy", "size limit"});
}

// A process with a memory budget lowers the limit once; every loader then honours it.
TEST(TensorSizeLimit, LoweredLimitAppliesToLoaders) {
  const auto json = [](int n) {
    return JsonModel(R"("initializers": [{"name": "w", "dtype": "uint8", "shape": [)" + std::to_string(n) +
                     R"(], "data_base64": ""}], "outputs": [{"name": "w"}])");
  };
  {
    ScopedTensorLimit limit(1024);
    EXPECT_EQ(MaxTensorBytes(), 1024);
    ExpectError(LoadJson(json(1025)).status(), StatusCode::kResourceExhausted,
                {kJson, "initializers[0] 'w'", "size limit of 1024 bytes"});
    onnx::ModelProto m = NewModel();
    AddInit(m, "w", {257})->mutable_raw_data()->assign(257 * 4, '\0');
    ExpectError(LoadOnnx(m).status(), StatusCode::kResourceExhausted, {kOnnx, "initializer 'w'", "1024"});
  }
  EXPECT_EQ(MaxTensorBytes(), kMaxTensorBytes);
  // The limit is back: the size check passes and the (empty) data is what is wrong now.
  ExpectError(LoadJson(json(1025)).status(), StatusCode::kInvalidArgument, {"data has 0 bytes"});
}

TEST(TensorSizeLimit, SetMaxTensorBytesClamps) {
  {
    ScopedTensorLimit limit(0);
    EXPECT_EQ(MaxTensorBytes(), 64);  // any scalar still fits
    EXPECT_TRUE(Tensor::Allocate(DataType::kFloat64, {}).ok());
  }
  {
    ScopedTensorLimit limit(int64_t(1) << 50);
    EXPECT_EQ(MaxTensorBytes(), kMaxTensorBytes);
  }
}

// ---- file sizes ------------------------------------------------------------------------

// A sparse file of 2 GiB + 1 byte: no disk space, but every reader must refuse it by its
// size, before reading (a protobuf message cannot exceed 2 GiB; JSON is capped there too).
TEST(FileSizeLimit, TwoGigabyteFilesAreRefusedUnread) {
  testing::TempDir dir;
  const auto sparse = [&](const std::string& name) {
    const std::string path = dir.Write(name, "");
    EXPECT_EQ(::truncate(path.c_str(), (off_t(1) << 31) + 1), 0);
    return path;
  };
  ExpectError(LoadOnnxFile(sparse("big.onnx")).status(), StatusCode::kResourceExhausted, {"big.onnx", "2 GiB"});
  ExpectError(LoadJsonFile(sparse("big.json")).status(), StatusCode::kResourceExhausted, {"big.json", "2 GiB"});
  ExpectError(ReadTensorProtoFile(sparse("big.pb")).status(), StatusCode::kResourceExhausted, {"big.pb", "2 GiB"});
  // An in-memory model says its size; the buffer behind it is never read.
  const char byte = 0;
  ExpectError(LoadOnnxBuffer(&byte, size_t(1) << 31, kOnnx, "").status(), StatusCode::kResourceExhausted,
              {kOnnx, "2 GiB"});
}

// ---- rank ---------------------------------------------------------------------------

TEST(RankLimit, OnnxGraphInput) {
  onnx::ModelProto m = NewModel();
  AddInput(m, "x", std::vector<int64_t>(17, 1));
  m.mutable_graph()->add_output()->set_name("x");
  ExpectError(LoadOnnx(m).status(), StatusCode::kResourceExhausted, {kOnnx, "graph input 'x'", "rank 17"});
}

TEST(RankLimit, OnnxInitializer) {
  onnx::ModelProto m = NewModel();
  AddInit(m, "w", std::vector<int64_t>(17, 1))->add_float_data(1.f);
  ExpectError(LoadOnnx(m).status(), StatusCode::kResourceExhausted, {kOnnx, "initializer 'w'", "rank 17"});
}

TEST(RankLimit, JsonShape) {
  const std::string json = JsonModel(R"("inputs": [{"name": "x", "dtype": "float32",
      "shape": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}], "outputs": [{"name": "x"}])");
  ExpectError(LoadJson(json).status(), StatusCode::kResourceExhausted, {kJson, "inputs[0]", "rank 17"});
}

TEST(RankLimit, OpOutput) {
  const std::string json = JsonModel(R"("opsets": {"": 13},
      "inputs": [{"name": "x", "dtype": "float32", "shape": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}],
      "initializers": [{"name": "axes", "dtype": "int64", "shape": [1], "data": [0]}],
      "nodes": [{"name": "grow", "op": "Unsqueeze", "inputs": ["x", "axes"], "outputs": ["y"]}],
      "outputs": [{"name": "y"}])");
  StatusOr<Graph> g = LoadJson(json);
  ASSERT_TRUE(g.ok()) << g.status().message();
  ExpectError(Compile(std::move(g).value(), CompileOptions()).status(), StatusCode::kResourceExhausted,
              {kJson, "node 'grow'", "rank"});
}

// ---- number of nodes and values -------------------------------------------------------

TEST(CountLimit, DefaultsAreTheDocumentedConstants) {
  EXPECT_EQ(BuilderLimits().max_nodes, kMaxNodes);
  EXPECT_EQ(BuilderLimits().max_values, kMaxValues);
}

NodeSpec ReluSpec(const std::string& name, const std::string& in, const std::string& out) {
  NodeSpec n;
  n.name = name;
  n.op_type = "Relu";
  n.inputs = {in};
  n.outputs = {out};
  return n;
}

TEST(CountLimit, Nodes) {
  BuilderLimits limits;
  limits.max_nodes = 3;
  ModelBuilder b(kOnnx, {{"", 13}}, false, limits);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(b.AddNode(ReluSpec("n" + std::to_string(i), "x", "")).ok());
  ExpectError(b.AddNode(ReluSpec("n3", "x", "")), StatusCode::kResourceExhausted,
              {kOnnx, "more than 3 nodes", "node 'n3'"});
}

// The real limit, once: a million small nodes are cheap to describe.
TEST(CountLimit, NodesAtTheRealLimit) {
  ModelBuilder b(kJson, {{"", 13}}, false);
  for (size_t i = 0; i < kMaxNodes; ++i) ASSERT_TRUE(b.AddNode(NodeSpec()).ok());
  ExpectError(b.AddNode(NodeSpec()), StatusCode::kResourceExhausted, {kJson, "more than 1048576 nodes"});
}

TEST(CountLimit, ValuesFromInputsAndInitializers) {
  BuilderLimits limits;
  limits.max_values = 2;
  ModelBuilder b(kOnnx, {{"", 13}}, false, limits);
  ASSERT_TRUE(b.AddInput("a", DataType::kFloat32, std::nullopt).ok());
  ASSERT_TRUE(b.AddInitializer("b", Tensor::FromVector<float>({1}, {1})).ok());
  ExpectError(b.AddInput("c", DataType::kFloat32, std::nullopt), StatusCode::kResourceExhausted,
              {kOnnx, "graph input 'c'", "more than 2 values"});
  ExpectError(b.AddInitializer("d", Tensor::FromVector<float>({1}, {1})), StatusCode::kResourceExhausted,
              {kOnnx, "initializer 'd'", "more than 2 values"});
}

TEST(CountLimit, ValuesFromNodeOutputs) {
  BuilderLimits limits;
  limits.max_values = 2;
  ModelBuilder b(kOnnx, {{"", 13}}, false, limits);
  ASSERT_TRUE(b.AddInput("x", DataType::kFloat32, std::nullopt).ok());
  ASSERT_TRUE(b.AddNode(ReluSpec("r1", "x", "y")).ok());
  ASSERT_TRUE(b.AddNode(ReluSpec("r2", "y", "z")).ok());
  ASSERT_TRUE(b.AddOutput("z", DataType::kUndefined, std::nullopt).ok());
  ExpectError(b.Finish().status(), StatusCode::kResourceExhausted, {kOnnx, "node 'r2'", "more than 2 values"});
}

// Captures of a subgraph become values too (after the node outputs y and z).
TEST(CountLimit, ValuesFromSubgraphCaptures) {
  BuilderLimits limits;
  limits.max_values = 3;
  ModelBuilder b(kOnnx, {{"", 13}}, /*is_subgraph=*/true, limits);
  ASSERT_TRUE(b.AddNode(ReluSpec("r1", "outer1", "y")).ok());
  ASSERT_TRUE(b.AddNode(ReluSpec("r2", "outer2", "z")).ok());
  ExpectError(b.Finish().status(), StatusCode::kResourceExhausted, {kOnnx, "node 'r2'", "more than 3 values"});
}

// ---- external data --------------------------------------------------------------------

class ExternalDataLimit : public ::testing::Test {
 protected:
  void SetUp() override { dir_.Write("weights.bin", std::string(16, '\x01')); }

  // A [2, 2] float initializer (16 bytes) stored in weights.bin with these keys.
  Status Load(const std::vector<std::pair<std::string, std::string>>& keys, const std::string& dir) {
    onnx::ModelProto m = NewModel();
    onnx::TensorProto* t = AddInit(m, "w", {2, 2});
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [k, v] : keys) {
      auto* e = t->add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
    m.mutable_graph()->add_output()->set_name("w");
    return LoadOnnx(m, dir).status();
  }
  Status Load(const std::vector<std::pair<std::string, std::string>>& keys) { return Load(keys, dir_.path()); }

  testing::TempDir dir_;
};

TEST_F(ExternalDataLimit, WholeFileLoads) { EXPECT_TRUE(Load({{"location", "weights.bin"}}).ok()); }

TEST_F(ExternalDataLimit, OffsetPastTheEnd) {
  ExpectError(Load({{"location", "weights.bin"}, {"offset", "17"}}), StatusCode::kInvalidArgument,
              {kOnnx, "initializer 'w'", "out of bounds", "16 bytes"});
}

TEST_F(ExternalDataLimit, OffsetPlusLengthOverflows) {
  ExpectError(Load({{"location", "weights.bin"}, {"offset", "9223372036854775807"}}), StatusCode::kInvalidArgument,
              {kOnnx, "initializer 'w'", "out of bounds"});
  ExpectError(Load({{"location", "weights.bin"}, {"offset", "8"}}), StatusCode::kInvalidArgument,
              {kOnnx, "initializer 'w'", "out of bounds"});
}

TEST_F(ExternalDataLimit, LengthDiffersFromTheShape) {
  ExpectError(Load({{"location", "weights.bin"}, {"length", "8"}}), StatusCode::kInvalidArgument,
              {kOnnx, "initializer 'w'", "external_data length 8 != 16"});
}

TEST_F(ExternalDataLimit, OffsetOrLengthNotAByteCount) {
  for (const char* bad : {"-1", "1e3", " 4", "12345678901234567890", ""}) {
    ExpectError(Load({{"location", "weights.bin"}, {"offset", bad}}), StatusCode::kInvalidArgument,
                {kOnnx, "initializer 'w'", "not a valid byte count"});
    ExpectError(Load({{"location", "weights.bin"}, {"length", bad}}), StatusCode::kInvalidArgument,
                {kOnnx, "initializer 'w'", "not a valid byte count"});
  }
}

TEST_F(ExternalDataLimit, LocationOutsideTheModelFolder) {
  ExpectError(Load({{"location", "../weights.bin"}}), StatusCode::kInvalidArgument, {kOnnx, "'..'"});
  ExpectError(Load({{"location", "/etc/passwd"}}), StatusCode::kInvalidArgument, {kOnnx, "absolute"});
  ExpectError(Load({{"location", "C:\\w.bin"}}), StatusCode::kInvalidArgument, {kOnnx, "absolute"});
}

TEST_F(ExternalDataLimit, ModelInMemoryHasNoFolder) {
  ExpectError(Load({{"location", "weights.bin"}}, ""), StatusCode::kInvalidArgument,
              {kOnnx, "initializer 'w'", "loaded from memory"});
}

// ---- attribute sizes --------------------------------------------------------------------

TEST(AttributeSizeLimit, OnnxString) {
  onnx::ModelProto m = NewModel();
  AddInput(m, "x", {2});
  onnx::NodeProto* n = AddNode(m.mutable_graph(), "pad", "Pad", {"x"}, {"y"});
  auto* a = n->add_attribute();
  a->set_name("mode");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(std::string(kMaxAttributeElements + 1, 'c'));
  ExpectError(LoadOnnx(m).status(), StatusCode::kResourceExhausted,
              {kOnnx, "node 'pad' (Pad)", "attribute 'mode'", "over the limit"});
}

TEST(AttributeSizeLimit, OnnxInts) {
  onnx::ModelProto m = NewModel();
  AddInput(m, "x", {2});
  onnx::NodeProto* n = AddNode(m.mutable_graph(), "t", "Transpose", {"x"}, {"y"});
  auto* a = n->add_attribute();
  a->set_name("perm");
  a->set_type(onnx::AttributeProto::INTS);
  a->mutable_ints()->Resize(int(kMaxAttributeElements + 1), 0);
  ExpectError(LoadOnnx(m).status(), StatusCode::kResourceExhausted,
              {kOnnx, "node 't' (Transpose)", "attribute 'perm'", "16777217 ints"});
}

TEST(AttributeSizeLimit, JsonString) {
  const std::string json = JsonModel(R"("inputs": [{"name": "x", "dtype": "float32", "shape": [2]}],
      "nodes": [{"name": "pad", "op": "Pad", "inputs": ["x"], "outputs": ["y"], "attrs": {"mode": ")" +
                                     std::string(kMaxAttributeElements + 1, 'c') + R"("}}],
      "outputs": [{"name": "y"}])");
  ExpectError(LoadJson(json).status(), StatusCode::kResourceExhausted,
              {kJson, "nodes[0] 'pad'", "attribute 'mode'", "over the limit"});
}

// ---- JSON text: nesting and number of values ------------------------------------------

TEST(JsonTextLimit, NestingDepth) {
  const std::string deep = std::string(200, '[') + std::string(200, ']');
  ExpectError(LoadJson(JsonModel(R"("nodes": [{"op": "Relu", "attrs": {"a": )" + deep + "}}]")).status(),
              StatusCode::kResourceExhausted, {kJson, "nested deeper than 128"});
}

TEST(JsonTextLimit, NumberOfValues) {
  std::string data = "[0";
  data.reserve((size_t(1) << 25) + 8);
  for (size_t i = 0; i < (size_t(1) << 24); ++i) data += ",0";
  data += "]";
  ExpectError(LoadJson(JsonModel(R"("initializers": [{"name": "w", "dtype": "uint8", "shape": [16777217], "data": )" +
                                 data + "}]"))
                  .status(),
              StatusCode::kResourceExhausted, {kJson, "more than 16777216 JSON values"});
}

// ---- recursion depth of subgraphs ------------------------------------------------------

// A Scan whose body holds a Scan, `levels` deep.
void NestScans(onnx::GraphProto* g, int levels) {
  if (levels == 0) return;
  onnx::NodeProto* n = AddNode(g, "scan" + std::to_string(levels), "Scan", {"s", "x"}, {"s2", "y"});
  auto* a = n->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  NestScans(a->mutable_g(), levels - 1);
}

TEST(SubgraphDepthLimit, Onnx) {
  onnx::ModelProto m = NewModel();
  NestScans(m.mutable_graph(), kMaxSubgraphDepth + 1);
  ExpectError(LoadOnnx(m).status(), StatusCode::kResourceExhausted,
              {kOnnx, "(Scan)", "subgraphs nested deeper than 8"});
}

TEST(SubgraphDepthLimit, Json) {
  std::string graph = R"({"nodes": []})";
  for (int i = 0; i <= kMaxSubgraphDepth; ++i) {
    graph = R"({"nodes": [{"name": "scan)" + std::to_string(i) + R"(", "op": "Scan", "inputs": ["s", "x"],
        "outputs": ["s2", "y"], "attrs": {"body": {"graph": )" +
            graph + "}}}]}";
  }
  // The outermost level is the model itself.
  const std::string json = JsonModel(graph.substr(1, graph.size() - 2));
  ExpectError(LoadJson(json).status(), StatusCode::kResourceExhausted, {kJson, "subgraphs nested too deep"});
}

}  // namespace
}  // namespace qrt
