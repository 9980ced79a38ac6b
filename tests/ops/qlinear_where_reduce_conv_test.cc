// com.microsoft QLinearWhere, QLinearReduceMean and QLinearConv (channels_last) against their
// definitions run as ONNX graphs in qrt (DQ -> op -> Q chains, Transpose -> QLinearConv ->
// Transpose), at every tier this CPU has; ONNX Runtime's own outputs for them are checked in
// tests/data/audit (qlinearwhere_*, msqlinearconv_*).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "loaders/model_builder.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

// A graph builder for chains: runtime inputs, initializers, nodes (com.microsoft ones by domain).
struct Chain {
  ModelBuilder b{"chain", {{"", 13}, {"com.microsoft", 1}}, false};
  std::vector<Tensor> feeds;

  void In(const std::string& name, const Tensor& t) {
    ASSERT_TRUE(b.AddInput(name, t.dtype(), ShapeFromDims(t.dims())).ok());
    feeds.push_back(t.Clone());
  }
  void Init(const std::string& name, Tensor t) { ASSERT_TRUE(b.AddInitializer(name, std::move(t)).ok()); }
  void Op(const std::string& op, std::vector<std::string> in, const std::string& out, Attributes attrs = {},
          bool microsoft = false) {
    NodeSpec n;
    n.name = out;
    n.op_type = op;
    if (microsoft) n.domain = "com.microsoft";
    n.inputs = std::move(in);
    n.outputs = {out};
    n.attrs = std::move(attrs);
    ASSERT_TRUE(b.AddNode(std::move(n)).ok()) << op;
  }
  StatusOr<Tensor> Run(const std::string& out, Isa isa) {
    QRT_RETURN_IF_ERROR(b.AddOutput(out, DataType::kUndefined, std::nullopt));
    QRT_ASSIGN_OR_RETURN(Graph g, b.Finish());
    QRT_ASSIGN_OR_RETURN(std::vector<Tensor> y, testing::RunGraph(std::move(g), feeds, "none", isa));
    return std::move(y[0]);
  }
};

Tensor Codes(DataType dt, const Dims& dims, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::Allocate(dt, dims).value();
  std::uniform_int_distribution<int> d(0, 255);
  uint8_t* p = static_cast<uint8_t*>(t.raw());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = uint8_t(i % 13 == 0 ? (i % 2 ? 255 : 0) : d(rng));
  return t;
}

Tensor Scale(float s) { return Tensor::FromVector<float>({s}, {}); }
Tensor Zp(DataType dt, int v) {
  Tensor t = Tensor::Allocate(dt, {}).value();
  static_cast<uint8_t*>(t.raw())[0] = uint8_t(v);
  return t;
}

Attributes Axes(std::vector<int64_t> axes, int64_t keepdims) {
  Attributes a;
  a.Set("axes", std::move(axes));
  a.Set("keepdims", keepdims);
  return a;
}

// ---- QLinearReduceMean ----

// The input's and the mean's grids, for both forms.
void AddReduceMeanGrids(Chain& c, DataType dt) {
  c.Init("xs", Scale(0.043f));
  c.Init("xz", Zp(dt, dt == DataType::kUInt8 ? 131 : 0xF0));
  c.Init("ys", Scale(0.017f));
  c.Init("yz", Zp(dt, dt == DataType::kUInt8 ? 120 : 0x05));
}

StatusOr<Tensor> QLinearReduceMean(const Tensor& x, DataType dt, const Attributes& attrs, Isa isa) {
  Chain c;
  c.In("x", x);
  AddReduceMeanGrids(c, dt);
  c.Op("QLinearReduceMean", {"x", "xs", "xz", "ys", "yz"}, "y", attrs, true);
  return c.Run("y", isa);
}

StatusOr<Tensor> ReduceMeanChain(const Tensor& x, DataType dt, const Attributes& attrs, Isa isa) {
  Chain c;
  c.In("x", x);
  AddReduceMeanGrids(c, dt);
  c.Op("DequantizeLinear", {"x", "xs", "xz"}, "xf");
  c.Op("ReduceMean", {"xf"}, "mf", attrs);
  c.Op("QuantizeLinear", {"mf", "ys", "yz"}, "y");
  return c.Run("y", isa);
}

TEST(QLinearReduceMean, EqualsDequantizeReduceMeanQuantize) {
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> reductions = {
      {{2, 3}, 1}, {{1}, 0}, {{-1}, 1}, {{0, 1, 2, 3}, 0}, {{1, 3}, 1}};
  for (DataType dt : {DataType::kUInt8, DataType::kInt8}) {
    const Tensor x = Codes(dt, {2, 5, 7, 9}, 3);
    for (const auto& [axes, keep] : reductions) {
      const Attributes attrs = Axes(axes, keep);
      auto want = ReduceMeanChain(x, dt, attrs, Isa::kScalar);
      ASSERT_TRUE(want.ok()) << want.status().message();
      for (Isa isa : TiersThisCpuHas()) {
        auto got = QLinearReduceMean(x, dt, attrs, isa);
        ASSERT_TRUE(got.ok()) << got.status().message();
        EXPECT_EQ(testing::CompareBits(*got, *want), "")
            << DataTypeName(dt) << " axes " << axes.size() << " keepdims " << keep << " at " << IsaName(isa);
      }
    }
  }
}

TEST(QLinearReduceMean, AveragesCodesOnTheirGrids) {
  // Codes 10, 20, 30, 40 around zero point 0 with scale 1 average to 25, which the output grid
  // (scale 2, zero point 100) holds as 100 + 12.5 -> 112 (ties to even).
  Chain c;
  Tensor x = Tensor::FromVector<uint8_t>({10, 20, 30, 40}, {1, 4});
  c.In("x", x);
  c.Init("xs", Scale(1.f));
  c.Init("xz", Zp(DataType::kUInt8, 0));
  c.Init("ys", Scale(2.f));
  c.Init("yz", Zp(DataType::kUInt8, 100));
  c.Op("QLinearReduceMean", {"x", "xs", "xz", "ys", "yz"}, "y", Axes({1}, 0), true);
  auto y = c.Run("y", kIsaAuto);
  ASSERT_TRUE(y.ok()) << y.status().message();
  ASSERT_EQ(y->dims(), Dims{1});
  EXPECT_EQ(y->data<uint8_t>()[0], 112);
}

TEST(QLinearReduceMean, RefusesMissingAxesAndFloatData) {
  Chain no_axes;
  no_axes.In("x", Codes(DataType::kUInt8, {2, 3}, 1));
  no_axes.Init("s", Scale(0.1f));
  no_axes.Init("z", Zp(DataType::kUInt8, 128));
  no_axes.Op("QLinearReduceMean", {"x", "s", "z", "s", "z"}, "y", {}, true);
  auto r = no_axes.Run("y", kIsaAuto);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("axes"), std::string::npos) << r.status().message();

  Chain floats;
  floats.In("x", Tensor::FromVector<float>({1, 2}, {2}));
  floats.Init("s", Scale(0.1f));
  floats.Init("z", Zp(DataType::kUInt8, 128));
  floats.Op("QLinearReduceMean", {"x", "s", "z", "s", "z"}, "y", Axes({0}, 1), true);
  r = floats.Run("y", kIsaAuto);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("uint8 or int8"), std::string::npos) << r.status().message();
}

// ---- QLinearWhere ----

struct WhereCase {
  Dims cond, x, y;
  float xs, ys, zs;
  int xz, yz, zz;
};

StatusOr<Tensor> RunWhere(const WhereCase& w, DataType dt, bool fused, Isa isa) {
  std::mt19937 rng(7);
  Tensor cond = Tensor::Allocate(DataType::kBool, w.cond).value();
  for (int64_t i = 0; i < cond.numel(); ++i) cond.data<uint8_t>()[i] = uint8_t(rng() & 1);
  Chain c;
  c.In("c", cond);
  c.In("x", Codes(dt, w.x, 11));
  c.In("y", Codes(dt, w.y, 12));
  c.Init("xs", Scale(w.xs));
  c.Init("xz", Zp(dt, w.xz));
  c.Init("ys", Scale(w.ys));
  c.Init("yz", Zp(dt, w.yz));
  c.Init("zs", Scale(w.zs));
  c.Init("zz", Zp(dt, w.zz));
  if (fused) {
    c.Op("QLinearWhere", {"c", "x", "xs", "xz", "y", "ys", "yz", "zs", "zz"}, "z", {}, true);
  } else {
    c.Op("DequantizeLinear", {"x", "xs", "xz"}, "xf");
    c.Op("DequantizeLinear", {"y", "ys", "yz"}, "yf");
    c.Op("Where", {"c", "xf", "yf"}, "zf");
    c.Op("QuantizeLinear", {"zf", "zs", "zz"}, "z");
  }
  return c.Run("z", isa);
}

TEST(QLinearWhere, EqualsDequantizeWhereQuantize) {
  const std::vector<WhereCase> cases = {
      {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}, 0.1f, 0.07f, 0.13f, 100, 140, 128},
      {{1, 1, 4}, {2, 3, 4}, {4}, 0.05f, 0.3f, 0.011f, 0, 255, 3},              // broadcast, saturating
      {{3, 1}, {1, 5}, {3, 5}, 0.2f, 0.2f, 0.2f, 17, 17, 17},                   // one grid: copies
      {{2, 1, 6}, {1, 3, 1}, {2, 3, 6}, 0.125f, 0.0625f, 0.25f, 128, 64, 192},  // power-of-two ties
  };
  for (DataType dt : {DataType::kUInt8, DataType::kInt8}) {
    for (size_t k = 0; k < cases.size(); ++k) {
      auto want = RunWhere(cases[k], dt, false, Isa::kScalar);
      ASSERT_TRUE(want.ok()) << want.status().message();
      for (Isa isa : TiersThisCpuHas()) {
        auto got = RunWhere(cases[k], dt, true, isa);
        ASSERT_TRUE(got.ok()) << got.status().message();
        EXPECT_EQ(got->dims(), want->dims());
        EXPECT_EQ(testing::CompareBits(*got, *want), "") << DataTypeName(dt) << " case " << k << " at " << IsaName(isa);
      }
    }
  }
}

TEST(QLinearWhere, RefusesMixedTypesAndNonBoolConditions) {
  Chain c;
  c.In("c", Codes(DataType::kUInt8, {4}, 1));  // not bool
  c.In("x", Codes(DataType::kUInt8, {4}, 2));
  c.Init("s", Scale(0.1f));
  c.Init("z", Zp(DataType::kUInt8, 128));
  c.Op("QLinearWhere", {"c", "x", "s", "z", "x", "s", "z", "s", "z"}, "y", {}, true);
  auto r = c.Run("y", kIsaAuto);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bool"), std::string::npos) << r.status().message();

  Chain mixed;
  Tensor cond = Tensor::Allocate(DataType::kBool, {4}).value();
  mixed.In("c", cond);
  mixed.In("x", Codes(DataType::kUInt8, {4}, 2));
  mixed.In("y", Codes(DataType::kInt8, {4}, 3));
  mixed.Init("s", Scale(0.1f));
  mixed.Init("z", Zp(DataType::kUInt8, 128));
  mixed.Init("zs", Zp(DataType::kInt8, 0));
  mixed.Op("QLinearWhere", {"c", "x", "s", "z", "y", "s", "zs", "s", "z"}, "w", {}, true);
  r = mixed.Run("w", kIsaAuto);
  ASSERT_FALSE(r.ok());
}

// ---- com.microsoft QLinearConv with channels_last ----

struct ConvCase {
  Dims x_nchw, w;
  std::vector<int64_t> kernel, pads, strides;
  int64_t group;
};

StatusOr<Tensor> RunConv(const ConvCase& k, DataType wdt, bool channels_last, bool microsoft, Isa isa) {
  const size_t rank = k.x_nchw.size();
  std::vector<int64_t> to_last = {0}, to_first = {0, int64_t(rank) - 1};
  for (size_t d = 2; d < rank; ++d) to_last.push_back(int64_t(d));
  to_last.push_back(1);
  for (size_t d = 1; d + 1 < rank; ++d) to_first.push_back(int64_t(d));
  Dims x_nhwc = {k.x_nchw[0]};
  for (size_t d = 2; d < rank; ++d) x_nhwc.push_back(k.x_nchw[d]);
  x_nhwc.push_back(k.x_nchw[1]);
  Chain c;
  // The same codes in either layout: the NHWC input is the NCHW one moved by a Transpose.
  c.In("x", Codes(DataType::kUInt8, k.x_nchw, 5));
  c.Init("xs", Scale(0.1f));
  c.Init("xz", Zp(DataType::kUInt8, 128));
  c.Init("w", Codes(wdt, k.w, 6));
  const int64_t m = k.w[0];
  std::vector<float> ws;
  for (int64_t o = 0; o < m; ++o) ws.push_back(0.01f + 0.003f * float(o));
  c.Init("ws", Tensor::FromVector<float>(ws, {m}));
  c.Init("wz", Zp(wdt, wdt == DataType::kUInt8 ? 127 : 0));
  c.Init("ys", Scale(0.37f));
  c.Init("yz", Zp(DataType::kUInt8, 120));
  std::vector<int32_t> bias;
  for (int64_t o = 0; o < m; ++o) bias.push_back(int32_t(o * 97 - 300));
  c.Init("b", Tensor::FromVector<int32_t>(bias, {m}));
  Attributes a;
  a.Set("kernel_shape", k.kernel);
  a.Set("pads", k.pads);
  a.Set("strides", k.strides);
  a.Set("group", k.group);
  Attributes perm_last, perm_first;
  perm_last.Set("perm", to_last);
  perm_first.Set("perm", to_first);
  if (channels_last) {
    a.Set("channels_last", int64_t(1));
    c.Op("Transpose", {"x"}, "x_last", perm_last);
    c.Op("QLinearConv", {"x_last", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"}, "y", a, true);
  } else {
    c.Op("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"}, "y_first", a, microsoft);
    c.Op("Transpose", {"y_first"}, "y", perm_last);
  }
  return c.Run("y", isa);
}

TEST(MsQLinearConv, ChannelsLastEqualsTheNchwConvolution) {
  const std::vector<ConvCase> cases = {
      {{1, 3, 11, 13}, {4, 3, 3, 3}, {3, 3}, {1, 1, 1, 1}, {1, 1}, 1},
      {{2, 6, 9, 8}, {8, 6, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},   // pointwise, batch 2
      {{1, 4, 10, 7}, {4, 1, 3, 3}, {3, 3}, {1, 1, 1, 1}, {2, 2}, 4},  // depthwise, strided
      {{1, 6, 8, 8}, {6, 3, 3, 3}, {3, 3}, {0, 1, 1, 0}, {1, 1}, 2},   // two groups
      {{1, 3, 17}, {5, 3, 3}, {3}, {1, 0}, {2}, 1},                    // 1-D
  };
  for (DataType wdt : {DataType::kInt8, DataType::kUInt8}) {
    for (size_t k = 0; k < cases.size(); ++k) {
      auto want = RunConv(cases[k], wdt, false, false, Isa::kScalar);
      ASSERT_TRUE(want.ok()) << want.status().message();
      for (Isa isa : TiersThisCpuHas()) {
        for (bool last : {true, false}) {
          auto got = RunConv(cases[k], wdt, last, true, isa);
          ASSERT_TRUE(got.ok()) << got.status().message();
          EXPECT_EQ(testing::CompareBits(*got, *want), "")
              << DataTypeName(wdt) << " case " << k << (last ? " channels_last" : " channels_first") << " at "
              << IsaName(isa);
        }
      }
    }
  }
}

TEST(MsQLinearConv, RefusesBadChannelsLast) {
  for (int64_t bad : {int64_t(2), int64_t(-1)}) {
    Chain c;
    c.In("x", Codes(DataType::kUInt8, {1, 5, 5, 3}, 1));
    c.Init("s", Scale(0.1f));
    c.Init("z", Zp(DataType::kUInt8, 128));
    c.Init("w", Codes(DataType::kInt8, {2, 3, 1, 1}, 2));
    c.Init("wz", Zp(DataType::kInt8, 0));
    Attributes a;
    a.Set("channels_last", bad);
    c.Op("QLinearConv", {"x", "s", "z", "w", "s", "wz", "s", "z"}, "y", a, true);
    auto r = c.Run("y", kIsaAuto);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("channels_last"), std::string::npos) << r.status().message();
  }
  Chain flat;
  flat.In("x", Codes(DataType::kUInt8, {5, 3}, 1));
  flat.Init("s", Scale(0.1f));
  flat.Init("z", Zp(DataType::kUInt8, 128));
  flat.Init("w", Codes(DataType::kInt8, {2, 3, 1}, 2));
  flat.Init("wz", Zp(DataType::kInt8, 0));
  Attributes a;
  a.Set("channels_last", int64_t(1));
  flat.Op("QLinearConv", {"x", "s", "z", "w", "s", "wz", "s", "z"}, "y", a, true);
  auto r = flat.Run("y", kIsaAuto);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("rank"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace qrt
