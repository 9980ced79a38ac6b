// Float (f32) convolution as ONNX Runtime's MLAS computes it on x86-64, so that a QDQ graph's
// float convolutions round exactly as in the reference system (why: sgemm.h; the facts:
// docs/float-order.md). Per batch image and group, with N = output positions and
// K = C/group x kernel size in (c, kd, kh, kw) order:
//   - 1x1 kernel, unit strides, no padding: Y_g = W_g x X_g, X's channel planes as a K x N
//     matrix;
//   - kernel as large as the input, unit strides and dilations, no padding (N == 1):
//     Y_g = W_g x X_g^T, X's group block as one row of K;
//   - otherwise the K x N patch matrix (zeros where the kernel is over padding), then
//     Y_g = W_g x patches.
// The products are an ordered GEMM (sgemm.h) with the n of the whole image; the bias is
// added once the sum is complete, y = y + b[m] (inside the GEMM's last store).
// Implementation, same products in the same order: a 2-D convolution copies X once into
// zero-padded planes (split by column phase when strided) and gives the GEMM the patch rows as
// pointers into them (SgemmArgs::b_rows, one segment per output row), so no patch matrix is
// built; with one output channel per group (depthwise) it runs SgemmOneRow over rows of the
// planes (rows under 16 wide: all rows in one call through the flat index). 3-D convolutions,
// and 2-D ones whose padding is too large to copy, build patches (depthwise: per-output gathers). The
// path is the plan's (conv_plan.h: chosen once, at plan time); the kernels are the caller's choice
// (reference or SIMD, bit-identical), so this driver serves both.
#pragma once

#include <cstdint>

#include "ops/kernels/common/deinterleave.h"
#include "ops/kernels/conv/conv_plan.h"
#include "ops/kernels/conv/conv_ref.h"
#include "ops/kernels/conv/output_epilogue.h"
#include "ops/kernels/dwconv/depthwise_lanes.h"
#include "ops/kernels/dwconv/depthwise_rows.h"
#include "ops/kernels/gemm/sgemm.h"
#include "ops/kernels/quantize/dequantize_rows.h"
#include "ops/kernels/quantize/quantize_linear.h"

namespace qrt {

struct ConvFloatKernels {
  SgemmFn gemm = nullptr;
  SgemmOneRowFn one_row = nullptr;
  SplitPairsFn split_pairs = nullptr;          // stride-2 input rows into column phases
  DepthwiseLanesFn depthwise_lanes = nullptr;  // small 3x3 depthwise planes, 16 channels at a time
  DepthwiseRowsFn depthwise_rows = nullptr;    // larger 3x3 depthwise planes, a plane at a time
};

ConvFloatKernels SelectConvFloatKernels(Isa isa);

// Which of the planner's kernel-dependent paths these kernels can run.
ConvKernelsAvailable AvailableIn(const ConvFloatKernels& kernels);

// X as 8-bit codes q (uint8 or int8, per `dequantize`): x = (float(q) - float(zero_point)) *
// scale, as DequantizeLinear computes it, so the same floats as X dequantized first. Read as the
// padded rows are filled, a row at a time (or a block of small planes at a time): a quarter of
// the bytes of X as floats.
struct ConvInputCodes {
  const void* codes = nullptr;
  DequantizeRowKernels dequantize;
  float scale = 1.f;
  int32_t zero_point = 0;
  bool is_signed = false;  // int8 codes (else uint8)
};

// Y written as QuantizeLinear's codes of the outputs, quantized by the epilogue from the floats
// the convolution computed into a buffer of its own (a few rows, or a block of small planes).
struct ConvOutputCodes {
  void* codes = nullptr;
  QuantizeF32Fn quantize = nullptr;
  float scale = 1.f;
  int32_t zero_point = 0;
  bool is_signed = false;  // int8 codes (else uint8)
  // The epilogue's step writing the codes from element `offset` of Y on, their floats at `floats`.
  OutputEpilogue::Codes At(int64_t offset, const float* floats) const {
    return {static_cast<uint8_t*>(codes) + offset, floats, quantize, scale, zero_point};
  }
};

// x: N x C x spatial, w: M x C/group x kernel, b: M or nullptr, y: N x M x out spatial, computed
// by plan.algorithm (a float32 one: PlanConvFloat(g, AvailableIn(kernels)) or a forced one);
// scratch: plan.scratch_floats floats.
// threads: intra-op threads (independent outputs are split; results do not depend on it).
// epilogue: optional, applied to every output once it is final, while it is still in cache.
// x_codes: X as codes instead of x (null), and y_codes: Y as codes instead of y (null, and no
// epilogue), where plan.handles_codes().
void ConvFloatOrdered(const ConvFloatPlan& plan, const ConvGeometry& g, const float* x, const float* w, const float* b,
                      float* y, const ConvFloatKernels& kernels, float* scratch, int threads = 1,
                      const OutputEpilogue* epilogue = nullptr, const ConvInputCodes* x_codes = nullptr,
                      const ConvOutputCodes* y_codes = nullptr);

// The same with the planner's choice for these kernels, for tests and benchmarks (ops plan once).
void ConvFloatOrdered(const ConvGeometry& g, const float* x, const float* w, const float* b, float* y,
                      const ConvFloatKernels& kernels, float* scratch, int threads = 1,
                      const OutputEpilogue* epilogue = nullptr, const ConvInputCodes* x_codes = nullptr,
                      const ConvOutputCodes* y_codes = nullptr);
// The planner's choice's handles_codes() and scratch_floats, for the same.
bool ConvFloatHandlesCodes(const ConvGeometry& g);
int64_t ConvFloatScratchFloats(const ConvGeometry& g);

}  // namespace qrt
