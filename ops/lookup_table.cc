// qrt LookupTable: y[i] = table[byte(x[i])] for 8-bit x and a 256-entry 8-bit table
// (indexed by x's byte pattern, so int8 -1 reads entry 255). Made by fuse-qdq-unary.
#include "ops/kernels/eltwise/lookup_table.h"

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct LookupTableState {
  LookupTableFn kernel = nullptr;
};

Status RunLookupTable(const LookupTableState& s, const RunArgs& args) {
  s.kernel(args.input(0)->numel(), static_cast<const uint8_t*>(args.input(0)->raw()),
           static_cast<const uint8_t*>(args.input(1)->raw()), static_cast<uint8_t*>(args.output(0)->raw()));
  return Status::Ok();
}

Status PrepareLookupTable(PrepareContext& ctx) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kUInt8, DataType::kInt8}));
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kUInt8, DataType::kInt8}));
  if (ctx.input(1).dims != Dims{256}) {
    return InvalidArgument("table must have shape [256], got ", DimsToString(ctx.input(1).dims));
  }
  ctx.SetOutput(0, ctx.input(1).dtype, ctx.input(0).dims);
  ctx.SetKernel<LookupTableState, RunLookupTable>(LookupTableState{SelectLookupTable(ctx.isa())});
  return Status::Ok();
}

}  // namespace

const OpDef kLookupTableOp{"qrt", "LookupTable", 2, 2, 1, 1, PrepareLookupTable};

}  // namespace qrt
