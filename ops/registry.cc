// Every op qrt runs, listed once, grouped by the file (one op or one ONNX op family each)
// that defines it: loaders look ops up here by (domain, op type).
#include "ops/registry.h"

#include "ops/ops.h"

namespace qrt {

const std::vector<const OpDef*>& AllOps() {
  static const std::vector<const OpDef*> kOps = {
      // ops/arg_max_min.cc
      &kArgMaxOp,
      &kArgMinOp,
      // ops/attention.cc
      &kAttentionOp,
      &kQAttentionOp,
      // ops/binary.cc
      &kAddOp,
      &kSubOp,
      &kMulOp,
      &kDivOp,
      &kPReluOp,
      // ops/cast.cc
      &kCastOp,
      &kCastLikeOp,
      // ops/comparison.cc
      &kEqualOp,
      &kGreaterOp,
      &kGreaterOrEqualOp,
      &kLessOp,
      &kLessOrEqualOp,
      // ops/compress.cc
      &kCompressOp,
      // ops/concat_split.cc
      &kConcatOp,
      &kSplitOp,
      // ops/constant_of_shape.cc
      &kConstantOfShapeOp,
      // ops/control_flow.cc
      &kIfOp,
      &kLoopOp,
      // ops/conv.cc
      &kConvOp,
      &kQrtConvQuantizeDequantizeOp,
      &kConvIntegerOp,
      &kQrtConvIntegerToFloatOp,
      &kQLinearConvOp,
      &kQrtQLinearConvOp,
      // ops/conv_transpose.cc
      &kConvTransposeOp,
      &kConvTransposeQuantizeDequantizeOp,
      // ops/cum_sum.cc
      &kCumSumOp,
      // ops/depth_to_space.cc
      &kDepthToSpaceOp,
      &kSpaceToDepthOp,
      // ops/det.cc
      &kDetOp,
      // ops/dft.cc
      &kDftOp,
      &kStftOp,
      // ops/dropout.cc
      &kDropoutOp,
      // ops/dynamic_quantize_linear.cc
      &kDynamicQuantizeLinearOp,
      // ops/dynamic_quantize_lstm.cc
      &kDynamicQuantizeLstmOp,
      // ops/einsum.cc
      &kEinsumOp,
      // ops/embed_layer_normalization.cc
      &kEmbedLayerNormalizationOp,
      &kQEmbedLayerNormalizationOp,
      // ops/expand.cc
      &kExpandOp,
      // ops/eye_like.cc
      &kEyeLikeOp,
      // ops/fake_quantize.cc
      &kFakeQuantizeOp,
      // ops/gather.cc
      &kGatherOp,
      // ops/gather_elements.cc
      &kGatherElementsOp,
      // ops/gather_nd.cc
      &kGatherNdOp,
      // ops/gelu_contrib.cc
      &kMsGeluOp,
      &kMsBiasGeluOp,
      &kMsFastGeluOp,
      &kMsQuickGeluOp,
      // ops/grid_sample.cc
      &kGridSampleOp,
      // ops/instance_normalization.cc
      &kInstanceNormalizationOp,
      // ops/layer_normalization.cc
      &kLayerNormalizationOp,
      &kLayerNormQuantizeDequantizeOp,
      &kQrtLayerNormQuantizedOp,
      // ops/logical.cc
      &kAndOp,
      &kOrOp,
      &kXorOp,
      &kBitShiftOp,
      // ops/lookup_table.cc
      &kLookupTableOp,
      // ops/loss.cc
      &kNegativeLogLikelihoodLossOp,
      &kSoftmaxCrossEntropyLossOp,
      // ops/lp_normalization.cc
      &kLpNormalizationOp,
      // ops/lrn.cc
      &kLrnOp,
      // ops/matmul.cc
      &kMatMulOp,
      &kGemmOp,
      &kFusedMatMulOp,
      &kMatMulIntegerOp,
      &kQLinearMatMulOp,
      &kQrtMatMulIntegerScaledOp,
      // ops/matmul_int4.cc
      &kQrtMatMulInt4Op,
      // ops/matmul_integer_to_float.cc
      &kMatMulIntegerToFloatOp,
      &kDynamicQuantizeMatMulOp,
      // ops/matmul_nbits.cc
      &kMatMulNBitsOp,
      // ops/max_unpool.cc
      &kMaxUnpoolOp,
      // ops/mean_variance_normalization.cc
      &kMeanVarianceNormalizationOp,
      // ops/mel_weight_matrix.cc
      &kMelWeightMatrixOp,
      // ops/mod.cc
      &kModOp,
      // ops/multi_head_attention.cc
      &kMultiHeadAttentionOp,
      // ops/non_max_suppression.cc
      &kNonMaxSuppressionOp,
      // ops/non_zero.cc
      &kNonZeroOp,
      // ops/normalization.cc
      &kBatchNormalizationOp,
      // ops/one_hot.cc
      &kOneHotOp,
      // ops/optimizers.cc
      &kAdagradOp,
      &kMomentumOp,
      &kAdamOp,
      // ops/optional.cc
      &kOptionalOp,
      &kOptionalHasElementOp,
      &kOptionalGetElementOp,
      // ops/pad.cc
      &kPadOp,
      // ops/pool.cc
      &kMaxPoolOp,
      &kAveragePoolOp,
      &kGlobalMaxPoolOp,
      &kGlobalAveragePoolOp,
      &kLpPoolOp,
      &kGlobalLpPoolOp,
      // ops/pow.cc
      &kPowOp,
      // ops/qgemm.cc
      &kQGemmOp,
      // ops/qlinear_contrib.cc
      &kQLinearSigmoidOp,
      &kQLinearLeakyReluOp,
      &kQLinearConcatOp,
      &kQLinearWhereOp,
      &kQLinearReduceMeanOp,
      // ops/qlinear_conv_channels_last.cc
      &kMsQLinearConvOp,
      // ops/qlinear_pool.cc
      &kQLinearAveragePoolOp,
      &kQLinearGlobalAveragePoolOp,
      // ops/qlinear_softmax.cc
      &kQLinearSoftmaxOp,
      // ops/quantize_linear.cc
      &kQuantizeDequantizeOp,
      &kQuantizeLinearOp,
      &kDequantizeLinearOp,
      // ops/quantize_v2.cc
      &kQuantizeV2Op,
      // ops/quantized_binary.cc
      &kQuantizedMulOp,
      &kQuantizedAddOp,
      &kQLinearMulOp,
      &kQLinearAddOp,
      // ops/random.cc
      &kRandomUniformOp,
      &kRandomNormalOp,
      &kRandomUniformLikeOp,
      &kRandomNormalLikeOp,
      &kBernoulliOp,
      &kMultinomialOp,
      // ops/range.cc
      &kRangeOp,
      // ops/reduce.cc
      &kReduceSumOp,
      &kReduceMeanOp,
      &kReduceMaxOp,
      &kReduceMinOp,
      &kReduceProdOp,
      &kReduceL1Op,
      &kReduceL2Op,
      &kReduceSumSquareOp,
      &kReduceLogSumOp,
      &kReduceLogSumExpOp,
      &kReduceMeanQuantizeDequantizeOp,
      // ops/resize.cc
      &kResizeOp,
      // ops/reverse_sequence.cc
      &kReverseSequenceOp,
      // ops/rnn.cc
      &kRnnOp,
      &kGruOp,
      &kLstmOp,
      // ops/roi_align.cc
      &kRoiAlignOp,
      // ops/rotary_embedding.cc
      &kRotaryEmbeddingOp,
      // ops/scan.cc
      &kScanOp,
      // ops/scatter.cc
      &kScatterElementsOp,
      &kScatterOp,
      &kScatterNdOp,
      // ops/sequence.cc
      &kSequenceEmptyOp,
      &kSequenceConstructOp,
      &kSequenceLengthOp,
      &kSequenceAtOp,
      &kSequenceInsertOp,
      &kSequenceEraseOp,
      &kSplitToSequenceOp,
      &kConcatFromSequenceOp,
      // ops/sequence_map.cc
      &kSequenceMapOp,
      // ops/shape_ops.cc
      &kIdentityOp,
      &kReshapeOp,
      &kFlattenOp,
      &kSqueezeOp,
      &kUnsqueezeOp,
      &kShapeOp,
      &kSizeOp,
      &kConstantOp,
      // ops/silu.cc
      &kQrtSiluOp,
      // ops/simplified_layer_normalization.cc
      &kSimplifiedLayerNormalizationOp,
      &kMsSimplifiedLayerNormalizationOp,
      // ops/skip_layer_normalization.cc
      &kSkipLayerNormalizationOp,
      &kSkipSimplifiedLayerNormalizationOp,
      // ops/slice.cc
      &kSliceOp,
      // ops/softmax.cc
      &kSoftmaxOp,
      &kLogSoftmaxOp,
      &kHardmaxOp,
      // ops/softmax_quantized.cc
      &kQrtSoftmaxQuantizedOp,
      // ops/tfidf_vectorizer.cc
      &kTfIdfVectorizerOp,
      // ops/tile.cc
      &kTileOp,
      // ops/top_k.cc
      &kTopKOp,
      // ops/transpose.cc
      &kTransposeOp,
      // ops/trilu.cc
      &kTriluOp,
      // ops/unary.cc
      &kReluOp,
      &kSigmoidOp,
      &kTanhOp,
      &kExpOp,
      &kNegOp,
      &kAbsOp,
      &kSqrtOp,
      &kLeakyReluOp,
      &kHardSigmoidOp,
      &kClipOp,
      &kLogOp,
      &kReciprocalOp,
      &kFloorOp,
      &kCeilOp,
      &kRoundOp,
      &kSignOp,
      &kErfOp,
      &kSinOp,
      &kCosOp,
      &kTanOp,
      &kAsinOp,
      &kAcosOp,
      &kAtanOp,
      &kSinhOp,
      &kCoshOp,
      &kAsinhOp,
      &kAcoshOp,
      &kAtanhOp,
      &kSoftplusOp,
      &kSoftsignOp,
      &kEluOp,
      &kSeluOp,
      &kCeluOp,
      &kThresholdedReluOp,
      &kHardSwishOp,
      &kShrinkOp,
      &kMishOp,
      &kGeluOp,
      &kIsNaNOp,
      &kIsInfOp,
      &kNotOp,
      // ops/uniform_dequantize.cc
      &kUniformDequantizeOp,
      // ops/unique.cc
      &kUniqueOp,
      // ops/upsample.cc
      &kUpsampleOp,
      // ops/variadic.cc
      &kMaxOp,
      &kMinOp,
      &kSumOp,
      &kMeanOp,
      // ops/where.cc
      &kWhereOp,
      // ops/window.cc
      &kHannWindowOp,
      &kHammingWindowOp,
      &kBlackmanWindowOp,
  };
  return kOps;
}

std::string_view CanonicalDomain(std::string_view domain) {
  if (domain == "ai.onnx") return "";
  if (domain == "org.openvinotoolkit") return "qrt";
  return domain;
}

const OpDef* FindOp(std::string_view domain, std::string_view op_type) {
  domain = CanonicalDomain(domain);
  for (const OpDef* op : AllOps()) {
    if (op->domain == domain && op->op_type == op_type) return op;
  }
  return nullptr;
}

}  // namespace qrt
