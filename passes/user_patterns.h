// User-defined fusion patterns: a JSON file (docs/patterns.md) declares small dataflow patterns
// and what replaces each one (a lookup table, a qrt op, or a subgraph), so a fusion can be added
// without rebuilding qrt. Each pattern runs as a pass of its own through the rewrite driver
// (passes/rewriter.h): to a fixed point, with the 64-round guard, its rewrites and refusals
// recorded for `explain` under the pattern's name.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "passes/rewriter.h"
#include "runtime/graph.h"

namespace qrt {

// When a file's patterns run: before the pass pipeline, or after it (the default).
enum class PatternStage { kBefore, kAfter };

struct UserPattern;  // one parsed pattern (passes/user_pattern_spec.h)

// The patterns of one file, in file order. Immutable once parsed; shared by every model
// compiled with it, on any thread.
class UserPatternSet {
 public:
  UserPatternSet(std::string source, PatternStage stage, std::vector<std::shared_ptr<const UserPattern>> patterns);

  const std::string& source() const { return source_; }  // the path, or what the caller named the text
  PatternStage stage() const { return stage_; }
  size_t size() const { return patterns_.size(); }
  const std::string& name(size_t i) const;
  const std::string& description(size_t i) const;

  // Applies pattern i to `graph` until it rewrites nothing more; returns the rewrites. A
  // replacement that would change the dtype or shape of the value it replaces is an error
  // naming the source and the pattern; every other mismatch is a refusal with its reason.
  StatusOr<int> Run(size_t i, Graph& graph, Explanations* explain) const;

 private:
  std::string source_;
  PatternStage stage_;
  std::vector<std::shared_ptr<const UserPattern>> patterns_;
};

// Parses one pattern file's JSON text; `source` (a path, or "<python>") names it in every
// error. Malformed JSON, unknown keys, unknown ops, dangling references and a replacement whose
// output dtype cannot match are errors of the form "gelu.json: pattern 'gelu-to-table': ...".
StatusOr<std::shared_ptr<const UserPatternSet>> ParseUserPatterns(std::string_view json_text,
                                                                  const std::string& source);
// Reads and parses a pattern file (an IoError naming it if it cannot be read).
StatusOr<std::shared_ptr<const UserPatternSet>> LoadUserPatternFile(const std::string& path);

// An error if two patterns of `sets` share a name (their stats and explanations would mix).
Status CheckUserPatternNames(const std::vector<std::shared_ptr<const UserPatternSet>>& sets);

}  // namespace qrt
