// The three orders in which ONNX Runtime 1.30 folds a float32 reduction (found by matching
// its outputs bit for bit; docs/float-order.md, "Reduce ops"). `at(j)` is the j-th reduced
// value, already mapped (|x| for L1, x*x for the squares); `op(a, b)` is + or *.
//
// - Sequential: r = at(0); r = op(r, at(j)) for j = 1..n-1 (0 or 1 when n == 0).
// - Eigen: the order of Eigen's vectorized redux with 4-float packets, for a run that starts
//   `lead` elements before a 16-byte boundary: two packet accumulators p0 = [lead, lead+4),
//   p1 = [lead+4, lead+8) advanced 8 elements at a time; p0 = op(p0, p1); one more whole
//   packet into p0 if there is one; r = op(op(p0[0], p0[2]), op(p0[1], p0[3])); then the
//   `lead` elements and the tail after the last whole packet, one at a time. Fewer than 4
//   elements after the lead: Sequential.
// - Groups of four (sums only: MLAS's SGEMM against a row of ones): t = ((a+b)+c)+d per
//   group of four, c = t + c (the first group sets c); then a group of two (a+b) and a single.
#pragma once

#include <cstdint>

namespace qrt::ref {

template <class At, class Op>
float FoldSequential(int64_t n, float identity, At at, Op op) {
  if (n == 0) return identity;
  float r = at(0);
  for (int64_t j = 1; j < n; ++j) r = op(r, at(j));
  return r;
}

template <class At, class Op>
float FoldEigen(int64_t n, int64_t lead, float identity, At at, Op op) {
  if (lead > n) lead = n;
  const int64_t whole = (n - lead) / 4 * 4;  // elements in whole packets
  if (whole == 0) return FoldSequential(n, identity, at, op);
  const int64_t end2 = lead + (n - lead) / 8 * 8, end = lead + whole;
  float p0[4], p1[4];
  for (int k = 0; k < 4; ++k) p0[k] = at(lead + k);
  if (whole > 4) {
    for (int k = 0; k < 4; ++k) p1[k] = at(lead + 4 + k);
    for (int64_t i = lead + 8; i < end2; i += 8) {
      for (int k = 0; k < 4; ++k) p0[k] = op(p0[k], at(i + k));
      for (int k = 0; k < 4; ++k) p1[k] = op(p1[k], at(i + 4 + k));
    }
    for (int k = 0; k < 4; ++k) p0[k] = op(p0[k], p1[k]);
    if (end > end2) {
      for (int k = 0; k < 4; ++k) p0[k] = op(p0[k], at(end2 + k));
    }
  }
  float r = op(op(p0[0], p0[2]), op(p0[1], p0[3]));
  for (int64_t j = 0; j < lead; ++j) r = op(r, at(j));
  for (int64_t j = end; j < n; ++j) r = op(r, at(j));
  return r;
}

template <class At>
float SumGroupsOfFour(int64_t n, At at) {
  float c = 0;
  bool first = true;
  auto add_group = [&](float t) {
    c = first ? t : t + c;
    first = false;
  };
  int64_t k = 0;
  for (; k + 4 <= n; k += 4) add_group(((at(k) + at(k + 1)) + at(k + 2)) + at(k + 3));
  if (n - k >= 2) add_group(at(k) + at(k + 1)), k += 2;
  if (n - k == 1) add_group(at(k));
  return c;
}

}  // namespace qrt::ref
