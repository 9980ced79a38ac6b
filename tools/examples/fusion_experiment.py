#!/usr/bin/env python3
"""A fusion experiment in a few lines: load a model, add a user pattern, compile with and
without it, prove the two bit-identical, profile both and draw the result.

    PYTHONPATH=build/python /usr/bin/python3 tools/examples/fusion_experiment.py \
        [MODEL] [--pattern docs/patterns/hardswish_to_table.json] [--html out.html]

Without MODEL it builds a small QDQ model with an expanded HardSwish (DQ -> HardSigmoid -> Mul
-> Q) in a temporary folder (needs python3-onnx).
"""
import argparse
import pathlib
import sys
import tempfile

import numpy as np

import qrt

ROOT = pathlib.Path(__file__).resolve().parents[2]


def make_hardswish_model(path):
    """x:u8[1,16,32,32] -> DQ -> HardSigmoid -> Mul(dq, hs) -> Q -> y:u8, with Relu between two of them."""
    from onnx import TensorProto, helper, save

    def dq_q(i, src):
        return [
            helper.make_node("DequantizeLinear", [src, "s_in", "zp"], [f"d{i}"], name=f"dq{i}"),
            helper.make_node("HardSigmoid", [f"d{i}"], [f"h{i}"], name=f"hsig{i}", alpha=1 / 6, beta=0.5),
            helper.make_node("Mul", [f"d{i}", f"h{i}"], [f"m{i}"], name=f"mul{i}"),
            helper.make_node("QuantizeLinear", [f"m{i}", "s_out", "zp"], [f"q{i}"], name=f"q{i}"),
        ]

    nodes = dq_q(0, "x") + dq_q(1, "q0")
    nodes[-1].output[0] = "y"
    inits = [helper.make_tensor("s_in", TensorProto.FLOAT, [], [0.05]),
             helper.make_tensor("s_out", TensorProto.FLOAT, [], [0.04]),
             helper.make_tensor("zp", TensorProto.UINT8, [], [128])]
    g = helper.make_graph(nodes, "hardswish_chain", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 16, 32, 32])],
                          [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, 16, 32, 32])], inits)
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)


def random_inputs(graph, seed=1):
    rng = np.random.default_rng(seed)
    feed = {}
    for v in graph.inputs:
        shape = [d if isinstance(d, int) else 1 for d in v.shape]
        if v.dtype.kind in "iu":
            info = np.iinfo(v.dtype)
            feed[v.name] = rng.integers(info.min, int(info.max) + 1, size=shape, dtype=v.dtype)
        else:
            feed[v.name] = rng.random(shape, dtype=np.float32).astype(v.dtype)
    return feed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", nargs="?")
    ap.add_argument("--pattern", default=str(ROOT / "docs/patterns/hardswish_to_table.json"))
    ap.add_argument("--passes", default="none", help="built-in passes beside the pattern (default: none)")
    ap.add_argument("--html", default="fusion_experiment.html")
    args = ap.parse_args()

    tmp = tempfile.TemporaryDirectory()
    model = args.model or str(pathlib.Path(tmp.name) / "hardswish_chain.onnx")
    if not args.model:
        make_hardswish_model(model)

    graph = qrt.load(model)
    pattern = qrt.Pattern.from_json(pathlib.Path(args.pattern).read_text())
    plain = qrt.compile(graph, passes=args.passes)
    fused = qrt.compile(graph, passes=args.passes, patterns=[pattern])
    print(f"{model}: {len(graph.nodes)} nodes; with {pattern.names}: {len(fused.graph.nodes)} nodes")
    print("rewrites:", [p for p in fused.passes if p[1]])

    feed = random_inputs(graph)
    report = qrt.compare(plain.run(feed), fused.run(feed))
    print("fused vs unfused:", report)
    exact = all(r["differ"] == 0 for r in report.values())

    for label, m in (("unfused", plain), ("fused", fused)):
        prof = m.profile(feed, runs=50)
        total = sum(t for _, _, t in prof)
        top = sorted(prof, key=lambda p: -p[2])[:3]
        print(f"{label}: {total:.1f} us per run; slowest: " + ", ".join(f"{n} ({op}) {t:.1f} us" for n, op, t in top))

    graph.to_html(args.html, passes=args.passes, patterns=[pattern], profile=fused.profile(feed, runs=20))
    print(f"wrote {args.html}")
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
