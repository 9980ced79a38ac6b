#include "passes/pass_manager.h"

#include <sstream>

#include "passes/passes.h"

namespace qrt {

const std::vector<Pass>& AllPasses() {
  static const std::vector<Pass> kPasses = {
      {"eliminate-identity", EliminateIdentity},
      {"fold-constants", FoldConstants},
      {"fuse-qdq-unary", FuseQdqUnary},
      {"fuse-dq-mul-q", FuseDqMulQ},
      {"fuse-dq-add-q", FuseDqAddQ},
      {"eliminate-dead-nodes", EliminateDeadNodes},
  };
  return kPasses;
}

Status RunPasses(Graph& graph, const std::string& spec, bool validate_each,
                 std::vector<std::pair<std::string, int>>* stats) {
  std::vector<const Pass*> selected;
  if (spec == "default" || spec.empty()) {
    for (const Pass& p : AllPasses()) selected.push_back(&p);
  } else if (spec != "none") {
    std::stringstream ss(spec);
    std::string name;
    while (std::getline(ss, name, ',')) {
      const Pass* found = nullptr;
      for (const Pass& p : AllPasses()) {
        if (p.name == name) found = &p;
      }
      if (found == nullptr) {
        std::string known;
        for (const Pass& p : AllPasses()) known += (known.empty() ? "" : ", ") + std::string(p.name);
        return InvalidArgument("unknown pass '", name, "' (known: ", known, ")");
      }
      selected.push_back(found);
    }
  }
  for (const Pass* p : selected) {
    StatusOr<int> n = p->run(graph);
    if (!n.ok()) return n.status().WithContext(StrCat("pass ", p->name));
    graph.Compact();
    if (validate_each) QRT_RETURN_IF_ERROR(graph.Validate().WithContext(StrCat("after pass ", p->name)));
    stats->emplace_back(std::string(p->name), *n);
  }
  return Status::Ok();
}

}  // namespace qrt
