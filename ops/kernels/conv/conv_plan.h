// Every way qrt computes a convolution, and the one place that chooses among them. An op's
// prepare plans once, from the geometry, the kernels this ISA tier has and the quantization grids
// it knows (ops/conv.cc); the run switches on the stored algorithm. A compile option names an
// algorithm to force (PlanOptions::conv_algorithm: tests cover each path on purpose), and the
// plan's kernel note names the one taken (`qrt inspect --json`, "kernels").
// The thresholds between the paths are the table in conv_plan.cc; their measurements are in
// docs/design.md ("Convolution kernel choices").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ops/kernels/conv/conv_ref.h"
#include "runtime/cpu_features.h"

namespace qrt {

enum class ConvAlgorithm : uint8_t {
  kAuto,       // for forcing only: the planner chooses
  kReference,  // ref::ConvFloat / ref::ConvInteger, plain loops (the scalar tier, float64)
  // Float32, in ONNX Runtime's summation order (conv_float.h):
  kDirect,            // 1x1 kernel, unit strides, no padding: Y = W x X
  kDirectTransposed,  // kernel as large as the input: Y = W x X^T
  kPaddedRows,        // one output channel per group, 2-D: one-row GEMMs over padded planes
  kPaddedRowsFlat,    // the same, all narrow output rows in one call
  kPaddedRowsWindow,  // the same over a window of input rows that stays in L1
  kDepthwiseLanes,    // 3x3 depthwise, small planes, 16 channels in the vector lanes
  kDepthwiseRows,     // 3x3 depthwise, larger planes, a ring of rows
  kGatheredGroups,    // one output channel per group: each output's taps gathered
  kPlanes,            // a GEMM whose B rows point into padded planes
  kPatches,           // im2col slices and a GEMM
  // Exact integer arithmetic for qrt:ConvQuantizeDequantize (float path as its fallback):
  kPointwiseInt8,  // 1x1, 8-bit products, outputs near a rounding boundary recomputed
  kDepthwiseInt8,  // 3x3 depthwise from codes to codes in 16-bit products
  // ConvInteger and QLinearConv through oneDNN where exactness is proven:
  kOnednnInt8,  // u8 x s8 -> s32
  kOnednnF32,   // (x - zp) and (w - zp) as floats, every partial sum an exact integer
  // ConvInteger and QLinearConv in exact int16 x int16 -> int32 products (ops/kernels/igemm):
  kIgemm,  // im2col panels and the integer GEMM, AVX2 and above
  // ConvInteger and QLinearConv through qrt's float kernels on x - x_zp and w - w_zp, where every
  // partial sum is an exact integer (3x3 depthwise: the lanes and rows kernels):
  kExactF32,
};

// "padded-rows-window" etc.; ParseConvAlgorithm takes the same names (and "auto").
std::string_view ConvAlgorithmName(ConvAlgorithm a);
std::optional<ConvAlgorithm> ParseConvAlgorithm(std::string_view name);

// The float32 convolution's plan (ConvFloatOrdered): its algorithm and the floats of scratch
// the caller passes it.
struct ConvFloatPlan {
  ConvAlgorithm algorithm = ConvAlgorithm::kPatches;
  int64_t scratch_floats = 0;
  // Whether ConvFloatOrdered reads X as codes and writes Y as codes itself (the padded-rows
  // family); otherwise the caller converts.
  bool handles_codes() const;
};

// Which kernels this tier gives the float paths (conv_float.h's ConvFloatKernels decide).
struct ConvKernelsAvailable {
  bool depthwise_lanes = false, depthwise_rows = false;
  // The rows kernel is AVX2's, which the flat padded rows beat where they pay.
  bool rows_after_flat = false;
};

// The float32 plan for g: the planner's choice, or `forced` where it can compute g (nullopt
// where it cannot; kAuto, kReference and the float algorithms only).
std::optional<ConvFloatPlan> PlanConvFloat(const ConvGeometry& g, ConvKernelsAvailable kernels,
                                           ConvAlgorithm forced = ConvAlgorithm::kAuto);

// The thresholds the op's planner applies beside PlanConvFloat (the table in conv_plan.cc).
// Whether the int8 pointwise path is worth planning for this many input channels (or this
// patch length, C x kernel size), with the kernel of `tier` (PointwiseInt8Tier: AVX-512 VNNI's quads or AVX2's pairs).
bool PointwiseInt8Pays(const ConvGeometry& g, Isa tier);
// Whether the int8 depthwise path beats the float kernels on this plane, with the kernel of
// `tier` (AVX-512 VNNI's, else AVX2's).
bool DepthwiseInt8Pays(const ConvGeometry& g, Isa tier);
// Whether oneDNN's int8 convolution beats its exact f32 one for an integer convolution.
bool OnednnInt8Pays(const ConvGeometry& g);
// Whether AVX2's byte quads (IgemmConvQuads on split pairs) beat its int16 tiles for g.
bool IgemmQuadsPay(const ConvGeometry& g);
// Whether the integer GEMM beats oneDNN for an integer convolution of g.
bool IgemmConvPays(const ConvGeometry& g);

}  // namespace qrt
