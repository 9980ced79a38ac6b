#include "ops/onednn/onednn_util.h"

#include <cstdlib>
#include <memory>

#include <oneapi/dnnl/dnnl.hpp>

namespace qrt::onednn {

const dnnl::engine& Engine() {
  static const dnnl::engine kEngine(dnnl::engine::kind::cpu, 0);
  return kEngine;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(Engine());
  return stream;
}

void* ThreadScratch(ScratchSlot slot, size_t bytes) {
  struct Buffer {
    std::unique_ptr<void, decltype(&std::free)> data{nullptr, &std::free};
    size_t size = 0;
  };
  thread_local Buffer buffers[kNumScratchSlots];
  Buffer& b = buffers[slot];
  if (b.size < bytes || !b.data) {
    const size_t size = (bytes + 63) / 64 * 64 + 64;
    b.data.reset(std::aligned_alloc(64, size));
    b.size = size;
  }
  return b.data.get();
}

}  // namespace qrt::onednn
