#!/usr/bin/env python3
"""Per-node dispatch overhead of qrt: a chain of N tiny nodes (1-element float32 Add,
alternating with Relu, so nothing folds), timed with `qrt bench`, reported as ns per node.

    tools/bench_dispatch.py [--qrt build/qrt] [--nodes 1000] [--iters 2000]
"""
import argparse, json, os, subprocess, tempfile


def chain_model(n):
    nodes, prev = [], "x"
    for i in range(n):
        out = f"v{i}"
        if i % 2 == 0:
            nodes.append({"name": f"add{i}", "op": "Add", "inputs": [prev, "one"], "outputs": [out]})
        else:
            nodes.append({"name": f"relu{i}", "op": "Relu", "inputs": [prev], "outputs": [out]})
        prev = out
    return {"format": "qrt.graph", "version": 1, "opsets": {"": 17},
            "inputs": [{"name": "x", "dtype": "float32", "shape": [1]}],
            "outputs": [{"name": prev}],
            "initializers": [{"name": "one", "dtype": "float32", "shape": [1], "data": [1.0]}],
            "nodes": nodes}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qrt", default=os.path.join(os.path.dirname(__file__), "..", "build", "qrt"))
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--iters", type=int, default=2000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for n in (1, a.nodes):
            path = os.path.join(tmp, f"chain{n}.json")
            with open(path, "w") as f:
                json.dump(chain_model(n), f)
            out = subprocess.run([a.qrt, "bench", path, "--iters", str(a.iters), "--warmup", "100", "--json",
                                  "--passes", "none"], check=True, capture_output=True, text=True).stdout
            rows.append((n, json.loads(out)["median_us"]))
    (n1, t1), (n2, t2) = rows
    print(f"chain of {n1} node: {t1 * 1000:.0f} ns/run; chain of {n2} nodes: {t2:.1f} us/run")
    print(f"dispatch: {(t2 - t1) * 1000 / (n2 - n1):.1f} ns per node (1-element Add/Relu, --passes none)")


if __name__ == "__main__":
    main()
