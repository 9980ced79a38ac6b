#include "runtime/parallel.h"

#include <omp.h>

#include <algorithm>

namespace qrt {

ScopedThreads::ScopedThreads(int threads) : previous_(omp_get_max_threads()) {
  const int t = std::max(1, threads);
  if (t != previous_) omp_set_num_threads(t);
}

ScopedThreads::~ScopedThreads() {
  if (omp_get_max_threads() != previous_) omp_set_num_threads(previous_);
}

void ParallelFor(int threads, int64_t n, int64_t align, int64_t min_per_thread,
                 const std::function<void(int64_t, int64_t)>& body) {
  const int64_t useful = min_per_thread > 0 ? n / min_per_thread : n;
  const int t = int(std::min<int64_t>(std::max(1, threads), std::max<int64_t>(1, useful)));
  if (t <= 1) {
    if (n > 0) body(0, n);
    return;
  }
  // Equal chunks rounded up to `align`; the last one takes the remainder.
  int64_t chunk = (n + t - 1) / t;
  chunk = (chunk + align - 1) / align * align;
#pragma omp parallel for num_threads(t) schedule(static, 1)
  for (int k = 0; k < t; ++k) {
    const int64_t begin = std::min<int64_t>(n, k * chunk), end = std::min<int64_t>(n, begin + chunk);
    if (begin < end) body(begin, end);
  }
}

}  // namespace qrt
