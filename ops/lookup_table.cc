// qrt LookupTable: y[i] = table[byte(x[i])] for 8-bit x and a 256-entry 8-bit table
// (indexed by x's byte pattern, so int8 -1 reads entry 255), or one such table per channel of
// one axis. Made by fuse-qdq-unary.
#include "ops/lookup_table.h"

#include "ops/kernels/eltwise/lookup_table.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct LookupTableState {
  LookupTableFn kernel = nullptr;
  // x as [outer, channels, inner]: one table per channel (channels == 1: one for all).
  int64_t outer = 1, channels = 1, inner = 0;
};

Status RunLookupTable(const LookupTableState& s, const RunArgs& args) {
  const auto* x = static_cast<const uint8_t*>(args.input(lut::kX)->raw());
  const auto* table = static_cast<const uint8_t*>(args.input(lut::kTable)->raw());
  auto* y = static_cast<uint8_t*>(args.output(0)->raw());
  if (s.channels == 1) {
    s.kernel(args.input(lut::kX)->numel(), x, table, y);
    return Status::Ok();
  }
  for (int64_t o = 0, i = 0; o < s.outer; ++o) {
    for (int64_t c = 0; c < s.channels; ++c, i += s.inner) s.kernel(s.inner, x + i, table + 256 * c, y + i);
  }
  return Status::Ok();
}

Status PrepareLookupTable(PrepareContext& ctx) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, lut::kX, {DataType::kUInt8, DataType::kInt8}));
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, lut::kTable, {DataType::kUInt8, DataType::kInt8}));
  const Dims& x = ctx.input(lut::kX).dims;
  const Dims& table = ctx.input(lut::kTable).dims;
  LookupTableState s;
  s.kernel = SelectLookupTable(ctx.isa());
  if (table != Dims{256}) {
    if (table.size() != 2 || table[1] != 256) {
      return InvalidArgument("table must have shape [256] or [C, 256], got ", DimsToString(table));
    }
    QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis"));
    QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, int64_t(x.size())));
    if (x[size_t(axis)] != table[0]) {
      return InvalidArgument("table has ", table[0], " rows for axis ", axis, " of size ", x[size_t(axis)]);
    }
    s.channels = table[0];
    for (int64_t d = 0; d < axis; ++d) s.outer *= x[size_t(d)];
    s.inner = 1;
    for (size_t d = size_t(axis) + 1; d < x.size(); ++d) s.inner *= x[d];
  }
  ctx.SetOutput(0, ctx.input(lut::kTable).dtype, x);
  ctx.SetKernel<LookupTableState, RunLookupTable>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kLookupTableOp{"qrt", "LookupTable", lut::kInputCount, lut::kInputCount, 1, 1, PrepareLookupTable};

}  // namespace qrt
