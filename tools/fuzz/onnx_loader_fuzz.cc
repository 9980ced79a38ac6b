// libFuzzer target: the ONNX loader on arbitrary bytes (a serialized ModelProto), then
// the writers on whatever it accepts. External data resolves in fuzz::DataDir().
#include <cstddef>
#include <cstdint>

#include "loaders/onnx_loader.h"
#include "tools/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  qrt::fuzz::Setup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  qrt::StatusOr<qrt::Graph> g = qrt::LoadOnnxBuffer(data, size, "fuzz.onnx", qrt::fuzz::DataDir());
  if (g.ok()) qrt::fuzz::RoundTrip(*g);
  return 0;
}
