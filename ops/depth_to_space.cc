// DepthToSpace (DCR or CRD order) and SpaceToDepth on [N, C, H, W]: permutations of
// blocksize x blocksize channel groups and pixels, pure data movement, every dtype.
#include <cstring>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct BlockState {
  bool to_space;
  bool crd = false;
  size_t elem_size;
  int64_t n, c, h, w, b;  // the input's dims and the block size
};

// Copies between the [N, C, H, W] image and its blocked view element by element.
Status RunBlocks(const BlockState& s, const RunArgs& args) {
  const char* x = static_cast<const char*>(args.input(0)->raw());
  char* y = static_cast<char*>(args.output(0)->raw());
  const size_t size = s.elem_size;
  if (s.to_space) {
    const int64_t oc = s.c / (s.b * s.b), oh = s.h * s.b, ow = s.w * s.b;
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t c = 0; c < oc; ++c)
        for (int64_t y0 = 0; y0 < oh; ++y0)
          for (int64_t x0 = 0; x0 < ow; ++x0) {
            const int64_t by = y0 % s.b, bx = x0 % s.b, iy = y0 / s.b, ix = x0 / s.b;
            const int64_t ic = s.crd ? (c * s.b + by) * s.b + bx : (by * s.b + bx) * oc + c;
            const int64_t from = ((n * s.c + ic) * s.h + iy) * s.w + ix;
            const int64_t to = ((n * oc + c) * oh + y0) * ow + x0;
            std::memcpy(y + size_t(to) * size, x + size_t(from) * size, size);
          }
  } else {
    const int64_t oc = s.c * s.b * s.b, oh = s.h / s.b, ow = s.w / s.b;
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t c = 0; c < oc; ++c)
        for (int64_t y0 = 0; y0 < oh; ++y0)
          for (int64_t x0 = 0; x0 < ow; ++x0) {
            const int64_t ic = c % s.c, blk = c / s.c, by = blk / s.b, bx = blk % s.b;
            const int64_t from = ((n * s.c + ic) * s.h + y0 * s.b + by) * s.w + x0 * s.b + bx;
            const int64_t to = ((n * oc + c) * oh + y0) * ow + x0;
            std::memcpy(y + size_t(to) * size, x + size_t(from) * size, size);
          }
  }
  return Status::Ok();
}

template <bool kToSpace>
Status PrepareBlocks(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.dims.size() != 4) return InvalidArgument("input must be 4-D [N, C, H, W], not ", DimsToString(x.dims));
  QRT_ASSIGN_OR_RETURN(int64_t b, ctx.attrs().GetInt("blocksize"));
  if (b < 1 || b > (1 << 16)) return InvalidArgument("blocksize ", b, " must be positive");
  BlockState s;
  s.to_space = kToSpace;
  s.elem_size = DataTypeSize(x.dtype);
  s.n = x.dims[0], s.c = x.dims[1], s.h = x.dims[2], s.w = x.dims[3], s.b = b;
  Dims out;
  if (kToSpace) {
    QRT_ASSIGN_OR_RETURN(std::string mode, ctx.attrs().GetString("mode", "DCR"));
    if (mode != "DCR" && mode != "CRD") return InvalidArgument("mode must be DCR or CRD, not \"", mode, "\"");
    s.crd = mode == "CRD";
    if (s.c % (b * b) != 0) return InvalidArgument("channels ", s.c, " are not a multiple of blocksize^2");
    out = {s.n, s.c / (b * b), s.h * b, s.w * b};
  } else {
    if (s.h % b != 0 || s.w % b != 0) return InvalidArgument("H and W must be multiples of blocksize ", b);
    out = {s.n, s.c * b * b, s.h / b, s.w / b};
  }
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, s.elem_size).status());
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<BlockState, RunBlocks>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kDepthToSpaceOp{"", "DepthToSpace", 1, 1, 1, 1, PrepareBlocks<true>};
const OpDef kSpaceToDepthOp{"", "SpaceToDepth", 1, 1, 1, 1, PrepareBlocks<false>};

}  // namespace qrt
