#include "ops/onednn/onednn_matmul.h"

#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/onednn/onednn_util.h"
#include "runtime/kernel_isa.h"

namespace qrt::onednn {

using dnnl::memory;

struct MatMul::Impl {
  dnnl::matmul prim;
  memory::desc a_md, b_md, c_md, scratch_md;
  std::string impl;
};

namespace {

memory::dims DenseStrides(const Dims& d) {
  memory::dims s(d.size(), 1);
  for (size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

}  // namespace

MatMul::MatMul(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MatMul::~MatMul() = default;
const std::string& MatMul::impl() const { return impl_->impl; }

StatusOr<std::shared_ptr<const MatMul>> MatMul::Create(const Dims& a, const Dims& a_strides, const Dims& b,
                                                       const Dims& b_strides, const Dims& c, float alpha) {
  if (a.size() < 2 || a.size() != b.size() || a.size() != c.size() || a.size() > 12) {
    return Unsupported("oneDNN matmul: ranks ", a.size(), ", ", b.size(), ", ", c.size());
  }
  for (const Dims* d : {&a, &b, &c}) {
    for (int64_t v : *d) {
      if (v == 0) return Unsupported("oneDNN matmul: empty tensor");
    }
  }
  try {
    auto impl = std::make_unique<Impl>();
    const auto f32 = memory::data_type::f32;
    impl->a_md = memory::desc(a, f32, a_strides.empty() ? DenseStrides(a) : memory::dims(a_strides));
    impl->b_md = memory::desc(b, f32, b_strides.empty() ? DenseStrides(b) : memory::dims(b_strides));
    impl->c_md = memory::desc(c, f32, DenseStrides(c));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (alpha != 1.f) attr.set_output_scales(0, {alpha});
    dnnl::matmul::desc desc(impl->a_md, impl->b_md, impl->c_md);
    dnnl::matmul::primitive_desc pd(desc, attr, Engine());
    impl->impl = pd.impl_info_str();
    if (impl->impl.find("ref") != std::string::npos) {
      return Unsupported("oneDNN matmul: only a reference implementation (", impl->impl, ")");
    }
    impl->scratch_md = pd.scratchpad_desc();
    impl->prim = dnnl::matmul(pd);
    NoteKernelIsa(Tier());
    return std::shared_ptr<const MatMul>(new MatMul(std::move(impl)));
  } catch (const dnnl::error& e) {
    return Unsupported("oneDNN matmul: ", e.what());
  }
}

Status MatMul::Run(const float* a, const float* b, float* c) const {
  const Impl& p = *impl_;
  try {
    const dnnl::engine& eng = Engine();
    dnnl::stream& s = ThreadStream();
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(p.a_md, eng, const_cast<float*>(a))},
                                         {DNNL_ARG_WEIGHTS, memory(p.b_md, eng, const_cast<float*>(b))},
                                         {DNNL_ARG_DST, memory(p.c_md, eng, c)}};
    if (p.scratch_md.get_size() != 0) {
      args.emplace(DNNL_ARG_SCRATCHPAD,
                   memory(p.scratch_md, eng, ThreadScratch(ScratchSlot::kOnednnPad, p.scratch_md.get_size())));
    }
    p.prim.execute(s, args);
    s.wait();
    return Status::Ok();
  } catch (const dnnl::error& e) {
    return Internal("oneDNN matmul execute: ", e.what());
  }
}

}  // namespace qrt::onednn
