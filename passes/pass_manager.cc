#include "passes/pass_manager.h"

#include <algorithm>
#include <sstream>

#include "passes/passes.h"

namespace qrt {

const std::vector<Pass>& AllPasses() {
  static const std::vector<Pass> kPasses = {
      {"eliminate-identity", EliminateIdentity, true},
      {"fold-constants", FoldConstants, true},
      {"fuse-qdq-unary", FuseQdqUnary, true},
      // Before fuse-integer-epilogue, whose fused ops the dtype check cannot see through.
      {"fuse-silu", FuseSilu, true},
      {"fuse-dq-int4-matmul", FuseDqInt4MatMul, true},
      {"fuse-dq-softmax-q", FuseDqSoftmaxQ, true},
      {"fuse-dq-maxpool-q", FuseDqMaxPoolQ, true},
      // Within one step of the float graph, not bit-exact, and slower than the unfused
      // float convolution until an exact fast int8 kernel exists for full-range weights:
      // opt-in ("default,fuse-qdq-conv").
      {"fuse-qdq-conv", FuseQdqConv, false},
      {"fuse-qdq-matmul", FuseQdqMatMul, false},  // the same, for MatMul and Gemm
      {"fuse-dq-mul-q", FuseDqMulQ, true},
      {"fuse-dq-add-q", FuseDqAddQ, true},
      // After the fusions above, which match the DQs it replaces.
      {"fuse-q-dq", FuseQDq, true},
      {"fuse-layernorm-fake-quant", FuseLayerNormFakeQuant, true},  // after fuse-q-dq, whose ops it takes
      // After fuse-layernorm-fake-quant: a Q -> DQ -> LayerNormalization -> Q -> DQ chain whose
      // pairs fuse-q-dq took stays in floats there; this takes the chains whose codes have
      // other readers (a Q read by two DQs, a QOperator consumer).
      {"fuse-dq-layernorm-q", FuseDqLayerNormQ, true},
      {"fuse-convtranspose-fake-quant", FuseConvTransposeFakeQuant, true},  // the same
      // Bit-identical and the fake-quantized input is never written (an [1,64,56,56] arena of
      // 803 KB becomes 256 B), but 5-15% slower than the two nodes on that shape on the CPU it
      // was measured on (docs/design.md): opt-in ("default,fuse-reduce-mean-fake-quant").
      {"fuse-reduce-mean-fake-quant", FuseReduceMeanFakeQuant, false},
      {"fuse-integer-epilogue", FuseIntegerEpilogue, true},  // after fold-constants (the bias)
      {"fuse-conv-fake-quant", FuseConvFakeQuant, true},     // after fuse-q-dq, whose ops it takes
      {"link-conv-codes", LinkConvCodes, true},              // after fuse-conv-fake-quant, whose ops it takes
      // After the fusions, which match ONNX Conv and NCHW chains.
      {"eliminate-dead-nodes", EliminateDeadNodes, true},
  };
  return kPasses;
}

Status RunPasses(Graph& graph, const std::string& spec, bool validate_each,
                 std::vector<std::pair<std::string, int>>* stats, Explanations* explain,
                 const std::vector<std::shared_ptr<const UserPatternSet>>& patterns) {
  std::vector<const Pass*> selected;
  auto add_default = [&] {
    for (const Pass& p : AllPasses()) {
      if (p.in_default) selected.push_back(&p);
    }
  };
  if (spec == "default" || spec.empty()) {
    add_default();
  } else if (spec != "none") {
    std::stringstream ss(spec);
    std::string name;
    while (std::getline(ss, name, ',')) {
      if (name == "default") {
        add_default();
        continue;
      }
      const Pass* found = nullptr;
      for (const Pass& p : AllPasses()) {
        if (p.name == name) found = &p;
      }
      if (found == nullptr) {
        std::string known = "default";
        for (const Pass& p : AllPasses()) known += ", " + std::string(p.name);
        return InvalidArgument("unknown pass '", name, "' (known: ", known, ")");
      }
      selected.push_back(found);
    }
  }
  // A list selects passes; they always run once each, in pipeline order (fusions before
  // the layout change, dead-node elimination last), whatever order the list names them in.
  std::vector<const Pass*> ordered;
  for (const Pass& p : AllPasses()) {
    if (std::find(selected.begin(), selected.end(), &p) != selected.end()) ordered.push_back(&p);
  }
  QRT_RETURN_IF_ERROR(CheckUserPatternNames(patterns));
  auto finish = [&](std::string_view name, const StatusOr<int>& n) -> Status {
    if (!n.ok()) return n.status().WithContext(StrCat("pass ", name));
    graph.Compact();
    // A pass that rewrote nothing left the graph as it was: validating it again would only
    // repeat the topological sort (a tenth of a second per pass at 10^6 nodes).
    if (validate_each && *n > 0) {
      QRT_RETURN_IF_ERROR(graph.Validate().WithContext(StrCat("after pass ", name)));
    }
    stats->emplace_back(std::string(name), *n);
    return Status::Ok();
  };
  auto run_user = [&](PatternStage stage) -> Status {
    for (const auto& set : patterns) {
      if (set == nullptr || set->stage() != stage) continue;
      for (size_t i = 0; i < set->size(); ++i) QRT_RETURN_IF_ERROR(finish(set->name(i), set->Run(i, graph, explain)));
    }
    return Status::Ok();
  };
  QRT_RETURN_IF_ERROR(run_user(PatternStage::kBefore));
  for (const Pass* p : ordered) QRT_RETURN_IF_ERROR(finish(p->name, p->run(graph, explain)));
  return run_user(PatternStage::kAfter);
}

}  // namespace qrt
