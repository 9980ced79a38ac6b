#include "ops/kernels/common/thread_scratch.h"

#include <cstdlib>
#include <memory>
#include <new>

namespace qrt {

void* ThreadScratch(ScratchSlot slot, size_t bytes) {
  struct Buffer {
    std::unique_ptr<void, decltype(&std::free)> data{nullptr, &std::free};
    size_t size = 0;
  };
  thread_local Buffer buffers[size_t(ScratchSlot::kCount)];
  Buffer& b = buffers[size_t(slot)];
  if (b.size < bytes || !b.data) {
    const size_t size = (bytes + 63) / 64 * 64 + 64;
    b.data.reset(std::aligned_alloc(64, size));
    if (!b.data) throw std::bad_alloc();
    b.size = size;
  }
  return b.data.get();
}

float* ThreadScratchFloats(ScratchSlot slot, size_t count) {
  return static_cast<float*>(ThreadScratch(slot, count * sizeof(float)));
}

}  // namespace qrt
