// The qrt command line: run, inspect, bench and convert models.
// Exit codes: 0 success, 1 error (one "qrt: error: ..." line on stderr), 2 usage error.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "loaders/model_io.h"
#include "loaders/npy.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tools/cli_io.h"
#include "tools/dot_writer.h"

namespace qrt::cli {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct CommonOptions {
  std::string model;
  std::string passes = "default";
  std::string isa = "auto";
  int threads = 1;
};

StatusOr<CompileOptions> MakeCompileOptions(const CommonOptions& o) {
  CompileOptions c;
  c.passes = o.passes;
  c.threads = o.threads;
  if (o.isa == "auto" || o.isa == "avx2") c.max_isa = Isa::kAvx2;
  else if (o.isa == "scalar") c.max_isa = Isa::kScalar;
  else return InvalidArgument("--isa must be auto, avx2 or scalar");
  if (o.isa == "avx2" && !DetectCpuFeatures().avx2) return Unsupported("--isa avx2: this CPU has no AVX2");
  return c;
}

std::map<std::string, int> OpHistogram(const Graph& g) {
  std::map<std::string, int> h;
  for (uint32_t i = 0; i < g.num_nodes(); ++i) {
    const Node& n = g.node(NodeId{i});
    if (!n.dead) ++h[n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type];
  }
  return h;
}

void PrintPassStats(const PassStats& stats) {
  std::printf("passes:");
  if (stats.empty()) std::printf(" none");
  for (const auto& [name, n] : stats) std::printf(" %s=%d", name.c_str(), n);
  std::printf("\n");
}

void PrintTensor(const std::string& name, const Tensor& t) {
  std::printf("%s: %s %s", name.c_str(), std::string(DataTypeName(t.dtype())).c_str(), DimsToString(t.dims()).c_str());
  const int64_t n = std::min<int64_t>(t.numel(), 16);
  std::printf(" [");
  for (int64_t i = 0; i < n; ++i) {
    if (IsFloatType(t.dtype())) std::printf("%s%.9g", i ? ", " : "", t.GetAsDouble(i));
    else std::printf("%s%lld", i ? ", " : "", static_cast<long long>(t.GetAsInt64(i)));
  }
  std::printf("%s]\n", t.numel() > n ? ", ..." : "");
}

StatusOr<std::shared_ptr<const CompiledModel>> LoadAndCompile(const CommonOptions& o, double* load_ms,
                                                              double* compile_ms,
                                                              std::map<std::string, int>* ops_before = nullptr) {
  QRT_ASSIGN_OR_RETURN(CompileOptions copts, MakeCompileOptions(o));
  auto t0 = Clock::now();
  QRT_ASSIGN_OR_RETURN(Graph g, LoadModel(o.model));
  if (load_ms) *load_ms = MsSince(t0);
  if (ops_before) *ops_before = OpHistogram(g);
  auto t1 = Clock::now();
  auto model = Compile(std::move(g), copts);
  if (compile_ms) *compile_ms = MsSince(t1);
  return model;
}

Status Run(const CommonOptions& o, const std::vector<std::string>& pairs, const std::string& dir,
           const std::string& output_dir) {
  QRT_ASSIGN_OR_RETURN(auto model, LoadAndCompile(o, nullptr, nullptr));
  QRT_ASSIGN_OR_RETURN(std::vector<Tensor> inputs, GatherInputs(model->graph(), pairs, dir, true));
  Session session(model);
  std::vector<Tensor> outputs;
  QRT_RETURN_IF_ERROR(session.Run(inputs, &outputs));
  const Graph& g = model->graph();
  if (!output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(output_dir, ec);
    if (ec) return IoError(output_dir, ": cannot create folder: ", ec.message());
    for (size_t k = 0; k < outputs.size(); ++k) {
      const std::string path = output_dir + "/" + SafeFileName(g.value(g.outputs[k]).name) + ".npy";
      QRT_RETURN_IF_ERROR(WriteNpy(path, outputs[k]));
    }
    return Status::Ok();
  }
  PrintPassStats(model->pass_stats());
  for (size_t k = 0; k < outputs.size(); ++k) PrintTensor(g.value(g.outputs[k]).name, outputs[k]);
  return Status::Ok();
}

Status Inspect(const CommonOptions& o, bool as_json, const std::string& dot) {
  std::map<std::string, int> before;
  QRT_ASSIGN_OR_RETURN(auto model, LoadAndCompile(o, nullptr, nullptr, &before));
  const std::map<std::string, int> after = OpHistogram(model->graph());
  if (!dot.empty()) {
    std::ofstream f(dot);
    f << GraphToDot(model->graph());
    if (!f) return IoError(dot, ": cannot write");
  }
  if (as_json) {
    nlohmann::json j;
    j["ops_before"] = before;
    j["ops_after"] = after;
    nlohmann::json rewrites = nlohmann::json::object();
    for (const auto& [name, n] : model->pass_stats()) rewrites[name] = n;
    j["rewrites"] = rewrites;
    const Graph& g = model->graph();
    nlohmann::json ins = nlohmann::json::array(), outs = nlohmann::json::array();
    for (ValueId v : g.inputs) ins.push_back(g.value(v).name);
    for (ValueId v : g.outputs) outs.push_back(g.value(v).name);
    j["inputs"] = ins;
    j["outputs"] = outs;
    std::cout << j.dump(1) << "\n";
    return Status::Ok();
  }
  const Graph& g = model->graph();
  std::printf("model: %s\n", o.model.c_str());
  std::printf("inputs:");
  for (ValueId v : g.inputs) {
    const Value& val = g.value(v);
    std::printf(" %s:%s%s", val.name.c_str(), std::string(DataTypeName(val.dtype)).c_str(),
                val.shape ? ShapeToString(*val.shape).c_str() : "");
  }
  std::printf("\noutputs:");
  for (ValueId v : g.outputs) std::printf(" %s", g.value(v).name.c_str());
  std::printf("\nops before passes: %zu nodes\n", [&] { size_t n = 0; for (auto& [k, c] : before) n += size_t(c); return n; }());
  for (const auto& [op, n] : before) std::printf("  %-28s %d\n", op.c_str(), n);
  PrintPassStats(model->pass_stats());
  std::printf("ops after passes: %zu nodes\n", g.num_live_nodes());
  for (const auto& [op, n] : after) std::printf("  %-28s %d\n", op.c_str(), n);
  return Status::Ok();
}

long PeakRssKb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

Status Bench(const CommonOptions& o, const std::vector<std::string>& pairs, const std::string& dir, int warmup,
             int iters, bool as_json) {
  if (iters < 1 || warmup < 0) return InvalidArgument("--iters must be >= 1 and --warmup >= 0");
  double load_ms = 0, compile_ms = 0;
  QRT_ASSIGN_OR_RETURN(auto model, LoadAndCompile(o, &load_ms, &compile_ms));
  QRT_ASSIGN_OR_RETURN(std::vector<Tensor> inputs, GatherInputs(model->graph(), pairs, dir, false));
  QRT_RETURN_IF_ERROR(FillRandomInputs(model->graph(), &inputs, 12345));
  Session session(model);
  std::vector<Tensor> outputs;
  for (int i = 0; i < warmup; ++i) QRT_RETURN_IF_ERROR(session.Run(inputs, &outputs));
  std::vector<double> us;
  us.reserve(size_t(iters));
  for (int i = 0; i < iters; ++i) {
    auto t0 = Clock::now();
    QRT_RETURN_IF_ERROR(session.Run(inputs, &outputs));
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.size() % 2 ? sorted[sorted.size() / 2]
                                          : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  double mean = 0;
  for (double v : us) mean += v;
  mean /= double(us.size());
  if (as_json) {
    nlohmann::json j{{"model", o.model}, {"median_us", median}, {"min_us", sorted.front()},
                     {"max_us", sorted.back()}, {"mean_us", mean}, {"iters", iters}, {"warmup", warmup},
                     {"load_ms", load_ms}, {"compile_ms", compile_ms}, {"threads", o.threads},
                     {"arena_bytes", session.arena_bytes()}, {"peak_rss_kb", PeakRssKb()},
                     {"isa", std::string(IsaName(model->plan_options().isa))}};
    std::cout << j.dump() << "\n";
  } else {
    std::printf("%s: median %.1f us, min %.1f us, mean %.1f us over %d iters (warmup %d); load %.2f ms, "
                "compile %.2f ms; arena %zu bytes; peak RSS %ld KiB; isa %s\n",
                o.model.c_str(), median, sorted.front(), mean, iters, warmup, load_ms, compile_ms,
                session.arena_bytes(), PeakRssKb(), std::string(IsaName(model->plan_options().isa)).c_str());
  }
  return Status::Ok();
}

Status Convert(const CommonOptions& o, const std::string& out) {
  QRT_ASSIGN_OR_RETURN(auto model, LoadAndCompile(o, nullptr, nullptr));
  return SaveModel(model->graph(), out, model->default_plan().get());
}

void AddCommon(CLI::App* app, CommonOptions& o, bool with_model = true) {
  if (with_model) app->add_option("MODEL", o.model, "model file (.onnx or .json)")->required();
  app->add_option("--passes", o.passes, "default | none | comma-separated pass names");
  app->add_option("--isa", o.isa, "auto | avx2 | scalar")->check(CLI::IsMember({"auto", "avx2", "scalar"}));
  app->add_option("--threads", o.threads, "intra-op threads")->check(CLI::Range(1, 256));
}

int Main(int argc, char** argv) {
  CLI::App app{"qrt: a small, fast, exact runtime for quantized neural networks"};
  app.require_subcommand(1);
  CommonOptions o;
  std::vector<std::string> pairs;
  std::string dir, output_dir, dot, out;
  bool as_json = false;
  int warmup = 10, iters = 100;

  CLI::App* run = app.add_subcommand("run", "run a model once and print or save its outputs");
  AddCommon(run, o);
  run->add_option("--input", pairs, "NAME=FILE (.npy or .pb); repeatable");
  run->add_option("--inputs", dir, "folder with <name>.npy or input_<k>.pb files");
  run->add_option("--output-dir", output_dir, "write each output to DIR/<name>.npy");

  CLI::App* inspect = app.add_subcommand("inspect", "show a model's ops before and after the passes");
  AddCommon(inspect, o);
  inspect->add_flag("--json", as_json, "print JSON");
  inspect->add_option("--dot", dot, "write Graphviz DOT of the optimized graph");

  CLI::App* bench = app.add_subcommand("bench", "time repeated runs of a model");
  AddCommon(bench, o);
  bench->add_option("--input", pairs, "NAME=FILE; inputs not given are random");
  bench->add_option("--inputs", dir, "folder with input files");
  bench->add_option("--warmup", warmup, "untimed runs first");
  bench->add_option("--iters", iters, "timed runs");
  bench->add_flag("--json", as_json, "print one JSON object");

  CLI::App* convert = app.add_subcommand("convert", "convert between .onnx and .json, optionally optimized");
  AddCommon(convert, o, false);
  convert->add_option("IN", o.model, "input model")->required();
  convert->add_option("OUT", out, "output model (.onnx or .json)")->required();
  convert->get_option("--passes")->default_str("none");

  // `convert` saves the graph as given unless passes are asked for.
  bool passes_given = false;
  try {
    app.parse(argc, argv);
    passes_given = convert->count("--passes") > 0;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (*convert && !passes_given) o.passes = "none";

  Status s;
  if (*run) s = Run(o, pairs, dir, output_dir);
  else if (*inspect) s = Inspect(o, as_json, dot);
  else if (*bench) s = Bench(o, pairs, dir, warmup, iters, as_json);
  else if (*convert) s = Convert(o, out);
  if (!s.ok()) {
    std::fprintf(stderr, "qrt: error: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace qrt::cli

int main(int argc, char** argv) { return qrt::cli::Main(argc, argv); }
