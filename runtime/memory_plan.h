// Assigns arena offsets to buffers so that buffers alive at the same time never overlap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qrt {

struct BufferRequest {
  size_t bytes = 0;   // already rounded to the alignment the caller wants
  int64_t first = 0;  // first step that writes it
  int64_t last = 0;   // last step that reads it (inclusive)
};

// Greedy by size, largest first: each buffer takes the lowest offset that does not
// overlap a placed buffer with an intersecting lifetime. Returns offsets in request
// order and the arena size in `total`.
std::vector<size_t> PlanBuffers(const std::vector<BufferRequest>& requests, size_t* total);

}  // namespace qrt
