// Shared plumbing for the oneDNN wrappers: one CPU engine and one stream per thread (their
// per-thread scratch memory is ops/kernels/common/thread_scratch.h).
//
// Threads: qrt's oneDNN is built with OpenMP. A primitive uses omp_get_max_threads()
// threads, i.e. OMP_NUM_THREADS (default: all cores). qrt does not call
// omp_set_num_threads (it changes process-wide state other code may rely on); set
// OMP_NUM_THREADS=1 on a shared machine (docs/onednn-2.6.md, section 3: OpenMP barriers
// stall when another process occupies a core).
#pragma once

namespace dnnl {
struct engine;
struct stream;
}  // namespace dnnl

namespace qrt::onednn {

const dnnl::engine& Engine();
// This thread's stream on Engine().
dnnl::stream& ThreadStream();

}  // namespace qrt::onednn
