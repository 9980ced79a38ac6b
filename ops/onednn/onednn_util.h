// Shared plumbing for the oneDNN wrappers: one CPU engine and one stream per thread (their
// per-thread scratch memory is ops/kernels/common/thread_scratch.h).
//
// Threads: qrt's oneDNN is built with OpenMP. A primitive uses omp_get_max_threads()
// threads, i.e. OMP_NUM_THREADS (default: all cores). qrt does not call
// omp_set_num_threads (it changes process-wide state other code may rely on); set
// OMP_NUM_THREADS=1 on a shared machine (docs/onednn-2.6.md, section 3: OpenMP barriers
// stall when another process occupies a core).
#pragma once

#include "runtime/cpu_features.h"

namespace dnnl {
struct engine;
struct stream;
}  // namespace dnnl

namespace qrt::onednn {

const dnnl::engine& Engine();
// This thread's stream on Engine().
dnnl::stream& ThreadStream();

// The tier of the code oneDNN dispatches to. oneDNN's ceiling is set once per process, before its
// first primitive: QRT_MAX_ISA's tier, and never above avx512-vnni (no bf16 or AMX code).
Isa Tier();
// Whether a graph compiled under the ceiling `isa` may run oneDNN primitives: oneDNN's tier is
// at or below it. Below (a per-model --isa lower than the process's), qrt's own kernels run.
bool UsableUnder(Isa isa);

}  // namespace qrt::onednn
