// qrt's C++17 API: a header-only wrapper over the C API in qrt.h.
//
// Objects own their C handle (move-only, RAII). Fallible calls return Status or
// Result<T>; nothing throws unless you ask: Result<T>::value() and
// Status::ThrowIfError() throw qrt::api::Error when exceptions are enabled, and abort
// when the code is built without them (check ok() first there).
//
//   auto model = qrt::api::Model::Load("net.onnx").value();
//   auto ctx = qrt::api::Context::Create(model).value();
//   ctx.BindInput(0, pixels, {1, 224, 224, 3}).ThrowIfError();
//   ctx.Run().ThrowIfError();
//   qrt::api::TensorView out = ctx.Output(0).value();
//   for (float p : out.data<float>()) ...
//
// Thread safety is the C API's: a Model may be shared by threads, a Context is used
// by one thread at a time.
#ifndef QRT_QRT_HPP_
#define QRT_QRT_HPP_

#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "qrt/qrt.h"

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#include <stdexcept>
#define QRT_API_EXCEPTIONS 1
#else
#define QRT_API_EXCEPTIONS 0
#endif

namespace qrt::api {

// A non-owning view of `size` contiguous elements (std::span is C++20).
template <class T>
class Span {
 public:
  constexpr Span() = default;
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  template <class C, class = decltype(std::declval<C&>().data())>
  constexpr Span(C& c) : data_(c.data()), size_(c.size()) {}  // NOLINT: implicit like std::span
  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }
  constexpr T& operator[](size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

// The qrt_dtype of a C++ element type.
template <class T>
constexpr qrt_dtype DtypeOf();
template <>
constexpr qrt_dtype DtypeOf<float>() {
  return QRT_FLOAT32;
}
template <>
constexpr qrt_dtype DtypeOf<double>() {
  return QRT_FLOAT64;
}
template <>
constexpr qrt_dtype DtypeOf<uint8_t>() {
  return QRT_UINT8;
}
template <>
constexpr qrt_dtype DtypeOf<int8_t>() {
  return QRT_INT8;
}
template <>
constexpr qrt_dtype DtypeOf<uint16_t>() {
  return QRT_UINT16;
}
template <>
constexpr qrt_dtype DtypeOf<int16_t>() {
  return QRT_INT16;
}
template <>
constexpr qrt_dtype DtypeOf<int32_t>() {
  return QRT_INT32;
}
template <>
constexpr qrt_dtype DtypeOf<int64_t>() {
  return QRT_INT64;
}
template <>
constexpr qrt_dtype DtypeOf<bool>() {
  return QRT_BOOL;
}

#if QRT_API_EXCEPTIONS
class Error : public std::runtime_error {
 public:
  Error(qrt_status code, const std::string& message) : std::runtime_error(message), code_(code) {}
  qrt_status code() const { return code_; }

 private:
  qrt_status code_;
};
#endif

class Status {
 public:
  Status() = default;
  Status(qrt_status code, std::string message) : code_(code), message_(std::move(message)) {}
  // The status of a C call that just returned `code`, with this thread's message.
  static Status FromC(qrt_status code) { return code == QRT_OK ? Status() : Status(code, qrt_last_error()); }

  bool ok() const { return code_ == QRT_OK; }
  qrt_status code() const { return code_; }
  const std::string& message() const { return message_; }
  void ThrowIfError() const {
    if (ok()) return;
#if QRT_API_EXCEPTIONS
    throw Error(code_, message_);
#else
    std::abort();
#endif
  }

 private:
  qrt_status code_ = QRT_OK;
  std::string message_;
};

// A value or the Status saying why there is none.
template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit, like absl::StatusOr
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & {
    status_.ThrowIfError();
    return value_;
  }
  T&& value() && {
    status_.ThrowIfError();
    return std::move(value_);
  }
  T* operator->() { return &value(); }
  T& operator*() { return value(); }

 private:
  Status status_;
  T value_{};
};

// A tensor someone else owns: an output of a run, or a Tensor's contents.
class TensorView {
 public:
  TensorView() = default;
  explicit TensorView(const qrt_tensor_view& v) : v_(v) {}
  // Views caller memory of element type T (for inputs).
  template <class T>
  static TensorView Of(const T* data, Span<const int64_t> shape) {
    size_t n = 1;
    for (int64_t d : shape) n *= size_t(d);
    return TensorView(qrt_tensor_view{DtypeOf<T>(), int32_t(shape.size()), shape.data(), data, n * sizeof(T)});
  }

  qrt_dtype dtype() const { return v_.dtype; }
  Span<const int64_t> shape() const { return {v_.dims, size_t(v_.rank)}; }
  size_t size_bytes() const { return v_.size_bytes; }
  size_t element_count() const { return v_.dtype == QRT_UNDEFINED ? 0 : v_.size_bytes / qrt_dtype_size(v_.dtype); }
  const void* raw() const { return v_.data; }
  // The elements as T; empty if T is not the tensor's dtype.
  template <class T>
  Span<const T> data() const {
    if (DtypeOf<T>() != v_.dtype) return {};
    return {static_cast<const T*>(v_.data), element_count()};
  }
  const qrt_tensor_view& c_view() const { return v_; }

 private:
  qrt_tensor_view v_{QRT_UNDEFINED, 0, nullptr, nullptr, 0};
};

namespace detail {
template <class Handle, void (*Destroy)(Handle*)>
struct Deleter {
  void operator()(Handle* h) const { Destroy(h); }
};
template <class Handle, void (*Destroy)(Handle*)>
using Owned = std::unique_ptr<Handle, Deleter<Handle, Destroy>>;
}  // namespace detail

// A tensor qrt allocated: read from a .npy/.pb file or made zero-filled.
class Tensor {
 public:
  static Result<Tensor> Read(const std::string& path) {
    qrt_tensor* t = nullptr;
    if (qrt_status s = qrt_tensor_read_file(path.c_str(), &t); s != QRT_OK) return Status::FromC(s);
    return Tensor(t);
  }
  static Result<Tensor> Zeros(qrt_dtype dtype, Span<const int64_t> shape) {
    qrt_tensor* t = nullptr;
    if (qrt_status s = qrt_tensor_create(dtype, int32_t(shape.size()), shape.data(), &t); s != QRT_OK) {
      return Status::FromC(s);
    }
    return Tensor(t);
  }
  Tensor() = default;

  TensorView view() const { return TensorView(qrt_tensor_get_view(t_.get())); }
  void* raw() { return qrt_tensor_data(t_.get()); }
  template <class T>
  Span<T> data() {
    if (DtypeOf<T>() != view().dtype()) return {};
    return {static_cast<T*>(raw()), view().element_count()};
  }

 private:
  explicit Tensor(qrt_tensor* t) : t_(t) {}
  detail::Owned<qrt_tensor, qrt_tensor_destroy> t_;
};

inline Status WriteNpy(const std::string& path, const TensorView& t) {
  return Status::FromC(qrt_tensor_write_npy(path.c_str(), &t.c_view()));
}

struct ValueInfo {
  std::string name;
  qrt_dtype dtype = QRT_UNDEFINED;
  bool has_shape = false;
  std::vector<int64_t> shape;        // -1 for a symbolic dimension
  std::vector<std::string> symbols;  // per dimension: its name when symbolic, else ""
};

struct NodeInfo {
  std::string name, domain, op_type;
  std::vector<std::string> inputs, outputs;  // "" for an omitted optional value
};

namespace detail {
// Takes a string qrt allocated: copies it out and frees it.
inline Result<std::string> TakeString(qrt_status s, char* text) {
  if (s != QRT_OK) return Status::FromC(s);
  std::string out = text ? text : "";
  qrt_string_free(text);
  return out;
}
}  // namespace detail

struct Options;

// A loaded model before compilation, or a view of a compiled model's optimized graph.
class Graph {
 public:
  static Result<Graph> Load(const std::string& path) {
    qrt_graph* g = nullptr;
    if (qrt_status s = qrt_graph_load_file(path.c_str(), &g); s != QRT_OK) return Status::FromC(s);
    return Graph(g, true);
  }
  static Result<Graph> LoadBuffer(const void* data, size_t size, qrt_format format = QRT_FORMAT_AUTO,
                                  const std::string& name = "<buffer>") {
    qrt_graph* g = nullptr;
    if (qrt_status s = qrt_graph_load_buffer(data, size, format, name.c_str(), &g); s != QRT_OK) {
      return Status::FromC(s);
    }
    return Graph(g, true);
  }
  Graph() = default;
  // A view of a graph someone else owns (see Model::graph()).
  static Graph View(const qrt_graph* g) { return Graph(const_cast<qrt_graph*>(g), false); }

  std::vector<ValueInfo> inputs() const { return Values(qrt_graph_input_count(g_.get()), qrt_graph_input); }
  std::vector<ValueInfo> outputs() const { return Values(qrt_graph_output_count(g_.get()), qrt_graph_output); }
  std::vector<NodeInfo> nodes() const {
    std::vector<NodeInfo> nodes;
    for (size_t i = 0; i < qrt_graph_node_count(g_.get()); ++i) {
      qrt_node_info n;
      if (qrt_graph_node(g_.get(), i, &n) != QRT_OK) break;
      nodes.push_back(NodeInfo{
          n.name, n.domain, n.op_type, {n.inputs, n.inputs + n.input_count}, {n.outputs, n.outputs + n.output_count}});
    }
    return nodes;
  }
  // Node `index`'s attributes as a JSON object's text (qrt_graph_node_attributes_json).
  Result<std::string> node_attributes_json(size_t index) const {
    char* text = nullptr;
    qrt_status s = qrt_graph_node_attributes_json(g_.get(), index, &text);
    return detail::TakeString(s, text);
  }
  // An independent, owned copy.
  Result<Graph> Copy() const {
    qrt_graph* g = nullptr;
    if (qrt_status s = qrt_graph_copy(g_.get(), &g); s != QRT_OK) return Status::FromC(s);
    return Graph(g, true);
  }
  // The graph the passes and patterns of `options` make of this one (defined after Options).
  Result<Graph> ApplyPasses(const Options& options) const;
  // For a graph ApplyPasses made: each pass's rewrites, and what each candidate became.
  std::vector<std::pair<std::string, int64_t>> passes() const {
    std::vector<std::pair<std::string, int64_t>> out;
    for (size_t i = 0; i < qrt_graph_pass_count(g_.get()); ++i) {
      const char* name = nullptr;
      int64_t n = 0;
      if (qrt_graph_pass(g_.get(), i, &name, &n) == QRT_OK) out.emplace_back(name, n);
    }
    return out;
  }
  std::vector<qrt_explanation> explanations() const {
    std::vector<qrt_explanation> out;
    for (size_t i = 0; i < qrt_graph_explanation_count(g_.get()); ++i) {
      qrt_explanation e{};
      if (qrt_graph_explanation(g_.get(), i, &e) == QRT_OK) out.push_back(e);
    }
    return out;
  }
  Result<std::string> ExplainText() const {
    char* text = nullptr;
    qrt_status s = qrt_graph_explain_text(g_.get(), &text);
    return detail::TakeString(s, text);
  }
  // The HTML page of `before` and `after` side by side (qrt_graph_to_html); `profile` gives
  // microseconds per node of `after`, or is empty.
  static Result<std::string> ToHtml(const Graph& before, const Graph& after, const std::string& title,
                                    const std::vector<std::pair<std::string, double>>& profile = {}) {
    std::vector<const char*> names;
    std::vector<double> us;
    for (const auto& [name, t] : profile) {
      names.push_back(name.c_str());
      us.push_back(t);
    }
    char* text = nullptr;
    qrt_status s = qrt_graph_to_html(before.c_graph(), after.c_graph(), title.c_str(), names.size(), names.data(),
                                     us.data(), &text);
    return detail::TakeString(s, text);
  }
  Result<size_t> input_index(const std::string& name) const { return Find(qrt_graph_find_input, name); }
  Result<size_t> output_index(const std::string& name) const { return Find(qrt_graph_find_output, name); }
  Status Save(const std::string& path) const { return Status::FromC(qrt_graph_save(g_.get(), path.c_str())); }
  const qrt_graph* c_graph() const { return g_.get(); }

 private:
  Graph(qrt_graph* g, bool owned)
      : g_(
            g, owned ? qrt_graph_destroy : [](qrt_graph*) {}) {}
  using Getter = qrt_status (*)(const qrt_graph*, size_t, qrt_value_info*);
  using SymbolGetter = qrt_status (*)(const qrt_graph*, size_t, int32_t, const char**);
  std::vector<ValueInfo> Values(size_t n, Getter get) const {
    const SymbolGetter symbol = get == qrt_graph_input ? qrt_graph_input_dim_symbol : qrt_graph_output_dim_symbol;
    std::vector<ValueInfo> out;
    for (size_t i = 0; i < n; ++i) {
      qrt_value_info v;
      if (get(g_.get(), i, &v) != QRT_OK) break;
      ValueInfo info{v.name, v.dtype, v.rank >= 0, {}, {}};
      if (v.rank > 0) info.shape.assign(v.dims, v.dims + v.rank);
      for (int32_t d = 0; d < v.rank; ++d) {
        const char* name = "";
        info.symbols.push_back(symbol(g_.get(), i, d, &name) == QRT_OK ? name : "");
      }
      out.push_back(std::move(info));
    }
    return out;
  }
  using Finder = qrt_status (*)(const qrt_graph*, const char*, size_t*);
  Result<size_t> Find(Finder find, const std::string& name) const {
    size_t index = 0;
    if (qrt_status s = find(g_.get(), name.c_str(), &index); s != QRT_OK) return Status::FromC(s);
    return index;
  }
  std::shared_ptr<qrt_graph> g_;
};

struct Options {
  std::string passes = "default";  // "default", "none" or a comma-separated list of pass names
  std::string isa = "auto";        // a ceiling: "auto", "scalar", "avx2", "avx2-vnni", "avx512", "avx512-vnni"
  int threads = 1;
  uint64_t memory_limit = 0;               // bytes of activation memory a run may take; 0: no limit
  std::string conv_algorithm = "auto";     // qrt_options_set_conv_algorithm
  std::vector<std::string> pattern_files;  // user pattern files (docs/patterns.md)
  std::vector<std::string> pattern_texts;  // user patterns as JSON text
  // What names pattern_texts[i] in errors (a file it came from, say); absent or empty: "<patterns>".
  std::vector<std::string> pattern_sources;
};

namespace detail {
// A C options object holding `options`.
inline Result<std::shared_ptr<qrt_options>> MakeOptions(const Options& options) {
  qrt_options* o = nullptr;
  if (qrt_status s = qrt_options_create(&o); s != QRT_OK) return Status::FromC(s);
  std::shared_ptr<qrt_options> owned(o, qrt_options_destroy);
  qrt_status s = qrt_options_set_passes(o, options.passes.c_str());
  if (s == QRT_OK) s = qrt_options_set_isa(o, options.isa.c_str());
  if (s == QRT_OK) s = qrt_options_set_threads(o, options.threads);
  if (s == QRT_OK) s = qrt_options_set_memory_limit(o, options.memory_limit);
  if (s == QRT_OK) s = qrt_options_set_conv_algorithm(o, options.conv_algorithm.c_str());
  for (const std::string& f : options.pattern_files) {
    if (s == QRT_OK) s = qrt_options_add_patterns_file(o, f.c_str());
  }
  for (size_t i = 0; i < options.pattern_texts.size(); ++i) {
    const bool named = i < options.pattern_sources.size() && !options.pattern_sources[i].empty();
    if (s == QRT_OK)
      s = qrt_options_add_patterns(o, options.pattern_texts[i].c_str(),
                                   named ? options.pattern_sources[i].c_str() : nullptr);
  }
  if (s != QRT_OK) return Status::FromC(s);
  return owned;
}
}  // namespace detail

inline Result<Graph> Graph::ApplyPasses(const Options& options) const {
  Result<std::shared_ptr<qrt_options>> o = detail::MakeOptions(options);
  if (!o.ok()) return o.status();
  qrt_graph* g = nullptr;
  if (qrt_status s = qrt_graph_apply_passes(g_.get(), o.value().get(), &g); s != QRT_OK) return Status::FromC(s);
  return Graph(g, true);
}

// One step of a compiled model's plan (qrt_model_kernel).
struct KernelInfo {
  std::string node, domain, op, note, isa;
};

// A compiled model: immutable, shareable across threads (copies share one model).
class Model {
 public:
  static Result<Model> Compile(const Graph& graph, const Options& options = {}) {
    return Make(options, [&](const qrt_options* o, qrt_model** m) { return qrt_model_compile(graph.c_graph(), o, m); });
  }
  static Result<Model> Load(const std::string& path, const Options& options = {}) {
    return Make(options, [&](const qrt_options* o, qrt_model** m) { return qrt_model_load_file(path.c_str(), o, m); });
  }
  static Result<Model> LoadBuffer(const void* data, size_t size, const Options& options = {},
                                  qrt_format format = QRT_FORMAT_AUTO, const std::string& name = "<buffer>") {
    return Make(options, [&](const qrt_options* o, qrt_model** m) {
      return qrt_model_load_buffer(data, size, format, name.c_str(), o, m);
    });
  }
  Model() = default;

  // The optimized graph; the view keeps nothing alive, so keep the Model.
  Graph graph() const { return Graph::View(qrt_model_graph(m_.get())); }
  std::vector<std::pair<std::string, int64_t>> passes() const {
    std::vector<std::pair<std::string, int64_t>> out;
    for (size_t i = 0; i < qrt_model_pass_count(m_.get()); ++i) {
      const char* name = nullptr;
      int64_t n = 0;
      if (qrt_model_pass(m_.get(), i, &name, &n) == QRT_OK) out.emplace_back(name, n);
    }
    return out;
  }
  // What each pass's candidates became (qrt_model_explanation).
  std::vector<qrt_explanation> explanations() const {
    std::vector<qrt_explanation> out;
    for (size_t i = 0; i < qrt_model_explanation_count(m_.get()); ++i) {
      qrt_explanation e{};
      if (qrt_model_explanation(m_.get(), i, &e) == QRT_OK) out.push_back(e);
    }
    return out;
  }
  // What each step of the plan runs (qrt_model_kernel).
  std::vector<KernelInfo> kernels() const {
    std::vector<KernelInfo> out;
    for (size_t i = 0; i < qrt_model_kernel_count(m_.get()); ++i) {
      qrt_kernel_info k{};
      if (qrt_model_kernel(m_.get(), i, &k) == QRT_OK) out.push_back({k.node, k.domain, k.op, k.note, k.isa});
    }
    return out;
  }
  Result<std::string> ExplainText() const {
    char* text = nullptr;
    qrt_status s = qrt_model_explain_text(m_.get(), &text);
    return detail::TakeString(s, text);
  }
  std::string isa() const { return qrt_model_isa(m_.get()); }
  Status Save(const std::string& path) const { return Status::FromC(qrt_model_save(m_.get(), path.c_str())); }
  const qrt_model* c_model() const { return m_.get(); }

 private:
  template <class F>
  static Result<Model> Make(const Options& options, F make) {
    Result<std::shared_ptr<qrt_options>> o = detail::MakeOptions(options);
    if (!o.ok()) return o.status();
    qrt_model* m = nullptr;
    if (qrt_status s = make(o.value().get(), &m); s != QRT_OK) return Status::FromC(s);
    Model model;
    model.m_.reset(m, qrt_model_destroy);
    return model;
  }
  std::shared_ptr<qrt_model> m_;
};

// What one run needs. Use one per thread.
class Context {
 public:
  static Result<Context> Create(const Model& model) {
    qrt_context* c = nullptr;
    if (qrt_status s = qrt_context_create(model.c_model(), &c); s != QRT_OK) return Status::FromC(s);
    Context ctx;
    ctx.c_.reset(c);
    return ctx;
  }
  Context() = default;

  // Zero-copy: `t`'s memory must stay valid while runs use it.
  Status BindInput(size_t index, const TensorView& t) {
    const qrt_tensor_view& v = t.c_view();
    return Status::FromC(qrt_context_bind_input(c_.get(), index, v.dtype, v.rank, v.dims, v.data, v.size_bytes));
  }
  template <class T>
  Status BindInput(size_t index, const T* data, const std::vector<int64_t>& shape) {
    return BindInput(index, TensorView::Of(data, shape));
  }
  // Copies `t` into the context.
  Status SetInput(size_t index, const TensorView& t) {
    const qrt_tensor_view& v = t.c_view();
    return Status::FromC(qrt_context_set_input(c_.get(), index, v.dtype, v.rank, v.dims, v.data, v.size_bytes));
  }
  Status BindOutput(size_t index, void* data, size_t size_bytes) {
    return Status::FromC(qrt_context_bind_output(c_.get(), index, data, size_bytes));
  }
  Status Run() { return Status::FromC(qrt_context_run(c_.get())); }
  // Valid until the next Run.
  Result<TensorView> Output(size_t index) const {
    qrt_tensor_view v;
    if (qrt_status s = qrt_context_output(c_.get(), index, &v); s != QRT_OK) return Status::FromC(s);
    return TensorView(v);
  }
  uint64_t arena_bytes() const { return qrt_context_arena_bytes(c_.get()); }
  // Per-node timing: see qrt_context_set_profiling.
  Status SetProfiling(bool enabled) { return Status::FromC(qrt_context_set_profiling(c_.get(), enabled ? 1 : 0)); }
  std::vector<qrt_profile_entry> Profile() const {
    std::vector<qrt_profile_entry> entries;
    const size_t count = qrt_context_profile_count(c_.get());
    for (size_t i = 0; i < count; ++i) {
      qrt_profile_entry e;
      if (qrt_context_profile_entry(c_.get(), i, &e) != QRT_OK) break;
      entries.push_back(e);
    }
    return entries;
  }
  qrt_context* c_context() const { return c_.get(); }

 private:
  detail::Owned<qrt_context, qrt_context_destroy> c_;
};

}  // namespace qrt::api

#endif  // QRT_QRT_HPP_
