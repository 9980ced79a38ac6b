// Weights for VPMADDUBSW (AVX2's byte products): it adds the products of two unsigned bytes
// (up to 255) and two signed ones into an int16 that saturates. Where the two signed weights of
// a pair (k = 2i, 2i + 1) have one sign and |e1| + |e2| > 128 the sum can leave int16; where
// not, it cannot (255 * 128 < 2^15, either way). The kernels can also add two quads' words in
// int16 before VPMADDWD widens them (a quarter fewer multiplies): then each word takes four
// weights, and stays within int16 where the positive ones add up to at most 128 and so do the
// negative ones' magnitudes. Weights past these limits are split: the largest give up their
// excess to a correction list, which the kernels add back after their sums (byte times excess).
// Real symmetric weights have few such pairs (0.02-0.03% of the shared models') and words of
// two quads (0.2-0.8%); weights with a zero point far from the middle, as ConvInteger's uint8
// ones, have many more words (16% of a YOLOX's), and random full-range ones most, where the
// corrections cost more than the bytes gain and the kernels keep their int16 form (ByteFormPays).
#pragma once

#include <cstdint>
#include <vector>

namespace qrt {

struct PairCorrections {
  std::vector<int32_t> start{0};  // per row r: entries [start[r], start[r + 1]) of k, e
  std::vector<int32_t> k, e;
};

// Splits one row of k signed weights (each in -128..127) in place, appending its entries and
// closing its list in `corrections`: by pairs, or by the words of two quads (word l of quads 2j
// and 2j + 1 takes k = 8j + 2l + {0, 1, 4, 5}); the largest weights give up their excess first
// (as few entries as it takes).
void SplitSaturatingPairs(int32_t* weights, int64_t k, PairCorrections* corrections);
void SplitSaturatingQuadPairs(int32_t* weights, int64_t k, PairCorrections* corrections);

// Splits `rows` rows of k weights (row after row, in place) by the words of two quads where
// their extra entries cost less than the multiplies they save, else by pairs (or as `how`
// forces: tests); true: by the words of two quads.
enum class ByteSplit { kCheaper, kPairs, kQuadPairs };
bool SplitByteWeights(int32_t* weights, int64_t rows, int64_t k, PairCorrections* corrections,
                      ByteSplit how = ByteSplit::kCheaper);

// Whether the byte form pays for `rows` rows of k weights with `corrections.k.size()` entries:
// at most one in 64 pairs of weights (each costs about what a quad of products saves).
bool ByteFormPays(const PairCorrections& corrections, int64_t rows, int64_t k);

}  // namespace qrt
