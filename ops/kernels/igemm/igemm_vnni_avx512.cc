// igemm.h's AVX-512 tile with AVX512_VNNI: VPDPWSSD, the pair products added in one instruction
// (without saturation, as VPMADDWD + VPADDD; igemm_tile_avx512.h).
#include "ops/kernels/igemm/igemm_tile_avx512.h"

namespace qrt::avx512vnni {
namespace {
struct Dpwssd {
  __m512i operator()(__m512i acc, __m512i a, __m512i b) const { return _mm512_dpwssd_epi32(acc, a, b); }
};
}  // namespace

void IgemmTile(int64_t rows, int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b,
               int64_t panel_stride, int32_t* c, int64_t ldc, bool accumulate) {
  Tile512Any<Dpwssd>(rows, cols, k_pairs, a, lda, b, panel_stride, c, ldc, accumulate);
}

}  // namespace qrt::avx512vnni
