#!/usr/bin/python3
"""com.microsoft DynamicQuantizeLSTM cases against ONNX Runtime 1.30 (--opt disabled, one thread):
small models over every option (directions, uint8 and int8 weights, per-tensor and per-column
scales, bias, peepholes, initial states, sequence lengths with empty and finished rows, clip,
input_forget, every activation, Y present or not, inputs on the quantizer's ties), written as
ONNX backend tests into tests/data/ort_dynamic_lstm/<case>/ (model.onnx, test_data_set_0/
input_k.pb in graph-input order and ORT's outputs as output_k.pb, and ort_cpu) for
tests/e2e/ort_op_cases_test.cc.

  ORT_PEER_DIR=... /usr/bin/python3 tools/audit/dynamic_lstm_cases.py [CASE ...]
"""
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audit_qdq  # noqa: E402  (write_ort_backend_case)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = tempfile.mkdtemp(prefix="qrt-dqlstm-")
DATA = os.path.join(HERE, "..", "..", "tests", "data", "ort_dynamic_lstm")


NAMES = ['X', 'W', 'R', 'B', 'sequence_lens', 'initial_h', 'initial_c', 'P',
         'W_scale', 'W_zero_point', 'R_scale', 'R_zero_point']


def make_case(name, seq, batch, inp, hid, direction='forward', wtype='int8', per_channel=False,
              bias=False, peep=False, init_h=False, init_c=False, seq_lens=None, clip=None,
              input_forget=False, weights_as_inputs=False, outputs=('Y', 'Y_h', 'Y_c'),
              x_scale=1.0, w_scale=0.02, zp=None, seed=0, activations=None, alphas=None, betas=None,
              xform=None):
    rng = np.random.default_rng(seed)
    D = 2 if direction == 'bidirectional' else 1
    G = 4 * hid
    X = (rng.standard_normal((seq, batch, inp)) * x_scale).astype(np.float32)
    if xform == 'positive':
        X = np.abs(X)
    elif xform == 'negative':
        X = -np.abs(X)
    elif xform == 'zeros':
        X = np.zeros_like(X)
    elif xform in ('ties', 'recip'):
        # X >= 0 with max 25.5: scale = 0.1f, zero point 0; every other value sits where the
        # rounding rule (ties) or division vs reciprocal (recip) changes the quantized code
        sc = np.float32(np.float32(25.5) / np.float32(255))
        cand = []
        for k in range(255):
            x = np.float32(np.float32(k + 0.5) * sc)
            for u in range(-4, 5):
                y = x
                for _ in range(abs(u)):
                    y = np.nextafter(y, np.float32(np.inf) if u > 0 else np.float32(-np.inf))
                a = np.rint(y / sc)
                b = np.rint(y * (np.float32(1) / sc)) if xform == 'recip' else np.floor(np.float32(y / sc) + 0.5)
                if a != b:
                    cand.append(y)
        X = rng.choice(np.array(cand, np.float32), X.shape).astype(np.float32)
        X.reshape(-1)[rng.integers(X.size)] = np.float32(25.5)
    elif xform == 'tail_big':
        X[max(seq_lens):] *= 10
    signed = wtype == 'int8'
    npt = np.int8 if signed else np.uint8
    if signed:
        W = rng.integers(-127, 128, (D, inp, G)).astype(npt)
        R = rng.integers(-127, 128, (D, hid, G)).astype(npt)
    else:
        W = rng.integers(0, 256, (D, inp, G)).astype(npt)
        R = rng.integers(0, 256, (D, hid, G)).astype(npt)
    if per_channel:
        ws = (rng.uniform(0.5, 1.5, (D, G)) * w_scale).astype(np.float32)
        rs = (rng.uniform(0.5, 1.5, (D, G)) * w_scale).astype(np.float32)
        if signed:
            wz = np.zeros((D, G), npt)
            rz = np.zeros((D, G), npt)
        else:
            z = zp if zp is not None else [128] * D
            wz = np.stack([np.full(G, z[d], npt) for d in range(D)])
            rz = np.stack([np.full(G, z[d], npt) for d in range(D)])
    else:
        ws = (rng.uniform(0.5, 1.5, (D,)) * w_scale).astype(np.float32)
        rs = (rng.uniform(0.5, 1.5, (D,)) * w_scale).astype(np.float32)
        if zp is not None:
            wz = np.array(zp, npt)
            rz = np.array(list(reversed(zp)), npt)
        else:
            wz = np.zeros(D, npt) if signed else np.full(D, 128, npt)
            rz = wz.copy()
    vals = {'X': X, 'W': W, 'R': R, 'W_scale': ws, 'W_zero_point': wz, 'R_scale': rs, 'R_zero_point': rz}
    if bias:
        vals['B'] = (rng.standard_normal((D, 8 * hid)) * 0.5).astype(np.float32)
    if seq_lens is not None:
        vals['sequence_lens'] = np.array(seq_lens, np.int32)
    if init_h:
        vals['initial_h'] = (rng.standard_normal((D, batch, hid)) * 0.5).astype(np.float32)
    if init_c:
        vals['initial_c'] = (rng.standard_normal((D, batch, hid)) * 0.8).astype(np.float32)
    if peep:
        vals['P'] = (rng.standard_normal((D, 3 * hid)) * 0.5).astype(np.float32)

    node_inputs = [n if n in vals else '' for n in NAMES]
    while node_inputs and node_inputs[-1] == '':
        node_inputs.pop()
    node_outputs = [o if o in outputs else '' for o in ('Y', 'Y_h', 'Y_c')]
    while node_outputs[-1] == '':
        node_outputs.pop()
    attrs = {'hidden_size': hid, 'direction': direction}
    if clip is not None:
        attrs['clip'] = float(clip)
    if input_forget:
        attrs['input_forget'] = 1
    if activations is not None:
        attrs['activations'] = activations
    if alphas is not None:
        attrs['activation_alpha'] = alphas
    if betas is not None:
        attrs['activation_beta'] = betas
    node = helper.make_node('DynamicQuantizeLSTM', node_inputs, node_outputs, domain='com.microsoft', **attrs)
    const_names = set() if weights_as_inputs else {'W', 'R', 'W_scale', 'W_zero_point', 'R_scale', 'R_zero_point'}
    ginputs, inits = [], []
    for n in NAMES:
        if n not in vals:
            continue
        if n in const_names:
            inits.append(numpy_helper.from_array(vals[n], n))
        else:
            ginputs.append(helper.make_tensor_value_info(
                n, helper.np_dtype_to_tensor_dtype(vals[n].dtype) if hasattr(helper, 'np_dtype_to_tensor_dtype')
                else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[vals[n].dtype], list(vals[n].shape)))
    shapes = {'Y': [seq, D, batch, hid], 'Y_h': [D, batch, hid], 'Y_c': [D, batch, hid]}
    gout = [helper.make_tensor_value_info(o, TensorProto.FLOAT, shapes[o]) for o in node_outputs if o]
    graph = helper.make_graph([node], name, ginputs, gout, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17), helper.make_opsetid('com.microsoft', 1)])
    model.ir_version = 8
    d = os.path.join(ROOT, name)
    os.makedirs(os.path.join(d, 'inputs'), exist_ok=True)
    onnx.save(model, os.path.join(d, 'model.onnx'))
    for n in NAMES:
        if n in vals and n not in const_names:
            np.save(os.path.join(d, 'inputs', n + '.npy'), vals[n])


CASES = {
    'fwd_u8_basic': dict(seq=3, batch=1, inp=5, hid=8, wtype='uint8', seed=1),
    'fwd_i8_bias_init': dict(seq=4, batch=2, inp=12, hid=16, bias=True, init_h=True, init_c=True, seed=2),
    'rev_u8_seqlens': dict(seq=5, batch=3, inp=7, hid=8, direction='reverse', wtype='uint8', bias=True,
                           seq_lens=[5, 3, 1], zp=[131], seed=3),
    'bidir_i8_pc_all': dict(seq=6, batch=2, inp=40, hid=32, direction='bidirectional', per_channel=True,
                            bias=True, peep=True, init_h=True, init_c=True, seq_lens=[6, 4], seed=4),
    'bidir_u8_pc': dict(seq=4, batch=3, inp=9, hid=12, direction='bidirectional', wtype='uint8',
                        per_channel=True, zp=[133, 133], bias=True, seq_lens=[2, 4, 3], seed=5),
    'fwd_peep_ifg': dict(seq=5, batch=2, inp=6, hid=10, bias=True, peep=True, input_forget=True,
                         init_c=True, seed=6),
    'fwd_clip_bias': dict(seq=4, batch=2, inp=8, hid=8, bias=True, clip=0.7, seed=7, w_scale=0.05),
    'fwd_clip_nobias': dict(seq=4, batch=2, inp=8, hid=8, clip=0.7, seed=8, w_scale=0.05),
    'seq1_b3': dict(seq=1, batch=3, inp=20, hid=24, bias=True, init_h=True, seed=9),
    'weights_as_inputs': dict(seq=3, batch=2, inp=11, hid=9, direction='bidirectional', wtype='uint8',
                              zp=[100, 150], bias=True, per_channel=False, seed=10, weights_as_inputs=True),
    'big_bidir_u8': dict(seq=6, batch=3, inp=40, hid=32, direction='bidirectional', wtype='uint8',
                         bias=True, peep=True, init_h=True, init_c=True, seq_lens=[6, 1, 5], zp=[128, 127],
                         seed=11, x_scale=2.0, w_scale=0.03),
    'seqlen_zero': dict(seq=3, batch=3, inp=5, hid=8, bias=True, init_h=True, init_c=True,
                        seq_lens=[0, 2, 3], seed=12),
    'no_Y_seqlens': dict(seq=5, batch=3, inp=6, hid=8, bias=True, init_h=True, seq_lens=[5, 2, 3],
                         outputs=('Y_h', 'Y_c'), seed=13),
    'no_Y_rev_seqlens': dict(seq=5, batch=3, inp=6, hid=8, direction='reverse', bias=True, seq_lens=[2, 5, 3],
                             outputs=('Y_h',), seed=14),
    'max_len_lt_seq': dict(seq=6, batch=2, inp=7, hid=8, direction='bidirectional', bias=True,
                           seq_lens=[3, 4], seed=15, x_scale=3.0),
    'i8_pt_nonzero_zp': dict(seq=3, batch=2, inp=10, hid=8, direction='bidirectional', zp=[3, -5],
                             bias=True, seed=16),
    'large_preact': dict(seq=4, batch=2, inp=16, hid=16, bias=True, seed=17, w_scale=0.2, x_scale=3.0),
    'x_positive': dict(seq=3, batch=2, inp=8, hid=8, seed=18, xform='positive'),
    'x_negative': dict(seq=3, batch=2, inp=8, hid=8, seed=19, xform='negative', wtype='uint8'),
    'x_zeros': dict(seq=3, batch=2, inp=8, hid=8, seed=20, xform='zeros', bias=True),
    'act_relu_hsig': dict(seq=4, batch=2, inp=8, hid=8, bias=True, seed=21,
                          activations=['HardSigmoid', 'Relu', 'Relu'], alphas=[0.3], betas=[0.4]),
    'x_ties': dict(seq=3, batch=2, inp=24, hid=8, seed=23, xform='ties', w_scale=0.005),
    'x_recip': dict(seq=3, batch=2, inp=24, hid=8, seed=24, xform='recip', w_scale=0.005),
    'tail_big_fwd': dict(seq=5, batch=2, inp=7, hid=8, bias=True, seq_lens=[3, 2], seed=25, xform='tail_big'),
    'tail_big_noY': dict(seq=5, batch=2, inp=7, hid=8, direction='bidirectional', bias=True, seq_lens=[2, 3],
                         seed=26, xform='tail_big', outputs=('Y_h', 'Y_c')),
    'noY_seqlen_zero': dict(seq=4, batch=3, inp=6, hid=8, bias=True, init_h=True, seq_lens=[0, 3, 4],
                            outputs=('Y_h', 'Y_c'), seed=27),
    'all_lens_zero': dict(seq=3, batch=2, inp=5, hid=8, bias=True, init_h=True, init_c=True, seq_lens=[0, 0],
                          seed=28),
    'act_affine_softsign_leaky': dict(seq=4, batch=2, inp=8, hid=8, bias=True, seed=29, direction='bidirectional',
                                      activations=['Affine', 'Softsign', 'LeakyRelu', 'ThresholdedRelu', 'Tanh', 'Affine'],
                                      alphas=[0.3, 0.15, 0.2, 0.7], betas=[0.45, 0.1]),
    'act_elu_stanh_softplus': dict(seq=4, batch=2, inp=8, hid=8, bias=True, seed=30, direction='bidirectional',
                                   activations=['Sigmoid', 'Elu', 'ScaledTanh', 'Sigmoid', 'Softplus', 'Elu'],
                                   alphas=[0.8, 1.1, 0.6], betas=[0.9]),
    'act_g_elu': dict(seq=4, batch=3, inp=8, hid=16, bias=True, seed=31, activations=['Sigmoid', 'Elu', 'Tanh'],
                      alphas=[0.8]),
    'act_g_stanh': dict(seq=4, batch=3, inp=8, hid=16, bias=True, seed=32, activations=['Sigmoid', 'ScaledTanh', 'Tanh'],
                        alphas=[1.1], betas=[0.9]),
    'act_h_softplus': dict(seq=4, batch=3, inp=8, hid=16, bias=True, seed=33, activations=['Sigmoid', 'Tanh', 'Softplus']),
    'hid260_b3': dict(seq=3, batch=3, inp=8, hid=260, bias=True, init_h=True, seed=34, w_scale=0.004),
    'hid256_b3': dict(seq=3, batch=3, inp=8, hid=256, bias=True, init_h=True, seed=35, w_scale=0.004),
    'batch5_hid8': dict(seq=4, batch=5, inp=8, hid=8, bias=True, seed=22, seq_lens=[4, 3, 2, 4, 1]),
}


def write_data(name):
    """Runs ORT on the case in ROOT and writes it in the ONNX backend-test layout under DATA."""
    d = os.path.join(ROOT, name)
    audit_qdq.write_ort_backend_case(d, os.path.join(d, "inputs"), os.path.join(DATA, name))


if __name__ == "__main__":
    only = set(sys.argv[1:])
    for n, kw in CASES.items():
        if only and n not in only:
            continue
        make_case(n, **kw)
        write_data(n)
        print(n)
    shutil.rmtree(ROOT)
