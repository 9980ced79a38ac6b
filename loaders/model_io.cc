#include "loaders/model_io.h"

#include <fstream>

#include "loaders/json_loader.h"
#include "loaders/onnx_loader.h"

namespace qrt {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

StatusOr<std::vector<std::pair<std::string, std::string>>> RenamedCaptures(const Graph& graph, const Node& node) {
  std::vector<std::pair<std::string, std::string>> renamed;
  const std::vector<std::string> names = ImplicitInputNames(node);
  if (names.size() > node.inputs.size()) {
    return Internal("node '", node.name, "' has ", node.inputs.size(), " inputs but its subgraphs capture ",
                    names.size(), " values");
  }
  const size_t first = node.inputs.size() - names.size();
  for (size_t k = 0; k < names.size(); ++k) {
    const ValueId outer = node.inputs[first + k];
    if (!outer.valid()) return Internal("node '", node.name, "': captured value '", names[k], "' is unbound");
    if (graph.value(outer).name == names[k]) continue;
    if (graph.FindValue(names[k]).valid()) {
      return Unsupported("node '", node.name, "': its subgraph reads '", names[k], "', now a different value than '",
                         graph.value(outer).name, "' it was bound to; the graph cannot be written");
    }
    renamed.emplace_back(names[k], graph.value(outer).name);
  }
  return renamed;
}

StatusOr<Graph> LoadModel(const std::string& path) {
  if (EndsWith(path, ".onnx")) return LoadOnnxFile(path);
  if (EndsWith(path, ".json")) return LoadJsonFile(path);
  return InvalidArgument(path, ": unknown model format (expected a .onnx or .json file)");
}

Status SaveModel(const Graph& graph, const std::string& path, const Plan* plan) {
  StatusOr<std::string> bytes =
      EndsWith(path, ".onnx") ? GraphToOnnx(graph, plan)
      : EndsWith(path, ".json")
          ? GraphToJson(graph, plan)
          : StatusOr<std::string>(InvalidArgument(path, ": unknown model format (expected .onnx or .json)"));
  if (!bytes.ok()) return bytes.status();
  std::ofstream f(path, std::ios::binary);
  if (!f) return IoError(path, ": cannot create file");
  f.write(bytes->data(), std::streamsize(bytes->size()));
  if (!f) return IoError(path, ": write failed");
  return Status::Ok();
}

}  // namespace qrt
