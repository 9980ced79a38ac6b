#include "ops/kernels/conv/conv_ref.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "ops/kernels/gemm/sgemm.h"

namespace qrt::ref {
namespace {

// Calls f(x_offset_in_channel_plane, k_offset) for every in-bounds tap of output
// position (od, oh, ow).
template <class F>
inline void ForEachTap(const ConvGeometry& g, int64_t od, int64_t oh, int64_t ow, F f) {
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
    const int64_t id = od * g.stride[0] + kd * g.dilation[0] - g.pad_begin[0];
    if (id < 0 || id >= g.in[0]) continue;
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
      const int64_t ih = oh * g.stride[1] + kh * g.dilation[1] - g.pad_begin[1];
      if (ih < 0 || ih >= g.in[1]) continue;
      for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
        const int64_t iw = ow * g.stride[2] + kw * g.dilation[2] - g.pad_begin[2];
        if (iw < 0 || iw >= g.in[2]) continue;
        f((id * g.in[1] + ih) * g.in[2] + iw, (kd * g.kernel[1] + kh) * g.kernel[2] + kw);
      }
    }
  }
}

// Calls dot(n, m, first_input_channel, od, oh, ow) for every output element, in order.
template <class F>
inline void ForEachOutput(const ConvGeometry& g, F dot) {
  const int64_t m_per_group = g.out_channels / g.group;
  const int64_t c_per_group = g.in_channels / g.group;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t m = 0; m < g.out_channels; ++m) {
      const int64_t c0 = (m / m_per_group) * c_per_group;
      for (int64_t od = 0; od < g.out[0]; ++od) {
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          for (int64_t ow = 0; ow < g.out[2]; ++ow) dot(n, m, c0, od, oh, ow);
        }
      }
    }
  }
}

}  // namespace

// The definition, independent of conv_float.cc's driver: per image and group the patch
// matrix (K = C/group x kernel rows in (c, kd, kh, kw) order, N = output positions columns,
// zeros over the padding), then the ordered GEMM's reference (sgemm.h) with the bias added
// last. A kernel as large as the input (unit strides and dilations, no padding) is ORT's
// direct GEMM: one output per channel, X's group block as a transposed row.
void ConvFloat(const ConvGeometry& g, const float* x, const float* w, const float* b, float* y) {
  const int64_t cg = g.in_channels / g.group, mg = g.out_channels / g.group;
  const int64_t ks = g.kernel_size(), k = g.reduction_size(), n_out = g.out_spatial(), plane = g.in_spatial();
  bool whole = true;
  for (int d = 0; d < 3; ++d) {
    whole = whole && g.kernel[d] == g.in[d] && g.stride[d] == 1 && g.dilation[d] == 1 && g.pad_begin[d] == 0 &&
            g.pad_end[d] == 0;
  }
  std::vector<float> patches(size_t(k * n_out));
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      std::fill(patches.begin(), patches.end(), 0.f);
      int64_t o = 0;
      for (int64_t od = 0; od < g.out[0]; ++od) {
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          for (int64_t ow = 0; ow < g.out[2]; ++ow, ++o) {
            for (int64_t c = 0; c < cg; ++c) {
              const float* xc = x + (n * g.in_channels + grp * cg + c) * plane;
              ForEachTap(g, od, oh, ow,
                         [&](int64_t xi, int64_t ki) { patches[size_t((c * ks + ki) * n_out + o)] = xc[xi]; });
            }
          }
        }
      }
      SgemmArgs a;
      a.m = mg, a.n = n_out, a.k = k;
      a.a = w + grp * mg * k, a.lda = k;
      a.b = patches.data(), a.ldb = n_out;
      if (whole) a.trans_b = true, a.ldb = k;  // N == 1: the patch column is X's row
      a.c = y + (n * g.out_channels + grp * mg) * n_out, a.ldc = n_out;
      a.bias = b != nullptr ? b + grp * mg : nullptr;
      Sgemm(a);
    }
  }
}

void ConvFloat(const ConvGeometry& g, const double* x, const double* w, const double* b, double* y) {
  using T = double;
  using Acc = double;
  const int64_t c_per_group = g.in_channels / g.group;
  const int64_t plane = g.in_spatial();
  const int64_t ksize = g.kernel_size();
  ForEachOutput(g, [&](int64_t n, int64_t m, int64_t c0, int64_t od, int64_t oh, int64_t ow) {
    Acc acc = 0;
    for (int64_t c = 0; c < c_per_group; ++c) {
      const T* xc = x + (n * g.in_channels + c0 + c) * plane;
      const T* wc = w + (m * c_per_group + c) * ksize;
      ForEachTap(g, od, oh, ow, [&](int64_t xi, int64_t ki) { acc += Acc(xc[xi]) * Acc(wc[ki]); });
    }
    if (b != nullptr) acc += Acc(b[m]);
    *y++ = T(acc);
  });
}

template <class Tx, class Tw>
void ConvInteger(const ConvGeometry& g, const Tx* x, int32_t x_zp, const Tw* w, const int32_t* w_zp,
                 const int32_t* bias, int32_t* y) {
  const int64_t c_per_group = g.in_channels / g.group;
  const int64_t plane = g.in_spatial();
  const int64_t ksize = g.kernel_size();
  ForEachOutput(g, [&](int64_t n, int64_t m, int64_t c0, int64_t od, int64_t oh, int64_t ow) {
    uint32_t acc = 0;  // mod 2^32
    const int32_t wz = w_zp[m];
    for (int64_t c = 0; c < c_per_group; ++c) {
      const Tx* xc = x + (n * g.in_channels + c0 + c) * plane;
      const Tw* wc = w + (m * c_per_group + c) * ksize;
      ForEachTap(g, od, oh, ow, [&](int64_t xi, int64_t ki) {
        // |x - zp| <= 255 and |w - zp| <= 255 for 8-bit data: the product fits int32.
        acc += uint32_t((int32_t(xc[xi]) - x_zp) * (int32_t(wc[ki]) - wz));
      });
    }
    if (bias != nullptr) acc += uint32_t(bias[m]);
    *y++ = int32_t(acc);
  });
}

template void ConvInteger<uint8_t, uint8_t>(const ConvGeometry&, const uint8_t*, int32_t, const uint8_t*,
                                            const int32_t*, const int32_t*, int32_t*);
template void ConvInteger<uint8_t, int8_t>(const ConvGeometry&, const uint8_t*, int32_t, const int8_t*, const int32_t*,
                                           const int32_t*, int32_t*);
template void ConvInteger<int8_t, uint8_t>(const ConvGeometry&, const int8_t*, int32_t, const uint8_t*, const int32_t*,
                                           const int32_t*, int32_t*);
template void ConvInteger<int8_t, int8_t>(const ConvGeometry&, const int8_t*, int32_t, const int8_t*, const int32_t*,
                                          const int32_t*, int32_t*);

}  // namespace qrt::ref
