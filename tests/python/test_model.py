"""qrt.compile, Model.run / profile / graph, qrt.compare, and errors for bad inputs."""
import numpy as np
import pytest

import qrt
from conftest import SOURCE, model_io, shared_model


def test_run_matches_expected_output(mul_add):
    inputs, expected = model_io(mul_add, mul_add.parent / "test_data_set_0")
    for passes in ("none", "default"):
        for isa in ("scalar", "auto"):
            out = qrt.compile(mul_add, passes=passes, isa=isa).run(inputs)
            assert qrt.compare(out, expected) == {"y": {"differ": 0, "max_abs": 0.0, "max_steps": None}}


def test_compile_takes_graph_path_and_bytes(mul_add, random_u8):
    x = {"x": random_u8((1, 8, 4, 4))}
    outs = [qrt.compile(src).run(x) for src in (qrt.load(mul_add), mul_add, str(mul_add), mul_add.read_bytes())]
    for o in outs[1:]:
        assert qrt.compare(outs[0], o)["y"]["differ"] == 0


def test_fused_equals_unfused_on_every_code(mul_add):
    codes = np.arange(256, dtype=np.uint8)
    x = {"x": np.resize(codes, (1, 8, 4, 4))}
    for shift in range(2):
        x = {"x": np.roll(x["x"], 128 * shift)}
        assert all(v["differ"] == 0 for v in qrt.compare(qrt.compile(mul_add, passes="none").run(x),
                                                          qrt.compile(mul_add).run(x)).values())


def test_model_graph_passes_isa_and_kernels(mul_add):
    m = qrt.compile(mul_add, isa="scalar", threads=2)
    ops = [n.op_type for n in m.graph.nodes]
    assert "QuantizedMul" in ops and "QuantizedAdd" in ops
    assert dict(m.passes)["fuse-dq-mul-q"] == 1
    assert m.isa == "scalar"
    assert all(k[3] == "scalar" for k in m.kernels())
    assert "fuse-dq-mul-q" in m.explain()


def test_run_reads_contiguous_input_in_place_and_copies_others(mul_add, random_u8):
    m = qrt.compile(mul_add)
    big = random_u8((1, 8, 4, 8))
    strided = big[..., ::2]  # not contiguous: copied
    out1 = m.run({"x": strided})
    out2 = m.run({"x": np.ascontiguousarray(strided)})
    assert qrt.compare(out1, out2)["y"]["differ"] == 0


def test_outputs_survive_the_next_run(mul_add, random_u8):
    m = qrt.compile(mul_add)
    a = m.run({"x": random_u8((1, 8, 4, 4), seed=1)})
    keep = a["y"].copy()
    m.run({"x": random_u8((1, 8, 4, 4), seed=2)})
    np.testing.assert_array_equal(a["y"].view(np.uint32), keep.view(np.uint32))


def test_bad_inputs_raise_qrt_error(mul_add, random_u8):
    m = qrt.compile(mul_add)
    with pytest.raises(qrt.Error, match="missing input 'x'"):
        m.run({})
    with pytest.raises(qrt.Error, match="'x'"):  # qrt's message names the input and the dtypes
        m.run({"x": random_u8((1, 8, 4, 4)).astype(np.float32)})
    with pytest.raises(qrt.Error, match="'x'"):
        m.run({"x": random_u8((1, 8, 4, 5))})
    with pytest.raises(qrt.Error, match="no input named 'z'"):
        m.run({"x": random_u8((1, 8, 4, 4)), "z": random_u8((1,))})
    with pytest.raises(qrt.Error, match="no qrt type"):
        m.run({"x": np.zeros((1, 8, 4, 4), np.complex64)})
    with pytest.raises(qrt.Error, match="ISA"):
        qrt.compile(mul_add, isa="avx9000")
    with pytest.raises(qrt.Error, match="threads"):
        qrt.compile(mul_add, threads=0)


def test_profile_lists_every_step(mul_add, random_u8):
    m = qrt.compile(mul_add)
    prof = m.profile({"x": random_u8((1, 8, 4, 4))}, runs=5)
    names = [p[0] for p in prof]
    ops = [p[1] for p in prof]
    assert "qrt:QuantizedMul" in ops and "qrt:QuantizedAdd" in ops
    assert len(set(names)) == len(names)
    assert all(isinstance(p[2], float) and p[2] >= 0 for p in prof)
    with pytest.raises(qrt.Error):
        m.profile({"x": random_u8((1, 8, 4, 4))}, runs=0)


def test_compare_counts_bits_and_steps():
    a = {"f": np.array([0.0, 1.0, np.nan, 2.0], np.float32), "q": np.array([0, 10, 255], np.uint8)}
    b = {"f": np.array([-0.0, 1.0, np.nan, 2.5], np.float32), "q": np.array([0, 7, 255], np.uint8)}
    c = qrt.compare(a, b)
    assert c["f"] == {"differ": 2, "max_abs": 0.5, "max_steps": None}  # -0.0 differs from 0.0 bitwise
    assert c["q"] == {"differ": 1, "max_abs": 3.0, "max_steps": 3}
    big = {"i": np.array([np.iinfo(np.int64).min], np.int64)}
    assert qrt.compare(big, {"i": np.array([np.iinfo(np.int64).max], np.int64)})["i"]["max_steps"] == 2**64 - 1
    with pytest.raises(qrt.Error, match="shape|float32"):
        qrt.compare({"f": a["f"]}, {"f": a["f"][:2]})
    with pytest.raises(qrt.Error, match="outputs differ"):
        qrt.compare(a, {"f": a["f"]})


# exact: the output equals ORT's literal graph bit for bit; else (MobileFaceNet's L2 norm after
# its last quantizer) within float rounding, as the C++ e2e tests take it: ORT's float order
# there depends on the CPU its reference data came from.
@pytest.mark.parametrize("name,exact", [("qdq_yolov8n_224", True), ("qdq_mobilenetv2_224", True),
                                        ("qop_mobilefacenet_faces", False)])
def test_shared_models_none_vs_default_and_ort(name, exact):
    path = shared_model(name)
    inputs, expected = model_io(path, path.with_suffix("") / "ort130_noopt_ref_0")
    plain = qrt.compile(path, passes="none").run(inputs)
    fused = qrt.compile(path).run(inputs)
    assert all(v["differ"] == 0 for v in qrt.compare(plain, fused).values())
    for out, c in qrt.compare(fused, expected).items():
        if exact:
            assert c["differ"] == 0, (out, c)
        else:
            assert c["max_abs"] <= 1e-5 * float(np.max(np.abs(expected[out]))), (out, c)


def test_runs_from_many_threads_agree(mul_add, random_u8):
    import threading

    m = qrt.compile(mul_add)
    feeds = [{"x": random_u8((1, 8, 4, 4), seed=s)} for s in range(8)]
    want = [m.run(f)["y"].copy() for f in feeds]
    errors = []

    def worker(k):
        try:
            for _ in range(50):
                got = m.run(feeds[k])["y"]
                if not np.array_equal(got.view(np.uint32), want[k].view(np.uint32)):
                    errors.append(k)
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a run deadlocked"
    assert errors == []
