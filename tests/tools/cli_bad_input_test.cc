// The CLI on hostile input (issue 8): for each class of bad model or input file, `qrt`
// exits 1 with exactly one "qrt: error: ..." line naming the file, the entry or node,
// and the reason. Never a crash, a hang or an allocation of what the file claims.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "loaders/npy.h"
#include "loaders/tensor_proto.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

using testing::CommandResult;
using testing::Contains;
using testing::TempDir;

std::string Quote(const std::string& s) { return "'" + s + "'"; }

CommandResult Qrt(const std::string& args) { return testing::RunCommand(Quote(testing::CliPath()) + " " + args); }

void ExpectCliError(const CommandResult& r, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.exit_code, 1) << "stdout: " << r.out << "\nstderr: " << r.err;
  EXPECT_EQ(r.err.rfind("qrt: error: ", 0), 0u) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one stderr line:\n" << r.err;
  for (const std::string& p : parts) EXPECT_PRED2(Contains, r.err, p);
}

std::string JsonModel(const std::string& body) { return R"({"format": "qrt.graph", "version": 1, )" + body + "}"; }

// A float32 [3] input x through Relu: the model bad input files are fed to.
std::string ReluModel() {
  return JsonModel(R"("inputs": [{"name": "x", "dtype": "float32", "shape": ["N"]}],
    "nodes": [{"name": "relu", "op": "Relu", "inputs": ["x"], "outputs": ["y"]}], "outputs": [{"name": "y"}])");
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(CliBadInput, TruncatedOnnxModel) {
  TempDir dir;
  const std::string whole = ReadFile(testing::SourceDir() + "/models/qdq_mul_add/model.onnx");
  ASSERT_GT(whole.size(), 100u);
  const std::string model = dir.Write("cut.onnx", whole.substr(0, whole.size() / 2));
  ExpectCliError(Qrt("inspect " + Quote(model)), {"cut.onnx", "not a valid ONNX model"});
}

TEST(CliBadInput, InitializerOverTheSizeLimit) {
  TempDir dir;
  const std::string model = dir.Write("huge.json", JsonModel(R"("initializers": [{"name": "w", "dtype": "float32",
      "shape": [1099511627776, 1099511627776], "data_base64": ""}], "outputs": [{"name": "w"}])"));
  ExpectCliError(Qrt("inspect " + Quote(model)), {"huge.json", "initializers[0] 'w'", "size limit"});
}

TEST(CliBadInput, RankOverTheLimit) {
  TempDir dir;
  const std::string model = dir.Write("rank.json", JsonModel(R"("inputs": [{"name": "x", "dtype": "float32",
      "shape": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}], "outputs": [{"name": "x"}])"));
  ExpectCliError(Qrt("inspect " + Quote(model)), {"rank.json", "inputs[0]", "rank 17"});
}

TEST(CliBadInput, JsonNestedTooDeep) {
  TempDir dir;
  const std::string model = dir.Write("deep.json", JsonModel(R"("nodes": [{"op": "Relu", "attrs": {"a": )" +
                                                             std::string(500, '[') + std::string(500, ']') + "}}]"));
  ExpectCliError(Qrt("inspect " + Quote(model)), {"deep.json", "nested deeper than"});
}

TEST(CliBadInput, SubgraphsNestedTooDeep) {
  std::string graph = R"({"nodes": []})";
  for (int i = 0; i < 10; ++i) {
    graph = R"({"nodes": [{"name": "scan)" + std::to_string(i) + R"(", "op": "Scan", "inputs": ["s", "x"],
        "outputs": ["s2", "y"], "attrs": {"body": {"graph": )" +
            graph + "}}}]}";
  }
  TempDir dir;
  const std::string model = dir.Write("nested.json", JsonModel(graph.substr(1, graph.size() - 2)));
  ExpectCliError(Qrt("inspect " + Quote(model)), {"nested.json", "subgraphs nested too deep"});
}

TEST(CliBadInput, ExternalDataOutOfBounds) {
  TempDir dir;
  dir.Write("weights.bin", std::string(16, '\0'));
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::TensorProto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [k, v] : {std::pair<const char*, const char*>{"location", "weights.bin"}, {"offset", "4"}}) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  m.mutable_graph()->add_output()->set_name("w");
  const std::string model = dir.Write("ext.onnx", m.SerializeAsString());
  ExpectCliError(Qrt("inspect " + Quote(model)), {"ext.onnx", "initializer 'w'", "out of bounds"});
}

TEST(CliBadInput, InvalidOpAttributeNamesTheNode) {
  TempDir dir;
  const std::string model = dir.Write("conv.json", JsonModel(R"(
    "inputs": [{"name": "x", "dtype": "float32", "shape": [1, 1, 4, 4]}],
    "initializers": [{"name": "w", "dtype": "float32", "shape": [1, 1, 1, 1], "data": [1]}],
    "nodes": [{"name": "conv7", "op": "Conv", "inputs": ["x", "w"], "outputs": ["y"], "attrs": {"pads": [0, -1, 0, 0]}}],
    "outputs": [{"name": "y"}])"));
  ExpectCliError(Qrt("inspect " + Quote(model)), {"conv.json", "node 'conv7'", "Conv", "pads"});
}

TEST(CliBadInput, NpyInputClaimingAHugeShape) {
  TempDir dir;
  const std::string model = dir.Write("relu.json", ReluModel());
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }";
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
  const std::string npy = dir.Write(
      "big.npy", std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header);
  ExpectCliError(Qrt("run " + Quote(model) + " --input " + Quote("x=" + npy)), {"big.npy", "size limit"});
}

TEST(CliBadInput, PbInputWithNegativeDim) {
  TempDir dir;
  const std::string model = dir.Write("relu.json", ReluModel());
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(-3);
  const std::string pb = dir.Write("neg.pb", t.SerializeAsString());
  ExpectCliError(Qrt("run " + Quote(model) + " --input " + Quote("x=" + pb)), {"neg.pb", "negative dimension"});
}

TEST(CliBadInput, IndexOutOfRangeAtRunTimeNamesTheNode) {
  TempDir dir;
  const std::string model = dir.Write("gather.json", JsonModel(R"(
    "inputs": [{"name": "i", "dtype": "int64", "shape": [1]}],
    "initializers": [{"name": "table", "dtype": "float32", "shape": [3], "data": [1, 2, 3]}],
    "nodes": [{"name": "lookup", "op": "Gather", "inputs": ["table", "i"], "outputs": ["y"]}],
    "outputs": [{"name": "y"}])"));
  const std::string in = dir.path() + "/i.npy";
  ASSERT_TRUE(WriteNpy(in, Tensor::FromVector<int64_t>({7}, {1})).ok());
  ExpectCliError(Qrt("run " + Quote(model) + " --input " + Quote("i=" + in)),
                 {"gather.json", "node 'lookup'", "index 7 is out of range"});
}

// Found by fuzzing: a name that is not UTF-8 made `qrt convert` to JSON abort.
TEST(CliBadInput, ConvertingANonUtf8NameToJson) {
  TempDir dir;
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  m.mutable_graph()->set_name("g\xe5");
  auto* in = m.mutable_graph()->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  onnx::NodeProto* n = m.mutable_graph()->add_node();
  n->set_name("relu\xff");
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("y");
  m.mutable_graph()->add_output()->set_name("y");
  const std::string model = dir.Write("latin1.onnx", m.SerializeAsString());
  ExpectCliError(Qrt("convert " + Quote(model) + " " + Quote(dir.path() + "/out.json")), {"not valid UTF-8"});
}

}  // namespace
}  // namespace qrt
