// col2im for ConvTranspose: adds a column matrix col[channel * kernel + k][input position]
// into `channels` output planes, y[c][p * stride - pad + k * dilation] += col[c, k][p] where
// that lands inside, for c, then k, then p in row-major order: each output element receives
// its terms in that order, which both kernels keep (they differ only in how they find where
// a term lands), so they give the same bits.
#pragma once

#include <cstdint>

namespace qrt {

struct Col2ImGeometry {
  int rank = 1;  // spatial dims, 1 to 3
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad_begin[3] = {0, 0, 0};
};

// Kernel offset k (row-major over geo.kernel) as one index per spatial dim.
inline void KernelIndex(const Col2ImGeometry& geo, int64_t k, int64_t* k_idx) {
  for (int d = geo.rank; d-- > 0;) k_idx[d] = k % geo.kernel[d], k /= geo.kernel[d];
}

using Col2ImFn = void (*)(const Col2ImGeometry& geo, int64_t channels, const float* col, float* image);

namespace ref {
// Term by term, checking every position.
void Col2Im(const Col2ImGeometry& geo, int64_t channels, const float* col, float* image);
}  // namespace ref

// A run of the innermost axis at a time: the range of input positions that land inside is
// computed once per run, and the run is one strided add (contiguous at stride 1).
void Col2ImByRows(const Col2ImGeometry& geo, int64_t channels, const float* col, float* image);

}  // namespace qrt
