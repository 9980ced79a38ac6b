// The int8 path's steps of nbits_int8.h, read off ref::MatMulNbitsInt8.
#include "ops/kernels/nbits/nbits_int8.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace qrt::nbits {

int64_t Int8StepCapacity(int64_t block, int64_t blocks) { return blocks * block / 128 + 8; }

Int8Plan MakeInt8Plan(int64_t block, int64_t blocks, bool vnni_spans, Int8Step* steps) {
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
      if (layout == Int8Layout::kPairs && span == 2) off = l % 2;
      if (layout == Int8Layout::kGroups) off = block == 32 ? 2 * (r / 2) + g / 2 : g + 4 * (r / 2);
      s.lane_block[l] = uint8_t(off);
    }
  };
  const int64_t half = block / 2;
  int64_t b = 0;
  if (block >= 128) {
    for (; b < blocks; ++b) {
      for (int64_t sub = 0; sub < block / 128; ++sub) {
        add(vnni_spans ? Int8Layout::kSpan : Int8Layout::kPairs, b, 1, b * half + sub * 64, 64);
      }
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

int64_t Lanes8StepCapacity(int64_t block, int64_t blocks) { return blocks * std::max<int64_t>(1, block / 64) + blocks; }

int64_t MakeLanes8Plan(int64_t block, int64_t blocks, bool block_steps, Lanes8Step* steps) {
  static constexpr int kChunkLane[8] = {0, 8, 32, 40, 16, 24, 48, 56};  // its first k
  int64_t count = 0;
  auto add = [&](Lanes8Kind kind, int64_t b, int64_t span, int64_t offset) {
    Lanes8Step& s = steps[count++];
    s.kind = kind;
    s.block = b;
    s.span = uint8_t(span);
    s.offset = offset;
    for (int l = 0; l < 8; ++l) s.lane_block[l] = kind != Lanes8Kind::kChunk ? 0 : int32_t(kChunkLane[l] / block);
  };
  const int64_t half = block / 2;
  int64_t b = 0;
  if (block == 16) {
    for (; blocks - b >= 4; b += 4) add(Lanes8Kind::kChunk, b, 4, b * half);
    for (; b < blocks; ++b) add(Lanes8Kind::kPairs, b, 1, b * half);
  } else if (block == 32) {
    for (; blocks - b >= 2; b += 2) {
      if (block_steps) {
        add(Lanes8Kind::kQuadPair, b, 2, b * half);
      } else {
        add(Lanes8Kind::kChunk, b, 2, b * half);
      }
    }
    if (b < blocks) add(Lanes8Kind::kQuads, b, 1, b * half);
  } else {
    for (; b < blocks; ++b) {
      for (int64_t o = 0; o < half; o += 32) add(Lanes8Kind::kChunk, b, 1, b * half + o);
    }
  }
  return count;
}

int Lanes8SourceByte(Lanes8Kind kind, int p) {
  static constexpr int kChunkDword[8] = {0, 1, 4, 5, 2, 3, 6, 7};
  const int d = p / 4, t = p % 4;
  switch (kind) {
    case Lanes8Kind::kChunk:
      return 4 * kChunkDword[d] + t;
    case Lanes8Kind::kQuads:
      return t < 2 ? 2 * d + t : -1;
    case Lanes8Kind::kPairs:
      return t == 0 ? d : -1;
    case Lanes8Kind::kQuadPair:
      return p;
  }
  return -1;
}

void Lanes8RowByReference(const NbitsWeights& w, const float* row, bool one_row, const float* bias, float* y) {
  const int64_t rows = one_row ? 1 : 2;  // several rows: each row's order is the same
  std::vector<float> a(size_t(rows * w.k)), out(size_t(rows * w.n));
  for (int64_t r = 0; r < rows; ++r) std::copy(row, row + w.k, a.begin() + r * w.k);
  ref::MatMulNbitsInt8Lanes8(w, rows, a.data(), bias, out.data());
  std::copy(out.begin(), out.begin() + w.n, y);
}

namespace {

// An int8 code of A: rint(v) when it is a number in int8's range. NaN, infinities and values past
// int8 (a subnormal amax makes 127 / amax infinite) give -128: x86's conversion returns INT32_MIN
// for them and a saturating narrow keeps -128. Written out so such inputs are defined behaviour;
// ORT's output for them was not compared.
int32_t Int8Code(float v) {
  if (!(v >= -128.5f && v <= 127.5f)) return -128;
  return int32_t(std::clamp(std::nearbyint(v), -128.f, 127.f));
}

}  // namespace

void QuantizeRowReference(const NbitsWeights& w, const float* row, int32_t* qa, float* sa, float* asum) {
  for (int64_t b = 0; b < w.blocks; ++b) {
    const int64_t k0 = b * w.block, k1 = std::min(w.k, k0 + w.block);
    float amax = 0.f;
    for (int64_t kk = k0; kk < k1; ++kk) amax = std::max(amax, std::fabs(row[kk]));
    sa[b] = amax / 127.f;
    const float inv = amax != 0.f ? 127.f / amax : 0.f;
    int32_t sum = 0;
    for (int64_t kk = k0; kk < k0 + w.block; ++kk) {
      const int32_t q = kk < k1 ? Int8Code(row[kk] * inv) : 0;
      qa[kk] = q;
      sum += q;
    }
    asum[b] = sa[b] * float(sum);
  }
}

void Int8RowByReference(NbitsInt8Fn reference, const NbitsWeights& w, const float* row, bool paired, const float* bias,
                        float* y) {
  const int64_t rows = paired ? 2 : 1;
  std::vector<float> a(size_t(rows * w.k)), out(size_t(rows * w.n));
  for (int64_t r = 0; r < rows; ++r) std::copy(row, row + w.k, a.begin() + r * w.k);
  reference(w, rows, a.data(), bias, out.data());
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
