// Shared by the libFuzzer targets: the memory budget every target runs under, a folder
// of small data files that fuzzed models may name as external data, and a PRNG seeded
// from the input so a crashing file reproduces exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace qrt::fuzz {

// Per-tensor byte limit (SetMaxTensorBytes). libFuzzer's -malloc_limit_mb (tools/fuzz.sh
// passes 512) is far above it, so a large malloc means a size that escaped the checks.
inline constexpr int64_t kTensorBytes = int64_t(1) << 24;

// Lowers the tensor limit and creates DataDir(). Call from LLVMFuzzerInitialize.
void Setup();

// A folder holding "data.bin" (4096 bytes: 0, 1, ..., 255 repeated) and "empty.bin",
// so external-data offsets and lengths meet a real file. Removed at exit.
const std::string& DataDir();

// FNV-1a of the input: decides the PRNG seed and the target's per-input choices.
uint64_t Hash(const uint8_t* data, size_t size);

// splitmix64: small, fast and good enough to make test inputs.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n > 0.
  uint64_t Below(uint64_t n) { return Next() % n; }

 private:
  uint64_t s_;
};

}  // namespace qrt::fuzz

namespace qrt {
class Graph;
}

namespace qrt::fuzz {

// Writes `graph` as ONNX and as JSON and loads both back. Only crashes matter here: a
// graph the loaders accept must not crash the writers, nor the writers' output the
// loaders; statuses are ignored (a writer may refuse what it cannot express).
void RoundTrip(const Graph& graph);

}  // namespace qrt::fuzz
