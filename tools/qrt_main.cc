// The qrt command line: run, inspect, bench and convert models.
// Exit codes: 0 success, 1 error (one "qrt: error: ..." line on stderr), 2 usage error.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "qrt/qrt.hpp"
#include "tools/cli_io.h"
#include "tools/dot_writer.h"

namespace qrt::cli {
namespace {

using Clock = std::chrono::steady_clock;
using api::Status;

double MsSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Returns the Status of `expr` from the enclosing function if it failed.
#define CLI_RETURN_IF_ERROR(expr)         \
  do {                                    \
    const ::qrt::api::Status s_ = (expr); \
    if (!s_.ok()) return s_;              \
  } while (0)

struct CommonOptions {
  std::string model;
  std::string passes = "default";
  std::string isa = "auto";
  int threads = 1;
  uint64_t memory_limit = 0;
  std::string conv_algorithm = "auto";
  std::vector<std::string> pattern_files;  // --patterns (docs/patterns.md)
};

struct Loaded {
  api::Graph graph;  // as loaded, before the passes
  api::Model model;
  double load_ms = 0, compile_ms = 0;
};

api::Result<Loaded> LoadAndCompile(const CommonOptions& o) {
  Loaded l;
  auto t0 = Clock::now();
  api::Result<api::Graph> g = api::Graph::Load(o.model);
  if (!g.ok()) return g.status();
  l.load_ms = MsSince(t0);
  l.graph = std::move(g).value();
  auto t1 = Clock::now();
  api::Result<api::Model> m =
      api::Model::Compile(l.graph, {o.passes, o.isa, o.threads, o.memory_limit, o.conv_algorithm, o.pattern_files});
  if (!m.ok()) return m.status();
  l.compile_ms = MsSince(t1);
  l.model = std::move(m).value();
  return l;
}

std::map<std::string, int> OpHistogram(const api::Graph& g) {
  std::map<std::string, int> h;
  for (const api::NodeInfo& n : g.nodes()) ++h[n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type];
  return h;
}

std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "," : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return s + "]";
}

void PrintPassStats(const api::Model& model) {
  const auto stats = model.passes();
  std::printf("passes:");
  if (stats.empty()) std::printf(" none");
  for (const auto& [name, n] : stats) std::printf(" %s=%lld", name.c_str(), static_cast<long long>(n));
  std::printf("\n");
}

void PrintTensor(const std::string& name, const api::TensorView& t) {
  const auto shape = t.shape();
  std::printf("%s: %s %s [", name.c_str(), qrt_dtype_name(t.dtype()),
              ShapeString(std::vector<int64_t>(shape.begin(), shape.end())).c_str());
  const size_t n = std::min<size_t>(t.element_count(), 16);
  for (size_t i = 0; i < n; ++i) std::printf("%s%s", i ? ", " : "", FormatElement(t, i).c_str());
  std::printf("%s]\n", t.element_count() > n ? ", ..." : "");
}

// Binds every input of `ctx` to `inputs` (zero-copy).
Status BindInputs(api::Context& ctx, const std::vector<api::Tensor>& inputs) {
  for (size_t k = 0; k < inputs.size(); ++k) CLI_RETURN_IF_ERROR(ctx.BindInput(k, inputs[k].view()));
  return Status();
}

Status Run(const CommonOptions& o, const std::vector<std::string>& pairs, const std::string& dir,
           const std::string& output_dir) {
  api::Result<Loaded> l = LoadAndCompile(o);
  if (!l.ok()) return l.status();
  api::Result<std::vector<api::Tensor>> inputs = GatherInputs(l->graph, o.model, pairs, dir, true);
  if (!inputs.ok()) return inputs.status();
  api::Result<api::Context> ctx = api::Context::Create(l->model);
  if (!ctx.ok()) return ctx.status();
  CLI_RETURN_IF_ERROR(BindInputs(*ctx, *inputs));
  CLI_RETURN_IF_ERROR(ctx->Run());
  const std::vector<api::ValueInfo> outs = l->model.graph().outputs();
  if (!output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(output_dir, ec);
    if (ec) return Status(QRT_IO_ERROR, output_dir + ": cannot create folder: " + ec.message());
  } else {
    PrintPassStats(l->model);
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    api::Result<api::TensorView> t = ctx->Output(k);
    if (!t.ok()) return t.status();
    if (output_dir.empty())
      PrintTensor(outs[k].name, *t);
    else
      CLI_RETURN_IF_ERROR(api::WriteNpy(output_dir + "/" + SafeFileName(outs[k].name) + ".npy", *t));
  }
  return Status();
}

// Per pass, what each candidate became, grouped by pattern and outcome.
Status PrintExplanations(const api::Model& model) {
  api::Result<std::string> text = model.ExplainText();
  if (!text.ok()) return text.status();
  std::fputs(text.value().c_str(), stdout);
  return Status();
}

// The page of the graph before and after the passes; with `profile`, each node's mean time
// over a few runs on seeded random inputs.
Status WriteHtml(const CommonOptions& o, const Loaded& l, const std::string& path, bool profile) {
  std::vector<std::pair<std::string, double>> times;
  if (profile) {
    api::Result<std::vector<api::Tensor>> inputs = GatherInputs(l.graph, o.model, {}, "", false);
    if (!inputs.ok()) return inputs.status();
    CLI_RETURN_IF_ERROR(FillRandomInputs(l.graph, &*inputs, 12345));
    api::Result<api::Context> ctx = api::Context::Create(l.model);
    if (!ctx.ok()) return ctx.status();
    CLI_RETURN_IF_ERROR(BindInputs(*ctx, *inputs));
    CLI_RETURN_IF_ERROR(ctx->Run());  // warm-up, untimed
    CLI_RETURN_IF_ERROR(ctx->SetProfiling(true));
    for (int i = 0; i < 10; ++i) CLI_RETURN_IF_ERROR(ctx->Run());
    for (const qrt_profile_entry& e : ctx->Profile()) {
      times.emplace_back(e.node_name, e.runs ? 1e-3 * double(e.total_ns) / double(e.runs) : 0.0);
    }
  }
  api::Result<std::string> html =
      api::Graph::ToHtml(l.graph, l.model.graph(), std::filesystem::path(o.model).filename().string(), times);
  if (!html.ok()) return html.status();
  std::ofstream f(path, std::ios::binary);
  f << html.value();
  if (!f) return Status(QRT_IO_ERROR, path + ": cannot write");
  return Status();
}

Status Inspect(const CommonOptions& o, bool as_json, const std::string& dot, bool explain, const std::string& html,
               bool profile) {
  api::Result<Loaded> l = LoadAndCompile(o);
  if (!l.ok()) return l.status();
  const api::Graph optimized = l->model.graph();
  if (!html.empty()) CLI_RETURN_IF_ERROR(WriteHtml(o, *l, html, profile));
  const std::map<std::string, int> before = OpHistogram(l->graph), after = OpHistogram(optimized);
  if (!dot.empty()) {
    std::ofstream f(dot);
    f << GraphToDot(optimized, std::filesystem::path(o.model).stem().string());
    if (!f) return Status(QRT_IO_ERROR, dot + ": cannot write");
  }
  if (as_json) {
    nlohmann::json j;
    j["ops_before"] = before;
    j["ops_after"] = after;
    nlohmann::json rewrites = nlohmann::json::object();
    for (const auto& [name, n] : l->model.passes()) rewrites[name] = n;
    j["rewrites"] = rewrites;
    nlohmann::json ins = nlohmann::json::array(), outs = nlohmann::json::array();
    for (const api::ValueInfo& v : optimized.inputs()) ins.push_back(v.name);
    for (const api::ValueInfo& v : optimized.outputs()) outs.push_back(v.name);
    j["inputs"] = ins;
    j["outputs"] = outs;
    // What each step of the plan runs; the note names the choice of ops that have several ways.
    nlohmann::json kernels = nlohmann::json::array();
    for (const api::KernelInfo& k : l->model.kernels()) {
      kernels.push_back({{"node", k.node},
                         {"op", k.domain.empty() ? k.op : k.domain + ":" + k.op},
                         {"note", k.note},
                         {"isa", k.isa}});
    }
    j["kernels"] = kernels;
    j["isa"] = l->model.isa();
    if (explain) {
      nlohmann::json ex = nlohmann::json::array();
      for (const qrt_explanation& e : l->model.explanations()) {
        ex.push_back({{"pass", e.pass},
                      {"pattern", e.pattern},
                      {"node", e.node},
                      {"op", e.op},
                      {"rewritten", e.rewritten != 0},
                      {"reason", e.reason}});
      }
      j["explain"] = ex;
    }
    std::cout << j.dump(1) << "\n";
    return Status();
  }
  std::printf("model: %s\n", o.model.c_str());
  std::printf("inputs:");
  for (const api::ValueInfo& v : optimized.inputs()) {
    std::printf(" %s:%s%s", v.name.c_str(), qrt_dtype_name(v.dtype), v.has_shape ? ShapeString(v.shape).c_str() : "");
  }
  std::printf("\noutputs:");
  for (const api::ValueInfo& v : optimized.outputs()) std::printf(" %s", v.name.c_str());
  size_t n_before = 0, n_after = 0;
  for (const auto& [op, n] : before) n_before += size_t(n);
  for (const auto& [op, n] : after) n_after += size_t(n);
  std::printf("\nops before passes: %zu nodes\n", n_before);
  for (const auto& [op, n] : before) std::printf("  %-28s %d\n", op.c_str(), n);
  PrintPassStats(l->model);
  std::printf("ops after passes: %zu nodes\n", n_after);
  for (const auto& [op, n] : after) std::printf("  %-28s %d\n", op.c_str(), n);
  std::map<std::string, int> choices;  // "op: note" -> steps
  for (const api::KernelInfo& k : l->model.kernels()) {
    if (!k.note.empty()) ++choices[(k.domain.empty() ? k.op : k.domain + ":" + k.op) + ": " + k.note];
  }
  if (!choices.empty()) std::printf("kernel choices:\n");
  for (const auto& [choice, n] : choices) std::printf("  %-40s %d\n", choice.c_str(), n);
  std::map<std::string, int> tiers;  // ISA tier -> steps whose kernels use it
  for (const api::KernelInfo& k : l->model.kernels()) ++tiers[k.isa];
  std::printf("kernel ISA tiers (ceiling %s, model %s):", o.isa.c_str(), l->model.isa().c_str());
  for (const auto& [tier, n] : tiers) std::printf(" %s %d", tier.c_str(), n);
  std::printf("\n");
  if (explain) CLI_RETURN_IF_ERROR(PrintExplanations(l->model));
  return Status();
}

long PeakRssKb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

std::string OpName(const qrt_profile_entry& e) {
  return *e.domain ? std::string(e.domain) + ":" + e.op_type : std::string(e.op_type);
}

// Runs `iters` more times with per-node timing and prints where the time went: by op
// type, then the slowest nodes. Separate from the timed runs, whose figure it must not
// disturb.
Status Profile(api::Context& ctx, int iters, bool as_json, nlohmann::json* j) {
  CLI_RETURN_IF_ERROR(ctx.SetProfiling(true));
  for (int i = 0; i < iters; ++i) CLI_RETURN_IF_ERROR(ctx.Run());
  std::vector<qrt_profile_entry> entries = ctx.Profile();
  CLI_RETURN_IF_ERROR(ctx.SetProfiling(false));
  double total_us = 0;
  struct OpTotal {
    int nodes = 0;
    double us = 0;
  };
  std::map<std::string, OpTotal> by_op;
  auto us_per_run = [](const qrt_profile_entry& e) {
    return e.runs ? 1e-3 * double(e.total_ns) / double(e.runs) : 0.0;
  };
  for (const qrt_profile_entry& e : entries) {
    total_us += us_per_run(e);
    OpTotal& t = by_op[OpName(e)];
    ++t.nodes;
    t.us += us_per_run(e);
  }
  std::vector<std::pair<std::string, OpTotal>> ops(by_op.begin(), by_op.end());
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second.us > b.second.us; });
  std::stable_sort(entries.begin(), entries.end(),
                   [&](const auto& a, const auto& b) { return us_per_run(a) > us_per_run(b); });
  const size_t shown = std::min<size_t>(entries.size(), 20);
  if (as_json) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const qrt_profile_entry& e : entries) {
      nodes.push_back({{"node", e.node_name}, {"op", OpName(e)}, {"us", us_per_run(e)}});
    }
    (*j)["profile"] = {{"runs", iters}, {"total_us", total_us}, {"nodes", nodes}};
    return Status();
  }
  auto share = [&](double us) { return total_us > 0 ? 100.0 * us / total_us : 0.0; };
  std::printf("profile over %d runs: %.1f us per run in %zu nodes\n", iters, total_us, entries.size());
  std::printf("  %-32s %6s %10s %7s\n", "op", "nodes", "us/run", "share");
  for (const auto& [name, t] : ops) {
    std::printf("  %-32s %6d %10.1f %6.1f%%\n", name.c_str(), t.nodes, t.us, share(t.us));
  }
  std::printf("  slowest %zu nodes:\n", shown);
  for (size_t i = 0; i < shown; ++i) {
    std::printf("  %-40s %-28s %10.1f %6.1f%%\n", entries[i].node_name, OpName(entries[i]).c_str(),
                us_per_run(entries[i]), share(us_per_run(entries[i])));
  }
  return Status();
}

Status Bench(const CommonOptions& o, const std::vector<std::string>& pairs, const std::string& dir, int warmup,
             int iters, bool as_json, bool profile) {
  if (iters < 1 || warmup < 0) return Status(QRT_INVALID_ARGUMENT, "--iters must be >= 1 and --warmup >= 0");
  api::Result<Loaded> l = LoadAndCompile(o);
  if (!l.ok()) return l.status();
  api::Result<std::vector<api::Tensor>> inputs = GatherInputs(l->graph, o.model, pairs, dir, false);
  if (!inputs.ok()) return inputs.status();
  CLI_RETURN_IF_ERROR(FillRandomInputs(l->graph, &*inputs, 12345));
  api::Result<api::Context> ctx = api::Context::Create(l->model);
  if (!ctx.ok()) return ctx.status();
  CLI_RETURN_IF_ERROR(BindInputs(*ctx, *inputs));
  for (int i = 0; i < warmup; ++i) CLI_RETURN_IF_ERROR(ctx->Run());
  std::vector<double> us;
  us.reserve(size_t(iters));
  for (int i = 0; i < iters; ++i) {
    auto t0 = Clock::now();
    CLI_RETURN_IF_ERROR(ctx->Run());
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  const double median =
      sorted.size() % 2 ? sorted[sorted.size() / 2] : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  double mean = 0;
  for (double v : us) mean += v;
  mean /= double(us.size());
  const std::string isa = l->model.isa();
  if (as_json) {
    nlohmann::json j{{"model", o.model},
                     {"median_us", median},
                     {"min_us", sorted.front()},
                     {"max_us", sorted.back()},
                     {"mean_us", mean},
                     {"iters", iters},
                     {"warmup", warmup},
                     {"load_ms", l->load_ms},
                     {"compile_ms", l->compile_ms},
                     {"threads", o.threads},
                     {"arena_bytes", ctx->arena_bytes()},
                     {"peak_rss_kb", PeakRssKb()},
                     {"isa", isa}};
    nlohmann::json kernels = nlohmann::json::array();
    for (const api::KernelInfo& k : l->model.kernels()) {
      kernels.push_back({{"node", k.node}, {"op", k.domain.empty() ? k.op : k.domain + ":" + k.op}, {"isa", k.isa}});
    }
    j["kernels"] = kernels;
    if (profile) CLI_RETURN_IF_ERROR(Profile(*ctx, iters, true, &j));
    std::cout << j.dump() << "\n";
    return Status();
  }
  std::printf(
      "%s: median %.1f us, min %.1f us, mean %.1f us over %d iters (warmup %d); load %.2f ms, "
      "compile %.2f ms; arena %llu bytes; peak RSS %ld KiB; isa %s\n",
      o.model.c_str(), median, sorted.front(), mean, iters, warmup, l->load_ms, l->compile_ms,
      static_cast<unsigned long long>(ctx->arena_bytes()), PeakRssKb(), isa.c_str());
  if (profile) return Profile(*ctx, iters, false, nullptr);
  return Status();
}

Status Convert(const CommonOptions& o, const std::string& out) {
  api::Result<Loaded> l = LoadAndCompile(o);
  if (!l.ok()) return l.status();
  return l->model.Save(out);
}

void AddCommon(CLI::App* app, CommonOptions& o, bool with_model = true) {
  if (with_model) app->add_option("MODEL", o.model, "model file (.onnx or .json)")->required();
  app->add_option("--passes", o.passes, "default | none | comma-separated pass names");
  app->add_option("--patterns", o.pattern_files, "a user fusion pattern file (docs/patterns.md); repeatable")
      ->allow_extra_args(false);  // one file per --patterns, so MODEL is never taken for one
  app->add_option("--isa", o.isa, "ISA ceiling: auto | scalar | avx2 | avx2-vnni | avx512 | avx512-vnni")
      ->check(CLI::IsMember({"auto", "scalar", "avx2", "avx2-vnni", "avx512", "avx512-vnni"}));
  app->add_option("--threads", o.threads, "intra-op threads")->check(CLI::Range(1, 256));
  app->add_option("--memory-limit", o.memory_limit, "most bytes of activation memory a run may take (0: no limit)");
  app->add_option("--conv-algorithm", o.conv_algorithm,
                  "force one convolution algorithm (auto | reference | direct | padded-rows | patches | "
                  "pointwise-int8 | onednn-int8 | ...: the names inspect --json reports)");
}

// oneDNN's ISA ceiling is per process, read from QRT_MAX_ISA before its first primitive; a model
// compiled under a lower ceiling gives oneDNN's work to qrt's own kernels. The CLI runs one model,
// so --isa caps the whole process (never raising a QRT_MAX_ISA already lower): oneDNN then runs
// at that tier too.
void CapProcessIsa(const std::string& isa) {
  static const std::vector<std::string> kTiers = {"scalar", "avx2", "avx2-vnni", "avx512", "avx512-vnni"};
  const auto rank = [&](const std::string& t) { return std::find(kTiers.begin(), kTiers.end(), t) - kTiers.begin(); };
  if (rank(isa) == std::ptrdiff_t(kTiers.size())) return;  // "auto"
  const char* env = std::getenv("QRT_MAX_ISA");
  if (env != nullptr && rank(env) <= rank(isa)) return;
  setenv("QRT_MAX_ISA", isa.c_str(), 1);
}

int Main(int argc, char** argv) {
  CLI::App app{"qrt: a small, fast, exact runtime for quantized neural networks"};
  app.require_subcommand(1);
  CommonOptions o;
  std::vector<std::string> pairs;
  std::string dir, output_dir, dot, out, html;
  bool as_json = false, profile = false, explain = false;
  int warmup = 10, iters = 100;

  CLI::App* run = app.add_subcommand("run", "run a model once and print or save its outputs");
  AddCommon(run, o);
  run->add_option("--input", pairs, "NAME=FILE (.npy or .pb); repeatable");
  run->add_option("--inputs", dir, "folder with <name>.npy or input_<k>.pb files");
  run->add_option("--output-dir", output_dir, "write each output to DIR/<name>.npy");

  CLI::App* inspect = app.add_subcommand("inspect", "show a model's ops before and after the passes");
  AddCommon(inspect, o);
  inspect->add_flag("--json", as_json, "print JSON");
  inspect->add_flag("--explain", explain, "per pass, which pattern rewrote each candidate node or why each refused");
  inspect->add_option("--dot", dot, "write Graphviz DOT of the optimized graph");
  CLI::Option* html_option = inspect->add_option(
      "--html", html, "write one self-contained HTML page of the graph before and after the passes");
  inspect->add_flag("--profile", profile, "with --html: colour the optimized graph's nodes by their share of run time")
      ->needs(html_option);

  CLI::App* bench = app.add_subcommand("bench", "time repeated runs of a model");
  AddCommon(bench, o);
  bench->add_option("--input", pairs, "NAME=FILE; inputs not given are random");
  bench->add_option("--inputs", dir, "folder with input files");
  bench->add_option("--warmup", warmup, "untimed runs first");
  bench->add_option("--iters", iters, "timed runs");
  bench->add_flag("--json", as_json, "print one JSON object");
  bench->add_flag("--profile", profile, "then time each node over as many runs and show where the time goes");

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
  CapProcessIsa(o.isa);

  api::Status s;
  if (*run)
    s = Run(o, pairs, dir, output_dir);
  else if (*inspect)
    s = Inspect(o, as_json, dot, explain, html, profile);
  else if (*bench)
    s = Bench(o, pairs, dir, warmup, iters, as_json, profile);
  else if (*convert)
    s = Convert(o, out);
  if (!s.ok()) {
    std::fprintf(stderr, "qrt: error: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace qrt::cli

int main(int argc, char** argv) { return qrt::cli::Main(argc, argv); }
