#include "tools/dot_writer.h"

#include <map>
#include <set>
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

std::string GraphToDot(const api::Graph& g, const std::string& name) {
  const std::vector<api::NodeInfo> nodes = g.nodes();
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& out : nodes[i].outputs) {
      if (!out.empty()) producer[out] = i;
    }
  }
  std::set<std::string> graph_inputs;
  std::ostringstream os;
  os << "digraph " << Quote(name.empty() ? "qrt" : name) << " {\n  rankdir=TB;\n"
     << "  node [fontname=\"Helvetica\", fontsize=10];\n";
  for (const api::ValueInfo& in : g.inputs()) {
    graph_inputs.insert(in.name);
    os << "  " << Quote("v:" + in.name) << " [shape=oval, label=" << Quote(in.name) << "];\n";
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const api::NodeInfo& n = nodes[i];
    os << "  n" << i << " [shape=box, label=" << Quote(n.op_type + "\\n" + n.name)
       << (n.domain == "qrt" ? ", style=filled, fillcolor=\"#f4a460\", penwidth=2" : "") << "];\n";
    for (const std::string& in : n.inputs) {
      auto p = producer.find(in);
      if (p != producer.end()) {
        os << "  n" << p->second << " -> n" << i << " [label=" << Quote(in) << "];\n";
      } else if (graph_inputs.count(in)) {
        os << "  " << Quote("v:" + in) << " -> n" << i << ";\n";
      }  // constants are not drawn
    }
  }
  for (const api::ValueInfo& out : g.outputs()) {
    os << "  " << Quote("o:" + out.name) << " [shape=oval, style=bold, label=" << Quote(out.name) << "];\n";
    auto p = producer.find(out.name);
    if (p != producer.end()) os << "  n" << p->second << " -> " << Quote("o:" + out.name) << ";\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace qrt::cli
