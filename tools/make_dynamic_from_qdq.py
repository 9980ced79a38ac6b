#!/usr/bin/python3
"""Rewrites a QDQ CNN (e.g. ../shared/models/qdq_mobilenetv2_224.onnx) into the form
onnxruntime.quantization.quantize_dynamic gives its float original, for benchmarks of the
dynamic-quantization path on a real network's shapes:

  - the weights' and biases' DequantizeLinear nodes become float constants, and the activations'
    QuantizeLinear -> DequantizeLinear pairs go (the float model the QDQ one was made from);
  - each Conv becomes DynamicQuantizeLinear -> ConvInteger (uint8 weights quantized per tensor,
    asymmetric, as quantize_dynamic's default) -> Cast -> Mul(x_scale * w_scale) -> Add(bias).

  /usr/bin/python3 tools/make_dynamic_from_qdq.py IN.onnx OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def dequantize(q, scale, zp, axis):
    q = q.astype(np.float32)
    zp = np.zeros_like(scale) if zp is None else zp.astype(np.float32)
    if scale.ndim == 1 and scale.size > 1:
        shape = [1] * q.ndim
        shape[axis] = scale.size
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    return ((q - zp) * scale).astype(np.float32)


def main(src, dst):
    model = onnx.load(src)
    g = model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    rename = {}  # a removed value -> the value that replaces it
    floats = {}  # new float constants
    kept = []
    producers = {o: n for n in g.node for o in n.output}
    for n in g.node:
        if n.op_type == "DequantizeLinear" and n.input[0] in inits:
            axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
            zp = inits[n.input[2]] if len(n.input) > 2 and n.input[2] else None
            floats[n.output[0]] = dequantize(inits[n.input[0]], inits[n.input[1]], zp, axis)
        elif n.op_type == "DequantizeLinear" and producers.get(n.input[0]) is not None and \
                producers[n.input[0]].op_type == "QuantizeLinear":
            rename[n.output[0]] = producers[n.input[0]].input[0]
        elif n.op_type == "QuantizeLinear":
            continue  # its DequantizeLinear reads its input instead (dropped above)
        else:
            kept.append(n)

    def source(v):
        while v in rename:
            v = rename[v]
        return v

    nodes, new_inits = [], [numpy_helper.from_array(a, name) for name, a in floats.items()]
    for n in kept:
        inputs = [source(i) for i in n.input]
        if n.op_type != "Conv" or inputs[1] not in floats:
            nodes.append(helper.make_node(n.op_type, inputs, list(n.output), name=n.name, domain=n.domain,
                                          **{a.name: helper.get_attribute_value(a) for a in n.attribute}))
            continue
        tag = n.name or n.output[0]
        w = floats[inputs[1]]
        lo, hi = min(0.0, float(w.min())), max(0.0, float(w.max()))
        scale = np.float32((hi - lo) / 255.0 if hi > lo else 1.0)
        zp = np.uint8(np.clip(np.rint(-lo / scale), 0, 255))
        wq = np.clip(np.rint(w / scale) + float(zp), 0, 255).astype(np.uint8)
        new_inits += [numpy_helper.from_array(wq, tag + "_wq"), numpy_helper.from_array(zp, tag + "_wzp"),
                      numpy_helper.from_array(scale, tag + "_ws")]
        nodes.append(helper.make_node("DynamicQuantizeLinear", [inputs[0]], [tag + "_xq", tag + "_xs", tag + "_xz"]))
        nodes.append(helper.make_node("ConvInteger", [tag + "_xq", tag + "_wq", tag + "_xz", tag + "_wzp"],
                                      [tag + "_acc"], name=tag,
                                      **{a.name: helper.get_attribute_value(a) for a in n.attribute}))
        nodes.append(helper.make_node("Cast", [tag + "_acc"], [tag + "_accf"], to=TensorProto.FLOAT))
        nodes.append(helper.make_node("Mul", [tag + "_xs", tag + "_ws"], [tag + "_scale"]))
        out = n.output[0]
        nodes.append(helper.make_node("Mul", [tag + "_accf", tag + "_scale"], [tag + "_scaled" if len(inputs) > 2
                                                                              else out]))
        if len(inputs) > 2 and inputs[2]:
            b = floats[inputs[2]] if inputs[2] in floats else inits[inputs[2]]
            new_inits.append(numpy_helper.from_array(b.reshape(1, -1, 1, 1).astype(np.float32), tag + "_b"))
            nodes.append(helper.make_node("Add", [tag + "_scaled", tag + "_b"], [out]))
    used = {i for n in nodes for i in n.input}
    keep_inits = [t for t in g.initializer if t.name in used and t.name not in floats]
    outputs = []
    for o in g.output:  # a graph output made by a dropped DequantizeLinear: its float source
        v = onnx.ValueInfoProto()
        v.CopyFrom(o)
        v.name = source(o.name)
        outputs.append(v)
    graph = helper.make_graph(nodes, g.name + "_dynamic", list(g.input), outputs,
                              keep_inits + [t for t in new_inits if t.name in used])
    out_model = helper.make_model(graph, opset_imports=list(model.opset_import), producer_name="qrt")
    out_model.ir_version = model.ir_version
    onnx.save(out_model, dst)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
