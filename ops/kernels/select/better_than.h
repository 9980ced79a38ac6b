// TopK's candidate filter: the positions i in [begin, end) whose x[i] could still be among the
// K best because it beats the threshold t strictly (x[i] > t for the largest, x[i] < t for the
// smallest) or is NaN (which TopK orders by its own rule). Positions are scanned in order and
// appended to `out`; the count appended is returned. A later element equal to t never beats
// it (ties keep the lower index), so skipping it is exact.
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

using BetterThanFn = int64_t (*)(const float* x, int64_t begin, int64_t end, float t, bool largest, int64_t* out);

namespace ref {
int64_t BetterThan(const float* x, int64_t begin, int64_t end, float t, bool largest, int64_t* out);
}  // namespace ref
namespace avx2 {  // the same positions as ref::
int64_t BetterThan(const float* x, int64_t begin, int64_t end, float t, bool largest, int64_t* out);
}  // namespace avx2

BetterThanFn SelectBetterThan(Isa isa);

}  // namespace qrt
