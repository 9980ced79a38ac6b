// PlanBuffers: buffers alive at the same step never share bytes, and buffers with
// disjoint lifetimes share memory.
#include "runtime/memory_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

namespace qrt {
namespace {

std::string Describe(const std::vector<BufferRequest>& r, const std::vector<size_t>& offsets) {
  std::ostringstream os;
  for (size_t i = 0; i < r.size(); ++i) {
    os << "  #" << i << " bytes " << r[i].bytes << " steps [" << r[i].first << "," << r[i].last << "] offset "
       << (i < offsets.size() ? offsets[i] : 0) << "\n";
  }
  return os.str();
}

// Checks the planner's promises; returns "" or a description of the first violation.
std::string CheckPlan(const std::vector<BufferRequest>& r, const std::vector<size_t>& offsets, size_t total) {
  if (offsets.size() != r.size()) return "wrong number of offsets";
  size_t sum = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    sum += r[i].bytes;
    if (offsets[i] + r[i].bytes > total) return "buffer " + std::to_string(i) + " ends past the arena";
    for (size_t j = i + 1; j < r.size(); ++j) {
      const bool live_together = r[i].first <= r[j].last && r[j].first <= r[i].last;
      const bool overlap = offsets[i] < offsets[j] + r[j].bytes && offsets[j] < offsets[i] + r[i].bytes;
      if (live_together && overlap && r[i].bytes && r[j].bytes) {
        return "buffers " + std::to_string(i) + " and " + std::to_string(j) + " overlap while both live";
      }
    }
  }
  if (total > sum) return "arena larger than the sum of all buffers";
  // Lower bound: the bytes live at the busiest step.
  int64_t max_step = 0;
  for (const auto& b : r) max_step = std::max(max_step, b.last);
  for (int64_t s = 0; s <= max_step; ++s) {
    size_t live = 0;
    for (const auto& b : r) {
      if (b.first <= s && s <= b.last) live += b.bytes;
    }
    if (live > total) return "arena smaller than the bytes live at step " + std::to_string(s);
  }
  return "";
}

TEST(MemoryPlan, Empty) {
  size_t total = 123;
  EXPECT_TRUE(PlanBuffers({}, &total).empty());
  EXPECT_EQ(total, 0u);
}

TEST(MemoryPlan, ChainReusesMemory) {
  // A chain: buffer k is written at step k and read at step k+1. Two buffers suffice.
  std::vector<BufferRequest> r;
  for (int k = 0; k < 8; ++k) r.push_back({256, k, k + 1});
  size_t total = 0;
  std::vector<size_t> off = PlanBuffers(r, &total);
  EXPECT_EQ(CheckPlan(r, off, total), "") << Describe(r, off);
  EXPECT_EQ(total, 512u) << Describe(r, off);
}

TEST(MemoryPlan, DisjointLifetimesShareOneSlot) {
  std::vector<BufferRequest> r = {{64, 0, 0}, {128, 1, 1}, {192, 2, 2}, {64, 3, 3}};
  size_t total = 0;
  std::vector<size_t> off = PlanBuffers(r, &total);
  EXPECT_EQ(CheckPlan(r, off, total), "") << Describe(r, off);
  EXPECT_EQ(total, 192u);
  for (size_t o : off) EXPECT_EQ(o, 0u);
}

TEST(MemoryPlan, AllLiveTogetherNeedsTheSum) {
  std::vector<BufferRequest> r = {{64, 0, 5}, {128, 1, 5}, {192, 2, 5}, {64, 3, 5}};
  size_t total = 0;
  std::vector<size_t> off = PlanBuffers(r, &total);
  EXPECT_EQ(CheckPlan(r, off, total), "") << Describe(r, off);
  EXPECT_EQ(total, 448u);
}

TEST(MemoryPlan, FillsAGapBetweenBuffers) {
  // Big buffers A [0..64) and C [128..192) are live throughout; B dies early, so D fits into
  // B's hole at [64..128) when their lifetimes do not meet.
  std::vector<BufferRequest> r = {{64, 0, 9}, {64, 0, 2}, {64, 0, 9}, {64, 3, 9}};
  size_t total = 0;
  std::vector<size_t> off = PlanBuffers(r, &total);
  EXPECT_EQ(CheckPlan(r, off, total), "") << Describe(r, off);
  EXPECT_EQ(total, 192u) << Describe(r, off);
}

TEST(MemoryPlan, RandomizedNeverOverlapsLiveBuffers) {
  const uint32_t seed = 20240611;
  std::mt19937 rng(seed);
  size_t total_reused = 0, total_sum = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const int n = int(rng() % 40);
    const int steps = 1 + int(rng() % 30);
    std::vector<BufferRequest> r;
    for (int i = 0; i < n; ++i) {
      BufferRequest b;
      b.bytes = (rng() % 8 == 0) ? 0 : 64 * (1 + rng() % 32);
      b.first = int64_t(rng() % uint32_t(steps));
      b.last = b.first + int64_t(rng() % 6);
      r.push_back(b);
    }
    size_t total = 0;
    std::vector<size_t> off = PlanBuffers(r, &total);
    const std::string err = CheckPlan(r, off, total);
    ASSERT_EQ(err, "") << "seed " << seed << " trial " << trial << "\n" << Describe(r, off);
    total_reused += total;
    for (const auto& b : r) total_sum += b.bytes;
  }
  // Short random lifetimes over up to 30 steps: reuse must save a lot overall.
  EXPECT_LT(total_reused, total_sum / 2) << total_reused << " of " << total_sum;
}

// The planner's definition, quadratic: largest first, each buffer at the lowest offset past
// every placed buffer whose lifetime meets its own (by offset, then request order).
std::vector<size_t> PlanByDefinition(const std::vector<BufferRequest>& requests, size_t* total) {
  std::vector<size_t> order(requests.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });
  std::vector<size_t> offsets(requests.size(), 0), placed;
  *total = 0;
  for (size_t idx : order) {
    const BufferRequest& r = requests[idx];
    std::vector<size_t> conflicts;
    for (size_t p : placed) {
      if (requests[p].first <= r.last && r.first <= requests[p].last) conflicts.push_back(p);
    }
    std::sort(conflicts.begin(), conflicts.end(),
              [&](size_t a, size_t b) { return offsets[a] != offsets[b] ? offsets[a] < offsets[b] : a < b; });
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

TEST(MemoryPlan, IndexedPlannerEqualsTheDefinition) {
  std::mt19937 rng(77);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = int(rng() % 200);
    const int steps = 1 + int(rng() % 100);
    std::vector<BufferRequest> r;
    for (int i = 0; i < n; ++i) {
      BufferRequest b;
      b.bytes = (rng() % 8 == 0) ? 0 : 64 * (1 + rng() % 16);  // equal sizes and empty buffers too
      b.first = int64_t(rng() % uint32_t(steps));
      b.last = b.first + int64_t(rng() % 4 == 0 ? rng() % uint32_t(steps) : rng() % 3);  // some live long
      r.push_back(b);
    }
    size_t total = 0, want_total = 0;
    const std::vector<size_t> got = PlanBuffers(r, &total);
    const std::vector<size_t> want = PlanByDefinition(r, &want_total);
    ASSERT_EQ(got, want) << "trial " << trial << "\n" << Describe(r, got);
    ASSERT_EQ(total, want_total);
  }
}

TEST(MemoryPlan, LongChainReusesTwoSlots) {
  // 200000 steps, each buffer written at step i and read at i + 1: two slots, whatever n.
  std::vector<BufferRequest> r(200000);
  for (size_t i = 0; i < r.size(); ++i) r[i] = BufferRequest{64, int64_t(i), int64_t(i) + 1};
  size_t total = 0;
  const std::vector<size_t> off = PlanBuffers(r, &total);
  EXPECT_EQ(total, 128u);
  EXPECT_NE(off[0], off[1]);
  EXPECT_EQ(off[0], off[2]);
}

}  // namespace
}  // namespace qrt
