// Every op qrt runs, listed once, grouped by the file (one op or one ONNX op family each)
// that defines it: loaders look ops up here by (domain, op type).
#include "ops/registry.h"

#include "ops/ops.h"

namespace qrt {

const std::vector<const OpDef*>& AllOps() {
  static const std::vector<const OpDef*> kOps = {
      // ops/binary.cc
      &kAddOp,
      &kSubOp,
      &kMulOp,
      &kDivOp,
      &kPReluOp,
      // ops/cast.cc
      &kCastOp,
      &kCastLikeOp,
      // ops/concat_split.cc
      &kConcatOp,
      &kSplitOp,
      // ops/conv.cc
      &kConvOp,
      &kQrtConvQuantizeDequantizeOp,
      &kConvIntegerOp,
      &kQLinearConvOp,
      &kQrtQLinearConvOp,
      // ops/dynamic_quantize_linear.cc
      &kDynamicQuantizeLinearOp,
      // ops/fake_quantize.cc
      &kFakeQuantizeOp,
      // ops/gather.cc
      &kGatherOp,
      // ops/lookup_table.cc
      &kLookupTableOp,
      // ops/matmul.cc
      &kMatMulOp,
      &kGemmOp,
      &kMatMulIntegerOp,
      &kQLinearMatMulOp,
      // ops/normalization.cc
      &kBatchNormalizationOp,
      // ops/pad.cc
      &kPadOp,
      // ops/pool.cc
      &kMaxPoolOp,
      &kAveragePoolOp,
      &kGlobalMaxPoolOp,
      &kGlobalAveragePoolOp,
      &kLpPoolOp,
      &kGlobalLpPoolOp,
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
      // ops/reduce_mean.cc
      &kReduceMeanOp,
      // ops/resize.cc
      &kResizeOp,
      // ops/scan.cc
      &kScanOp,
      // ops/shape_ops.cc
      &kIdentityOp,
      &kReshapeOp,
      &kFlattenOp,
      &kSqueezeOp,
      &kUnsqueezeOp,
      &kShapeOp,
      &kConstantOp,
      // ops/slice.cc
      &kSliceOp,
      // ops/softmax.cc
      &kSoftmaxOp,
      // ops/tile.cc
      &kTileOp,
      // ops/transpose.cc
      &kTransposeOp,
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
      // ops/uniform_dequantize.cc
      &kUniformDequantizeOp,
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
