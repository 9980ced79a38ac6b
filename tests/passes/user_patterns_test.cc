// User-defined fusion patterns (passes/user_patterns.h, docs/patterns.md).
//
//   gelu_to_table.json:        x -DQ-> Div -> Erf -> Add -> Mul -> Mul -Q-> y  =>  x -LookupTable-> y
//   hardswish_to_table.json:   x -DQ-> HardSigmoid -> Mul -Q-> y               =>  x -LookupTable-> y
//   add_to_quantized_add.json: a -DQ-.
//                                     Add -Q-> y                                =>  QuantizedAdd(a, b) -> y
//                              b -DQ-'
//
// The three documented files are loaded from the source tree and applied with passes "none"
// (the built-in passes would fuse these graphs first); each fused graph runs on every input code
// and must give the unfused graph's bytes. Then one refusal per legality rule, the file errors,
// the stages, and the explanations.
#include "passes/user_patterns.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "loaders/json_loader.h"
#include "passes/pass_manager.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

using Sets = std::vector<std::shared_ptr<const UserPatternSet>>;

std::string DocPattern(const std::string& file) { return testing::SourceDir() + "/docs/patterns/" + file; }

std::shared_ptr<const UserPatternSet> LoadDoc(const std::string& file) {
  auto set = LoadUserPatternFile(DocPattern(file));
  EXPECT_TRUE(set.ok()) << set.status().message();
  return set.ok() ? *set : nullptr;
}

// A JSON graph (docs/json-format.md) assembled from pieces.
struct GraphJson {
  int opset = 13;
  std::vector<std::string> inputs, outputs, inits, nodes;
  std::string Text() const {
    auto join = [](const std::vector<std::string>& v) {
      std::string s;
      for (const std::string& e : v) s += (s.empty() ? "" : ",") + e;
      return s;
    };
    return R"({"format":"qrt.graph","version":1,"opsets":{"":)" + std::to_string(opset) + R"(},"inputs":[)" +
           join(inputs) + R"(],"outputs":[)" + join(outputs) + R"(],"initializers":[)" + join(inits) +
           R"(],"nodes":[)" + join(nodes) + "]}";
  }
};

std::string Input(const std::string& name, const std::string& dtype, const std::string& shape) {
  return R"({"name":")" + name + R"(","dtype":")" + dtype + R"(","shape":)" + shape + "}";
}
std::string Output(const std::string& name) { return R"({"name":")" + name + R"("})"; }
std::string Init(const std::string& name, const std::string& dtype, const std::string& shape, const std::string& data) {
  return R"({"name":")" + name + R"(","dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data":[)" + data + "]}";
}
std::string Op(const std::string& op, const std::vector<std::string>& ins, const std::string& out,
               const std::string& attrs = "") {
  std::string in;
  for (const std::string& s : ins) in += (in.empty() ? "\"" : ",\"") + s + "\"";
  return R"({"name":")" + out + R"(_node","op":")" + op + R"(","inputs":[)" + in + R"(],"outputs":[")" + out + R"("])" +
         (attrs.empty() ? "" : R"(,"attrs":)" + attrs) + "}";
}
// Operands in the given order, or swapped.
std::vector<std::string> Pair(const std::string& a, const std::string& b, bool swap) {
  return swap ? std::vector<std::string>{b, a} : std::vector<std::string>{a, b};
}

// x (dtype xt, [256]) -DQ-> xf ... -> ff -Q-> y (dtype yt); scales and zero points per type.
GraphJson QdqFrame(const std::string& xt, const std::string& yt) {
  GraphJson g;
  g.inputs = {Input("x", xt, "[256]")};
  g.outputs = {Output("y")};
  g.inits = {Init("sx", "float32", "[]", "0.047"), Init("zx", xt, "[]", xt == "int8" ? "-7" : "131"),
             Init("sy", "float32", "[]", "0.021"), Init("zy", yt, "[]", yt == "int8" ? "-100" : "3")};
  g.nodes = {Op("DequantizeLinear", {"x", "sx", "zx"}, "xf")};
  return g;
}
void CloseQ(GraphJson& g) { g.nodes.push_back(Op("QuantizeLinear", {"ff", "sy", "zy"}, "y")); }

// The expanded Gelu: (x * (1 + Erf(x / sqrt2))) * 0.5, or (x * 0.5) * (1 + ...); `swap` flips
// the operands of every Add and Mul.
GraphJson Gelu(const std::string& xt, const std::string& yt, bool half_first, bool swap) {
  GraphJson g = QdqFrame(xt, yt);
  g.inits.push_back(Init("sqrt2", "float32", "[]", "1.4142135"));
  g.inits.push_back(Init("one", "float32", "[]", "1.0"));
  g.inits.push_back(Init("half", "float32", "[]", "0.5"));
  g.nodes.push_back(Op("Div", {"xf", "sqrt2"}, "d"));
  g.nodes.push_back(Op("Erf", {"d"}, "e"));
  g.nodes.push_back(Op("Add", Pair("e", "one", swap), "c"));
  if (half_first) {
    g.nodes.push_back(Op("Mul", Pair("xf", "half", swap), "h"));
    g.nodes.push_back(Op("Mul", Pair("h", "c", swap), "ff"));
  } else {
    g.nodes.push_back(Op("Mul", Pair("xf", "c", swap), "m"));
    g.nodes.push_back(Op("Mul", Pair("m", "half", swap), "ff"));
  }
  CloseQ(g);
  return g;
}

GraphJson HardSwish(const std::string& xt, const std::string& yt, bool swap, const std::string& alpha = "0.16666667") {
  GraphJson g = QdqFrame(xt, yt);
  g.nodes.push_back(Op("HardSigmoid", {"xf"}, "h", R"({"alpha":)" + alpha + R"(,"beta":0.5})"));
  g.nodes.push_back(Op("Mul", Pair("xf", "h", swap), "ff"));
  CloseQ(g);
  return g;
}

// Q(DQ(a) + DQ(b)), a and b of [65536]: every pair of codes.
GraphJson QdqAdd(const std::string& at, const std::string& bt, const std::string& yt, bool swap) {
  GraphJson g;
  g.inputs = {Input("a", at, "[65536]"), Input("b", bt, "[65536]")};
  g.outputs = {Output("y")};
  g.inits = {Init("sa", "float32", "[]", "0.047"),  Init("za", at, "[]", at == "int8" ? "-7" : "131"),
             Init("sb", "float32", "[]", "0.0123"), Init("zb", bt, "[]", bt == "int8" ? "20" : "0"),
             Init("sy", "float32", "[]", "0.031"),  Init("zy", yt, "[]", yt == "int8" ? "-100" : "3")};
  g.nodes = {Op("DequantizeLinear", {"a", "sa", "za"}, "af"), Op("DequantizeLinear", {"b", "sb", "zb"}, "bf"),
             Op("Add", Pair("af", "bf", swap), "ff"), Op("QuantizeLinear", {"ff", "sy", "zy"}, "y")};
  return g;
}

Graph Load(const GraphJson& g) {
  auto graph = LoadJsonText(g.Text(), "test.json", ".");
  EXPECT_TRUE(graph.ok()) << graph.status().message() << "\n" << g.Text();
  return graph.ok() ? std::move(graph).value() : Graph();
}

StatusOr<std::shared_ptr<const CompiledModel>> CompileWith(const GraphJson& g, const std::string& passes,
                                                           const Sets& sets) {
  CompileOptions opts;
  opts.passes = passes;
  opts.patterns = sets;
  return Compile(Load(g), opts);
}

// Rewrites per pass ("pass:<name>") and live nodes per op ("op:<op>").
std::map<std::string, int> Outcome(const CompiledModel& model) {
  std::map<std::string, int> m;
  for (const auto& [name, n] : model.pass_stats()) m["pass:" + name] = n;
  const Graph& g = model.graph();
  for (uint32_t i = 0; i < g.num_nodes(); ++i) {
    if (!g.node(NodeId{i}).dead) ++m["op:" + g.node(NodeId{i}).op_type];
  }
  return m;
}

int LiveOps(const std::map<std::string, int>& m) {
  int n = 0;
  for (const auto& [key, count] : m) n += key.rfind("op:", 0) == 0 ? count : 0;
  return n;
}

std::vector<Tensor> RunModel(const std::shared_ptr<const CompiledModel>& model, const std::vector<Tensor>& inputs) {
  Session session(model);
  std::vector<Tensor> outputs;
  Status s = session.Run(inputs, &outputs);
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<Tensor> copies;
  for (const Tensor& t : outputs) copies.push_back(t.Clone());
  return copies;
}

Tensor Codes(const std::string& dtype, int64_t n, int stride) {
  Tensor t = Tensor::Allocate(*ParseDataType(dtype), {n}).value();
  for (int64_t k = 0; k < n; ++k) static_cast<uint8_t*>(t.raw())[k] = uint8_t(stride == 1 ? k : k / stride);
  return t;
}

// The graph compiled with `sets` (passes "none") gives the bytes of the graph compiled without.
void ExpectSameBytes(const GraphJson& g, const Sets& sets, const std::vector<Tensor>& inputs) {
  auto unfused = CompileWith(g, "none", {});
  auto fused = CompileWith(g, "none", sets);
  ASSERT_TRUE(unfused.ok()) << unfused.status().message();
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  const std::vector<Tensor> want = RunModel(*unfused, inputs), got = RunModel(*fused, inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(testing::CompareBits(got[i], want[i]), "") << g.Text();
}

const char* const kTypes[] = {"uint8", "int8"};

TEST(UserPatternDocs, GeluBecomesOneTableInEitherOrderAndAnyTypes) {
  const Sets sets = {LoadDoc("gelu_to_table.json")};
  ASSERT_NE(sets[0], nullptr);
  EXPECT_EQ(sets[0]->size(), 2u);
  for (bool half_first : {false, true}) {
    for (bool swap : {false, true}) {
      for (const char* xt : kTypes) {
        for (const char* yt : kTypes) {
          const GraphJson g = Gelu(xt, yt, half_first, swap);
          auto model = CompileWith(g, "none", sets);
          ASSERT_TRUE(model.ok()) << model.status().message();
          auto m = Outcome(**model);
          EXPECT_EQ(m[half_first ? "pass:gelu-half-first-to-table" : "pass:gelu-to-table"], 1) << g.Text();
          EXPECT_EQ(m[half_first ? "pass:gelu-to-table" : "pass:gelu-half-first-to-table"], 0);
          EXPECT_EQ(m["op:LookupTable"], 1);
          EXPECT_EQ(LiveOps(m), 1) << "the DQ, five float ops and the Q become one table";
          ExpectSameBytes(g, sets, {Codes(xt, 256, 1)});
        }
      }
    }
  }
}

// The Gelu file's DQ is shared: read by another node too, it stays for that reader.
TEST(UserPatternDocs, SharedDequantizeStaysForItsOtherReaders) {
  const Sets sets = {LoadDoc("gelu_to_table.json")};
  GraphJson g = Gelu("int8", "int8", false, false);
  g.nodes.push_back(Op("Neg", {"xf"}, "n"));
  g.outputs.push_back(Output("n"));
  auto model = CompileWith(g, "none", sets);
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto m = Outcome(**model);
  EXPECT_EQ(m["pass:gelu-to-table"], 1);
  EXPECT_EQ(m["op:LookupTable"], 1);
  EXPECT_EQ(m["op:DequantizeLinear"], 1);
  EXPECT_EQ(LiveOps(m), 3);
  ExpectSameBytes(g, sets, {Codes("int8", 256, 1)});
}

// The CLI's repeatable --patterns, after the model or before it.
TEST(UserPatternCli, PatternsOption) {
  testing::TempDir dir;
  const std::string model = dir.Write("gelu.json", Gelu("uint8", "uint8", false, true).Text());
  const std::string q = "'";
  const testing::CommandResult r = testing::RunCommand(
      q + testing::CliPath() + "' inspect --patterns '" + DocPattern("hardswish_to_table.json") + "' '" + model +
      "' --passes none --patterns '" + DocPattern("gelu_to_table.json") + "' --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(testing::Contains(r.out, R"("gelu-to-table": 1)")) << r.out;
  EXPECT_TRUE(testing::Contains(r.out, R"("hardswish-to-table": 0)")) << r.out;
  const testing::CommandResult bad = testing::RunCommand(q + testing::CliPath() + "' inspect '" + model +
                                                         "' --patterns '" + dir.Write("bad.json", "{") + "'");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(testing::Contains(bad.err, "bad.json: invalid JSON")) << bad.err;
}

TEST(UserPatternDocs, HardSwishBecomesOneTable) {
  const Sets sets = {LoadDoc("hardswish_to_table.json")};
  for (bool swap : {false, true}) {
    for (const char* xt : kTypes) {
      for (const char* yt : kTypes) {
        const GraphJson g = HardSwish(xt, yt, swap);
        auto model = CompileWith(g, "none", sets);
        ASSERT_TRUE(model.ok()) << model.status().message();
        auto m = Outcome(**model);
        EXPECT_EQ(m["pass:hardswish-to-table"], 1) << g.Text();
        EXPECT_EQ(m["op:LookupTable"], 1);
        EXPECT_EQ(LiveOps(m), 1);
        ExpectSameBytes(g, sets, {Codes(xt, 256, 1)});
      }
    }
  }
}

TEST(UserPatternDocs, QdqAddBecomesQuantizedAddLikeTheBuiltInPass) {
  const Sets sets = {LoadDoc("add_to_quantized_add.json")};
  for (bool swap : {false, true}) {
    for (const char* at : kTypes) {
      for (const char* bt : kTypes) {
        for (const char* yt : kTypes) {
          const GraphJson g = QdqAdd(at, bt, yt, swap);
          auto model = CompileWith(g, "none", sets);
          ASSERT_TRUE(model.ok()) << model.status().message();
          auto m = Outcome(**model);
          EXPECT_EQ(m["pass:dq-add-q-to-quantized-add"], 1) << g.Text();
          EXPECT_EQ(m["op:QuantizedAdd"], 1);
          EXPECT_EQ(LiveOps(m), 1);
          const std::vector<Tensor> inputs = {Codes(at, 65536, 1), Codes(bt, 65536, 256)};
          ExpectSameBytes(g, sets, inputs);
          // The same bytes as the built-in fuse-dq-add-q's node.
          auto builtin = CompileWith(g, "fuse-dq-add-q", {});
          ASSERT_TRUE(builtin.ok());
          EXPECT_EQ(Outcome(**builtin)["op:QuantizedAdd"], 1);
          EXPECT_EQ(testing::CompareBits(RunModel(*model, inputs)[0], RunModel(*builtin, inputs)[0]), "");
        }
      }
    }
  }
}

// The explanation of `pattern` at its one candidate.
const Explanation* Explained(const CompiledModel& model, const std::string& pattern) {
  for (const Explanation& e : model.explanations()) {
    if (e.pass == pattern) return &e;
  }
  return nullptr;
}

// `g` compiles with `sets`, the pattern rewrites nothing, its refusal's reason holds `why`, and the
// output is still the unfused graph's.
void ExpectRefused(const GraphJson& g, const Sets& sets, const std::string& pattern, const std::string& why) {
  auto model = CompileWith(g, "none", sets);
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto m = Outcome(**model);
  EXPECT_EQ(m["pass:" + pattern], 0) << g.Text();
  EXPECT_EQ(m.count("op:LookupTable") + m.count("op:QuantizedAdd"), 0u);
  const Explanation* e = Explained(**model, pattern);
  ASSERT_NE(e, nullptr) << "no explanation for " << pattern;
  EXPECT_FALSE(e->rewritten);
  EXPECT_TRUE(testing::Contains(e->reason, why)) << "reason: " << e->reason;
}

TEST(UserPatternRefusal, IntermediateReadOutsideTheMatch) {
  GraphJson g = Gelu("uint8", "uint8", false, false);
  g.nodes.push_back(Op("Neg", {"e"}, "n"));
  g.outputs.push_back(Output("n"));
  ExpectRefused(g, {LoadDoc("gelu_to_table.json")}, "gelu-to-table", "is read outside the match, by 'n_node'");
}

TEST(UserPatternRefusal, GraphOutputInTheMiddle) {
  GraphJson g = Gelu("uint8", "int8", false, true);
  g.outputs.push_back(Output("c"));
  ExpectRefused(g, {LoadDoc("gelu_to_table.json")}, "gelu-to-table", "'c' (of 'add') is a graph output");
}

TEST(UserPatternRefusal, NonConstantScale) {
  // A lookup table needs constant scales ...
  GraphJson g = Gelu("uint8", "uint8", false, false);
  g.inits.erase(g.inits.begin() + 2);  // sy becomes a graph input
  g.inputs.push_back(Input("sy", "float32", "[]"));
  ExpectRefused(g, {LoadDoc("gelu_to_table.json")}, "gelu-to-table", "is not quantized per tensor by constants");
  // ... and so does the QuantizedAdd pattern, which says so in its constraints.
  GraphJson add = QdqAdd("uint8", "uint8", "uint8", false);
  add.inits.erase(add.inits.begin() + 2);  // sb
  add.inputs.push_back(Input("sb", "float32", "[]"));
  ExpectRefused(add, {LoadDoc("add_to_quantized_add.json")}, "dq-add-q-to-quantized-add",
                "_scale ('sb') is not a constant float32 scale");
}

TEST(UserPatternRefusal, PerAxisScaleForLookupTable) {
  GraphJson g = Gelu("uint8", "uint8", false, false);
  g.inputs = {Input("x", "uint8", "[2,128]")};
  g.inits[0] = Init("sx", "float32", "[2]", "0.047,0.5");
  g.inits[1] = Init("zx", "uint8", "[2]", "131,7");
  g.nodes[0] = Op("DequantizeLinear", {"x", "sx", "zx"}, "xf", R"({"axis":0})");
  ExpectRefused(g, {LoadDoc("gelu_to_table.json")}, "gelu-to-table", "'dq' ('xf_node') is not quantized per tensor");
}

TEST(UserPatternRefusal, WrongDtype) {
  GraphJson g = Gelu("uint8", "uint8", false, false);
  g.inputs = {Input("x", "int32", "[256]")};
  g.inits[1] = Init("zx", "int32", "[]", "131");
  ExpectRefused(g, {LoadDoc("gelu_to_table.json")}, "gelu-to-table", "$x ('x') is int32, not uint8 or int8");
}

TEST(UserPatternRefusal, AttributeValue) {
  const GraphJson g = HardSwish("uint8", "uint8", false, "0.2");
  ExpectRefused(g, {LoadDoc("hardswish_to_table.json")}, "hardswish-to-table", "attribute 'alpha' is 0.2, not");
}

// Parse errors name the source and the pattern.
std::string ParseError(const std::string& text) {
  auto set = ParseUserPatterns(text, "bad.json");
  EXPECT_FALSE(set.ok()) << text;
  return set.ok() ? "" : set.status().message();
}

// A valid one-pattern file, with `edit` applied to its text.
std::string GeluFile() {
  std::ifstream in(DocPattern("gelu_to_table.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
std::string Edited(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(UserPatternFile, MalformedFilesNameThePattern) {
  const std::string ok = GeluFile();
  ASSERT_TRUE(ParseUserPatterns(ok, "gelu.json").ok());
  EXPECT_TRUE(testing::Contains(ParseError("{\"patterns\": ["), "bad.json: invalid JSON"));
  const std::string unknown_op = ParseError(Edited(ok, R"("op": "Erf")", R"("op": "Erff")"));
  EXPECT_TRUE(testing::Contains(unknown_op, "bad.json: pattern 'gelu-to-table': match node 'erf': unknown op 'Erff'"))
      << unknown_op;
  const std::string dangling = ParseError(Edited(ok, R"("inputs": ["div"])", R"("inputs": ["dvi"])"));
  EXPECT_TRUE(testing::Contains(dangling, "pattern 'gelu-to-table': match node 'erf': input 'dvi' names no match node"))
      << dangling;
  const std::string no_replace =
      ParseError(Edited(ok, R"("replace": {"lookup_table": {"input": "$x", "output": "q"}})", R"("note": 1)"));
  EXPECT_TRUE(testing::Contains(no_replace, "pattern 'gelu-to-table': unknown key 'note'")) << no_replace;
  const std::string missing = ParseError(Edited(ok, R"(,
      "replace": {"lookup_table": {"input": "$x", "output": "q"}})",
                                                ""));
  EXPECT_TRUE(testing::Contains(missing, "bad.json: pattern 'gelu-to-table': missing \"replace\"")) << missing;
  const std::string dtype =
      ParseError(Edited(ok, R"({"lookup_table": {"input": "$x", "output": "q"}})",
                        R"({"op": {"op": "DequantizeLinear", "inputs": ["$x", "$x_scale", "$x_zero_point"]}})"));
  EXPECT_TRUE(testing::Contains(dtype, "pattern 'gelu-to-table': the replacement makes float32 or float16 or bfloat16"))
      << dtype;
  EXPECT_TRUE(testing::Contains(dtype, "it would change the output's dtype")) << dtype;
  const std::string unbound = ParseError(Edited(ok, R"({"input": "$x", "output": "q"})", R"({"input": "$w"})"));
  EXPECT_TRUE(testing::Contains(unbound, "pattern 'gelu-to-table': \"lookup_table\": '$w' is bound by no match node"))
      << unbound;
  const std::string not_fed = ParseError(Edited(ok, R"("inputs": ["erf", "$one"])", R"("inputs": ["$e", "$one"])"));
  EXPECT_TRUE(testing::Contains(not_fed, "match node")) << not_fed;
  const std::string builtin = ParseError(Edited(ok, R"("name": "gelu-to-table")", R"("name": "fuse-silu")"));
  EXPECT_TRUE(testing::Contains(builtin, "pattern 'fuse-silu': the name is a built-in pass's")) << builtin;
  auto missing_file = LoadUserPatternFile("/nonexistent/p.json");
  ASSERT_FALSE(missing_file.ok());
  EXPECT_TRUE(testing::Contains(missing_file.status().message(), "/nonexistent/p.json"));
}

// A replacement whose output dtype only the graph decides: the rewrite is an error naming the
// pattern, never a graph whose output changed type.
TEST(UserPatternFile, ReplacementChangingTheDtypeIsAnError) {
  std::ifstream in(DocPattern("add_to_quantized_add.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = Edited(ss.str(), R"("$y_scale", "$y_zero_point"],)", R"("$y_scale", "$a_zero_point"],)");
  auto set = ParseUserPatterns(text, "wrong.json");
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_TRUE(CompileWith(QdqAdd("uint8", "int8", "uint8", false), "none", {*set}).ok()) << "same dtype: fine";
  auto bad = CompileWith(QdqAdd("int8", "int8", "uint8", false), "none", {*set});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(testing::Contains(bad.status().message(), "wrong.json: pattern 'dq-add-q-to-quantized-add'"))
      << bad.status().message();
  EXPECT_TRUE(testing::Contains(bad.status().message(), "the replacement makes int8 where the match makes uint8"))
      << bad.status().message();
}

TEST(UserPatternStage, BeforeRunsAheadOfTheBuiltInPasses) {
  const auto after = LoadDoc("add_to_quantized_add.json");
  std::ifstream in(DocPattern("add_to_quantized_add.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  auto before = ParseUserPatterns(Edited(ss.str(), R"("version": 1,)", R"("version": 1, "stage": "before",)"), "b");
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ((*before)->stage(), PatternStage::kBefore);
  EXPECT_EQ(after->stage(), PatternStage::kAfter);
  const GraphJson g = QdqAdd("uint8", "uint8", "uint8", false);
  auto late = CompileWith(g, "default", {after});
  ASSERT_TRUE(late.ok());
  auto m = Outcome(**late);
  EXPECT_EQ(m["pass:fuse-dq-add-q"], 1);
  EXPECT_EQ(m["pass:dq-add-q-to-quantized-add"], 0);
  EXPECT_EQ((*late)->pass_stats().back().first, "dq-add-q-to-quantized-add");
  auto early = CompileWith(g, "default", {*before});
  ASSERT_TRUE(early.ok());
  m = Outcome(**early);
  EXPECT_EQ(m["pass:fuse-dq-add-q"], 0);
  EXPECT_EQ(m["pass:dq-add-q-to-quantized-add"], 1);
  EXPECT_EQ((*early)->pass_stats().front().first, "dq-add-q-to-quantized-add");
  EXPECT_EQ(m["op:QuantizedAdd"], 1);
  // Two patterns of one name would mix their reports.
  auto twice = CompileWith(g, "none", {after, after});
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(testing::Contains(twice.status().message(), "pattern 'dq-add-q-to-quantized-add'"));
}

TEST(UserPatternExplain, RewritesAndRefusalsAreExplained) {
  const Sets sets = {LoadDoc("gelu_to_table.json")};
  auto model = CompileWith(Gelu("int8", "uint8", true, true), "none", sets);
  ASSERT_TRUE(model.ok());
  // The file's first pattern looked at the Q and says why it did not match ...
  const Explanation* refused = Explained(**model, "gelu-to-table");
  ASSERT_NE(refused, nullptr);
  EXPECT_FALSE(refused->rewritten);
  EXPECT_EQ(refused->node, "y_node");
  // (Its 'half' is Mul(c, h) here: with the operands swapped it got furthest, to $half.)
  EXPECT_EQ(refused->reason, "$half ('c') is not a constant");
  // ... and the second rewrote it.
  const Explanation* done = Explained(**model, "gelu-half-first-to-table");
  ASSERT_NE(done, nullptr);
  EXPECT_TRUE(done->rewritten);
  EXPECT_EQ(done->pattern, "gelu-half-first-to-table");
  EXPECT_EQ(done->node, "y_node");
  EXPECT_EQ(done->op, "QuantizeLinear");
  EXPECT_TRUE(done->reason.empty());
}

// A replacement subgraph with attributes read from the matched constants:
//   Clip(x * a + b, 0, 1)  =>  HardSigmoid(x, alpha=a, beta=b)
TEST(UserPatternNodes, AttributesFromMatchedConstants) {
  const char* text = R"({
    "patterns": [{
      "name": "affine-clip-to-hardsigmoid",
      "match": {
        "nodes": [
          {"id": "mul", "op": "Mul", "inputs": ["$x", "$a"]},
          {"id": "add", "op": "Add", "inputs": ["mul", "$b"]},
          {"id": "clip", "op": "Clip", "inputs": ["add", "$lo", "$hi"]}
        ],
        "constraints": {"$x": {"dtype": "float32"}, "$a": {"constant": true, "scalar": true},
                        "$b": {"constant": true, "scalar": true},
                        "$lo": {"value": 0}, "$hi": {"value": 1}}
      },
      "replace": {"nodes": [{"id": "hs", "op": "HardSigmoid", "inputs": ["$x"], "attrs": {"alpha": "$a", "beta": "$b"}}]}
    }]})";
  auto set = ParseUserPatterns(text, "<python>");
  ASSERT_TRUE(set.ok()) << set.status().message();
  GraphJson g;
  g.inputs = {Input("x", "float32", "[1000]")};
  g.outputs = {Output("y")};
  g.inits = {Init("a", "float32", "[]", "0.2"), Init("b", "float32", "[]", "0.5"), Init("lo", "float32", "[]", "0"),
             Init("hi", "float32", "[]", "1")};
  g.nodes = {Op("Mul", {"a", "x"}, "m"), Op("Add", {"b", "m"}, "s"), Op("Clip", {"s", "lo", "hi"}, "y")};
  auto model = CompileWith(g, "none", {*set});
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto m = Outcome(**model);
  EXPECT_EQ(m["pass:affine-clip-to-hardsigmoid"], 1);
  EXPECT_EQ(m["op:HardSigmoid"], 1);
  EXPECT_EQ(LiveOps(m), 1);
  const Graph& fused = (*model)->graph();
  for (uint32_t i = 0; i < fused.num_nodes(); ++i) {
    const Node& n = fused.node(NodeId{i});
    if (n.dead) continue;
    EXPECT_EQ(n.attrs.GetFloat("alpha").value(), 0.2f);
    EXPECT_EQ(n.attrs.GetFloat("beta").value(), 0.5f);
  }
  Tensor x = Tensor::Allocate(DataType::kFloat32, {1000}).value();
  for (int i = 0; i < 1000; ++i) x.data<float>()[i] = -6.f + 0.0123f * float(i);
  auto unfused = CompileWith(g, "none", {});
  ASSERT_TRUE(unfused.ok());
  EXPECT_EQ(testing::CompareTensors(RunModel(*model, {x})[0], RunModel(*unfused, {x})[0], 0, 0), "");
}

// A replacement that matches again what it makes stops at the driver's round limit, naming it.
TEST(UserPatternNodes, APatternThatNeverSettlesStops) {
  const char* text = R"({"patterns": [{"name": "neg-forever",
      "match": {"nodes": [{"id": "n", "op": "Neg", "inputs": ["$x"]}]},
      "replace": {"op": {"op": "Neg", "inputs": ["$x"]}}}]})";
  auto set = ParseUserPatterns(text, "loop.json");
  ASSERT_TRUE(set.ok()) << set.status().message();
  GraphJson g;
  g.inputs = {Input("x", "float32", "[4]")};
  g.outputs = {Output("y")};
  g.nodes = {Op("Neg", {"x"}, "y")};
  auto model = CompileWith(g, "none", {*set});
  ASSERT_FALSE(model.ok());
  EXPECT_TRUE(testing::Contains(model.status().message(), "neg-forever still rewrote after 64 rounds"))
      << model.status().message();
}

// A symmetric pattern where both operand orders of every Add bind, and the match fails only
// at its end (the first Add's output is a graph output): 2^24 orders to try. The search stops at
// its budget with a reason instead of running for minutes.
TEST(UserPatternRefusal, ExponentialSearchStopsAtItsBudget) {
  constexpr int kAdds = 24;
  std::string nodes = R"({"id": "n1", "op": "Add", "inputs": ["$x", "$x"]})";
  for (int i = 2; i <= kAdds; ++i) {
    nodes += R"(, {"id": "n)" + std::to_string(i) + R"(", "op": "Add", "inputs": ["n)" + std::to_string(i - 1) +
             R"(", "$v)" + std::to_string(i) + R"("]})";
  }
  const std::string text = R"({"patterns": [{"name": "add-tree", "match": {"nodes": [)" + nodes +
                           R"(]}, "replace": {"op": {"op": "Neg", "inputs": ["$x"]}}}]})";
  auto set = ParseUserPatterns(text, "tree.json");
  ASSERT_TRUE(set.ok()) << set.status().message();
  GraphJson g;
  g.inputs = {Input("x", "float32", "[4]")};
  g.outputs = {Output("a1"), Output("a" + std::to_string(kAdds))};
  g.nodes = {Op("Add", {"x", "x"}, "a1")};
  for (int i = 2; i <= kAdds; ++i) {
    const std::string prev = "a" + std::to_string(i - 1);
    g.nodes.push_back(Op("Add", {prev, prev}, "a" + std::to_string(i)));
  }
  Graph graph = Load(g);
  std::vector<std::pair<std::string, int>> stats;
  Explanations explain;
  ASSERT_TRUE(RunPasses(graph, "none", true, &stats, &explain, {*set}).ok());
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0], std::make_pair(std::string("add-tree"), 0));
  bool stopped = false;
  for (const Explanation& e : explain) stopped |= testing::Contains(e.reason, "match search took more than");
  EXPECT_TRUE(stopped);
}

}  // namespace
}  // namespace qrt
