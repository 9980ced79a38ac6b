#!/usr/bin/python3
"""com.microsoft MultiHeadAttention's beam-search decoding step (past_sequence_length and
cache_indirection) against ONNX Runtime 1.30 (--opt disabled, one thread): seeded random cases
(batch 1-2, beams 1-3, heads 1-4, head sizes 4-64, buffers of 8-40, every past length, key
masks, attention bias broadcasts, the bias input, scales, mask filter values, the qk output)
and a few chosen ones (head sizes 1, 3 and 128, one beam, scale 1), written as ONNX backend
tests into tests/data/ort_mha_decoding/<case>/ (model.onnx, test_data_set_0/input_k.pb in
graph-input order, ORT's outputs as output_k.pb, and ort_cpu) for tests/e2e/ort_op_cases_test.cc.

  ORT_PEER_DIR=... /usr/bin/python3 tools/audit/mha_decoding_cases.py
"""
import json
import os
import random
import shutil
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audit_qdq  # noqa: E402  (write_ort_backend_case)

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "tests", "data", "ort_mha_decoding")


def build(d, cfg):
    os.makedirs(d + "/inputs", exist_ok=True)
    rng = np.random.default_rng(cfg.get("seed", 0))
    B = cfg["batch"] * cfg["beam"]; N = cfg["heads"]; H = cfg["head"]; M = cfg["max_seq"]
    Hv = cfg.get("vhead", H)
    S = cfg.get("S", 1); L = cfg.get("L", S)
    P = cfg["past"]
    D = N * H; Dv = N * Hv
    sc = cfg.get("amp", 1.0)
    ins = []; names = []; feeds = {}
    def add(name, arr, elem):
        ins.append(helper.make_tensor_value_info(name, elem, list(arr.shape)))
        names.append(name); feeds[name] = arr
    f32 = lambda *s: (rng.standard_normal(s) * sc).astype(np.float32)
    add("query", f32(B, S, D), TensorProto.FLOAT)
    if cfg.get("cross"):
        add("key", f32(B, N, L, H), TensorProto.FLOAT)
        add("value", f32(B, N, L, Hv), TensorProto.FLOAT)
    else:
        add("key", f32(B, L, D), TensorProto.FLOAT)
        add("value", f32(B, L, Dv), TensorProto.FLOAT)
    if cfg.get("bias"):
        add("bias", (rng.standard_normal(2 * D + Dv) * 0.5).astype(np.float32), TensorProto.FLOAT)
    else:
        names.append("")
    if cfg.get("mask"):
        mshape = cfg["mask"]  # e.g. "BT" -> [B, P+1]; or explicit list
        T = P + L
        if mshape == "BT":
            m = (rng.random((B, T)) > 0.3).astype(np.int32)
        elif mshape == "BM":
            m = (rng.random((B, M)) > 0.3).astype(np.int32)
        elif mshape == "B":
            m = rng.integers(1, T + 1, size=(B,)).astype(np.int32)
        else:
            raise ValueError(mshape)
        add("key_padding_mask", m, TensorProto.INT32)
    else:
        names.append("")
    if cfg.get("attn_bias"):
        ab = cfg["attn_bias"]  # [b0, b1, S, T?]
        shp = [B if ab[0] == "B" else 1, N if ab[1] == "N" else 1, S, ab[2]]
        add("attention_bias", f32(*shp), TensorProto.FLOAT)
    else:
        names.append("")
    if cfg.get("pastkv", True):
        add("past_key", f32(B, N, M, H), TensorProto.FLOAT)
        add("past_value", f32(B, N, M, Hv), TensorProto.FLOAT)
    else:
        names += ["", ""]
    if cfg.get("psl", True):
        shp = cfg.get("psl_shape", [])
        add("past_sequence_length", np.array(P, dtype=np.int32).reshape(shp), TensorProto.INT32)
    else:
        names.append("")
    if cfg.get("ci", True):
        ci = rng.integers(0, cfg["beam"], size=(cfg["batch"], cfg["beam"], M)).astype(np.int32)
        if cfg.get("ci_shape") == "flat":
            ci = ci.reshape(B, M)
        add("cache_indirection", ci, TensorProto.INT32)
    while names and names[-1] == "":
        names.pop()
    outs_n = cfg.get("outs", ["output", "present_key", "present_value"])
    outs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) if o else None for o in outs_n]
    attrs = {"num_heads": N}
    if "scale" in cfg: attrs["scale"] = cfg["scale"]
    if "mfv" in cfg: attrs["mask_filter_value"] = cfg["mfv"]
    if cfg.get("uni"): attrs["unidirectional"] = 1
    node = helper.make_node("MultiHeadAttention", names, outs_n, domain="com.microsoft", **attrs)
    g = helper.make_graph([node], "g", ins, [o for o in outs if o is not None])
    mdl = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    mdl.ir_version = 8
    onnx.save(mdl, d + "/model.onnx")
    for k, v in feeds.items():
        np.save(f"{d}/inputs/{k}.npy", v)


def random_cases(count, seed):
    """Configurations drawn as the study that found the step's order drew them."""
    rnd = random.Random(seed)
    out = {}
    for i in range(count):
        batch, beam, heads = rnd.choice([1, 2]), rnd.choice([1, 2, 3]), rnd.choice([1, 2, 3, 4])
        head = rnd.choice([4, 5, 7, 8, 12, 16, 17, 24, 31, 32, 40, 64])
        m = rnd.choice([8, 12, 17, 24, 33, 40])
        past = m - 1 if rnd.random() < 0.3 else rnd.randint(1, m - 1)
        cfg = dict(batch=batch, beam=beam, heads=heads, head=head, max_seq=m, past=past, seed=seed * 1000 + i,
                   amp=rnd.choice([0.5, 1.0, 2.0, 4.0]), outs=["output", "present_key", "present_value", "qk"])
        if rnd.random() < 0.4:
            cfg["mask"] = "BT"
        if rnd.random() < 0.4:
            cfg["attn_bias"] = [rnd.choice("B1"), rnd.choice("N1"), past + 1]
            if cfg["attn_bias"][:2] == ["B", "1"] and (batch - 1) * heads >= batch * beam:
                cfg["attn_bias"][1] = "N"  # ORT reads past the bias there; qrt refuses it
        if rnd.random() < 0.4:
            cfg["bias"] = True
        if rnd.random() < 0.25:
            cfg["scale"] = rnd.choice([0.125, 0.3, 1.0])
        if rnd.random() < 0.2:
            cfg["mfv"] = rnd.choice([-1e9, -5.0, -3.4e38])
        if rnd.random() < 0.3:
            cfg["outs"] = ["output", "present_key", "present_value"]
        out[f"random_{i}"] = cfg
    return out


CHOSEN = {
    "head1_beam3": dict(batch=1, beam=3, heads=2, head=1, max_seq=12, past=9, seed=1),
    "head3_mask": dict(batch=2, beam=2, heads=1, head=3, max_seq=8, past=5, seed=2, mask="BT"),
    "head128_long": dict(batch=1, beam=2, heads=1, head=128, max_seq=40, past=39, seed=3, mask="BT", bias=True),
    "one_beam_scale1": dict(batch=2, beam=1, heads=4, head=16, max_seq=17, past=12, seed=4, scale=1.0,
                            outs=["output", "present_key", "present_value", "qk"]),
    "bias_per_batch_head": dict(batch=2, beam=2, heads=2, head=8, max_seq=12, past=6, seed=5, attn_bias=["B", "N", 7]),
    "bias_shared": dict(batch=2, beam=2, heads=2, head=8, max_seq=12, past=6, seed=6, attn_bias=["1", "1", 7]),
    "past_one": dict(batch=2, beam=2, heads=2, head=20, max_seq=24, past=1, seed=7),
}


def write_data(name, cfg, work):
    d = os.path.join(work, name)
    build(d, cfg)
    audit_qdq.write_ort_backend_case(d, os.path.join(d, "inputs"), os.path.join(DATA, name))


if __name__ == "__main__":
    work = tempfile.mkdtemp(prefix="qrt-mha-decoding-")
    cases = {**random_cases(24, 71), **CHOSEN}
    for name, cfg in cases.items():
        write_data(name, cfg, work)
        print(name, json.dumps({k: v for k, v in cfg.items() if k not in ("outs", "seed")}))
    shutil.rmtree(work)
