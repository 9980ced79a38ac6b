// Every OpDef qrt defines. Each is defined in the op family's own file and listed
// once in ops/registry.cc.
#pragma once

#include "runtime/op_def.h"

namespace qrt {

// binary.cc
extern const OpDef kAddOp, kSubOp, kMulOp, kDivOp, kPReluOp;
// unary.cc
extern const OpDef kReluOp, kSigmoidOp, kTanhOp, kExpOp, kNegOp, kAbsOp, kSqrtOp, kLeakyReluOp,
    kHardSigmoidOp, kClipOp;
// shape_ops.cc
extern const OpDef kIdentityOp, kReshapeOp, kFlattenOp, kSqueezeOp, kUnsqueezeOp, kShapeOp, kConstantOp;
// cast.cc
extern const OpDef kCastOp, kCastLikeOp;
// quantize_linear.cc
extern const OpDef kQuantizeLinearOp, kDequantizeLinearOp, kQuantizeDequantizeOp;
// lookup_table.cc
extern const OpDef kLookupTableOp;
// quantization_ops.cc
extern const OpDef kFakeQuantizeOp, kQuantizeV2Op, kUniformDequantizeOp, kQuantizedMulOp, kQuantizedAddOp,
    kQLinearMulOp, kQLinearAddOp;
// conv.cc, matmul.cc (Conv/MatMul family; oneDNN wrappers in ops/onednn/)
extern const OpDef kConvOp, kQrtConvQuantizeDequantizeOp, kConvIntegerOp, kQLinearConvOp, kQrtQLinearConvOp, kMatMulOp, kGemmOp, kMatMulIntegerOp, kQLinearMatMulOp;
// concat_split.cc, slice_pad_tile.cc, transpose_gather.cc, resize.cc, softmax_reduce.cc,
// pool.cc, normalization.cc, dynamic_quantize_linear.cc
extern const OpDef kConcatOp, kSplitOp, kSliceOp, kPadOp, kTileOp, kTransposeOp, kGatherOp, kResizeOp,
    kSoftmaxOp, kReduceMeanOp, kMaxPoolOp, kAveragePoolOp, kGlobalMaxPoolOp, kGlobalAveragePoolOp, kLpPoolOp, kGlobalLpPoolOp,
    kBatchNormalizationOp, kDynamicQuantizeLinearOp;
// scan.cc
extern const OpDef kScanOp;

}  // namespace qrt
