"""The floor for a Python autograd engine on W2: how close to hand-written NumPy can one get?

W2's target (within 1.10x of hand-written NumPy) leaves room for a fixed amount of Python
per training step, whatever the engine. This script measures that room directly. It runs
W2's own code (``workloads.MLPBench``: ``x @ w1 + b1``, ``relu``, ``cross_entropy``,
``backward()``, ``p -= lr * p.grad`` under ``no_grad``) on a bare define-by-run engine
that does only what any engine must do:

* one tensor object per result and one node object per recorded op (log_softmax and
  nll_loss are two nodes, as in torch), with edges to the inputs' nodes or leaf sinks;
* a backward pass that counts dependencies and runs nodes iteratively, reduces the bias
  gradients, frees saved arrays as it goes and adopts fresh gradients into ``.grad``;
* an in-place update that bumps a version number.

Nothing else: no checks of any kind, no dtype promotion, no views, no hooks, no version
checks on saved values, no provenance, no errors worth reading, and gradients passed as
raw arrays. It is a measuring stick, not a design: everything leafgrad adds on top of it
is what torch's semantics and leafgrad's explanations cost.

    python benchmarks/bare_engine.py              # batch 128 and 4, 30 rounds each
    python benchmarks/bare_engine.py --quick      # tiny: proves it runs and matches NumPy (CI)
    python benchmarks/bare_engine.py --phases     # also: forward / backward / update of each engine

The three implementations run in one process, interleaved round by round (one thread,
the fastest round of each kept), and the bare engine's loss and gradients are checked
against ``numpy_ref`` first.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy_ref  # noqa: E402
import workloads  # noqa: E402

_GRAD = [True]


class _Node:
    __slots__ = ("next", "backward", "saved")


class _Sink:
    """A leaf's gradient sink (torch's AccumulateGrad)."""

    __slots__ = ("var",)


class BareTensor:
    __slots__ = ("data", "grad", "fn", "requires_grad", "sink", "version")

    def __init__(self, data: np.ndarray, requires_grad: bool = False) -> None:
        self.data = data
        self.grad = None
        self.fn = None
        self.requires_grad = requires_grad
        self.sink = None
        self.version = 0

    def _edge(self):
        if self.fn is not None:
            return self.fn
        if self.requires_grad:
            if self.sink is None:
                self.sink = _Sink()
                self.sink.var = self
            return self.sink
        return None

    def __matmul__(self, other: "BareTensor") -> "BareTensor":
        return _record(self.data @ other.data, (self, other), _mm_backward, (self.data, other.data))

    def __add__(self, other: "BareTensor") -> "BareTensor":
        return _record(self.data + other.data, (self, other), _add_backward, (self.data.shape, other.data.shape))

    def __rmul__(self, number: float) -> "BareTensor":
        return _record(self.data * number, (self,), None, None)

    def __isub__(self, other: "BareTensor") -> "BareTensor":
        np.subtract(self.data, other.data, out=self.data)
        self.version += 1
        return self

    def relu(self) -> "BareTensor":
        r = np.maximum(self.data, 0)
        return _record(r, (self,), _relu_backward, r)

    def backward(self) -> None:
        _run_backward(self)


def _record(out: np.ndarray, inputs: tuple, backward, saved) -> BareTensor:
    t = BareTensor(out)
    if _GRAD[0] and backward is not None and any(i.requires_grad for i in inputs):
        node = _Node()
        node.next = tuple([i._edge() for i in inputs])
        node.backward = backward
        node.saved = saved
        t.fn = node
        t.requires_grad = True
    return t


def _mm_backward(g, saved, nxt):
    a, b = saved
    return (g @ b.T if nxt[0] is not None else None, a.T @ g if nxt[1] is not None else None)


def _unbroadcast(g: np.ndarray, shape: tuple) -> np.ndarray:
    return g if g.shape == shape else g.sum(axis=tuple(range(g.ndim - len(shape))))


def _add_backward(g, saved, nxt):
    return (_unbroadcast(g, saved[0]), _unbroadcast(g, saved[1]))


def _relu_backward(g, r, nxt):
    return (g * (r > 0),)


def _log_softmax(x: BareTensor) -> BareTensor:
    z = x.data - x.data.max(axis=1, keepdims=True)
    r = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return _record(r, (x,), _log_softmax_backward, r)


def _log_softmax_backward(g, r, nxt):
    return (g - np.exp(r) * g.sum(axis=1, keepdims=True),)


def _nll(logp: BareTensor, y: BareTensor) -> BareTensor:
    n = logp.data.shape[0]
    loss = np.asarray(-logp.data[np.arange(n), y.data].sum() / n)
    return _record(loss, (logp,), _nll_backward, (logp.data.shape, y.data))


def _nll_backward(g, saved, nxt):
    shape, y = saved
    out = np.zeros(shape, g.dtype)
    out[np.arange(shape[0]), y] = -g / shape[0]
    return (out,)


def _cross_entropy(x: BareTensor, y: BareTensor) -> BareTensor:
    return _nll(_log_softmax(x), y)


def _run_backward(root: BareTensor) -> None:
    deps = {root.fn: 0}
    stack = [root.fn]
    while stack:
        node = stack.pop()
        if node.__class__ is _Sink:
            continue
        for nxt in node.next:
            if nxt is not None:
                c = deps.get(nxt)
                if c is None:
                    deps[nxt] = 1
                    stack.append(nxt)
                else:
                    deps[nxt] = c + 1
    buffers = {root.fn: np.ones((), root.data.dtype)}
    ready = [root.fn]
    while ready:
        node = ready.pop()
        g = buffers.pop(node)
        if node.__class__ is _Sink:
            v = node.var
            v.grad = BareTensor(g) if v.grad is None else BareTensor(v.grad.data + g)
            continue
        grads = node.backward(g, node.saved, node.next)
        node.saved = None
        for nxt, gi in zip(node.next, grads):
            if nxt is None:
                continue
            if gi is not None:
                old = buffers.get(nxt)
                buffers[nxt] = gi if old is None else old + gi
            deps[nxt] -= 1
            if deps[nxt] == 0:
                ready.append(nxt)


class _NoGrad:
    def __enter__(self) -> None:
        self.prev = _GRAD[0]
        _GRAD[0] = False

    def __exit__(self, *exc) -> None:
        _GRAD[0] = self.prev


class bare:
    """The module-like object ``workloads.MLPBench`` takes as ``lib``."""

    no_grad = _NoGrad

    @staticmethod
    def tensor(data, requires_grad: bool = False) -> BareTensor:
        return BareTensor(np.array(data), requires_grad)

    class nn:
        class functional:
            cross_entropy = staticmethod(_cross_entropy)


def _check(sizes: workloads.Sizes, data: dict) -> bool:
    b = workloads.MLPBench(bare, data)
    loss = b.loss()
    loss.backward()
    ref_loss, ref_grads = numpy_ref.build("W2", sizes).loss_and_grads()
    ok = np.allclose(loss.data, ref_loss, rtol=1e-5)
    for p, g in zip(b.params, ref_grads):
        ok = ok and np.allclose(p.grad.data, g, rtol=1e-4, atol=1e-6)
    return bool(ok)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="batch 16, 3 rounds: proves it runs (CI)")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--batches", default="128,4", help="W2 batch sizes to measure")
    ap.add_argument("--phases", action="store_true",
                    help="also split each step of the bare engine and leafgrad into forward, backward, update")
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits
    threadpool_limits(1)
    import leafgrad
    batches = [16] if args.quick else [int(b) for b in args.batches.split(",")]
    rounds = 3 if args.quick else args.rounds
    for batch in batches:
        sizes = dataclasses.replace(workloads.FULL, w2_batch=batch)
        data = workloads.make_data("W2", sizes)
        if not _check(sizes, data):
            print(f"bare engine: loss or gradients differ from numpy_ref at batch {batch}")
            return 1
        impls = {"numpy": numpy_ref.build("W2", sizes), "bare engine": workloads.MLPBench(bare, data),
                 "leafgrad": workloads.build(leafgrad, "W2", sizes)}
        best = dict.fromkeys(impls, float("inf"))
        for b in impls.values():
            for _ in range(3):
                b.step()
        for _ in range(rounds):
            for name, b in impls.items():
                t0 = time.perf_counter()
                for _ in range(10):
                    b.step()
                best[name] = min(best[name], (time.perf_counter() - t0) / 10)
        print(f"W2 at batch {batch}: fastest of {rounds} rounds of 10 steps, one process, one thread")
        print(f"  {'impl':12s} {'ms/step':>9s} {'vs numpy':>9s} {'Python per step':>16s}")
        for name, t in best.items():
            extra = (t - best["numpy"]) * 1e6
            print(f"  {name:12s} {t * 1e3:9.3f} {t / best['numpy']:8.2f}x {extra:13.0f} us")
        if args.phases:
            _print_phases({k: impls[k] for k in ("bare engine", "leafgrad")}, rounds)
    return 0


def _print_phases(impls: dict, rounds: int) -> None:
    """Where each engine's step goes: ``loss()``, ``backward()``, and the update under no_grad.

    The same code runs on both engines, so each column's difference is what leafgrad adds in that
    phase (its tensors and nodes, its checks, its saved-tensor bookkeeping) over the bare minimum.
    """
    best = {name: [float("inf")] * 3 for name in impls}
    for _ in range(rounds):
        for name, b in impls.items():
            lib = b.lib
            spent = [0.0, 0.0, 0.0]
            for _ in range(10):
                t0 = time.perf_counter()
                loss = b.loss()
                t1 = time.perf_counter()
                loss.backward()
                t2 = time.perf_counter()
                workloads.sgd_update(lib, b.params)
                t3 = time.perf_counter()
                spent[0] += t1 - t0
                spent[1] += t2 - t1
                spent[2] += t3 - t2
            best[name] = [min(a, s / 10) for a, s in zip(best[name], spent)]
    print("  phases, us per step (fastest round of each):")
    print(f"  {'impl':12s} {'forward':>9s} {'backward':>9s} {'update':>9s}")
    for name, (f, bw, u) in best.items():
        print(f"  {name:12s} {f * 1e6:9.1f} {bw * 1e6:9.1f} {u * 1e6:9.1f}")


if __name__ == "__main__":
    raise SystemExit(main())
