// qrt's Python extension (qrt._qrt): a thin layer over the public C++ API (qrt/qrt.hpp),
// never over qrt's internals. The Pythonic surface (compare, Pattern, docstrings) is in
// python/qrt/__init__.py.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "qrt/qrt.hpp"
#include "tools/dot_writer.h"

namespace py = pybind11;
using qrt::api::Graph;
using qrt::api::Model;
using qrt::api::Options;

namespace {

// Raised (as qrt.Error) with qrt's own message.
PyObject* g_error = nullptr;

[[noreturn]] void Raise(const qrt::api::Status& s) {
  PyErr_SetString(g_error, s.message().c_str());
  throw py::error_already_set();
}
void Check(const qrt::api::Status& s) {
  if (!s.ok()) Raise(s);
}
template <class T>
T Take(qrt::api::Result<T>&& r) {
  if (!r.ok()) Raise(r.status());
  return std::move(r).value();
}

struct DtypePair {
  qrt_dtype qrt;
  const char* numpy;
};
constexpr DtypePair kDtypes[] = {
    {QRT_FLOAT32, "float32"}, {QRT_FLOAT64, "float64"}, {QRT_FLOAT16, "float16"}, {QRT_UINT8, "uint8"},
    {QRT_INT8, "int8"},       {QRT_UINT16, "uint16"},   {QRT_INT16, "int16"},     {QRT_UINT32, "uint32"},
    {QRT_INT32, "int32"},     {QRT_UINT64, "uint64"},   {QRT_INT64, "int64"},     {QRT_BOOL, "bool"},
};

py::object NumpyDtype(qrt_dtype t) {
  for (const DtypePair& p : kDtypes) {
    if (p.qrt == t) return py::dtype(p.numpy);
  }
  return py::none();  // bfloat16 and undefined have no numpy dtype
}

std::optional<qrt_dtype> QrtDtype(const py::dtype& d) {
  for (const DtypePair& p : kDtypes) {
    if (py::dtype(p.numpy).is(d) || d.equal(py::dtype(p.numpy))) return p.qrt;
  }
  return std::nullopt;
}

// A graph, and the model it is a view of (kept alive with it).
struct PyGraph {
  Graph graph;
  std::optional<Model> owner;
};

py::dict ValueDict(const qrt::api::ValueInfo& v) {
  py::dict d;
  d["name"] = v.name;
  d["dtype"] = NumpyDtype(v.dtype);
  if (!v.has_shape) {
    d["shape"] = py::none();
  } else {
    py::list shape;
    for (size_t i = 0; i < v.shape.size(); ++i) {
      if (v.shape[i] >= 0)
        shape.append(v.shape[i]);
      else if (i < v.symbols.size() && !v.symbols[i].empty())
        shape.append(v.symbols[i]);
      else
        shape.append(py::none());
    }
    d["shape"] = py::tuple(shape);
  }
  return d;
}

py::list NodeDicts(const Graph& g) {
  py::list out;
  const std::vector<qrt::api::NodeInfo> nodes = g.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    py::dict d;
    d["name"] = nodes[i].name;
    d["op_type"] = nodes[i].op_type;
    d["domain"] = nodes[i].domain;
    d["inputs"] = nodes[i].inputs;
    d["outputs"] = nodes[i].outputs;
    d["attrs_json"] = Take(g.node_attributes_json(i));
    out.append(d);
  }
  return out;
}

// Patterns as (JSON text, source) pairs: the source names the text in errors.
using PatternTexts = std::vector<std::pair<std::string, std::string>>;

Options MakeOptions(const std::string& passes, const std::string& isa, int threads, const PatternTexts& patterns) {
  Options o;
  o.passes = passes;
  o.isa = isa;
  o.threads = threads;
  for (const auto& [text, source] : patterns) {
    o.pattern_texts.push_back(text);
    o.pattern_sources.push_back(source);
  }
  return o;
}

py::list PassList(const std::vector<std::pair<std::string, int64_t>>& passes) {
  py::list out;
  for (const auto& [name, n] : passes) out.append(py::make_tuple(name, n));
  return out;
}

// A compiled model and the context its runs use (one run at a time per model object).
struct PyModel {
  Model model;
  qrt::api::Context ctx;
  std::mutex mu;
  std::vector<qrt::api::ValueInfo> inputs, outputs;

  // The run lock, taken without the GIL: a thread waiting for it while holding the GIL would
  // stop the running thread from taking the GIL back.
  std::unique_lock<std::mutex> Lock() {
    py::gil_scoped_release release;
    return std::unique_lock<std::mutex>(mu);
  }

  // Binds `inputs` (name -> array) to the context: borrowed when contiguous and of the input's
  // dtype; `keep` holds the arrays alive through the run.
  void Bind(const py::dict& feed, std::vector<py::array>& keep) {
    for (const auto& item : feed) {  // a misspelt name is an error, not an ignored array
      const std::string name = py::str(item.first);
      if (!model.graph().input_index(name).ok()) {
        Raise(qrt::api::Status(QRT_INVALID_ARGUMENT, "the model has no input named '" + name + "'"));
      }
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      const qrt::api::ValueInfo& in = inputs[i];
      if (!feed.contains(in.name)) {
        Raise(qrt::api::Status(QRT_INVALID_ARGUMENT, "missing input '" + in.name + "'"));
      }
      py::array a = py::array::ensure(feed[py::str(in.name)], py::array::c_style);
      if (!a) throw py::error_already_set();
      std::optional<qrt_dtype> t = QrtDtype(a.dtype());
      if (!t) {
        Raise(qrt::api::Status(QRT_INVALID_ARGUMENT, "input '" + in.name + "': numpy dtype " +
                                                         std::string(py::str(a.dtype())) + " has no qrt type"));
      }
      std::vector<int64_t> dims(a.shape(), a.shape() + a.ndim());
      keep.push_back(a);
      const qrt_tensor_view v{*t, int32_t(dims.size()), dims.data(), a.data(), size_t(a.nbytes())};
      Check(ctx.BindInput(i, qrt::api::TensorView(v)));
    }
  }

  py::dict Outputs() {
    py::dict out;
    for (size_t k = 0; k < outputs.size(); ++k) {
      qrt::api::TensorView t = Take(ctx.Output(k));
      py::object dt = NumpyDtype(t.dtype());
      if (dt.is_none()) {
        Raise(qrt::api::Status(
            QRT_UNSUPPORTED, "output '" + outputs[k].name + "' is " + qrt_dtype_name(t.dtype()) + ": no numpy dtype"));
      }
      std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
      py::array a(py::dtype::from_args(dt), shape);
      if (t.size_bytes() != 0) std::memcpy(a.mutable_data(), t.raw(), t.size_bytes());
      out[py::str(outputs[k].name)] = a;
    }
    return out;
  }
};

std::shared_ptr<PyModel> Compile(const PyGraph& g, const std::string& passes, const std::string& isa, int threads,
                                 const PatternTexts& patterns) {
  auto m = std::make_shared<PyModel>();
  qrt::api::Result<Model> model = [&] {
    py::gil_scoped_release release;
    return Model::Compile(g.graph, MakeOptions(passes, isa, threads, patterns));
  }();
  m->model = Take(std::move(model));
  m->ctx = Take(qrt::api::Context::Create(m->model));
  m->inputs = m->model.graph().inputs();
  m->outputs = m->model.graph().outputs();
  return m;
}

}  // namespace

PYBIND11_MODULE(_qrt, m) {
  m.doc() = "qrt's C++ API for Python (use the qrt package, not this module)";
  g_error = PyErr_NewException("qrt.Error", PyExc_RuntimeError, nullptr);
  m.attr("Error") = py::handle(g_error);
  m.attr("__version__") = qrt_version_string();

  py::class_<PyGraph, std::shared_ptr<PyGraph>>(m, "Graph")
      .def("inputs",
           [](const PyGraph& g) {
             py::list out;
             for (const auto& v : g.graph.inputs()) out.append(ValueDict(v));
             return out;
           })
      .def("outputs",
           [](const PyGraph& g) {
             py::list out;
             for (const auto& v : g.graph.outputs()) out.append(ValueDict(v));
             return out;
           })
      .def("nodes", [](const PyGraph& g) { return NodeDicts(g.graph); })
      .def("save", [](const PyGraph& g, const std::string& path) { Check(g.graph.Save(path)); })
      .def("to_dot", [](const PyGraph& g, const std::string& name) { return qrt::cli::GraphToDot(g.graph, name); })
      .def("copy",
           [](const PyGraph& g) {
             return std::make_shared<PyGraph>(PyGraph{Take(g.graph.Copy()), {}});
           })
      .def("apply_passes",
           [](const PyGraph& g, const std::string& passes, const PatternTexts& patterns) {
             qrt::api::Result<Graph> r = [&] {
               py::gil_scoped_release release;
               return g.graph.ApplyPasses(MakeOptions(passes, "auto", 1, patterns));
             }();
             return std::make_shared<PyGraph>(PyGraph{Take(std::move(r)), {}});
           })
      .def("passes", [](const PyGraph& g) { return PassList(g.graph.passes()); })
      .def("explain_text", [](const PyGraph& g) { return Take(g.graph.ExplainText()); })
      .def("explanation_count", [](const PyGraph& g) { return g.graph.explanations().size(); });

  m.def("load_file", [](const std::string& path) {
    return std::make_shared<PyGraph>(PyGraph{Take(Graph::Load(path)), {}});
  });
  m.def("load_bytes", [](const py::bytes& data) {
    const std::string bytes = data;
    return std::make_shared<PyGraph>(PyGraph{Take(Graph::LoadBuffer(bytes.data(), bytes.size())), {}});
  });
  m.def("to_html", [](const PyGraph& before, const PyGraph& after, const std::string& title,
                      const std::vector<std::pair<std::string, double>>& profile) {
    return Take(Graph::ToHtml(before.graph, after.graph, title, profile));
  });
  m.def("check_patterns", [](const std::string& text, const std::string& source) {
    qrt_options* o = nullptr;
    if (qrt_status s = qrt_options_create(&o); s != QRT_OK) Raise(qrt::api::Status::FromC(s));
    const qrt_status s = qrt_options_add_patterns(o, text.c_str(), source.c_str());
    const qrt::api::Status status = qrt::api::Status::FromC(s);
    qrt_options_destroy(o);
    Check(status);
  });

  py::class_<PyModel, std::shared_ptr<PyModel>>(m, "Model")
      .def("graph",
           [](const PyModel& model) {
             return std::make_shared<PyGraph>(PyGraph{model.model.graph(), model.model});
           })
      .def("passes", [](const PyModel& model) { return PassList(model.model.passes()); })
      .def("isa", [](const PyModel& model) { return model.model.isa(); })
      .def("explain_text", [](const PyModel& model) { return Take(model.model.ExplainText()); })
      .def("kernels",
           [](const PyModel& model) {
             py::list out;
             for (const auto& k : model.model.kernels()) out.append(py::make_tuple(k.node, k.op, k.note, k.isa));
             return out;
           })
      .def("run",
           [](PyModel& model, const py::dict& feed) {
             std::unique_lock<std::mutex> lock = model.Lock();
             std::vector<py::array> keep;
             model.Bind(feed, keep);
             qrt::api::Status s;
             {
               py::gil_scoped_release release;
               s = model.ctx.Run();
             }
             Check(s);
             return model.Outputs();
           })
      .def("profile", [](PyModel& model, const py::dict& feed, int runs) {
        if (runs < 1) Raise(qrt::api::Status(QRT_INVALID_ARGUMENT, "runs must be at least 1"));
        std::unique_lock<std::mutex> lock = model.Lock();
        std::vector<py::array> keep;
        model.Bind(feed, keep);
        qrt::api::Status s;
        {
          py::gil_scoped_release release;
          s = model.ctx.Run();  // the plan exists before the counters start
        }
        Check(s);
        Check(model.ctx.SetProfiling(true));
        {
          py::gil_scoped_release release;
          for (int i = 0; i < runs && s.ok(); ++i) s = model.ctx.Run();
        }
        if (!s.ok()) {
          (void)model.ctx.SetProfiling(false);
          Check(s);
        }
        py::list out;
        for (const qrt_profile_entry& e : model.ctx.Profile()) {
          const std::string op = std::string(e.domain).empty() ? e.op_type : std::string(e.domain) + ":" + e.op_type;
          const double us = e.runs ? double(e.total_ns) / double(e.runs) / 1000.0 : 0.0;
          out.append(py::make_tuple(e.node_name, op, us));
        }
        Check(model.ctx.SetProfiling(false));
        return out;
      });
  m.def("compile", &Compile, py::arg("graph"), py::arg("passes"), py::arg("isa"), py::arg("threads"),
        py::arg("patterns"));
}
