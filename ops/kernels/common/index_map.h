// Data-movement kernels whose output element at multi-index (o_0, ..., o_{r-1}) is one
// input element, chosen axis by axis: Transpose, Slice, Pad, Tile and nearest Resize all
// are separable this way. Each output axis d has a table mapping o_d to an offset (in
// elements) into the input; the input element is at the sum of the r table entries.
// An entry kIndexMapFill instead writes a fill value (Pad's constant, Resize's
// extrapolation value). The kernel copies bytes, so it serves every dtype.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/dtype.h"
#include "runtime/tensor.h"

namespace qrt {

// Any sum of up to kMaxRank entries that includes this one is negative, and any sum of
// valid offsets (each below kMaxTensorBytes) is not.
inline constexpr int64_t kIndexMapFill = -(int64_t(1) << 58);

struct IndexMap {
  Dims out_dims;
  std::vector<std::vector<int64_t>> tables;  // [axis][o] -> offset or kIndexMapFill
  bool inner_contiguous = false;             // tables.back()[o] == tables.back()[0] + o, no fill
  // tables.back()[o] == tables.back()[0] + o / inner_repeat, no fill, the factor at least 2
  // (nearest Resize's integer upscaling); 0 otherwise.
  int64_t inner_repeat = 0;
};

// Sets inner_contiguous and inner_repeat from the innermost table (call after filling the tables).
void FinishIndexMap(IndexMap& map);

// The map of a transpose: output axis d walks input axis perm[d] of a tensor of `dims`
// (perm a permutation of 0..rank-1, checked by the caller).
IndexMap PermutationMap(const Dims& dims, const std::vector<int64_t>& perm);

// Per p, the row-major [a, b] block of x written as [b, a] into y, in square tiles so that
// both the reads and the writes stay within a few cache lines. Any trivially copyable T.
template <class T>
void TransposeBlocks(int64_t p, int64_t a, int64_t b, const T* x, T* y) {
  constexpr int64_t kTile = sizeof(T) >= 4 ? 16 : int64_t(64 / sizeof(T));  // a cache line of the narrow types
  for (int64_t q = 0; q < p; ++q, x += a * b, y += a * b) {
    for (int64_t i0 = 0; i0 < a; i0 += kTile) {
      const int64_t i1 = i0 + kTile < a ? i0 + kTile : a;
      for (int64_t j0 = 0; j0 < b; j0 += kTile) {
        const int64_t j1 = j0 + kTile < b ? j0 + kTile : b;
        for (int64_t j = j0; j < j1; ++j) {
          for (int64_t i = i0; i < i1; ++i) y[j * a + i] = x[i * b + j];
        }
      }
    }
  }
}

// Copies `in` to `out` through `map`. elem_size is 1, 2, 4 or 8; `fill` points to
// elem_size bytes and may be null when no table holds kIndexMapFill. Allocates nothing. An
// output row (innermost axis) whose outer offsets sum as the previous row's is a copy of that
// row (upscaled rows, broadcast axes).
void RunIndexMap(const IndexMap& map, size_t elem_size, const void* in, void* out, const void* fill);

// Row-major strides (in elements) of `dims`.
std::vector<int64_t> ContiguousStrides(const Dims& dims);

// `value` converted to one element of `dtype` (saturating for integers, NaN -> 0, bool
// = value != 0), written to the first DataTypeSize(dtype) bytes of `bytes`.
void ScalarToBytes(DataType dtype, double value, unsigned char bytes[8]);

}  // namespace qrt
