// The objects behind the C API's opaque handles, and the one way errors leave it.
#pragma once

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "qrt/qrt.h"
#include "runtime/graph.h"
#include "runtime/model.h"
#include "runtime/session.h"

// A graph, either owned (loaded) or a view of a compiled model's optimized graph.
// The C-string tables the introspection functions hand out are built once here, so
// they live exactly as long as the graph and reading them is thread-safe.
struct qrt_graph {
  explicit qrt_graph(std::shared_ptr<const qrt::Graph> g);

  std::shared_ptr<const qrt::Graph> graph;
  struct ValueTable {
    std::string name;
    qrt_dtype dtype;
    int32_t rank;
    std::vector<int64_t> dims;
  };
  std::vector<ValueTable> inputs, outputs;
  struct NodeTable {
    qrt::NodeId id;
    std::vector<const char*> inputs, outputs;
  };
  std::vector<NodeTable> nodes;                                         // live nodes, in graph order
  std::vector<std::vector<std::string>> input_symbols, output_symbols;  // "" for static/unnamed dims
  // For a graph qrt_graph_apply_passes made: what its passes did.
  qrt::PassStats passes;
  qrt::Explanations explanations;
};

struct qrt_options {
  qrt::CompileOptions compile;
};

struct qrt_model {
  std::shared_ptr<const qrt::CompiledModel> model;
  std::unique_ptr<qrt_graph> graph;  // view of model->graph()
};

struct qrt_context {
  explicit qrt_context(std::shared_ptr<const qrt::CompiledModel> m) : model(m), session(std::move(m)) {}

  std::shared_ptr<const qrt::CompiledModel> model;
  qrt::Session session;
  std::vector<qrt::Tensor> inputs;            // by graph-input index; undefined dtype = unbound
  std::vector<std::shared_ptr<void>> copies;  // storage of inputs given by qrt_context_set_input
  std::vector<qrt::Tensor> outputs;           // of the last successful run
  bool has_run = false;
};

struct qrt_tensor {
  qrt::Tensor tensor;
};

namespace qrt::capi {

// Records `s` as this thread's last error and returns its C status.
qrt_status Fail(const Status& s);
qrt_status ToCStatus(StatusCode code);

// Runs `body` (returning qrt::Status), turning any exception into an error: nothing
// may unwind through a C caller.
template <class F>
qrt_status Guard(F&& body) {
  try {
    Status s = body();
    return s.ok() ? QRT_OK : Fail(s);
  } catch (const std::bad_alloc&) {
    return Fail(ResourceExhausted("out of memory"));
  } catch (const std::exception& e) {
    return Fail(Internal("unexpected exception: ", e.what()));
  } catch (...) {
    return Fail(Internal("unexpected exception"));
  }
}

// qrt_dtype <-> DataType; an unknown code gives kUndefined.
DataType FromCDtype(qrt_dtype t);
qrt_dtype ToCDtype(DataType t);

// Checks (dtype, rank, dims, size) given by a caller and turns them into Dims.
StatusOr<Dims> CheckedDims(qrt_dtype dtype, int32_t rank, const int64_t* dims, const void* data, size_t size_bytes);

qrt_tensor_view ViewOf(const Tensor& t);

// Entry `index` of a pass report, for qrt_model_pass/qrt_graph_pass and the explanations.
Status PassAt(const PassStats& stats, size_t index, const char** name, int64_t* rewrites);
Status ExplanationAt(const Explanations& all, size_t index, qrt_explanation* out);

// A string the caller frees with qrt_string_free.
char* NewCString(const std::string& s);

}  // namespace qrt::capi
