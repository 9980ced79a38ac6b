// Intra-op threads. qrt's own element-wise kernels split large runs with ParallelFor;
// oneDNN (built on OpenMP in Debian) takes its thread count from the calling thread's
// OpenMP setting, which ScopedThreads pins for the duration of a compile or a run.
#pragma once

#include <cstdint>
#include <functional>

namespace qrt {

// Sets the calling thread's OpenMP thread count to `threads` (>= 1) and restores the
// previous value when it ends, so embedding applications keep their own setting.
class ScopedThreads {
 public:
  explicit ScopedThreads(int threads);
  ~ScopedThreads();
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  int previous_;
};

// Calls body(begin, end) on disjoint chunks covering [0, n), on up to `threads` threads.
// Chunk boundaries are multiples of `align` elements (so vector kernels keep their
// alignment); below `min_per_thread` elements per thread it runs on the caller alone.
void ParallelFor(int threads, int64_t n, int64_t align, int64_t min_per_thread,
                 const std::function<void(int64_t begin, int64_t end)>& body);

}  // namespace qrt
