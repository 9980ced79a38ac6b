"""Shared helpers for qrt's pytest suite: where the models are, and reading .pb tensors."""
import os
import pathlib

import numpy as np
import pytest

SOURCE = pathlib.Path(os.environ.get("QRT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SHARED = SOURCE.parent / "shared" / "models"


def read_pb(path):
    """A serialized onnx TensorProto as a numpy array."""
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    t = onnx.TensorProto()
    t.ParseFromString(pathlib.Path(path).read_bytes())
    return numpy_helper.to_array(t)


def model_io(model_path, data_dir):
    """(inputs by graph-input name, expected outputs by graph-output name) of a test data folder."""
    import qrt

    g = qrt.load(model_path)
    inputs = {v.name: read_pb(data_dir / f"input_{k}.pb") for k, v in enumerate(g.inputs)}
    outputs = {}
    for k, v in enumerate(g.outputs):
        p = data_dir / f"output_{k}.pb"
        if p.exists():
            outputs[v.name] = read_pb(p)
    return inputs, outputs


def shared_model(name):
    """Path of a model in ../shared/models, or skip the test when it is absent."""
    p = SHARED / f"{name}.onnx"
    if not p.exists():
        pytest.skip(f"{p} is absent")
    return p


@pytest.fixture
def mul_add():
    """The bundled QDQ graph with one DQ->Mul->Q and one DQ->Add->Q chain."""
    return SOURCE / "models" / "qdq_mul_add" / "model.onnx"


@pytest.fixture
def random_u8():
    def make(shape, seed=7):
        return np.random.default_rng(seed).integers(0, 256, size=shape, dtype=np.uint8)

    return make
