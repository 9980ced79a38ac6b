#include "ops/onednn/onednn_conv.h"

#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <unordered_map>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/onednn/onednn_util.h"
#include "runtime/kernel_isa.h"

namespace qrt::onednn {

using dnnl::memory;
using tag = memory::format_tag;

struct Conv::Impl {
  ConvKind kind;
  dnnl::convolution_forward prim;
  memory::desc user_src, user_dst, src_md, dst_md, scratch_md;
  memory weights, bias;
  std::optional<dnnl::reorder> src_reorder, dst_reorder;
  std::string impl;
};

namespace {

memory::dims SpatialOf(const ConvGeometry& g, const int64_t* v3) {
  return memory::dims(v3 + 3 - g.spatial_rank, v3 + 3);
}

tag PlainTag(int rank) {  // ncw / nchw / ncdhw
  return rank == 1 ? tag::ncw : rank == 2 ? tag::nchw : tag::ncdhw;
}
tag ChannelsLastTag(int rank) { return rank == 1 ? tag::nwc : rank == 2 ? tag::nhwc : tag::ndhwc; }
tag WeightsTag(int rank, bool grouped) {
  if (grouped) return rank == 1 ? tag::goiw : rank == 2 ? tag::goihw : tag::goidhw;
  return rank == 1 ? tag::oiw : rank == 2 ? tag::oihw : tag::oidhw;
}

}  // namespace

Conv::Conv(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Conv::~Conv() = default;
const std::string& Conv::impl() const { return impl_->impl; }

StatusOr<std::shared_ptr<const Conv>> Conv::Create(const ConvGeometry& g, ConvKind kind, const void* weights,
                                                   const float* bias, int32_t src_zero_point) {
  const bool f32 = kind == ConvKind::kF32;
  const int r = g.spatial_rank;
  for (int d = 0; d < 3; ++d) {
    if (g.pad_begin[d] < 0 || g.pad_end[d] < 0) return Unsupported("oneDNN conv: negative pads");
  }
  try {
    const dnnl::engine& eng = Engine();
    auto impl = std::make_unique<Impl>();
    impl->kind = kind;
    const auto src_dt = f32 ? memory::data_type::f32 : memory::data_type::u8;
    const auto wei_dt = f32 ? memory::data_type::f32 : memory::data_type::s8;
    const auto dst_dt = f32 ? memory::data_type::f32 : memory::data_type::s32;

    memory::dims src_dims{g.batch, g.in_channels}, dst_dims{g.batch, g.out_channels};
    for (int64_t v : SpatialOf(g, g.in)) src_dims.push_back(v);
    for (int64_t v : SpatialOf(g, g.out)) dst_dims.push_back(v);
    const bool grouped = g.group > 1;
    memory::dims wei_dims;
    if (grouped)
      wei_dims = {g.group, g.out_channels / g.group, g.in_channels / g.group};
    else
      wei_dims = {g.out_channels, g.in_channels};
    for (int64_t v : SpatialOf(g, g.kernel)) wei_dims.push_back(v);
    memory::dims dil;
    for (int64_t v : SpatialOf(g, g.dilation)) dil.push_back(v - 1);  // oneDNN counts gaps

    const tag user_tag = PlainTag(r);
    impl->user_src = memory::desc(src_dims, src_dt, user_tag);
    impl->user_dst = memory::desc(dst_dims, dst_dt, user_tag);
    // f32: let oneDNN pick its blocked layout (nChw8c) and reorder at the edges; int8:
    // the jit int8 kernels want channels-last.
    const tag act = f32 ? tag::any : ChannelsLastTag(r);
    memory::desc src_any(src_dims, src_dt, act), dst_any(dst_dims, dst_dt, act);
    memory::desc wei_any(wei_dims, wei_dt, tag::any);
    memory::desc bias_md;
    if (bias != nullptr) bias_md = memory::desc({g.out_channels}, memory::data_type::f32, tag::a);

    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                         src_any, wei_any, bias_md, dst_any, SpatialOf(g, g.stride), dil,
                                         SpatialOf(g, g.pad_begin), SpatialOf(g, g.pad_end));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (!f32 && src_zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {src_zero_point});
    dnnl::convolution_forward::primitive_desc pd(desc, attr, eng);
    impl->impl = pd.impl_info_str();
    if (impl->impl.find("ref") != std::string::npos) {
      return Unsupported("oneDNN conv: only a reference implementation (", impl->impl, ")");
    }
    impl->src_md = pd.src_desc();
    impl->dst_md = pd.dst_desc();
    impl->scratch_md = pd.scratchpad_desc();
    impl->prim = dnnl::convolution_forward(pd);
    if (impl->src_md != impl->user_src)
      impl->src_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(eng, impl->user_src, eng, impl->src_md));
    if (impl->dst_md != impl->user_dst)
      impl->dst_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(eng, impl->dst_md, eng, impl->user_dst));

    dnnl::stream& s = ThreadStream();
    memory user_w(memory::desc(wei_dims, wei_dt, WeightsTag(r, grouped)), eng, const_cast<void*>(weights));
    impl->weights = memory(pd.weights_desc(), eng);
    dnnl::reorder(user_w, impl->weights).execute(s, user_w, impl->weights);
    if (bias != nullptr) {
      impl->bias = memory(bias_md, eng);
      std::memcpy(impl->bias.get_data_handle(), bias, size_t(g.out_channels) * sizeof(float));
    }
    s.wait();
    NoteKernelIsa(Tier());
    return std::shared_ptr<const Conv>(new Conv(std::move(impl)));
  } catch (const dnnl::error& e) {
    return Unsupported("oneDNN conv: ", e.what());
  }
}

Status Conv::Run(const void* x, void* y) const {
  const Impl& p = *impl_;
  try {
    const dnnl::engine& eng = Engine();
    dnnl::stream& s = ThreadStream();
    memory user_src(p.user_src, eng, const_cast<void*>(x));
    memory user_dst(p.user_dst, eng, y);
    memory src = user_src, dst = user_dst;
    if (p.src_reorder) {
      src = memory(p.src_md, eng, ThreadScratch(ScratchSlot::kOnednnSrc, p.src_md.get_size()));
      p.src_reorder->execute(s, user_src, src);
    }
    if (p.dst_reorder) dst = memory(p.dst_md, eng, ThreadScratch(ScratchSlot::kOnednnDst, p.dst_md.get_size()));
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, p.weights}, {DNNL_ARG_DST, dst}};
    if (p.bias) args.emplace(DNNL_ARG_BIAS, p.bias);
    if (p.scratch_md.get_size() != 0) {
      args.emplace(DNNL_ARG_SCRATCHPAD,
                   memory(p.scratch_md, eng, ThreadScratch(ScratchSlot::kOnednnPad, p.scratch_md.get_size())));
    }
    p.prim.execute(s, args);
    if (p.dst_reorder) p.dst_reorder->execute(s, dst, user_dst);
    s.wait();
    return Status::Ok();
  } catch (const dnnl::error& e) {
    return Internal("oneDNN conv execute: ", e.what());
  }
}

}  // namespace qrt::onednn
