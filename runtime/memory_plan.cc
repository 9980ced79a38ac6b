#include "runtime/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace qrt {

std::vector<size_t> PlanBuffers(const std::vector<BufferRequest>& requests, size_t* total) {
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });
  std::vector<size_t> offsets(requests.size(), 0);
  std::vector<size_t> placed;
  *total = 0;
  for (size_t idx : order) {
    const BufferRequest& r = requests[idx];
    // Conflicting placed buffers, sorted by offset; slide past each that overlaps.
    std::vector<size_t> conflicts;
    for (size_t p : placed) {
      const BufferRequest& q = requests[p];
      if (q.first <= r.last && r.first <= q.last) conflicts.push_back(p);
    }
    std::sort(conflicts.begin(), conflicts.end(),
              [&](size_t a, size_t b) { return offsets[a] < offsets[b]; });
    size_t offset = 0;
    for (size_t p : conflicts) {
      if (offset + r.bytes <= offsets[p]) break;
      offset = std::max(offset, offsets[p] + requests[p].bytes);
    }
    offsets[idx] = offset;
    placed.push_back(idx);
    *total = std::max(*total, offset + r.bytes);
  }
  return offsets;
}

}  // namespace qrt
