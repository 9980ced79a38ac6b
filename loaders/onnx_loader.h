// ONNX ModelProto -> Graph. The model file is untrusted: every failure is a Status
// naming the file, and the node where there is one.
#pragma once

#include <string>

#include "runtime/graph.h"

namespace qrt {

// Reads and converts an .onnx file; external data is resolved next to it.
StatusOr<Graph> LoadOnnxFile(const std::string& path);

// Converts a serialized model held in memory. `source` names it in errors;
// `model_dir` is where external data files are looked up; empty refuses external data.
StatusOr<Graph> LoadOnnxBuffer(const void* data, size_t size, const std::string& source, const std::string& model_dir);

// Lowest and highest ai.onnx opset qrt accepts.
inline constexpr int64_t kMinOnnxOpset = 1;
inline constexpr int64_t kMaxOnnxOpset = 21;

}  // namespace qrt
