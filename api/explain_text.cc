#include "api/explain_text.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace qrt {

std::string ExplanationsText(const Explanations& all) {
  std::string text = "explain (per pass and pattern: the candidates rewritten, and those refused, by reason):\n";
  std::string pass;
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // in first-seen order
  auto flush = [&]() {
    for (const auto& [what, nodes] : groups) {
      text += "    " + what + " x" + std::to_string(nodes.size()) + ":";
      for (size_t i = 0; i < nodes.size() && i < 3; ++i) text += " " + nodes[i];
      text += nodes.size() > 3 ? " ...\n" : "\n";
    }
    groups.clear();
  };
  for (const Explanation& e : all) {
    if (pass != e.pass) {
      flush();
      pass = e.pass;
      text += "  " + pass + "\n";
    }
    const std::string what = e.pattern + (e.rewritten ? ": rewritten" : ": refused, " + e.reason);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == what; });
    if (it == groups.end()) it = groups.insert(groups.end(), {what, {}});
    it->second.push_back(e.node + " (" + e.op + ")");
  }
  flush();
  return text;
}

}  // namespace qrt
