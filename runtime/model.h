// Compiling a graph: passes, validation, topological order and, when every input
// shape is static, the plan. A CompiledModel is immutable and may be shared by
// sessions on many threads.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "passes/rewriter.h"
#include "passes/user_patterns.h"
#include "runtime/graph.h"
#include "runtime/plan.h"

namespace qrt {

struct CompileOptions {
  std::string passes = "default";  // "default", "none" or a comma-separated list of pass names
  Isa max_isa = kIsaAuto;          // a ceiling (cpu_features.h); kScalar forces the reference kernels everywhere
  int threads = 1;
  size_t memory_limit = 0;  // most bytes of activation arena a run may take; 0: no limit
  bool validate_after_each_pass = true;
  std::string conv_algorithm;  // PlanOptions::conv_algorithm
  // User fusion patterns (passes/user_patterns.h, docs/patterns.md), run whatever `passes` says.
  std::vector<std::shared_ptr<const UserPatternSet>> patterns;
};

// Rewrites made by each pass, in pipeline order.
using PassStats = std::vector<std::pair<std::string, int>>;

class CompiledModel {
 public:
  const Graph& graph() const { return graph_; }
  const PassStats& pass_stats() const { return pass_stats_; }
  // What each pass's candidates became: the patterns that rewrote them, or why each refused.
  const Explanations& explanations() const { return explanations_; }
  const PlanOptions& plan_options() const { return plan_options_; }
  // The plan for the declared static input shapes, or nullptr if some are symbolic.
  std::shared_ptr<const Plan> default_plan() const { return default_plan_; }
  // A plan for these inputs: the default one when their shapes match it. When an op
  // needs the value of a graph input (a shape, axes or Resize scales given as an input),
  // the plan is specialised on the values of every small (<= 64 elements) input; a
  // session re-plans when those values change.
  StatusOr<std::shared_ptr<const Plan>> PlanFor(const std::vector<Tensor>& inputs) const;

 private:
  friend StatusOr<std::shared_ptr<const CompiledModel>> Compile(Graph graph, const CompileOptions&);
  Graph graph_;
  std::vector<NodeId> order_;
  PassStats pass_stats_;
  Explanations explanations_;
  PlanOptions plan_options_;
  std::shared_ptr<const Plan> default_plan_;
};

// Runs the passes named in options, validates, orders and plans `graph`.
StatusOr<std::shared_ptr<const CompiledModel>> Compile(Graph graph, const CompileOptions& options);

}  // namespace qrt
