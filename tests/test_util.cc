#include "tests/test_util.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "loaders/model_io.h"
#include "loaders/tensor_proto.h"
#include "passes/pass_manager.h"

namespace qrt::testing {

OrtCpuOfData::OrtCpuOfData(const std::string& dir) {
  std::ifstream in(dir + "/ort_cpu");
  std::string word;
  while (in >> word) {
    const bool l2 = word.rfind("l2=", 0) == 0;
    Set(l2 ? "QRT_ORT_L2_BYTES" : "QRT_ORT_CPU", l2 ? word.substr(3) : word);
  }
}

void OrtCpuOfData::Set(const char* name, const std::string& value) {
  const char* old = std::getenv(name);
  saved_.push_back({name, old != nullptr, old != nullptr ? old : ""});
  setenv(name, value.c_str(), 1);
}

OrtCpuOfData::~OrtCpuOfData() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    if (it->had)
      setenv(it->name, it->value.c_str(), 1);
    else
      unsetenv(it->name);
  }
}

std::string SourceDir() { return QRT_SOURCE_DIR; }
std::string SharedModelsDir() { return SourceDir() + "/../shared/models"; }
std::string CliPath() { return QRT_CLI_PATH; }

bool DirExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> ListDir(const std::string& path) {
  std::vector<std::string> names;
  DIR* d = opendir(path.c_str());
  if (!d) return names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

StatusOr<std::vector<Tensor>> RunGraph(Graph graph, const std::vector<Tensor>& inputs, const std::string& passes,
                                       Isa isa, int threads, const std::string& conv_algorithm) {
  CompileOptions opts;
  opts.passes = passes;
  opts.max_isa = isa;
  opts.threads = threads;
  opts.conv_algorithm = conv_algorithm;
  QRT_ASSIGN_OR_RETURN(auto model, Compile(std::move(graph), opts));
  Session session(model);
  std::vector<Tensor> outputs;
  QRT_RETURN_IF_ERROR(session.Run(inputs, &outputs));
  std::vector<Tensor> copies;
  for (const Tensor& t : outputs) copies.push_back(t.Clone());
  return copies;
}

StatusOr<std::vector<Tensor>> RunModelFile(const std::string& path, const std::vector<Tensor>& inputs,
                                           const std::string& passes, Isa isa) {
  QRT_ASSIGN_OR_RETURN(Graph g, LoadModel(path));
  return RunGraph(std::move(g), inputs, passes, isa);
}

StatusOr<std::vector<Tensor>> ReadTestDataSet(const std::string& dir, const std::string& prefix) {
  std::vector<Tensor> out;
  for (int k = 0;; ++k) {
    const std::string path = dir + "/" + prefix + "_" + std::to_string(k) + ".pb";
    if (!FileExists(path)) break;
    QRT_ASSIGN_OR_RETURN(Tensor t, ReadTensorProtoFile(path));
    out.push_back(std::move(t));
  }
  return out;
}

StatusOr<std::vector<RunValue>> ReadTestDataValues(const std::string& dir, const std::string& prefix,
                                                   const Graph& graph) {
  const std::vector<ValueId>& declared = prefix == "input" ? graph.inputs : graph.outputs;
  std::vector<RunValue> out;
  for (size_t k = 0;; ++k) {
    const std::string path = dir + "/" + prefix + "_" + std::to_string(k) + ".pb";
    if (!FileExists(path)) break;
    const Value* v = k < declared.size() ? &graph.value(declared[k]) : nullptr;
    QRT_ASSIGN_OR_RETURN(RunValue value, ReadValueProtoFile(path, v ? v->kind : DeclaredKind::kTensor,
                                                            v ? v->dtype : DataType::kUndefined));
    out.push_back(std::move(value));
  }
  return out;
}

StatusOr<std::vector<RunValue>> RunGraphValues(Graph graph, const std::vector<RunValue>& inputs) {
  QRT_ASSIGN_OR_RETURN(auto model, Compile(std::move(graph), CompileOptions{}));
  Session session(model);
  std::vector<RunValue> outputs;
  QRT_RETURN_IF_ERROR(session.Run(inputs, &outputs));
  for (RunValue& v : outputs) v.tensor = v.tensor.Clone();
  return outputs;
}

std::string CompareValues(const RunValue& got, const RunValue& want, double rtol, double atol) {
  if (got.kind != want.kind) return StrCat(ValueKindName(got.kind), " != expected ", ValueKindName(want.kind));
  if (got.kind == ValueKind::kTensor) return CompareTensors(got.tensor, want.tensor, rtol, atol);
  if (got.kind == ValueKind::kNone) return "";
  const std::vector<Tensor>& a = got.sequence->items;
  const std::vector<Tensor>& b = want.sequence->items;
  if (got.sequence->dtype != want.sequence->dtype) {
    return StrCat("a sequence of ", DataTypeName(got.sequence->dtype), " != expected ",
                  DataTypeName(want.sequence->dtype));
  }
  if (a.size() != b.size()) return StrCat(a.size(), " items != expected ", b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string diff = CompareTensors(a[i], b[i], rtol, atol);
    if (!diff.empty()) return StrCat("item ", i, ": ", diff);
  }
  return "";
}

std::string CompareTensors(const Tensor& got, const Tensor& want, double rtol, double atol) {
  if (got.dtype() != want.dtype()) {
    return StrCat("dtype ", DataTypeName(got.dtype()), " != expected ", DataTypeName(want.dtype()));
  }
  if (got.dims() != want.dims()) {
    return StrCat("shape ", DimsToString(got.dims()), " != expected ", DimsToString(want.dims()));
  }
  const bool is_float = IsFloatType(got.dtype());
  for (int64_t i = 0; i < got.numel(); ++i) {
    if (is_float) {
      const double a = got.GetAsDouble(i), b = want.GetAsDouble(i);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (a == b) continue;
      if (!(std::fabs(a - b) <= atol + rtol * std::fabs(b))) {
        return StrCat("element ", i, ": ", a, " != expected ", b);
      }
    } else if (got.GetAsInt64(i) != want.GetAsInt64(i)) {
      return StrCat("element ", i, ": ", got.GetAsInt64(i), " != expected ", want.GetAsInt64(i));
    }
  }
  return "";
}

std::string RandomIntsJson(int64_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::string s = "[";
  for (int64_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(lo + int(rng() % uint32_t(hi - lo + 1)));
  return s + "]";
}

std::string RandomFloatsJson(int64_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::string s = "[";
  for (int64_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(u(rng));
  return s + "]";
}

std::string CompareBits(const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype()) return "dtypes differ";
  if (got.dims() != want.dims())
    return StrCat("shapes differ: ", DimsToString(got.dims()), " vs ", DimsToString(want.dims()));
  const size_t es = DataTypeSize(got.dtype());
  for (int64_t i = 0; i < got.numel(); ++i) {
    if (std::memcmp(static_cast<const char*>(got.raw()) + i * es, static_cast<const char*>(want.raw()) + i * es, es)) {
      return StrCat("element ", i, " differs: ", got.GetAsDouble(i), " vs ", want.GetAsDouble(i));
    }
  }
  return "";
}

std::string CompareFusedToUnfused(const std::function<Graph()>& load, const std::vector<Tensor>& inputs,
                                  const std::vector<std::string>& passes, int threads) {
  StatusOr<std::vector<Tensor>> reference = RunGraph(load(), inputs, "none", Isa::kScalar);
  if (!reference.ok()) return StrCat("unfused run: ", reference.status().message());
  for (Isa isa : TiersThisCpuHas()) {
    for (const std::string& p : passes) {
      StatusOr<std::vector<Tensor>> fused = RunGraph(load(), inputs, p, isa, threads);
      const std::string run = StrCat("passes ", p, " isa ", IsaName(isa), " threads ", threads);
      if (!fused.ok()) return StrCat(run, ": ", fused.status().message());
      if (fused->size() != reference->size()) return StrCat(run, ": output count differs");
      for (size_t k = 0; k < fused->size(); ++k) {
        const std::string diff = CompareBits((*fused)[k], (*reference)[k]);
        if (!diff.empty()) return StrCat(run, ", output ", k, ": ", diff);
      }
    }
  }
  return "";
}

std::pair<int, std::map<std::string, int>> DefaultPassOutcome(Graph graph, const std::string& pass,
                                                              const std::string& passes) {
  PassStats stats;
  const Status st = RunPasses(graph, passes, true, &stats);
  EXPECT_TRUE(st.ok()) << st.message();
  std::map<std::string, int> ops;
  for (uint32_t i = 0; i < graph.num_nodes(); ++i) {
    if (!graph.node(NodeId{i}).dead) ++ops[graph.node(NodeId{i}).op_type];
  }
  int rewrites = 0;
  for (const auto& [name, count] : stats) rewrites += name == pass ? count : 0;
  return {rewrites, ops};
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TempDir::TempDir() {
  char tmpl[] = "/tmp/qrt_test_XXXXXX";
  const char* p = mkdtemp(tmpl);
  path_ = p ? p : "/tmp";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (path_ != "/tmp") std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Write(const std::string& name, const std::string& bytes) const {
  const std::string p = path_ + "/" + name;
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
  return p;
}

std::string TempDir::Sub(const std::string& name) const {
  const std::string p = path_ + "/" + name;
  std::error_code ec;
  std::filesystem::create_directories(p, ec);
  return p;
}

CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  char tmpl_out[] = "/tmp/qrt_cmd_out_XXXXXX";
  char tmpl_err[] = "/tmp/qrt_cmd_err_XXXXXX";
  int fo = mkstemp(tmpl_out), fe = mkstemp(tmpl_err);
  if (fo < 0 || fe < 0) return r;
  close(fo);
  close(fe);
  const std::string full = command + " >" + tmpl_out + " 2>" + tmpl_err + " </dev/null";
  const int status = std::system(full.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  auto slurp = [](const char* p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  r.out = slurp(tmpl_out);
  r.err = slurp(tmpl_err);
  std::remove(tmpl_out);
  std::remove(tmpl_err);
  return r;
}

}  // namespace qrt::testing
