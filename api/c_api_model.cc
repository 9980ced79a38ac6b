// C API: compiled models and run contexts.
#include <cstdlib>
#include <cstring>

#include "api/c_api_objects.h"
#include "loaders/model_io.h"
#include "runtime/cpu_features.h"

namespace {

using qrt::capi::Guard;

qrt::Status CompileInto(const qrt::Graph& graph, const qrt_options* options, qrt_model** out) {
  const qrt_options defaults;
  const qrt_options& o = options ? *options : defaults;
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<const qrt::CompiledModel> compiled, qrt::Compile(graph, o.compile));
  auto model = std::make_unique<qrt_model>();
  // The graph view shares ownership of the compiled model, so it outlives nothing.
  model->graph = std::make_unique<qrt_graph>(std::shared_ptr<const qrt::Graph>(compiled, &compiled->graph()));
  model->model = std::move(compiled);
  *out = model.release();
  return qrt::Status::Ok();
}

// Binds input `index` of `ctx` to `data`: borrowed, or copied into storage the context owns.
qrt::Status BindInput(qrt_context* ctx, size_t index, qrt_dtype dtype, int32_t rank, const int64_t* dims,
                      const void* data, size_t size_bytes, bool copy) {
  if (ctx == nullptr) return qrt::InvalidArgument("context is NULL");
  const qrt::Graph& g = ctx->model->graph();
  const std::string where = g.source.empty() ? "model" : g.source;
  if (index >= g.inputs.size()) {
    return qrt::InvalidArgument(where, ": input index ", index, " out of range: the model has ", g.inputs.size(),
                                " inputs");
  }
  const std::string& name = g.value(g.inputs[index]).name;
  qrt::StatusOr<qrt::Dims> checked = qrt::capi::CheckedDims(dtype, rank, dims, data, size_bytes);
  if (!checked.ok()) return checked.status().WithContext(where + ": input '" + name + "'");
  qrt::Dims d = std::move(checked).value();
  const qrt::DataType t = qrt::capi::FromCDtype(dtype);
  QRT_RETURN_IF_ERROR(qrt::CheckInputMatches(g, index, t, d).WithContext(where));
  void* bytes = const_cast<void*>(data);  // inputs are only read
  if (copy) {
    void* p = std::aligned_alloc(64, (size_bytes + 63) / 64 * 64 + 64);
    if (p == nullptr)
      return qrt::ResourceExhausted(where, ": input '", name, "': cannot allocate ", size_bytes, " bytes");
    if (size_bytes != 0) std::memcpy(p, data, size_bytes);
    ctx->copies[index] = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
    bytes = p;
  } else {
    ctx->copies[index].reset();
  }
  ctx->inputs[index] = qrt::Tensor::Borrow(t, std::move(d), bytes);
  return qrt::Status::Ok();
}

}  // namespace

extern "C" {

qrt_status qrt_model_compile(const qrt_graph* graph, const qrt_options* options, qrt_model** out) {
  return Guard([&]() -> qrt::Status {
    if (graph == nullptr || out == nullptr) return qrt::InvalidArgument("qrt_model_compile: NULL argument");
    *out = nullptr;
    return CompileInto(*graph->graph, options, out);
  });
}

qrt_status qrt_model_load_file(const char* path, const qrt_options* options, qrt_model** out) {
  if (out != nullptr) *out = nullptr;
  qrt_graph* graph = nullptr;
  qrt_status s = qrt_graph_load_file(path, &graph);
  if (s == QRT_OK) s = qrt_model_compile(graph, options, out);
  qrt_graph_destroy(graph);
  return s;
}

qrt_status qrt_model_load_buffer(const void* data, size_t size, qrt_format format, const char* name,
                                 const qrt_options* options, qrt_model** out) {
  if (out != nullptr) *out = nullptr;
  qrt_graph* graph = nullptr;
  qrt_status s = qrt_graph_load_buffer(data, size, format, name, &graph);
  if (s == QRT_OK) s = qrt_model_compile(graph, options, out);
  qrt_graph_destroy(graph);
  return s;
}

void qrt_model_destroy(qrt_model* model) { delete model; }

const qrt_graph* qrt_model_graph(const qrt_model* model) { return model ? model->graph.get() : nullptr; }

size_t qrt_model_pass_count(const qrt_model* model) { return model ? model->model->pass_stats().size() : 0; }

qrt_status qrt_model_pass(const qrt_model* model, size_t index, const char** name, int64_t* rewrites) {
  return Guard([&]() -> qrt::Status {
    if (model == nullptr) return qrt::InvalidArgument("qrt_model_pass: model is NULL");
    return qrt::capi::PassAt(model->model->pass_stats(), index, name, rewrites);
  });
}

size_t qrt_model_explanation_count(const qrt_model* model) { return model ? model->model->explanations().size() : 0; }

qrt_status qrt_model_explanation(const qrt_model* model, size_t index, qrt_explanation* out) {
  return Guard([&]() -> qrt::Status {
    if (model == nullptr) return qrt::InvalidArgument("qrt_model_explanation: model is NULL");
    return qrt::capi::ExplanationAt(model->model->explanations(), index, out);
  });
}

size_t qrt_model_kernel_count(const qrt_model* model) {
  return model && model->model->default_plan() ? model->model->default_plan()->steps.size() : 0;
}

qrt_status qrt_model_kernel(const qrt_model* model, size_t index, qrt_kernel_info* out) {
  return Guard([&]() -> qrt::Status {
    if (model == nullptr || out == nullptr) return qrt::InvalidArgument("qrt_model_kernel: NULL argument");
    const size_t count = qrt_model_kernel_count(model);
    if (index >= count) return qrt::InvalidArgument("kernel index ", index, " out of range: ", count);
    const qrt::PlanStep& step = model->model->default_plan()->steps[index];
    const qrt::Node& node = model->model->graph().node(step.node);
    *out = qrt_kernel_info{node.name.c_str(), node.domain.c_str(), node.op_type.c_str(), step.note.c_str(),
                           qrt::IsaName(step.isa).data()};
    return qrt::Status::Ok();
  });
}

const char* qrt_model_isa(const qrt_model* model) {
  return model ? qrt::IsaName(model->model->plan_options().isa).data() : "";
}

qrt_status qrt_model_save(const qrt_model* model, const char* path) {
  return Guard([&]() -> qrt::Status {
    if (model == nullptr || path == nullptr) return qrt::InvalidArgument("qrt_model_save: NULL argument");
    return qrt::SaveModel(model->model->graph(), path, model->model->default_plan().get());
  });
}

qrt_status qrt_context_create(const qrt_model* model, qrt_context** out) {
  return Guard([&]() -> qrt::Status {
    if (model == nullptr || out == nullptr) return qrt::InvalidArgument("qrt_context_create: NULL argument");
    *out = nullptr;
    auto ctx = std::make_unique<qrt_context>(model->model);
    const size_t n = model->model->graph().inputs.size();
    ctx->inputs.resize(n);
    ctx->copies.resize(n);
    *out = ctx.release();
    return qrt::Status::Ok();
  });
}

void qrt_context_destroy(qrt_context* context) { delete context; }

qrt_status qrt_context_bind_input(qrt_context* context, size_t index, qrt_dtype dtype, int32_t rank,
                                  const int64_t* dims, const void* data, size_t size_bytes) {
  return Guard([&] { return BindInput(context, index, dtype, rank, dims, data, size_bytes, false); });
}

qrt_status qrt_context_set_input(qrt_context* context, size_t index, qrt_dtype dtype, int32_t rank, const int64_t* dims,
                                 const void* data, size_t size_bytes) {
  return Guard([&] { return BindInput(context, index, dtype, rank, dims, data, size_bytes, true); });
}

qrt_status qrt_context_bind_output(qrt_context* context, size_t index, void* data, size_t size_bytes) {
  return Guard([&]() -> qrt::Status {
    if (context == nullptr) return qrt::InvalidArgument("qrt_context_bind_output: context is NULL");
    return context->session.SetOutputBuffer(index, data, size_bytes);
  });
}

qrt_status qrt_context_run(qrt_context* context) {
  return Guard([&]() -> qrt::Status {
    if (context == nullptr) return qrt::InvalidArgument("qrt_context_run: context is NULL");
    context->has_run = false;
    const qrt::Graph& g = context->model->graph();
    for (size_t i = 0; i < context->inputs.size(); ++i) {
      if (context->inputs[i].dtype() == qrt::DataType::kUndefined) {
        return qrt::InvalidArgument(g.source.empty() ? "model" : g.source, ": input '", g.value(g.inputs[i]).name,
                                    "' is not bound");
      }
    }
    QRT_RETURN_IF_ERROR(context->session.Run(context->inputs, &context->outputs));
    context->has_run = true;
    return qrt::Status::Ok();
  });
}

qrt_status qrt_context_output(const qrt_context* context, size_t index, qrt_tensor_view* out) {
  return Guard([&]() -> qrt::Status {
    if (context == nullptr || out == nullptr) return qrt::InvalidArgument("qrt_context_output: NULL argument");
    if (!context->has_run) return qrt::InvalidArgument("qrt_context_output: no successful run yet");
    if (index >= context->outputs.size()) {
      return qrt::InvalidArgument("output index ", index, " out of range: the model has ", context->outputs.size(),
                                  " outputs");
    }
    *out = qrt::capi::ViewOf(context->outputs[index]);
    return qrt::Status::Ok();
  });
}

uint64_t qrt_context_arena_bytes(const qrt_context* context) {
  return context ? uint64_t(context->session.arena_bytes()) : 0;
}

qrt_status qrt_context_set_profiling(qrt_context* context, int enabled) {
  return Guard([&]() -> qrt::Status {
    if (context == nullptr) return qrt::InvalidArgument("qrt_context_set_profiling: context is NULL");
    context->session.SetProfiling(enabled != 0);
    return qrt::Status::Ok();
  });
}

size_t qrt_context_profile_count(const qrt_context* context) {
  return context ? context->session.step_times().size() : 0;
}

qrt_status qrt_context_profile_entry(const qrt_context* context, size_t index, qrt_profile_entry* out) {
  return Guard([&]() -> qrt::Status {
    if (context == nullptr || out == nullptr) return qrt::InvalidArgument("qrt_context_profile_entry: NULL argument");
    const auto& times = context->session.step_times();
    if (index >= times.size()) {
      return qrt::InvalidArgument("profile entry ", index, " out of range: there are ", times.size());
    }
    const qrt::Node& n = context->model->graph().node(times[index].node);
    *out = qrt_profile_entry{n.name.c_str(), n.domain.c_str(), n.op_type.c_str(), times[index].total_ns,
                             context->session.profiled_runs()};
    return qrt::Status::Ok();
  });
}

}  // extern "C"
