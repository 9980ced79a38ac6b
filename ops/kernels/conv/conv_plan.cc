#include "ops/kernels/conv/conv_plan.h"

#include "ops/kernels/conv/conv_layout.h"

namespace qrt {
namespace {

using conv_layout::PlanesOf;

// The thresholds between the convolution paths: every measured choice qrt makes, in one table
// (the measurements: docs/design.md, "Convolution kernel choices").
constexpr struct {
  // Padded rows pay a copy and a kernel call per group: groups with fewer products (a layer
  // norm's 512 groups of 4 outputs x 3 taps) are gathered instead.
  int64_t tiny_group_products = 256;
  // The padded copy is worth making while it is about the size of the data it serves (hostile
  // pads of 2^24 would make it enormous): at most copy_ratio x the data, plus copy_slack floats.
  double copy_ratio = 4, copy_slack = 4096;
  // Output rows narrower than flat_rows_below are computed in one call with up to
  // flat_narrow_waste wasted columns per output; rows below flat_wide_below too where at most
  // 1 / flat_wide_waste of an output row is wasted.
  int64_t flat_rows_below = 16, flat_wide_below = 32, flat_narrow_waste = 4, flat_wide_waste = 8;
  // The window of rows where a group's padded planes would leave L1.
  int64_t window_plane_bytes = int64_t(32) << 10;
  // The lanes kernel's planes (in_h x in_w) at stride 1 and 2; larger stride-1 tiles leave L1.
  int64_t lanes_plane_stride1 = 256, lanes_plane_stride2 = 1024;
  // The int8 pointwise path: input channels where it beat the float GEMM (more: more outputs
  // near a boundary are recomputed; fewer: not measured).
  int64_t pointwise_int8_min_channels = 16, pointwise_int8_max_channels = 2048;
  // AVX2's kernels: with the byte form for long sums, as far as the VNNI kernel (MobileNetV2's
  // 960 -> 160 layers 0.64-0.69x the float path, its 960 -> 320 1.17x: more of its outputs are
  // recomputed).
  int64_t pointwise_int8_avx2_max_channels = 2048;
  // The int8 depthwise path: planes above these beat the float kernels.
  int64_t depthwise_int8_plane_stride1 = 1024, depthwise_int8_plane_stride2 = 256;
  // The AVX2 kernel (VPMADDWD, 8 lanes) against the AVX2 float kernels: the same planes (even at
  // 28 x 28, slower on the lanes kernel's 14 x 14 and 7 x 7).
  int64_t depthwise_int8_avx2_plane_stride1 = 1024, depthwise_int8_avx2_plane_stride2 = 256;
  // oneDNN 2.6's int8 depthwise convolution is slower than its f32 one (docs/onednn-2.6.md 3).
  bool onednn_int8_for_depthwise = false;
  // The integer GEMM needs this many output channels per group to fill its tile rows.
  int64_t igemm_min_channels_per_group = 4;
  // AVX2's byte quads (VPMADDUBSW on split pairs) against its int16 pairs, from this patch length.
  int64_t igemm_avx2_quads_min_k = 64;
} kThresholds;

bool PaddedPlanesFit(const ConvGeometry& g) {
  const conv_layout::PaddedPlanes p = PlanesOf(g);
  const double copy = double(g.in_channels / g.group) * double(p.phases) * double(p.height) * double(p.phase_width);
  const double data = double(g.in_channels / g.group) * double(g.in_spatial()) + double(g.out_spatial());
  return copy <= kThresholds.copy_ratio * data + kThresholds.copy_slack;
}

struct Shape {
  bool unit = true, ones = true, whole = true;  // 1x1 direct / kernel-sized direct preconditions
  bool one_per_group = false, planar = false, padded_rows = false;
};

Shape ShapeOf(const ConvGeometry& g) {
  Shape s;
  for (int d = 0; d < 3; ++d) {
    s.unit = s.unit && g.stride[d] == 1 && g.dilation[d] == 1 && g.pad_begin[d] == 0 && g.pad_end[d] == 0;
    s.ones = s.ones && g.kernel[d] == 1;
    s.whole = s.whole && g.kernel[d] == g.in[d];
  }
  s.one_per_group = g.out_channels == g.group;
  s.planar = g.in[0] == 1 && g.kernel[0] == 1 && g.out[0] == 1;
  s.padded_rows = s.one_per_group && s.planar && PaddedPlanesFit(g);
  return s;
}

bool LanesApply(const ConvGeometry& g, ConvKernelsAvailable k) {
  return k.depthwise_lanes && conv_layout::Is3x3Depthwise(g) && g.stride[1] <= 2 && g.stride[2] <= 2;
}
bool RowsApply(const ConvGeometry& g, ConvKernelsAvailable k) {
  return k.depthwise_rows && conv_layout::Is3x3Depthwise(g) && g.stride[1] == g.stride[2] && g.stride[1] <= 2 &&
         g.pad_begin[1] <= 1 && g.pad_begin[2] <= 1;
}

bool FlatPays(const ConvGeometry& g) {
  if (g.out[2] >= kThresholds.flat_wide_below || g.out[2] <= 0 || g.out[1] <= 0) return false;
  const int64_t row_step = conv_layout::FlatRowStep(g);
  return g.out[2] < kThresholds.flat_rows_below ? row_step <= kThresholds.flat_narrow_waste * g.out[2]
                                                : kThresholds.flat_wide_waste * (row_step - g.out[2]) <= g.out[2];
}

bool WindowPays(const ConvGeometry& g) {
  const int64_t plane_bytes = g.in_channels / g.group * PlanesOf(g).floats_per_channel() * int64_t(sizeof(float));
  return plane_bytes > kThresholds.window_plane_bytes && conv_layout::WindowRows(g) < PlanesOf(g).height;
}

ConvAlgorithm Choose(const ConvGeometry& g, const Shape& s, ConvKernelsAvailable k) {
  if (s.unit && s.ones) return ConvAlgorithm::kDirect;
  if (s.unit && s.whole) return ConvAlgorithm::kDirectTransposed;
  const bool tiny_groups = g.out_spatial() * g.reduction_size() < kThresholds.tiny_group_products;
  if (s.padded_rows && !tiny_groups) {
    const bool strided = g.stride[1] == 2 && g.stride[2] == 2;
    if (LanesApply(g, k) &&
        g.in[1] * g.in[2] <= (strided ? kThresholds.lanes_plane_stride2 : kThresholds.lanes_plane_stride1)) {
      return ConvAlgorithm::kDepthwiseLanes;
    }
    if (RowsApply(g, k) && !(k.rows_after_flat && FlatPays(g))) return ConvAlgorithm::kDepthwiseRows;
    if (FlatPays(g)) return ConvAlgorithm::kPaddedRowsFlat;
    if (WindowPays(g)) return ConvAlgorithm::kPaddedRowsWindow;
    return ConvAlgorithm::kPaddedRows;
  }
  // 3-D, tiny groups, or padding too large to copy: products gathered per output.
  if (s.one_per_group) return ConvAlgorithm::kGatheredGroups;
  if (s.planar && PaddedPlanesFit(g)) return ConvAlgorithm::kPlanes;
  return ConvAlgorithm::kPatches;
}

bool Applies(ConvAlgorithm a, const ConvGeometry& g, const Shape& s, ConvKernelsAvailable k) {
  // A kernel as large as the input is ONNX Runtime's transposed direct GEMM, whose order (eight
  // lane sums) no other path follows.
  if (s.unit && s.whole && !s.ones) return a == ConvAlgorithm::kDirectTransposed || a == ConvAlgorithm::kReference;
  switch (a) {
    case ConvAlgorithm::kReference:
    case ConvAlgorithm::kPatches:
      return true;
    case ConvAlgorithm::kDirect:
      return s.unit && s.ones;
    case ConvAlgorithm::kDirectTransposed:
      return s.unit && s.whole;
    case ConvAlgorithm::kPaddedRows:
    case ConvAlgorithm::kPaddedRowsWindow:
      return s.padded_rows;
    case ConvAlgorithm::kPaddedRowsFlat:
      return s.padded_rows && g.out[1] > 0 && g.out[2] > 0;
    case ConvAlgorithm::kDepthwiseLanes:
      return s.padded_rows && LanesApply(g, k);
    case ConvAlgorithm::kDepthwiseRows:
      return s.padded_rows && RowsApply(g, k);
    case ConvAlgorithm::kGatheredGroups:
      return s.one_per_group;
    case ConvAlgorithm::kPlanes:  // its GEMM takes the m > 1 order: not one output channel per group
      return !s.one_per_group && s.planar && PaddedPlanesFit(g);
    default:
      return false;  // not a float32 algorithm
  }
}

int64_t ScratchFloats(ConvAlgorithm a, const ConvGeometry& g) {
  if (a == ConvAlgorithm::kPlanes) return g.in_channels / g.group * PlanesOf(g).floats_per_channel();
  if (a == ConvAlgorithm::kPatches) return g.reduction_size() * conv_layout::PatchColumns(g);
  return 0;
}

}  // namespace

std::string_view ConvAlgorithmName(ConvAlgorithm a) {
  switch (a) {
    case ConvAlgorithm::kAuto:
      return "auto";
    case ConvAlgorithm::kReference:
      return "reference";
    case ConvAlgorithm::kDirect:
      return "direct";
    case ConvAlgorithm::kDirectTransposed:
      return "direct-transposed";
    case ConvAlgorithm::kPaddedRows:
      return "padded-rows";
    case ConvAlgorithm::kPaddedRowsFlat:
      return "padded-rows-flat";
    case ConvAlgorithm::kPaddedRowsWindow:
      return "padded-rows-window";
    case ConvAlgorithm::kDepthwiseLanes:
      return "depthwise-lanes";
    case ConvAlgorithm::kDepthwiseRows:
      return "depthwise-rows";
    case ConvAlgorithm::kGatheredGroups:
      return "gathered-groups";
    case ConvAlgorithm::kPlanes:
      return "planes";
    case ConvAlgorithm::kPatches:
      return "patches";
    case ConvAlgorithm::kPointwiseInt8:
      return "pointwise-int8";
    case ConvAlgorithm::kDepthwiseInt8:
      return "depthwise-int8";
    case ConvAlgorithm::kOnednnInt8:
      return "onednn-int8";
    case ConvAlgorithm::kOnednnF32:
      return "onednn-f32";
    case ConvAlgorithm::kIgemm:
      return "igemm";
    case ConvAlgorithm::kExactF32:
      return "exact-f32";
  }
  return "auto";
}

std::optional<ConvAlgorithm> ParseConvAlgorithm(std::string_view name) {
  for (int i = 0; i <= int(ConvAlgorithm::kExactF32); ++i) {
    if (ConvAlgorithmName(ConvAlgorithm(i)) == name) return ConvAlgorithm(i);
  }
  return std::nullopt;
}

bool ConvFloatPlan::handles_codes() const {
  switch (algorithm) {
    case ConvAlgorithm::kPaddedRows:
    case ConvAlgorithm::kPaddedRowsFlat:
    case ConvAlgorithm::kPaddedRowsWindow:
    case ConvAlgorithm::kDepthwiseLanes:
    case ConvAlgorithm::kDepthwiseRows:
      return true;
    default:
      return false;
  }
}

std::optional<ConvFloatPlan> PlanConvFloat(const ConvGeometry& g, ConvKernelsAvailable kernels, ConvAlgorithm forced) {
  const Shape s = ShapeOf(g);
  ConvFloatPlan plan;
  if (forced == ConvAlgorithm::kAuto) {
    plan.algorithm = Choose(g, s, kernels);
  } else {
    if (!Applies(forced, g, s, kernels)) return std::nullopt;
    plan.algorithm = forced;
  }
  plan.scratch_floats = ScratchFloats(plan.algorithm, g);
  return plan;
}

bool PointwiseInt8Pays(const ConvGeometry& g, Isa tier) {
  const int64_t most =
      tier == Isa::kAvx512Vnni ? kThresholds.pointwise_int8_max_channels : kThresholds.pointwise_int8_avx2_max_channels;
  const int64_t k = g.reduction_size();  // the input channels, or a patch's length
  return k >= kThresholds.pointwise_int8_min_channels && k <= most;
}

bool DepthwiseInt8Pays(const ConvGeometry& g, Isa tier) {
  const bool vnni = tier == Isa::kAvx512Vnni;
  const int64_t above =
      g.stride[1] == 2
          ? (vnni ? kThresholds.depthwise_int8_plane_stride2 : kThresholds.depthwise_int8_avx2_plane_stride2)
          : (vnni ? kThresholds.depthwise_int8_plane_stride1 : kThresholds.depthwise_int8_avx2_plane_stride1);
  return g.in[1] * g.in[2] > above;
}

bool OnednnInt8Pays(const ConvGeometry& g) {
  const bool depthwise = g.group == g.in_channels && g.in_channels / g.group == 1;
  return !depthwise || kThresholds.onednn_int8_for_depthwise;
}

bool IgemmQuadsPay(const ConvGeometry& g) { return g.reduction_size() >= kThresholds.igemm_avx2_quads_min_k; }

bool IgemmConvPays(const ConvGeometry& g) {
  return g.out_channels / g.group >= kThresholds.igemm_min_channels_per_group;
}

}  // namespace qrt
