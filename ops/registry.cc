#include "ops/registry.h"

#include "ops/ops.h"

namespace qrt {

const std::vector<const OpDef*>& AllOps() {
  static const std::vector<const OpDef*> kOps = {
      &kAddOp, &kSubOp, &kMulOp, &kDivOp, &kPReluOp,
      &kReluOp, &kSigmoidOp, &kTanhOp, &kExpOp, &kNegOp, &kAbsOp, &kSqrtOp, &kLeakyReluOp,
      &kHardSigmoidOp, &kClipOp,
      &kIdentityOp, &kReshapeOp, &kFlattenOp, &kSqueezeOp, &kUnsqueezeOp, &kShapeOp, &kConstantOp,
      &kCastOp, &kCastLikeOp,
      &kQuantizeLinearOp, &kDequantizeLinearOp, &kQuantizeDequantizeOp,
      &kFakeQuantizeOp, &kQuantizeV2Op, &kUniformDequantizeOp, &kQuantizedMulOp, &kQuantizedAddOp,
      &kQLinearMulOp, &kQLinearAddOp,
      &kLookupTableOp,
      // conv.cc, matmul.cc
      &kConvOp, &kQrtConvQuantizeDequantizeOp, &kConvIntegerOp, &kQLinearConvOp, &kQrtQLinearConvOp, &kMatMulOp, &kGemmOp, &kMatMulIntegerOp, &kQLinearMatMulOp,
      // data movement, resize, softmax/reduce, pooling, normalization, dynamic quantization
      &kConcatOp, &kSplitOp, &kSliceOp, &kPadOp, &kTileOp, &kTransposeOp, &kGatherOp, &kResizeOp,
      &kSoftmaxOp, &kReduceMeanOp, &kMaxPoolOp, &kAveragePoolOp, &kGlobalMaxPoolOp, &kGlobalAveragePoolOp, &kLpPoolOp, &kGlobalLpPoolOp,
      &kBatchNormalizationOp, &kDynamicQuantizeLinearOp,
      // scan.cc (control flow)
      &kScanOp,
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
