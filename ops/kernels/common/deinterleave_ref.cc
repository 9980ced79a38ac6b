#include "ops/kernels/common/deinterleave.h"

namespace qrt {

namespace ref {
void SplitPairs(int64_t pairs, const float* src, float* even, float* odd) {
  for (int64_t i = 0; i < pairs; ++i) {
    even[i] = src[2 * i];
    odd[i] = src[2 * i + 1];
  }
}
}  // namespace ref

}  // namespace qrt
