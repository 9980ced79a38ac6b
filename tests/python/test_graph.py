"""qrt.load, Graph introspection, saving, copies, passes and explanations."""
import numpy as np
import pytest

import qrt
from conftest import SOURCE, shared_model


def test_load_path_and_bytes_agree(mul_add):
    a = qrt.load(mul_add)
    b = qrt.load(mul_add.read_bytes())
    assert [n.op_type for n in a.nodes] == [n.op_type for n in b.nodes]
    assert len(a.nodes) == 9


def test_inputs_outputs_nodes(mul_add):
    g = qrt.load(mul_add)
    assert [v.name for v in g.inputs] == ["x"]
    assert g.inputs[0].dtype == np.uint8
    assert g.inputs[0].shape == (1, 8, 4, 4)
    assert g.outputs[0].dtype == np.float32
    ops = [n.op_type for n in g.nodes]
    assert ops.count("DequantizeLinear") == 5 and ops.count("QuantizeLinear") == 2
    mul = next(n for n in g.nodes if n.op_type == "Mul")
    assert mul.domain == "" and len(mul.inputs) == 2 and len(mul.outputs) == 1


def test_attrs_are_python_values(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    node = helper.make_node("Transpose", ["x"], ["y"], name="t", perm=[0, 2, 1])
    c = helper.make_node("Constant", [], ["c"], name="c", value=helper.make_tensor("v", TensorProto.FLOAT, [2], [1.5, -2]))
    add = helper.make_node("Add", ["y", "c"], ["z"], name="add")
    graph = helper.make_graph([node, c, add], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 2])],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    path = tmp_path / "t.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    g = qrt.load(path)
    t = next(n for n in g.nodes if n.name == "t")
    assert t.attrs == {"perm": [0, 2, 1]}
    assert g.inputs[0].shape == ("batch", 3, 2)
    consts = [n for n in g.nodes if n.op_type == "Constant"]
    if consts:  # a loader may fold Constant into an initializer
        np.testing.assert_array_equal(consts[0].attrs["value"], np.array([1.5, -2], np.float32))


def test_save_roundtrip_and_copy_is_independent(mul_add, tmp_path):
    g = qrt.load(mul_add)
    c = g.copy()
    rewrites = dict(c.apply_passes("default"))
    assert rewrites["fuse-dq-mul-q"] == 1 and rewrites["fuse-dq-add-q"] == 1
    assert len(g.nodes) == 9  # the original is untouched
    for ext in ("json", "onnx"):
        p = tmp_path / f"fused.{ext}"
        c.save(p)
        back = qrt.load(p)
        assert sorted(n.op_type for n in back.nodes) == sorted(n.op_type for n in c.nodes)


def test_apply_passes_takes_name_comma_list_and_list(mul_add):
    for spec in ("fuse-dq-mul-q", "fuse-dq-mul-q,fuse-dq-add-q", ["fuse-dq-mul-q", "fuse-dq-add-q"]):
        g = qrt.load(mul_add)
        stats = g.apply_passes(spec)
        assert [name for name, _ in stats] == (spec.split(",") if isinstance(spec, str) else spec)
        assert all(isinstance(n, int) and n == 1 for _, n in stats)
    g = qrt.load(mul_add)
    assert g.apply_passes("none") == []
    assert len(g.nodes) == 9


def test_apply_passes_unknown_pass_raises(mul_add):
    with pytest.raises(qrt.Error, match="no-such-pass"):
        qrt.load(mul_add).apply_passes("no-such-pass")


def test_explain_matches_cli(mul_add):
    import subprocess, os

    g = qrt.load(mul_add)
    text = g.explain()
    assert "fuse-dq-mul-q" in text and "rewritten" in text
    g.apply_passes("default")
    assert g.explain() == text
    cli = os.environ.get("QRT_CLI")
    if cli:
        out = subprocess.run([cli, "inspect", str(mul_add), "--explain"], capture_output=True, text=True, check=True)
        assert text in out.stdout


def test_to_dot_marks_fused_nodes(mul_add):
    g = qrt.load(mul_add)
    assert "QuantizedMul" not in g.to_dot()
    g.apply_passes()
    dot = g.to_dot("m")
    assert dot.startswith('digraph "m"') and "QuantizedMul" in dot and "filled" in dot


def test_load_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x01garbage")
    with pytest.raises(qrt.Error, match="bad.onnx"):
        qrt.load(bad)
    with pytest.raises(qrt.Error, match="missing.onnx"):
        qrt.load(tmp_path / "missing.onnx")
    with pytest.raises(qrt.Error):
        qrt.load(b"{ not json")


def test_yolov8n_fuses_58_muls():
    g = qrt.load(shared_model("qdq_yolov8n_224"))
    g.apply_passes("default")
    assert sum(1 for n in g.nodes if n.domain == "qrt" and n.op_type == "QuantizedMul") == 58


def test_to_html_draws_both_panes_and_profile(mul_add, tmp_path):
    g = qrt.load(mul_add)
    page = g.to_html()
    assert page.startswith("<!DOCTYPE html>") and "http://" not in page and "https://" not in page
    import re

    assert len(re.findall(r'<g class="node[ "]', page)) == 9 + 3  # both panes
    assert page.count('class="node fused"') == 2
    assert len(re.findall(r'data-fused-into="', page)) == 8  # every node but the last DQ was fused
    assert "data-share" not in page
    m = qrt.compile(g)
    prof = m.profile({"x": np.zeros((1, 8, 4, 4), np.uint8)}, runs=3)
    out = tmp_path / "g.html"
    page2 = g.to_html(out, profile=prof)
    assert out.read_text(encoding="utf-8") == page2 and "data-share" in page2
    assert len(g.nodes) == 9  # drawing runs the passes on a copy
