// Scan (opsets 9..21): runs the `body` graph once per step of a sequence, threading N
// state values through the steps and slicing M scan inputs / stacking K scan outputs
// along their scan axes. Node inputs: N initial states, M scan inputs, then the body's
// captures (implicit inputs, see ImplicitInputNames). Node outputs: N final states,
// then K scan outputs.
//
// prepare compiles a copy of the body once, for the concrete slice shapes: captures
// known at plan time become body initializers (so the passes can fold and fuse them),
// the others extra body inputs fed from the node's implicit inputs. Every step then
// reuses that body plan, so the body's output shapes are fixed and checked once here.
//
// Scan-8 (a sequence_lens input and a batch axis) is a different op: PrepareScan8.
#include <cstring>
#include <mutex>

#include "ops/data_dependent.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/subgraph.h"
#include "runtime/model.h"
#include "runtime/session.h"

namespace qrt {
namespace {

// A scan input or output seen as [outer, seq, inner]: step t's slice is the
// `inner_bytes` at byte (o * seq + t) * inner_bytes, for each o < outer.
struct SeqLayout {
  int64_t outer = 1;
  size_t inner_bytes = 0;
  bool reverse = false;  // step t reads or writes position seq - 1 - t
};

// Working memory of one run: the body's session (its arena) and the views fed to it.
struct ScanScratch {
  explicit ScanScratch(std::shared_ptr<const CompiledModel> body) : session(std::move(body)) {}
  Session session;
  std::vector<Tensor> feeds;   // body inputs; views re-pointed at each step
  std::vector<Tensor> slices;  // per scan input: a copy of a strided slice (outer > 1)
  std::vector<Tensor> states;  // per state: storage when the state output is omitted
  std::vector<void*> state_data;
  std::vector<Tensor> results;
};

// The kernel state is shared by every session running the outer plan, possibly on
// several threads. The scratch kept here serves the run holding the mutex; a run that
// finds it taken makes its own (one body arena allocation) rather than wait.
struct ScanCache {
  std::mutex mutex;
  std::unique_ptr<ScanScratch> scratch;
};

struct ScanState {
  std::shared_ptr<const CompiledModel> body;
  int num_states = 0;
  int64_t seq_len = 0;
  std::vector<SeqLayout> scan_inputs;
  std::vector<SeqLayout> scan_outputs;
  std::vector<size_t> state_bytes;
  std::vector<bool> state_output_omitted;
  std::vector<int> capture_inputs;    // node input feeding each body input after the N + M declared ones
  std::vector<DataType> feed_dtypes;  // per body input
  std::vector<Dims> feed_dims;
  std::shared_ptr<ScanCache> cache;
};

StatusOr<std::unique_ptr<ScanScratch>> MakeScratch(const ScanState& s) {
  auto w = std::make_unique<ScanScratch>(s.body);
  for (size_t i = 0; i < s.feed_dims.size(); ++i) {
    w->feeds.push_back(Tensor::Borrow(s.feed_dtypes[i], s.feed_dims[i], nullptr));
  }
  w->slices.resize(s.scan_inputs.size());
  for (size_t j = 0; j < s.scan_inputs.size(); ++j) {
    if (s.scan_inputs[j].outer == 1) continue;  // a slice is contiguous: fed in place
    const size_t f = size_t(s.num_states) + j;
    QRT_ASSIGN_OR_RETURN(w->slices[j], Tensor::Allocate(s.feed_dtypes[f], s.feed_dims[f]));
    w->feeds[f].set_data(w->slices[j].raw());
  }
  w->states.resize(size_t(s.num_states));
  for (int i = 0; i < s.num_states; ++i) {
    if (!s.state_output_omitted[size_t(i)]) continue;
    QRT_ASSIGN_OR_RETURN(w->states[size_t(i)], Tensor::Allocate(s.feed_dtypes[size_t(i)], s.feed_dims[size_t(i)]));
  }
  w->state_data.resize(size_t(s.num_states));
  return w;
}

Status RunScanSteps(const ScanState& s, ScanScratch& w, const RunArgs& args) {
  const int n = s.num_states;
  const int m = int(s.scan_inputs.size());
  for (size_t c = 0; c < s.capture_inputs.size(); ++c) {
    w.feeds[size_t(n + m) + c].set_data(const_cast<void*>(args.input(s.capture_inputs[c])->raw()));
  }
  // The state outputs hold the state between steps; the body reads its inputs in place
  // and writes only its own arena, so a step may read and then overwrite them.
  for (int i = 0; i < n; ++i) {
    w.state_data[size_t(i)] = s.state_output_omitted[size_t(i)] ? w.states[size_t(i)].raw() : args.output(i)->raw();
  }
  for (int64_t t = 0; t < s.seq_len; ++t) {
    for (int i = 0; i < n; ++i) {
      w.feeds[size_t(i)].set_data(t == 0 ? const_cast<void*>(args.input(i)->raw()) : w.state_data[size_t(i)]);
    }
    for (int j = 0; j < m; ++j) {
      const SeqLayout& l = s.scan_inputs[size_t(j)];
      const int64_t pos = l.reverse ? s.seq_len - 1 - t : t;
      const char* x = static_cast<const char*>(args.input(n + j)->raw());
      if (l.outer == 1) {
        w.feeds[size_t(n + j)].set_data(const_cast<char*>(x) + size_t(pos) * l.inner_bytes);
        continue;
      }
      char* slice = static_cast<char*>(w.slices[size_t(j)].raw());
      for (int64_t o = 0; o < l.outer; ++o) {
        std::memcpy(slice + size_t(o) * l.inner_bytes, x + size_t(o * s.seq_len + pos) * l.inner_bytes, l.inner_bytes);
      }
    }
    Status st = w.session.Run(w.feeds, &w.results);
    if (!st.ok()) return st.WithContext(StrCat("Scan body, step ", t));
    for (int i = 0; i < n; ++i) {
      // A body that passes a state through returns the very buffer it was fed.
      if (w.results[size_t(i)].raw() != w.state_data[size_t(i)]) {
        std::memcpy(w.state_data[size_t(i)], w.results[size_t(i)].raw(), s.state_bytes[size_t(i)]);
      }
    }
    for (size_t j = 0; j < s.scan_outputs.size(); ++j) {
      Tensor* y = args.output(n + int(j));
      if (y == nullptr) continue;
      const SeqLayout& l = s.scan_outputs[j];
      const int64_t pos = l.reverse ? s.seq_len - 1 - t : t;
      const char* r = static_cast<const char*>(w.results[size_t(n) + j].raw());
      char* out = static_cast<char*>(y->raw());
      for (int64_t o = 0; o < l.outer; ++o) {
        std::memcpy(out + size_t(o * s.seq_len + pos) * l.inner_bytes, r + size_t(o) * l.inner_bytes, l.inner_bytes);
      }
    }
  }
  if (s.seq_len == 0) {
    for (int i = 0; i < n; ++i) {
      if (s.state_output_omitted[size_t(i)]) continue;
      std::memcpy(args.output(i)->raw(), args.input(i)->raw(), s.state_bytes[size_t(i)]);
    }
  }
  return Status::Ok();
}

Status RunScan(const ScanState& s, const RunArgs& args) {
  std::unique_lock<std::mutex> lock(s.cache->mutex, std::try_to_lock);
  if (lock.owns_lock()) {
    if (s.cache->scratch == nullptr) {
      QRT_ASSIGN_OR_RETURN(s.cache->scratch, MakeScratch(s));
    }
    return RunScanSteps(s, *s.cache->scratch, args);
  }
  QRT_ASSIGN_OR_RETURN(std::unique_ptr<ScanScratch> own, MakeScratch(s));
  return RunScanSteps(s, *own, args);
}

// An axes or directions attribute: `count` entries, zeros when absent.
StatusOr<std::vector<int64_t>> PerTensorAttr(const Attributes& attrs, const char* name, size_t count) {
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> v, attrs.GetInts(name, std::vector<int64_t>(count, 0)));
  if (v.size() != count) return InvalidArgument(name, " has ", v.size(), " entries, expected ", count);
  return v;
}

Status CheckDirections(const std::vector<int64_t>& dirs, const char* name) {
  for (size_t i = 0; i < dirs.size(); ++i) {
    if (dirs[i] != 0 && dirs[i] != 1) {
      return InvalidArgument(name, "[", i, "] is ", dirs[i], "; must be 0 (forward) or 1 (reverse)");
    }
  }
  return Status::Ok();
}

SeqLayout LayoutOf(const Dims& dims, int64_t axis, DataType dtype, bool reverse) {
  SeqLayout l;
  size_t inner = DataTypeSize(dtype);
  for (size_t d = 0; d < dims.size(); ++d) {
    if (int64_t(d) < axis) l.outer *= dims[d];
    if (int64_t(d) > axis) inner *= size_t(dims[d]);
  }
  l.inner_bytes = inner;
  l.reverse = reverse;
  return l;
}

// Gives body input `i` the dtype and dims it is fed with, after checking them against
// what the body declares.
Status BindBodyInput(Graph& body, size_t i, DataType dtype, const Dims& dims) {
  QRT_RETURN_IF_ERROR(CheckInputMatches(body, i, dtype, dims).WithContext("Scan body"));
  Value& v = body.value(body.inputs[i]);
  v.dtype = dtype;
  v.shape = ShapeFromDims(dims);
  return Status::Ok();
}

// Scan-8: input 0 the optional sequence_lens [batch], then N states [batch, ...] and M scan
// inputs [batch, seq, ...] (directions: 1 reverses a scan input); outputs N final states and K
// scan outputs [batch, seq, ...]. Each batch row is scanned on its own for its length (all of
// seq without sequence_lens); scan output rows past a row's length are zeros. Run when the
// inputs' values are known (a data-dependent op, data_dependent.h): the body through a session,
// step by step.
Status PrepareScan8(PrepareContext& ctx) {
  const Node& node = ctx.node();
  const int declared = ctx.num_inputs() - int(NumImplicitInputs(node));
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<Graph> body_attr, ctx.attrs().GetGraph("body"));
  if (body_attr == nullptr) return InvalidArgument("Scan has an empty body");
  QRT_ASSIGN_OR_RETURN(int64_t m64, ctx.attrs().GetInt("num_scan_inputs"));
  const int m = int(m64), n = declared - 1 - m;
  if (m < 1 || n < 0) return InvalidArgument("num_scan_inputs ", m64, " does not fit ", declared, " inputs");
  const int k = ctx.num_outputs() - n;
  if (k < 0) return InvalidArgument("Scan has ", n, " states but ", ctx.num_outputs(), " outputs");
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> dirs, PerTensorAttr(ctx.attrs(), "directions", size_t(m)));
  QRT_RETURN_IF_ERROR(CheckDirections(dirs, "directions"));
  for (int i = 1; i < declared; ++i) {
    if (!ctx.has_input(i)) return InvalidArgument("Scan input ", i, " is missing");
    if (ctx.input(i).value == nullptr) return NeedsConstant(ctx, i, "a Scan-8 state or scan input");
  }
  const Tensor& first = *ctx.input(1 + n).value;
  if (first.rank() < 2) return InvalidArgument("Scan-8's scan inputs are [batch, sequence, ...]");
  const int64_t batch = first.dims()[0], seq = first.dims()[1];
  std::vector<int64_t> lens(size_t(batch), seq);
  if (ctx.has_input(0)) {
    if (ctx.input(0).value == nullptr) return NeedsConstant(ctx, 0, "sequence_lens");
    if (ctx.input(0).value->numel() != batch)
      return InvalidArgument("sequence_lens must have one length per batch row");
    for (int64_t b = 0; b < batch; ++b) {
      lens[size_t(b)] = ctx.input(0).value->GetAsInt64(b);
      if (lens[size_t(b)] < 0 || lens[size_t(b)] > seq) return InvalidArgument("sequence length ", lens[size_t(b)]);
    }
  }
  // The body as a model: the enclosing values it reads as constants, its inputs typed.
  Graph body = *body_attr;
  std::vector<int> fed;
  QRT_RETURN_IF_ERROR(BindCaptures(ctx, body, /*values_needed=*/true, &fed));
  if (!fed.empty()) return Unsupported("a Scan-8 body reading a sequence or an optional from the enclosing graph");
  if (int(body.inputs.size()) != n + m || int(body.outputs.size()) != n + k) {
    return InvalidArgument("the body has ", body.inputs.size(), " inputs and ", body.outputs.size(), " outputs; ", n,
                           " states, ", m, " scan inputs and ", k, " scan outputs need ", n + m, " and ", n + k);
  }
  for (int i = 0; i < n + m; ++i) {
    Value& v = body.value(body.inputs[size_t(i)]);
    v.dtype = ctx.input(1 + i).dtype;
    v.shape.reset();
  }
  StatusOr<std::shared_ptr<const CompiledModel>> compiled = Compile(std::move(body), SubgraphOptions(ctx));
  if (!compiled.ok()) return compiled.status().WithContext("Scan body");
  Session session(*compiled);
  // Row b of a [batch, ...] tensor, and step t of a [batch, seq, ...] one, as tensors.
  auto row = [](const Tensor& t, int64_t b) {
    Dims d(t.dims().begin() + 1, t.dims().end());
    Tensor r = Tensor::Allocate(t.dtype(), d).value();
    if (r.nbytes()) std::memcpy(r.raw(), static_cast<const char*>(t.raw()) + size_t(b) * r.nbytes(), r.nbytes());
    return r;
  };
  std::vector<Tensor> final_states(static_cast<size_t>(n)), scan_outputs(static_cast<size_t>(k));
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Tensor> state;
    for (int i = 0; i < n; ++i) state.push_back(row(*ctx.input(1 + i).value, b));
    std::vector<Tensor> inputs;  // [seq, ...] of this row
    for (int j = 0; j < m; ++j) inputs.push_back(row(*ctx.input(1 + n + j).value, b));
    for (int64_t t = 0; t < lens[size_t(b)]; ++t) {
      std::vector<Tensor> feeds;
      for (const Tensor& s : state) feeds.push_back(s.Clone());
      for (int j = 0; j < m; ++j)
        feeds.push_back(row(inputs[size_t(j)], dirs[size_t(j)] ? lens[size_t(b)] - 1 - t : t));
      std::vector<Tensor> outputs;
      QRT_RETURN_IF_ERROR(session.Run(feeds, &outputs).WithContext(StrCat("Scan body, row ", b, ", step ", t)));
      for (int i = 0; i < n; ++i) state[size_t(i)] = outputs[size_t(i)].Clone();
      for (int j = 0; j < k; ++j) {
        const Tensor& y = outputs[size_t(n + j)];
        Tensor& out = scan_outputs[size_t(j)];
        if (out.dtype() == DataType::kUndefined) {
          Dims d = y.dims();
          d.insert(d.begin(), {batch, seq});
          QRT_ASSIGN_OR_RETURN(out, Tensor::Allocate(y.dtype(), d));
          if (out.nbytes()) std::memset(out.raw(), 0, out.nbytes());
        } else if (out.dtype() != y.dtype() || Dims(out.dims().begin() + 2, out.dims().end()) != y.dims()) {
          return InvalidArgument("scan output ", j, " changes shape at row ", b, ", step ", t);
        }
        if (y.nbytes()) {
          std::memcpy(static_cast<char*>(out.raw()) + size_t(b * seq + t) * y.nbytes(), y.raw(), y.nbytes());
        }
      }
    }
    for (int i = 0; i < n; ++i) {
      const Tensor& s = state[size_t(i)];
      Tensor& f = final_states[size_t(i)];
      if (f.dtype() == DataType::kUndefined) {
        Dims d = s.dims();
        d.insert(d.begin(), batch);
        QRT_ASSIGN_OR_RETURN(f, Tensor::Allocate(s.dtype(), d));
      }
      if (s.nbytes()) std::memcpy(static_cast<char*>(f.raw()) + size_t(b) * s.nbytes(), s.raw(), s.nbytes());
    }
  }
  for (int j = 0; j < k; ++j) {
    if (scan_outputs[size_t(j)].dtype() == DataType::kUndefined) {
      return Unsupported("scan output ", j, " of a Scan-8 that ran no step");
    }
  }
  std::vector<Tensor> results = std::move(final_states);
  for (Tensor& t : scan_outputs) results.push_back(std::move(t));
  SetComputedOutputs(ctx, std::move(results));
  return Status::Ok();
}

Status PrepareScan(PrepareContext& ctx) {
  if (ctx.opset() < 9) return PrepareScan8(ctx);
  const Node& node = ctx.node();
  const int num_implicit = int(NumImplicitInputs(node));
  const int num_declared = ctx.num_inputs() - num_implicit;
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<Graph> body_attr, ctx.attrs().GetGraph("body"));
  if (body_attr == nullptr) return InvalidArgument("Scan has an empty body");
  QRT_ASSIGN_OR_RETURN(int64_t num_scan_inputs, ctx.attrs().GetInt("num_scan_inputs"));
  if (num_scan_inputs < 1 || num_scan_inputs > num_declared) {
    return InvalidArgument("num_scan_inputs is ", num_scan_inputs, "; must be in [1, ", num_declared,
                           "], the number of inputs");
  }
  const int m = int(num_scan_inputs);
  const int n = num_declared - m;
  if (ctx.num_outputs() < n) {
    return InvalidArgument("Scan has ", n, " state inputs but only ", ctx.num_outputs(), " outputs");
  }
  const int k = ctx.num_outputs() - n;
  for (int i = 0; i < num_declared; ++i) {
    if (!ctx.has_input(i)) return InvalidArgument("Scan input ", i, " is missing");
  }
  const Graph& declared_body = *body_attr;
  if (int(declared_body.inputs.size()) != n + m) {
    return InvalidArgument("the body has ", declared_body.inputs.size(), " inputs; Scan with ", n, " states and ", m,
                           " scan inputs needs ", n + m);
  }
  if (int(declared_body.outputs.size()) != n + k) {
    return InvalidArgument("the body has ", declared_body.outputs.size(), " outputs; Scan with ", n, " states and ", k,
                           " scan outputs needs ", n + k);
  }
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> in_axes, PerTensorAttr(ctx.attrs(), "scan_input_axes", size_t(m)));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> in_dirs, PerTensorAttr(ctx.attrs(), "scan_input_directions", size_t(m)));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> out_axes, PerTensorAttr(ctx.attrs(), "scan_output_axes", size_t(k)));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> out_dirs, PerTensorAttr(ctx.attrs(), "scan_output_directions", size_t(k)));
  QRT_RETURN_IF_ERROR(CheckDirections(in_dirs, "scan_input_directions"));
  QRT_RETURN_IF_ERROR(CheckDirections(out_dirs, "scan_output_directions"));

  Graph body = declared_body;
  ScanState s;
  s.num_states = n;
  for (int i = 0; i < n; ++i) {
    const TensorInfo& in = ctx.input(i);
    QRT_RETURN_IF_ERROR(BindBodyInput(body, size_t(i), in.dtype, in.dims));
    s.state_bytes.push_back(size_t(ElementCount(in.dims)) * DataTypeSize(in.dtype));
    s.state_output_omitted.push_back(!ctx.has_output(i));
  }
  for (int j = 0; j < m; ++j) {
    const TensorInfo& in = ctx.input(n + j);
    if (in.dims.empty()) return InvalidArgument("scan input ", j, " is a scalar; it needs an axis to scan");
    StatusOr<int64_t> axis_or = NormalizeAxis(in_axes[size_t(j)], int64_t(in.dims.size()));
    if (!axis_or.ok()) return axis_or.status().WithContext(StrCat("scan_input_axes[", j, "]"));
    const int64_t axis = *axis_or;
    const int64_t len = in.dims[size_t(axis)];
    if (j == 0) {
      s.seq_len = len;
    } else if (len != s.seq_len) {
      return InvalidArgument("scan input ", j, " has sequence length ", len, " along axis ", axis,
                             "; scan input 0 has ", s.seq_len);
    }
    Dims slice = in.dims;
    slice.erase(slice.begin() + axis);
    QRT_RETURN_IF_ERROR(BindBodyInput(body, size_t(n + j), in.dtype, slice));
    s.scan_inputs.push_back(LayoutOf(in.dims, axis, in.dtype, in_dirs[size_t(j)] == 1));
  }
  // Captures: constants when their value is known now, body inputs otherwise.
  QRT_RETURN_IF_ERROR(BindCaptures(ctx, body, /*values_needed=*/false, &s.capture_inputs));
  for (int input : s.capture_inputs) {
    if (ctx.input(input).kind != ValueKind::kTensor) {
      return Unsupported("a Scan body reading a sequence or an optional from the enclosing graph");
    }
  }
  for (ValueId in : body.inputs) {
    s.feed_dtypes.push_back(body.value(in).dtype);
    s.feed_dims.push_back(*StaticDims(*body.value(in).shape));
  }

  StatusOr<std::shared_ptr<const CompiledModel>> compiled = Compile(std::move(body), SubgraphOptions(ctx));
  if (!compiled.ok()) return compiled.status().WithContext("Scan body");
  s.body = std::move(compiled).value();
  std::shared_ptr<const Plan> plan = s.body->default_plan();
  if (plan == nullptr) {
    return Unsupported("the Scan body's shapes depend on its input values; qrt plans the body once");
  }
  const Graph& g = s.body->graph();
  for (int i = 0; i < n; ++i) {
    const PlannedValue& out = plan->values[g.outputs[size_t(i)].index];
    const TensorInfo& in = ctx.input(i);
    if (out.dtype != in.dtype || out.dims != in.dims) {
      return InvalidArgument("body output ", i, " (state '", g.value(g.outputs[size_t(i)]).name, "') is ",
                             DataTypeName(out.dtype), DimsToString(out.dims), " but the state is ",
                             DataTypeName(in.dtype), DimsToString(in.dims));
    }
    ctx.SetOutput(i, in.dtype, in.dims);
  }
  for (int j = 0; j < k; ++j) {
    const PlannedValue& out = plan->values[g.outputs[size_t(n + j)].index];
    const int64_t rank = int64_t(out.dims.size()) + 1;
    StatusOr<int64_t> axis_or = NormalizeAxis(out_axes[size_t(j)], rank);
    if (!axis_or.ok()) return axis_or.status().WithContext(StrCat("scan_output_axes[", j, "]"));
    const int64_t axis = *axis_or;
    Dims dims = out.dims;
    dims.insert(dims.begin() + axis, s.seq_len);
    Status size_ok = CheckedElementCount(dims, DataTypeSize(out.dtype)).status();
    if (!size_ok.ok()) return size_ok.WithContext(StrCat("scan output ", j));
    ctx.SetOutput(n + j, out.dtype, dims);
    s.scan_outputs.push_back(LayoutOf(dims, axis, out.dtype, out_dirs[size_t(j)] == 1));
  }
  s.cache = std::make_shared<ScanCache>();
  ctx.SetKernel<ScanState, RunScan>(std::move(s));
  return Status::Ok();
}

}  // namespace

// Variadic: N states and M scan inputs (the loader counts declared inputs only).
const OpDef kScanOp{"", "Scan", 1, 1 << 20, 1, 1 << 20, PrepareScan};

}  // namespace qrt
