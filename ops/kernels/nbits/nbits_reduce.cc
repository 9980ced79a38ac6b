// The lane reductions of nbits_reduce.h.
#include "ops/kernels/nbits/nbits_reduce.h"

namespace qrt::nbits {

float FoldGroups16(const float* x) {
  float s[4];
  for (int g = 0; g < 4; ++g) s[g] = ((x[4 * g] + x[4 * g + 1]) + x[4 * g + 2]) + x[4 * g + 3];
  return (s[0] + s[2]) + (s[1] + s[3]);
}

float Tree16(const float* x) {
  float y[8], z[4];
  for (int i = 0; i < 8; ++i) y[i] = x[i] + x[i + 8];
  for (int i = 0; i < 4; ++i) z[i] = y[i] + y[i + 4];
  return (z[0] + z[2]) + (z[1] + z[3]);
}

float FoldGroups8(const float* x) { return (((x[0] + x[1]) + x[2]) + x[3]) + (((x[4] + x[5]) + x[6]) + x[7]); }

float Tree8(const float* x) {
  float y[4];
  for (int i = 0; i < 4; ++i) y[i] = x[i] + x[i + 4];
  return (y[0] + y[2]) + (y[1] + y[3]);
}

float Hadd8(const float* x) {
  float y[4];
  for (int i = 0; i < 4; ++i) y[i] = x[i] + x[i + 4];
  return (y[0] + y[1]) + (y[2] + y[3]);
}

}  // namespace qrt::nbits
