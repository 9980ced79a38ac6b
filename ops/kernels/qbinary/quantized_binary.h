// QuantizedMul and QuantizedAdd (Simd SynetQuantizedMul, generalized; the Add is the same
// op with `+`, i.e. a fused DequantizeLinear -> Add -> QuantizeLinear). Semantics: docs
// op-semantics.md, sections 4 and 5.
//
// Inputs: A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point.
// A and B are uint8, int8, uint16, int16 (reference kernels only) or float32 and broadcast numpy-style (any rank);
// output C has the broadcast shape. Scales are float32, zero points have their operand's dtype (C_zero_point's dtype
// gives the output dtype). A float32 operand ignores its scale and zero point; a float32 output ignores C_scale and
// C_zero_point. Absent optional inputs (dtype kUndefined): a scale counts as 1.0 and a zero point as 0. Per-tensor
// parameters are one-element tensors; with A_axis/B_axis set, that operand's scale (and zero point, if present) is 1-D
// of length dim(axis) (reciprocal/divide rules).
//
// Per element, with _a = float(a - za) * sa (a float operand: _a = a), likewise _b, and
// v = _a * _b (Mul) or _a + _b (Add), one f32 op per step:
//   float32 output:  C = v
//   reciprocal (Simd, default): q = nearbyint(v * float(1.0f / sc)) + zc
//   divide (ONNX QuantizeLinear): q = rint(v / sc) + zc, with _a = (float(a) - float(za)) * sa
//       (equal to Simd's _a for 8-bit inputs); bit-identical to DequantizeLinear, Mul/Add,
//       QuantizeLinear run separately.
//   combined Mul (ORT QLinearMul, x86): q = rint(float((a - za) * (b - zb)) * ratio + float(zc)),
//       ratio = float(float(sa * sb) / sc); the int32 product is exact and the zero point is
//       added in f32 *before* rounding, as MLAS does.
//   combined Add (ORT QLinearAdd, MLAS AVX2 kernel chosen on every AVX2+FMA x86 CPU):
//       rac = float(sa / sc), rbc = float(sb / sc),
//       k = float(zc) - (rac * float(za) + rbc * float(zb))          (separate f32 ops)
//       q = rint(fma(float(a), rac, fma(float(b), rbc, k)))             (fused, one rounding each)
//       This is MLAS's general (both operands full) AVX2 path. qrt applies it to every element,
//       including broadcast operands; MLAS instead folds a broadcast-scalar operand into k with a
//       separate multiply and add, ORT's SSE2-only x86 path does not fuse, and a compiler that
//       contracts ORT's k expression changes k: in those cases ORT can differ by one step.
//   Rounding is ties-to-even (current MXCSR mode). C = clamp(q, Tmin, Tmax) with qrt's
//   definition where the references are undefined: +-overflow and +-inf saturate to the
//   nearer limit and NaN gives Tmin (what Simd's/ORT's x86 SIMD paths produce for NaN).
//   `combined` needs 8-bit A, B and C and per-tensor parameters.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ops/kernels/common/broadcast.h"
#include "runtime/cpu_features.h"
#include "runtime/dtype.h"
#include "runtime/status.h"
#include "runtime/tensor.h"

namespace qrt {

enum class QuantizedBinaryOp : uint8_t { kMul, kAdd };
enum class Requantize : uint8_t { kReciprocal, kDivide, kCombined };

// Parses "reciprocal", "divide" or "combined".
StatusOr<Requantize> ParseRequantize(std::string_view name);
// And back: "reciprocal", "divide" or "combined".
std::string_view RequantizeName(Requantize rule);

struct QuantizedBinaryAttrs {
  // uint8, int8 or float32; kUndefined: C_zero_point's dtype if present, else uint8.
  DataType output_dtype = DataType::kUndefined;
  Requantize requantize = Requantize::kReciprocal;
  std::optional<int64_t> a_axis;  // per-axis A_scale/A_zero_point; nullopt = per-tensor
  std::optional<int64_t> b_axis;  // likewise for B; negative values count from the end
};

struct QuantizedBinaryDescs {
  TensorDesc a, a_scale, a_zero_point;
  TensorDesc b, b_scale, b_zero_point;
  TensorDesc c_scale, c_zero_point;
};

struct QuantizedBinaryData {
  const void* a = nullptr;
  const float* a_scale = nullptr;      // may be null if absent
  const void* a_zero_point = nullptr;  // may be null if absent
  const void* b = nullptr;
  const float* b_scale = nullptr;
  const void* b_zero_point = nullptr;
  const float* c_scale = nullptr;
  const void* c_zero_point = nullptr;
  void* c = nullptr;
};

// Scalar parameters of one run, derived from the data by RunQuantizedBinary.
struct QuantizedBinaryParams {
  float a_scale, b_scale, c_scale;
  int32_t a_zero, b_zero, c_zero;
  float c_norm;        // reciprocal: float(1.0f / c_scale)
  float ratio;         // combined Mul: float(float(a_scale * b_scale) / c_scale)
  float ratio_a;       // combined Add: float(a_scale / c_scale)
  float ratio_b;       // combined Add: float(b_scale / c_scale)
  float bias;          // combined Add: k
  bool stream_output;  // performance hint: the output is large, kernels may bypass the cache
  bool bounded;        // proven: every pre-rounding value is finite with |y| < 2^30 (8-bit operands)
};

// One contiguous run of n outputs; a/b advance by a_inc/b_inc (0 or 1) elements per output.
using QuantizedBinaryFn = void (*)(int64_t n, const void* a, int64_t a_inc, const void* b, int64_t b_inc, void* c,
                                   const QuantizedBinaryParams& p);

namespace ref {
// Reference run kernel for the combination; nullptr if it is not supported.
QuantizedBinaryFn QuantizedBinaryKernel(QuantizedBinaryOp op, Requantize rule, DataType a, DataType b, DataType c);
}  // namespace ref
namespace avx2 {
// AVX2 run kernel (8-bit A, B and C), bit-identical to the reference; else nullptr.
QuantizedBinaryFn QuantizedBinaryKernel(QuantizedBinaryOp op, Requantize rule, DataType a, DataType b, DataType c);
}  // namespace avx2
namespace avx512 {
// AVX-512 (F, BW, VBMI) run kernel (8-bit A, B and C), bit-identical to the reference; else nullptr.
QuantizedBinaryFn QuantizedBinaryKernel(QuantizedBinaryOp op, Requantize rule, DataType a, DataType b, DataType c);
}  // namespace avx512

// The kernel for `isa` (the reference when no SIMD kernel exists or isa is kScalar). Isa::kAvx2
// picks the AVX-512 kernel where the CPU has AVX-512 F, BW and VBMI (same results, faster).
QuantizedBinaryFn SelectQuantizedBinaryKernel(QuantizedBinaryOp op, Requantize rule, DataType a, DataType b, DataType c,
                                              Isa isa);

struct QuantizedBinaryPlan {
  QuantizedBinaryOp op = QuantizedBinaryOp::kMul;
  Requantize rule = Requantize::kReciprocal;
  DataType a_dtype = DataType::kUndefined, b_dtype = DataType::kUndefined, c_dtype = DataType::kUndefined;
  Dims out_dims;
  bool a_per_axis = false, b_per_axis = false;
  bool a_has_zero = false, b_has_zero = false, c_has_zero = false;
  Dims a_scale_dims, b_scale_dims;
  StridedLoop loop;  // operands: a, b, a params, b params, c
  QuantizedBinaryFn kernel = nullptr;
  int threads = 1;  // large outputs are split across this many threads
};

// Validates dtypes, shapes and attrs, computes the broadcast output shape and loop, and
// picks the kernel. Errors: unsupported dtype combinations, non-broadcastable shapes,
// parameter shapes, `combined` with float32 or per-axis, output_dtype vs C_zero_point.
StatusOr<QuantizedBinaryPlan> PrepareQuantizedMul(const QuantizedBinaryAttrs& attrs, const QuantizedBinaryDescs& in,
                                                  Isa isa);
StatusOr<QuantizedBinaryPlan> PrepareQuantizedAdd(const QuantizedBinaryAttrs& attrs, const QuantizedBinaryDescs& in,
                                                  Isa isa);

// Computes C from the data. Scales are used as given (no reference rejects any value);
// never fails for a valid plan. C may alias A or B when it has their shape and dtype.
Status RunQuantizedBinary(const QuantizedBinaryPlan& plan, const QuantizedBinaryData& data);

}  // namespace qrt
