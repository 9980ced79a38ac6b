// Shared helpers for qrt's tests.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runtime/model.h"
#include "runtime/session.h"

namespace qrt::testing {

// Repository root and the shared models folder (may not exist).
std::string SourceDir();
std::string SharedModelsDir();
bool DirExists(const std::string& path);
bool FileExists(const std::string& path);
// Entries of a directory (names only, sorted); empty if it does not exist.
std::vector<std::string> ListDir(const std::string& path);

// Loads, compiles (with `passes` and `isa`) and runs a model; copies the outputs.
StatusOr<std::vector<Tensor>> RunModelFile(const std::string& path, const std::vector<Tensor>& inputs,
                                           const std::string& passes = "default", Isa isa = kIsaAuto);
// conv_algorithm: CompileOptions::conv_algorithm (a convolution algorithm to force).
StatusOr<std::vector<Tensor>> RunGraph(Graph graph, const std::vector<Tensor>& inputs,
                                       const std::string& passes = "default", Isa isa = kIsaAuto, int threads = 1,
                                       const std::string& conv_algorithm = "");

// For its lifetime, QRT_ORT_CPU and QRT_ORT_L2_BYTES (runtime/ort_cpu.h) describe the CPU whose
// ONNX Runtime made the reference data in `dir`, as the file dir/ort_cpu says where there is one
// ("avx2" or "avx512", then "l2=BYTES" where ORT's flash attention read its L2 size). Then qrt
// reproduces that ORT whatever machine the test runs on.
class OrtCpuOfData {
 public:
  explicit OrtCpuOfData(const std::string& dir);
  ~OrtCpuOfData();
  OrtCpuOfData(const OrtCpuOfData&) = delete;
  OrtCpuOfData& operator=(const OrtCpuOfData&) = delete;

 private:
  struct Saved {
    const char* name;
    bool had;
    std::string value;
  };
  void Set(const char* name, const std::string& value);
  std::vector<Saved> saved_;
};

// Reads dir/input_<k>.pb (k = 0, 1, ...) or output_<k>.pb until one is missing.
StatusOr<std::vector<Tensor>> ReadTestDataSet(const std::string& dir, const std::string& prefix);

// Values of any kind (sequences, optionals): the graph's inputs read from dir/input_<k>.pb, or
// its outputs from output_<k>.pb, each parsed as its declared kind; the run's outputs (copied).
StatusOr<std::vector<RunValue>> ReadTestDataValues(const std::string& dir, const std::string& prefix,
                                                   const Graph& graph);
StatusOr<std::vector<RunValue>> RunGraphValues(Graph graph, const std::vector<RunValue>& inputs);
// CompareTensors for values: the same kind, and each tensor (item) compared so.
std::string CompareValues(const RunValue& got, const RunValue& want, double rtol, double atol);

// Empty string if equal: same dtype and dims, integers exactly, floats within
// |a-b| <= atol + rtol*|b| (NaN equals NaN). Otherwise a description of the first mismatch.
std::string CompareTensors(const Tensor& got, const Tensor& want, double rtol, double atol);
// Bitwise equality of dtype, dims and bytes; empty string if equal.
std::string CompareBits(const Tensor& got, const Tensor& want);

// Data for JSON test graphs: a JSON array of n integers in [lo, hi] (lo + rng() % (hi - lo + 1),
// std::mt19937 seeded with `seed`), or of n floats uniform in [lo, hi).
std::string RandomIntsJson(int64_t n, uint32_t seed, int lo, int hi);
std::string RandomFloatsJson(int64_t n, uint32_t seed, float lo, float hi);

// A fusion's promise: runs load() without passes on the reference kernels, then with each of
// `passes` at every ISA tier this CPU has; empty string if every run gives the same
// outputs bit for bit, else what differs (run and output).
std::string CompareFusedToUnfused(const std::function<Graph()>& load, const std::vector<Tensor>& inputs,
                                  const std::vector<std::string>& passes, int threads = 1);

// Runs `passes` (the default ones unless given) on `graph` (failing the test on error): the
// rewrites `pass` made, and the live nodes counted by op type.
std::pair<int, std::map<std::string, int>> DefaultPassOutcome(Graph graph, const std::string& pass,
                                                              const std::string& passes = "default");

// True if `text` contains `part`.
bool Contains(const std::string& text, const std::string& part);

// A fresh directory under /tmp, removed with its files when it goes out of scope.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes `bytes` to path()/name and returns that path.
  std::string Write(const std::string& name, const std::string& bytes) const;
  // Creates the folder path()/name and returns its path.
  std::string Sub(const std::string& name) const;

 private:
  std::string path_;
};

// Runs a command line, returning its exit code and captured stdout/stderr.
struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};
CommandResult RunCommand(const std::string& command);
std::string CliPath();

}  // namespace qrt::testing
