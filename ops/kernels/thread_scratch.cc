#include "ops/kernels/thread_scratch.h"

#include <cstdlib>
#include <memory>
#include <new>

namespace qrt {
namespace {

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

struct Buffer {
  std::unique_ptr<float, FreeDeleter> data;
  size_t capacity = 0;
};

}  // namespace

float* ThreadScratchFloats(ScratchSlot slot, size_t count) {
  thread_local Buffer buffers[size_t(ScratchSlot::kCount)];
  Buffer& b = buffers[size_t(slot)];
  if (count > b.capacity) {
    const size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, bytes);
    if (p == nullptr) throw std::bad_alloc();
    b.data.reset(static_cast<float*>(p));
    b.capacity = bytes / sizeof(float);
  }
  return b.data.get();
}

}  // namespace qrt
