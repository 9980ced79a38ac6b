// MatMulNBits' int8 path with AVX512_VNNI (matmul_nbits_int8_avx512.h): each dword's products
// by two VPDPBUSD (codes unsigned, A's int8 signed; at most 8 * 15 * 127, no overflow).
#include "ops/kernels/nbits/matmul_nbits_int8_avx512.h"

namespace qrt::avx512vnni {
namespace {

struct DpbusdDot {
  __m512i operator()(__m512i lo, __m512i qlo, __m512i hi, __m512i qhi) const {
    return _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), lo, qlo), hi, qhi);
  }
};

}  // namespace

void MatMulNbitsInt8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y) {
  MatMulInt8<DpbusdDot>(w, m, a, bias, y, true);
}

void MatMulNbitsInt8NoVnni(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y) {
  MatMulInt8<DpbusdDot>(w, m, a, bias, y, false);
}

}  // namespace qrt::avx512vnni
