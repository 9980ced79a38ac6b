// Shared by the AVX2 and AVX-512 ordered GEMMs (sgemm.h): the m > 1 driver, which cuts k
// into blocks and B into column panels, and calls a row-tile kernel that computes `rows`
// rows x `cols` columns of C over one k block in the m > 1 order. Tile kernels differ only
// in vector width, so every output element sees the same operations.
#pragma once

#include <cstdint>

#include "ops/kernels/gemm/sgemm.h"

namespace qrt::sgemm_detail {

// C[rows x cols] (+)= alpha * A[rows x kb] x B[kb x cols]; store: C = result, else C += it;
// then, when bias is not null (the last k block), C += bias[row]. Each row of B may be read
// up to column `readable` (>= cols; padding whose products are never stored).
using RowTilesFn = void (*)(int rows, const float* a, int64_t lda, const float* b, int64_t ldb, int64_t kb, float* c,
                            int64_t ldc, int64_t cols, int64_t readable, bool store, const float* alpha,
                            const float* bias);

// The whole ordered GEMM (sgemm.h), with `tiles` for the m > 1 order (tile_rows rows at a
// time) and the AVX2 one-row kernels. Defined in sgemm_avx2.cc.
void SgemmWith(const SgemmArgs& g, RowTilesFn tiles, int tile_rows);

}  // namespace qrt::sgemm_detail
