#include "runtime/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace qrt {
namespace {

// The requests' lifetimes, sorted by first step, in a max-segment tree of their last steps:
// the requests whose lifetime meets [a, b] are those with first <= b (a prefix of the order)
// and last >= a, found by descending only into subtrees whose largest last is >= a. Each
// query costs O((k + 1) log n) for k results, so planning a long chain is O(n log n) where
// comparing every buffer with every placed one was O(n^2).
class LifetimeIndex {
 public:
  explicit LifetimeIndex(const std::vector<BufferRequest>& requests) : requests_(requests) {
    by_first_.resize(requests.size());
    std::iota(by_first_.begin(), by_first_.end(), size_t(0));
    std::sort(by_first_.begin(), by_first_.end(), [&](size_t x, size_t y) {
      return requests[x].first != requests[y].first ? requests[x].first < requests[y].first : x < y;
    });
    size_ = 1;
    while (size_ < by_first_.size()) size_ *= 2;
    max_last_.assign(2 * size_, INT64_MIN);
    for (size_t i = 0; i < by_first_.size(); ++i) max_last_[size_ + i] = requests[by_first_[i]].last;
    for (size_t n = size_; n-- > 1;) max_last_[n] = std::max(max_last_[2 * n], max_last_[2 * n + 1]);
  }

  // Appends to `out` every request whose lifetime intersects [a, b].
  void Overlapping(int64_t a, int64_t b, std::vector<size_t>& out) const {
    const size_t prefix = size_t(std::upper_bound(by_first_.begin(), by_first_.end(), b,
                                                  [&](int64_t v, size_t i) { return v < requests_[i].first; }) -
                                 by_first_.begin());
    if (prefix == 0) return;
    // Node n covers leaves [lo, hi); visit those inside the prefix whose maximum reaches a.
    stack_.clear();
    stack_.push_back({1, 0, size_});
    while (!stack_.empty()) {
      const Span s = stack_.back();
      stack_.pop_back();
      if (s.lo >= prefix || max_last_[s.node] < a) continue;
      if (s.node >= size_) {
        out.push_back(by_first_[s.lo]);
        continue;
      }
      const size_t mid = (s.lo + s.hi) / 2;
      stack_.push_back({2 * s.node + 1, mid, s.hi});
      stack_.push_back({2 * s.node, s.lo, mid});
    }
  }

 private:
  struct Span {
    size_t node, lo, hi;
  };
  const std::vector<BufferRequest>& requests_;
  std::vector<size_t> by_first_;
  std::vector<int64_t> max_last_;
  size_t size_ = 1;
  mutable std::vector<Span> stack_;
};

}  // namespace

std::vector<size_t> PlanBuffers(const std::vector<BufferRequest>& requests, size_t* total) {
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });
  std::vector<size_t> offsets(requests.size(), 0);
  std::vector<char> placed(requests.size(), 0);
  const LifetimeIndex lifetimes(requests);
  std::vector<size_t> overlapping, conflicts;
  *total = 0;
  for (size_t idx : order) {
    const BufferRequest& r = requests[idx];
    // Placed buffers whose lifetimes intersect r's, by offset; slide past each that overlaps.
    overlapping.clear();
    lifetimes.Overlapping(r.first, r.last, overlapping);
    conflicts.clear();
    for (size_t p : overlapping) {
      if (placed[p]) conflicts.push_back(p);
    }
    std::sort(conflicts.begin(), conflicts.end(),
              [&](size_t a, size_t b) { return offsets[a] != offsets[b] ? offsets[a] < offsets[b] : a < b; });
    size_t offset = 0;
    for (size_t p : conflicts) {
      if (offset + r.bytes <= offsets[p]) break;
      offset = std::max(offset, offsets[p] + requests[p].bytes);
    }
    offsets[idx] = offset;
    placed[idx] = 1;
    *total = std::max(*total, offset + r.bytes);
  }
  return offsets;
}

}  // namespace qrt
