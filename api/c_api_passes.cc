// C API: passes and user patterns on a graph, explanations, attributes, pictures.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "api/c_api_objects.h"
#include "api/explain_text.h"
#include "api/graph_html.h"
#include "loaders/model_io.h"
#include "passes/pass_manager.h"
#include "passes/user_patterns.h"

namespace qrt::capi {

Status PassAt(const PassStats& stats, size_t index, const char** name, int64_t* rewrites) {
  if (index >= stats.size())
    return InvalidArgument("pass index ", index, " out of range: ", stats.size(), " passes ran");
  if (name) *name = stats[index].first.c_str();
  if (rewrites) *rewrites = stats[index].second;
  return Status::Ok();
}

Status ExplanationAt(const Explanations& all, size_t index, qrt_explanation* out) {
  if (out == nullptr) return InvalidArgument("explanation: out is NULL");
  if (index >= all.size()) return InvalidArgument("explanation index ", index, " out of range: ", all.size());
  const Explanation& e = all[index];
  *out = qrt_explanation{e.pass.c_str(), e.pattern.c_str(),   e.node.c_str(),
                         e.op.c_str(),   e.rewritten ? 1 : 0, e.reason.c_str()};
  return Status::Ok();
}

char* NewCString(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p == nullptr) throw std::bad_alloc();  // Guard turns it into QRT_RESOURCE_EXHAUSTED
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

}  // namespace qrt::capi

namespace {

using qrt::capi::Guard;
using qrt::capi::NewCString;

qrt::Status DimSymbol(const std::vector<std::vector<std::string>>& table, size_t index, int32_t dim, const char* what,
                      const char** out) {
  if (out == nullptr) return qrt::InvalidArgument("qrt_graph_", what, "_dim_symbol: out is NULL");
  if (index >= table.size()) return qrt::InvalidArgument(what, " index ", index, " out of range: ", table.size());
  if (dim < 0 || size_t(dim) >= table[index].size()) {
    return qrt::InvalidArgument(what, " ", index, ": dimension ", dim, " out of range: rank ", table[index].size());
  }
  *out = table[index][size_t(dim)].c_str();
  return qrt::Status::Ok();
}

qrt::Status CheckOut(const void* a, char** out, const char* fn) {
  if (out == nullptr) return qrt::InvalidArgument(fn, ": out is NULL");
  *out = nullptr;
  if (a == nullptr) return qrt::InvalidArgument(fn, ": NULL argument");
  return qrt::Status::Ok();
}

}  // namespace

extern "C" {

void qrt_string_free(char* s) { std::free(s); }

qrt_status qrt_graph_input_dim_symbol(const qrt_graph* graph, size_t index, int32_t dim, const char** out) {
  return Guard([&] {
    return graph ? DimSymbol(graph->input_symbols, index, dim, "input", out)
                 : qrt::InvalidArgument("qrt_graph_input_dim_symbol: graph is NULL");
  });
}

qrt_status qrt_graph_output_dim_symbol(const qrt_graph* graph, size_t index, int32_t dim, const char** out) {
  return Guard([&] {
    return graph ? DimSymbol(graph->output_symbols, index, dim, "output", out)
                 : qrt::InvalidArgument("qrt_graph_output_dim_symbol: graph is NULL");
  });
}

qrt_status qrt_graph_node_attributes_json(const qrt_graph* graph, size_t index, char** out) {
  return Guard([&]() -> qrt::Status {
    QRT_RETURN_IF_ERROR(CheckOut(graph, out, "qrt_graph_node_attributes_json"));
    if (index >= graph->nodes.size()) {
      return qrt::InvalidArgument("node index ", index, " out of range: the graph has ", graph->nodes.size(), " nodes");
    }
    QRT_ASSIGN_OR_RETURN(std::string text, qrt::AttributesToJson(graph->graph->node(graph->nodes[index].id).attrs));
    *out = NewCString(text);
    return qrt::Status::Ok();
  });
}

qrt_status qrt_graph_copy(const qrt_graph* graph, qrt_graph** out) {
  return Guard([&]() -> qrt::Status {
    if (graph == nullptr || out == nullptr) return qrt::InvalidArgument("qrt_graph_copy: NULL argument");
    *out = nullptr;
    auto copy = std::make_unique<qrt_graph>(std::make_shared<const qrt::Graph>(*graph->graph));
    copy->passes = graph->passes;
    copy->explanations = graph->explanations;
    *out = copy.release();
    return qrt::Status::Ok();
  });
}

qrt_status qrt_graph_apply_passes(const qrt_graph* graph, const qrt_options* options, qrt_graph** out) {
  return Guard([&]() -> qrt::Status {
    if (graph == nullptr || out == nullptr) return qrt::InvalidArgument("qrt_graph_apply_passes: NULL argument");
    *out = nullptr;
    const qrt_options defaults;
    const qrt::CompileOptions& o = (options ? *options : defaults).compile;
    qrt::Graph g = *graph->graph;
    QRT_RETURN_IF_ERROR(g.Validate());
    qrt::PassStats stats;
    qrt::Explanations explanations;
    QRT_RETURN_IF_ERROR(qrt::RunPasses(g, o.passes, true, &stats, &explanations, o.patterns));
    auto result = std::make_unique<qrt_graph>(std::make_shared<const qrt::Graph>(std::move(g)));
    result->passes = std::move(stats);
    result->explanations = std::move(explanations);
    *out = result.release();
    return qrt::Status::Ok();
  });
}

size_t qrt_graph_pass_count(const qrt_graph* graph) { return graph ? graph->passes.size() : 0; }

qrt_status qrt_graph_pass(const qrt_graph* graph, size_t index, const char** name, int64_t* rewrites) {
  return Guard([&]() -> qrt::Status {
    if (graph == nullptr) return qrt::InvalidArgument("qrt_graph_pass: graph is NULL");
    return qrt::capi::PassAt(graph->passes, index, name, rewrites);
  });
}

size_t qrt_graph_explanation_count(const qrt_graph* graph) { return graph ? graph->explanations.size() : 0; }

qrt_status qrt_graph_explanation(const qrt_graph* graph, size_t index, qrt_explanation* out) {
  return Guard([&]() -> qrt::Status {
    if (graph == nullptr) return qrt::InvalidArgument("qrt_graph_explanation: graph is NULL");
    return qrt::capi::ExplanationAt(graph->explanations, index, out);
  });
}

qrt_status qrt_model_explain_text(const qrt_model* model, char** out) {
  return Guard([&]() -> qrt::Status {
    QRT_RETURN_IF_ERROR(CheckOut(model, out, "qrt_model_explain_text"));
    *out = NewCString(qrt::ExplanationsText(model->model->explanations()));
    return qrt::Status::Ok();
  });
}

qrt_status qrt_graph_explain_text(const qrt_graph* graph, char** out) {
  return Guard([&]() -> qrt::Status {
    QRT_RETURN_IF_ERROR(CheckOut(graph, out, "qrt_graph_explain_text"));
    *out = NewCString(qrt::ExplanationsText(graph->explanations));
    return qrt::Status::Ok();
  });
}

qrt_status qrt_options_add_patterns(qrt_options* options, const char* json_text, const char* source) {
  return Guard([&]() -> qrt::Status {
    if (options == nullptr || json_text == nullptr)
      return qrt::InvalidArgument("qrt_options_add_patterns: NULL argument");
    QRT_ASSIGN_OR_RETURN(auto set, qrt::ParseUserPatterns(json_text, source ? source : "<patterns>"));
    options->compile.patterns.push_back(std::move(set));
    return qrt::Status::Ok();
  });
}

qrt_status qrt_options_add_patterns_file(qrt_options* options, const char* path) {
  return Guard([&]() -> qrt::Status {
    if (options == nullptr || path == nullptr)
      return qrt::InvalidArgument("qrt_options_add_patterns_file: NULL argument");
    QRT_ASSIGN_OR_RETURN(auto set, qrt::LoadUserPatternFile(path));
    options->compile.patterns.push_back(std::move(set));
    return qrt::Status::Ok();
  });
}

qrt_status qrt_graph_to_html(const qrt_graph* before, const qrt_graph* after, const char* title, size_t profile_count,
                             const char* const* profile_nodes, const double* profile_us, char** out) {
  return Guard([&]() -> qrt::Status {
    QRT_RETURN_IF_ERROR(CheckOut(before, out, "qrt_graph_to_html"));
    if (after == nullptr) return qrt::InvalidArgument("qrt_graph_to_html: after is NULL");
    if (profile_count > 0 && (profile_nodes == nullptr || profile_us == nullptr))
      return qrt::InvalidArgument("qrt_graph_to_html: profile arrays are NULL");
    std::vector<qrt::HtmlNodeTime> profile;
    for (size_t i = 0; i < profile_count; ++i) {
      if (profile_nodes[i] == nullptr) return qrt::InvalidArgument("qrt_graph_to_html: profile node ", i, " is NULL");
      profile.push_back({profile_nodes[i], profile_us[i]});
    }
    *out = NewCString(qrt::GraphsToHtml(*before->graph, *after->graph, title ? title : "", profile));
    return qrt::Status::Ok();
  });
}

}  // extern "C"
