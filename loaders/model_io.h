// Loading and saving models by file extension: .onnx or .json.
#pragma once

#include <string>

#include "runtime/graph.h"
#include "runtime/plan.h"

namespace qrt {

// Loads `path` with the loader its extension names.
StatusOr<Graph> LoadModel(const std::string& path);

// Writes `graph` to `path` as ONNX or JSON (by extension). When `plan` is given,
// output dtypes and shapes are taken from it where the graph does not declare them.
Status SaveModel(const Graph& graph, const std::string& path, const Plan* plan = nullptr);

// The two writers, for callers that choose the format themselves.
StatusOr<std::string> GraphToJson(const Graph& graph, const Plan* plan);
StatusOr<std::string> GraphToOnnx(const Graph& graph, const Plan* plan);

bool EndsWith(const std::string& s, const std::string& suffix);

}  // namespace qrt
