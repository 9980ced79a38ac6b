// FakeQuantize (OpenVINO FakeQuantize-1) as a pure kernel. Semantics:
// docs op-semantics.md, section 1. Per element, in f32 (L = float(levels - 1)):
//   x <= min(in_low, in_high)  -> out_low
//   x >  max(in_low, in_high)  -> out_high
//   otherwise, one f32 op per step, ties to even:
//     ((nearbyint((x - in_low) / (in_high - in_low) * L) / L) * (out_high - out_low)) + out_low
// A NaN x gives NaN. float16 and bfloat16 tensors (X and all four ranges share X's dtype)
// are converted to f32 per element, computed exactly as above, and rounded once
// (to nearest even) to the storage type.
//
// Shapes (section 1.2), output = X's shape and dtype:
//   none:  every range has exactly X's shape (a scalar range with a non-scalar X is an error).
//   numpy: every range broadcasts with X (numpy, right-aligned). Extra leading dims of size
//          1 are accepted; a range that would enlarge the result beyond X's elements (e.g.
//          [2,3,4] against X [3,4]) is rejected, since the output has X's shape.
//   pdpd:  range placed at `axis` (-1: rank(X) - rank(range)); rank(range) <= rank(X),
//          axis >= -1, rank(range) + axis <= rank(X), each range dim 1 or equal to X's.
#pragma once

#include <cstdint>
#include <string_view>

#include "ops/kernels/common/broadcast.h"
#include "runtime/cpu_features.h"
#include "runtime/dtype.h"
#include "runtime/status.h"
#include "runtime/tensor.h"

namespace qrt {

enum class AutoBroadcast : uint8_t { kNumpy, kNone, kPdpd };

// Parses "numpy", "none" or "pdpd" (OpenVINO spelling, case-insensitive).
StatusOr<AutoBroadcast> ParseAutoBroadcast(std::string_view name);

struct FakeQuantizeAttrs {
  int64_t levels = 0;  // required; >= 2
  AutoBroadcast auto_broadcast = AutoBroadcast::kNumpy;
  int64_t axis = -1;  // pdpd only
};

// One contiguous run for a kernel: `n` elements of x and y; range k advances by one
// element per x element when bit k of range_inc_mask is set (0 in_low, 1 in_high,
// 2 out_low, 3 out_high), else it stays at its first element.
struct FakeQuantizeRunArgs {
  int64_t n;
  const void* x;
  const void* in_low;
  const void* in_high;
  const void* out_low;
  const void* out_high;
  void* y;
  uint32_t range_inc_mask;
  float levels_minus_1;  // L
};

using FakeQuantizeFn = void (*)(const FakeQuantizeRunArgs& args);

namespace ref {
void FakeQuantizeF32(const FakeQuantizeRunArgs& args);   // float32 storage
void FakeQuantizeF16(const FakeQuantizeRunArgs& args);   // float16 storage
void FakeQuantizeBF16(const FakeQuantizeRunArgs& args);  // bfloat16 storage
}  // namespace ref
namespace avx2 {
void FakeQuantizeF32(const FakeQuantizeRunArgs& args);  // bit-identical to ref::FakeQuantizeF32
}  // namespace avx2

// The run kernel for X's dtype (f32, f16 or bf16) and ISA; nullptr for other dtypes.
// Isa::kScalar always gives the reference kernel.
FakeQuantizeFn SelectFakeQuantizeKernel(DataType dtype, Isa isa);

struct FakeQuantizePlan {
  DataType dtype = DataType::kUndefined;
  Dims out_dims;
  float levels_minus_1 = 0;
  StridedLoop loop;  // operands: x, in_low, in_high, out_low, out_high, y
  FakeQuantizeFn kernel = nullptr;
};

// Validates attrs, dtypes and shapes (everything that needs no data), computes the
// output dims and the broadcast loop, and picks the kernel for `isa`.
StatusOr<FakeQuantizePlan> PrepareFakeQuantize(const FakeQuantizeAttrs& attrs, const TensorDesc& x,
                                               const TensorDesc& in_low, const TensorDesc& in_high,
                                               const TensorDesc& out_low, const TensorDesc& out_high, Isa isa);

// Computes y (plan.out_dims, plan.dtype) from buffers laid out as described to Prepare.
// y may alias x. Never fails for a valid plan (FakeQuantize has no data-dependent checks).
Status RunFakeQuantize(const FakeQuantizePlan& plan, const void* x, const void* in_low, const void* in_high,
                       const void* out_low, const void* out_high, void* y);

}  // namespace qrt
