// ConvTranspose against a direct loop over its definition (every input position scatters
// W into the output), over groups, strides, dilations, pads and output_padding; shape
// rules and errors. Bit-equality with ONNX Runtime is tests/data/float_orders.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::Known;
using testing::RunSingleNode;
using testing::Values;

struct Geometry {
  int64_t n, cin, h, w, cout_g, group, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, oph, opw;
};

std::vector<float> Pattern(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(int((i * 7 + size_t(seed) * 13) % 17) - 8) * 0.25f;
  return v;
}

TEST(ConvTranspose, EqualsTheDefinition) {
  const std::vector<Geometry> geos = {
      {1, 2, 3, 3, 2, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0},  // plain
      {2, 4, 4, 5, 3, 2, 3, 2, 2, 3, 1, 1, 1, 0, 0, 1, 1, 2},  // groups, strides, pads, output_padding
      {1, 3, 5, 4, 2, 1, 2, 3, 1, 2, 2, 1, 0, 1, 1, 0, 0, 1},  // dilation
  };
  for (const Geometry& g : geos) {
    const int64_t cout = g.cout_g * g.group, cin_g = g.cin / g.group;
    const std::vector<float> x = Pattern(size_t(g.n * g.cin * g.h * g.w), 1);
    const std::vector<float> w = Pattern(size_t(g.cin * g.cout_g * g.kh * g.kw), 2);
    const std::vector<float> b = Pattern(size_t(cout), 3);
    const int64_t oh = g.sh * (g.h - 1) + g.oph + (g.kh - 1) * g.dh + 1 - g.pt - g.pb;
    const int64_t ow = g.sw * (g.w - 1) + g.opw + (g.kw - 1) * g.dw + 1 - g.pl - g.pr;
    std::vector<double> want(size_t(g.n * cout * oh * ow), 0.0);
    for (int64_t n = 0; n < g.n; ++n)
      for (int64_t ci = 0; ci < g.cin; ++ci)
        for (int64_t i = 0; i < g.h; ++i)
          for (int64_t j = 0; j < g.w; ++j)
            for (int64_t co = 0; co < g.cout_g; ++co)
              for (int64_t a = 0; a < g.kh; ++a)
                for (int64_t c = 0; c < g.kw; ++c) {
                  const int64_t y = i * g.sh - g.pt + a * g.dh, z = j * g.sw - g.pl + c * g.dw;
                  if (y < 0 || y >= oh || z < 0 || z >= ow) continue;
                  const int64_t oc = (ci / cin_g) * g.cout_g + co;
                  want[size_t(((n * cout + oc) * oh + y) * ow + z)] +=
                      double(x[size_t(((n * g.cin + ci) * g.h + i) * g.w + j)]) *
                      double(w[size_t(((ci * g.cout_g + co) * g.kh + a) * g.kw + c)]);
                }
    Attributes at;
    at.Set("group", g.group);
    at.Set("strides", std::vector<int64_t>{g.sh, g.sw});
    at.Set("dilations", std::vector<int64_t>{g.dh, g.dw});
    at.Set("pads", std::vector<int64_t>{g.pt, g.pl, g.pb, g.pr});
    at.Set("output_padding", std::vector<int64_t>{g.oph, g.opw});
    for (Isa isa : TiersThisCpuHas()) {
      auto out = RunSingleNode("ConvTranspose", 11,
                               {Data(Tensor::FromVector<float>(x, {g.n, g.cin, g.h, g.w})),
                                Known(Tensor::FromVector<float>(w, {g.cin, g.cout_g, g.kh, g.kw})),
                                Known(Tensor::FromVector<float>(b, {cout}))},
                               at, 1, isa);
      ASSERT_TRUE(out.ok()) << out.status().message();
      ASSERT_EQ((*out)[0].dims(), (Dims{g.n, cout, oh, ow}));
      const std::vector<float> got = Values<float>((*out)[0]);
      for (size_t k = 0; k < got.size(); ++k) {
        const double expect = want[k] + double(b[(k / size_t(oh * ow)) % size_t(cout)]);
        ASSERT_NEAR(got[k], expect, 1e-4) << "element " << k << " isa " << IsaName(isa);  // multiples of 1/16
      }
    }
  }
}

TEST(ConvTranspose, OutputShapeAndAutoPad) {
  const Tensor x = Tensor::FromVector<float>(std::vector<float>(9, 1.f), {1, 1, 3, 3});
  const Tensor w = Tensor::FromVector<float>(std::vector<float>(9, 1.f), {1, 1, 3, 3});
  Attributes same;
  same.Set("auto_pad", std::string("SAME_UPPER"));
  same.Set("strides", std::vector<int64_t>{2, 2});
  auto s = RunSingleNode("ConvTranspose", 11, {Data(x), Known(w)}, same);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)[0].dims(), (Dims{1, 1, 6, 6}));
  Attributes shape;
  shape.Set("output_shape", std::vector<int64_t>{10, 8});
  shape.Set("strides", std::vector<int64_t>{3, 2});
  auto o = RunSingleNode("ConvTranspose", 11, {Data(x), Known(w)}, shape);
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ((*o)[0].dims(), (Dims{1, 1, 10, 8}));
  EXPECT_EQ(Values<float>((*o)[0]).back(), 0.f);  // beyond the full output: zeros
  Attributes bad;
  bad.Set("group", int64_t(2));
  EXPECT_FALSE(RunSingleNode("ConvTranspose", 11, {Data(x), Known(w)}, bad).ok());
  EXPECT_FALSE(RunSingleNode("ConvTranspose", 11, {Data(x), Known(Tensor::FromVector<float>({1}, {1, 1}))}, {}).ok());
}

}  // namespace
}  // namespace qrt
