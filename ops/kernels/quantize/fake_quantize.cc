// FakeQuantize: validation, broadcast plan and kernel selection (op-semantics.md 1.2).
#include "ops/kernels/quantize/fake_quantize.h"

#include <cctype>
#include <string>

#include "runtime/kernel_isa.h"

namespace qrt {
namespace {

constexpr const char* kRangeNames[4] = {"input_low", "input_high", "output_low", "output_high"};

std::string Lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// The range's dims placed into X's rank following the documented PDPD rule.
StatusOr<Dims> PdpdAlign(const Dims& range, const Dims& x, int64_t axis, const char* name) {
  const int64_t src_rank = static_cast<int64_t>(range.size());
  const int64_t dst_rank = static_cast<int64_t>(x.size());
  if (src_rank > dst_rank) {
    return InvalidArgument("FakeQuantize: pdpd broadcast: ", name, " rank ", src_rank, " exceeds the rank ", dst_rank,
                           " of X");
  }
  if (axis < -1) return InvalidArgument("FakeQuantize: pdpd broadcast: axis ", axis, " is less than -1");
  const int64_t start = axis == -1 ? dst_rank - src_rank : axis;
  if (src_rank + start > dst_rank) {
    return InvalidArgument("FakeQuantize: pdpd broadcast: ", name, " of rank ", src_rank, " does not fit X ",
                           DimsToString(x), " at axis ", axis);
  }
  Dims aligned(static_cast<size_t>(dst_rank - start), 1);  // trailing ones after the range
  for (int64_t i = 0; i < src_rank; ++i) {
    if (range[i] != 1 && range[i] != x[start + i]) {
      return InvalidArgument("FakeQuantize: pdpd broadcast: ", name, " ", DimsToString(range), " does not match X ",
                             DimsToString(x), " at axis ", start + i);
    }
    aligned[i] = range[i];
  }
  return aligned;
}

}  // namespace

StatusOr<AutoBroadcast> ParseAutoBroadcast(std::string_view name) {
  const std::string s = Lower(name);
  if (s == "numpy") return AutoBroadcast::kNumpy;
  if (s == "none") return AutoBroadcast::kNone;
  if (s == "pdpd") return AutoBroadcast::kPdpd;
  return InvalidArgument("FakeQuantize: unknown auto_broadcast '", name, "' (expected numpy, none or pdpd)");
}

FakeQuantizeFn SelectFakeQuantizeKernel(DataType dtype, Isa isa) {
  switch (dtype) {
    case DataType::kFloat32:
      return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::FakeQuantizeF32) : ref::FakeQuantizeF32;
    case DataType::kFloat16:
      return ref::FakeQuantizeF16;
    case DataType::kBFloat16:
      return ref::FakeQuantizeBF16;
    default:
      return nullptr;
  }
}

StatusOr<FakeQuantizePlan> PrepareFakeQuantize(const FakeQuantizeAttrs& attrs, const TensorDesc& x,
                                               const TensorDesc& in_low, const TensorDesc& in_high,
                                               const TensorDesc& out_low, const TensorDesc& out_high, Isa isa) {
  if (attrs.levels < 2) {
    return InvalidArgument("FakeQuantize: levels must be at least 2, got ", attrs.levels);
  }
  FakeQuantizePlan plan;
  plan.kernel = SelectFakeQuantizeKernel(x.dtype, isa);
  if (plan.kernel == nullptr) {
    return Unsupported("FakeQuantize: X dtype ", DataTypeName(x.dtype),
                       " is not supported (float32, float16, bfloat16)");
  }
  QRT_RETURN_IF_ERROR(CheckedElementCount(x.dims, DataTypeSize(x.dtype)).status());
  const TensorDesc* ranges[4] = {&in_low, &in_high, &out_low, &out_high};
  std::vector<Dims> operands = {x.dims};
  for (int k = 0; k < 4; ++k) {
    const TensorDesc& r = *ranges[k];
    if (r.dtype != x.dtype) {
      return InvalidArgument("FakeQuantize: ", kRangeNames[k], " dtype ", DataTypeName(r.dtype),
                             " differs from X dtype ", DataTypeName(x.dtype));
    }
    QRT_RETURN_IF_ERROR(CheckedElementCount(r.dims, DataTypeSize(r.dtype)).status());
    switch (attrs.auto_broadcast) {
      case AutoBroadcast::kNone:
        if (r.dims != x.dims) {
          return InvalidArgument("FakeQuantize: auto_broadcast none: argument shapes are inconsistent: ",
                                 kRangeNames[k], " ", DimsToString(r.dims), " vs X ", DimsToString(x.dims));
        }
        operands.push_back(r.dims);
        break;
      case AutoBroadcast::kNumpy: {
        // Leading extra dims of size 1 are accepted (they do not change X's elements);
        // anything that would make the broadcast result larger than X is rejected.
        QRT_ASSIGN_OR_RETURN(Dims merged, BroadcastDims(x.dims, r.dims));
        const size_t extra = merged.size() - x.dims.size();
        bool same = Dims(merged.begin() + extra, merged.end()) == x.dims;
        for (size_t i = 0; i < extra; ++i) same = same && merged[i] == 1;
        if (!same) {
          return InvalidArgument("FakeQuantize: numpy broadcast of ", kRangeNames[k], " ", DimsToString(r.dims),
                                 " with X ", DimsToString(x.dims), " gives ", DimsToString(merged),
                                 ", larger than X (the output has X's shape)");
        }
        operands.push_back(
            Dims(r.dims.begin() + (r.dims.size() > x.dims.size() ? r.dims.size() - x.dims.size() : 0), r.dims.end()));
        break;
      }
      case AutoBroadcast::kPdpd: {
        QRT_ASSIGN_OR_RETURN(Dims aligned, PdpdAlign(r.dims, x.dims, attrs.axis, kRangeNames[k]));
        operands.push_back(std::move(aligned));
        break;
      }
    }
  }
  operands.push_back(x.dims);
  plan.dtype = x.dtype;
  plan.out_dims = x.dims;
  plan.levels_minus_1 = static_cast<float>(attrs.levels - 1);
  plan.loop = MakeStridedLoop(operands, x.dims);
  return plan;
}

Status RunFakeQuantize(const FakeQuantizePlan& plan, const void* x, const void* in_low, const void* in_high,
                       const void* out_low, const void* out_high, void* y) {
  const size_t es = DataTypeSize(plan.dtype);
  const auto* bx = static_cast<const char*>(x);
  const char* br[4] = {static_cast<const char*>(in_low), static_cast<const char*>(in_high),
                       static_cast<const char*>(out_low), static_cast<const char*>(out_high)};
  auto* by = static_cast<char*>(y);
  uint32_t mask = 0;
  for (int k = 0; k < 4; ++k) mask |= static_cast<uint32_t>(plan.loop.inner_inc[1 + k]) << k;
  ForEachRun(plan.loop, [&](const int64_t* off) {
    FakeQuantizeRunArgs a;
    a.n = plan.loop.inner;
    a.x = bx + off[0] * es;
    a.in_low = br[0] + off[1] * es;
    a.in_high = br[1] + off[2] * es;
    a.out_low = br[2] + off[3] * es;
    a.out_high = br[3] + off[4] * es;
    a.y = by + off[5] * es;
    a.range_inc_mask = mask;
    a.levels_minus_1 = plan.levels_minus_1;
    plan.kernel(a);
  });
  return Status::Ok();
}

}  // namespace qrt
