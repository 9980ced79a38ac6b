// The int8 path's steps of nbits_int8.h, read off ref::MatMulNbitsInt8.
#include "ops/kernels/nbits/nbits_int8.h"

#include <algorithm>
#include <vector>

namespace qrt::nbits {

int64_t Int8StepCapacity(int64_t block, int64_t blocks) { return blocks * block / 128 + 8; }

Int8Plan MakeInt8Plan(int64_t block, int64_t blocks, Int8Step* steps) {
  Int8Plan plan;
  auto add = [&](Int8Layout layout, int64_t b, int64_t span, int64_t offset, int64_t bytes) {
    Int8Step& s = steps[plan.count++];
    s.layout = layout;
    s.block = b;
    s.blocks = uint8_t(span);
    s.offset = offset;
    s.bytes = uint8_t(bytes);
    for (int l = 0; l < 16; ++l) {
      const int g = l / 4, r = l % 4;
      int off = 0;
      if (layout == Int8Layout::kPairs) off = l % 2;
      if (layout == Int8Layout::kGroups) off = block == 32 ? 2 * (r / 2) + g / 2 : g + 4 * (r / 2);
      s.lane_block[l] = uint8_t(off);
    }
  };
  const int64_t half = block / 2;
  int64_t b = 0;
  if (block >= 128) {
    for (; b < blocks; ++b) {
      for (int64_t sub = 0; sub < block / 128; ++sub) add(Int8Layout::kSpan, b, 1, b * half + sub * 64, 64);
    }
  } else if (block == 64) {
    for (; blocks - b >= 2; b += 2) add(Int8Layout::kPairs, b, 2, b * half, 64);
    for (; b < blocks; ++b) add(Int8Layout::kSpan, b, 1, b * half, 32);
  } else {
    const int64_t group = 128 / block;
    for (; blocks - b >= group; b += group) add(Int8Layout::kGroups, b, group, b * half, 64);
    plan.eight_lanes = true;
    plan.fold_at = plan.count;
    for (; b < blocks; ++b) {
      if (block == 32)
        add(Int8Layout::kSpan, b, 1, b * half, 16);
      else
        add(Int8Layout::kBytes, b, 1, b * half, 8);
    }
  }
  return plan;
}

void Int8WordIndex(Int8Layout layout, int16_t index[32]) {
  for (int l = 0; l < 16; ++l) {
    const int g = l / 4, q = l % 4;
    int first = l;
    if (layout == Int8Layout::kGroups) first = 16 * (q / 2) + 4 * g + q % 2;
    if (layout == Int8Layout::kPairs) first = 16 * (q % 2) + 4 * g + q / 2;
    index[2 * l] = int16_t(first);
    index[2 * l + 1] = int16_t(layout == Int8Layout::kSpan ? 16 + l : first + 2);
  }
}

void Int8RowByReference(const NbitsWeights& w, const float* row, bool paired, const float* bias, float* y) {
  const int64_t rows = paired ? 2 : 1;
  std::vector<float> a(size_t(rows * w.k)), out(size_t(rows * w.n));
  for (int64_t r = 0; r < rows; ++r) std::copy(row, row + w.k, a.begin() + r * w.k);
  ref::MatMulNbitsInt8(w, rows, a.data(), bias, out.data());
  std::copy(out.begin(), out.begin() + w.n, y);
}

}  // namespace qrt::nbits

namespace qrt {

std::vector<float> NbitsZeroPointTerms(const NbitsWeights& w) {
  std::vector<float> terms(size_t(w.blocks * w.n));
  for (int64_t j = 0; j < w.n; ++j) {
    for (int64_t b = 0; b < w.blocks; ++b) {
      terms[size_t(b * w.n + j)] = (-w.scales[j * w.blocks + b]) * float(w.zero_point(j, b));
    }
  }
  return terms;
}

}  // namespace qrt
