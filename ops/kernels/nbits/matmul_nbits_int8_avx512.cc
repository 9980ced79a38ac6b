// MatMulNBits' int8 path with AVX512BW (matmul_nbits_int8_avx512.h): each dword's products by
// VPMADDUBSW (a pair at most 2 * 15 * 127, no saturation), the low and high nibbles' words added
// (at most 7620) and the word pairs by VPMADDWD.
#include "ops/kernels/nbits/matmul_nbits_int8_avx512.h"

namespace qrt::avx512 {
namespace {

struct MaddDot {
  __m512i operator()(__m512i lo, __m512i qlo, __m512i hi, __m512i qhi) const {
    const __m512i words = _mm512_add_epi16(_mm512_maddubs_epi16(lo, qlo), _mm512_maddubs_epi16(hi, qhi));
    return _mm512_madd_epi16(words, _mm512_set1_epi16(1));
  }
};

}  // namespace

void MatMulNbitsInt8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y) {
  MatMulInt8<MaddDot>(w, m, a, bias, y, true);
}

void MatMulNbitsInt8NoVnni(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y) {
  MatMulInt8<MaddDot>(w, m, a, bias, y, false);
}

}  // namespace qrt::avx512
