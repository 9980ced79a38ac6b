"""qrt: a small, exact runtime for quantized neural networks.

    import numpy as np, qrt
    g = qrt.load("model.onnx")
    fused = qrt.compile(g)                      # the default passes
    plain = qrt.compile(g, passes="none")
    x = {"input": np.zeros((1, 3, 224, 224), np.float32)}
    print(qrt.compare(plain.run(x), fused.run(x)))   # every "differ" is 0

A thin layer over qrt's public C++ API: errors raise qrt.Error with qrt's message.
"""
import base64
import json
import os

import numpy as np

from . import _qrt

Error = _qrt.Error
__version__ = _qrt.__version__

__all__ = ["Error", "Graph", "Model", "Node", "Pattern", "ValueInfo", "compare", "compile", "load"]


class ValueInfo:
    """A graph input or output: name, dtype (a numpy dtype, None if numpy has none) and shape
    (a tuple whose entries are ints, a string for a named symbolic dimension or None for an
    unnamed one; None if the shape is not declared)."""

    __slots__ = ("name", "dtype", "shape")

    def __init__(self, d):
        self.name, self.dtype, self.shape = d["name"], d["dtype"], d["shape"]

    def __repr__(self):
        return f"ValueInfo({self.name!r}, {self.dtype}, {self.shape})"


def _attr_value(v):
    """qrt's JSON attribute form -> Python: tensors become numpy arrays."""
    if isinstance(v, dict) and "tensor" in v:
        t = v["tensor"]
        data = base64.b64decode(t["data_base64"])
        dtype = np.dtype(t["dtype"]) if t["dtype"] != "bool" else np.bool_
        return np.frombuffer(data, dtype=dtype).reshape([int(d) for d in t["shape"]]).copy()
    return v


class Node:
    """A node: name, op_type, domain ("" for ONNX's, "qrt" for nodes qrt's passes made),
    inputs and outputs (value names, "" for an omitted optional one), attrs (a dict)."""

    __slots__ = ("name", "op_type", "domain", "inputs", "outputs", "attrs")

    def __init__(self, d):
        self.name, self.op_type, self.domain = d["name"], d["op_type"], d["domain"]
        self.inputs, self.outputs = list(d["inputs"]), list(d["outputs"])
        self.attrs = {k: _attr_value(v) for k, v in json.loads(d["attrs_json"]).items()}

    def __repr__(self):
        op = f"{self.domain}:{self.op_type}" if self.domain else self.op_type
        return f"Node({self.name!r}, {op}, {self.inputs} -> {self.outputs})"


def _pass_spec(passes):
    if isinstance(passes, str):
        return passes
    return ",".join(passes)


def _pattern_texts(patterns):
    """None, a Pattern, a path, JSON text or a list of these -> list of (JSON text, source), the
    source naming the text in qrt's errors."""
    if patterns is None:
        return []
    if not isinstance(patterns, (list, tuple)):
        patterns = [patterns]
    return [(p.text, p.source) for p in map(Pattern.from_json, patterns)]


class Graph:
    """A loaded (or rewritten) dataflow graph."""

    def __init__(self, handle):
        self._g = handle

    @property
    def nodes(self):
        return [Node(d) for d in self._g.nodes()]

    @property
    def inputs(self):
        return [ValueInfo(d) for d in self._g.inputs()]

    @property
    def outputs(self):
        return [ValueInfo(d) for d in self._g.outputs()]

    def save(self, path):
        """Writes the graph as .onnx or .json, by the path's extension."""
        self._g.save(os.fspath(path))

    def to_dot(self, name="qrt"):
        """Graphviz DOT text; nodes qrt's passes made are filled."""
        return self._g.to_dot(name)

    def copy(self):
        return Graph(self._g.copy())

    def apply_passes(self, passes="default", patterns=None):
        """Rewrites this graph with `passes` (a name, a comma list or a list, as --passes takes)
        and user `patterns`; returns [(pass name, rewrites), ...]."""
        self._g = self._g.apply_passes(_pass_spec(passes), _pattern_texts(patterns))
        return self._g.passes()

    def explain(self, passes=None, patterns=None):
        """Why each candidate node was or was not rewritten, as `qrt inspect --explain` prints it:
        of the last apply_passes, or (when `passes` is given or none were applied) of running
        `passes` (default: "default") on a copy."""
        g = self._g
        if passes is not None or patterns is not None or g.explanation_count() == 0:
            g = g.apply_passes(_pass_spec(passes or "default"), _pattern_texts(patterns))
        return g.explain_text()

    def to_html(self, path=None, passes="default", patterns=None, profile=None, title="qrt"):
        """One self-contained HTML page: this graph before and after `passes` side by side.
        `profile` ([(node, op, us)] from Model.profile, or {node: us}) colours the nodes of the
        optimized graph by their share of the run time. Returns the page; writes it to `path`."""
        after = self._g.apply_passes(_pass_spec(passes), _pattern_texts(patterns))
        if profile is None:
            times = []
        elif isinstance(profile, dict):
            times = [(str(k), float(v)) for k, v in profile.items()]
        else:
            times = [(str(p[0]), float(p[-1])) for p in profile]
        page = _qrt.to_html(self._g, after, title, times)
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(page)
        return page

    def __repr__(self):
        return f"<qrt.Graph: {len(self._g.nodes())} nodes>"


class Model:
    """A compiled model. run() and profile() take {input name: numpy array}."""

    def __init__(self, handle):
        self._m = handle

    @property
    def graph(self):
        """The optimized graph."""
        return Graph(self._m.graph())

    @property
    def passes(self):
        return self._m.passes()

    @property
    def isa(self):
        return self._m.isa()

    def kernels(self):
        """[(node, op, kernel note, ISA tier), ...] in execution order."""
        return self._m.kernels()

    def explain(self):
        return self._m.explain_text()

    def run(self, inputs):
        """Runs once; returns {output name: numpy array}. Arrays that are C-contiguous and of the
        input's dtype are read in place; a wrong dtype or shape raises qrt.Error."""
        return self._m.run(dict(inputs))

    def profile(self, inputs, runs=10):
        """Mean time per node over `runs` runs: [(node name, op, microseconds), ...]."""
        return self._m.profile(dict(inputs), int(runs))


def load(path_or_bytes):
    """Loads an ONNX or qrt JSON model from a path or from bytes."""
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        return Graph(_qrt.load_bytes(bytes(path_or_bytes)))
    return Graph(_qrt.load_file(os.fspath(path_or_bytes)))


def compile(graph_or_path, passes="default", isa="auto", threads=1, patterns=None):  # noqa: A001
    """Compiles a Graph (or a model path or bytes) with passes, an ISA ceiling ("auto", "scalar",
    "avx2", "avx2-vnni", "avx512", "avx512-vnni"), intra-op threads and user patterns."""
    g = graph_or_path if isinstance(graph_or_path, Graph) else load(graph_or_path)
    return Model(_qrt.compile(g._g, _pass_spec(passes), isa, int(threads), _pattern_texts(patterns)))


class Pattern:
    """User-defined fusion patterns (docs/patterns.md): a pattern file's content. Build one from
    JSON text, a dict, a path, or with Pattern(name=..., match=..., replace=...)."""

    def __init__(self, spec=None, source="<python>", **fields):
        if spec is None:
            spec = dict(fields)
        elif fields:
            raise TypeError("give a spec or keyword fields, not both")
        if "patterns" not in spec:  # one pattern: wrap it as a file of one
            stage = spec.pop("stage", None) if "stage" in spec and "match" in spec else None
            spec = {"patterns": [spec]}
            if stage is not None:
                spec["stage"] = stage
        self.spec = spec
        self.text = json.dumps(spec)
        self.source = source
        _qrt.check_patterns(self.text, source)

    @classmethod
    def from_json(cls, text_or_dict_or_path):
        if isinstance(text_or_dict_or_path, Pattern):
            return text_or_dict_or_path
        if isinstance(text_or_dict_or_path, dict):
            return cls(text_or_dict_or_path)
        s = os.fspath(text_or_dict_or_path)
        if not s.lstrip().startswith("{") and os.path.exists(s):
            with open(s, encoding="utf-8") as f:
                return cls(json.loads(f.read()), source=s)
        try:
            spec = json.loads(s)
        except json.JSONDecodeError as e:
            raise Error(f"<python>: pattern file is not JSON: {e}") from None
        return cls(spec)

    @property
    def names(self):
        return [p.get("name") for p in self.spec.get("patterns", [])]

    def to_json(self):
        return self.text

    def __repr__(self):
        return f"<qrt.Pattern {self.names}>"


def _bits(a):
    """Integer view of a float array, for bitwise comparison (-0.0 != 0.0, NaN payloads count)."""
    if a.dtype.kind == "f":
        return a.view(np.dtype(f"u{a.dtype.itemsize}"))
    return a


def compare(a, b):
    """Per output of a and b: {"differ": elements that differ (bitwise for floats), "max_abs":
    largest absolute difference, "max_steps": for integer outputs the largest difference in
    steps, else None}. Raises qrt.Error if the outputs' names, shapes or dtypes differ."""
    if set(a) != set(b):
        raise Error(f"compare: outputs differ: {sorted(a)} vs {sorted(b)}")
    result = {}
    for name in a:
        x, y = np.asarray(a[name]), np.asarray(b[name])
        if x.shape != y.shape or x.dtype != y.dtype:
            raise Error(f"compare: output '{name}': {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}")
        x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
        differ = int(np.count_nonzero(_bits(x) != _bits(y)))
        if x.size == 0:
            max_abs = 0.0
        elif x.dtype.kind in "iub":
            hi, lo = np.maximum(x, y), np.minimum(x, y)
            if x.dtype.itemsize == 8:  # no 64-bit type holds every difference: Python ints do
                steps = max(int(h) - int(v) for h, v in zip(hi.ravel(), lo.ravel()))
            else:
                steps = int(np.max(hi.astype(np.int64) - lo.astype(np.int64)))
            max_abs = float(steps)
        else:
            with np.errstate(invalid="ignore", over="ignore"):
                d = np.abs(x.astype(np.float64) - y.astype(np.float64))
            both_nan = np.isnan(x) & np.isnan(y)
            d = np.where(both_nan, 0.0, d)
            max_abs = float(np.max(d))  # nan when one side is NaN and the other is not
        if x.size == 0 or x.dtype.kind not in "iu":
            steps = 0 if x.size == 0 and x.dtype.kind in "iu" else None
        result[name] = {"differ": differ, "max_abs": max_abs, "max_steps": steps}
    return result
