#include "ops/kernels/gemm/matmul_ref.h"

namespace qrt::ref {

template <class T>
void GemmFloat(int64_t m, int64_t n, int64_t k, const T* a, const T* b, const GemmStrides& s, T* c) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += double(a[i * s.a_rs + p * s.a_cs]) * double(b[p * s.b_rs + j * s.b_cs]);
      c[i * n + j] = T(acc);
    }
  }
}

template <class Ta, class Tb>
void GemmInteger(int64_t m, int64_t n, int64_t k, const Ta* a, const int32_t* a_zp, int64_t a_zp_inc, const Tb* b,
                 const int32_t* b_zp, int64_t b_zp_inc, const GemmStrides& s, int32_t* c) {
  for (int64_t i = 0; i < m; ++i) {
    const int32_t za = a_zp[i * a_zp_inc];
    for (int64_t j = 0; j < n; ++j) {
      const int32_t zb = b_zp[j * b_zp_inc];
      uint32_t acc = 0;  // mod 2^32
      for (int64_t p = 0; p < k; ++p) {
        acc += uint32_t((int32_t(a[i * s.a_rs + p * s.a_cs]) - za) * (int32_t(b[p * s.b_rs + j * s.b_cs]) - zb));
      }
      c[i * n + j] = int32_t(acc);
    }
  }
}

template void GemmFloat<float>(int64_t, int64_t, int64_t, const float*, const float*, const GemmStrides&, float*);
template void GemmFloat<double>(int64_t, int64_t, int64_t, const double*, const double*, const GemmStrides&, double*);
#define QRT_GEMM_INT(Ta, Tb)                                                                                  \
  template void GemmInteger<Ta, Tb>(int64_t, int64_t, int64_t, const Ta*, const int32_t*, int64_t, const Tb*, \
                                    const int32_t*, int64_t, const GemmStrides&, int32_t*);
QRT_GEMM_INT(uint8_t, uint8_t)
QRT_GEMM_INT(uint8_t, int8_t)
QRT_GEMM_INT(int8_t, uint8_t)
QRT_GEMM_INT(int8_t, int8_t)
#undef QRT_GEMM_INT

}  // namespace qrt::ref
