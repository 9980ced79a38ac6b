// The parsed form of a user pattern (passes/user_patterns.h), shared by its parser
// (user_pattern_parse.cc), matcher (user_pattern_match.cc) and rewriter
// (user_pattern_rewrite.cc). Every reference is resolved to an index when the file is parsed.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "passes/rewriter.h"
#include "runtime/attributes.h"
#include "runtime/graph.h"
#include "runtime/op_def.h"

namespace qrt {

// One input of a pattern or replacement node: a matched node's output, a free variable, an
// omitted input (""), or (replacements only) a literal constant.
struct PatternRef {
  enum class Kind { kAbsent, kNode, kVar, kConstant };
  Kind kind = Kind::kAbsent;
  int index = -1;           // the node (in its list) or the variable
  int output = 0;           // kNode: which output ("id:1")
  bool optional = false;    // kVar: "$x?" also matches an omitted input
  bool match_node = false;  // in a replacement, kNode: a node of the match (a shared one)
  std::string text;         // as written, for messages
};

// What a matched value must be. Keys of "constraints" (docs/patterns.md).
struct ValueConstraint {
  int constant = -1;             // 1: must be a constant, 0: must not be, -1: either
  int graph_input = -1;          // the same, for being a graph input
  std::vector<DataType> dtypes;  // empty: any
  bool scalar = false;           // exactly one element (shape [] or [1])
  bool scale = false;            // a constant float32 whose elements are non-zero and at most 1e30
  std::optional<double> value;   // a one-element constant within `tolerance` of this
  double tolerance = 0;
};

struct MatchNodeSpec {
  std::string id;
  const OpDef* def = nullptr;
  std::vector<PatternRef> inputs;
  // Attribute name -> the value it must have, or nullopt: it must be absent.
  std::vector<std::pair<std::string, std::optional<AttrValue>>> attrs;
  bool commutative = false;  // try the two operands in both orders
  bool shared = false;       // may have readers outside the match; kept while it has them
  std::vector<std::pair<int, ValueConstraint>> output_constraints;  // (output, constraint)
};

struct VarSpec {
  std::string name;  // without the '$'
  ValueConstraint constraint;
};

// A replacement attribute: a literal, or a scalar (or 1-D) constant bound to a variable.
struct ReplaceAttr {
  std::string name;
  std::optional<AttrValue> literal;
  int var = -1;
};

struct ReplaceNodeSpec {
  std::string id;
  const OpDef* def = nullptr;
  std::vector<PatternRef> inputs;
  std::vector<ReplaceAttr> attrs;
  int num_outputs = 1;
};

struct UserPattern {
  std::string source, name, description;
  std::vector<MatchNodeSpec> nodes;  // match nodes, as written
  std::vector<VarSpec> vars;
  std::vector<int> order;  // match nodes, the output first, every node after all its readers
  int output = -1;         // the match node whose output 0 the replacement replaces
  enum class Kind { kLookupTable, kNodes } kind = Kind::kNodes;
  int table_input = -1;                  // kLookupTable: the variable of the 8-bit input
  std::vector<ReplaceNodeSpec> replace;  // kNodes, producers first
  std::vector<Tensor> constants;         // literal constants of the replacement (PatternRef::index)
  PatternRef replace_output;             // kNodes: the value that takes the match output's place

  // "file: pattern 'name': " + message, as every error about this pattern reads.
  std::string Where() const { return StrCat(source, ": pattern '", name, "'"); }
};

// A match: the graph node of each match node and the value of each variable (an invalid id for
// an optional input that is omitted).
struct PatternMatch {
  std::vector<NodeId> nodes;
  std::vector<ValueId> vars;
};

// Matches `p` with its output node at `anchor`; "" and `m` filled, or the reason it does not match.
std::string MatchUserPattern(const Graph& g, const UserPattern& p, NodeId anchor, PatternMatch* m);

// The dtype of `v` where the graph implies it (declared, a constant's, through element-wise ops,
// or the zero point of a QuantizeLinear making it or a DequantizeLinear reading it); kUndefined
// otherwise.
DataType KnownDtype(const Graph& g, ValueId v);

// Applies `p` at `anchor` (the driver's apply function).
StatusOr<Verdict> ApplyUserPattern(const UserPattern& p, Rewriter& rw, NodeId anchor);

}  // namespace qrt
