// The C API, used the way a C program would: handles, status codes, last error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "qrt/qrt.h"
#include "runtime/cpu_features.h"
#include "tests/test_util.h"

namespace {

using qrt::testing::Contains;

std::string ModelDir() { return qrt::testing::SourceDir() + "/models/qdq_mul_add"; }
std::string ModelPath() { return ModelDir() + "/model.onnx"; }

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The bundled model's input and expected output, read through the C API.
struct Case {
  Case() {
    EXPECT_EQ(qrt_tensor_read_file((ModelDir() + "/test_data_set_0/input_0.pb").c_str(), &input), QRT_OK)
        << qrt_last_error();
    EXPECT_EQ(qrt_tensor_read_file((ModelDir() + "/test_data_set_0/output_0.pb").c_str(), &expected), QRT_OK)
        << qrt_last_error();
  }
  ~Case() {
    qrt_tensor_destroy(input);
    qrt_tensor_destroy(expected);
  }
  qrt_tensor* input = nullptr;
  qrt_tensor* expected = nullptr;
};

qrt_status BindView(qrt_context* c, size_t k, const qrt_tensor_view& v) {
  return qrt_context_bind_input(c, k, v.dtype, v.rank, v.dims, v.data, v.size_bytes);
}

void ExpectSameBytes(const qrt_tensor_view& got, const qrt_tensor_view& want) {
  ASSERT_EQ(got.dtype, want.dtype);
  ASSERT_EQ(got.rank, want.rank);
  for (int i = 0; i < got.rank; ++i) EXPECT_EQ(got.dims[i], want.dims[i]);
  ASSERT_EQ(got.size_bytes, want.size_bytes);
  EXPECT_EQ(std::memcmp(got.data, want.data, got.size_bytes), 0);
}

// Runs `model` once on the bundled input and checks the output bit for bit.
void RunAndCheck(const qrt_model* model) {
  Case c;
  qrt_context* ctx = nullptr;
  ASSERT_EQ(qrt_context_create(model, &ctx), QRT_OK) << qrt_last_error();
  ASSERT_EQ(BindView(ctx, 0, qrt_tensor_get_view(c.input)), QRT_OK) << qrt_last_error();
  ASSERT_EQ(qrt_context_run(ctx), QRT_OK) << qrt_last_error();
  qrt_tensor_view out;
  ASSERT_EQ(qrt_context_output(ctx, 0, &out), QRT_OK) << qrt_last_error();
  ExpectSameBytes(out, qrt_tensor_get_view(c.expected));
  qrt_context_destroy(ctx);
}

TEST(CApi, VersionMatchesTheProject) {
  EXPECT_STREQ(qrt_version_string(), QRT_PROJECT_VERSION);
  std::ostringstream v;
  v << (qrt_version() >> 16) << "." << ((qrt_version() >> 8) & 0xff) << "." << (qrt_version() & 0xff);
  EXPECT_EQ(v.str(), QRT_PROJECT_VERSION);
}

TEST(CApi, DtypesAreOnnxCodes) {
  EXPECT_STREQ(qrt_dtype_name(QRT_UINT8), "uint8");
  EXPECT_STREQ(qrt_dtype_name(QRT_BFLOAT16), "bfloat16");
  EXPECT_EQ(qrt_dtype_size(QRT_FLOAT16), 2u);
  EXPECT_EQ(qrt_dtype_size(QRT_INT64), 8u);
  EXPECT_EQ(qrt_dtype_size(static_cast<qrt_dtype>(8)), 0u);  // ONNX string: not a qrt dtype
  EXPECT_STREQ(qrt_dtype_name(static_cast<qrt_dtype>(8)), "undefined");
}

TEST(CApi, LoadFileCompileRunMatchesExpectedOutput) {
  qrt_model* model = nullptr;
  ASSERT_EQ(qrt_model_load_file(ModelPath().c_str(), nullptr, &model), QRT_OK) << qrt_last_error();
  RunAndCheck(model);
  EXPECT_EQ(std::string(qrt_model_isa(model)), qrt::IsaName(qrt::EffectiveIsa(qrt::kIsaAuto)));
  qrt_model_destroy(model);
}

// Each tier is a ceiling: the model gets the best tier at or below it that this CPU has, no
// step's kernels report a higher one, and every tier gives the same bits.
TEST(CApi, EveryIsaCeilingHoldsAndGivesTheSameBits) {
  const std::vector<std::string> tiers = {"scalar", "avx2", "avx2-vnni", "avx512", "avx512-vnni", "auto"};
  for (size_t t = 0; t < tiers.size(); ++t) {
    SCOPED_TRACE(tiers[t]);
    qrt_options* o = nullptr;
    ASSERT_EQ(qrt_options_create(&o), QRT_OK);
    ASSERT_EQ(qrt_options_set_isa(o, tiers[t].c_str()), QRT_OK);
    qrt_model* model = nullptr;
    ASSERT_EQ(qrt_model_load_file(ModelPath().c_str(), o, &model), QRT_OK) << qrt_last_error();
    const qrt::Isa ceiling = qrt::IsaFromName(tiers[t]).value();
    const std::string got = qrt_model_isa(model);
    EXPECT_EQ(got, qrt::IsaName(qrt::EffectiveIsa(ceiling)));
    EXPECT_LE(int(qrt::IsaFromName(got).value()), int(ceiling));
    ASSERT_GT(qrt_model_kernel_count(model), 0u);
    for (size_t i = 0; i < qrt_model_kernel_count(model); ++i) {
      qrt_kernel_info k{};
      ASSERT_EQ(qrt_model_kernel(model, i, &k), QRT_OK);
      ASSERT_TRUE(qrt::IsaFromName(k.isa).has_value()) << k.node << " " << k.isa;
      EXPECT_LE(int(qrt::IsaFromName(k.isa).value()), int(qrt::EffectiveIsa(ceiling))) << k.node;
    }
    RunAndCheck(model);
    qrt_model_destroy(model);
    qrt_options_destroy(o);
  }
}

TEST(CApi, ScalarIsaAndNoPassesGiveTheSameBits) {
  qrt_options* o = nullptr;
  ASSERT_EQ(qrt_options_create(&o), QRT_OK);
  ASSERT_EQ(qrt_options_set_isa(o, "scalar"), QRT_OK);
  ASSERT_EQ(qrt_options_set_passes(o, "none"), QRT_OK);
  ASSERT_EQ(qrt_options_set_threads(o, 2), QRT_OK);
  qrt_model* model = nullptr;
  ASSERT_EQ(qrt_model_load_file(ModelPath().c_str(), o, &model), QRT_OK) << qrt_last_error();
  EXPECT_STREQ(qrt_model_isa(model), "scalar");
  EXPECT_EQ(qrt_model_pass_count(model), 0u);
  RunAndCheck(model);
  qrt_model_destroy(model);
  qrt_options_destroy(o);
}

TEST(CApi, ExplanationsOfTheDefaultPasses) {
  qrt_model* model = nullptr;
  ASSERT_EQ(qrt_model_load_file(ModelPath().c_str(), nullptr, &model), QRT_OK) << qrt_last_error();
  const size_t n = qrt_model_explanation_count(model);
  ASSERT_GT(n, 0u);
  size_t rewritten = 0;
  for (size_t i = 0; i < n; ++i) {
    qrt_explanation e{};
    ASSERT_EQ(qrt_model_explanation(model, i, &e), QRT_OK);
    ASSERT_NE(e.pass, nullptr);
    ASSERT_NE(e.node, nullptr);
    if (e.rewritten) {
      ++rewritten;
      EXPECT_STREQ(e.reason, "");
    } else {
      EXPECT_STRNE(e.reason, "") << e.pass << " " << e.node;
    }
  }
  EXPECT_EQ(rewritten, 2u);  // the Mul and the Add fusions of models/qdq_mul_add
  qrt_explanation e{};
  EXPECT_NE(qrt_model_explanation(model, n, &e), QRT_OK);
  EXPECT_NE(qrt_model_explanation(model, 0, nullptr), QRT_OK);
  qrt_model_destroy(model);
}

TEST(CApi, BadOptionsAreRefused) {
  qrt_options* o = nullptr;
  ASSERT_EQ(qrt_options_create(&o), QRT_OK);
  EXPECT_EQ(qrt_options_set_isa(o, "avx512f"), QRT_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(qrt_last_error(), "avx512f"));
  EXPECT_EQ(qrt_options_set_isa(o, "AVX2"), QRT_INVALID_ARGUMENT);
  EXPECT_EQ(qrt_options_set_threads(o, 0), QRT_INVALID_ARGUMENT);
  EXPECT_EQ(qrt_options_set_passes(o, nullptr), QRT_INVALID_ARGUMENT);
  ASSERT_EQ(qrt_options_set_passes(o, "default,no-such-pass"), QRT_OK);  // checked when compiling
  qrt_model* model = nullptr;
  EXPECT_EQ(qrt_model_load_file(ModelPath().c_str(), o, &model), QRT_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(qrt_last_error(), "no-such-pass")) << qrt_last_error();
  EXPECT_EQ(model, nullptr);
  qrt_options_destroy(o);
}

// The kernels of a plan name each convolution's algorithm, and conv_algorithm forces one.
TEST(CApi, KernelNotesAndAForcedConvAlgorithm) {
  const std::string json =
      R"({"format":"qrt.graph","version":1,"inputs":[{"name":"x","dtype":"float32","shape":[1,4,5,5]}],)"
      R"("outputs":[{"name":"z"}],"initializers":[{"name":"w","dtype":"float32","shape":[2,4,1,1],)"
      R"("data":[1,2,3,4,5,6,7,8]}],"nodes":[{"name":"conv","op":"Conv","inputs":["x","w"],"outputs":["y"]},)"
      R"({"name":"relu","op":"Relu","inputs":["y"],"outputs":["z"]}]})";
  auto compile = [&](const char* algorithm, qrt_model** m) {
    qrt_options* o = nullptr;
    EXPECT_EQ(qrt_options_create(&o), QRT_OK);
    qrt_status s = algorithm ? qrt_options_set_conv_algorithm(o, algorithm) : QRT_OK;
    if (s == QRT_OK) s = qrt_model_load_buffer(json.data(), json.size(), QRT_FORMAT_JSON, "conv.json", o, m);
    qrt_options_destroy(o);
    return s;
  };
  auto note_of = [](const qrt_model* m, const char* node) -> std::string {
    for (size_t i = 0; i < qrt_model_kernel_count(m); ++i) {
      qrt_kernel_info k{};
      EXPECT_EQ(qrt_model_kernel(m, i, &k), QRT_OK);
      if (std::string(k.node) == node) return k.note;
    }
    return "<no step>";
  };
  qrt_model* m = nullptr;
  ASSERT_EQ(compile(nullptr, &m), QRT_OK) << qrt_last_error();
  EXPECT_EQ(note_of(m, "conv"), "direct");  // 1x1, unit strides: Y = W x X
  EXPECT_EQ(note_of(m, "relu"), "");
  qrt_kernel_info k{};
  EXPECT_NE(qrt_model_kernel(m, qrt_model_kernel_count(m), &k), QRT_OK);
  qrt_model_destroy(m);
  ASSERT_EQ(compile("patches", &m), QRT_OK) << qrt_last_error();
  EXPECT_EQ(note_of(m, "conv"), "patches");
  qrt_model_destroy(m);
  EXPECT_EQ(compile("depthwise-int8", &m), QRT_UNSUPPORTED);  // a plain Conv has no fake quantization
  EXPECT_TRUE(Contains(qrt_last_error(), "conv_algorithm depthwise-int8")) << qrt_last_error();
  EXPECT_TRUE(Contains(qrt_last_error(), "conv")) << qrt_last_error();
  EXPECT_EQ(compile("fastest", &m), QRT_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(qrt_last_error(), "fastest")) << qrt_last_error();
}

TEST(CApi, LoadOnnxAndJsonFromMemory) {
  const std::string onnx = ReadFile(ModelPath());
  qrt_model* model = nullptr;
  ASSERT_EQ(qrt_model_load_buffer(onnx.data(), onnx.size(), QRT_FORMAT_AUTO, "mem.onnx", nullptr, &model), QRT_OK)
      << qrt_last_error();
  RunAndCheck(model);

  // The same graph as JSON, written by qrt and read back from memory.
  qrt::testing::TempDir tmp;
  const std::string json_path = tmp.path() + "/m.json";
  qrt_graph* graph = nullptr;
  ASSERT_EQ(qrt_graph_load_file(ModelPath().c_str(), &graph), QRT_OK);
  ASSERT_EQ(qrt_graph_save(graph, json_path.c_str()), QRT_OK) << qrt_last_error();
  const std::string json = ReadFile(json_path);
  qrt_model* from_json = nullptr;
  ASSERT_EQ(qrt_model_load_buffer(json.data(), json.size(), QRT_FORMAT_AUTO, nullptr, nullptr, &from_json), QRT_OK)
      << qrt_last_error();
  RunAndCheck(from_json);
  qrt_model_destroy(from_json);
  qrt_graph_destroy(graph);
  qrt_model_destroy(model);
}

TEST(CApi, ModelFromMemoryCannotReadFiles) {
  const std::string json = R"({"format": "qrt.graph", "version": 1,
    "inputs": [{"name": "x", "dtype": "float32", "shape": [2]}],
    "outputs": [{"name": "y"}],
    "initializers": [{"name": "w", "dtype": "float32", "shape": [2], "file": "w.bin"}],
    "nodes": [{"name": "add", "op": "Add", "inputs": ["x", "w"], "outputs": ["y"]}]})";
  qrt_graph* g = nullptr;
  EXPECT_EQ(qrt_graph_load_buffer(json.data(), json.size(), QRT_FORMAT_JSON, "mem.json", &g), QRT_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(qrt_last_error(), "mem.json")) << qrt_last_error();
  EXPECT_TRUE(Contains(qrt_last_error(), "memory")) << qrt_last_error();
  EXPECT_EQ(g, nullptr);
}

TEST(CApi, ErrorsNameTheFileNodeAndOp) {
  qrt_model* model = nullptr;
  EXPECT_EQ(qrt_model_load_file("/no/such/model.onnx", nullptr, &model), QRT_NOT_FOUND);
  EXPECT_TRUE(Contains(qrt_last_error(), "/no/such/model.onnx"));
  EXPECT_EQ(model, nullptr);

  const std::string json = R"({"format": "qrt.graph", "version": 1,
    "inputs": [{"name": "x", "dtype": "float32", "shape": [2]}], "outputs": [{"name": "y"}],
    "nodes": [{"name": "mystery", "op": "FrobnicateV9", "inputs": ["x"], "outputs": ["y"]}]})";
  EXPECT_EQ(qrt_model_load_buffer(json.data(), json.size(), QRT_FORMAT_JSON, "frob.json", nullptr, &model),
            QRT_UNSUPPORTED);
  const std::string msg = qrt_last_error();
  EXPECT_TRUE(Contains(msg, "frob.json")) << msg;
  EXPECT_TRUE(Contains(msg, "mystery")) << msg;
  EXPECT_TRUE(Contains(msg, "FrobnicateV9")) << msg;

  const char garbage[] = "\x08\x07garbage";
  EXPECT_EQ(qrt_model_load_buffer(garbage, sizeof garbage, QRT_FORMAT_ONNX, "junk.onnx", nullptr, &model),
            QRT_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(qrt_last_error(), "junk.onnx"));
  EXPECT_EQ(qrt_model_load_buffer(nullptr, 10, QRT_FORMAT_ONNX, "null", nullptr, &model), QRT_INVALID_ARGUMENT);
  EXPECT_EQ(qrt_model_load_file(nullptr, nullptr, &model), QRT_INVALID_ARGUMENT);
  EXPECT_EQ(qrt_model_load_file(ModelPath().c_str(), nullptr, nullptr), QRT_INVALID_ARGUMENT);
}

// The bundled model loaded, a context on it, and its input and expected output; destroyed at
// the end (a test may destroy the model first and set it to null).
class CApiContext : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(qrt_model_load_file(ModelPath().c_str(), nullptr, &model), QRT_OK) << qrt_last_error();
    ASSERT_EQ(qrt_context_create(model, &ctx), QRT_OK) << qrt_last_error();
  }
  void TearDown() override {
    qrt_context_destroy(ctx);
    qrt_model_destroy(model);
  }
  Case c;
  qrt_model* model = nullptr;
  qrt_context* ctx = nullptr;
};

TEST_F(CApiContext, BindingErrors) {
  EXPECT_EQ(qrt_context_run(ctx), QRT_INVALID_ARGUMENT);  // nothing bound
  EXPECT_TRUE(Contains(qrt_last_error(), "'x' is not bound")) << qrt_last_error();
  qrt_tensor_view out;
  EXPECT_EQ(qrt_context_output(ctx, 0, &out), QRT_INVALID_ARGUMENT);  // no run yet

  const qrt_tensor_view in = qrt_tensor_get_view(c.input);
  EXPECT_EQ(qrt_context_bind_input(ctx, 1, in.dtype, in.rank, in.dims, in.data, in.size_bytes), QRT_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(qrt_last_error(), "out of range"));
  EXPECT_EQ(qrt_context_bind_input(ctx, 0, QRT_INT8, in.rank, in.dims, in.data, in.size_bytes), QRT_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(qrt_last_error(), "'x'")) << qrt_last_error();
  const int64_t wrong_dims[] = {1, 8, 4, 5};
  EXPECT_EQ(qrt_context_bind_input(ctx, 0, in.dtype, 4, wrong_dims, in.data, 160), QRT_INVALID_ARGUMENT);
  EXPECT_EQ(qrt_context_bind_input(ctx, 0, in.dtype, in.rank, in.dims, in.data, in.size_bytes - 1),
            QRT_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(qrt_last_error(), "bytes")) << qrt_last_error();
  EXPECT_EQ(qrt_context_bind_input(ctx, 0, in.dtype, in.rank, in.dims, nullptr, in.size_bytes), QRT_INVALID_ARGUMENT);
  EXPECT_EQ(qrt_context_bind_input(ctx, 0, in.dtype, 99, in.dims, in.data, in.size_bytes), QRT_INVALID_ARGUMENT);

  ASSERT_EQ(BindView(ctx, 0, in), QRT_OK);
  std::vector<float> small(3);
  ASSERT_EQ(qrt_context_bind_output(ctx, 0, small.data(), small.size() * 4), QRT_OK);
  EXPECT_EQ(qrt_context_run(ctx), QRT_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(qrt_last_error(), "'y'")) << qrt_last_error();
  EXPECT_EQ(qrt_context_bind_output(ctx, 5, small.data(), 12), QRT_INVALID_ARGUMENT);
  ASSERT_EQ(qrt_context_bind_output(ctx, 0, nullptr, 0), QRT_OK);  // unbind
  EXPECT_EQ(qrt_context_run(ctx), QRT_OK) << qrt_last_error();
  EXPECT_EQ(qrt_context_output(ctx, 1, &out), QRT_INVALID_ARGUMENT);
}

TEST_F(CApiContext, OutputBuffersZeroCopyWhenAlignedElseCopied) {
  ASSERT_EQ(BindView(ctx, 0, qrt_tensor_get_view(c.input)), QRT_OK);
  const qrt_tensor_view want = qrt_tensor_get_view(c.expected);

  // 64-byte aligned: the kernel writes straight into it.
  void* aligned = std::aligned_alloc(64, want.size_bytes + 64);
  ASSERT_EQ(qrt_context_bind_output(ctx, 0, aligned, want.size_bytes), QRT_OK);
  ASSERT_EQ(qrt_context_run(ctx), QRT_OK) << qrt_last_error();
  qrt_tensor_view out;
  ASSERT_EQ(qrt_context_output(ctx, 0, &out), QRT_OK);
  EXPECT_EQ(out.data, aligned);
  ExpectSameBytes(out, want);

  // Misaligned by 4 bytes: copied there after the run.
  char* misaligned = static_cast<char*>(aligned) + 4;
  std::memset(aligned, 0, want.size_bytes + 4);
  ASSERT_EQ(qrt_context_bind_output(ctx, 0, misaligned, want.size_bytes), QRT_OK);
  ASSERT_EQ(qrt_context_run(ctx), QRT_OK) << qrt_last_error();
  ASSERT_EQ(qrt_context_output(ctx, 0, &out), QRT_OK);
  EXPECT_EQ(out.data, misaligned);
  ExpectSameBytes(out, want);

  // Unbound again: results live in the context, and the arena is intact.
  ASSERT_EQ(qrt_context_bind_output(ctx, 0, nullptr, 0), QRT_OK);
  std::memset(aligned, 0, want.size_bytes + 4);
  ASSERT_EQ(qrt_context_run(ctx), QRT_OK);
  ASSERT_EQ(qrt_context_output(ctx, 0, &out), QRT_OK);
  EXPECT_NE(out.data, aligned);
  ExpectSameBytes(out, want);
  std::free(aligned);
}

TEST_F(CApiContext, SetInputCopiesTheCallersData) {
  const qrt_tensor_view in = qrt_tensor_get_view(c.input);
  std::vector<uint8_t> scratch(static_cast<const uint8_t*>(in.data),
                               static_cast<const uint8_t*>(in.data) + in.size_bytes);
  ASSERT_EQ(qrt_context_set_input(ctx, 0, in.dtype, in.rank, in.dims, scratch.data(), scratch.size()), QRT_OK);
  std::fill(scratch.begin(), scratch.end(), 0);  // the context has its own copy
  ASSERT_EQ(qrt_context_run(ctx), QRT_OK) << qrt_last_error();
  qrt_tensor_view out;
  ASSERT_EQ(qrt_context_output(ctx, 0, &out), QRT_OK);
  ExpectSameBytes(out, qrt_tensor_get_view(c.expected));
}

TEST_F(CApiContext, ContextOutlivesItsModelHandle) {
  qrt_model_destroy(model);
  model = nullptr;  // the fixture destroys what is left
  ASSERT_EQ(BindView(ctx, 0, qrt_tensor_get_view(c.input)), QRT_OK);
  ASSERT_EQ(qrt_context_run(ctx), QRT_OK) << qrt_last_error();
  qrt_tensor_view out;
  ASSERT_EQ(qrt_context_output(ctx, 0, &out), QRT_OK);
  ExpectSameBytes(out, qrt_tensor_get_view(c.expected));
}

TEST_F(CApiContext, ProfilingTimesEveryNodeOfTheOptimizedGraph) {
  ASSERT_EQ(BindView(ctx, 0, qrt_tensor_get_view(c.input)), QRT_OK);
  EXPECT_EQ(qrt_context_profile_count(ctx), 0u);  // off by default
  ASSERT_EQ(qrt_context_run(ctx), QRT_OK);
  EXPECT_EQ(qrt_context_profile_count(ctx), 0u);

  ASSERT_EQ(qrt_context_set_profiling(ctx, 1), QRT_OK);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(qrt_context_run(ctx), QRT_OK) << qrt_last_error();
  const qrt_graph* graph = qrt_model_graph(model);
  std::multiset<std::string> declared;
  for (size_t i = 0; i < qrt_graph_node_count(graph); ++i) {
    qrt_node_info n;
    ASSERT_EQ(qrt_graph_node(graph, i, &n), QRT_OK);
    declared.insert(std::string(n.domain) + ":" + n.op_type + "/" + n.name);
  }
  const size_t steps = qrt_context_profile_count(ctx);
  ASSERT_GT(steps, 0u);
  uint64_t total = 0;
  std::multiset<std::string> profiled;
  for (size_t i = 0; i < steps; ++i) {
    qrt_profile_entry e;
    ASSERT_EQ(qrt_context_profile_entry(ctx, i, &e), QRT_OK);
    EXPECT_EQ(e.runs, 3u);
    profiled.insert(std::string(e.domain) + ":" + e.op_type + "/" + e.node_name);
    total += e.total_ns;
  }
  // Every step is a node of the optimized graph, once; nodes the planner evaluates at plan time
  // (none in this model) have no step.
  EXPECT_TRUE(std::includes(declared.begin(), declared.end(), profiled.begin(), profiled.end()));
  EXPECT_EQ(profiled.size(), declared.size());
  EXPECT_GT(total, 0u);
  qrt_profile_entry e;
  EXPECT_EQ(qrt_context_profile_entry(ctx, steps, &e), QRT_INVALID_ARGUMENT);
  EXPECT_EQ(qrt_context_profile_entry(nullptr, 0, &e), QRT_INVALID_ARGUMENT);
  EXPECT_EQ(qrt_context_set_profiling(nullptr, 1), QRT_INVALID_ARGUMENT);

  // Turning it off keeps the counters; on again clears them.
  ASSERT_EQ(qrt_context_set_profiling(ctx, 0), QRT_OK);
  ASSERT_EQ(qrt_context_run(ctx), QRT_OK);
  ASSERT_EQ(qrt_context_profile_entry(ctx, 0, &e), QRT_OK);
  EXPECT_EQ(e.runs, 3u);
  ASSERT_EQ(qrt_context_set_profiling(ctx, 1), QRT_OK);
  ASSERT_EQ(qrt_context_profile_entry(ctx, 0, &e), QRT_OK);
  EXPECT_EQ(e.runs, 0u);
  EXPECT_EQ(e.total_ns, 0u);
}

TEST(CApi, MemoryLimitBoundsTheArena) {
  qrt_model* model = nullptr;
  ASSERT_EQ(qrt_model_load_file(ModelPath().c_str(), nullptr, &model), QRT_OK);
  qrt_context* probe = nullptr;
  ASSERT_EQ(qrt_context_create(model, &probe), QRT_OK);
  Case c;
  ASSERT_EQ(BindView(probe, 0, qrt_tensor_get_view(c.input)), QRT_OK);
  ASSERT_EQ(qrt_context_run(probe), QRT_OK);
  const uint64_t arena = qrt_context_arena_bytes(probe);
  ASSERT_GT(arena, 0u);
  qrt_context_destroy(probe);
  qrt_model_destroy(model);

  qrt_options* o = nullptr;
  ASSERT_EQ(qrt_options_create(&o), QRT_OK);
  ASSERT_EQ(qrt_options_set_memory_limit(o, arena - 1), QRT_OK);
  EXPECT_EQ(qrt_model_load_file(ModelPath().c_str(), o, &model), QRT_RESOURCE_EXHAUSTED);
  EXPECT_TRUE(Contains(qrt_last_error(), "memory limit")) << qrt_last_error();
  EXPECT_TRUE(Contains(qrt_last_error(), "model.onnx")) << qrt_last_error();
  ASSERT_EQ(qrt_options_set_memory_limit(o, arena), QRT_OK);
  ASSERT_EQ(qrt_model_load_file(ModelPath().c_str(), o, &model), QRT_OK) << qrt_last_error();
  RunAndCheck(model);
  qrt_model_destroy(model);
  qrt_options_destroy(o);
}

TEST(CApi, GraphIntrospection) {
  qrt_graph* g = nullptr;
  ASSERT_EQ(qrt_graph_load_file(ModelPath().c_str(), &g), QRT_OK);
  ASSERT_EQ(qrt_graph_input_count(g), 1u);
  ASSERT_EQ(qrt_graph_output_count(g), 1u);
  qrt_value_info v;
  ASSERT_EQ(qrt_graph_input(g, 0, &v), QRT_OK);
  EXPECT_STREQ(v.name, "x");
  EXPECT_EQ(v.dtype, QRT_UINT8);
  ASSERT_EQ(v.rank, 4);
  EXPECT_EQ(v.dims[0], 1);
  EXPECT_EQ(v.dims[1], 8);
  EXPECT_EQ(qrt_graph_input(g, 1, &v), QRT_INVALID_ARGUMENT);
  size_t index = 9;
  EXPECT_EQ(qrt_graph_find_output(g, "y", &index), QRT_OK);
  EXPECT_EQ(index, 0u);
  EXPECT_EQ(qrt_graph_find_input(g, "nope", &index), QRT_NOT_FOUND);
  EXPECT_EQ(qrt_graph_node_count(g), 9u);

  qrt_model* model = nullptr;
  ASSERT_EQ(qrt_model_compile(g, nullptr, &model), QRT_OK) << qrt_last_error();
  qrt_graph_destroy(g);  // the model holds its own copy
  const qrt_graph* opt = qrt_model_graph(model);
  ASSERT_EQ(qrt_graph_node_count(opt), 3u);
  int fused = 0;
  for (size_t i = 0; i < qrt_graph_node_count(opt); ++i) {
    qrt_node_info n;
    ASSERT_EQ(qrt_graph_node(opt, i, &n), QRT_OK);
    if (std::strcmp(n.domain, "qrt") == 0) {
      ++fused;
      EXPECT_TRUE(std::strcmp(n.op_type, "QuantizedMul") == 0 || std::strcmp(n.op_type, "QuantizedAdd") == 0);
      EXPECT_GE(n.input_count, 2u);
      EXPECT_EQ(n.output_count, 1u);
    }
  }
  EXPECT_EQ(fused, 2);
  int64_t rewrites_total = 0;
  for (size_t i = 0; i < qrt_model_pass_count(model); ++i) {
    const char* name = nullptr;
    int64_t n = 0;
    ASSERT_EQ(qrt_model_pass(model, i, &name, &n), QRT_OK);
    ASSERT_NE(name, nullptr);
    rewrites_total += n;
  }
  EXPECT_GE(rewrites_total, 2);
  qrt_model_destroy(model);
}

TEST(CApi, TensorFiles) {
  qrt::testing::TempDir tmp;
  const int64_t dims[] = {2, 3};
  qrt_tensor* t = nullptr;
  ASSERT_EQ(qrt_tensor_create(QRT_INT16, 2, dims, &t), QRT_OK);
  int16_t* p = static_cast<int16_t*>(qrt_tensor_data(t));
  for (int i = 0; i < 6; ++i) p[i] = int16_t(i * 1000 - 2500);
  const std::string path = tmp.path() + "/t.npy";
  const qrt_tensor_view v = qrt_tensor_get_view(t);
  ASSERT_EQ(qrt_tensor_write_npy(path.c_str(), &v), QRT_OK);
  qrt_tensor* back = nullptr;
  ASSERT_EQ(qrt_tensor_read_file(path.c_str(), &back), QRT_OK) << qrt_last_error();
  ExpectSameBytes(qrt_tensor_get_view(back), v);
  qrt_tensor* bad = nullptr;
  EXPECT_EQ(qrt_tensor_read_file((tmp.path() + "/t.txt").c_str(), &bad), QRT_INVALID_ARGUMENT);
  EXPECT_EQ(bad, nullptr);
  const int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 40};
  qrt_tensor* too_big = nullptr;
  EXPECT_EQ(qrt_tensor_create(QRT_FLOAT32, 2, huge, &too_big), QRT_RESOURCE_EXHAUSTED);
  EXPECT_EQ(too_big, nullptr);
  qrt_tensor_destroy(back);
  qrt_tensor_destroy(t);
}

}  // namespace
