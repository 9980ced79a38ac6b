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
//
// FloatReduce runs one of these folds for every output of a reduction; Max and Min (any
// order: they give the same bits in every order but for the first NaN and for ties of -0 and
// +0, which they resolve as the sequential fold does: the first NaN is returned, a tie keeps
// the earlier value).
#pragma once

#include <cmath>
#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

enum class ReduceMap : uint8_t { kIdentity, kAbs, kSquare };
enum class ReduceFold : uint8_t { kAdd, kMul, kMax, kMin };
enum class ReduceOrder : uint8_t { kSequential, kEigen, kGroupsOfFour };  // kGroupsOfFour: kAdd only

struct FloatReduceSpec {
  ReduceMap map = ReduceMap::kIdentity;
  ReduceFold fold = ReduceFold::kAdd;
  ReduceOrder order = ReduceOrder::kSequential;
  bool reduced_contiguous = false;  // reduced[j] == j for every j
};

// y[i] = fold over j of map(x[kept[i] + reduced[j]]), i in [0, outputs), j in [0, count); the
// Eigen order's lead is that of kept[i] in a 16-byte aligned buffer. count 0 gives the fold's
// identity (0, 1, -inf, +inf).
using FloatReduceFn = void (*)(const FloatReduceSpec& spec, int64_t outputs, const int64_t* kept, int64_t count,
                               const int64_t* reduced, const float* x, float* y);

namespace ref {
void FloatReduce(const FloatReduceSpec& spec, int64_t outputs, const int64_t* kept, int64_t count,
                 const int64_t* reduced, const float* x, float* y);
}  // namespace ref
namespace avx2 {  // bit-identical to ref::FloatReduce
void FloatReduce(const FloatReduceSpec& spec, int64_t outputs, const int64_t* kept, int64_t count,
                 const int64_t* reduced, const float* x, float* y);
}  // namespace avx2

FloatReduceFn SelectFloatReduce(Isa isa);

// Elements before the next 16-byte boundary of a row starting at element `offset` of a
// 16-byte aligned float buffer (where Eigen's aligned packets begin).
inline int64_t EigenLead(int64_t offset) { return (4 - offset % 4) % 4; }

}  // namespace qrt

namespace qrt::ref {

// Max / Min as the sequential fold computes them: the first NaN, else the extreme with ties
// keeping the earlier value.
template <bool kMax, class At>
float FoldExtreme(int64_t n, At at) {
  float acc = kMax ? -INFINITY : INFINITY;
  for (int64_t j = 0; j < n; ++j) {
    const float v = at(j);
    if (std::isnan(v)) return v;
    if (kMax ? v > acc : v < acc) acc = v;
  }
  return acc;
}

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
