// BuildCodePatches against the definition of the patch matrix (each entry the code under its
// tap, or the padding code), on 1-D to 3-D geometries with strides, dilations and asymmetric
// padding, including taps that miss the input entirely; nothing is written past K x N plus the
// declared slack.
#include "ops/kernels/conv/code_patches.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace qrt {
namespace {

ConvGeometry Geometry(int64_t c, std::vector<int64_t> in, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                      std::vector<int64_t> dilation, std::vector<int64_t> pads) {
  ConvGeometry g;
  g.in_channels = c, g.out_channels = 2;
  const int r = int(in.size());
  g.spatial_rank = r;
  for (int i = 0; i < r; ++i) {
    const int d = 3 - r + i;
    g.in[d] = in[size_t(i)], g.kernel[d] = kernel[size_t(i)], g.stride[d] = stride[size_t(i)];
    g.dilation[d] = dilation[size_t(i)], g.pad_begin[d] = pads[size_t(i)], g.pad_end[d] = pads[size_t(r + i)];
    g.out[d] = (g.in[d] + g.pad_begin[d] + g.pad_end[d] - (g.kernel[d] - 1) * g.dilation[d] - 1) / g.stride[d] + 1;
  }
  return g;
}

std::vector<uint8_t> Definition(const ConvGeometry& g, const std::vector<uint8_t>& x, uint8_t pad) {
  std::vector<uint8_t> patches;
  for (int64_t c = 0; c < g.in_channels; ++c)
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw)
          for (int64_t od = 0; od < g.out[0]; ++od)
            for (int64_t oh = 0; oh < g.out[1]; ++oh)
              for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                const int64_t id = od * g.stride[0] + kd * g.dilation[0] - g.pad_begin[0];
                const int64_t ih = oh * g.stride[1] + kh * g.dilation[1] - g.pad_begin[1];
                const int64_t iw = ow * g.stride[2] + kw * g.dilation[2] - g.pad_begin[2];
                const bool inside = id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2];
                patches.push_back(inside ? x[size_t(((c * g.in[0] + id) * g.in[1] + ih) * g.in[2] + iw)] : pad);
              }
  return patches;
}

TEST(CodePatches, EqualTheDefinition) {
  const std::vector<ConvGeometry> cases = {
      Geometry(3, {7, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}),
      Geometry(2, {8, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}),
      Geometry(2, {9, 40}, {3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}),
      Geometry(4, {10, 12}, {5, 5}, {1, 2}, {2, 1}, {0, 1, 2, 1}),
      Geometry(2, {20, 19}, {3, 2}, {3, 3}, {1, 1}, {0, 0, 0, 0}),
      Geometry(1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {4, 0, 0, 4}),  // taps wholly in the padding
      Geometry(3, {33}, {3}, {2}, {1}, {1, 1}),
      Geometry(2, {4, 5, 6}, {3, 3, 3}, {1, 2, 1}, {1, 1, 2}, {1, 1, 1, 1, 0, 2}),
      Geometry(5, {3, 70}, {1, 7}, {1, 4}, {1, 3}, {0, 5, 0, 6}),
  };
  std::mt19937 rng(3);
  for (const ConvGeometry& g : cases) {
    std::vector<uint8_t> x(size_t(g.in_channels * g.in_spatial()));
    for (auto& v : x) v = uint8_t(rng() % 255);  // never 255, the padding code here
    const uint8_t pad = 255;
    const std::vector<uint8_t> want = Definition(g, x, pad);
    std::vector<uint8_t> planes(size_t(CodePlanesBytes(g)));
    std::vector<uint8_t> got(want.size() + size_t(kCodePatchesSlack) + 16, 0x5A);
    BuildCodePatches(g, x.data(), pad, planes.data(), got.data());
    const std::string what = "C " + std::to_string(g.in_channels) + " in " + std::to_string(g.in[0]) + "x" +
                             std::to_string(g.in[1]) + "x" + std::to_string(g.in[2]) + " kernel " +
                             std::to_string(g.kernel[1]) + "x" + std::to_string(g.kernel[2]);
    ASSERT_EQ(std::vector<uint8_t>(got.begin(), got.begin() + std::ptrdiff_t(want.size())), want) << what;
    for (size_t i = want.size() + size_t(kCodePatchesSlack); i < got.size(); ++i) {
      ASSERT_EQ(got[i], 0x5A) << what << ": written past the slack";
    }
  }
}

}  // namespace
}  // namespace qrt
