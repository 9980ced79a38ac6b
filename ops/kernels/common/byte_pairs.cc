#include "ops/kernels/common/byte_pairs.h"

#include <algorithm>
#include <cstddef>

namespace qrt {

namespace {

// Splits one row's groups: for `first` in steps of `span`, two words, word l taking k = first +
// 2l + each of `offsets` (those below k). In each group the largest weights of a sign give up
// their excess until that sign's magnitudes add up to at most 128.
template <size_t N>
void SplitGroups(int32_t* weights, int64_t k, int64_t span, const int64_t (&offsets)[N], PairCorrections* corrections) {
  for (int64_t first = 0; first < k; first += span) {
    for (int64_t word = 0; word < 2; ++word) {
      int64_t group[N];
      size_t n = 0;
      for (int64_t at : offsets) {
        if (first + 2 * word + at < k) group[n++] = first + 2 * word + at;
      }
      for (int32_t sign : {1, -1}) {
        int32_t excess = -128;
        for (size_t i = 0; i < n; ++i) excess += std::max(0, sign * weights[group[i]]);
        while (excess > 0) {
          size_t largest = 0;
          for (size_t i = 1; i < n; ++i) {
            if (sign * weights[group[i]] > sign * weights[group[largest]]) largest = i;
          }
          const int64_t at = group[largest];
          const int32_t cut = std::min(excess, sign * weights[at]);
          weights[at] -= sign * cut;
          corrections->k.push_back(int32_t(at));
          corrections->e.push_back(sign * cut);
          excess -= cut;
        }
      }
    }
  }
  corrections->start.push_back(int32_t(corrections->k.size()));
}

}  // namespace

// A pair of one sign past 128 gives its larger weight's excess (one entry): the larger keeps
// 128 - |the other|.
void SplitSaturatingPairs(int32_t* weights, int64_t k, PairCorrections* corrections) {
  SplitGroups(weights, k, 4, {0, 1}, corrections);
}

void SplitSaturatingQuadPairs(int32_t* weights, int64_t k, PairCorrections* corrections) {
  SplitGroups(weights, k, 8, {0, 1, 4, 5}, corrections);
}

bool SplitByteWeights(int32_t* weights, int64_t rows, int64_t k, PairCorrections* corrections, ByteSplit how) {
  std::vector<int32_t> by_pairs(weights, weights + rows * k);
  PairCorrections pair_entries, quad_entries;
  for (int64_t r = 0; r < rows; ++r) {
    SplitSaturatingPairs(by_pairs.data() + r * k, k, &pair_entries);
    SplitSaturatingQuadPairs(weights + r * k, k, &quad_entries);
  }
  // An entry costs about ten vector instructions per 16 columns; adding two quads' words saves
  // one per word, k / 4 a row.
  const int64_t extra = int64_t(quad_entries.k.size()) - int64_t(pair_entries.k.size());
  const bool quads = how == ByteSplit::kCheaper ? extra * 40 <= rows * k : how == ByteSplit::kQuadPairs;
  if (!quads) std::copy(by_pairs.begin(), by_pairs.end(), weights);
  PairCorrections& chosen = quads ? quad_entries : pair_entries;
  for (size_t r = 1; r < chosen.start.size(); ++r) chosen.start[r] += corrections->start.back();
  corrections->start.insert(corrections->start.end(), chosen.start.begin() + 1, chosen.start.end());
  corrections->k.insert(corrections->k.end(), chosen.k.begin(), chosen.k.end());
  corrections->e.insert(corrections->e.end(), chosen.e.begin(), chosen.e.end());
  return quads;
}

bool ByteFormPays(const PairCorrections& corrections, int64_t rows, int64_t k) {
  return int64_t(corrections.k.size()) * 64 <= rows * (k / 2);
}

}  // namespace qrt
