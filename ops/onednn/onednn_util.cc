#include "ops/onednn/onednn_util.h"

#include <oneapi/dnnl/dnnl.hpp>

namespace qrt::onednn {

const dnnl::engine& Engine() {
  static const dnnl::engine kEngine(dnnl::engine::kind::cpu, 0);
  return kEngine;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(Engine());
  return stream;
}

}  // namespace qrt::onednn
