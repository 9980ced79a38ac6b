#include "runtime/kernel_isa.h"

namespace qrt {
namespace {
thread_local KernelIsaScope* current_scope = nullptr;
}  // namespace

void NoteKernelIsa(Isa tier) {
  if (current_scope != nullptr && tier > current_scope->highest_) current_scope->highest_ = tier;
}

KernelIsaScope::KernelIsaScope() : outer_(current_scope) { current_scope = this; }

KernelIsaScope::~KernelIsaScope() {
  current_scope = outer_;
  NoteKernelIsa(highest_);
}

}  // namespace qrt
