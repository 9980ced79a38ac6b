// The JSON-only build (QRT_WITH_ONNX=OFF, no protobuf): the ONNX entry points exist
// and refuse, so callers need no build switches of their own.
#include "loaders/model_io.h"
#include "loaders/onnx_loader.h"

namespace qrt {
namespace {
constexpr char kLeftOut[] = "this build of qrt leaves out the ONNX loader and writer (JSON models only)";
}  // namespace

StatusOr<Graph> LoadOnnxFile(const std::string& path) { return Unsupported(path, ": ", kLeftOut); }

StatusOr<Graph> LoadOnnxBuffer(const void*, size_t, const std::string& source, const std::string&) {
  return Unsupported(source, ": ", kLeftOut);
}

StatusOr<std::string> GraphToOnnx(const Graph&, const Plan*) { return Unsupported(kLeftOut); }

}  // namespace qrt
