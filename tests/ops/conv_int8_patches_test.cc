// The exact int8 path over patches (ops/kernels/pwconv/conv_pointwise_int8.h, `patches`): a
// one-group convolution of any kernel, strides, dilations and padding, in a QDQ graph whose
// QuantizeLinear (or Relu6 Clip then QuantizeLinear) reads it. The default passes fuse it (and
// pass codes in), and at every tier the forced int8 path and the default choice give the
// unfused float graph's bits: grids with calibrated scales (the proof decides), power-of-two
// scales as Vitis AI leaves them (exact sums: outputs sit on .5 ties, every one decided by
// the exact rule), clamps, zero points at the ends, 1-D to 3-D, batches and threads.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "loaders/json_loader.h"
#include "ops/kernels/pwconv/conv_pointwise_int8.h"
#include "runtime/cpu_features.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct Net {
  std::string name;
  std::vector<int64_t> x_dims;  // N, C, spatial...
  int64_t m = 16;               // output channels
  std::vector<int64_t> kernel, strides, pads, dilations;
  bool power_of_two = false;  // sx, sw, sy powers of two, int8 codes with zero point 0
  bool relu6 = false;         // a Clip(0, 6) between the Conv and its QuantizeLinear
  bool x_signed = false;
  int x_zp = 131;
};

std::string Ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string Json(const Net& n) {
  const int64_t c = n.x_dims[1];
  int64_t per_filter = c;
  for (int64_t k : n.kernel) per_filter *= k;
  std::vector<int64_t> w_dims = {n.m, c};
  w_dims.insert(w_dims.end(), n.kernel.begin(), n.kernel.end());
  const std::string x_type = n.power_of_two || n.x_signed ? "int8" : "uint8";
  const std::string sx = n.power_of_two ? "0.0625" : "0.0213", sy = n.power_of_two ? "0.125" : "0.093";
  const std::string zx = n.power_of_two ? "0" : std::to_string(n.x_zp);
  const std::string sw =
      n.power_of_two ? "[0.0078125,0.00390625,0.015625,0.0078125]" : testing::RandomFloatsJson(4, 2, 0.002f, 0.02f);
  // Per-channel weight scales for the first four channels' pattern, repeated.
  std::string scales = "[";
  for (int64_t i = 0; i < n.m; ++i) {
    const std::string all = sw.substr(1, sw.size() - 2);
    size_t start = 0;
    for (int64_t j = 0; j < i % 4; ++j) start = all.find(',', start) + 1;
    const size_t end = all.find(',', start);
    scales += (i ? "," : "") + all.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }
  scales += "]";
  std::string inits =
      R"({"name":"sx","dtype":"float32","shape":[],"data":[)" + sx + R"(]},{"name":"zx","dtype":")" + x_type +
      R"(","shape":[],"data":[)" + zx + R"(]},{"name":"wq","dtype":"int8","shape":)" + Ints(w_dims) + R"(,"data":)" +
      testing::RandomIntsJson(n.m * per_filter, 1, -128, 127) + R"(},{"name":"sw","dtype":"float32","shape":[)" +
      std::to_string(n.m) + R"(],"data":)" + scales + R"(},{"name":"b","dtype":"float32","shape":[)" +
      std::to_string(n.m) + R"(],"data":)" +
      (n.power_of_two ? testing::RandomIntsJson(n.m, 3, -64, 64) : testing::RandomFloatsJson(n.m, 3, -1.f, 1.f)) +
      R"(},{"name":"sy","dtype":"float32","shape":[],"data":[)" + sy +
      R"(]},{"name":"zy","dtype":"int8","shape":[],"data":[)" + (n.power_of_two ? "0" : "-5") +
      R"(]},{"name":"lo","dtype":"float32","shape":[],"data":[0]},)"
      R"({"name":"hi","dtype":"float32","shape":[],"data":[6]})";
  std::string attrs = R"({"kernel_shape":)" + Ints(n.kernel);
  if (!n.strides.empty()) attrs += R"(,"strides":)" + Ints(n.strides);
  if (!n.pads.empty()) attrs += R"(,"pads":)" + Ints(n.pads);
  if (!n.dilations.empty()) attrs += R"(,"dilations":)" + Ints(n.dilations);
  attrs += "}";
  std::string nodes =
      R"({"name":"dqw","op":"DequantizeLinear","inputs":["wq","sw"],"outputs":["w"],"attrs":{"axis":0}},)"
      R"({"name":"dqx","op":"DequantizeLinear","inputs":["xq","sx","zx"],"outputs":["x"]},)"
      R"({"name":"conv","op":"Conv","inputs":["x","w","b"],"outputs":["c"],"attrs":)" +
      attrs + "},";
  if (n.relu6) nodes += R"({"name":"relu6","op":"Clip","inputs":["c","lo","hi"],"outputs":["r"]},)";
  nodes += R"({"name":"q","op":"QuantizeLinear","inputs":[")" + std::string(n.relu6 ? "r" : "c") +
           R"(","sy","zy"],"outputs":["q"]},)"
           R"({"name":"dq","op":"DequantizeLinear","inputs":["q","sy","zy"],"outputs":["y"]})";
  return R"({"format":"qrt.graph","version":1,"inputs":[{"name":"xq","dtype":")" + x_type + R"(","shape":)" +
         Ints(n.x_dims) + R"(}],"outputs":[{"name":"y"}],"initializers":[)" + inits + R"(],"nodes":[)" + nodes + "]}";
}

Graph Load(const std::string& json) {
  StatusOr<Graph> g = LoadJsonText(json, "patches.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << json;
  return std::move(g).value();
}

Tensor Input(const Net& n, uint32_t seed) {
  const bool s8 = n.power_of_two || n.x_signed;
  Tensor t = Tensor::Allocate(s8 ? DataType::kInt8 : DataType::kUInt8, n.x_dims).value();
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.numel(); ++i) {
    // Power of two: small codes, so that the exact rule's 2^24 bound holds with room.
    t.data<uint8_t>()[i] = n.power_of_two ? uint8_t(int8_t(int(rng() % 61) - 30)) : uint8_t(rng());
  }
  return t;
}

std::vector<Net> Nets() {
  return {
      {"3x3_pad1", {1, 8, 12, 13}, 16, {3, 3}, {}, {1, 1, 1, 1}},
      {"3x3_stride2_pad1", {1, 16, 15, 17}, 24, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      {"5x5_dilated_asymmetric", {1, 4, 14, 12}, 8, {5, 5}, {1, 2}, {0, 1, 2, 1}, {2, 1}},
      {"3x3_two_k_blocks_batch2", {2, 40, 9, 10}, 12, {3, 3}, {}, {1, 1, 1, 1}},
      {"stride3_no_pad", {1, 6, 20, 19}, 10, {3, 2}, {3, 3}},
      {"1d", {1, 7, 50}, 9, {3}, {2}, {1, 1}},
      {"3d", {1, 2, 5, 6, 7}, 6, {3, 3, 3}, {1, 2, 1}, {1, 1, 1, 1, 0, 1}},
      {"int8_x_zero_point_low", {1, 8, 11, 11}, 16, {3, 3}, {}, {1, 1, 1, 1}, {}, false, false, true, -128},
      {"uint8_x_zero_point_high", {1, 8, 11, 11}, 16, {3, 3}, {}, {1, 1, 1, 1}, {}, false, false, false, 255},
      {"relu6", {1, 8, 12, 13}, 16, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, false, true},
      {"power_of_two", {1, 16, 12, 12}, 16, {3, 3}, {}, {1, 1, 1, 1}, {}, true},
      {"power_of_two_relu6_stride2", {1, 3, 32, 32}, 16, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, true, true},
  };
}

TEST(ConvInt8Patches, DefaultPassesGiveTheUnfusedFloatGraphsBits) {
  for (const Net& n : Nets()) {
    for (int threads : {1, 2}) {
      const std::string json = Json(n);
      EXPECT_EQ(testing::CompareFusedToUnfused([&] { return Load(json); }, {Input(n, 7)}, {"default"}, threads), "")
          << n.name << " threads " << threads;
    }
  }
}

// The int8 path forced (a plan that cannot be made is an error) at each tier that has a kernel,
// against the unfused graph on the reference kernels.
TEST(ConvInt8Patches, TheForcedIntegerPathGivesTheSameBitsAtEveryTier) {
  std::vector<Isa> tiers;
  for (Isa isa : TiersThisCpuHas()) {  // one ceiling per int8 kernel
    if (!PointwiseInt8Available(isa)) continue;
    if (tiers.empty() || PointwiseInt8Tier(tiers.back()) != PointwiseInt8Tier(isa)) tiers.push_back(isa);
  }
  if (tiers.empty()) GTEST_SKIP() << "CPU (or QRT_MAX_ISA) lacks AVX2: no int8 kernel";
  for (const Net& n : Nets()) {
    const std::string json = Json(n);
    const std::vector<Tensor> inputs = {Input(n, 11)};
    auto want = testing::RunGraph(Load(json), inputs, "none", Isa::kScalar);
    ASSERT_TRUE(want.ok()) << want.status().message();
    for (Isa isa : tiers) {
      auto got = testing::RunGraph(Load(json), inputs, "default", isa, 1, "pointwise-int8");
      ASSERT_TRUE(got.ok()) << n.name << " at " << IsaName(isa) << ": " << got.status().message();
      EXPECT_EQ(testing::CompareBits((*got)[0], (*want)[0]), "") << n.name << " at " << IsaName(isa);
    }
  }
}

}  // namespace
}  // namespace qrt
