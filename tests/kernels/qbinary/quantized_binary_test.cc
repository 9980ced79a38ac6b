#include "ops/kernels/qbinary/quantized_binary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::FirstDiff;
using ::qrt::testing::TestSeed;
using Op = QuantizedBinaryOp;
using Rule = Requantize;

constexpr DataType kU8 = DataType::kUInt8, kI8 = DataType::kInt8, kF32 = DataType::kFloat32;

std::vector<uint8_t> Pack(DataType t, const std::vector<double>& v) {
  std::vector<uint8_t> b(v.size() * DataTypeSize(t));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == kU8) b[i] = static_cast<uint8_t>(v[i]);
    if (t == kI8) reinterpret_cast<int8_t*>(b.data())[i] = static_cast<int8_t>(v[i]);
    if (t == kF32) reinterpret_cast<float*>(b.data())[i] = static_cast<float>(v[i]);
  }
  return b;
}

double At(DataType t, const std::vector<uint8_t>& b, size_t i) {
  if (t == kU8) return b[i];
  if (t == kI8) return reinterpret_cast<const int8_t*>(b.data())[i];
  return reinterpret_cast<const float*>(b.data())[i];
}

struct Case {
  DataType a_dt = kU8, b_dt = kU8, c_dt = kU8;
  Dims a_dims = {1}, b_dims = {1};
  std::vector<double> a = {0}, b = {0};
  std::vector<float> sa = {1}, sb = {1};
  float sc = 1;
  std::vector<double> za = {0}, zb = {0};
  double zc = 0;
  Dims sa_dims = {}, sb_dims = {};
  QuantizedBinaryAttrs attrs;
};

struct Result {
  Dims dims;
  std::vector<uint8_t> bytes;
  std::vector<double> values;
};

// A SIMD kernel family, run in place of the one kIsaAuto would pick, so that every family this
// CPU can run is checked against the reference.
struct Simd {
  const char* name;
  QuantizedBinaryFn (*pick)(Op, Rule, DataType, DataType, DataType);
};

std::vector<Simd> SimdKernels() {
  std::vector<Simd> v;
  if (DetectCpuFeatures().avx2) v.push_back({"avx2", avx2::QuantizedBinaryKernel});
  if (DetectCpuFeatures().avx512_vbmi) v.push_back({"avx512", avx512::QuantizedBinaryKernel});
  return v;
}

StatusOr<Result> RunCase(Op op, const Case& c, Isa isa = Isa::kScalar, bool in_place = false, int threads = 1,
                         const Simd* simd = nullptr) {
  QuantizedBinaryDescs d;
  d.a = {c.a_dt, c.a_dims};
  d.a_scale = {kF32, c.sa_dims};
  d.a_zero_point = {c.a_dt, c.sa_dims};
  d.b = {c.b_dt, c.b_dims};
  d.b_scale = {kF32, c.sb_dims};
  d.b_zero_point = {c.b_dt, c.sb_dims};
  d.c_scale = {kF32, {}};
  d.c_zero_point = {c.c_dt, {}};
  QRT_ASSIGN_OR_RETURN(QuantizedBinaryPlan plan,
                       op == Op::kMul ? PrepareQuantizedMul(c.attrs, d, isa) : PrepareQuantizedAdd(c.attrs, d, isa));
  plan.threads = threads;
  if (simd != nullptr) {
    plan.kernel = simd->pick(op, c.attrs.requantize, c.a_dt, c.b_dt, plan.c_dtype);
    EXPECT_NE(plan.kernel, nullptr) << simd->name;
    if (plan.kernel == nullptr) return Internal("no ", simd->name, " kernel");
  }
  std::vector<uint8_t> a = Pack(c.a_dt, c.a), b = Pack(c.b_dt, c.b), za = Pack(c.a_dt, c.za), zb = Pack(c.b_dt, c.zb);
  std::vector<uint8_t> zc = Pack(c.c_dt, {c.zc});
  const size_t n = static_cast<size_t>(ElementCount(plan.out_dims));
  const size_t es = DataTypeSize(plan.c_dtype);
  Result r;
  r.dims = plan.out_dims;
  r.bytes.assign(n * es + 1, 0xA5);
  QuantizedBinaryData data;
  data.a = a.data();
  data.a_scale = c.sa.data();
  data.a_zero_point = za.data();
  data.b = b.data();
  data.b_scale = c.sb.data();
  data.b_zero_point = zb.data();
  data.c_scale = &c.sc;
  data.c_zero_point = zc.data();
  data.c = r.bytes.data();
  if (in_place) data.c = a.data();
  QRT_RETURN_IF_ERROR(RunQuantizedBinary(plan, data));
  if (in_place && n > 0) std::memcpy(r.bytes.data(), a.data(), n * es);
  EXPECT_EQ(r.bytes.back(), 0xA5) << "wrote past the end";
  r.bytes.pop_back();
  for (size_t i = 0; i < n; ++i) r.values.push_back(At(plan.c_dtype, r.bytes, i));
  return r;
}

double Mul1(Rule rule, double a, float sa, double za, double b, float sb, double zb, float sc, double zc,
            DataType t = kU8) {
  Case c;
  c.a_dt = c.b_dt = c.c_dt = t;
  c.a = {a};
  c.b = {b};
  c.sa = {sa};
  c.sb = {sb};
  c.sc = sc;
  c.za = {za};
  c.zb = {zb};
  c.zc = zc;
  c.attrs.requantize = rule;
  return RunCase(Op::kMul, c).value().values[0];
}

// ---- documented examples ---------------------------------------------------------------------

TEST(QuantizedMul, RulesDisagreeOn0375Over003) {
  // p = 0.5 * 0.75 = 0.375; ONNX: 0.375f / 0.03f = 12.5 -> 12; Simd: 0.375f * 33.3333359f = 12.500001 -> 13.
  EXPECT_EQ(Mul1(Rule::kReciprocal, 1, 0.5f, 0, 3, 0.25f, 0, 0.03f, 0), 13);
  EXPECT_EQ(Mul1(Rule::kDivide, 1, 0.5f, 0, 3, 0.25f, 0, 0.03f, 0), 12);
}

TEST(QuantizedMul, ReciprocalTiesToEvenBeforeZeroPoint) {
  EXPECT_EQ(Mul1(Rule::kReciprocal, 9, 0.5f, 0, 1, 1, 0, 1, 10), 14);       // 4.5 -> 4, + 10
  EXPECT_EQ(Mul1(Rule::kReciprocal, 11, 0.5f, 0, 1, 1, 0, 1, 10), 16);      // 5.5 -> 6, + 10
  EXPECT_EQ(Mul1(Rule::kReciprocal, -5, 0.5f, 0, 1, 1, 0, 1, 10, kI8), 8);  // -2.5 -> -2, + 10
  // Divide rule: rint(2.5) + 1 = 3 (not rint(3.5) = 4).
  EXPECT_EQ(Mul1(Rule::kDivide, 5, 0.5f, 0, 1, 1, 0, 1, 1, kI8), 3);
}

TEST(QuantizedMul, SaturatesAfterZeroPointAtBothEnds) {
  EXPECT_EQ(Mul1(Rule::kReciprocal, 255, 1, 0, 255, 1, 0, 1, 0), 255);
  EXPECT_EQ(Mul1(Rule::kReciprocal, 0, 1, 255, 255, 1, 0, 1, 0), 0);
  EXPECT_EQ(Mul1(Rule::kReciprocal, 1, 1, 0, 1, 1, 0, 1, 255), 255);  // zc at the top
  EXPECT_EQ(Mul1(Rule::kReciprocal, 0, 1, 1, 1, 1, 0, 1, 255), 254);
  EXPECT_EQ(Mul1(Rule::kDivide, 127, 1, -128, 127, 1, -128, 1, 0, kI8), 127);
  EXPECT_EQ(Mul1(Rule::kDivide, -128, 1, 127, 127, 1, -128, 1, 0, kI8), -128);
  EXPECT_EQ(Mul1(Rule::kDivide, 0, 1, 0, 0, 1, 0, 1, -128, kI8), -128);
  EXPECT_EQ(Mul1(Rule::kDivide, 1, 1, 0, 1, 1, 0, 1, 127, kI8), 127);
  EXPECT_EQ(Mul1(Rule::kCombined, 127, 1, -128, 127, 1, -128, 1, 0, kI8), 127);
  EXPECT_EQ(Mul1(Rule::kCombined, -128, 1, 127, 127, 1, -128, 1, 0, kI8), -128);
  // Huge products overflow int32 in the references; qrt saturates.
  EXPECT_EQ(Mul1(Rule::kReciprocal, 255, 1e30f, 0, 255, 1e30f, 0, 1e-30f, 0), 255);
  EXPECT_EQ(Mul1(Rule::kReciprocal, 255, 1e30f, 0, 0, 1e30f, 255, 1e-30f, 0), 0);
}

TEST(QuantizedMul, NanGivesTminAndInfSaturates) {
  Case c;
  c.a_dt = kF32;
  c.a = {std::nan(""), std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  c.a_dims = {3};
  c.b = {1};
  for (DataType t : {kU8, kI8}) {
    c.c_dt = t;
    for (Rule rule : {Rule::kReciprocal, Rule::kDivide}) {
      c.attrs.requantize = rule;
      const auto v = RunCase(Op::kMul, c).value().values;
      const double lo = t == kU8 ? 0 : -128, hi = t == kU8 ? 255 : 127;
      EXPECT_EQ(v, (std::vector<double>{lo, hi, lo}));
    }
  }
}

TEST(QuantizedMul, FloatOperandIgnoresScaleAndZeroPoint) {
  Case c;
  c.a_dt = kF32;
  c.a = {2.5};
  c.sa = {100};
  c.za = {7};
  c.b = {4};
  c.sb = {0.5f};
  c.zb = {2};
  c.sc = 0.5f;
  EXPECT_EQ(RunCase(Op::kMul, c).value().values[0], 5);  // 2.5 * 1 / 0.5
  c.c_dt = kF32;
  c.sc = 1000;
  c.zc = 3;
  EXPECT_EQ(RunCase(Op::kMul, c).value().values[0], 2.5);  // float output ignores C params
  EXPECT_EQ(RunCase(Op::kAdd, c).value().values[0], 3.5);
}

TEST(QuantizedMul, OutputDtypeDefaultsAndAttr) {
  QuantizedBinaryDescs d;
  d.a = {kU8, {2}};
  d.b = {kU8, {2}};
  QuantizedBinaryAttrs attrs;
  EXPECT_EQ(PrepareQuantizedMul(attrs, d, Isa::kScalar).value().c_dtype, kU8);  // no C_zero_point
  d.c_zero_point = {kI8, {}};
  EXPECT_EQ(PrepareQuantizedMul(attrs, d, Isa::kScalar).value().c_dtype, kI8);
  attrs.output_dtype = kU8;
  QRT_EXPECT_ERROR(PrepareQuantizedMul(attrs, d, Isa::kScalar), "differs from C_zero_point dtype");
  d.c_zero_point = {};
  attrs.output_dtype = kF32;
  EXPECT_EQ(PrepareQuantizedMul(attrs, d, Isa::kScalar).value().c_dtype, kF32);
}

TEST(QuantizedMul, AbsentScalesAndZeroPointsAreOneAndZero) {
  QuantizedBinaryDescs d;
  d.a = {kU8, {2}};
  d.b = {kU8, {}};
  auto plan = PrepareQuantizedMul({}, d, Isa::kScalar);
  QRT_ASSERT_OK(plan.status());
  const uint8_t a[2] = {3, 100}, b = 2;
  uint8_t c[2];
  QuantizedBinaryData data;
  data.a = a;
  data.b = &b;
  data.c = c;
  QRT_ASSERT_OK(RunQuantizedBinary(*plan, data));
  EXPECT_EQ(c[0], 6);
  EXPECT_EQ(c[1], 200);
}

// ---- combined rules (ONNX Runtime MLAS x86) -------------------------------------------------

TEST(QuantizedMul, CombinedAddsZeroPointBeforeRounding) {
  // ratio = 0.5 + 2^-20: 1 * ratio rounds to 1 on its own, but 100 + ratio = 100.5 in f32 -> 100.
  const float sa = 0.5f + std::ldexp(1.0f, -20);
  EXPECT_EQ(Mul1(Rule::kCombined, 1, sa, 0, 1, 1, 0, 1, 100), 100);
  EXPECT_EQ(Mul1(Rule::kReciprocal, 1, sa, 0, 1, 1, 0, 1, 100), 101);
}

TEST(QuantizedMul, CombinedUsesExactIntegerProductAndFusedRatio) {
  // (200-100)*(50-10) = 4000; ratio = float(float(0.1*0.2)/0.5).
  const float ratio = (0.1f * 0.2f) / 0.5f;
  const double want = std::min(255.0, double(std::nearbyint(4000.0f * ratio + 3.0f)));
  EXPECT_EQ(Mul1(Rule::kCombined, 200, 0.1f, 100, 50, 0.2f, 10, 0.5f, 3), want);
  EXPECT_EQ(Mul1(Rule::kCombined, 110, 0.1f, 100, 50, 0.2f, 10, 0.5f, 3), std::nearbyint(400.0f * ratio + 3.0f));
}

TEST(QuantizedAdd, CombinedFollowsMlasAvx2Formula) {
  Case c;
  c.a_dims = c.b_dims = {1};
  c.attrs.requantize = Rule::kCombined;
  c.a = {15};
  c.b = {30};
  c.za = {10};
  c.zb = {20};
  c.zc = 5;
  EXPECT_EQ(RunCase(Op::kAdd, c).value().values[0], 20);  // (15-10) + (30-20) + 5
  // Independent restatement on random data: k = zc - (rac*za + rbc*zb); fma(a, rac, fma(b, rbc, k)).
  std::mt19937 rng(TestSeed());
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> scale(0.001f, 0.2f);
  for (int it = 0; it < 2000; ++it) {
    c.a = {double(byte(rng))};
    c.b = {double(byte(rng))};
    c.za = {double(byte(rng))};
    c.zb = {double(byte(rng))};
    c.zc = byte(rng);
    c.sa = {scale(rng)};
    c.sb = {scale(rng)};
    c.sc = scale(rng);
    const float rac = c.sa[0] / c.sc, rbc = c.sb[0] / c.sc;
    const float k = float(c.zc) - (rac * float(c.za[0]) + rbc * float(c.zb[0]));
    const float y = std::fma(float(c.a[0]), rac, std::fma(float(c.b[0]), rbc, k));
    const double want = std::max(0.0, std::min(255.0, double(std::nearbyint(y))));
    ASSERT_EQ(RunCase(Op::kAdd, c).value().values[0], want) << it;
  }
}

TEST(QuantizedAdd, ReciprocalAndDivide) {
  Case c;
  c.a = {10};
  c.b = {20};
  c.sa = {0.5f};
  c.sb = {0.25f};
  c.sc = 0.1f;
  c.zc = 3;
  c.attrs.requantize = Rule::kDivide;
  EXPECT_EQ(RunCase(Op::kAdd, c).value().values[0], std::nearbyint((5.0f + 5.0f) / 0.1f) + 3);
  c.attrs.requantize = Rule::kReciprocal;
  EXPECT_EQ(RunCase(Op::kAdd, c).value().values[0], std::nearbyint((5.0f + 5.0f) * (1.0f / 0.1f)) + 3);
}

// ---- divide rule == DequantizeLinear, Mul/Add, QuantizeLinear -------------------------------

// The ONNX chain, written out op by op (section 5), for per-tensor or per-axis parameters.
double OnnxChain(Op op, double a, float sa, double za, double b, float sb, double zb, float sc, double zc,
                 DataType c_dt) {
  const float dqa = (static_cast<float>(a) - static_cast<float>(za)) * sa;
  const float dqb = (static_cast<float>(b) - static_cast<float>(zb)) * sb;
  const float m = op == Op::kMul ? dqa * dqb : dqa + dqb;
  const float r = std::rint(m / sc);
  const double lo = c_dt == kU8 ? 0 : -128, hi = c_dt == kU8 ? 255 : 127;
  return std::max(lo, std::min(hi, static_cast<double>(r) + zc));
}

TEST(QuantizedBinary, DivideRuleEqualsSeparateOnnxOps) {
  std::mt19937 rng(TestSeed());
  std::uniform_real_distribution<float> scale(0.001f, 0.5f);
  for (DataType t : {kU8, kI8}) {
    std::uniform_int_distribution<int> val(t == kU8 ? 0 : -128, t == kU8 ? 255 : 127);
    for (Op op : {Op::kMul, Op::kAdd}) {
      for (int64_t axis = -1; axis < 3; ++axis) {  // per-axis on A (and on B with the same axis)
        Case c;
        c.a_dt = c.b_dt = c.c_dt = t;
        c.a_dims = {2, 3, 4};
        c.b_dims = {3, 1};
        c.attrs.requantize = Rule::kDivide;
        c.a.resize(24);
        c.b.resize(3);
        for (auto& v : c.a) v = val(rng);
        for (auto& v : c.b) v = val(rng);
        const int64_t na = axis < 0 ? 1 : c.a_dims[axis];
        c.sa.resize(na);
        c.za.resize(na);
        for (int64_t i = 0; i < na; ++i) {
          c.sa[i] = scale(rng);
          c.za[i] = val(rng);
        }
        if (axis >= 0) {
          c.attrs.a_axis = axis;
          c.sa_dims = {na};
        }
        if (axis == 0) {  // B per-axis too, on its dim 0 (3)
          c.attrs.b_axis = 0;
          c.sb_dims = {3};
          c.sb = {scale(rng), scale(rng), scale(rng)};
          c.zb = {double(val(rng)), double(val(rng)), double(val(rng))};
        } else {
          c.sb = {scale(rng)};
          c.zb = {double(val(rng))};
        }
        c.sc = scale(rng) * (op == Op::kMul ? 0.1f : 1.0f);
        c.zc = val(rng);
        for (Isa isa : TiersThisCpuHas()) {
          const auto r = RunCase(op, c, isa).value();
          for (int64_t e = 0; e < 24; ++e) {
            const int64_t idx[3] = {e / 12, (e / 4) % 3, e % 4};
            const int64_t ka = axis < 0 ? 0 : idx[axis];
            const int64_t kb = axis == 0 ? idx[1] : 0;
            const double want =
                OnnxChain(op, c.a[e], c.sa[ka], c.za[ka], c.b[idx[1]], c.sb[kb], c.zb[kb], c.sc, c.zc, t);
            ASSERT_EQ(r.values[e], want) << DataTypeName(t) << " op " << int(op) << " axis " << axis << " e " << e;
          }
        }
      }
    }
  }
}

// ---- broadcasting ------------------------------------------------------------------------------

TEST(QuantizedBinary, BroadcastAnyRank) {
  Case c;
  c.a_dims = {2, 1, 3, 1, 2, 2};
  c.b_dims = {2, 1, 3, 1, 2};
  c.a.resize(24);
  c.b.resize(12);
  for (int i = 0; i < 24; ++i) c.a[i] = i;
  for (int i = 0; i < 12; ++i) c.b[i] = i + 1;
  const auto r = RunCase(Op::kMul, c).value();
  EXPECT_EQ(r.dims, (Dims{2, 2, 3, 3, 2, 2}));
  // out[i0,i1,i2,i3,i4,i5] = a[i0,0,i2,0,i4,i5] * b[i1,0,i3,0,0,i5]
  size_t e = 0;
  for (int i0 = 0; i0 < 2; ++i0)
    for (int i1 = 0; i1 < 2; ++i1)
      for (int i2 = 0; i2 < 3; ++i2)
        for (int i3 = 0; i3 < 3; ++i3)
          for (int i4 = 0; i4 < 2; ++i4)
            for (int i5 = 0; i5 < 2; ++i5, ++e) {
              const double a = c.a[((i0 * 3 + i2) * 2 + i4) * 2 + i5];
              const double b = c.b[(i1 * 3 + i3) * 2 + i5];
              ASSERT_EQ(r.values[e], std::min(255.0, a * b)) << e;
            }
}

TEST(QuantizedBinary, Validation) {
  QuantizedBinaryDescs d;
  d.a = {kU8, {2, 3}};
  d.b = {kU8, {3}};
  QuantizedBinaryAttrs attrs;
  auto bad = [&](QuantizedBinaryDescs x, QuantizedBinaryAttrs at = {}) {
    return PrepareQuantizedMul(at, x, Isa::kScalar);
  };
  EXPECT_TRUE(bad(d).ok());
  auto e = d;
  e.a.dtype = DataType::kInt32;
  QRT_EXPECT_ERROR(bad(e), "A dtype must be uint8, int8, uint16, int16 or float32");
  e = d;
  e.b = {kU8, {2}};
  QRT_EXPECT_ERROR(bad(e), "not broadcastable");
  e = d;
  e.a_zero_point = {kI8, {}};
  QRT_EXPECT_ERROR(bad(e), "A_zero_point dtype int8 differs");
  e = d;
  e.b_scale = {kF32, {2}};
  QRT_EXPECT_ERROR(bad(e), "per-tensor B_scale must have one element");
  e = d;
  e.a_scale = {DataType::kFloat16, {}};
  QRT_EXPECT_ERROR(bad(e), "A_scale must be float32");
  e = d;
  e.c_scale = {kF32, {2}};
  QRT_EXPECT_ERROR(bad(e), "C_scale must have one element");
  e = d;
  e.c_zero_point = {DataType::kInt32, {}};
  QRT_EXPECT_ERROR(bad(e), "C_zero_point dtype must be");
  QuantizedBinaryAttrs comb;
  comb.requantize = Rule::kCombined;
  e = d;
  e.a.dtype = kF32;
  QRT_EXPECT_ERROR(bad(e, comb), "'combined' needs 8-bit A, B and C");
  comb.output_dtype = kF32;
  QRT_EXPECT_ERROR(bad(d, comb), "'combined' needs 8-bit A, B and C");
  QuantizedBinaryAttrs ax;
  ax.a_axis = 1;
  e = d;
  e.a_scale = {kF32, {3}};
  e.a_zero_point = {kU8, {3}};
  EXPECT_TRUE(bad(e, ax).ok());
  ax.requantize = Rule::kCombined;
  QRT_EXPECT_ERROR(bad(e, ax), "'combined' needs per-tensor parameters");
  ax.requantize = Rule::kDivide;
  ax.a_axis = 2;
  QRT_EXPECT_ERROR(bad(e, ax), "out of range");
  ax.a_axis = -1;
  EXPECT_TRUE(bad(e, ax).ok());
  ax.a_axis = 0;
  QRT_EXPECT_ERROR(bad(e, ax), "must be 1-D of length dim(A_axis) = 2");
  e.a_zero_point = {kU8, {2}};
  QRT_EXPECT_ERROR(bad(e, ax), "must have the same shape");
  e = d;
  e.a.dtype = kF32;
  ax.a_axis = 1;
  e.a_scale = {kF32, {3}};
  QRT_EXPECT_ERROR(bad(e, ax), "A is float32");
  attrs.output_dtype = DataType::kInt32;
  QRT_EXPECT_ERROR(bad(d, attrs), "output_dtype must be");
  QRT_EXPECT_ERROR(ParseRequantize("round"), "unknown requantize rule");
  EXPECT_EQ(ParseRequantize("combined").value(), Rule::kCombined);
}

TEST(QuantizedBinary, EmptyOutput) {
  Case c;
  c.a_dims = {0, 3};
  c.a = {};
  c.b_dims = {3};
  c.b = {1, 2, 3};
  const auto r = RunCase(Op::kMul, c, kIsaAuto).value();
  EXPECT_EQ(r.dims, (Dims{0, 3}));
  EXPECT_TRUE(r.values.empty());
}

// ---- AVX2 vs reference, bit for bit ----------------------------------------------------------

struct Shape {
  const char* name;
  Dims a, b;
};

std::vector<Shape> Shapes() {
  std::vector<Shape> s;
  for (int64_t n = 0; n <= 257; ++n) s.push_back({"same", {n}, {n}});
  for (int64_t n : {1, 31, 32, 33, 100}) {
    s.push_back({"scalar B", {n}, {}});
    s.push_back({"scalar A", {1}, {n}});
    s.push_back({"both scalar", {1, 1}, {1}});
    s.push_back({"per-channel", {1, 3, n, 2}, {1, 3, 1, 1}});
    s.push_back({"per-channel A", {1, 3, 1, 1}, {1, 3, 2, n}});
    s.push_back({"rows", {4, n}, {1, n}});
    s.push_back({"outer", {n, 1}, {1, 5}});
  }
  s.push_back({"large", {100003}, {100003}});
  s.push_back({"large scalar", {100003}, {1}});
  return s;
}

TEST(QuantizedBinaryAvx2, MatchesReferenceBitExact) {
  QRT_REQUIRE_AVX2();
  const uint32_t seed = TestSeed();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, 9);
  const std::vector<Shape> shapes = Shapes();
  const float scales[] = {1.0f, 0.5f, 0.25f, 0.03f, 0.0039215689f, 3.0f, 0.0123f, 1e-3f, 17.0f};
  for (DataType ta : {kU8, kI8}) {
    for (DataType tb : {kU8, kI8}) {
      for (DataType tc : {kU8, kI8}) {
        for (Op op : {Op::kMul, Op::kAdd}) {
          for (Rule rule : {Rule::kReciprocal, Rule::kDivide, Rule::kCombined}) {
            for (const Shape& sh : shapes) {
              auto rnd = [&](DataType t) {
                std::uniform_int_distribution<int> v(t == kU8 ? 0 : -128, t == kU8 ? 255 : 127);
                const int k = pick(rng);
                if (k == 0) return double(t == kU8 ? 0 : -128);
                if (k == 1) return double(t == kU8 ? 255 : 127);
                return double(v(rng));
              };
              Case c;
              c.a_dt = ta;
              c.b_dt = tb;
              c.c_dt = tc;
              c.a_dims = sh.a;
              c.b_dims = sh.b;
              c.a.resize(ElementCount(sh.a));
              c.b.resize(ElementCount(sh.b));
              for (auto& v : c.a) v = rnd(ta);
              for (auto& v : c.b) v = rnd(tb);
              c.za = {rnd(ta)};
              c.zb = {rnd(tb)};
              c.zc = rnd(tc);
              c.sa = {scales[rng() % 9]};
              c.sb = {scales[rng() % 9]};
              c.sc = scales[rng() % 9] * (op == Op::kMul ? 0.5f : 1.0f);
              c.attrs.requantize = rule;
              auto r = RunCase(op, c, Isa::kScalar);
              QRT_ASSERT_OK(r.status());
              for (const Simd& simd : SimdKernels()) {
                auto v = RunCase(op, c, kIsaAuto, false, 1, &simd);
                QRT_ASSERT_OK(v.status());
                const int64_t d = FirstDiff(r->bytes.data(), v->bytes.data(), r->bytes.size(), false);
                ASSERT_EQ(d, -1) << simd.name << " seed " << seed << " " << DataTypeName(ta) << "x" << DataTypeName(tb)
                                 << "->" << DataTypeName(tc) << " op " << int(op) << " rule " << int(rule) << " shape "
                                 << sh.name << " " << DimsToString(sh.a) << "x" << DimsToString(sh.b) << " sa "
                                 << c.sa[0] << " sb " << c.sb[0] << " sc " << c.sc << " za " << c.za[0] << " zb "
                                 << c.zb[0] << " zc " << c.zc << " at " << d << " ref " << r->values[d] << " simd "
                                 << v->values[d];
                if (ta == tc && sh.a == r->dims) {  // in place over A
                  auto w = RunCase(op, c, kIsaAuto, true, 1, &simd);
                  QRT_ASSERT_OK(w.status());
                  ASSERT_EQ(FirstDiff(r->bytes.data(), w->bytes.data(), r->bytes.size(), false), -1)
                      << simd.name << " in place, seed " << seed << " shape " << sh.name;
                }
              }
            }
          }
        }
      }
    }
  }
}

// Outputs of 4 MiB and more take the non-temporal-store path (with an unaligned head): Mul
// and Add, unsigned and signed, a broadcast scalar B, and in place over A.
TEST(QuantizedBinaryAvx2, StreamingPathMatchesReference) {
  QRT_REQUIRE_AVX2();
  std::mt19937 rng(TestSeed());
  const int64_t n = (int64_t{1} << 22) + 77;
  for (Rule rule : {Rule::kReciprocal, Rule::kCombined}) {
    for (Op op : {Op::kMul, Op::kAdd}) {
      for (DataType t : {kU8, kI8}) {
        for (bool scalar_b : {false, true}) {
          Case c;
          c.a_dt = c.b_dt = c.c_dt = t;
          c.a_dims = {n};
          c.b_dims = scalar_b ? Dims{1} : Dims{n};
          c.a.resize(size_t(n));
          c.b.resize(size_t(ElementCount(c.b_dims)));
          const int lo = t == kU8 ? 0 : -128;
          for (auto& v : c.a) v = lo + int(rng() % 256);
          for (auto& v : c.b) v = lo + int(rng() % 256);
          c.sa = {0.02f};
          c.sb = {0.03f};
          c.sc = op == Op::kMul ? 0.01f : 0.05f;
          c.za = {double(lo + 128)};
          c.zb = {double(lo + 3)};
          c.zc = lo + 7;
          c.attrs.requantize = rule;
          const auto r = RunCase(op, c, Isa::kScalar).value();
          for (const Simd& simd : SimdKernels()) {
            for (bool in_place : {false, true}) {
              const auto v = RunCase(op, c, kIsaAuto, in_place, 1, &simd).value();
              ASSERT_EQ(FirstDiff(r.bytes.data(), v.bytes.data(), r.bytes.size(), false), -1)
                  << simd.name << " rule " << int(rule) << " op " << int(op) << " " << DataTypeName(t) << " scalar_b "
                  << scalar_b << " in_place " << in_place;
            }
          }
        }
      }
    }
  }
}

TEST(QuantizedBinaryAvx2, PerAxisMatchesReference) {
  QRT_REQUIRE_AVX2();
  std::mt19937 rng(TestSeed());
  for (Rule rule : {Rule::kReciprocal, Rule::kDivide}) {
    for (int64_t axis = 0; axis < 4; ++axis) {
      Case c;
      c.a_dims = {2, 3, 5, 37};
      c.b_dims = {3, 1, 1};
      c.a.resize(ElementCount(c.a_dims));
      c.b.resize(3);
      for (auto& v : c.a) v = rng() % 256;
      for (auto& v : c.b) v = rng() % 256;
      const int64_t na = c.a_dims[axis];
      c.sa_dims = {na};
      c.sa.resize(na);
      c.za.resize(na);
      for (int64_t i = 0; i < na; ++i) {
        c.sa[i] = 0.001f * (rng() % 500 + 1);
        c.za[i] = rng() % 256;
      }
      c.sb = {0.05f};
      c.zb = {9};
      c.sc = 0.02f;
      c.zc = 100;
      c.attrs.requantize = rule;
      c.attrs.a_axis = axis;
      const auto r = RunCase(Op::kMul, c, Isa::kScalar).value();
      for (const Simd& simd : SimdKernels()) {
        const auto v = RunCase(Op::kMul, c, kIsaAuto, false, 1, &simd).value();
        ASSERT_EQ(FirstDiff(r.bytes.data(), v.bytes.data(), r.bytes.size(), false), -1) << axis << simd.name;
      }
    }
  }
}

// Splitting a run across threads must not change one bit: one long run (streamed and
// not), many broadcast runs, and per-axis runs, with 2 and 3 threads.
TEST(QuantizedBinaryThreads, SplitRunsAreBitIdentical) {
  std::mt19937 rng(TestSeed());
  auto fill = [&](Case& c) {
    c.a.resize(size_t(ElementCount(c.a_dims)));
    c.b.resize(size_t(ElementCount(c.b_dims)));
    for (auto& v : c.a) v = rng() % 256;
    for (auto& v : c.b) v = rng() % 256;
    c.sa = {0.02f};
    c.sb = {0.03f};
    c.sc = 0.011f;
    c.za = {128};
    c.zb = {3};
    c.zc = 7;
  };
  std::vector<Case> cases(4);
  cases[0].a_dims = cases[0].b_dims = {300001};          // one run, not streamed
  cases[1].a_dims = cases[1].b_dims = {(1 << 22) + 77};  // one run, streamed output
  cases[2].a_dims = {1, 64, 70, 70};                     // 64 runs of 4900
  cases[2].b_dims = {1, 64, 1, 1};
  cases[3].a_dims = {3, 4, 9000};  // per-axis A scales: 12 runs
  cases[3].b_dims = {1};
  for (Case& c : cases) fill(c);
  cases[3].sa_dims = {4};
  cases[3].sa = {0.01f, 0.02f, 0.03f, 0.04f};
  cases[3].za = {0, 10, 128, 255};
  cases[3].attrs.a_axis = 1;
  for (size_t k = 0; k < cases.size(); ++k) {
    for (Isa isa : TiersThisCpuHas()) {
      for (Op op : {Op::kMul, Op::kAdd}) {
        const auto one = RunCase(op, cases[k], isa, false, 1).value();
        for (int threads : {2, 3}) {
          const auto many = RunCase(op, cases[k], isa, false, threads).value();
          ASSERT_EQ(FirstDiff(one.bytes.data(), many.bytes.data(), one.bytes.size(), false), -1)
              << "case " << k << " isa " << int(isa) << " op " << int(op) << " threads " << threads;
        }
      }
    }
  }
}

}  // namespace
}  // namespace qrt
