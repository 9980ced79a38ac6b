// The pass pipeline: an ordered list of named graph rewrites.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passes/rewriter.h"
#include "passes/user_patterns.h"
#include "runtime/graph.h"

namespace qrt {

struct Pass {
  std::string_view name;                                      // kebab-case, as used by --passes
  StatusOr<int> (*run)(Graph& graph, Explanations* explain);  // returns the number of rewrites made
  bool in_default;                                            // part of the "default" pipeline
};

// Every pass, in default pipeline order.
const std::vector<Pass>& AllPasses();

// Runs the passes named by `spec`: "default" (the default pipeline), "none", or a
// comma-separated list of pass names run in the given order, where the item "default"
// stands for the default pipeline (e.g. "default,fuse-qdq-conv"). Unknown names are an
// error. Appends (name, rewrites) to `stats`; re-validates after each pass if asked; appends
// each candidate's outcome to `explain` if it is not null.
// User patterns (docs/patterns.md) run whatever `spec` is, "none" included: those of files whose
// stage is "before" ahead of the pipeline, the others after it, each as a pass named after the
// pattern (its stats entry and explanations); two patterns of one name are an error.
Status RunPasses(Graph& graph, const std::string& spec, bool validate_each,
                 std::vector<std::pair<std::string, int>>* stats, Explanations* explain = nullptr,
                 const std::vector<std::shared_ptr<const UserPatternSet>>& patterns = {});

}  // namespace qrt
