// Seeds for the JSON targets: converts ONNX models to qrt JSON graphs, so the JSON
// corpora start from the same variety of ops as the ONNX ones.
//   make_json_seeds OUT_DIR MODEL.onnx...   (models that fail to load are skipped)
#include <cstdio>
#include <fstream>
#include <string>

#include "loaders/model_io.h"
#include "loaders/onnx_loader.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR MODEL.onnx...\n", argv[0]);
    return 2;
  }
  const std::string out_dir = argv[1];
  int written = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string path = argv[i];
    qrt::StatusOr<qrt::Graph> g = qrt::LoadOnnxFile(path);
    if (!g.ok()) continue;
    qrt::StatusOr<std::string> json = qrt::GraphToJson(*g, nullptr);
    if (!json.ok()) continue;
    // Distinct names for models that share a file name (test dirs hold model.onnx).
    std::string name = path;
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    std::ofstream(out_dir + "/" + name + ".json", std::ios::binary) << *json;
    ++written;
  }
  std::printf("make_json_seeds: %d of %d models converted\n", written, argc - 2);
  return 0;
}
