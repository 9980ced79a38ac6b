// The specification of the ordered GEMM (sgemm.h), one output element at a time.
#include <algorithm>
#include <cmath>

#include "ops/kernels/gemm/sgemm.h"

namespace qrt {

void InterleaveCodedRows(const uint8_t* rows, int64_t n, int64_t stride, uint8_t* out) {
  const int64_t grouped = n / 4 * 4;
  for (int64_t g = 0; g < grouped; g += 4) {
    for (int64_t r = 0; r < 4; ++r) {
      for (int64_t p = 0; p < stride; p += 8) {
        std::copy(rows + (g + r) * stride + p, rows + (g + r) * stride + p + 8, out + g * stride + 4 * p + 8 * r);
      }
    }
  }
  std::copy(rows + grouped * stride, rows + n * stride, out + grouped * stride);
}

int64_t SgemmStrideK(int64_t n, int64_t k) {
  int64_t stride_n = 128, stride_k = 128;
  if (k < 1) return stride_k;  // nothing to cut (and the halving below needs k >= 1)
  if (n >= k) {
    while (stride_k / 2 >= k) stride_n *= 2, stride_k /= 2;
  } else {
    while (stride_n > 16 && stride_n / 2 >= n) stride_k *= 2, stride_n /= 2;
  }
  return stride_k;
}

float SgemmRowLanesDot(const float* s, int64_t j, int64_t n) {
  const int64_t fours = n / 4 * 4;
  if (j < fours) return (((s[0] + s[1]) + s[2]) + s[3]) + (((s[4] + s[5]) + s[6]) + s[7]);
  if (j < fours + 2 && n - fours >= 2) return ((s[0] + s[2]) + (s[4] + s[6])) + ((s[1] + s[3]) + (s[5] + s[7]));
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

int64_t SgemmBlockK(const SgemmArgs& g) {
  constexpr int64_t kPackedStrideK = 256;
  return g.packed_b ? kPackedStrideK : SgemmStrideK(g.rule_n > 0 ? g.rule_n : g.n, g.k);
}

bool SgemmOneRowOrder(const SgemmArgs& g) {
  return g.m == 1 && g.one_row_kernels && !g.packed_b && g.b_rows == nullptr;
}

namespace ref {
namespace {

float RowTimesColumn(const SgemmArgs& g, int64_t i, int64_t j, int64_t p0, int64_t count) {
  const float* a = g.a + i * g.lda + p0;
  float acc = 0.f;
  for (int64_t p = 0; p < count; ++p) {
    const float b = g.b_rows != nullptr
                        ? g.b_rows[p0 + p][g.b_segment > 0 ? (j / g.b_segment) * g.b_segment_step + j % g.b_segment : j]
                    : g.trans_b ? g.b[j * g.ldb + p0 + p]
                                : g.b[(p0 + p) * g.ldb + j];
    acc = std::fma(a[p], b, acc);
  }
  return acc;
}

// m == 1, B not transposed: groups of 4, 2, 1 products.
void RowGroups(const SgemmArgs& g) {
  for (int64_t j = 0; j < g.n; ++j) {
    float& c = g.c[j];
    bool store = !g.accumulate;
    for (int64_t p = 0; p < g.k;) {
      const int64_t left = g.k - p;
      const int64_t size = left >= 4 ? 4 : left >= 2 ? 2 : 1;
      float t = g.a[p] * g.b[p * g.ldb + j];
      for (int64_t q = 1; q < size; ++q) t = t + g.a[p + q] * g.b[(p + q) * g.ldb + j];
      c = store ? t : t + c;
      store = false;
      p += size;
    }
    if (store) c = 0.f;  // k == 0
    if (g.bias != nullptr) c = c + g.bias[0];
  }
}

// m == 1, B transposed: eight lane sums, then a fixed reduction tree.
void RowLanes(const SgemmArgs& g) {
  for (int64_t j = 0; j < g.n; ++j) {
    const float* b = g.b + j * g.ldb;
    float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t p = 0; p < g.k; ++p) lane[p % 8] = lane[p % 8] + g.a[p] * b[p];
    const float dot = SgemmRowLanesDot(lane, j, g.n);
    g.c[j] = g.accumulate ? dot + g.c[j] : dot;
    if (g.bias != nullptr) g.c[j] = g.c[j] + g.bias[0];
  }
}

void Products(const SgemmArgs& g) {
  if (SgemmOneRowOrder(g)) {
    if (g.trans_b)
      RowLanes(g);
    else
      RowGroups(g);
    return;
  }
  const int64_t block = SgemmBlockK(g);
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) {
      float& c = g.c[i * g.ldc + j];
      if (!g.accumulate) c = 0.f;  // replaced by the first block (k == 0 leaves 0)
      for (int64_t p = 0; p < g.k; p += block) {
        const float acc = RowTimesColumn(g, i, j, p, std::min(block, g.k - p));
        const bool store = p == 0 && !g.accumulate;
        if (g.alpha == 1.f)
          c = store ? acc : acc + c;
        else
          c = store ? acc * g.alpha : std::fma(acc, g.alpha, c);
      }
      if (g.bias != nullptr) c = c + g.bias[i];
    }
  }
}

}  // namespace

void SgemmOneRow(int64_t k, const float* a, const float* const* rows, int64_t n, const float* bias, float* c) {
  for (int64_t j = 0; j < n; ++j) {
    float sum = 0.f;
    for (int64_t p = 0; p < k;) {
      const int64_t left = k - p;
      const int64_t size = left >= 4 ? 4 : left >= 2 ? 2 : 1;
      float t = a[p] * rows[p][j];
      for (int64_t q = 1; q < size; ++q) t = t + a[p + q] * rows[p + q][j];
      sum = p == 0 ? t : t + sum;
      p += size;
    }
    c[j] = bias != nullptr ? sum + *bias : sum;
  }
}

void Sgemm(const SgemmArgs& g) {
  if (g.m <= 0 || g.n <= 0) return;
  Products(g);
  if (g.epilogue != nullptr) {
    for (int64_t i = 0; i < g.m; ++i) g.epilogue->Apply(g.c + i * g.ldc, g.n, i);
  }
}

}  // namespace ref
}  // namespace qrt
