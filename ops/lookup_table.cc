// qrt LookupTable: y[i] = table[byte(x[i])] for 8-bit x and a 256-entry 8-bit table
// (indexed by x's byte pattern, so int8 -1 reads entry 255). Made by fuse-qdq-unary.
#include "ops/lookup_table.h"

#include "ops/kernels/eltwise/lookup_table.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct LookupTableState {
  LookupTableFn kernel = nullptr;
};

Status RunLookupTable(const LookupTableState& s, const RunArgs& args) {
  s.kernel(args.input(lut::kX)->numel(), static_cast<const uint8_t*>(args.input(lut::kX)->raw()),
           static_cast<const uint8_t*>(args.input(lut::kTable)->raw()), static_cast<uint8_t*>(args.output(0)->raw()));
  return Status::Ok();
}

Status PrepareLookupTable(PrepareContext& ctx) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, lut::kX, {DataType::kUInt8, DataType::kInt8}));
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, lut::kTable, {DataType::kUInt8, DataType::kInt8}));
  if (ctx.input(lut::kTable).dims != Dims{256}) {
    return InvalidArgument("table must have shape [256], got ", DimsToString(ctx.input(lut::kTable).dims));
  }
  ctx.SetOutput(0, ctx.input(lut::kTable).dtype, ctx.input(lut::kX).dims);
  ctx.SetKernel<LookupTableState, RunLookupTable>(LookupTableState{SelectLookupTable(ctx.isa())});
  return Status::Ok();
}

}  // namespace

const OpDef kLookupTableOp{"qrt", "LookupTable", lut::kInputCount, lut::kInputCount, 1, 1, PrepareLookupTable};

}  // namespace qrt
