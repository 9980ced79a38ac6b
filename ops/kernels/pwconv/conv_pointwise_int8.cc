// Plan time of the exact int8 pointwise convolution (conv_pointwise_int8.h): which
// convolutions qualify, and their integer weights and per-channel constants.
#include "ops/kernels/pwconv/conv_pointwise_int8.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <tuple>
#include <utility>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/conv/exact_int8_plan.h"
#include "runtime/parallel.h"

namespace qrt {
namespace {

// AVX2's byte kernel (VPMADDUBSW on split pairs) from this many input channels (or patch
// length) and output channels; below either, the int16 pairs kernel, whose packing costs less
// (docs/design.md: measured).
constexpr int64_t kAvx2BytesFromK = 64, kAvx2BytesFromChannels = 32;

// AVX2's sampled running sums (the header's second bound) from this many input channels: where
// the first bound leaves enough outputs to recompute that the samples cost less than the
// recomputation they save (docs/design.md: measured).
constexpr int64_t kAvx2SampledFromK = 768;

// The bias's weight in the bound: one rounding in the reference, one in the estimate, plus 10.
constexpr double kBiasWeight = 12;

// r_k + 10 for each term k (header): the reference's accumulator for k's block of k_block
// (the last block may be shorter) takes k and every later term of the block, one rounding
// each; then one rounding per block sum that k's sum goes through (block 0's sum is stored,
// not added, so block 0 takes as many as block 1), and one for the bias, counted even without
// one. Each is below 2^13 (k <= 4096).
std::vector<int64_t> TermWeights(int64_t k, int64_t k_block) {
  const int64_t blocks = (k + k_block - 1) / k_block;
  std::vector<int64_t> weights(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i) {
    const int64_t block = i / k_block, block_end = std::min(k, (block + 1) * k_block);
    weights[size_t(i)] = (block_end - i) + (blocks - std::max<int64_t>(block, 1)) + 1 + 10;
  }
  return weights;
}

struct RowSums {
  int64_t codes = 0;             // sum_k e_k, |.| <= 128 * 4096
  int64_t magnitudes = 0;        // sum_k |e_k|
  int64_t weighted_squares = 0;  // sum_k ((r_k + 10) e_k)^2 < 4096 * (2^13 * 2^7)^2 = 2^52: exact
  int64_t squares = 0;           // sum_k e_k^2
};

// A weight row's sums, in a function of their own so that they stay in registers (inlined into
// the plan, GCC kept one in memory, each add waiting on the last).
[[gnu::noinline]] RowSums SumsOf(const uint8_t* codes, const std::vector<int64_t>& term_weights) {
  int64_t sum = 0, magnitudes = 0, weighted_squares = 0, squares = 0;
  for (size_t i = 0; i < term_weights.size(); ++i) {
    const int64_t e = int8_t(codes[i]), weighted = term_weights[i] * e;
    sum += e;
    magnitudes += e < 0 ? -e : e;
    weighted_squares += weighted * weighted;
    squares += e * e;
  }
  return {sum, magnitudes, weighted_squares, squares};
}

// For AVX2's byte kernel: the plan's weight quads split so that no VPMADDUBSW word (of one quad,
// or of two added) leaves int16 (common/byte_pairs.h).
void SplitQuads(PointwiseInt8Plan& p, ByteSplit how) {
  std::vector<int32_t> e(static_cast<size_t>(p.channels * p.k));
  auto byte = [&](int64_t c, int64_t i) { return reinterpret_cast<uint8_t*>(p.weights.data() + c * p.quads) + i; };
  for (int64_t c = 0; c < p.channels; ++c) {
    for (int64_t i = 0; i < p.k; ++i) e[size_t(c * p.k + i)] = int8_t(*byte(c, i));
  }
  p.quad_pairs = SplitByteWeights(e.data(), p.channels, p.k, &p.corrections, how);
  // Each row's entries in k order: the sampled sums' second bound adds them group by group
  // (conv_pointwise_int8_avx2.cc); the tile's sums take them in any order.
  PairCorrections& fix = p.corrections;
  std::vector<std::pair<int32_t, int32_t>> entries;
  for (int64_t c = 0; c < p.channels; ++c) {
    const size_t first = size_t(fix.start[size_t(c)]), last = size_t(fix.start[size_t(c) + 1]);
    entries.clear();
    for (size_t i = first; i < last; ++i) entries.emplace_back(fix.k[i], fix.e[i]);
    std::sort(entries.begin(), entries.end());
    for (size_t i = first; i < last; ++i) std::tie(fix.k[i], fix.e[i]) = entries[i - first];
  }
  for (int64_t c = 0; c < p.channels; ++c) {
    for (int64_t i = 0; i < p.k; ++i) *byte(c, i) = uint8_t(int8_t(e[size_t(c * p.k + i)]));
  }
}

bool PowerOfTwo(float v) {
  int exponent;
  return std::isnormal(v) && v > 0.f && std::frexp(v, &exponent) == 0.5f;
}

}  // namespace

bool PointwiseInt8Available(Isa isa) { return CanUseAvx2(isa); }

Isa PointwiseInt8Tier(Isa isa) {
  if (CanUseAvx512Vnni(isa)) return Isa::kAvx512Vnni;
  return CanUseAvx2(isa) ? Isa::kAvx2 : Isa::kScalar;
}

void PointwiseInt8FloatColumns(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const float* x, float* y,
                               uint8_t* codes, float* outputs, int64_t j0, int64_t cols) {
  SgemmArgs g;
  g.m = p.channels, g.n = cols, g.k = p.k;
  g.a = a.w, g.lda = p.k;
  g.b = x + j0, g.ldb = p.columns;
  g.rule_n = p.columns;
  g.bias = a.bias;
  if (codes != nullptr) {
    g.c = outputs, g.ldc = kPointwiseInt8Columns;
    a.gemm(g);
    const FakeQuantStep& fq = a.epilogue.before;
    for (int64_t c = 0; c < p.channels; ++c) {
      a.quantize(cols, outputs + c * kPointwiseInt8Columns, fq.scale, fq.zero_point, codes + c * p.columns + j0);
    }
    return;
  }
  g.c = y + j0, g.ldc = p.columns;
  g.epilogue = &a.epilogue;
  a.gemm(g);
}

namespace {

// AVX2's form of the sums (conv_pointwise_int8_avx2.cc): chosen, or forced (tests): int16 pairs,
// bytes a quad a step, two quads a step.
enum class Avx2Form { kChoose, kPairs, kBytes, kQuadPairs };
// AVX2's sampled running sums: chosen by k, or forced on or off (tests).
enum class Sampling { kChoose, kOn, kOff };

std::shared_ptr<const PointwiseInt8Plan> Plan(const ConvGeometry& g, const float* w, const QuantGrid& w_grid,
                                              const QuantGrid& x_grid, const float* bias, float output_scale, Isa isa,
                                              Avx2Form form, Sampling sampling) {
  // The direct 1x1 case of the ordered convolution, or any other group-1 convolution as the 1x1
  // convolution over its patch matrix (the ordered convolution's GEMM with the n of the whole
  // image, conv_float.h: the same products in the same order); more than one output channel (one
  // channel takes the GEMM's one-row order) and, for patches, more than one output position (a
  // kernel as large as the input is W x X^T); k small enough for the error bound's constants and
  // for int32 sums (4096 * 255 * 128 < 2^31).
  bool direct = g.group == 1;
  for (int d = 0; d < 3; ++d) {
    direct = direct && g.kernel[d] == 1 && g.stride[d] == 1 && g.dilation[d] == 1 && g.pad_begin[d] == 0 &&
             g.pad_end[d] == 0;
  }
  const int64_t channels = g.out_channels, k = g.reduction_size(), columns = g.out_spatial();
  if (g.group != 1 || channels < 2 || k < 1 || k > 4096 || columns < (direct ? 1 : 2)) return nullptr;
  // X: one scale and zero point; W: signed, zero point 0, one scale or one per output channel.
  bool per_channel = false;
  if (!OneScaleGrid(x_grid) || !SymmetricWeightGrid(w_grid, channels, &per_channel)) return nullptr;
  auto plan = std::make_shared<PointwiseInt8Plan>();
  PointwiseInt8Plan& p = *plan;
  p.channels = channels;
  p.k = k;
  p.patches = !direct;
  p.quads = (k + 3) / 4;
  // Below AVX-512 VNNI: AVX2's byte kernel on split pairs for long sums and many channels (and
  // few split pairs: checked after the weights), its int16 pairs kernel otherwise.
  const bool avx2_tier = PointwiseInt8Tier(isa) != Isa::kAvx512Vnni;
  const bool forced_bytes = form == Avx2Form::kBytes || form == Avx2Form::kQuadPairs;
  p.split_pairs =
      avx2_tier &&
      (forced_bytes || (form == Avx2Form::kChoose && k >= kAvx2BytesFromK && channels >= kAvx2BytesFromChannels));
  p.pairs = avx2_tier && !p.split_pairs;
  // No kernel below AVX2: the plan is still made (the reference takes it), and runs decline.
  if (PointwiseInt8Available(isa)) {
    p.pass = p.pairs         ? avx2::PointwiseInt8Pass
             : p.split_pairs ? avx2::PointwiseInt8PassBytes
                             : avx512::PointwiseInt8Pass;
  }
  p.rows = p.pairs ? (k + 1) / 2 : p.quads;
  p.columns = columns;
  p.k_block = SgemmStrideK(columns, k);
  // Groups of samples must not straddle the reference's k blocks, and a block of at most 1024
  // terms keeps the second bound's int32 sums from overflowing (conv_pointwise_int8_avx2.cc).
  p.sampled = avx2_tier && (sampling == Sampling::kOn || (sampling == Sampling::kChoose && k >= kAvx2SampledFromK)) &&
              (k <= p.k_block || p.k_block % kPointwiseSampleTerms == 0) && std::min(k, p.k_block) <= 1024;
  p.groups = (k + kPointwiseSampleTerms - 1) / kPointwiseSampleTerms;
  // Blocks per pass (the kernel's header: why). With up to 32 channels the rows a block writes
  // are few enough streams, and one block at a time is kept (in the sitting that compared them,
  // MobileNetV2's 32 -> 16 and 144 -> 24 layers took 5-10% longer in passes, within the noise);
  // otherwise a pass's packed X and floats ((quads + k) x 256 bytes a block) stay within 32 KB,
  // which L1 holds while every tile of channels reads them, and so do its lists of open vectors
  // (4 x channels int32 a block).
  constexpr int64_t kFewChannels = 32, kPassBytes = 32 << 10, kMostBlocks = 256;
  if (channels > kFewChannels) {
    p.blocks_per_pass = std::max<int64_t>(
        1,
        std::min({kMostBlocks, kPassBytes / ((p.rows + k) * kPointwiseInt8Columns * 4), kPassBytes / (16 * channels)}));
  }
  p.x_scale = x_grid.scales[0];
  p.x_inverse = 1.f / p.x_scale;
  if (!std::isnormal(p.x_inverse)) return nullptr;
  const bool x_signed = x_grid.type == DataType::kInt8;
  const int32_t type_low = x_signed ? -128 : 0, type_high = x_signed ? 127 : 255;
  const int32_t zp = x_grid.zero_points[0];
  p.d_low = type_low - zp;
  p.d_high = type_high - zp;
  // Every grid value fl(d * s_x) finite (else an infinite X would pass Pack's check as d).
  if (!(double(std::max(-p.d_low, p.d_high)) * double(p.x_scale) <= std::ldexp(1.0, 100))) return nullptr;
  p.x_offset = zp - type_low;  // d + offset = q - type_low, a byte
  p.x_signed = x_signed;
  // Each term's weight in the bound (header): r_k + 10, r_k its roundings on the way to the result.
  const std::vector<int64_t> term_weights = TermWeights(k, p.k_block);
  p.error_factor = RoundUp(1.01 * std::ldexp(1.0, -24));
  p.weights.assign(size_t(channels * p.rows), 0);
  std::vector<uint8_t> row_bytes(static_cast<size_t>(p.quads * 4), 0);
  for (int64_t c = 0; c < channels; ++c) {
    const float s = w_grid.scales[per_channel ? size_t(c) : 0];
    // W's grid values finite: with s above FLT_MAX / 128, DequantizeLinear made +-inf, which
    // the check below would take for e = 127 or -128.
    if (!(128.0 * double(s) <= std::ldexp(1.0, 100))) return nullptr;
    // Far from underflow and overflow, where the argument's relative error bounds hold: every
    // nonzero product is at least m, and no sum or bound can come near FLT_MAX.
    const float m = p.x_scale * s;
    const double largest = double(m) * 255 * 128 * double(k) + (bias != nullptr ? std::fabs(double(bias[c])) : 0);
    if (!(m >= std::ldexp(1.f, -100)) || !(largest <= std::ldexp(1.0, 100))) return nullptr;
    const float inverse = 1.f / s;
    const float* row = w + c * k;
    // The row's bytes in k order (the int32 quads are little-endian), or as int16 pairs.
    uint8_t* bytes = p.pairs ? row_bytes.data() : reinterpret_cast<uint8_t*>(p.weights.data() + c * p.quads);
    if (!CodesOnGrid(row, k, s, inverse, 0, DataType::kInt8, bytes)) return nullptr;
    if (p.pairs) {
      for (int64_t i = 0; i < k; ++i) {
        const uint32_t e = uint16_t(int16_t(int8_t(bytes[i])));
        p.weights[size_t(c * p.rows + i / 2)] |= int32_t(i % 2 == 0 ? e : e << 16);
      }
    }
    const RowSums sums = SumsOf(bytes, term_weights);
    const float b = bias != nullptr ? bias[c] : 0.f;
    if (!std::isfinite(b)) return nullptr;
    p.offset_sums.push_back(p.pairs ? 0 : int32_t(sums.codes * p.x_offset));
    if (p.sampled) {
      // Rounded up from double (relative error ~2^-50), pushed up by 2^-20 as the others.
      const double push = 1 + std::ldexp(1.0, -20);
      p.sum_bounds.push_back(RoundUp(double(p.x_scale) * double(s) * push));
      p.sampled_norm_bounds.push_back(
          RoundUp(11 * double(p.x_scale) * double(s) * std::sqrt(double(sums.squares)) * push));
      int64_t prefix = 0;  // |x_offset * prefix| <= 255 * 128 * 4096 < 2^31
      for (int64_t i = 0; i < k && !p.pairs; ++i) {
        prefix += int8_t(bytes[i]);
        if ((i + 1) % kPointwiseSampleTerms == 0 || i + 1 == k)
          p.offset_prefixes.push_back(int32_t(prefix * p.x_offset));
      }
    }
    p.multipliers.push_back(m);
    // Exact sums (header): x_k w_k = d_k e_k 2^j exactly, every partial sum within 2^24 units.
    p.exact_sums.push_back(PowerOfTwo(p.x_scale) && PowerOfTwo(s) &&
                           int64_t(std::max(-p.d_low, p.d_high)) * sums.magnitudes <= (int64_t(1) << 24));
    // Computed in double (relative error ~2^-50), then pushed up by 2^-20 and rounded up.
    p.norm_bounds.push_back(
        RoundUp(double(p.x_scale) * double(s) * std::sqrt(double(sums.weighted_squares)) * (1 + std::ldexp(1.0, -20))));
    p.biases.push_back(b);
    p.bias_bounds.push_back(RoundUp(kBiasWeight * double(p.error_factor) * std::fabs(double(b))));
    if (!std::isfinite(p.norm_bounds.back()) || !std::isfinite(p.bias_bounds.back())) return nullptr;
  }
  if (p.split_pairs) {
    SplitQuads(p, form == Avx2Form::kBytes       ? ByteSplit::kPairs
                  : form == Avx2Form::kQuadPairs ? ByteSplit::kQuadPairs
                                                 : ByteSplit::kCheaper);
  }
  if (p.split_pairs && form == Avx2Form::kChoose && !ByteFormPays(p.corrections, channels, k)) {
    return Plan(g, w, w_grid, x_grid, bias, output_scale, isa, Avx2Form::kPairs, sampling);
  }
  if (UsableStepScale(output_scale)) {
    p.steps.resize(size_t(channels));
    if (PointwiseInt8Steps(p, output_scale, p.steps.data()))
      p.steps_scale = output_scale;
    else
      p.steps.clear();
  }
  return plan;
}

}  // namespace

std::shared_ptr<const PointwiseInt8Plan> PlanPointwiseInt8(const ConvGeometry& g, const float* w,
                                                           const QuantGrid& w_grid, const QuantGrid& x_grid,
                                                           const float* bias, float output_scale, Isa isa) {
  // QRT_PW_AVX2_KERNEL=pairs, bytes (a quad a step) or quads (two a step) forces AVX2's form (tests, trials).
  const char* forced = std::getenv("QRT_PW_AVX2_KERNEL");
  const std::string_view force = forced != nullptr ? forced : "";
  const Avx2Form form = force == "bytes"   ? Avx2Form::kBytes
                        : force == "quads" ? Avx2Form::kQuadPairs
                        : force == "pairs" ? Avx2Form::kPairs
                                           : Avx2Form::kChoose;
  // QRT_PW_AVX2_SAMPLED=1 or 0 forces the sampled running sums on or off (tests, trials).
  const char* sampled = std::getenv("QRT_PW_AVX2_SAMPLED");
  const std::string_view sample = sampled != nullptr ? sampled : "";
  const Sampling sampling = sample == "1" ? Sampling::kOn : sample == "0" ? Sampling::kOff : Sampling::kChoose;
  return Plan(g, w, w_grid, x_grid, bias, output_scale, isa, form, sampling);
}

bool PointwiseInt8Steps(const PointwiseInt8Plan& p, float output_scale, PointwiseInt8Step* steps) {
  const float inverse = 1.f / output_scale;
  const double inside = 0.5 - kStepMargin;
  for (int64_t c = 0; c < p.channels; ++c) {
    const size_t i = size_t(c);
    PointwiseInt8Step& s = steps[i];
    // The estimate's constants, rounded to nearest as the argument counts them.
    s.multiplier = p.multipliers[i] * inverse;
    s.bias = p.biases[i] * inverse;
    // The bound's, in double from floats (relative error ~2^-50), then pushed up by 2^-20 and
    // rounded up: above the float products forming E * i would round to.
    const double push = 1 + std::ldexp(1.0, -20);
    s.reach_per_norm = RoundUp(double(p.norm_bounds[i]) * double(p.error_factor) * double(inverse) * push);
    s.limit = RoundDown(inside - double(RoundUp(double(p.bias_bounds[i]) * double(inverse) * push)));
    s.sampled_reach_per_norm = s.per_sum = 0.f;  // steps may be scratch: every field is written
    if (p.sampled) {
      s.sampled_reach_per_norm =
          RoundUp(double(p.sampled_norm_bounds[i]) * double(p.error_factor) * double(inverse) * push);
      s.per_sum = RoundUp(double(p.sum_bounds[i]) * double(p.error_factor) * double(inverse) * push);
    }
    // Exact sums and a power-of-two s_y: t = fl(S * M + B) is fl((s_x s_w S + b) / s_y), the
    // reference's fl(y / s_y) itself (M and B exact, and scaling by 2^j commutes with rounding),
    // so every lane is proven. B exact: b / s_y neither underflows nor overflows.
    if (p.exact_sums[i] && PowerOfTwo(output_scale) && s.bias * output_scale == p.biases[i] && std::isfinite(s.bias)) {
      s.reach_per_norm = s.sampled_reach_per_norm = s.per_sum = 0.f, s.limit = 1.f;
    }
    if (!std::isfinite(s.multiplier) || !std::isfinite(s.bias) || !std::isfinite(s.reach_per_norm) ||
        !std::isfinite(s.limit) || !std::isfinite(s.sampled_reach_per_norm) || !std::isfinite(s.per_sum)) {
      return false;
    }
  }
  return true;
}

namespace {

// A clamp before the fake quantization q, as a range of steps: q is monotonic, so
// q(clamp(y, lo, hi)) = clamp(q(y), q(lo), q(hi)), the steps' range narrowed to the steps of the
// clamp's bounds (fl(A * s) / s rounds back to A, s and 1/s normal). False where a bound is NaN
// or its step's float is not finite.
bool ClampSteps(const OutputEpilogue& e, float* low, float* high) {
  float bounds[2] = {e.clamp_lo, e.clamp_hi};
  if (std::isnan(bounds[0]) || std::isnan(bounds[1])) return false;
  const FakeQuantStep& fq = e.before;
  fq.map(2, bounds, fq.scale, fq.zero_point, bounds);
  if (!std::isfinite(bounds[0]) || !std::isfinite(bounds[1])) return false;
  *low = std::nearbyint(bounds[0] / fq.scale), *high = std::nearbyint(bounds[1] / fq.scale);
  return true;
}

}  // namespace

bool ConvPointwiseInt8(const PointwiseInt8Plan& p, const PointwiseInt8Args& a) {
  const FakeQuantStep& fq = a.epilogue.before;
  // The step rule needs s_y and 1/s_y normal; the argument, a positive scale.
  if (p.pass == nullptr || fq.map == nullptr || !UsableStepScale(fq.scale)) {
    return false;
  }
  const OutputEpilogue rest = a.epilogue.Tail();
  const bool has_rest = rest.slope != nullptr || rest.after.map != nullptr;
  const bool clamp = a.epilogue.clamp;
  float clamp_low = 0, clamp_high = 0;
  if (clamp && (a.codes != nullptr || !ClampSteps(a.epilogue, &clamp_low, &clamp_high))) return false;
  if (a.codes != nullptr && (has_rest || a.quantize == nullptr)) return false;  // codes of the first step only
  // The plan's, or computed for this scale in the caller's scratch, which every thread reads.
  const PointwiseInt8Step* steps = p.steps.data();
  if (p.steps.empty() || fq.scale != p.steps_scale) {
    auto* computed = static_cast<PointwiseInt8Step*>(
        ThreadScratch(ScratchSlot::kPointwiseSteps, size_t(p.channels) * sizeof(PointwiseInt8Step)));
    if (!PointwiseInt8Steps(p, fq.scale, computed)) return false;
    steps = computed;
  }
  constexpr int64_t kColumns = kPointwiseInt8Columns;
  const int64_t blocks = (p.columns + kColumns - 1) / kColumns;
  for (int64_t n = 0; n < a.batch; ++n) {
    const float* x = a.x_codes == nullptr ? a.x + n * p.k * p.columns : nullptr;
    const uint8_t* x_codes =
        a.x_codes != nullptr ? static_cast<const uint8_t*>(a.x_codes) + n * p.k * p.columns : nullptr;
    float* y = a.codes == nullptr ? a.y + n * p.channels * p.columns : nullptr;
    uint8_t* codes = a.codes != nullptr ? static_cast<uint8_t*>(a.codes) + n * p.channels * p.columns : nullptr;
    ParallelFor(a.threads, blocks, 1, 2, [&](int64_t first, int64_t last) {
      const int64_t most = std::min(p.blocks_per_pass, last - first);
      const PointwiseInt8Scratch scratch{
          steps,
          clamp,
          clamp_low,
          clamp_high,
          static_cast<int32_t*>(ThreadScratch(ScratchSlot::kPointwisePacked, size_t(most * p.rows * kColumns) * 4)),
          ThreadScratchFloats(ScratchSlot::kPointwiseNorms, size_t(most * kColumns)),
          static_cast<int32_t*>(ThreadScratch(ScratchSlot::kPointwiseOpen, size_t(most * 4 * p.channels) * 4)),
          static_cast<int32_t*>(ThreadScratch(ScratchSlot::kPointwiseCounts, size_t(most * 4) * 4)),
          ThreadScratchFloats(ScratchSlot::kPointwiseFloats, size_t(most * p.k * kColumns)),
          codes != nullptr ? ThreadScratchFloats(ScratchSlot::kPointwiseOutputs, size_t(p.channels * kColumns))
                           : nullptr,
          p.sampled ? static_cast<int32_t*>(ThreadScratch(ScratchSlot::kPointwiseSamples,
                                                          size_t(p.groups * kPointwiseSampleRows * 16) * 4))
                    : nullptr};
      for (int64_t b = first; b < last; b += most) {
        p.pass(p, a, x, x_codes, y, codes, b, std::min(last, b + most), has_rest ? &rest : nullptr, scratch);
      }
    });
  }
  return true;
}

}  // namespace qrt
