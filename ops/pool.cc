// MaxPool, AveragePool, LpPool and their Global forms over [N, C, spatial...].
// Prepare lists, for every output position of one channel plane, the offsets of the
// input positions its window covers (padding excluded), so the kernel is two plain loops.
//   MaxPool:     the largest covered element (the first one in row-major window order on
//                ties, which decides the Indices output); no covered element gives the
//                type's lowest value.
//   AveragePool: a float sum of the covered elements divided by a float count: the covered
//                elements (count_include_pad = 0) or the window's taps inside the padded
//                input (= 1). Below opset 19 in one of the three summation orders of ONNX
//                Runtime's MLAS pooling, chosen from the geometry as MLAS chooses
//                (ops/kernels/pool/average_pool.h); AveragePool-19 (ORT's own kernel) and float64
//                (in double) sum row-major.
//   LpPool:      (sum of |x|^p)^(1/p) over the covered elements, row-major, as ORT computes
//                it: each |x|^p in double (p is an integer; opset 1's float p: in float)
//                rounded to float and added in float from 0, then powf(sum, 1.0f / p).
// MaxPool on float32 or 8-bit codes in 2-D with output rows at least 4 wide, without Indices, where every window covers
// an input element and the padded plane is about the input's size, runs rows of a -inf padded plane through the MaxRows
// kernels (ops/kernels/pool/max_rows.h) under the SIMD ISA. Same bits: a -inf pad never replaces a value, and the first
// covered tap replaces a leading pad (or equals it, if it is -inf itself). Output length per axis: floor or ceil((in +
// pads - ((k-1)*dilation + 1)) / stride) + 1; with ceil_mode a window that would start inside the end padding is
// dropped.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/pool/average_pool.h"
#include "ops/kernels/pool/max_rows.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class PoolKind { kMax, kAverage, kLp };
enum class AverageOrder { kRowMajor, kColumnsFirst, kGlobal };

struct PoolState {
  PoolKind kind;
  DataType dtype;
  int64_t planes = 0;               // N * C
  int64_t in_plane = 0;             // elements per input plane
  int64_t out_plane = 0;            // elements per output plane
  std::vector<int64_t> tap_start;   // [out_plane + 1]: window of output p is taps[tap_start[p] .. tap_start[p+1])
  std::vector<int64_t> taps;        // input offsets within a plane
  std::vector<int64_t> index_taps;  // MaxPool Indices: the offsets in the requested storage order
  std::vector<double> divisor;      // AveragePool: per output position
  AverageOrder order = AverageOrder::kRowMajor;
  double p = 2;                  // LpPool
  bool integer_p = true;         // LpPool-2 and later
  AveragePoolGeometry geometry;  // kColumnsFirst
  // The MaxRows path (see the top), float32 or 8-bit codes; both null: the tap lists above.
  MaxRowsFn max_rows = nullptr;
  MaxRowsBytesFn max_rows_bytes = nullptr;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0, kh = 0, kw = 0, dh = 1, dw = 1, sh = 1, sw = 1;
  int64_t top = 0, left = 0, padded_h = 0, padded_w = 0;
};

// Short rows at column stride 1 (YOLO's SPPF: 5 x 5 windows on 7 x 7 planes), where a call per
// row would cost more than its few vectors: a group of padded planes side by side in one flat
// buffer, and the two passes of the separable reduction each as one MaxRows call over the whole
// buffer, as if it were one long row. Output (oh, ow) of plane g sits at g * plane + oh * sh *
// padded_w + ow of the second pass, and reads the same taps in the same order as in the row
// path; the positions between (across row ends) are computed and never read. A tap of a valid
// output never leaves its plane (padded_w and padded_h hold every window), so each pass runs
// over the buffer less its taps' reach, and every read stays inside it.
constexpr int64_t kFlatRowsBelow = 32;  // output rows shorter than the AVX2 kernel's 4-vector tile

template <class T, class Kernel>
void MaxFlatPlanes(const PoolState& s, const T* x, T* y, T pad, const Kernel& max_rows) {
  constexpr int64_t kGroupElements = 8192;  // a group's buffers stay in L1/L2
  const int64_t pw = s.padded_w, plane_size = s.padded_h * pw;
  const int64_t group = std::max<int64_t>(1, kGroupElements / plane_size);
  thread_local std::vector<T> planes, across, down;
  thread_local std::vector<const T*> rows;
  // 32 more elements: the byte kernel reads up to 31 past its n.
  planes.assign(size_t(group * plane_size + 32), pad);  // filled once: the copies keep the padding
  across.assign(size_t(group * plane_size + 32), pad);
  down.assign(size_t(group * plane_size + 32), pad);
  rows.resize(size_t(std::max(s.kh, s.kw)));
  for (int64_t c0 = 0; c0 < s.planes; c0 += group) {
    const int64_t g_end = std::min(group, s.planes - c0);
    for (int64_t g = 0; g < g_end; ++g) {
      const T* xp = x + (c0 + g) * s.in_plane;
      T* to = planes.data() + g * plane_size + s.top * pw + s.left;
      for (int64_t ih = 0; ih < s.in_h; ++ih) std::copy(xp + ih * s.in_w, xp + (ih + 1) * s.in_w, to + ih * pw);
    }
    const int64_t total = g_end * plane_size;
    const T* row_maxima = planes.data();
    int64_t n = total - (s.kw - 1) * s.dw;
    if (s.kw > 1) {
      for (int64_t j = 0; j < s.kw; ++j) rows[size_t(j)] = planes.data() + j * s.dw;
      max_rows(s.kw, rows.data(), n, across.data());
      row_maxima = across.data();
    }
    const T* maxima = row_maxima;
    if (s.kh > 1) {
      for (int64_t i = 0; i < s.kh; ++i) rows[size_t(i)] = row_maxima + i * s.dh * pw;
      n -= (s.kh - 1) * s.dh * pw;
      max_rows(s.kh, rows.data(), n, down.data());
      maxima = down.data();
    }
    for (int64_t g = 0; g < g_end; ++g) {
      T* yc = y + (c0 + g) * s.out_plane;
      for (int64_t oh = 0; oh < s.out_h; ++oh) {
        const T* from = maxima + g * plane_size + oh * s.sh * pw;
        std::copy(from, from + s.out_w, yc + oh * s.out_w);
      }
    }
  }
}

// Each plane copied into a padded plane (-inf for floats, the type's lowest code for 8-bit
// codes: a pad never replaces a value), then one MaxRows call per output row with the window's
// taps in row-major order. With a column stride sw > 1 each padded row is kept as sw phase rows
// (columns r, r + sw, ...), so a tap's row of outputs is contiguous in one phase: output column
// o, tap column c reads padded column o * sw + c = phase c % sw, index o + c / sw.
template <class T, class Kernel>
void MaxRowsPlanes(const PoolState& s, const T* x, T* y, T pad, const Kernel& max_rows) {
  if (s.sw == 1 && s.out_w < kFlatRowsBelow) return MaxFlatPlanes(s, x, y, pad, max_rows);
  thread_local std::vector<T> plane;
  thread_local std::vector<const T*> rows;
  const int64_t sw = s.sw, phase_w = (s.padded_w + sw - 1) / sw, row_stride = sw * phase_w;
  // Filled once: each plane's copy writes the same positions, so the padding stays. 32 more
  // elements: the byte kernel reads past a short row.
  plane.assign(size_t(s.padded_h * row_stride + 32), pad);
  rows.resize(size_t(s.kh * s.kw));
  // MaxPool's rule gives the first of the window's largest (or NaN) elements in row-major order,
  // and so does taking each row's first largest, then the first largest of those rows: the
  // window's rows can be reduced apart (kw taps per padded row, then kh per output row), which
  // is fewer taps wherever windows overlap (YOLO's SPP: 13 x 13 at stride 1, 169 -> 26 a row).
  const int64_t used_rows = (s.out_h - 1) * s.sh + (s.kh - 1) * s.dh + 1;
  const bool separable = s.kh > 1 && s.kw > 1 && used_rows * s.kw + s.out_h * s.kh < s.out_h * s.kh * s.kw;
  thread_local std::vector<T> row_maxima;
  if (separable) row_maxima.assign(size_t(used_rows * s.out_w + 32), pad);  // 32: the byte kernel reads past a row
  for (int64_t c = 0; c < s.planes; ++c) {
    const T* xp = x + c * s.in_plane;
    for (int64_t ih = 0; ih < s.in_h; ++ih) {
      const T* src = xp + ih * s.in_w;
      T* dst = plane.data() + (ih + s.top) * row_stride;
      if (sw == 1) {
        std::copy(src, src + s.in_w, dst + s.left);
      } else {
        for (int64_t r = 0; r < sw; ++r) {  // phase r: padded columns r, r + sw, ...
          const int64_t first_col = s.left + (r - s.left % sw + sw) % sw;
          T* out = dst + r * phase_w + first_col / sw;
          for (int64_t iw = first_col - s.left; iw < s.in_w; iw += sw) *out++ = src[iw];
        }
      }
    }
    T* yc = y + c * s.out_plane;
    // A tap's place in the padded plane's row `row`: tap column j.
    auto tap = [&](const T* row, int64_t j) {
      const int64_t col = j * s.dw;
      return row + (col % sw) * phase_w + col / sw;
    };
    if (separable) {  // each padded row's window maxima once, then the rows' maxima
      for (int64_t r = 0; r < used_rows; ++r) {
        const T* row = plane.data() + r * row_stride;
        for (int64_t j = 0; j < s.kw; ++j) rows[size_t(j)] = tap(row, j);
        max_rows(s.kw, rows.data(), s.out_w, row_maxima.data() + r * s.out_w);
      }
      for (int64_t oh = 0; oh < s.out_h; ++oh) {
        for (int64_t i = 0; i < s.kh; ++i) rows[size_t(i)] = row_maxima.data() + (oh * s.sh + i * s.dh) * s.out_w;
        max_rows(s.kh, rows.data(), s.out_w, yc + oh * s.out_w);
      }
      continue;
    }
    for (int64_t oh = 0; oh < s.out_h; ++oh) {
      size_t t = 0;
      for (int64_t i = 0; i < s.kh; ++i) {
        const T* row = plane.data() + (oh * s.sh + i * s.dh) * row_stride;
        for (int64_t j = 0; j < s.kw; ++j) rows[t++] = tap(row, j);
      }
      max_rows(s.kh * s.kw, rows.data(), s.out_w, yc + oh * s.out_w);
    }
  }
}

// The tap lists, MaxPool's rule as selects: the first tap starts; a later one replaces the
// current when greater, or when it is NaN and the current is not (integers have no NaN).
template <class T>
void MaxPlanes(const PoolState& s, const T* x, T* y, int64_t* indices) {
  for (int64_t c = 0; c < s.planes; ++c) {
    const T* xp = x + c * s.in_plane;
    for (int64_t p = 0; p < s.out_plane; ++p) {
      const int64_t first = s.tap_start[size_t(p)], end = s.tap_start[size_t(p) + 1];
      T best = std::numeric_limits<T>::lowest();
      int64_t best_tap = -1;
      if (first < end) {
        best = xp[s.taps[size_t(first)]];
        best_tap = first;
      }
      if (indices == nullptr) {
        for (int64_t t = first + 1; t < end; ++t) {
          const T v = xp[s.taps[size_t(t)]];
          if constexpr (std::is_floating_point_v<T>) {
            best = v > best || (v != v && best == best) ? v : best;
          } else {
            best = v > best ? v : best;
          }
        }
      } else {
        for (int64_t t = first + 1; t < end; ++t) {
          const T v = xp[s.taps[size_t(t)]];
          if (v > best || (v != v && best == best)) {
            best = v;
            best_tap = t;
          }
        }
      }
      y[c * s.out_plane + p] = best;
      if (indices) indices[c * s.out_plane + p] = best_tap < 0 ? -1 : c * s.in_plane + s.index_taps[size_t(best_tap)];
    }
  }
}

// The row-major order: from 0, in the tap lists' order, one division by the count.
template <class T>
void AverageRowMajor(const PoolState& s, const T* x, T* y) {
  for (int64_t c = 0; c < s.planes; ++c) {
    const T* xp = x + c * s.in_plane;
    for (int64_t p = 0; p < s.out_plane; ++p) {
      T sum = 0;
      for (int64_t t = s.tap_start[size_t(p)]; t < s.tap_start[size_t(p) + 1]; ++t) sum += xp[s.taps[size_t(t)]];
      y[c * s.out_plane + p] = sum / T(s.divisor[size_t(p)]);
    }
  }
}

template <class T>
void LpRowMajor(const PoolState& s, const T* x, T* y) {
  for (int64_t c = 0; c < s.planes; ++c) {
    const T* xp = x + c * s.in_plane;
    for (int64_t o = 0; o < s.out_plane; ++o) {
      T sum = 0;
      for (int64_t t = s.tap_start[size_t(o)]; t < s.tap_start[size_t(o) + 1]; ++t) {
        const T v = std::abs(xp[s.taps[size_t(t)]]);
        sum += s.integer_p ? T(std::pow(double(v), s.p)) : std::pow(v, T(s.p));
      }
      y[c * s.out_plane + o] = std::pow(sum, T(1) / T(s.p));
    }
  }
}

Status RunPool(const PoolState& s, const RunArgs& args) {
  const void* x = args.input(0)->raw();
  void* y = args.output(0)->raw();
  if (s.kind == PoolKind::kMax) {
    int64_t* indices = args.num_outputs > 1 && args.output(1) ? args.output(1)->data<int64_t>() : nullptr;
    if (s.max_rows != nullptr) {
      MaxRowsPlanes(s, static_cast<const float*>(x), static_cast<float*>(y), -std::numeric_limits<float>::infinity(),
                    s.max_rows);
      return Status::Ok();
    }
    if (s.max_rows_bytes != nullptr) {
      const bool is_signed = s.dtype == DataType::kInt8;
      MaxRowsPlanes(s, static_cast<const uint8_t*>(x), static_cast<uint8_t*>(y), uint8_t(is_signed ? 0x80 : 0),
                    [&](int64_t k, const uint8_t* const* rows, int64_t n, uint8_t* out) {
                      s.max_rows_bytes(k, rows, n, is_signed, out);
                    });
      return Status::Ok();
    }
    switch (s.dtype) {
      case DataType::kFloat32:
        MaxPlanes(s, static_cast<const float*>(x), static_cast<float*>(y), indices);
        break;
      case DataType::kFloat64:
        MaxPlanes(s, static_cast<const double*>(x), static_cast<double*>(y), indices);
        break;
      case DataType::kInt8:
        MaxPlanes(s, static_cast<const int8_t*>(x), static_cast<int8_t*>(y), indices);
        break;
      case DataType::kUInt8:
        MaxPlanes(s, static_cast<const uint8_t*>(x), static_cast<uint8_t*>(y), indices);
        break;
      default:
        break;
    }
    return Status::Ok();
  }
  if (s.dtype == DataType::kFloat64) {
    if (s.kind == PoolKind::kLp) {
      LpRowMajor(s, static_cast<const double*>(x), static_cast<double*>(y));
    } else {
      AverageRowMajor(s, static_cast<const double*>(x), static_cast<double*>(y));
    }
    return Status::Ok();
  }
  // float16 and bfloat16 widen to float first and narrow once at the end.
  const bool wide = s.dtype == DataType::kFloat32;
  const float* xf = static_cast<const float*>(x);
  float* yf = static_cast<float*>(y);
  if (!wide) {
    float* in = ThreadScratchFloats(ScratchSlot::kOp1, size_t(s.planes * s.in_plane));
    for (int64_t i = 0; i < s.planes * s.in_plane; ++i) in[i] = LoadFloat(s.dtype, x, i);
    xf = in;
    yf = ThreadScratchFloats(ScratchSlot::kOp2, size_t(s.planes * s.out_plane));
  }
  if (s.kind == PoolKind::kLp) {
    LpRowMajor(s, xf, yf);
  } else {
    switch (s.order) {
      case AverageOrder::kColumnsFirst:
        AveragePoolColumnsFirst(s.geometry, s.planes, xf, yf);
        break;
      case AverageOrder::kGlobal:
        AveragePoolGlobal(s.planes, s.in_plane, xf, yf);
        break;
      case AverageOrder::kRowMajor:
        AverageRowMajor(s, xf, yf);
        break;
    }
  }
  if (!wide) {
    for (int64_t i = 0; i < s.planes * s.out_plane; ++i) StoreFloat(s.dtype, y, i, yf[i]);
  }
  return Status::Ok();
}

struct AxisWindows {
  int64_t out = 0;
  std::vector<int64_t> index;    // [o * k + t]: input index, or -1 outside the input
  std::vector<int64_t> counted;  // [o]: taps counted by the divisor
};

// Shared by the four ops: window geometry from attributes, then the tap lists.
Status PreparePool(PrepareContext& ctx, PoolKind kind, bool global) {
  const TensorInfo& x = ctx.input(0);
  const int64_t rank = int64_t(x.dims.size());
  if (kind == PoolKind::kMax) {
    QRT_RETURN_IF_ERROR(
        ExpectDType(ctx, 0, {DataType::kFloat32, DataType::kFloat64, DataType::kInt8, DataType::kUInt8}));
  } else {
    QRT_RETURN_IF_ERROR(
        ExpectDType(ctx, 0, {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16}));
  }
  if (rank < (global ? 2 : 3)) return InvalidArgument("pooling input must have rank >= ", global ? 2 : 3);
  const size_t sr = size_t(rank - 2);
  const Dims in(x.dims.begin() + 2, x.dims.end());
  std::vector<int64_t> kernel(sr), strides(sr, 1), dilations(sr, 1), pads(2 * sr, 0);
  bool ceil_mode = false, include_pad = false, col_major = false;
  std::string auto_pad = "NOTSET";
  if (global) {
    kernel = in;
  } else {
    QRT_ASSIGN_OR_RETURN(kernel, ctx.attrs().GetInts("kernel_shape"));
    if (kernel.size() != sr) {
      return InvalidArgument("kernel_shape has ", kernel.size(), " entries for ", sr, " spatial axes");
    }
    QRT_ASSIGN_OR_RETURN(strides, ctx.attrs().GetInts("strides", std::vector<int64_t>(sr, 1)));
    QRT_ASSIGN_OR_RETURN(pads, ctx.attrs().GetInts("pads", std::vector<int64_t>(2 * sr, 0)));
    if (kind == PoolKind::kMax || (kind == PoolKind::kAverage && ctx.opset() >= 19) ||
        (kind == PoolKind::kLp && ctx.opset() >= 18)) {
      QRT_ASSIGN_OR_RETURN(dilations, ctx.attrs().GetInts("dilations", std::vector<int64_t>(sr, 1)));
    }
    QRT_ASSIGN_OR_RETURN(int64_t cm, ctx.attrs().GetInt("ceil_mode", 0));
    QRT_ASSIGN_OR_RETURN(auto_pad, ctx.attrs().GetString("auto_pad", std::string("NOTSET")));
    ceil_mode = cm != 0;
    if (kind == PoolKind::kAverage) {
      QRT_ASSIGN_OR_RETURN(int64_t cip, ctx.attrs().GetInt("count_include_pad", 0));
      include_pad = cip != 0;
    } else if (kind == PoolKind::kMax) {
      QRT_ASSIGN_OR_RETURN(int64_t so, ctx.attrs().GetInt("storage_order", 0));
      col_major = so != 0;
    }
    if (strides.size() != sr || dilations.size() != sr || pads.size() != 2 * sr) {
      return InvalidArgument("strides, dilations and pads must have ", sr, ", ", sr, " and ", 2 * sr, " entries");
    }
  }
  const bool dilated = std::any_of(dilations.begin(), dilations.end(), [](int64_t d) { return d != 1; });
  constexpr int64_t kLimit = int64_t(1) << 24;    // keeps (k-1)*dilation and o*stride in range
  constexpr int64_t kMaxTaps = int64_t(1) << 27;  // entries of the window tables prepare builds
  std::vector<AxisWindows> axes(sr);
  std::vector<int64_t> pad_begin(sr, 0);
  std::vector<int64_t> pad_end(sr, 0);
  Dims out_dims = {x.dims[0], x.dims[1]};
  for (size_t a = 0; a < sr; ++a) {
    const int64_t n = in[a], k = kernel[a], st = strides[a], dl = dilations[a];
    int64_t pb = pads[a], pe = pads[a + sr];
    if (k < 1 || k > kLimit || st < 1 || st > kLimit || dl < 1 || dl > kLimit || pb < 0 || pe < 0 || pb > kLimit ||
        pe > kLimit) {
      return InvalidArgument("invalid pooling geometry on spatial axis ", a, ": kernel ", k, ", stride ", st,
                             ", dilation ", dl, ", pads ", pb, "/", pe);
    }
    const int64_t span = (k - 1) * dl + 1;
    int64_t out;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (n + st - 1) / st;
      const int64_t total = std::max<int64_t>(0, (out - 1) * st + span - n);
      pb = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else if (auto_pad == "VALID") {
      pb = pe = 0;
      if (n < span) return InvalidArgument("window of ", span, " exceeds spatial axis ", a, " of length ", n);
      out = (n - span) / st + 1;
    } else if (auto_pad == "NOTSET") {
      const int64_t room = n + pb + pe - span;
      if (room < 0) {
        return InvalidArgument("window of ", span, " exceeds padded spatial axis ", a, " of length ", n + pb + pe);
      }
      out = (ceil_mode ? (room + st - 1) / st : room / st) + 1;
      if (ceil_mode && (out - 1) * st >= n + pb) --out;
    } else {
      return InvalidArgument("unknown auto_pad '", auto_pad, "'");
    }
    // The per-axis table below has out * k entries: bound it before filling it (the
    // limits above still allow 2^24 pads times a 2^24 kernel on a 1-element axis).
    if (out > kMaxTaps / k) {
      return ResourceExhausted("pooling window table of ", out, " x ", k, " entries on spatial axis ", a,
                               " is too large");
    }
    AxisWindows& w = axes[a];
    w.out = out;
    pad_begin[a] = pb;
    pad_end[a] = pe;
    for (int64_t o = 0; o < out; ++o) {
      int64_t counted = 0;
      for (int64_t t = 0; t < k; ++t) {
        const int64_t i = o * st - pb + t * dl;
        const bool inside = i >= 0 && i < n;
        w.index.push_back(inside ? i : -1);
        if (include_pad ? (i >= -pb && i < n + pe) : inside) ++counted;
      }
      w.counted.push_back(counted);
    }
    out_dims.push_back(out);
  }

  PoolState s;
  s.kind = kind;
  if (kind == PoolKind::kLp) {
    s.integer_p = ctx.opset() >= 2;
    if (s.integer_p) {
      QRT_ASSIGN_OR_RETURN(int64_t p, ctx.attrs().GetInt("p", 2));
      s.p = double(p);
    } else {
      QRT_ASSIGN_OR_RETURN(float p, ctx.attrs().GetFloat("p", 2.f));
      s.p = p;
    }
    if (!(s.p >= 1) || s.p > 1e6) return InvalidArgument("LpPool p = ", s.p, " must be >= 1");
  }
  s.dtype = x.dtype;
  s.planes = x.dims[0] * x.dims[1];
  s.in_plane = ElementCount(in);
  s.out_plane = 1;
  int64_t window = 1;
  for (size_t a = 0; a < sr; ++a) {
    s.out_plane *= axes[a].out;
    QRT_ASSIGN_OR_RETURN(window, CheckedElementCount(Dims{window, kernel[a]}));
  }
  QRT_ASSIGN_OR_RETURN(int64_t total_taps, CheckedElementCount(Dims{s.out_plane, window}));
  if (total_taps > kMaxTaps) {
    return ResourceExhausted("pooling window table of ", total_taps, " entries is too large");
  }
  std::vector<int64_t> row_strides(sr, 1), col_strides(sr, 1);
  for (size_t a = sr; a-- > 1;) row_strides[a - 1] = row_strides[a] * in[a];
  for (size_t a = 1; a < sr; ++a) col_strides[a] = col_strides[a - 1] * in[a - 1];
  const bool want_indices = kind == PoolKind::kMax && ctx.has_output(1);
  // The MaxRows path (see the top) needs no tap lists. A window covers an input element when
  // every axis has a tap inside (MaxPool counts only those).
  bool every_window_covers = true;
  for (size_t a = 0; a < sr; ++a) {
    for (int64_t counted : axes[a].counted) every_window_covers &= counted > 0;
  }
  // Rows at least 4 wide (a global pool's single output is faster from its tap list).
  const bool rows_type = x.dtype == DataType::kFloat32 || x.dtype == DataType::kUInt8 || x.dtype == DataType::kInt8;
  if (kind == PoolKind::kMax && rows_type && sr == 2 && !want_indices && every_window_covers && !global &&
      axes[1].out >= 4 && CanUseAvx2(ctx.isa())) {
    s.in_h = in[0], s.in_w = in[1], s.out_h = axes[0].out, s.out_w = axes[1].out;
    s.kh = kernel[0], s.kw = kernel[1], s.dh = dilations[0], s.dw = dilations[1], s.sh = strides[0];
    s.sw = strides[1];
    s.top = pad_begin[0], s.left = pad_begin[1];
    s.padded_h = std::max(s.top + s.in_h, (s.out_h - 1) * s.sh + (s.kh - 1) * s.dh + 1);
    s.padded_w = std::max(s.left + s.in_w, (s.out_w - 1) * s.sw + (s.kw - 1) * s.dw + 1);
    // Only where the padded plane is about the size of the input (absurd pads keep the lists).
    if (double(s.padded_h) * double(s.padded_w) <= 4.0 * double(s.in_plane) + 4096) {
      if (x.dtype == DataType::kFloat32)
        s.max_rows = SelectMaxRows(ctx.isa());
      else
        s.max_rows_bytes = SelectMaxRowsBytes(ctx.isa());
    }
  }
  // ORT's AveragePool-19 kernel sums in row-major order; the earlier versions use MLAS.
  if (kind == PoolKind::kAverage && x.dtype != DataType::kFloat64 && !dilated && (global || ctx.opset() < 19)) {
    bool whole_plane = sr <= 3;
    for (size_t a = 0; a < sr; ++a) {
      whole_plane &= kernel[a] == in[a] && strides[a] == 1 && pad_begin[a] == 0 && axes[a].out == 1;
    }
    AveragePoolGeometry& g = s.geometry;
    g.rank = int(sr);
    g.include_pad = include_pad;
    for (size_t a = 0; a < sr && a < 3; ++a) {
      g.in[a] = in[a], g.out[a] = axes[a].out, g.kernel[a] = kernel[a], g.stride[a] = strides[a];
      g.pad_begin[a] = pad_begin[a];
      g.pad_end[a] = pad_end[a];
    }
    if (global || whole_plane) {
      s.order = AverageOrder::kGlobal;
    } else if (AveragePoolColumnsFirstApplies(g)) {
      s.order = AverageOrder::kColumnsFirst;
    }
  }
  if (s.max_rows == nullptr && s.max_rows_bytes == nullptr && s.order == AverageOrder::kRowMajor) {
    // Enumerate output positions and window taps in row-major order.
    std::vector<int64_t> o(sr, 0), t(sr, 0);
    s.tap_start.push_back(0);
    for (int64_t p = 0; p < s.out_plane; ++p) {
      int64_t counted = 1;
      for (size_t a = 0; a < sr; ++a) counted *= axes[a].counted[size_t(o[a])];
      std::fill(t.begin(), t.end(), 0);
      for (int64_t j = 0; j < window; ++j) {
        int64_t off = 0, ioff = 0;
        bool inside = true;
        for (size_t a = 0; a < sr && inside; ++a) {
          const int64_t i = axes[a].index[size_t(o[a] * kernel[a] + t[a])];
          inside = i >= 0;
          off += i * row_strides[a];
          ioff += i * col_strides[a];
        }
        if (inside) {
          s.taps.push_back(off);
          if (want_indices) s.index_taps.push_back(col_major ? ioff : off);
        }
        for (size_t a = sr; a-- > 0;) {
          if (++t[a] < kernel[a]) break;
          t[a] = 0;
        }
      }
      s.tap_start.push_back(int64_t(s.taps.size()));
      s.divisor.push_back(double(counted));
      for (size_t a = sr; a-- > 0;) {
        if (++o[a] < axes[a].out) break;
        o[a] = 0;
      }
    }
  }
  if (kind == PoolKind::kMax) s.divisor.clear();
  ctx.SetOutput(0, x.dtype, out_dims);
  if (want_indices) ctx.SetOutput(1, DataType::kInt64, out_dims);
  ctx.SetKernel<PoolState, RunPool>(std::move(s));
  return Status::Ok();
}

Status PrepareMaxPool(PrepareContext& ctx) { return PreparePool(ctx, PoolKind::kMax, false); }
Status PrepareAveragePool(PrepareContext& ctx) { return PreparePool(ctx, PoolKind::kAverage, false); }
Status PrepareGlobalMaxPool(PrepareContext& ctx) { return PreparePool(ctx, PoolKind::kMax, true); }
Status PrepareGlobalAveragePool(PrepareContext& ctx) { return PreparePool(ctx, PoolKind::kAverage, true); }
Status PrepareLpPool(PrepareContext& ctx) { return PreparePool(ctx, PoolKind::kLp, false); }
Status PrepareGlobalLpPool(PrepareContext& ctx) { return PreparePool(ctx, PoolKind::kLp, true); }

}  // namespace

const OpDef kMaxPoolOp{"", "MaxPool", 1, 1, 1, 2, PrepareMaxPool};
const OpDef kAveragePoolOp{"", "AveragePool", 1, 1, 1, 1, PrepareAveragePool};
const OpDef kGlobalMaxPoolOp{"", "GlobalMaxPool", 1, 1, 1, 1, PrepareGlobalMaxPool};
const OpDef kGlobalAveragePoolOp{"", "GlobalAveragePool", 1, 1, 1, 1, PrepareGlobalAveragePool};
const OpDef kLpPoolOp{"", "LpPool", 1, 1, 1, 1, PrepareLpPool};
const OpDef kGlobalLpPoolOp{"", "GlobalLpPool", 1, 1, 1, 1, PrepareGlobalLpPool};

}  // namespace qrt
