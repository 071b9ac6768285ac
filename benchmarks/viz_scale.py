"""How long drawing a large graph takes: 100,000 recorded ops to the graph model, DOT and SVG.

Drawing is never on the training path, but a learner may call ``viz.graph`` on a long
unrolled loop; this shows it stays linear and interactive. Timed here, in a benchmark,
rather than asserted in a unit test (timings depend on the machine and its load).

    python benchmarks/viz_scale.py [--nodes 100000] [--repeats 3]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import leafgrad  # noqa: E402
from leafgrad import viz  # noqa: E402


def chain(n: int) -> leafgrad.Tensor:
    x = leafgrad.ones(2, requires_grad=True)
    y = x
    for i in range(n):
        y = y * 1.0001 if i % 2 else y + 0.5
    return y


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nodes", type=int, default=100_000)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    y = chain(args.nodes)
    best = {"graph": float("inf"), "dot": float("inf"), "svg": float("inf")}
    for _ in range(args.repeats):
        t0 = time.process_time()
        g = viz.graph(y)
        t1 = time.process_time()
        g.dot()
        t2 = time.process_time()
        g.svg()
        t3 = time.process_time()
        best = {"graph": min(best["graph"], t1 - t0), "dot": min(best["dot"], t2 - t1), "svg": min(best["svg"], t3 - t2)}
    print(f"viz of a {args.nodes:,}-op chain (CPU seconds, best of {args.repeats}):")
    for k, v in best.items():
        print(f"  {k:5s} {v:7.3f} s   {v / args.nodes * 1e6:6.2f} us per node")
    return 0


if __name__ == "__main__":
    sys.exit(main())
