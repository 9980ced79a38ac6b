// The `qrt` command line contract (issue 2), run as a real process: run / inspect /
// bench / convert, their outputs, and the error contract (exit 1 with exactly one
// "qrt: error: " line naming the file, node and op; exit 2 for usage errors).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "loaders/npy.h"
#include "loaders/tensor_proto.h"
#include "runtime/cpu_features.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

using testing::CliPath;
using testing::CommandResult;
using testing::RunCommand;

using testing::Contains;

const std::string kAddBcast = "/usr/share/libonnx-testdata/data/node/test_add_bcast";

using testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

CommandResult Qrt(const std::string& args) { return RunCommand(Quote(CliPath()) + " " + args); }

std::string QdqModel() { return testing::SourceDir() + "/models/qdq_mul_add/model.onnx"; }
std::string QdqInputs() { return testing::SourceDir() + "/models/qdq_mul_add/test_data_set_0"; }

// Exit 1 and exactly one stderr line, "qrt: error: ...", containing every part.
void ExpectCliError(const CommandResult& r, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.exit_code, 1) << "stdout: " << r.out << "\nstderr: " << r.err;
  EXPECT_EQ(r.err.rfind("qrt: error: ", 0), 0u) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.back(), '\n') << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one stderr line:\n" << r.err;
  for (const std::string& p : parts) EXPECT_PRED2(Contains, r.err, p);
}

// A JSON model whose output names need escaping: "out/put:0" -> out_put_0.npy.
std::string UnsafeNameModel() {
  return R"({"format": "qrt.graph", "version": 1,
    "inputs": [{"name": "in:0", "dtype": "float32", "shape": [3]}],
    "nodes": [{"name": "relu", "op": "Relu", "inputs": ["in:0"], "outputs": ["out/put:0"]},
              {"name": "neg", "op": "Neg", "inputs": ["in:0"], "outputs": ["a b*c"]}],
    "outputs": [{"name": "out/put:0"}, {"name": "a b*c"}]})";
}

TEST(Cli, RunWithOnnxTestLayoutInputs) {
  if (!testing::DirExists(kAddBcast)) GTEST_SKIP() << "libonnx-testdata is not installed";
  TempDir out;
  CommandResult r = Qrt("run " + Quote(kAddBcast + "/model.onnx") + " --inputs " +
                        Quote(kAddBcast + "/test_data_set_0") + " --output-dir " + Quote(out.path()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::string name;
  StatusOr<Tensor> want = ReadTensorProtoFile(kAddBcast + "/test_data_set_0/output_0.pb", &name);
  ASSERT_TRUE(want.ok());
  StatusOr<Tensor> got = ReadNpy(out.path() + "/" + name + ".npy");
  ASSERT_TRUE(got.ok()) << got.status().message() << " (" << testing::ListDir(out.path()).size() << " files)";
  EXPECT_EQ(testing::CompareBits(*got, *want), "");
}

TEST(Cli, RunPrintsOutputsWithoutOutputDir) {
  CommandResult r = Qrt("run " + Quote(QdqModel()) + " --inputs " + Quote(QdqInputs()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_PRED2(Contains, r.out, "y: float32 [1,8,4,4] [");
  EXPECT_PRED2(Contains, r.out, "passes:");
}

TEST(Cli, RunWithNpyInputsByName) {
  if (!testing::DirExists(kAddBcast)) GTEST_SKIP() << "libonnx-testdata is not installed";
  TempDir dir;
  // Graph inputs of test_add_bcast are x and y; write them as .npy.
  std::string args;
  for (int k = 0; k < 2; ++k) {
    std::string name;
    StatusOr<Tensor> t = ReadTensorProtoFile(kAddBcast + "/test_data_set_0/input_" + std::to_string(k) + ".pb", &name);
    ASSERT_TRUE(t.ok());
    const std::string npy = dir.path() + "/in_" + std::to_string(k) + ".npy";
    ASSERT_TRUE(WriteNpy(npy, *t).ok());
    args += " --input " + Quote(name + "=" + npy);
  }
  const std::string out = dir.Sub("out");
  CommandResult r = Qrt("run " + Quote(kAddBcast + "/model.onnx") + args + " --output-dir " + Quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string name;
  StatusOr<Tensor> want = ReadTensorProtoFile(kAddBcast + "/test_data_set_0/output_0.pb", &name);
  ASSERT_TRUE(want.ok());
  StatusOr<Tensor> got = ReadNpy(out + "/" + name + ".npy");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(testing::CompareBits(*got, *want), "");

  // --inputs DIR also takes DIR/<name>.npy.
  const std::string by_name = dir.Sub("by_name");
  for (int k = 0; k < 2; ++k) {
    std::string n;
    StatusOr<Tensor> t = ReadTensorProtoFile(kAddBcast + "/test_data_set_0/input_" + std::to_string(k) + ".pb", &n);
    ASSERT_TRUE(WriteNpy(by_name + "/" + n + ".npy", *t).ok());
  }
  const std::string out2 = dir.Sub("out2");
  r = Qrt("run " + Quote(kAddBcast + "/model.onnx") + " --inputs " + Quote(by_name) + " --output-dir " + Quote(out2));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(out2 + "/" + name + ".npy"), ReadFile(out + "/" + name + ".npy"));
}

TEST(Cli, OutputDirReplacesUnsafeCharacters) {
  TempDir dir;
  const std::string model = dir.Write("unsafe.json", UnsafeNameModel());
  const std::string in = dir.path() + "/x.npy";
  ASSERT_TRUE(WriteNpy(in, Tensor::FromVector<float>({-1, 0.5f, 2}, {3})).ok());
  const std::string out = dir.Sub("out");
  CommandResult r = Qrt("run " + Quote(model) + " --input " + Quote("in:0=" + in) + " --output-dir " + Quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::ListDir(out), (std::vector<std::string>{"a_b_c.npy", "out_put_0.npy"}));
  StatusOr<Tensor> y = ReadNpy(out + "/out_put_0.npy");
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(testing::CompareBits(*y, Tensor::FromVector<float>({0, 0.5f, 2}, {3})), "");
  StatusOr<Tensor> n = ReadNpy(out + "/a_b_c.npy");
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(testing::CompareBits(*n, Tensor::FromVector<float>({1, -0.5f, -2}, {3})), "");

  // --inputs DIR finds an input by its escaped name too.
  const std::string ins = dir.Sub("ins");
  ASSERT_TRUE(WriteNpy(ins + "/in_0.npy", Tensor::FromVector<float>({3, -3, 0}, {3})).ok());
  const std::string out2 = dir.Sub("out2");
  r = Qrt("run " + Quote(model) + " --inputs " + Quote(ins) + " --output-dir " + Quote(out2));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  StatusOr<Tensor> y2 = ReadNpy(out2 + "/out_put_0.npy");
  ASSERT_TRUE(y2.ok()) << y2.status().message();
  EXPECT_EQ(testing::CompareBits(*y2, Tensor::FromVector<float>({3, 0, 0}, {3})), "");
}

TEST(Cli, InspectJson) {
  CommandResult r = Qrt("inspect --json " + Quote(QdqModel()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_TRUE(j["ops_before"].is_object());
  ASSERT_TRUE(j["ops_after"].is_object());
  ASSERT_TRUE(j["rewrites"].is_object());
  // models/qdq_mul_add/README.md: x -> DQ -> Mul(DQ(w)) -> Q -> DQ -> Add(DQ(b)) -> Q -> DQ.
  EXPECT_EQ(j["ops_before"], (nlohmann::json{{"DequantizeLinear", 5}, {"Mul", 1}, {"QuantizeLinear", 2}, {"Add", 1}}));
  int before = 0, after = 0;
  for (auto& [op, n] : j["ops_before"].items()) before += n.get<int>();
  for (auto& [op, n] : j["ops_after"].items()) after += n.get<int>();
  EXPECT_LE(after, before);
  for (auto& [pass, n] : j["rewrites"].items()) EXPECT_TRUE(n.is_number_integer()) << pass;

  r = Qrt("inspect --json --passes none " + Quote(QdqModel()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["ops_after"], j["ops_before"]);
  for (auto& [pass, n] : j["rewrites"].items()) EXPECT_EQ(n.get<int>(), 0) << pass;
}

// --isa is a ceiling: the model's tier and every step's kernel tier are at or below it (bench
// --json reports the same per node), and the SIMD tiers do use SIMD kernels on this model.
TEST(Cli, IsaCeilingBoundsEveryKernel) {
  const std::vector<std::string> tiers = {"scalar", "avx2", "avx2-vnni", "avx512", "avx512-vnni", "auto"};
  for (const std::string& tier : tiers) {
    SCOPED_TRACE(tier);
    for (const std::string& cmd : {"inspect --json --isa " + tier, "bench --json --iters 2 --warmup 0 --isa " + tier}) {
      for (const std::string passes : {"default", "none"}) {
        CommandResult r = Qrt(cmd + " --passes " + passes + " " + Quote(QdqModel()));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
        ASSERT_FALSE(j.is_discarded()) << r.out;
        const Isa ceiling = IsaFromName(tier).value();
        const std::optional<Isa> model = IsaFromName(j["isa"].get<std::string>());
        ASSERT_TRUE(model.has_value()) << j["isa"];
        EXPECT_EQ(*model, EffectiveIsa(ceiling));
        ASSERT_FALSE(j["kernels"].empty());
        int simd = 0;
        for (const auto& k : j["kernels"]) {
          const std::optional<Isa> t = IsaFromName(k["isa"].get<std::string>());
          ASSERT_TRUE(t.has_value()) << k.dump();
          EXPECT_LE(int(*t), int(*model)) << k.dump();
          simd += *t != Isa::kScalar;
        }
        EXPECT_EQ(simd > 0, *model != Isa::kScalar) << cmd << " " << passes;
      }
    }
  }
  const CommandResult bad = Qrt("inspect --isa avx9 " + Quote(QdqModel()));
  EXPECT_EQ(bad.exit_code, 2) << bad.err;  // a usage error
  EXPECT_PRED2(Contains, bad.err, "avx9");
}

TEST(Cli, InspectExplainNamesEachCandidatesOutcome) {
  CommandResult r = Qrt("inspect --json --explain " + Quote(QdqModel()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_TRUE(j["explain"].is_array());
  // models/qdq_mul_add: q_m's Mul and q_y's Add fuse; each QuantizeLinear is also a candidate
  // the other pattern refuses, with the reason.
  bool mul = false, add = false, refused_add_at_mul = false;
  for (const auto& e : j["explain"]) {
    if (e["pass"] == "fuse-dq-mul-q" && e["node"] == "q_m") mul = e["rewritten"].get<bool>();
    if (e["pass"] == "fuse-dq-add-q" && e["node"] == "q_y") add = e["rewritten"].get<bool>();
    if (e["pass"] == "fuse-dq-mul-q" && e["node"] == "q_y" && !e["rewritten"].get<bool>()) {
      refused_add_at_mul = e["reason"] == "its input is not made by Mul";
    }
  }
  EXPECT_TRUE(mul);
  EXPECT_TRUE(add);
  EXPECT_TRUE(refused_add_at_mul) << r.out;
  r = Qrt("inspect --explain " + Quote(QdqModel()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dq-mul-q: rewritten x1: q_m (QuantizeLinear)"), std::string::npos) << r.out;
}

TEST(Cli, InspectDotWritesADigraph) {
  TempDir dir;
  const std::string dot = dir.path() + "/g.dot";
  CommandResult r = Qrt("inspect " + Quote(QdqModel()) + " --dot " + Quote(dot));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = ReadFile(dot);
  EXPECT_EQ(text.rfind("digraph", 0), 0u) << text.substr(0, 100);
  EXPECT_PRED2(Contains, text, "->");
  EXPECT_EQ(text.find_last_not_of(" \n"), text.rfind('}'));
  EXPECT_PRED2(Contains, r.out, "ops before passes");
}

TEST(Cli, BenchJson) {
  CommandResult r = Qrt("bench --json --iters 5 --warmup 1 " + Quote(QdqModel()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_TRUE(j.is_object());
  for (const char* key : {"median_us", "min_us", "iters", "compile_ms"}) {
    ASSERT_TRUE(j.contains(key)) << key << " missing from " << r.out;
    EXPECT_TRUE(j[key].is_number()) << key;
  }
  EXPECT_EQ(j["iters"], 5);
  EXPECT_GE(j["min_us"].get<double>(), 0.0);
  EXPECT_LE(j["min_us"].get<double>(), j["median_us"].get<double>());
  EXPECT_GE(j["compile_ms"].get<double>(), 0.0);

  // Inputs given from a folder.
  r = Qrt("bench --json --iters 2 --warmup 0 --inputs " + Quote(QdqInputs()) + " " + Quote(QdqModel()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out, nullptr, false).value("iters", 0), 2) << r.out;

  // Inputs not given are random; symbolic dims become 1.
  TempDir dir;
  const std::string model = dir.Write("sym.json", R"({"format": "qrt.graph", "version": 1,
    "inputs": [{"name": "x", "dtype": "int8", "shape": ["N", 16]}],
    "initializers": [{"name": "s", "dtype": "float32", "shape": [], "data": [0.5]}],
    "nodes": [{"op": "DequantizeLinear", "inputs": ["x", "s"], "outputs": ["y"]}],
    "outputs": [{"name": "y"}]})");
  r = Qrt("bench --json --iters 3 --warmup 0 " + Quote(model));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out, nullptr, false).value("iters", 0), 3) << r.out;
}

TEST(Cli, BenchProfileShowsWhereTheTimeGoes) {
  CommandResult r = Qrt("bench --iters 3 --warmup 0 --profile " + Quote(QdqModel()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_PRED2(Contains, r.out, "profile over 3 runs");
  EXPECT_PRED2(Contains, r.out, "slowest");
  r = Qrt("bench --json --iters 2 --warmup 0 --profile " + Quote(QdqModel()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  ASSERT_TRUE(j.contains("profile")) << r.out;
  EXPECT_EQ(j["profile"]["runs"], 2);
  const nlohmann::json& nodes = j["profile"]["nodes"];
  ASSERT_TRUE(nodes.is_array());
  ASSERT_FALSE(nodes.empty());
  double sum = 0, previous = 1e300;
  for (const nlohmann::json& n : nodes) {
    EXPECT_TRUE(n["node"].is_string() && n["op"].is_string()) << n;
    const double us = n["us"].get<double>();
    EXPECT_LE(us, previous) << "nodes are listed slowest first";
    previous = us;
    sum += us;
  }
  EXPECT_NEAR(sum, j["profile"]["total_us"].get<double>(), 1e-6 * sum + 1e-9);
}

TEST(Cli, ConvertRoundTripGivesIdenticalOutputs) {
  TempDir dir;
  const std::string json = dir.path() + "/m.json", onnx = dir.path() + "/m2.onnx";
  CommandResult r = Qrt("convert " + Quote(QdqModel()) + " " + Quote(json));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Qrt("convert " + Quote(json) + " " + Quote(onnx));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> results;
  for (const std::string& model : {QdqModel(), json, onnx}) {
    const std::string out = dir.Sub("out" + std::to_string(results.size()));
    r = Qrt("run " + Quote(model) + " --inputs " + Quote(QdqInputs()) + " --output-dir " + Quote(out));
    ASSERT_EQ(r.exit_code, 0) << model << ": " << r.err;
    results.push_back(ReadFile(out + "/y.npy"));
    ASSERT_FALSE(results.back().empty()) << model;
  }
  EXPECT_EQ(results[1], results[0]) << "json differs from onnx";
  EXPECT_EQ(results[2], results[0]) << "onnx -> json -> onnx differs";

  // The JSON is the documented format.
  nlohmann::json j = nlohmann::json::parse(ReadFile(json), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["format"], "qrt.graph");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["nodes"].size(), 9u) << "convert keeps the graph unoptimized by default";

  // convert --passes default writes the optimized graph, with the same results.
  const std::string opt = dir.path() + "/opt.json";
  r = Qrt("convert --passes default " + Quote(QdqModel()) + " " + Quote(opt));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out = dir.Sub("out_opt");
  r = Qrt("run " + Quote(opt) + " --inputs " + Quote(QdqInputs()) + " --output-dir " + Quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(out + "/y.npy"), results[0]);
}

// ---- Errors ---------------------------------------------------------------------

TEST(CliErrors, MissingModelFile) {
  ExpectCliError(Qrt("run /nonexistent/model.onnx"), {"/nonexistent/model.onnx"});
  ExpectCliError(Qrt("inspect /nonexistent/model.json"), {"/nonexistent/model.json"});
  ExpectCliError(Qrt("run /tmp/model.txt"), {"/tmp/model.txt"});
}

TEST(CliErrors, TruncatedOnnx) {
  TempDir dir;
  const std::string bytes = ReadFile(QdqModel());
  ASSERT_GT(bytes.size(), 100u);
  const std::string cut = dir.Write("cut.onnx", bytes.substr(0, bytes.size() / 2));
  ExpectCliError(Qrt("run " + Quote(cut) + " --inputs " + Quote(QdqInputs())), {cut});
  ExpectCliError(Qrt("inspect " + Quote(cut)), {cut});
  ExpectCliError(Qrt("convert " + Quote(cut) + " " + Quote(dir.path() + "/x.json")), {cut});
}

TEST(CliErrors, BadJson) {
  TempDir dir;
  const std::string bad = dir.Write("bad.json", "{\"format\": \"qrt.graph\", \"version\": 1, \"nodes\": [");
  ExpectCliError(Qrt("run " + Quote(bad)), {bad});
  const std::string wrong = dir.Write("wrong.json", "{\"format\": \"qrt.graph\", \"version\": 7}");
  ExpectCliError(Qrt("inspect " + Quote(wrong)), {wrong, "version"});
}

TEST(CliErrors, MissingInput) {
  ExpectCliError(Qrt("run " + Quote(QdqModel())), {QdqModel(), "'x'"});
  TempDir dir;
  ExpectCliError(Qrt("run " + Quote(QdqModel()) + " --inputs " + Quote(dir.path())), {QdqModel(), "'x'"});
  ExpectCliError(Qrt("run " + Quote(QdqModel()) + " --input " + Quote("x=" + dir.path() + "/none.npy")), {"none.npy"});
  ExpectCliError(Qrt("run " + Quote(QdqModel()) + " --input " + Quote("nosuch=" + dir.path() + "/none.npy")),
                 {QdqModel(), "'nosuch'"});
}

TEST(CliErrors, WrongDtypeInputFile) {
  TempDir dir;
  const std::string npy = dir.path() + "/x.npy";
  // The model's x is uint8[1,8,4,4]; give float32 of the right shape.
  std::vector<float> v(128, 1.0f);
  ASSERT_TRUE(WriteNpy(npy, Tensor::FromVector<float>(v, {1, 8, 4, 4})).ok());
  ExpectCliError(Qrt("run " + Quote(QdqModel()) + " --input " + Quote("x=" + npy)),
                 {QdqModel(), "'x'", "uint8", "float32"});
  // Right dtype, wrong shape.
  std::vector<uint8_t> u(12, 1);
  ASSERT_TRUE(WriteNpy(npy, Tensor::FromVector<uint8_t>(u, {3, 4})).ok());
  ExpectCliError(Qrt("run " + Quote(QdqModel()) + " --input " + Quote("x=" + npy)), {QdqModel(), "'x'", "[3,4]"});
  // Not a tensor file at all.
  const std::string junk = dir.Write("junk.npy", "definitely not numpy");
  ExpectCliError(Qrt("run " + Quote(QdqModel()) + " --input " + Quote("x=" + junk)), {junk});
}

TEST(CliErrors, UnknownOpNamesFileNodeAndOp) {
  TempDir dir;
  const std::string model = dir.Write("unknown.json", R"({"format": "qrt.graph", "version": 1,
    "inputs": [{"name": "x", "dtype": "float32", "shape": [1]}],
    "nodes": [{"name": "mystery_node", "op": "Frobnicate", "inputs": ["x"], "outputs": ["y"]}],
    "outputs": [{"name": "y"}]})");
  for (const char* cmd : {"run", "inspect", "bench"}) {
    SCOPED_TRACE(cmd);
    ExpectCliError(Qrt(std::string(cmd) + " " + Quote(model)), {model, "'mystery_node'", "Frobnicate"});
  }
}

TEST(CliErrors, NodeErrorAtCompileNamesFileNodeAndOp) {
  TempDir dir;
  const std::string model = dir.Write("badattr.json", R"({"format": "qrt.graph", "version": 1,
    "inputs": [{"name": "x", "dtype": "float32", "shape": [2]}],
    "nodes": [{"name": "cast_it", "op": "Cast", "inputs": ["x"], "outputs": ["y"], "attrs": {"to": "int8"}}],
    "outputs": [{"name": "y"}]})");
  ExpectCliError(Qrt("inspect " + Quote(model)), {model, "'cast_it'", "Cast", "'to'"});
}

TEST(CliErrors, UsageErrorsExitTwo) {
  for (const std::string& args :
       {std::string(""), std::string("frobnicate"), std::string("run"), std::string("run --bogus-flag x.onnx"),
        "run " + Quote(QdqModel()) + " --isa sse9", "bench " + Quote(QdqModel()) + " --iters many",
        std::string("convert only_one.onnx")}) {
    CommandResult r = Qrt(args);
    EXPECT_EQ(r.exit_code, 2) << "qrt " << args << "\nstdout: " << r.out << "\nstderr: " << r.err;
  }
  CommandResult help = Qrt("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_PRED2(Contains, help.out, "run");
}

}  // namespace
}  // namespace qrt
