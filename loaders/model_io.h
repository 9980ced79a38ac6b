// Loading and saving models by file extension: .onnx or .json.
#pragma once

#include <string>
#include <utility>
#include <vector>

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

// For the writers: each implicit input of `node` (see ImplicitInputNames) whose outer
// value no longer has the capture's name, because a pass rewired it, as a pair
// (capture name, outer value name). A writer defines the capture name with an Identity
// of the outer value before the node. Fails if the capture name now names another value.
StatusOr<std::vector<std::pair<std::string, std::string>>> RenamedCaptures(const Graph& graph, const Node& node);

// A node's attributes as one JSON object, in the form the JSON writer gives them.
StatusOr<std::string> AttributesToJson(const Attributes& attrs);

bool EndsWith(const std::string& s, const std::string& suffix);

}  // namespace qrt
