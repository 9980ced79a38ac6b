// The scalar references of the 3x3 depthwise kernels (depthwise_rows.h, depthwise_lanes.h)
// against the definition of the convolution (ref::ConvFloat, with DequantizeLinear before and
// QuantizeLinear after for codes), on every CPU; and each SIMD kernel this CPU runs against its
// reference, bit for bit: strides 1 and 2, pads 0 and 1 before and 0 to 2 after, row tails,
// negative weights over the padding (the sign of a zero sum), ties of the quantization.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "ops/kernels/conv/conv_ref.h"
#include "ops/kernels/dwconv/depthwise_lanes.h"
#include "ops/kernels/dwconv/depthwise_rows.h"
#include "tests/kernels/dwconv/depthwise_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using testing::Bits;
using testing::DepthwiseOf;
using testing::DepthwiseShape;

const DepthwiseShape kShapes[] = {{5, 6, 1, 1, 1, 1, 1},   {1, 1, 1, 1, 1, 1, 1},   {16, 16, 1, 1, 1, 1, 1},
                                  {17, 33, 1, 0, 0, 0, 0}, {9, 47, 1, 1, 0, 2, 1},  {13, 9, 2, 1, 1, 1, 1},
                                  {15, 14, 2, 0, 0, 1, 1}, {33, 31, 2, 1, 0, 1, 2}, {8, 40, 2, 0, 1, 2, 0}};

// 64-byte aligned floats, as the kernels' scratch is.
struct AlignedFloats {
  explicit AlignedFloats(int64_t n) : raw(size_t(n) + 16) {}
  float* data() { return raw.data() + (16 - (reinterpret_cast<uintptr_t>(raw.data()) / 4) % 16) % 16; }
  std::vector<float> raw;
};

struct Plane {
  std::vector<uint8_t> codes;
  std::vector<float> x, w;
  float bias;
};

Plane MakePlane(const DepthwiseShape& s, int32_t x_zp, bool x_signed, std::mt19937& rng) {
  Plane p;
  p.codes.resize(size_t(s.h * s.w));
  for (uint8_t& q : p.codes) q = uint8_t(rng());
  p.x.resize(p.codes.size());
  (x_signed ? ref::DequantizeS8ToF32 : ref::DequantizeU8ToF32)(int64_t(p.codes.size()), p.codes.data(), 0.05f, x_zp,
                                                               p.x.data());
  std::uniform_int_distribution<int> e(-127, 127);
  for (int k = 0; k < 9; ++k) p.w.push_back(float(e(rng)) * 0.0073f);
  p.w[0] = -0.25f;  // a negative weight over the top-left padding
  p.bias = float(e(rng)) * 0.011f;
  return p;
}

// The definition on one channel.
std::vector<float> Definition(const ConvGeometry& g, const Plane& p, const float* bias) {
  std::vector<float> y(size_t(g.out_spatial()));
  ref::ConvFloat(g, p.x.data(), p.w.data(), bias, y.data());
  return y;
}

TEST(DepthwiseRowsRef, FloatsAndCodesAsTheDefinition) {
  std::mt19937 rng(testing::TestSeed());
  for (const DepthwiseShape& s : kShapes) {
    if (s.top > 1 || s.left > 1) continue;
    for (const testing::CodeType& t : testing::kCodeTypes) {
      for (int32_t zp : t.zero_points) {
        const ConvGeometry g = DepthwiseOf(s, 1, 1);
        const Plane p = MakePlane(s, zp, t.type == DataType::kInt8, rng);
        for (bool with_bias : {false, true}) {
          const std::vector<float> want = Definition(g, p, with_bias ? &p.bias : nullptr);
          DepthwiseRowsArgs a;
          a.in_h = s.h, a.in_w = s.w, a.out_h = g.out[1], a.out_w = g.out[2], a.stride = s.stride;
          a.pad_top = s.top, a.pad_left = s.left;
          a.w = p.w.data(), a.bias = with_bias ? &p.bias : nullptr;
          // Floats in and out.
          std::vector<float> y(want.size());
          a.x = p.x.data(), a.y = y.data();
          ref::DepthwiseRows(a);
          for (size_t i = 0; i < y.size(); ++i)
            ASSERT_EQ(Bits(y[i]), Bits(want[i])) << testing::Describe(s) << " " << i;
          // Codes in, codes out (y_scale 0.02: many ties of the rounding).
          std::vector<uint8_t> codes(want.size()), want_codes(want.size());
          t.quantize(int64_t(want.size()), want.data(), 0.02f, zp, want_codes.data());
          a.x = nullptr, a.y = nullptr;
          a.x_codes = p.codes.data(), a.x_scale = 0.05f, a.x_zero_point = zp, a.x_signed = t.type == DataType::kInt8;
          a.y_codes = codes.data(), a.y_scale = 0.02f, a.y_zero_point = zp, a.y_signed = a.x_signed;
          ref::DepthwiseRows(a);
          ASSERT_EQ(codes, want_codes) << testing::Describe(s);
          // The SIMD kernel, where this CPU has it, gives the reference's bits.
          for (Isa isa : TiersThisCpuHas()) {  // the AVX2 and AVX-512 kernels where the CPU has them
            DepthwiseRowsFn simd = SelectDepthwiseRows(isa);
            if (simd == nullptr) continue;
            AlignedFloats ring(DepthwiseRowsRingFloats(a.out_w, a.stride));
            std::vector<uint8_t> simd_codes(want.size());
            DepthwiseRowsArgs b = a;
            b.y_codes = simd_codes.data(), b.ring = ring.data();
            simd(b);
            ASSERT_EQ(simd_codes, want_codes) << testing::Describe(s) << " at " << IsaName(isa);
            std::vector<float> simd_y(want.size());
            b.x_codes = nullptr, b.y_codes = nullptr, b.x = p.x.data(), b.y = simd_y.data();
            simd(b);
            for (size_t i = 0; i < y.size(); ++i)
              ASSERT_EQ(Bits(simd_y[i]), Bits(want[i])) << testing::Describe(s) << " at " << IsaName(isa);
          }
        }
      }
    }
  }
}

TEST(DepthwiseLanesRef, BlocksOfChannelsAsTheDefinition) {
  std::mt19937 rng(testing::TestSeed() + 1);
  for (const DepthwiseShape& s : kShapes) {
    if (s.top > 1 || s.left > 1) continue;
    for (int channels : {1, 5, 8, 9, 16}) {
      const ConvGeometry g = DepthwiseOf(s, 1, 1);
      std::vector<Plane> planes;
      std::vector<float> x, w, bias, want;
      for (int c = 0; c < channels; ++c) {
        planes.push_back(MakePlane(s, 128, false, rng));
        x.insert(x.end(), planes.back().x.begin(), planes.back().x.end());
        w.insert(w.end(), planes.back().w.begin(), planes.back().w.end());
        bias.push_back(planes.back().bias);
        const std::vector<float> y = Definition(g, planes.back(), &bias.back());
        want.insert(want.end(), y.begin(), y.end());
      }
      DepthwiseLanesArgs a;
      a.in_h = s.h, a.in_w = s.w, a.out_h = g.out[1], a.out_w = g.out[2];
      a.stride_h = a.stride_w = s.stride, a.pad_top = s.top, a.pad_left = s.left;
      a.channels = channels, a.x = x.data(), a.x_plane = s.h * s.w, a.w = w.data(), a.bias = bias.data();
      a.y_plane = g.out_spatial();
      std::vector<float> y(want.size(), -1.f);
      a.y = y.data();
      ref::DepthwiseLanes(a);
      for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(Bits(y[i]), Bits(want[i])) << testing::Describe(s) << " " << i;
      for (Isa isa : TiersThisCpuHas()) {  // the AVX2 and AVX-512 kernels where the CPU has them
        DepthwiseLanesFn simd = SelectDepthwiseLanes(isa);
        if (simd == nullptr) continue;
        AlignedFloats tile_in(DepthwiseLanesTileIn(s.h, s.w)), tile_out(g.out_spatial() * 16);
        std::vector<float> simd_y(want.size(), -1.f);
        DepthwiseLanesArgs b = a;
        b.y = simd_y.data(), b.tile_in = tile_in.data(), b.tile_out = tile_out.data();
        simd(b);
        for (size_t i = 0; i < y.size(); ++i)
          ASSERT_EQ(Bits(simd_y[i]), Bits(want[i])) << testing::Describe(s) << " at " << IsaName(isa);
      }
    }
  }
}

}  // namespace
}  // namespace qrt
