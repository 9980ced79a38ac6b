// Every OpDef qrt defines. Each is defined in the op family's own file and listed
// once in ops/registry.cc.
#pragma once

#include "runtime/op_def.h"

namespace qrt {

// binary.cc
extern const OpDef kAddOp, kSubOp, kMulOp, kDivOp, kPReluOp;
// cast.cc
extern const OpDef kCastOp, kCastLikeOp;
// concat_split.cc
extern const OpDef kConcatOp, kSplitOp;
// conv.cc
extern const OpDef kConvOp, kQrtConvQuantizeDequantizeOp, kConvIntegerOp, kQLinearConvOp, kQrtQLinearConvOp;
// dynamic_quantize_linear.cc
extern const OpDef kDynamicQuantizeLinearOp;
// fake_quantize.cc
extern const OpDef kFakeQuantizeOp;
// gather.cc
extern const OpDef kGatherOp;
// lookup_table.cc
extern const OpDef kLookupTableOp;
// matmul.cc
extern const OpDef kMatMulOp, kGemmOp, kMatMulIntegerOp, kQLinearMatMulOp;
// normalization.cc
extern const OpDef kBatchNormalizationOp;
// pad.cc
extern const OpDef kPadOp;
// pool.cc
extern const OpDef kMaxPoolOp, kAveragePoolOp, kGlobalMaxPoolOp, kGlobalAveragePoolOp, kLpPoolOp, kGlobalLpPoolOp;
// quantize_linear.cc
extern const OpDef kQuantizeDequantizeOp, kQuantizeLinearOp, kDequantizeLinearOp;
// quantize_v2.cc
extern const OpDef kQuantizeV2Op;
// quantized_binary.cc
extern const OpDef kQuantizedMulOp, kQuantizedAddOp, kQLinearMulOp, kQLinearAddOp;
// reduce_mean.cc
extern const OpDef kReduceMeanOp;
// resize.cc
extern const OpDef kResizeOp;
// scan.cc
extern const OpDef kScanOp;
// shape_ops.cc
extern const OpDef kIdentityOp, kReshapeOp, kFlattenOp, kSqueezeOp, kUnsqueezeOp, kShapeOp, kConstantOp;
// slice.cc
extern const OpDef kSliceOp;
// softmax.cc
extern const OpDef kSoftmaxOp;
// tile.cc
extern const OpDef kTileOp;
// transpose.cc
extern const OpDef kTransposeOp;
// unary.cc
extern const OpDef kReluOp, kSigmoidOp, kTanhOp, kExpOp, kNegOp, kAbsOp, kSqrtOp, kLeakyReluOp, kHardSigmoidOp, kClipOp;
// uniform_dequantize.cc
extern const OpDef kUniformDequantizeOp;

}  // namespace qrt
