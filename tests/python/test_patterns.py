"""User patterns from Python: the three files of docs/patterns, a pattern built in Python, errors."""
import json
import re

import numpy as np
import pytest

import qrt
from conftest import SOURCE

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

PATTERNS = SOURCE / "docs" / "patterns"
T8 = {np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8}


def save_model(tmp_path, nodes, inits, x_type, y_type, name="m"):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", T8[x_type], [4, 64])],
                          [helper.make_tensor_value_info("y", T8[y_type], [4, 64])], inits)
    path = tmp_path / f"{name}.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


def qparams(x_type, y_type, xs=0.03, ys=0.02):
    zp = lambda t: 128 if t == np.uint8 else 0  # noqa: E731
    return [helper.make_tensor("xs", TensorProto.FLOAT, [], [xs]), helper.make_tensor("xz", T8[x_type], [], [zp(x_type) - 3]),
            helper.make_tensor("ys", TensorProto.FLOAT, [], [ys]), helper.make_tensor("yz", T8[y_type], [], [zp(y_type) + 5])]


def gelu_nodes(half_first, swap):
    """The expanded Gelu, associated either way, with Mul/Add operands in either order."""
    mul = (lambda a, b, o, n: helper.make_node("Mul", [b, a] if swap else [a, b], [o], name=n))
    nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["d"], name="dq"),
             helper.make_node("Div", ["d", "sqrt2"], ["v"], name="div"),
             helper.make_node("Erf", ["v"], ["e"], name="erf"),
             helper.make_node("Add", ["one", "e"] if swap else ["e", "one"], ["a"], name="add")]
    if half_first:
        nodes += [mul("d", "half", "h", "half"), mul("h", "a", "m", "mul")]
    else:
        nodes += [mul("d", "a", "m0", "mul"), mul("m0", "half", "m", "half")]
    nodes.append(helper.make_node("QuantizeLinear", ["m", "ys", "yz"], ["y"], name="q"))
    consts = [helper.make_tensor("sqrt2", TensorProto.FLOAT, [], [np.float32(np.sqrt(2))]),
              helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]), helper.make_tensor("half", TensorProto.FLOAT, [], [0.5])]
    return nodes, consts


def every_code(x_type):
    info = np.iinfo(x_type)
    return {"x": np.arange(info.min, int(info.max) + 1, dtype=np.int64).astype(x_type).reshape(4, 64)}


def check_fused_equals_unfused(path, pattern, x_type, expect_op, rewrites=1):
    plain = qrt.compile(path, passes="none")
    fused = qrt.compile(path, passes="none", patterns=[pattern])
    assert sum(n for _, n in fused.passes) == rewrites
    ops = [n.op_type for n in fused.graph.nodes]
    assert ops == [expect_op] * rewrites, ops
    x = every_code(x_type)
    assert qrt.compare(plain.run(x), fused.run(x)) == {"y": {"differ": 0, "max_abs": 0.0, "max_steps": 0}}


@pytest.mark.parametrize("x_type", [np.uint8, np.int8])
@pytest.mark.parametrize("y_type", [np.uint8, np.int8])
@pytest.mark.parametrize("half_first,swap", [(False, False), (True, True), (True, False)])
def test_gelu_to_table(tmp_path, x_type, y_type, half_first, swap):
    nodes, consts = gelu_nodes(half_first, swap)
    path = save_model(tmp_path, nodes, qparams(x_type, y_type) + consts, x_type, y_type)
    gelu = qrt.Pattern.from_json((PATTERNS / "gelu_to_table.json").read_text())
    check_fused_equals_unfused(path, gelu, x_type, "LookupTable")


def test_hardswish_to_table(tmp_path):
    nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["d"], name="dq"),
             helper.make_node("HardSigmoid", ["d"], ["h"], name="hsig", alpha=1 / 6, beta=0.5),
             helper.make_node("Mul", ["h", "d"], ["m"], name="mul"),
             helper.make_node("QuantizeLinear", ["m", "ys", "yz"], ["y"], name="q")]
    path = save_model(tmp_path, nodes, qparams(np.int8, np.uint8), np.int8, np.uint8)
    pattern = qrt.Pattern.from_json(str(PATTERNS / "hardswish_to_table.json"))  # a path works too
    check_fused_equals_unfused(path, pattern, np.int8, "LookupTable")


def add_chain(tmp_path):
    nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["d"], name="dqa"),
             helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["db"], name="dqb"),
             helper.make_node("Add", ["d", "db"], ["s"], name="add"),
             helper.make_node("QuantizeLinear", ["s", "ys", "yz"], ["y"], name="q")]
    rng = np.random.default_rng(3)
    inits = qparams(np.uint8, np.uint8) + [
        helper.make_tensor("b", TensorProto.UINT8, [4, 64], rng.integers(0, 256, 256).tolist()),
        helper.make_tensor("bs", TensorProto.FLOAT, [], [0.011]), helper.make_tensor("bz", TensorProto.UINT8, [], [7])]
    return save_model(tmp_path, nodes, inits, np.uint8, np.uint8, "add")


def test_qrt_op_replacement(tmp_path):
    pattern = qrt.Pattern.from_json(json.loads((PATTERNS / "add_to_quantized_add.json").read_text()))
    path = add_chain(tmp_path)
    plain = qrt.compile(path, passes="none")
    fused = qrt.compile(path, passes="none", patterns=pattern)
    assert dict(fused.passes)["dq-add-q-to-quantized-add"] == 1
    assert [(n.domain, n.op_type) for n in fused.graph.nodes] == [("qrt", "QuantizedAdd")]
    x = every_code(np.uint8)
    assert qrt.compare(plain.run(x), fused.run(x))["y"]["differ"] == 0


def test_pattern_built_in_python_and_explained(tmp_path):
    relu6 = qrt.Pattern(name="relu-to-table", stage="before", match={
        "nodes": [{"id": "dq", "op": "DequantizeLinear", "inputs": ["$x", "$s", "$z?"]},
                  {"id": "relu", "op": "Relu", "inputs": ["dq"]},
                  {"id": "q", "op": "QuantizeLinear", "inputs": ["relu", "$ys", "$yz?"]}]},
        replace={"lookup_table": {"input": "$x"}})
    assert relu6.names == ["relu-to-table"]
    nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["d"], name="dq"),
             helper.make_node("Relu", ["d"], ["r"], name="relu"),
             helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["y"], name="q")]
    path = save_model(tmp_path, nodes, qparams(np.uint8, np.uint8), np.uint8, np.uint8, "relu")
    g = qrt.load(path)
    stats = g.apply_passes("default", patterns=[relu6])
    assert stats[0] == ("relu-to-table", 1)  # "before": ahead of the built-in passes
    assert "relu-to-table" in g.explain() and "rewritten" in g.explain()
    check_fused_equals_unfused(path, relu6, np.uint8, "LookupTable")


def test_refusal_is_explained(tmp_path):
    path = add_chain(tmp_path)  # the hardswish pattern finds no HardSigmoid: nothing rewritten
    g = qrt.load(path)
    stats = g.apply_passes("none", patterns=qrt.Pattern.from_json(str(PATTERNS / "hardswish_to_table.json")))
    assert stats == [("hardswish-to-table", 0)]


@pytest.mark.parametrize("spec,message", [
    ("{ not json", "not JSON|parse"),
    ({"patterns": [{"name": "p", "match": {"nodes": [{"id": "a", "op": "NoSuchOp", "inputs": ["$x"]}]},
                    "replace": {"lookup_table": {"input": "$x"}}}]}, "'p'"),
    ({"patterns": [{"name": "dangling", "match": {"nodes": [{"id": "a", "op": "Relu", "inputs": ["b"]}]},
                    "replace": {"lookup_table": {"input": "$x"}}}]}, "'dangling'"),
    ({"patterns": [{"name": "no-replace", "match": {"nodes": [{"id": "a", "op": "Relu", "inputs": ["$x"]}]}}]},
     "'no-replace'"),
])
def test_bad_patterns_raise_naming_the_pattern(spec, message):
    with pytest.raises(qrt.Error, match=message):
        qrt.Pattern.from_json(spec)


def test_dtype_changing_replacement_is_an_error(tmp_path):
    to_float = qrt.Pattern(name="q-to-dq", match={
        "nodes": [{"id": "q", "op": "QuantizeLinear", "inputs": ["$v", "$ys", "$yz?"]}]},
        replace={"nodes": [{"id": "r", "op": "Relu", "inputs": ["$v"]}], "output": "r"})
    path = add_chain(tmp_path)
    with pytest.raises(qrt.Error, match="q-to-dq"):
        qrt.compile(path, passes="none", patterns=[to_float])
    # Read from a file, the pattern is named by its path in the error.
    pattern_file = tmp_path / "to_float.json"
    pattern_file.write_text(to_float.to_json())
    with pytest.raises(qrt.Error, match=re.escape(str(pattern_file)) + ".*q-to-dq"):
        qrt.compile(path, passes="none", patterns=str(pattern_file))
