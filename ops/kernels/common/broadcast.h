// Numpy-style broadcasting for element-wise kernels: shape rules and a loop plan
// that splits an output into an outer multi-index and a contiguous inner run.
//
// Only non-AVX2 translation units may use ForEachRun (it is a template): AVX2 kernels
// receive one run at a time through plain pointers.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/dtype.h"
#include "runtime/status.h"
#include "runtime/tensor.h"

namespace qrt {

// Dtype and dims of a kernel operand, known before any data exists.
// dtype == kUndefined marks an absent optional input.
struct TensorDesc {
  DataType dtype = DataType::kUndefined;
  Dims dims;
};

// Numpy broadcast (right-aligned) of `a` and `b`. Fails, naming both shapes, when a
// dimension pair is neither equal nor contains a 1.
StatusOr<Dims> BroadcastDims(const Dims& a, const Dims& b);

// True if `in` broadcasts to `out` without changing `out`: rank(in) <= rank(out) and,
// right-aligned, every dimension of `in` is 1 or equal to the one in `out`.
bool BroadcastsTo(const Dims& in, const Dims& out);

// An iteration over the elements of an output, for K operands (inputs and the output
// itself), collapsed to the fewest dimensions. The innermost collapsed dimension is a
// run of `inner` elements in which each operand either advances by one element
// (inner_inc == 1) or stays put (inner_inc == 0).
struct StridedLoop {
  int64_t inner = 0;                                // run length; 0 when the output is empty
  std::vector<int64_t> outer_dims;                  // outermost first
  std::vector<std::vector<int64_t>> outer_strides;  // [operand][outer dim], in elements
  std::vector<int64_t> inner_inc;                   // [operand]: 0 or 1
  int64_t num_runs = 0;                             // product of outer_dims (0 if empty)
};

// Builds the loop for operands whose dims each BroadcastsTo(out) (the caller checks).
// Operands listed in `const_in_run` must not vary inside a run: if one would, the loop
// moves its innermost dimension outward and uses runs of one element.
StridedLoop MakeStridedLoop(const std::vector<Dims>& operands, const Dims& out,
                            const std::vector<bool>& const_in_run = {});

// Calls f(offsets) once per run numbered [first, last), in output order; offsets[k] is
// operand k's element offset of the run's first element. At most kMaxLoopOperands operands.
inline constexpr int kMaxLoopOperands = 8;
template <class F>
void ForEachRunIn(const StridedLoop& loop, int64_t first, int64_t last, F&& f) {
  if (first >= last) return;
  const size_t k = loop.inner_inc.size();
  const size_t r = loop.outer_dims.size();
  int64_t off[kMaxLoopOperands] = {0};
  int64_t idx[kMaxRank] = {0};
  // Start the odometer at run `first`.
  for (size_t d = r, rest = size_t(first); d-- > 0;) {
    idx[d] = int64_t(rest % size_t(loop.outer_dims[d]));
    rest /= size_t(loop.outer_dims[d]);
    for (size_t j = 0; j < k; ++j) off[j] += idx[d] * loop.outer_strides[j][d];
  }
  for (int64_t run = first; run < last; ++run) {
    f(static_cast<const int64_t*>(off));
    for (size_t d = r; d-- > 0;) {  // odometer, innermost outer dim first
      if (++idx[d] < loop.outer_dims[d]) {
        for (size_t j = 0; j < k; ++j) off[j] += loop.outer_strides[j][d];
        break;
      }
      for (size_t j = 0; j < k; ++j) off[j] -= loop.outer_strides[j][d] * (loop.outer_dims[d] - 1);
      idx[d] = 0;
    }
  }
}

// Every run, in output order.
template <class F>
void ForEachRun(const StridedLoop& loop, F&& f) {
  ForEachRunIn(loop, 0, loop.num_runs, std::forward<F>(f));
}

}  // namespace qrt
