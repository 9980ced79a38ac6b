#include "ops/onednn/onednn_util.h"

#include <oneapi/dnnl/dnnl.hpp>

#include "runtime/cpu_features.h"

namespace qrt::onednn {
namespace {

// QRT_MAX_ISA caps oneDNN's own dispatch too; it must be set before oneDNN's first primitive
// (the C call: a refusal is a status, not an exception).
dnnl::engine MakeEngine() {
  switch (IsaCeilingFromEnvironment()) {
    case IsaCeiling::kScalar:
      dnnl_set_max_cpu_isa(dnnl_cpu_isa_sse41);
      break;
    case IsaCeiling::kAvx2:
      dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2);
      break;
    case IsaCeiling::kAvx512:
      break;
  }
  return dnnl::engine(dnnl::engine::kind::cpu, 0);
}

}  // namespace

const dnnl::engine& Engine() {
  static const dnnl::engine kEngine = MakeEngine();
  return kEngine;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(Engine());
  return stream;
}

}  // namespace qrt::onednn
