#include "tools/fuzz/fuzz_util.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "loaders/json_loader.h"
#include "loaders/model_io.h"
#include "loaders/onnx_loader.h"
#include "runtime/tensor.h"

namespace qrt::fuzz {
namespace {

std::string* g_dir = nullptr;

void RemoveDir() {
  if (g_dir) {
    std::error_code ec;
    std::filesystem::remove_all(*g_dir, ec);
  }
}

}  // namespace

void Setup() {
  SetMaxTensorBytes(kTensorBytes);
  if (g_dir) return;
  char tmpl[] = "/tmp/qrt_fuzz_XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    std::perror("mkdtemp");
    std::abort();
  }
  g_dir = new std::string(tmpl);
  std::vector<char> bytes(4096);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = char(i & 0xff);
  std::ofstream(*g_dir + "/data.bin", std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  std::ofstream(*g_dir + "/empty.bin", std::ios::binary);
  std::atexit(RemoveDir);
}

const std::string& DataDir() { return *g_dir; }

uint64_t Hash(const uint8_t* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

void RoundTrip(const Graph& graph) {
  StatusOr<std::string> onnx = GraphToOnnx(graph, nullptr);
  if (onnx.ok()) (void)LoadOnnxBuffer(onnx->data(), onnx->size(), "roundtrip.onnx", DataDir()).ok();
  StatusOr<std::string> json = GraphToJson(graph, nullptr);
  if (json.ok()) (void)LoadJsonText(*json, "roundtrip.json", DataDir()).ok();
}

}  // namespace qrt::fuzz
