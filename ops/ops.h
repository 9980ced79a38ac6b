// Every OpDef qrt defines. Each is defined in the op family's own file and listed
// once in ops/registry.cc.
#pragma once

#include "runtime/op_def.h"

namespace qrt {

// arg_max_min.cc
extern const OpDef kArgMaxOp, kArgMinOp;
// binary.cc
extern const OpDef kAddOp, kSubOp, kMulOp, kDivOp, kPReluOp;
// cast.cc
extern const OpDef kCastOp, kCastLikeOp;
// comparison.cc
extern const OpDef kEqualOp, kGreaterOp, kGreaterOrEqualOp, kLessOp, kLessOrEqualOp;
// concat_split.cc
extern const OpDef kConcatOp, kSplitOp;
// constant_of_shape.cc
extern const OpDef kConstantOfShapeOp;
// conv.cc
extern const OpDef kConvOp, kQrtConvQuantizeDequantizeOp, kConvIntegerOp, kQLinearConvOp, kQrtQLinearConvOp;
// cum_sum.cc
extern const OpDef kCumSumOp;
// depth_to_space.cc
extern const OpDef kDepthToSpaceOp, kSpaceToDepthOp;
// dynamic_quantize_linear.cc
extern const OpDef kDynamicQuantizeLinearOp;
// expand.cc
extern const OpDef kExpandOp;
// eye_like.cc
extern const OpDef kEyeLikeOp;
// fake_quantize.cc
extern const OpDef kFakeQuantizeOp;
// gather.cc
extern const OpDef kGatherOp;
// gather_elements.cc
extern const OpDef kGatherElementsOp;
// gather_nd.cc
extern const OpDef kGatherNdOp;
// instance_normalization.cc
extern const OpDef kInstanceNormalizationOp;
// layer_normalization.cc
extern const OpDef kLayerNormalizationOp;
// logical.cc
extern const OpDef kAndOp, kOrOp, kXorOp, kBitShiftOp;
// lookup_table.cc
extern const OpDef kLookupTableOp;
// lp_normalization.cc
extern const OpDef kLpNormalizationOp;
// lrn.cc
extern const OpDef kLrnOp;
// matmul.cc
extern const OpDef kMatMulOp, kGemmOp, kMatMulIntegerOp, kQLinearMatMulOp;
// mean_variance_normalization.cc
extern const OpDef kMeanVarianceNormalizationOp;
// mod.cc
extern const OpDef kModOp;
// normalization.cc
extern const OpDef kBatchNormalizationOp;
// one_hot.cc
extern const OpDef kOneHotOp;
// pad.cc
extern const OpDef kPadOp;
// pool.cc
extern const OpDef kMaxPoolOp, kAveragePoolOp, kGlobalMaxPoolOp, kGlobalAveragePoolOp, kLpPoolOp, kGlobalLpPoolOp;
// pow.cc
extern const OpDef kPowOp;
// quantize_linear.cc
extern const OpDef kQuantizeDequantizeOp, kQuantizeLinearOp, kDequantizeLinearOp;
// quantize_v2.cc
extern const OpDef kQuantizeV2Op;
// quantized_binary.cc
extern const OpDef kQuantizedMulOp, kQuantizedAddOp, kQLinearMulOp, kQLinearAddOp;
// range.cc
extern const OpDef kRangeOp;
// reduce.cc
extern const OpDef kReduceSumOp, kReduceMeanOp, kReduceMaxOp, kReduceMinOp, kReduceProdOp, kReduceL1Op, kReduceL2Op,
    kReduceSumSquareOp, kReduceLogSumOp, kReduceLogSumExpOp;
// resize.cc
extern const OpDef kResizeOp;
// scan.cc
extern const OpDef kScanOp;
// scatter.cc
extern const OpDef kScatterElementsOp, kScatterOp, kScatterNdOp;
// shape_ops.cc
extern const OpDef kIdentityOp, kReshapeOp, kFlattenOp, kSqueezeOp, kUnsqueezeOp, kShapeOp, kSizeOp, kDropoutOp,
    kConstantOp;
// slice.cc
extern const OpDef kSliceOp;
// softmax.cc
extern const OpDef kSoftmaxOp, kLogSoftmaxOp, kHardmaxOp;
// tile.cc
extern const OpDef kTileOp;
// top_k.cc
extern const OpDef kTopKOp;
// transpose.cc
extern const OpDef kTransposeOp;
// trilu.cc
extern const OpDef kTriluOp;
// unary.cc
extern const OpDef kReluOp, kSigmoidOp, kTanhOp, kExpOp, kNegOp, kAbsOp, kSqrtOp, kLeakyReluOp, kHardSigmoidOp, kClipOp,
    kLogOp, kReciprocalOp, kFloorOp, kCeilOp, kRoundOp, kSignOp, kErfOp, kSinOp, kCosOp, kTanOp, kAsinOp, kAcosOp,
    kAtanOp, kSinhOp, kCoshOp, kAsinhOp, kAcoshOp, kAtanhOp, kSoftplusOp, kSoftsignOp, kEluOp, kSeluOp, kCeluOp,
    kThresholdedReluOp, kHardSwishOp, kShrinkOp, kMishOp, kGeluOp, kIsNaNOp, kIsInfOp, kNotOp;
// uniform_dequantize.cc
extern const OpDef kUniformDequantizeOp;
// variadic.cc
extern const OpDef kMaxOp, kMinOp, kSumOp, kMeanOp;
// where.cc
extern const OpDef kWhereOp;

}  // namespace qrt
