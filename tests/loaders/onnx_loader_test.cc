// The ONNX loader contract (issue 2): ModelProtos built here in C++, covering every
// initializer storage form, Constant nodes, default attributes, optional inputs and
// symbolic dims, and every malformed-model error path.
#include "loaders/onnx_loader.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <stdlib.h>

#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/test_util.h"

namespace qrt {
namespace {

using onnx::TensorProto;

constexpr const char* kSource = "mem.onnx";

using testing::Contains;

using testing::TempDir;

// A dimension of a graph input: a size, or a dim_param name.
struct D {
  D(int64_t v) : value(v) {}      // NOLINT: implicit for brace lists
  D(const char* p) : param(p) {}  // NOLINT
  int64_t value = 0;
  const char* param = nullptr;
};

onnx::ModelProto NewModel(int64_t opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("qrt-test");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

onnx::ValueInfoProto* AddInput(onnx::ModelProto& m, const std::string& name, int elem_type, std::vector<D> dims) {
  onnx::ValueInfoProto* vi = m.mutable_graph()->add_input();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  auto* shape = tt->mutable_shape();
  for (const D& d : dims) {
    auto* dim = shape->add_dim();
    if (d.param)
      dim->set_dim_param(d.param);
    else
      dim->set_dim_value(d.value);
  }
  return vi;
}

void AddOutput(onnx::ModelProto& m, const std::string& name) { m.mutable_graph()->add_output()->set_name(name); }

onnx::NodeProto* AddNode(onnx::ModelProto& m, const std::string& op, std::vector<std::string> inputs,
                         std::vector<std::string> outputs, const std::string& name = "") {
  onnx::NodeProto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? op + "_" + std::to_string(m.graph().node_size()) : name);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

void SetIntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

TensorProto* AddInit(onnx::ModelProto& m, const std::string& name, int type, std::vector<int64_t> dims) {
  TensorProto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  return t;
}

template <class T>
std::string Bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

std::string Serialize(const onnx::ModelProto& m) {
  std::string s;
  EXPECT_TRUE(m.SerializeToString(&s));
  return s;
}

StatusOr<Graph> LoadProto(const onnx::ModelProto& m, const std::string& dir = ".") {
  const std::string bytes = Serialize(m);
  return LoadOnnxBuffer(bytes.data(), bytes.size(), kSource, dir);
}

StatusOr<std::vector<Tensor>> RunProto(const onnx::ModelProto& m, const std::vector<Tensor>& inputs) {
  QRT_ASSIGN_OR_RETURN(Graph g, LoadProto(m));
  return testing::RunGraph(std::move(g), inputs);
}

template <class T>
std::vector<T> Values(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DataTypeOf<T>::value);
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

void ExpectError(const Status& s, StatusCode code, const std::vector<std::string>& parts) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), code) << s.message();
  for (const std::string& p : parts) EXPECT_PRED2(Contains, s.message(), p);
}

// x:f32[2] -> Relu -> y: the smallest valid model.
onnx::ModelProto ReluModel(int64_t opset = 13) {
  onnx::ModelProto m = NewModel(opset);
  AddInput(m, "x", TensorProto::FLOAT, {2});
  AddNode(m, "Relu", {"x"}, {"y"}, "relu");
  AddOutput(m, "y");
  return m;
}

// ---- Initializers ------------------------------------------------------------------

TEST(OnnxLoader, InitializersInRawAndTypedFields) {
  onnx::ModelProto m = NewModel();
  AddInput(m, "x", TensorProto::FLOAT, {4});
  AddInit(m, "a_raw", TensorProto::FLOAT, {4})->set_raw_data(Bytes<float>({1, 2, 3, 4}));
  TensorProto* b = AddInit(m, "b_typed", TensorProto::FLOAT, {4});
  for (float f : {0.5f, -1.0f, 2.0f, 0.0f}) b->add_float_data(f);
  // uint8 and its zero point in int32_data, the scale in float_data.
  TensorProto* q = AddInit(m, "q", TensorProto::UINT8, {3});
  for (int v : {0, 128, 255}) q->add_int32_data(v);
  AddInit(m, "zp", TensorProto::UINT8, {})->add_int32_data(128);
  AddInit(m, "s", TensorProto::FLOAT, {})->add_float_data(0.5f);
  // int64 shape in int64_data; int8 in raw_data; double in double_data.
  TensorProto* shape = AddInit(m, "shape", TensorProto::INT64, {2});
  shape->add_int64_data(2);
  shape->add_int64_data(2);
  AddInit(m, "i8", TensorProto::INT8, {2})->set_raw_data(std::string("\x80\x7f", 2));
  TensorProto* d = AddInit(m, "d", TensorProto::DOUBLE, {2});
  d->add_double_data(0.1);
  d->add_double_data(-3.0);
  AddNode(m, "Add", {"x", "a_raw"}, {"s1"});
  AddNode(m, "Mul", {"s1", "b_typed"}, {"y1"});
  AddNode(m, "DequantizeLinear", {"q", "s", "zp"}, {"y2"});
  AddNode(m, "Reshape", {"x", "shape"}, {"y3"});
  AddNode(m, "Cast", {"i8"}, {"y4"});
  SetIntAttr(m.mutable_graph()->mutable_node(4), "to", TensorProto::INT32);
  for (const char* o : {"y1", "y2", "y3", "y4", "d"}) AddOutput(m, o);

  auto out = RunProto(m, {Tensor::FromVector<float>({1, 1, 1, 1}, {4})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 5u);
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1.0f, -3.0f, 8.0f, 0.0f}));
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{-64.0f, 0.0f, 63.5f}));
  EXPECT_EQ((*out)[2].dims(), (Dims{2, 2}));
  EXPECT_EQ(Values<int32_t>((*out)[3]), (std::vector<int32_t>{-128, 127}));
  EXPECT_EQ(Values<double>((*out)[4]), (std::vector<double>{0.1, -3.0}));
}

TEST(OnnxLoader, InitializerAlsoListedAsInputIsAConstant) {
  // IR < 4 models list initializers among the graph inputs.
  onnx::ModelProto m = NewModel();
  AddInput(m, "x", TensorProto::FLOAT, {2});
  AddInput(m, "w", TensorProto::FLOAT, {2});
  AddInit(m, "w", TensorProto::FLOAT, {2})->set_raw_data(Bytes<float>({10, 20}));
  AddNode(m, "Add", {"x", "w"}, {"y"});
  AddOutput(m, "y");
  StatusOr<Graph> g = LoadProto(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_TRUE(g->IsConstant(g->FindValue("w")));
  auto out = testing::RunGraph(std::move(g).value(), {Tensor::FromVector<float>({1, 2}, {2})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{11, 22}));
}

TEST(OnnxLoader, InitializerErrorsNameTheInitializer) {
  {
    onnx::ModelProto m = ReluModel();
    AddInit(m, "short", TensorProto::FLOAT, {4})->set_raw_data(Bytes<float>({1, 2}));
    ExpectError(LoadProto(m).status(), StatusCode::kInvalidArgument, {kSource, "'short'"});
  }
  {
    onnx::ModelProto m = ReluModel();
    AddInit(m, "few", TensorProto::FLOAT, {4})->add_float_data(1);
    ExpectError(LoadProto(m).status(), StatusCode::kInvalidArgument, {kSource, "'few'"});
  }
  {
    onnx::ModelProto m = ReluModel();
    AddInit(m, "text", TensorProto::STRING, {1})->add_string_data("hi");
    ExpectError(LoadProto(m).status(), StatusCode::kUnsupported, {kSource, "'text'"});
  }
}

TEST(OnnxLoader, ExternalDataNextToTheModel) {
  TempDir dir;
  // 8 bytes of padding, then the tensor: offset and length select it.
  dir.Write("weights.bin", std::string(8, '\x55') + Bytes<float>({0.5f, 1.5f, -2.5f}) + std::string(4, '\x55'));
  auto model_with = [](const std::string& location) {
    onnx::ModelProto m = NewModel();
    AddInput(m, "x", TensorProto::FLOAT, {3});
    TensorProto* w = AddInit(m, "w", TensorProto::FLOAT, {3});
    w->set_data_location(TensorProto::EXTERNAL);
    auto add_entry = [&](const char* k, const std::string& v) {
      auto* e = w->add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add_entry("location", location);
    add_entry("offset", "8");
    add_entry("length", "12");
    AddNode(m, "Add", {"x", "w"}, {"y"});
    AddOutput(m, "y");
    return m;
  };
  const std::string path = dir.Write("model.onnx", Serialize(model_with("weights.bin")));
  StatusOr<Graph> g = LoadOnnxFile(path);
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto out = testing::RunGraph(std::move(g).value(), {Tensor::FromVector<float>({1, 1, 1}, {3})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1.5f, 2.5f, -1.5f}));

  for (const std::string& bad :
       {std::string("missing.bin"), std::string("../weights.bin"), dir.path() + "/weights.bin"}) {
    const std::string p = dir.Write("bad.onnx", Serialize(model_with(bad)));
    StatusOr<Graph> b = LoadOnnxFile(p);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_PRED2(Contains, b.status().message(), p);
    EXPECT_PRED2(Contains, b.status().message(), "'w'");
  }
}

// ---- Nodes and attributes -------------------------------------------------------------

TEST(OnnxLoader, ConstantNodesBecomeConstants) {
  onnx::ModelProto m = NewModel();
  AddInput(m, "x", TensorProto::FLOAT, {4});
  onnx::NodeProto* c = AddNode(m, "Constant", {}, {"c"}, "c_tensor");
  {
    auto* a = c->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    TensorProto* t = a->mutable_t();
    t->set_data_type(TensorProto::FLOAT);
    t->add_dims(4);
    t->set_raw_data(Bytes<float>({1, 2, 3, 4}));
  }
  onnx::NodeProto* k = AddNode(m, "Constant", {}, {"k"}, "c_float");
  {
    auto* a = k->add_attribute();
    a->set_name("value_float");
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(0.25f);
  }
  onnx::NodeProto* s = AddNode(m, "Constant", {}, {"shape"}, "c_ints");
  {
    auto* a = s->add_attribute();
    a->set_name("value_ints");
    a->set_type(onnx::AttributeProto::INTS);
    a->add_ints(-1);
    a->add_ints(2);
  }
  AddNode(m, "Add", {"x", "c"}, {"s1"});
  AddNode(m, "Mul", {"s1", "k"}, {"s2"});
  AddNode(m, "Reshape", {"s2", "shape"}, {"y"});
  AddOutput(m, "y");
  StatusOr<Graph> g = LoadProto(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  for (const char* name : {"c", "k", "shape"}) EXPECT_TRUE(g->IsConstant(g->FindValue(name))) << name;
  auto out = testing::RunGraph(std::move(g).value(), {Tensor::FromVector<float>({3, 2, 1, 0}, {4})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 2}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 1, 1, 1}));
}

TEST(OnnxLoader, DefaultAttributeValues) {
  // DequantizeLinear with a per-axis scale and no `axis`: axis defaults to 1.
  // Reshape without `allowzero`: a 0 in the shape copies the input dim.
  onnx::ModelProto m = NewModel();
  AddInput(m, "x", TensorProto::UINT8, {2, 3});
  AddInit(m, "s", TensorProto::FLOAT, {3})->set_raw_data(Bytes<float>({1, 2, 4}));
  AddInit(m, "zp", TensorProto::UINT8, {3})->set_raw_data(std::string("\x00\x01\x02", 3));
  AddInit(m, "shape", TensorProto::INT64, {2})->set_raw_data(Bytes<int64_t>({0, -1}));
  AddNode(m, "DequantizeLinear", {"x", "s", "zp"}, {"f"});
  AddNode(m, "Reshape", {"f", "shape"}, {"y"});
  AddOutput(m, "y");
  auto out = RunProto(m, {Tensor::FromVector<uint8_t>({0, 1, 2, 10, 11, 12}, {2, 3})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 3}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0, 0, 0, 10, 20, 40}));
}

TEST(OnnxLoader, OmittedOptionalInputs) {
  onnx::ModelProto m = NewModel();
  AddInput(m, "x", TensorProto::FLOAT, {4});
  AddInit(m, "s", TensorProto::FLOAT, {})->set_raw_data(Bytes<float>({2}));
  AddInit(m, "hi", TensorProto::FLOAT, {})->set_raw_data(Bytes<float>({3}));
  AddNode(m, "QuantizeLinear", {"x", "s"}, {"q_short"});      // zero point left off
  AddNode(m, "QuantizeLinear", {"x", "s", ""}, {"q_empty"});  // zero point given as ""
  AddNode(m, "Clip", {"x", "", "hi"}, {"clipped"});           // min omitted in the middle
  for (const char* o : {"q_short", "q_empty", "clipped"}) AddOutput(m, o);
  // x / 2 = {-1, 0.5, 1.5, 500}: rint -> {-1, 0, 2, 500}; uint8 saturates to {0, 0, 2, 255}.
  auto out = RunProto(m, {Tensor::FromVector<float>({-2, 1, 3, 1000}, {4})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{0, 0, 2, 255}));
  EXPECT_EQ(Values<uint8_t>((*out)[1]), (std::vector<uint8_t>{0, 0, 2, 255}));
  EXPECT_EQ(Values<float>((*out)[2]), (std::vector<float>{-2, 1, 3, 3}));
}

TEST(OnnxLoader, NodesKeepTheImportedOpset) {
  StatusOr<Graph> g = LoadProto(ReluModel(11));
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->node(NodeId{0}).opset, 11);
  EXPECT_EQ(g->node(NodeId{0}).domain, "");
  onnx::ModelProto m = ReluModel(14);
  m.mutable_opset_import(0)->set_domain("ai.onnx");
  m.mutable_graph()->mutable_node(0)->set_domain("ai.onnx");
  g = LoadProto(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->node(NodeId{0}).opset, 14);
  EXPECT_EQ(g->node(NodeId{0}).domain, "");
}

// ---- Symbolic dims ----------------------------------------------------------------

// x:f32[BATCH,3] + [10,20,30]; BATCH is a dim_param, -1, or a dim with no value.
onnx::ModelProto BatchModel(int which) {
  onnx::ModelProto m = NewModel();
  onnx::ValueInfoProto* x = AddInput(m, "x", TensorProto::FLOAT, {"batch", 3});
  auto* dim0 = x->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
  if (which == 1) dim0->set_dim_value(-1);
  if (which == 2) dim0->Clear();
  AddInit(m, "b", TensorProto::FLOAT, {3})->set_raw_data(Bytes<float>({10, 20, 30}));
  AddNode(m, "Add", {"x", "b"}, {"y"});
  AddOutput(m, "y");
  return m;
}

TEST(OnnxLoader, SymbolicDimsRunWithTwoBatchSizes) {
  for (int which : {0, 1, 2}) {
    SCOPED_TRACE(which == 0 ? "dim_param" : which == 1 ? "dim_value -1" : "empty dim");
    StatusOr<Graph> g = LoadProto(BatchModel(which));
    ASSERT_TRUE(g.ok()) << g.status().message();
    const Shape& s = *g->value(g->inputs[0]).shape;
    EXPECT_FALSE(s[0].is_static());
    if (which == 0) {
      EXPECT_EQ(s[0].symbol, "batch");
    }
    EXPECT_EQ(s[1].value, 3);
    auto model = Compile(std::move(g).value(), CompileOptions());
    ASSERT_TRUE(model.ok()) << model.status().message();
    EXPECT_EQ((*model)->default_plan(), nullptr);
    Session session(*model);
    for (int64_t batch : {1, 4, 1}) {
      std::vector<float> x(size_t(batch) * 3);
      for (size_t i = 0; i < x.size(); ++i) x[i] = float(i);
      std::vector<Tensor> out;
      ASSERT_TRUE(session.Run({Tensor::FromVector<float>(x, {batch, 3})}, &out).ok());
      ASSERT_EQ(out[0].dims(), (Dims{batch, 3}));
      for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(out[0].data<float>()[i], x[i] + 10.0f * float(i % 3 + 1));
    }
    std::vector<Tensor> out;
    Status bad = session.Run({Tensor::FromVector<float>({1, 2}, {1, 2})}, &out);
    ExpectError(bad, StatusCode::kInvalidArgument, {kSource, "'x'", "[1,2]"});
  }
}

// ---- Malformed files --------------------------------------------------------------

TEST(OnnxLoaderErrors, TruncatedProtobufNamesTheFile) {
  TempDir dir;
  const std::string bytes = Serialize(BatchModel(0));
  ASSERT_GT(bytes.size(), 40u);
  for (size_t cut : {bytes.size() / 2, bytes.size() - 1, size_t(20)}) {
    const std::string path = dir.Write("cut.onnx", bytes.substr(0, cut));
    StatusOr<Graph> g = LoadOnnxFile(path);
    ASSERT_FALSE(g.ok()) << "cut at " << cut;
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument) << g.status().message();
    EXPECT_PRED2(Contains, g.status().message(), path);
  }
}

TEST(OnnxLoaderErrors, GarbageBytes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    std::string bytes(size_t(1 + rng() % 300), '\0');
    for (char& c : bytes) c = char(rng());
    StatusOr<Graph> g = LoadOnnxBuffer(bytes.data(), bytes.size(), kSource, ".");
    ASSERT_FALSE(g.ok()) << "trial " << trial;
    EXPECT_PRED2(Contains, g.status().message(), kSource);
  }
  const std::string text = "this is not an onnx model at all";
  ExpectError(LoadOnnxBuffer(text.data(), text.size(), kSource, ".").status(), StatusCode::kInvalidArgument, {kSource});
  ExpectError(LoadOnnxBuffer("", 0, kSource, ".").status(), StatusCode::kInvalidArgument, {kSource, "graph"});
}

TEST(OnnxLoaderErrors, MissingFile) {
  ExpectError(LoadOnnxFile("/nonexistent/dir/model.onnx").status(), StatusCode::kNotFound,
              {"/nonexistent/dir/model.onnx"});
}

TEST(OnnxLoaderErrors, UnknownOpNamesOpAndDomain) {
  onnx::ModelProto m = NewModel();
  auto* op = m.add_opset_import();
  op->set_domain("com.example");
  op->set_version(1);
  AddInput(m, "x", TensorProto::FLOAT, {2});
  AddNode(m, "FancyOp", {"x"}, {"y"}, "fancy_1")->set_domain("com.example");
  AddOutput(m, "y");
  ExpectError(LoadProto(m).status(), StatusCode::kUnsupported, {kSource, "'fancy_1'", "FancyOp", "com.example"});

  onnx::ModelProto conv = NewModel();
  AddInput(conv, "x", TensorProto::FLOAT, {1, 1, 2, 2});
  AddInput(conv, "w", TensorProto::FLOAT, {1, 1, 1, 1});
  AddNode(conv, "ConvTransposeXYZ", {"x", "w"}, {"y"}, "conv_0");
  AddOutput(conv, "y");
  ExpectError(LoadProto(conv).status(), StatusCode::kUnsupported, {kSource, "'conv_0'", "ConvTransposeXYZ"});
}

TEST(OnnxLoaderErrors, UnsupportedOpset) {
  for (int64_t opset : {0, 22, 99}) {
    ExpectError(LoadProto(ReluModel(opset)).status(), StatusCode::kUnsupported,
                {kSource, "opset", std::to_string(opset)});
  }
  for (int64_t opset : {1, 6, 10, 21}) EXPECT_TRUE(LoadProto(ReluModel(opset)).ok()) << opset;
}

TEST(OnnxLoaderErrors, UndefinedValue) {
  onnx::ModelProto m = NewModel();
  AddInput(m, "x", TensorProto::FLOAT, {2});
  AddNode(m, "Add", {"x", "ghost"}, {"y"}, "add_1");
  AddOutput(m, "y");
  ExpectError(LoadProto(m).status(), StatusCode::kInvalidArgument, {kSource, "'add_1'", "Add", "'ghost'"});

  onnx::ModelProto o = ReluModel();
  AddOutput(o, "phantom");
  ExpectError(LoadProto(o).status(), StatusCode::kInvalidArgument, {kSource, "'phantom'"});
}

TEST(OnnxLoaderErrors, GraphInputWithoutType) {
  onnx::ModelProto m = NewModel();
  m.mutable_graph()->add_input()->set_name("untyped");
  AddNode(m, "Relu", {"untyped"}, {"y"});
  AddOutput(m, "y");
  ExpectError(LoadProto(m).status(), StatusCode::kInvalidArgument, {kSource, "'untyped'", "type"});

  onnx::ModelProto z = ReluModel();
  z.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(0);
  ExpectError(LoadProto(z).status(), StatusCode::kInvalidArgument, {kSource, "'x'", "type"});

  onnx::ModelProto seq = ReluModel();
  seq.mutable_graph()->mutable_input(0)->mutable_type()->mutable_sequence_type();
  ExpectError(LoadProto(seq).status(), StatusCode::kUnsupported, {kSource, "'x'"});
}

TEST(OnnxLoaderErrors, DuplicateDefinitionAndCycle) {
  onnx::ModelProto dup = NewModel();
  AddInput(dup, "x", TensorProto::FLOAT, {2});
  AddNode(dup, "Relu", {"x"}, {"y"}, "r1");
  AddNode(dup, "Sigmoid", {"x"}, {"y"}, "r2");
  AddOutput(dup, "y");
  ExpectError(LoadProto(dup).status(), StatusCode::kInvalidArgument, {kSource, "'r2'", "'y'"});

  onnx::ModelProto cyc = NewModel();
  AddInput(cyc, "x", TensorProto::FLOAT, {2});
  AddNode(cyc, "Add", {"x", "b"}, {"a"}, "n_a");
  AddNode(cyc, "Relu", {"a"}, {"b"}, "n_b");
  AddOutput(cyc, "b");
  ExpectError(LoadProto(cyc).status(), StatusCode::kInvalidArgument, {kSource, "cycle"});
}

TEST(OnnxLoaderErrors, DeclaredOutputTypeMismatch) {
  onnx::ModelProto m = ReluModel();
  auto* tt = m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(TensorProto::INT8);
  StatusOr<Graph> g = LoadProto(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  ExpectError(Compile(std::move(g).value(), CompileOptions()).status(), StatusCode::kInvalidArgument,
              {kSource, "'relu'", "output 'y'", "int8", "float32"});

  tt->set_elem_type(TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(5);
  g = LoadProto(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  ExpectError(Compile(std::move(g).value(), CompileOptions()).status(), StatusCode::kInvalidArgument,
              {kSource, "'relu'", "output 'y'", "[5]", "[2]"});
}

TEST(OnnxLoaderErrors, WrongInputCountAndAttributeType) {
  onnx::ModelProto m = NewModel();
  AddInput(m, "x", TensorProto::FLOAT, {2});
  AddNode(m, "Relu", {"x", "x"}, {"y"}, "relu2");
  AddOutput(m, "y");
  ExpectError(LoadProto(m).status(), StatusCode::kInvalidArgument, {kSource, "'relu2'", "2 inputs"});

  // Cast's `to` given as a string: an error at compile time naming the node and attribute.
  onnx::ModelProto c = NewModel();
  AddInput(c, "x", TensorProto::FLOAT, {2});
  auto* a = AddNode(c, "Cast", {"x"}, {"y"}, "cast_1")->add_attribute();
  a->set_name("to");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("INT8");
  AddOutput(c, "y");
  StatusOr<Graph> g = LoadProto(c);
  ASSERT_TRUE(g.ok()) << g.status().message();
  ExpectError(Compile(std::move(g).value(), CompileOptions()).status(), StatusCode::kInvalidArgument,
              {kSource, "'cast_1'", "Cast", "'to'"});
}

}  // namespace
}  // namespace qrt
