// Sequences and optionals: the sequence ops' arithmetic of positions (negative, the insert-at-end
// default, out of range), SplitToSequence's three forms, ConcatFromSequence's concat and stack,
// sequences as graph inputs and outputs, optionals holding nothing, a Loop carrying a sequence,
// and the declared kinds surviving JSON and ONNX round trips. The ONNX node tests
// (test_sequence_*, test_optional_*, test_loop13_seq, test_if_opt...) run in the conformance suite.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loaders/json_loader.h"
#include "loaders/model_io.h"
#include "runtime/session.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

StatusOr<Graph> Load(const std::string& json) { return LoadJsonText(json, "sequence.json", "."); }

std::vector<float> Floats(const Tensor& t) { return std::vector<float>(t.data<float>(), t.data<float>() + t.numel()); }

std::string Graph1(const std::string& inputs, const std::string& nodes, const std::string& outputs,
                   const std::string& inits = "") {
  return R"({"format": "qrt.graph", "version": 1, "opsets": {"": 18}, "inputs": [)" + inputs +
         R"(], "initializers": [)" + inits + R"(], "nodes": [)" + nodes + R"(], "outputs": [)" + outputs + "]}";
}

StatusOr<std::vector<RunValue>> RunJson(const std::string& json, const std::vector<RunValue>& inputs) {
  QRT_ASSIGN_OR_RETURN(Graph g, Load(json));
  return testing::RunGraphValues(std::move(g), inputs);
}

RunValue F(std::vector<float> v, Dims d) { return RunValue::Of(Tensor::FromVector<float>(v, std::move(d))); }

// s = [a, b]; s2 = insert c at -1 (before b); at = s2[1]; n = len(s2); e = s2 without its last; y = concat(e)
constexpr const char* kChainNodes = R"(
  {"op": "SequenceConstruct", "inputs": ["a", "b"], "outputs": ["s"]},
  {"op": "SequenceInsert", "inputs": ["s", "c", "minus1"], "outputs": ["s2"]},
  {"op": "SequenceAt", "inputs": ["s2", "one"], "outputs": ["at"]},
  {"op": "SequenceLength", "inputs": ["s2"], "outputs": ["n"]},
  {"op": "SequenceErase", "inputs": ["s2"], "outputs": ["e"]},
  {"name": "cat", "op": "ConcatFromSequence", "inputs": ["e"], "outputs": ["y"], "attrs": {"axis": 0}})";
constexpr const char* kChainInits = R"(
  {"name": "minus1", "dtype": "int64", "shape": [], "data": [-1]},
  {"name": "one", "dtype": "int32", "shape": [], "data": [1]})";
constexpr const char* kChainInputs = R"(
  {"name": "a", "dtype": "float32", "shape": [2]}, {"name": "b", "dtype": "float32", "shape": [1]},
  {"name": "c", "dtype": "float32", "shape": [3]})";

TEST(Sequence, ConstructInsertAtLengthEraseConcat) {
  auto out = RunJson(Graph1(kChainInputs, kChainNodes, R"({"name": "at"}, {"name": "n"}, {"name": "y"})", kChainInits),
                     {F({1, 2}, {2}), F({3}, {1}), F({4, 5, 6}, {3})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Floats((*out)[0].tensor), (std::vector<float>{4, 5, 6}));  // [a, c, b][1]
  EXPECT_EQ((*out)[1].tensor.data<int64_t>()[0], 3);
  EXPECT_EQ(Floats((*out)[2].tensor), (std::vector<float>{1, 2, 4, 5, 6}));  // b erased
}

TEST(Sequence, SequenceOutputsAndInputs) {
  // A sequence out of one graph and into another, through Session::Run's values.
  auto made = RunJson(Graph1(kChainInputs, kChainNodes, R"({"name": "s2"})", kChainInits),
                      {F({1, 2}, {2}), F({3}, {1}), F({4, 5, 6}, {3})});
  ASSERT_TRUE(made.ok()) << made.status().message();
  ASSERT_EQ((*made)[0].kind, ValueKind::kSequence);
  const Sequence& s = *(*made)[0].sequence;
  ASSERT_EQ(s.items.size(), 3u);
  EXPECT_EQ(Floats(s.items[2]), (std::vector<float>{3}));
  const std::string stack =
      Graph1(R"({"name": "in", "kind": "sequence", "dtype": "float32"})",
             R"({"op": "SequenceErase", "inputs": ["in", "zero"], "outputs": ["rest"]},
                                      {"op": "ConcatFromSequence", "inputs": ["rest"], "outputs": ["y"],
                                       "attrs": {"axis": 0}})",
             R"({"name": "y"})", R"({"name": "zero", "dtype": "int64", "shape": [], "data": [0]})");
  auto y = RunJson(stack, {(*made)[0]});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Floats((*y)[0].tensor), (std::vector<float>{4, 5, 6, 3}));
  // A tensor where a sequence is declared, and a sequence of the wrong element type.
  auto wrong = RunJson(stack, {F({1}, {1})});
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(testing::Contains(wrong.status().message(), "input 'in' was given a tensor")) << wrong.status().message();
  auto ints = std::make_shared<Sequence>();
  ints->dtype = DataType::kInt64;
  wrong = RunJson(stack, {RunValue::Of(ints)});
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(testing::Contains(wrong.status().message(), "must be a sequence of float32, got int64"));
  // The tensor-only Run refuses a sequence output by name.
  StatusOr<Graph> g = Load(Graph1(kChainInputs, kChainNodes, R"({"name": "s2"})", kChainInits));
  ASSERT_TRUE(g.ok());
  auto tensors = testing::RunGraph(*g, {Tensor::FromVector<float>({1, 2}, {2}), Tensor::FromVector<float>({3}, {1}),
                                        Tensor::FromVector<float>({4, 5, 6}, {3})});
  ASSERT_FALSE(tensors.ok());
  EXPECT_TRUE(testing::Contains(tensors.status().message(), "output 's2' is a sequence, not a tensor"));
}

TEST(Sequence, PositionsOutOfRangeNameTheNode) {
  const std::string at = Graph1(R"({"name": "a", "dtype": "float32", "shape": [1]}, {"name": "p", "dtype": "int64"})",
                                R"({"op": "SequenceConstruct", "inputs": ["a", "a"], "outputs": ["s"]},
         {"name": "pick", "op": "SequenceAt", "inputs": ["s", "p"], "outputs": ["y"]})",
                                R"({"name": "y"})");
  for (int64_t p : {-2, -1, 0, 1}) {
    auto ok = RunJson(at, {F({7}, {1}), RunValue::Of(Tensor::FromVector<int64_t>({p}, {}))});
    EXPECT_TRUE(ok.ok()) << p << ": " << ok.status().message();
  }
  for (int64_t p : {-3, 2}) {
    auto bad = RunJson(at, {F({7}, {1}), RunValue::Of(Tensor::FromVector<int64_t>({p}, {}))});
    ASSERT_FALSE(bad.ok());
    EXPECT_TRUE(testing::Contains(bad.status().message(), "node 'pick'")) << bad.status().message();
    EXPECT_TRUE(testing::Contains(bad.status().message(), "outside [-2, 1]")) << bad.status().message();
  }
  auto matrix = RunJson(at, {F({7}, {1}), RunValue::Of(Tensor::FromVector<int64_t>({0, 0}, {2}))});
  ASSERT_FALSE(matrix.ok());
  EXPECT_TRUE(testing::Contains(matrix.status().message(), "position must be a scalar"));
  // Erasing from an empty sequence.
  auto empty = RunJson(Graph1("", R"({"op": "SequenceEmpty", "outputs": ["s"]},
                                      {"name": "rm", "op": "SequenceErase", "inputs": ["s"], "outputs": ["t"]},
                                      {"op": "SequenceLength", "inputs": ["t"], "outputs": ["n"]})",
                              R"({"name": "n"})"),
                       {});
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(testing::Contains(empty.status().message(), "erasing from an empty sequence"));
}

// SplitToSequence(x [2, 5], split?) along axis 1, then each piece's shape through SequenceMap.
StatusOr<std::vector<RunValue>> Split(const std::string& split_init, const std::string& attrs) {
  const bool has_split = !split_init.empty();
  const std::string nodes = std::string(R"({"name": "split", "op": "SplitToSequence", "inputs": ["x")") +
                            (has_split ? R"(, "split")" : "") + R"(], "outputs": ["s"], "attrs": )" + attrs + "}";
  std::vector<float> x(10);
  for (int i = 0; i < 10; ++i) x[size_t(i)] = float(i);
  return RunJson(Graph1(R"({"name": "x", "dtype": "float32", "shape": [2, 5]})", nodes, R"({"name": "s"})", split_init),
                 {F(x, {2, 5})});
}

TEST(Sequence, SplitToSequenceForms) {
  auto ones = Split("", R"({"axis": 1, "keepdims": 0})");
  ASSERT_TRUE(ones.ok()) << ones.status().message();
  ASSERT_EQ((*ones)[0].sequence->items.size(), 5u);
  EXPECT_EQ((*ones)[0].sequence->items[3].dims(), Dims{2});  // squeezed
  EXPECT_EQ(Floats((*ones)[0].sequence->items[3]), (std::vector<float>{3, 8}));
  auto kept = Split("", R"({"axis": -1})");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ((*kept)[0].sequence->items[0].dims(), (Dims{2, 1}));
  auto chunks = Split(R"({"name": "split", "dtype": "int64", "shape": [], "data": [2]})", R"({"axis": 1})");
  ASSERT_TRUE(chunks.ok()) << chunks.status().message();
  ASSERT_EQ((*chunks)[0].sequence->items.size(), 3u);  // 2, 2, 1
  EXPECT_EQ(Floats((*chunks)[0].sequence->items[2]), (std::vector<float>{4, 9}));
  auto lengths = Split(R"({"name": "split", "dtype": "int32", "shape": [3], "data": [0, 4, 1]})", R"({"axis": 1})");
  ASSERT_TRUE(lengths.ok()) << lengths.status().message();
  EXPECT_EQ((*lengths)[0].sequence->items[0].dims(), (Dims{2, 0}));  // an empty piece
  EXPECT_EQ(Floats((*lengths)[0].sequence->items[1]), (std::vector<float>{0, 1, 2, 3, 5, 6, 7, 8}));
  auto bad = Split(R"({"name": "split", "dtype": "int64", "shape": [2], "data": [2, 2]})", R"({"axis": 1})");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(testing::Contains(bad.status().message(), "split lengths sum to 4, the axis is 5"));
  bad = Split(R"({"name": "split", "dtype": "int64", "shape": [], "data": [0]})", R"({"axis": 1})");
  ASSERT_FALSE(bad.ok());
  bad = Split("", R"({"axis": 2})");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(testing::Contains(bad.status().message(), "node 'split'"));
}

TEST(Sequence, ConcatFromSequenceStacksOnANewAxis) {
  const std::string json =
      Graph1(R"({"name": "a", "dtype": "float32", "shape": [2]}, {"name": "b", "dtype": "float32", "shape": [2]})",
             R"({"op": "SequenceConstruct", "inputs": ["a", "b"], "outputs": ["s"]},
         {"op": "ConcatFromSequence", "inputs": ["s"], "outputs": ["y"], "attrs": {"axis": -1, "new_axis": 1}})",
             R"({"name": "y"})");
  auto y = RunJson(json, {F({1, 2}, {2}), F({3, 4}, {2})});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ((*y)[0].tensor.dims(), (Dims{2, 2}));
  EXPECT_EQ(Floats((*y)[0].tensor), (std::vector<float>{1, 3, 2, 4}));
  std::string mismatched = json;
  const std::string b2 = R"("name": "b", "dtype": "float32", "shape": [2])";
  mismatched.replace(mismatched.find(b2), b2.size(), R"("name": "b", "dtype": "float32", "shape": [3])");
  auto bad = RunJson(mismatched, {F({1, 2}, {2}), F({3, 4, 5}, {3})});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(testing::Contains(bad.status().message(), "item 1 is [3], item 0 [2]")) << bad.status().message();
}

TEST(Optional, NothingHasNoElement) {
  const std::string json = Graph1(R"({"name": "x", "dtype": "float32", "shape": [1]})",
                                  R"({"op": "Optional", "inputs": [], "outputs": ["none"]},
                                     {"op": "OptionalHasElement", "inputs": ["none"], "outputs": ["h0"]},
                                     {"op": "Optional", "inputs": ["x"], "outputs": ["some"]},
                                     {"op": "OptionalHasElement", "inputs": ["some"], "outputs": ["h1"]},
                                     {"op": "OptionalGetElement", "inputs": ["some"], "outputs": ["got"]},
                                     {"op": "Identity", "inputs": ["none"], "outputs": ["still_none"]})",
                                  R"({"name": "h0"}, {"name": "h1"}, {"name": "got"}, {"name": "still_none"})");
  auto out = RunJson(json, {F({2.5f}, {1})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE((*out)[0].tensor.data<bool>()[0]);
  EXPECT_TRUE((*out)[1].tensor.data<bool>()[0]);
  EXPECT_EQ(Floats((*out)[2].tensor), (std::vector<float>{2.5f}));
  EXPECT_EQ((*out)[3].kind, ValueKind::kNone);
  auto bad = RunJson(Graph1("", R"({"op": "Optional", "inputs": [], "outputs": ["none"]},
                                   {"name": "get", "op": "OptionalGetElement", "inputs": ["none"], "outputs": ["y"]})",
                            R"({"name": "y"})"),
                     {});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(testing::Contains(bad.status().message(), "node 'get'"));
  EXPECT_TRUE(testing::Contains(bad.status().message(), "the optional holds nothing"));
}

TEST(Sequence, LoopCarriesASequence) {
  // Loop 3 times: s' = insert(s, [i]); then the lengths and the concatenation.
  const std::string json =
      Graph1(R"({"name": "m", "dtype": "int64", "shape": []})", R"(
    {"op": "SequenceEmpty", "outputs": ["s0"], "attrs": {"dtype": 7}},
    {"op": "Loop", "inputs": ["m", "", "s0"], "outputs": ["s"], "attrs": {"body": {"graph": {
      "inputs": [{"name": "i", "dtype": "int64", "shape": []}, {"name": "c", "dtype": "bool", "shape": []},
                 {"name": "acc", "kind": "sequence", "dtype": "int64"}],
      "outputs": [{"name": "c_out"}, {"name": "acc_out"}],
      "nodes": [{"op": "Identity", "inputs": ["c"], "outputs": ["c_out"]},
                {"op": "Reshape", "inputs": ["i", "one"], "outputs": ["i1"]},
                {"op": "SequenceInsert", "inputs": ["acc", "i1"], "outputs": ["acc_out"]}]}}}},
    {"op": "SequenceLength", "inputs": ["s"], "outputs": ["n"]},
    {"op": "ConcatFromSequence", "inputs": ["s"], "outputs": ["y"], "attrs": {"axis": 0}})",
             R"({"name": "n"}, {"name": "y"})", R"({"name": "one", "dtype": "int64", "shape": [1], "data": [1]})");
  auto out = RunJson(json, {RunValue::Of(Tensor::FromVector<int64_t>({3}, {}))});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].tensor.data<int64_t>()[0], 3);
  const Tensor& y = (*out)[1].tensor;
  EXPECT_EQ(std::vector<int64_t>(y.data<int64_t>(), y.data<int64_t>() + y.numel()), (std::vector<int64_t>{0, 1, 2}));
}

TEST(Sequence, DeclaredKindsSurviveRoundTrips) {
  const std::string json = Graph1(R"({"name": "in", "kind": "sequence", "dtype": "float32"},
                                     {"name": "maybe", "kind": "optional", "dtype": "float32", "shape": [1]})",
                                  R"j({"op": "SequenceLength", "inputs": ["in"], "outputs": ["n"]},
                                     {"op": "Optional", "inputs": [], "outputs": ["none"],
                                      "attrs": {"type": "sequence(float32)"}},
                                     {"op": "OptionalHasElement", "inputs": ["maybe"], "outputs": ["h"]})j",
                                  R"({"name": "n"}, {"name": "h"}, {"name": "none", "kind": "optional_sequence"})");
  StatusOr<Graph> g = Load(json);
  ASSERT_TRUE(g.ok()) << g.status().message();
  testing::TempDir dir;
  for (const char* ext : {".json", ".onnx"}) {
    const std::string path = dir.path() + "/m" + ext;
    ASSERT_TRUE(SaveModel(*g, path).ok()) << ext;
    StatusOr<Graph> back = LoadModel(path);
    ASSERT_TRUE(back.ok()) << ext << ": " << back.status().message();
    EXPECT_EQ(back->value(back->inputs[0]).kind, DeclaredKind::kSequence) << ext;
    EXPECT_EQ(back->value(back->inputs[1]).kind, DeclaredKind::kOptionalTensor) << ext;
    EXPECT_EQ(back->value(back->outputs[2]).kind, DeclaredKind::kOptionalSequence) << ext;
    auto seq = std::make_shared<Sequence>();
    seq->dtype = DataType::kFloat32;
    seq->items = {Tensor::FromVector<float>({1}, {1}), Tensor::FromVector<float>({2, 3}, {2})};
    auto out = testing::RunGraphValues(std::move(back).value(), {RunValue::Of(seq), RunValue::None()});
    ASSERT_TRUE(out.ok()) << ext << ": " << out.status().message();
    EXPECT_EQ((*out)[0].tensor.data<int64_t>()[0], 2);
    EXPECT_FALSE((*out)[1].tensor.data<bool>()[0]);
    EXPECT_EQ((*out)[2].kind, ValueKind::kNone);
  }
}

}  // namespace
}  // namespace qrt
