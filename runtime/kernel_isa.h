// Which ISA tier each node's kernels use, for `qrt inspect --json`, `qrt bench --json` and
// qrt_model_kernel. Kernel selectors note the tier of what they pick (PickedAt); the planner
// opens a KernelIsaScope around each node's prepare and keeps the highest tier noted in it.
// A selector called outside any scope (a unit test, a run-time choice) notes nothing.
#pragma once

#include "runtime/cpu_features.h"

namespace qrt {

void NoteKernelIsa(Isa tier);

// Returns `kernel` after noting `tier`, so a selector can write
// `return CanUseAvx512(isa) ? PickedAt(Isa::kAvx512, avx512::F) : PickedAt(Isa::kAvx2, avx2::F);`.
template <class Fn>
Fn PickedAt(Isa tier, Fn kernel) {
  if (kernel != nullptr) NoteKernelIsa(tier);
  return kernel;
}

// Collects the notes of one thread while alive; nested scopes (a subgraph an op compiles) pass
// their highest tier on to the enclosing one.
class KernelIsaScope {
 public:
  KernelIsaScope();
  ~KernelIsaScope();
  KernelIsaScope(const KernelIsaScope&) = delete;
  KernelIsaScope& operator=(const KernelIsaScope&) = delete;
  Isa highest() const { return highest_; }

 private:
  friend void NoteKernelIsa(Isa tier);
  KernelIsaScope* outer_;
  Isa highest_ = Isa::kScalar;
};

}  // namespace qrt
