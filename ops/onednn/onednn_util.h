// Shared plumbing for the oneDNN wrappers: one CPU engine, one stream per thread, and
// per-thread scratch memory.
//
// Threads: qrt's oneDNN is built with OpenMP. A primitive uses omp_get_max_threads()
// threads, i.e. OMP_NUM_THREADS (default: all cores). qrt does not call
// omp_set_num_threads (it changes process-wide state other code may rely on); set
// OMP_NUM_THREADS=1 on a shared machine (docs/onednn-2.6.md, section 3: OpenMP barriers
// stall when another process occupies a core).
#pragma once

#include <cstddef>

namespace dnnl {
struct engine;
struct stream;
}  // namespace dnnl

namespace qrt::onednn {

const dnnl::engine& Engine();
// This thread's stream on Engine().
dnnl::stream& ThreadStream();

// Scratch slots: each caller in one run step uses its own slot.
enum ScratchSlot { kSrcSlot = 0, kDstSlot, kPadSlot, kOpSlot0, kOpSlot1, kOpSlot2, kNumScratchSlots };

// Per-thread buffer of at least `bytes` bytes, 64-byte aligned. Valid until the next call
// with the same slot on this thread. A compiled plan is shared by sessions on many
// threads and the executor has no workspace, so run-time temporaries cannot live in a
// kernel's const state: the buffer grows on first use and is reused afterwards.
void* ThreadScratch(ScratchSlot slot, size_t bytes);

}  // namespace qrt::onednn
