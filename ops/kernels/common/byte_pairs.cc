#include "ops/kernels/common/byte_pairs.h"

#include <cstdlib>

namespace qrt {

void SplitSaturatingPairs(int32_t* weights, int64_t k, PairCorrections* corrections) {
  for (int64_t i = 0; i + 1 < k; i += 2) {
    const int32_t a = weights[i], b = weights[i + 1];
    if ((a > 0) != (b > 0) || a == 0 || b == 0 || std::abs(a) + std::abs(b) <= 128) continue;
    const int64_t big = std::abs(a) >= std::abs(b) ? i : i + 1;
    const int32_t e = weights[big], small = std::abs(big == i ? b : a);
    const int32_t kept = e > 0 ? 128 - small : small - 128;
    weights[big] = kept;
    corrections->k.push_back(int32_t(big));
    corrections->e.push_back(e - kept);
  }
  corrections->start.push_back(int32_t(corrections->k.size()));
}

bool ByteFormPays(const PairCorrections& corrections, int64_t rows, int64_t k) {
  return int64_t(corrections.k.size()) * 64 <= rows * (k / 2);
}

}  // namespace qrt
