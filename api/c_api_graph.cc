// C API: loading, inspecting and saving graphs; compile options.
#include <cstring>

#include "api/c_api_objects.h"
#include "loaders/json_loader.h"
#include "loaders/model_io.h"
#include "loaders/onnx_loader.h"
#include "ops/kernels/conv/conv_plan.h"
#include "runtime/cpu_features.h"

qrt_graph::qrt_graph(std::shared_ptr<const qrt::Graph> g) : graph(std::move(g)) {
  auto table = [&](qrt::ValueId id) {
    const qrt::Value& v = graph->value(id);
    ValueTable t{v.name, qrt::capi::ToCDtype(v.dtype), -1, {}};
    if (v.shape) {
      t.rank = int32_t(v.shape->size());
      for (const qrt::Dim& d : *v.shape) t.dims.push_back(d.is_static() ? d.value : -1);
    }
    return t;
  };
  auto symbols = [&](qrt::ValueId id) {
    std::vector<std::string> names;
    const qrt::Value& v = graph->value(id);
    if (v.shape)
      for (const qrt::Dim& d : *v.shape) names.push_back(d.is_static() ? "" : d.symbol);
    return names;
  };
  for (qrt::ValueId id : graph->inputs) {
    inputs.push_back(table(id));
    input_symbols.push_back(symbols(id));
  }
  for (qrt::ValueId id : graph->outputs) {
    outputs.push_back(table(id));
    output_symbols.push_back(symbols(id));
  }
  auto name_of = [&](qrt::ValueId id) { return id.valid() ? graph->value(id).name.c_str() : ""; };
  for (uint32_t i = 0; i < graph->num_nodes(); ++i) {
    const qrt::Node& n = graph->node(qrt::NodeId{i});
    if (n.dead) continue;
    NodeTable t{qrt::NodeId{i}, {}, {}};
    for (qrt::ValueId v : n.inputs) t.inputs.push_back(name_of(v));
    for (qrt::ValueId v : n.outputs) t.outputs.push_back(name_of(v));
    nodes.push_back(std::move(t));
  }
}

namespace {

using qrt::capi::Guard;

qrt::StatusOr<qrt::Graph> LoadBuffer(const void* data, size_t size, qrt_format format, const std::string& source) {
  if (data == nullptr && size != 0) return qrt::InvalidArgument(source, ": data is NULL");
  const char* bytes = static_cast<const char*>(data);
  if (format == QRT_FORMAT_AUTO) {
    size_t i = 0;
    while (i < size && std::strchr(" \t\r\n", bytes[i]) != nullptr && bytes[i] != '\0') ++i;
    format = i < size && bytes[i] == '{' ? QRT_FORMAT_JSON : QRT_FORMAT_ONNX;
  }
  // An empty folder: a model from memory may not refer to files.
  if (format == QRT_FORMAT_JSON) return qrt::LoadJsonText(std::string(bytes, size), source, "");
  if (format != QRT_FORMAT_ONNX) return qrt::InvalidArgument(source, ": unknown format code ", int(format));
  return qrt::LoadOnnxBuffer(data, size, source, "");
}

qrt::Status ValueInfo(const std::vector<qrt_graph::ValueTable>& table, size_t index, const char* what,
                      qrt_value_info* out) {
  if (out == nullptr) return qrt::InvalidArgument("qrt_graph_", what, ": out is NULL");
  if (index >= table.size()) {
    return qrt::InvalidArgument(what, " index ", index, " out of range: the graph has ", table.size(), " ", what, "s");
  }
  const qrt_graph::ValueTable& t = table[index];
  *out = qrt_value_info{t.name.c_str(), t.dtype, t.rank, t.dims.data()};
  return qrt::Status::Ok();
}

qrt::Status FindValue(const std::vector<qrt_graph::ValueTable>& table, const char* name, const char* what,
                      size_t* index) {
  if (name == nullptr || index == nullptr) return qrt::InvalidArgument("qrt_graph_find_", what, ": NULL argument");
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].name == name) {
      *index = i;
      return qrt::Status::Ok();
    }
  }
  return qrt::NotFound("the graph has no ", what, " named '", name, "'");
}

}  // namespace

extern "C" {

qrt_status qrt_graph_load_file(const char* path, qrt_graph** out) {
  return Guard([&]() -> qrt::Status {
    if (path == nullptr || out == nullptr) return qrt::InvalidArgument("qrt_graph_load_file: NULL argument");
    *out = nullptr;
    QRT_ASSIGN_OR_RETURN(qrt::Graph g, qrt::LoadModel(path));
    *out = new qrt_graph(std::make_shared<const qrt::Graph>(std::move(g)));
    return qrt::Status::Ok();
  });
}

qrt_status qrt_graph_load_buffer(const void* data, size_t size, qrt_format format, const char* name, qrt_graph** out) {
  return Guard([&]() -> qrt::Status {
    if (out == nullptr) return qrt::InvalidArgument("qrt_graph_load_buffer: out is NULL");
    *out = nullptr;
    QRT_ASSIGN_OR_RETURN(qrt::Graph g, LoadBuffer(data, size, format, name ? name : "<buffer>"));
    *out = new qrt_graph(std::make_shared<const qrt::Graph>(std::move(g)));
    return qrt::Status::Ok();
  });
}

void qrt_graph_destroy(qrt_graph* graph) { delete graph; }

size_t qrt_graph_input_count(const qrt_graph* graph) { return graph ? graph->inputs.size() : 0; }
size_t qrt_graph_output_count(const qrt_graph* graph) { return graph ? graph->outputs.size() : 0; }

qrt_status qrt_graph_input(const qrt_graph* graph, size_t index, qrt_value_info* out) {
  return Guard([&] {
    return graph ? ValueInfo(graph->inputs, index, "input", out)
                 : qrt::InvalidArgument("qrt_graph_input: graph is NULL");
  });
}

qrt_status qrt_graph_output(const qrt_graph* graph, size_t index, qrt_value_info* out) {
  return Guard([&] {
    return graph ? ValueInfo(graph->outputs, index, "output", out)
                 : qrt::InvalidArgument("qrt_graph_output: graph is NULL");
  });
}

qrt_status qrt_graph_find_input(const qrt_graph* graph, const char* name, size_t* index) {
  return Guard([&] {
    return graph ? FindValue(graph->inputs, name, "input", index)
                 : qrt::InvalidArgument("qrt_graph_find_input: graph is NULL");
  });
}

qrt_status qrt_graph_find_output(const qrt_graph* graph, const char* name, size_t* index) {
  return Guard([&] {
    return graph ? FindValue(graph->outputs, name, "output", index)
                 : qrt::InvalidArgument("qrt_graph_find_output: graph is NULL");
  });
}

size_t qrt_graph_node_count(const qrt_graph* graph) { return graph ? graph->nodes.size() : 0; }

qrt_status qrt_graph_node(const qrt_graph* graph, size_t index, qrt_node_info* out) {
  return Guard([&]() -> qrt::Status {
    if (graph == nullptr || out == nullptr) return qrt::InvalidArgument("qrt_graph_node: NULL argument");
    if (index >= graph->nodes.size()) {
      return qrt::InvalidArgument("node index ", index, " out of range: the graph has ", graph->nodes.size(), " nodes");
    }
    const qrt_graph::NodeTable& t = graph->nodes[index];
    const qrt::Node& n = graph->graph->node(t.id);
    *out = qrt_node_info{n.name.c_str(),  n.domain.c_str(), n.op_type.c_str(), t.inputs.size(),
                         t.inputs.data(), t.outputs.size(), t.outputs.data()};
    return qrt::Status::Ok();
  });
}

qrt_status qrt_graph_save(const qrt_graph* graph, const char* path) {
  return Guard([&]() -> qrt::Status {
    if (graph == nullptr || path == nullptr) return qrt::InvalidArgument("qrt_graph_save: NULL argument");
    return qrt::SaveModel(*graph->graph, path);
  });
}

qrt_status qrt_options_create(qrt_options** out) {
  return Guard([&]() -> qrt::Status {
    if (out == nullptr) return qrt::InvalidArgument("qrt_options_create: out is NULL");
    *out = new qrt_options();
    return qrt::Status::Ok();
  });
}

void qrt_options_destroy(qrt_options* options) { delete options; }

qrt_status qrt_options_set_passes(qrt_options* options, const char* passes) {
  return Guard([&]() -> qrt::Status {
    if (options == nullptr || passes == nullptr) return qrt::InvalidArgument("qrt_options_set_passes: NULL argument");
    options->compile.passes = passes;
    return qrt::Status::Ok();
  });
}

qrt_status qrt_options_set_isa(qrt_options* options, const char* isa) {
  return Guard([&]() -> qrt::Status {
    if (options == nullptr || isa == nullptr) return qrt::InvalidArgument("qrt_options_set_isa: NULL argument");
    const std::optional<qrt::Isa> tier = qrt::IsaFromName(isa);
    if (!tier)
      return qrt::InvalidArgument("ISA '", isa, "' is not scalar, avx2, avx2-vnni, avx512, avx512-vnni or auto");
    options->compile.max_isa = *tier;
    return qrt::Status::Ok();
  });
}

qrt_status qrt_options_set_threads(qrt_options* options, int threads) {
  return Guard([&]() -> qrt::Status {
    if (options == nullptr) return qrt::InvalidArgument("qrt_options_set_threads: options is NULL");
    if (threads < 1 || threads > 256) return qrt::InvalidArgument("threads must be within 1..256, not ", threads);
    options->compile.threads = threads;
    return qrt::Status::Ok();
  });
}

qrt_status qrt_options_set_conv_algorithm(qrt_options* options, const char* name) {
  return Guard([&]() -> qrt::Status {
    if (options == nullptr || name == nullptr)
      return qrt::InvalidArgument("qrt_options_set_conv_algorithm: NULL argument");
    if (!qrt::ParseConvAlgorithm(name)) return qrt::InvalidArgument("unknown conv algorithm '", name, "'");
    options->compile.conv_algorithm = std::string(name) == "auto" ? "" : name;
    return qrt::Status::Ok();
  });
}

qrt_status qrt_options_set_memory_limit(qrt_options* options, uint64_t bytes) {
  return Guard([&]() -> qrt::Status {
    if (options == nullptr) return qrt::InvalidArgument("qrt_options_set_memory_limit: options is NULL");
    options->compile.memory_limit = size_t(bytes);
    return qrt::Status::Ok();
  });
}

}  // extern "C"
