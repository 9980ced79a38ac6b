// Weights for VPMADDUBSW (AVX2's byte products): it adds the products of two unsigned bytes
// (up to 255) and two signed ones into an int16 that saturates. Where the two signed weights of
// a pair (k = 2i, 2i + 1) have one sign and |e1| + |e2| > 128 the sum can leave int16; where
// not, it cannot (255 * 128 < 2^15, either way). Such pairs are split: the larger weight keeps
// 128 - |other| and its excess goes to a correction list, which the kernels add back after
// their sums (byte times excess). Real weights have few such pairs (0.02-0.03% of the shared
// models'); random full-range ones a quarter, where the corrections cost more than the bytes
// gain and the kernels keep their int16 form (ByteFormPays).
#pragma once

#include <cstdint>
#include <vector>

namespace qrt {

struct PairCorrections {
  std::vector<int32_t> start{0};  // per row r: entries [start[r], start[r + 1]) of k, e
  std::vector<int32_t> k, e;
};

// Splits one row of k signed weights (each in -128..127) in place, appending its entries and
// closing its list in `corrections`.
void SplitSaturatingPairs(int32_t* weights, int64_t k, PairCorrections* corrections);

// Whether the byte form pays for `rows` rows of k weights with `corrections.k.size()` split
// pairs: at most one in 64 pairs (each costs about what a quad of products saves).
bool ByteFormPays(const PairCorrections& corrections, int64_t rows, int64_t k);

}  // namespace qrt
