// libFuzzer target: the JSON graph loader on arbitrary text, then the writers on
// whatever it accepts. "file" tensors resolve in fuzz::DataDir().
#include <cstddef>
#include <cstdint>
#include <string>

#include "loaders/json_loader.h"
#include "tools/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  qrt::fuzz::Setup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  qrt::StatusOr<qrt::Graph> g = qrt::LoadJsonText(text, "fuzz.json", qrt::fuzz::DataDir());
  if (g.ok()) qrt::fuzz::RoundTrip(*g);
  return 0;
}
