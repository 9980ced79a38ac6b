#include "loaders/model_io.h"

#include <fstream>

#include "loaders/json_loader.h"
#include "loaders/onnx_loader.h"

namespace qrt {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

StatusOr<Graph> LoadModel(const std::string& path) {
  if (EndsWith(path, ".onnx")) return LoadOnnxFile(path);
  if (EndsWith(path, ".json")) return LoadJsonFile(path);
  return InvalidArgument(path, ": unknown model format (expected a .onnx or .json file)");
}

Status SaveModel(const Graph& graph, const std::string& path, const Plan* plan) {
  StatusOr<std::string> bytes = EndsWith(path, ".onnx")   ? GraphToOnnx(graph, plan)
                                : EndsWith(path, ".json") ? GraphToJson(graph, plan)
                                                          : StatusOr<std::string>(InvalidArgument(
                                                                path, ": unknown model format (expected .onnx or .json)"));
  if (!bytes.ok()) return bytes.status();
  std::ofstream f(path, std::ios::binary);
  if (!f) return IoError(path, ": cannot create file");
  f.write(bytes->data(), std::streamsize(bytes->size()));
  if (!f) return IoError(path, ": write failed");
  return Status::Ok();
}

}  // namespace qrt
