// ThreadScratchFloats: aligned, large enough, kept while big enough, separate per slot and thread.
#include "ops/kernels/common/thread_scratch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>

namespace qrt {
namespace {

TEST(ThreadScratch, AlignedGrowingAndSeparatePerSlotAndThread) {
  float* a = ThreadScratchFloats(ScratchSlot::kGemmPanel, 100);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  for (int i = 0; i < 100; ++i) a[i] = float(i);                   // writable to its size (ASan checks the bounds)
  EXPECT_EQ(ThreadScratchFloats(ScratchSlot::kGemmPanel, 50), a);  // big enough: the same buffer
  float* b = ThreadScratchFloats(ScratchSlot::kGemmTransposedB, 100);
  EXPECT_NE(b, a);
  float* c = ThreadScratchFloats(ScratchSlot::kGemmPanel, 1 << 20);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c) % 64, 0u);
  c[(1 << 20) - 1] = 1.f;
  float* other = nullptr;
  std::thread t([&] { other = ThreadScratchFloats(ScratchSlot::kGemmPanel, 16); });
  t.join();
  EXPECT_NE(other, c);
}

}  // namespace
}  // namespace qrt
