#include "tools/dot_writer.h"

#include <sstream>

namespace qrt::cli {
namespace {

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string GraphToDot(const Graph& g) {
  std::ostringstream os;
  os << "digraph " << Quote(g.name.empty() ? "qrt" : g.name) << " {\n  rankdir=TB;\n"
     << "  node [fontname=\"Helvetica\", fontsize=10];\n";
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    os << "  " << Quote("v:" + g.value(g.inputs[k]).name) << " [shape=oval, label=" << Quote(g.value(g.inputs[k]).name)
       << "];\n";
  }
  for (uint32_t i = 0; i < g.num_nodes(); ++i) {
    const Node& n = g.node(NodeId{i});
    if (n.dead) continue;
    const bool qrt_op = n.domain == "qrt";
    os << "  n" << i << " [shape=box, label=" << Quote(n.op_type + "\\n" + n.name)
       << (qrt_op ? ", style=filled, fillcolor=\"#f4a460\", penwidth=2" : "") << "];\n";
    for (ValueId in : n.inputs) {
      if (!in.valid()) continue;
      const Value& v = g.value(in);
      if (v.producer.valid()) {
        os << "  n" << v.producer.index << " -> n" << i << " [label=" << Quote(v.name) << "];\n";
      } else if (!v.constant) {
        os << "  " << Quote("v:" + v.name) << " -> n" << i << ";\n";
      }
    }
  }
  for (ValueId out : g.outputs) {
    const Value& v = g.value(out);
    os << "  " << Quote("o:" + v.name) << " [shape=oval, style=bold, label=" << Quote(v.name) << "];\n";
    if (v.producer.valid()) os << "  n" << v.producer.index << " -> " << Quote("o:" + v.name) << ";\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace qrt::cli
