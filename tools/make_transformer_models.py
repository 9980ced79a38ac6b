#!/usr/bin/python3
"""Writes small transformers in the forms users bring from ONNX Runtime's tool chain, with inputs
and ONNX Runtime 1.30's outputs of the literal graph (--opt disabled), into models/:

  bert_tiny_qdq        a BERT-like encoder (2 layers, hidden 64, 4 heads, FFN 256, 32 tokens) of
                       plain ONNX ops, in quantize_static's QDQ form: uint8 QuantizeLinear ->
                       DequantizeLinear on every MatMul's activation inputs (scales from a
                       calibration run of the float model), int8 weights -> DequantizeLinear.
  bert_tiny_dynamic    the same float encoder in quantize_dynamic's form: DynamicQuantizeLinear
                       -> MatMulInteger -> Cast -> Mul(x_scale * w_scale) -> Add(bias).
  bert_tiny_ort_fused  the same encoder as ORT's transformer optimizer leaves it (float):
                       EmbedLayerNormalization, Attention, SkipLayerNormalization, BiasGelu and
                       FastGelu (com.microsoft).
  bert_tiny_qattention bert_tiny_ort_fused through quantize_dynamic: QEmbedLayerNormalization,
                       DynamicQuantizeLinear -> QAttention, MatMulInteger chains.
  decoder_nbits_rope   one decoder block of a small language model: RMS norms, 4-bit
                       MatMulNBits projections, RotaryEmbedding, causal attention of plain ops,
                       SiLU-gated FFN.

The float encoders are written first and then rewritten op by op as ONNX Runtime's quantizers
rewrite them (to_qdq, to_dynamic below); the weights are random (fixed seeds), only the structure
and the numerics matter. Needs the ORT peer (../shared/peers/ort, ORT_PEER_DIR) for the
calibration run and the expected outputs:
  /usr/bin/python3 tools/make_transformer_models.py
"""
import copy
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_models  # noqa: E402
from make_style_models import const, ort_outputs, save  # noqa: E402  (ORT peer run, models/<name>/ layout)

MS = "com.microsoft"
OPSETS = [helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)]

# The encoder's sizes.
SEQ, HIDDEN, HEADS, FFN, LAYERS, VOCAB = 32, 64, 4, 256, 2, 512
HEAD = HIDDEN // HEADS
LN_EPS = 1e-12  # BERT's


class Graph:
    """Nodes and initializers being collected. Each node is named after its (first) output, which
    the caller names: the calibration run and the quantizers' rewrites find tensors by name."""

    def __init__(self):
        self.nodes, self.inits = [], []

    def init(self, name, array):
        self.inits.append(const(name, array))
        return name

    def op(self, op_type, inputs, out, domain="", n_out=1, **attrs):
        """Adds one node named `out`; returns its output name (or names when n_out > 1)."""
        outs = [out] if n_out == 1 else [f"{out}_{k}" for k in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=out, domain=domain, **attrs))
        return outs[0] if n_out == 1 else outs

    def model(self, name, inputs, outputs):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=OPSETS, producer_name="qrt")
        model.ir_version = 8
        return model


def toposort(graph):
    """Reorders graph.node so that every node follows its inputs' producers; the rewrites below
    append new nodes at the end. Stable: among ready nodes the earliest first."""
    ready = {i.name for i in graph.input} | {i.name for i in graph.initializer} | {""}
    pending, order = list(graph.node), []
    while pending:
        k = next(k for k, n in enumerate(pending) if all(i in ready for i in n.input))
        node = pending.pop(k)
        order.append(node)
        ready.update(node.output)
    del graph.node[:]
    graph.node.extend(order)


def consumers_rename(graph, old, new):
    for node in graph.node:
        for k, name in enumerate(node.input):
            if name == old:
                node.input[k] = new


def take_initializer(graph, name):
    """Removes the initializer `name` from the graph and returns its value."""
    t = next(t for t in graph.initializer if t.name == name)
    graph.initializer.remove(t)
    return numpy_helper.to_array(t)


# ----------------------------------------------------------------------------------------------
# quantization parameters as onnxruntime.quantization computes them

def activation_params(lo, hi):
    """uint8, asymmetric, the range widened to hold 0 (quant_utils.compute_scale_zp)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = np.float32((hi - lo) / 255.0) if hi > lo else np.float32(1.0)
    zp = np.uint8(np.clip(np.round(-lo / float(scale)), 0, 255))
    return scale, zp


def quantize_weight(w, signed):
    """Per-tensor weight codes: int8 symmetric in [-127, 127] with zero point 0 (the quantizers'
    default QInt8), or uint8 asymmetric (QUInt8)."""
    if signed:
        scale = np.float32(np.abs(w).max() / 127.0)
        zp = np.int8(0)
        codes = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
    else:
        scale, zp = activation_params(w.min(), w.max())
        codes = np.clip(np.round(w / scale) + float(zp), 0, 255).astype(np.uint8)
    return codes, scale, zp


# ----------------------------------------------------------------------------------------------
# the float BERT encoder and its inputs

def bert_weights():
    rng = np.random.default_rng(2024)

    def normal(std, *shape):
        return rng.normal(0.0, std, size=shape).astype(np.float32)

    # Wider than BERT's 0.02 initialization so that attention is far from uniform and the
    # quantization visibly matters: with unit-variance rows, q and k have a spread near 1.
    w = {"word": normal(1.0, VOCAB, HIDDEN), "pos": normal(0.5, SEQ, HIDDEN),
         "emb_g": 1 + normal(0.1, HIDDEN), "emb_b": normal(0.1, HIDDEN)}
    for layer in range(LAYERS):
        p = f"l{layer}_"
        for m in "qkvo":
            w[p + m + "_w"] = normal(0.125, HIDDEN, HIDDEN)
            w[p + m + "_b"] = normal(0.05, HIDDEN)
        w[p + "ff1_w"], w[p + "ff1_b"] = normal(0.125, HIDDEN, FFN), normal(0.1, FFN)
        w[p + "ff2_w"], w[p + "ff2_b"] = normal(0.0625, FFN, HIDDEN), normal(0.05, HIDDEN)
        for ln in ("ln1", "ln2"):
            w[p + ln + "_g"], w[p + ln + "_b"] = 1 + normal(0.1, HIDDEN), normal(0.1, HIDDEN)
    return w


def bert_inputs():
    rng = np.random.default_rng(2025)
    ids = rng.integers(0, VOCAB, size=(1, SEQ), dtype=np.int64)
    valid = 27  # right padding: the last 5 tokens are masked out
    mask = (np.arange(SEQ) < valid).astype(np.int64)[None, :]
    return [("input_ids", ids), ("attention_mask", mask)]


BERT_IO = ([helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, SEQ]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, SEQ])],
           [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [1, SEQ, HIDDEN])])


def bert_float(w):
    """The encoder as a PyTorch export of Hugging Face's BertModel writes it (opset 17)."""
    g = Graph()
    c = {}

    def scalar(name, value):  # shared float constants
        if name not in c:
            c[name] = g.init(name, np.float32(value))
        return c[name]

    heads_shape = g.init("heads_shape", np.array([1, SEQ, HEADS, HEAD], dtype=np.int64))
    flat_shape = g.init("hidden_shape", np.array([1, SEQ, HIDDEN], dtype=np.int64))

    word = g.op("Gather", [g.init("word_embeddings", w["word"]), "input_ids"], "word_emb")
    pos_ids = g.init("position_ids", np.arange(SEQ, dtype=np.int64)[None, :])
    pos = g.op("Gather", [g.init("position_embeddings", w["pos"]), pos_ids], "pos_emb")
    emb = g.op("Add", [word, pos], "emb_sum")
    x = g.op("LayerNormalization", [emb, g.init("emb_ln_g", w["emb_g"]), g.init("emb_ln_b", w["emb_b"])],
             "emb_ln", axis=-1, epsilon=LN_EPS)

    # (1 - mask) * -10000, broadcast over heads and query rows: [1, 1, 1, SEQ].
    m = g.op("Unsqueeze", ["attention_mask", g.init("mask_axes", np.array([1, 2], dtype=np.int64))], "mask_4d")
    m = g.op("Cast", [m], "mask_float", to=TensorProto.FLOAT)
    m = g.op("Sub", [scalar("one", 1.0), m], "mask_inv")
    mask_bias = g.op("Mul", [m, scalar("mask_fill", -10000.0)], "mask_bias")

    def linear(x, p, name):
        y = g.op("MatMul", [x, g.init(p + name + "_w", w[p + name + "_w"])], p + name + "_mm")
        return g.op("Add", [y, g.init(p + name + "_b", w[p + name + "_b"])], p + name)

    for layer in range(LAYERS):
        p = f"l{layer}_"
        q, k, v = (g.op("Reshape", [linear(x, p, n), heads_shape], p + n + "_heads") for n in "qkv")
        q = g.op("Transpose", [q], p + "q_t", perm=[0, 2, 1, 3])
        k = g.op("Transpose", [k], p + "k_t", perm=[0, 2, 3, 1])  # K^T directly, as the export does
        v = g.op("Transpose", [v], p + "v_t", perm=[0, 2, 1, 3])
        s = g.op("MatMul", [q, k], p + "scores")
        s = g.op("Div", [s, scalar("sqrt_head", np.sqrt(HEAD))], p + "scores_scaled")
        s = g.op("Add", [s, mask_bias], p + "scores_masked")
        s = g.op("Softmax", [s], p + "probs", axis=-1)
        ctx = g.op("MatMul", [s, v], p + "context")
        ctx = g.op("Transpose", [ctx], p + "context_t", perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, flat_shape], p + "context_flat")
        o = linear(ctx, p, "o")
        o = g.op("Add", [o, x], p + "attn_residual")
        x = g.op("LayerNormalization", [o, g.init(p + "ln1_g", w[p + "ln1_g"]), g.init(p + "ln1_b", w[p + "ln1_b"])],
                 p + "ln1", axis=-1, epsilon=LN_EPS)
        # GELU in the erf form the export writes: x * 0.5 * (1 + erf(x / sqrt(2))).
        f = linear(x, p, "ff1")
        e = g.op("Div", [f, scalar("sqrt2", np.sqrt(2.0))], p + "gelu_div")
        e = g.op("Erf", [e], p + "gelu_erf")
        e = g.op("Add", [e, scalar("one", 1.0)], p + "gelu_add")
        h = g.op("Mul", [f, scalar("half", 0.5)], p + "gelu_half")
        f = g.op("Mul", [h, e], p + "gelu")
        f = linear(f, p, "ff2")
        f = g.op("Add", [f, x], p + "ffn_residual")
        out = "last_hidden_state" if layer == LAYERS - 1 else p + "ln2"
        x = g.op("LayerNormalization", [f, g.init(p + "ln2_g", w[p + "ln2_g"]), g.init(p + "ln2_b", w[p + "ln2_b"])],
                 out, axis=-1, epsilon=LN_EPS)
    return g.model("bert_tiny", *BERT_IO)


def matmul_activations(model):
    """The non-initializer inputs of the MatMuls, in first-use order."""
    inits = {t.name for t in model.graph.initializer}
    out = []
    for node in model.graph.node:
        if node.op_type == "MatMul":
            out += [i for i in node.input if i not in inits and i not in out]
    return out


def calibrate(model, inputs, names):
    """Min and max of each named tensor in ORT's run of the float model on the inputs (what
    quantize_static's MinMax calibrator records for one calibration sample)."""
    probe = copy.deepcopy(model)
    probe.graph.output.extend(helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in names)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "float.onnx")
        onnx.save(probe, path)
        values = ort_outputs(path, inputs, names)
    return {n: (a.min(), a.max()) for n, a in values}


# ----------------------------------------------------------------------------------------------
# the quantizers' rewrites

def to_qdq(model, ranges):
    """quantize_static(quant_format=QDQ, op_types_to_quantize=["MatMul"]): each MatMul input that
    is an activation gets one QuantizeLinear -> DequantizeLinear pair (uint8) which every consumer
    of the tensor then reads (the quantizer renames the tensor in all of them, the residual Adds
    too); each weight becomes int8 codes -> DequantizeLinear (per tensor, zero point 0)."""
    model = copy.deepcopy(model)
    g = model.graph
    inits = {t.name for t in g.initializer}
    new = []
    for name in matmul_activations(model):
        scale, zp = activation_params(*ranges[name])
        g.initializer.extend([const(name + "_scale", scale), const(name + "_zero_point", zp)])
        consumers_rename(g, name, name + "_DequantizeLinear_Output")
        new.append(helper.make_node("QuantizeLinear", [name, name + "_scale", name + "_zero_point"],
                                    [name + "_QuantizeLinear_Output"], name=name + "_QuantizeLinear"))
        new.append(helper.make_node("DequantizeLinear", [name + "_QuantizeLinear_Output", name + "_scale",
                                                         name + "_zero_point"],
                                    [name + "_DequantizeLinear_Output"], name=name + "_DequantizeLinear"))
    for node in list(g.node):
        if node.op_type == "MatMul" and node.input[1] in inits:
            w = node.input[1]
            codes, scale, zp = quantize_weight(take_initializer(g, w), signed=True)
            g.initializer.extend([const(w + "_quantized", codes), const(w + "_scale", scale),
                                  const(w + "_zero_point", zp)])
            new.append(helper.make_node("DequantizeLinear", [w + "_quantized", w + "_scale", w + "_zero_point"],
                                        [w + "_DequantizeLinear_Output"], name=w + "_DequantizeLinear"))
            node.input[1] = w + "_DequantizeLinear_Output"
    g.node.extend(new)
    toposort(g)
    return model


def dynamic_input(g, x, done):
    """One DynamicQuantizeLinear per activation, shared by all its quantized consumers."""
    if x not in done:
        done[x] = [x + "_quantized", x + "_scale", x + "_zero_point"]
        g.node.append(helper.make_node("DynamicQuantizeLinear", [x], done[x], name=x + "_QuantizeLinear"))
    return done[x]


def to_dynamic(model, signed):
    """quantize_dynamic(op_types_to_quantize=["MatMul", "Attention", "EmbedLayerNormalization"]):
    every MatMul with a weight becomes DynamicQuantizeLinear(x) -> MatMulInteger -> Cast(float)
    -> Mul(x_scale * w_scale); its bias Add stays. Attention becomes DynamicQuantizeLinear ->
    QAttention, EmbedLayerNormalization QEmbedLayerNormalization (uint8 tables). `signed(w)`:
    whether weight w gets int8 symmetric codes (QInt8) or uint8 ones with a zero point (QUInt8).
    The MatMuls of two activations (attention's scores and context) stay float."""
    model = copy.deepcopy(model)
    g = model.graph
    inits = {t.name for t in g.initializer}
    done = {}

    def weight(w):
        codes, scale, zp = quantize_weight(take_initializer(g, w), signed(w))
        g.initializer.extend([const(w + "_quantized", codes), const(w + "_scale", scale),
                              const(w + "_zero_point", zp)])
        return w + "_quantized", w + "_scale", w + "_zero_point"

    for node in list(g.node):
        if node.op_type == "MatMul" and node.input[1] in inits:
            xq, xs, xz = dynamic_input(g, node.input[0], done)
            wq, ws, wz = weight(node.input[1])
            y = node.output[0]
            g.node.remove(node)
            g.node.extend([
                helper.make_node("MatMulInteger", [xq, wq, xz, wz], [y + "_quantized"], name=node.name + "_quant"),
                helper.make_node("Cast", [y + "_quantized"], [y + "_quantized_cast"], name=node.name + "_cast",
                                 to=TensorProto.FLOAT),
                helper.make_node("Mul", [xs, ws], [y + "_scales"], name=node.name + "_scales_mul"),
                helper.make_node("Mul", [y + "_quantized_cast", y + "_scales"], [y], name=node.name + "_output_mul"),
            ])
        elif node.op_type == "Attention":
            xq, xs, xz = dynamic_input(g, node.input[0], done)
            wq, ws, wz = weight(node.input[1])
            ins = [xq, wq, node.input[2], xs, ws, node.input[3], xz, wz]
            g.node.remove(node)
            g.node.append(helper.make_node("QAttention", ins, list(node.output), name=node.name + "_quant",
                                           domain=MS, num_heads=HEADS))
        elif node.op_type == "EmbedLayerNormalization":
            # QEmbedLayerNormalization: inputs 2-6 as uint8 codes, then their scales (8-12) and
            # zero points (13-17); the absent segment table leaves its three slots empty.
            codes, scales, zero_points = [], [], []
            for t in node.input[2:7]:
                if t:
                    c, scale, zp = quantize_weight(take_initializer(g, t), signed=False)
                    g.initializer.extend([const(t + "_quantized", c), const(t + "_scale", scale),
                                          const(t + "_zero_point", zp)])
                codes.append(t and t + "_quantized")
                scales.append(t and t + "_scale")
                zero_points.append(t and t + "_zero_point")
            ins = list(node.input[:2]) + codes + [node.input[7]] + scales + zero_points
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            g.node.remove(node)
            g.node.append(helper.make_node("QEmbedLayerNormalization", ins, list(node.output[:2]),
                                           name=node.name + "_quant", domain=MS, **attrs))
    toposort(g)
    return model


# ----------------------------------------------------------------------------------------------
# the encoder as ORT's transformer optimizer fuses it

def bert_fused(w):
    g = Graph()
    ids = g.op("Cast", ["input_ids"], "input_ids_int32", to=TensorProto.INT32)
    mask = g.op("Cast", ["attention_mask"], "attention_mask_int32", to=TensorProto.INT32)

    def skip_ln(x, skip, ln, bias, out):  # LayerNorm(x + bias + skip), the bias of the MatMul before
        ins = [x, skip, g.init(ln + "_g", w[ln + "_g"]), g.init(ln + "_b", w[ln + "_b"]), g.init(bias, w[bias])]
        return g.op("SkipLayerNormalization", ins, out, domain=MS, epsilon=LN_EPS)

    x, mask_index = g.op("EmbedLayerNormalization",
                         [ids, "", g.init("word_embeddings", w["word"]), g.init("position_embeddings", w["pos"]), "",
                          g.init("emb_ln_g", w["emb_g"]), g.init("emb_ln_b", w["emb_b"]), mask],
                         "embed_ln", domain=MS, n_out=2, epsilon=LN_EPS)
    for layer in range(LAYERS):
        p = f"l{layer}_"
        qkv_w = np.concatenate([w[p + m + "_w"] for m in "qkv"], axis=1)
        qkv_b = np.concatenate([w[p + m + "_b"] for m in "qkv"])
        a = g.op("Attention", [x, g.init(p + "qkv_w", qkv_w), g.init(p + "qkv_b", qkv_b), mask_index],
                 p + "attention", domain=MS, num_heads=HEADS)
        a = g.op("MatMul", [a, g.init(p + "o_w", w[p + "o_w"])], p + "o_mm")
        x = skip_ln(a, x, p + "ln1", p + "o_b", p + "ln1")
        f = g.op("MatMul", [x, g.init(p + "ff1_w", w[p + "ff1_w"])], p + "ff1_mm")
        # Layer 0 keeps the erf GELU (BiasGelu); layer 1 has the tanh approximation that the
        # optimizer fuses from gelu_new models (FastGelu with its bias), so both ops are met.
        gelu = "BiasGelu" if layer == 0 else "FastGelu"
        f = g.op(gelu, [f, g.init(p + "ff1_b", w[p + "ff1_b"])], p + "gelu", domain=MS)
        f = g.op("MatMul", [f, g.init(p + "ff2_w", w[p + "ff2_w"])], p + "ff2_mm")
        out = "last_hidden_state" if layer == LAYERS - 1 else p + "ln2"
        x = skip_ln(f, x, p + "ln2", p + "ff2_b", out)
    return g.model("bert_tiny_ort_fused", *BERT_IO)


def check_outputs(name):
    """The saved expected outputs must be finite and far from constant."""
    d = os.path.join(make_models.ROOT, name, "test_data_set_0")
    k = 0
    while os.path.exists(os.path.join(d, f"output_{k}.pb")):
        a = numpy_helper.to_array(onnx.load_tensor(os.path.join(d, f"output_{k}.pb")))
        assert np.isfinite(a).all(), (name, k)
        assert np.unique(a).size > a.size // 2 and a.std() > 0.1, (name, k, np.unique(a).size, a.std())
        print(f"  output_{k}: min {a.min():.4f} max {a.max():.4f} std {a.std():.4f}, {np.unique(a).size} distinct")
        k += 1


def save_checked(name, model, inputs, readme):
    """save() and check_outputs(). SimplifiedLayerNormalization is an op ORT registers in the
    ONNX domain without ONNX defining it, which onnx.checker rejects: the checker then sees a
    copy with it in com.microsoft (everything else is checked as usual) and save()'s own check
    is skipped."""
    if any(n.op_type == "SimplifiedLayerNormalization" and not n.domain for n in model.graph.node):
        probe = copy.deepcopy(model)
        for n in probe.graph.node:
            if n.op_type == "SimplifiedLayerNormalization":
                n.domain = MS
        onnx.checker.check_model(probe)
        check, onnx.checker.check_model = onnx.checker.check_model, lambda m: None
        try:
            save(name, model, inputs, readme)
        finally:
            onnx.checker.check_model = check
    else:
        save(name, model, inputs, readme)
    check_outputs(name)


def op_list(model):
    seen = []
    for node in model.graph.node:
        name = (node.domain + "." if node.domain else "") + node.op_type
        if name not in seen:
            seen.append(name)
    return ", ".join(seen)


BERT_TEXT = f"""The encoder: {LAYERS} layers, hidden {HIDDEN}, {HEADS} heads of {HEAD}, FFN {FFN}, vocabulary {VOCAB},
{SEQ} tokens; word and position embeddings, no token types. Inputs `input_ids` and
`attention_mask`, int64 [1, {SEQ}] (ids uniform, seed 2025; the mask 1 for the first 27 tokens, 0
for the last 5); output `last_hidden_state`, float [1, {SEQ}, {HIDDEN}]. Random weights (seed 2024,
std 0.125 for the projections so that attention is far from uniform; LayerNorm gammas near 1),
shared by bert_tiny_qdq, bert_tiny_dynamic, bert_tiny_ort_fused and bert_tiny_qattention."""

ORT_TEXT = """`test_data_set_0`: the inputs and ONNX Runtime 1.30's output of the literal graph (`--opt
disabled`, one thread). Made by `tools/make_transformer_models.py`. `ort_cpu` names the class of
the CPU ORT ran on: MLAS's float Softmax (alone and inside Attention) sums sixteen lanes on a CPU
with AVX-512F and eight on an AVX2 one, so what a float softmax feeds can differ in the last bits
between the two (docs/float-order.md, "kernels that depend on the CPU"); the tests make qrt
reproduce that class's kernels (QRT_ORT_CPU) on any machine."""


def bert_models():
    w = bert_weights()
    inputs = bert_inputs()
    plain = bert_float(w)
    names = matmul_activations(plain)
    ranges = calibrate(plain, inputs, names)

    qdq = to_qdq(plain, ranges)
    save_checked("bert_tiny_qdq", qdq, inputs, f"""# bert_tiny_qdq

A BERT-like encoder of plain ONNX ops (opset 17) in the QDQ form of
`onnxruntime.quantization.quantize_static(quant_format=QDQ, op_types_to_quantize=["MatMul"])`:
Gather word and position embeddings, Add, LayerNormalization; per layer Q, K and V MatMul + Add
bias, Reshape/Transpose to heads (K transposed to K^T directly), MatMul Q K^T, Div by sqrt(16),
Add the mask bias ((1 - mask) * -10000 from `attention_mask` by Unsqueeze, Cast, Sub, Mul),
Softmax, MatMul V, Transpose/Reshape back, output MatMul + Add, residual Add, LayerNormalization,
FFN MatMul + Add, GELU in its erf form (Div by sqrt 2, Erf, Add 1, Mul by x, Mul by 0.5), MatMul
+ Add, residual Add, LayerNormalization.

Quantization: each of the {len(names)} activations read by a MatMul (the LayerNorm outputs feeding Q/K/V
and the FFN, the per-head Q, K^T, V, the softmax probabilities, the context, the GELU output)
has one QuantizeLinear -> DequantizeLinear pair, uint8, per-tensor scale and zero point from
the min and max (widened to hold 0) of ORT's run of the float model on this input; as the
quantizer does, every consumer of such a tensor reads the dequantized copy, the residual Adds
too. Each of the {4 * LAYERS + 2 * LAYERS} weight matrices is an int8 initializer (symmetric, zero point 0,
scale max|w| / 127) -> DequantizeLinear. Biases, embeddings and LayerNorm stay float.

{BERT_TEXT}

Ops: {op_list(qdq)}.

{ORT_TEXT}
""")

    # Layer 0's weights as QUInt8 (uint8 codes with a zero point), layer 1's as QInt8 (int8,
    # symmetric): quantize_dynamic takes one weight_type per run; both are met here.
    dynamic = to_dynamic(plain, signed=lambda w: not w.startswith("l0_"))
    save_checked("bert_tiny_dynamic", dynamic, inputs, f"""# bert_tiny_dynamic

The float encoder of bert_tiny_qdq in the form of
`onnxruntime.quantization.quantize_dynamic(op_types_to_quantize=["MatMul"])`: each MatMul with a
weight becomes DynamicQuantizeLinear(x) -> MatMulInteger(x_q, W_q, x_zero_point, W_zero_point)
-> Cast(float) -> Mul by (x_scale * W_scale), followed by the model's own bias Add. One
DynamicQuantizeLinear per activation, shared (the Q, K and V projections read one). Layer 0's
weights are uint8 with a zero point (weight_type QUInt8, range widened to hold 0), layer 1's
int8 symmetric with zero point 0 (QInt8, scale max|w| / 127), per tensor. The attention
MatMuls of two activations (Q K^T, probabilities x V), the embeddings (Gather) and everything
else stay float.

{BERT_TEXT}

Ops: {op_list(dynamic)}.

{ORT_TEXT}
""")

    fused = bert_fused(w)
    fused_text = f"""com.microsoft EmbedLayerNormalization (int64 inputs Cast to int32, no segment ids or
table, `attention_mask` -> mask_index [1] int32), then per layer Attention (num_heads {HEADS},
weights [{HIDDEN}, {3 * HIDDEN}] = Q|K|V, bias [{3 * HIDDEN}], the 1-D mask_index: right padding),
output MatMul -> SkipLayerNormalization (skip = the layer input, the output bias as its `bias`), FFN MatMul ->
BiasGelu (layer 0, erf GELU) or FastGelu with bias (layer 1, the tanh approximation the
optimizer fuses from gelu_new models) -> MatMul -> SkipLayerNormalization (with bias)."""
    save_checked("bert_tiny_ort_fused", fused, inputs, f"""# bert_tiny_ort_fused

The encoder of bert_tiny_qdq as ONNX Runtime's transformer optimizer
(`onnxruntime.transformers.optimizer`, model_type bert) leaves it, float weights:
{fused_text}

The attention masks padded keys with Attention's mask_filter_value (-10000) and layer 1's GELU
is the tanh form, so the output is close to, not equal to, the float encoder's.

{BERT_TEXT}

Ops: {op_list(fused)}.

{ORT_TEXT}
""")

    qattention = to_dynamic(fused, signed=lambda w: not w.startswith("l0_"))
    save_checked("bert_tiny_qattention", qattention, inputs, f"""# bert_tiny_qattention

bert_tiny_ort_fused in the form `quantize_dynamic` gives a fused model: EmbedLayerNormalization
becomes QEmbedLayerNormalization (word and position tables, gamma and beta as uint8 codes with a
per-tensor scale and zero point); each Attention DynamicQuantizeLinear -> QAttention (uint8
input, weights [{HIDDEN}, {3 * HIDDEN}] per tensor, float bias, mask_index); each MatMul
DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul(x_scale * W_scale) before its
SkipLayerNormalization / BiasGelu / FastGelu. Layer 0's weights uint8 with a zero point
(QUInt8), layer 1's int8 symmetric (QInt8).

Before quantization:
{fused_text}

{BERT_TEXT}

Ops: {op_list(qattention)}.

{ORT_TEXT}
""")


# ----------------------------------------------------------------------------------------------
# a decoder block with 4-bit weights

D_SEQ, D_HIDDEN, D_HEADS, D_FFN, BLOCK, MAX_POS = 64, 128, 4, 256, 32, 128
D_HEAD = D_HIDDEN // D_HEADS


def nbits_weight(w, with_zero_points):
    """MatMulNBits' B, scales and zero points for the float weight w [K, N]: per block of BLOCK
    along K, 4-bit codes, two a byte (the even k in the low nibble). With zero points the block's
    range [min, max] (holding 0) maps onto 0..15; without, the implied zero point is 8 and the
    scale is the block's value of largest magnitude over -8 (MatMul4BitsQuantizer's symmetric
    mode)."""
    k, n = w.shape
    blocks = w.T.reshape(n, k // BLOCK, BLOCK).astype(np.float64)
    if with_zero_points:
        lo, hi = np.minimum(blocks.min(axis=2), 0), np.maximum(blocks.max(axis=2), 0)
        scale = (hi - lo) / 15
        zp = np.clip(np.round(-lo / scale), 0, 15)
    else:
        idx = np.abs(blocks).argmax(axis=2)
        scale = np.take_along_axis(blocks, idx[..., None], axis=2)[..., 0] / -8
        zp = np.full(scale.shape, 8.0)
    scale = scale.astype(np.float32)
    codes = np.clip(np.round(blocks / scale[..., None].astype(np.float64)) + zp[..., None], 0, 15).astype(np.uint8)
    packed = codes[..., 0::2] | (codes[..., 1::2] << 4)  # [N, blocks, BLOCK / 2]
    zp = zp.astype(np.uint8)
    if zp.shape[1] % 2:
        zp = np.concatenate([zp, np.zeros((n, 1), np.uint8)], axis=1)
    packed_zp = zp[:, 0::2] | (zp[:, 1::2] << 4)  # [N, ceil(blocks / 2)]
    return packed, scale.reshape(-1), (packed_zp.reshape(-1) if with_zero_points else None)


def decoder_nbits_rope():
    rng = np.random.default_rng(31)
    g = Graph()

    def normal(std, *shape):
        return rng.normal(0.0, std, size=shape).astype(np.float32)

    def nbits(x, name, k, n, std, with_zero_points):
        b, s, z = nbits_weight(normal(std, k, n), with_zero_points)
        ins = [x, g.init(name + "_q4", b), g.init(name + "_scales", s)]
        if with_zero_points:
            ins.append(g.init(name + "_zero_points", z))
        return g.op("MatMulNBits", ins, name, domain=MS, K=k, N=n, bits=4, block_size=BLOCK)

    def rms(x, name):
        return g.op("SimplifiedLayerNormalization", [x, g.init(name + "_g", 1 + normal(0.1, D_HIDDEN))], name,
                    axis=-1, epsilon=1e-6)

    # The rotary caches: angle p * 10000^(-2i / head), [MAX_POS, head / 2].
    inv_freq = 10000.0 ** (-np.arange(0, D_HEAD, 2, dtype=np.float64) / D_HEAD)
    angles = np.arange(MAX_POS, dtype=np.float64)[:, None] * inv_freq[None, :]
    cos = g.init("cos_cache", np.cos(angles).astype(np.float32))
    sin = g.init("sin_cache", np.sin(angles).astype(np.float32))
    heads = g.init("heads_shape", np.array([1, D_SEQ, D_HEADS, D_HEAD], dtype=np.int64))
    flat = g.init("hidden_shape", np.array([1, D_SEQ, D_HIDDEN], dtype=np.int64))
    causal = np.triu(np.full((D_SEQ, D_SEQ), -np.inf, dtype=np.float32), k=1)  # keys after the query

    x = rms("hidden", "attn_norm")
    # Zero points on q, v, gate and down; k, o and up take the implied 8.
    q = nbits(x, "q_proj", D_HIDDEN, D_HIDDEN, 0.09, True)
    k = nbits(x, "k_proj", D_HIDDEN, D_HIDDEN, 0.09, False)
    v = nbits(x, "v_proj", D_HIDDEN, D_HIDDEN, 0.09, True)
    q = g.op("RotaryEmbedding", [q, "position_ids", cos, sin], "q_rope", domain=MS, num_heads=D_HEADS)
    k = g.op("RotaryEmbedding", [k, "position_ids", cos, sin], "k_rope", domain=MS, num_heads=D_HEADS)
    q = g.op("Transpose", [g.op("Reshape", [q, heads], "q_heads")], "q_t", perm=[0, 2, 1, 3])
    k = g.op("Transpose", [g.op("Reshape", [k, heads], "k_heads")], "k_t", perm=[0, 2, 3, 1])
    v = g.op("Transpose", [g.op("Reshape", [v, heads], "v_heads")], "v_t", perm=[0, 2, 1, 3])
    s = g.op("MatMul", [q, k], "scores")
    s = g.op("Mul", [s, g.init("attn_scale", np.float32(1 / np.sqrt(D_HEAD)))], "scores_scaled")
    s = g.op("Add", [s, g.init("causal_mask", causal)], "scores_masked")
    s = g.op("Softmax", [s], "probs", axis=-1)
    ctx = g.op("MatMul", [s, v], "context")
    ctx = g.op("Reshape", [g.op("Transpose", [ctx], "context_t", perm=[0, 2, 1, 3]), flat], "context_flat")
    o = nbits(ctx, "o_proj", D_HIDDEN, D_HIDDEN, 0.05, False)
    h = g.op("Add", ["hidden", o], "attn_residual")
    x = rms(h, "ffn_norm")
    gate = nbits(x, "gate_proj", D_HIDDEN, D_FFN, 0.09, True)
    up = nbits(x, "up_proj", D_HIDDEN, D_FFN, 0.09, False)
    silu = g.op("Mul", [gate, g.op("Sigmoid", [gate], "gate_sigmoid")], "gate_silu")
    f = g.op("Mul", [silu, up], "gated")
    f = nbits(f, "down_proj", D_FFN, D_HIDDEN, 0.05, True)
    g.op("Add", [h, f], "output")
    model = g.model("decoder_nbits_rope",
                    [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [1, D_SEQ, D_HIDDEN]),
                     helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, D_SEQ])],
                    [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, D_SEQ, D_HIDDEN])])
    hidden = rng.normal(0.0, 1.0, size=(1, D_SEQ, D_HIDDEN)).astype(np.float32)
    start = int(rng.integers(0, MAX_POS - D_SEQ))
    positions = (start + np.arange(D_SEQ, dtype=np.int64))[None, :]
    inputs = [("hidden", hidden), ("position_ids", positions)]
    save_checked("decoder_nbits_rope", model, inputs, f"""# decoder_nbits_rope

One decoder block of a small Llama-like language model with 4-bit weights: hidden {D_HIDDEN},
{D_HEADS} heads of {D_HEAD}, FFN {D_FFN}, {D_SEQ} tokens. Inputs `hidden` float [1, {D_SEQ}, {D_HIDDEN}] (normal,
seed 31) and `position_ids` int64 [1, {D_SEQ}] ({start} to {start + D_SEQ - 1}); output `output` float
[1, {D_SEQ}, {D_HIDDEN}].

- SimplifiedLayerNormalization (RMS, epsilon 1e-6, gamma near 1) in the ONNX domain, where ORT
  1.30 registers it (it has no com.microsoft one; onnx.checker does not know the op);
- q, k, v: com.microsoft MatMulNBits (bits 4, block_size {BLOCK}, K {D_HIDDEN}, N {D_HIDDEN}; B
  [N, K / {BLOCK}, {BLOCK // 2}] uint8, a float scale per block, accuracy_level 0). q and v carry packed
  4-bit zero points (each block's range, holding 0, onto 0..15); k takes the implied 8 (scale
  = the block's value of largest magnitude / -8, as MatMul4BitsQuantizer's symmetric mode);
- com.microsoft RotaryEmbedding on q and k (3-D input, num_heads {D_HEADS}, not interleaved; cos and
  sin caches [{MAX_POS}, {D_HEAD // 2}], base 10000, as initializers);
- attention of plain ops: Reshape/Transpose to heads (K to K^T), MatMul, Mul by 1/sqrt({D_HEAD}),
  Add a constant [{D_SEQ}, {D_SEQ}] causal mask (-inf above the diagonal, 0 elsewhere), Softmax,
  MatMul V, Transpose/Reshape back;
- o-projection MatMulNBits (no zero points), residual Add;
- SimplifiedLayerNormalization, gate (zero points) and up (none) MatMulNBits N {D_FFN}, SiLU as
  gate * Sigmoid(gate), Mul by up, down MatMulNBits (K {D_FFN}, zero points), residual Add.

Random float weights (seed 31; std 0.09 for q, k, v, gate, up, 0.05 for o and down) quantized
to 4 bits in `tools/make_transformer_models.py`.

Ops: {op_list(model)}.

{ORT_TEXT}
""")


if __name__ == "__main__":
    if not os.environ.get("ORT_PEER_DIR"):
        sys.exit("set ORT_PEER_DIR (bash ../shared/peers/ort/setup.sh)")
    bert_models()
    decoder_nbits_rope()
