"""Library-generic benchmark workloads (W1-W5) and the shared NumPy data they start from.

Every workload is written once against the torch-compatible API and takes the
library module ``lib`` (``torch`` or ``leafgrad``) as a parameter, so that the
exact same Python code is timed for both. Only the common API subset is used in
timed code: ``lib.tensor``, Tensor arithmetic, ``.sum()``, ``.relu()`` and friends,
``.reshape``, ``.backward()``, ``.grad``, ``lib.no_grad()`` and
``lib.nn.functional.{cross_entropy, conv2d, max_pool2d}``.

Initial weights and inputs are generated here with NumPy from a fixed seed
(``make_data``) and copied into each library, so that the correctness check in
``run.py`` can demand that every implementation (including the hand-written
NumPy references in ``numpy_ref.py``) produces the same loss and gradients.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

import numpy as np

#: Workloads that have a timed step and a correctness check (W6 is import time only).
STEP_WORKLOADS = ("W1", "W2", "W3", "W4", "W5")

#: Learning rate of the manual SGD step; small so repeated steps stay well-behaved.
LR = 0.01

#: One chain "op": a kind name and an optional Python-float constant.
Op = tuple[str, float | None]

#: W1 repeats this 10-op cycle. It is bounded (tanh/sigmoid squash, exp/log undo
#: each other on (0, 1)), so 200 ops neither overflow nor vanish, and the "addx"
#: op feeds x in again every cycle so the gradient w.r.t. x stays O(1).
W1_CYCLE: tuple[Op, ...] = (
    ("mul", 1.01),
    ("add", 0.1),
    ("tanh", None),
    ("sub", 0.05),
    ("sigmoid", None),
    ("exp", None),
    ("log", None),
    ("div", 1.01),
    ("relu", None),
    ("addx", None),
)

#: W3 alternates these two ops; 1.0001**10000 ~ e, so 20,000 ops stay finite in float32.
W3_PAIR: tuple[Op, ...] = (("mul", 1.0001), ("add", 0.0001))

#: Parameter names of the MLP (W2/W5) and the CNN (W4), in a fixed order.
MLP_PARAMS = ("W1", "b1", "W2", "b2", "W3", "b3")
CNN_PARAMS = ("conv1_w", "conv1_b", "conv2_w", "conv2_b", "fc_w", "fc_b")


@dataclass(frozen=True)
class Sizes:
    """Problem sizes; ``FULL`` is the real benchmark, ``QUICK`` only proves the suite runs."""

    w1_ops: int
    w1_len: int
    w2_batch: int
    w3_ops: int
    w4_batch: int
    w5_batch: int
    w5_steps: int


FULL = Sizes(w1_ops=200, w1_len=16, w2_batch=128, w3_ops=20_000, w4_batch=32, w5_batch=1024, w5_steps=20)
QUICK = Sizes(w1_ops=20, w1_len=16, w2_batch=16, w3_ops=200, w4_batch=4, w5_batch=64, w5_steps=2)


class Bench(Protocol):
    """What the runner needs from any implementation of a workload."""

    def step(self) -> None:
        """Run one timed iteration (forward + backward, plus the SGD update where there are weights)."""

    def check(self) -> dict[str, np.ndarray]:
        """Run one iteration on fresh state and return loss/output and gradients as NumPy arrays."""


# --------------------------------------------------------------------------- data


def w1_ops(sizes: Sizes) -> list[Op]:
    """The W1 chain: ``W1_CYCLE`` repeated (and truncated) to ``sizes.w1_ops`` ops."""
    return [W1_CYCLE[i % len(W1_CYCLE)] for i in range(sizes.w1_ops)]


def w3_ops(sizes: Sizes) -> list[Op]:
    """The W3 chain: ``x = x * 1.0001`` and ``x = x + 0.0001`` alternating, ``sizes.w3_ops`` ops."""
    return [W3_PAIR[i % 2] for i in range(sizes.w3_ops)]


def chain_ops(workload: str, sizes: Sizes) -> list[Op]:
    """Op list of a chain workload (W1 or W3)."""
    return w1_ops(sizes) if workload == "W1" else w3_ops(sizes)


def _uniform(rng: np.random.Generator, shape: tuple[int, ...], fan_in: int) -> np.ndarray:
    """PyTorch-style default init U(-1/sqrt(fan_in), 1/sqrt(fan_in)), float32."""
    bound = 1.0 / np.sqrt(fan_in)
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


def make_data(workload: str, sizes: Sizes, seed: int = 0) -> dict[str, np.ndarray]:
    """Inputs, labels and initial weights of ``workload``, identical for every implementation.

    Linear weights are stored as (in, out) so forward passes are plain ``x @ W + b``
    (no transpose API needed); conv weights use PyTorch's (out, in, kh, kw) layout.
    """
    rng = np.random.default_rng(seed)
    if workload == "W1":
        return {"x": rng.standard_normal(sizes.w1_len).astype(np.float32)}
    if workload == "W3":
        return {"x": np.array(1.0, dtype=np.float32)}
    if workload in ("W2", "W2m", "W5"):
        batch = sizes.w5_batch if workload == "W5" else sizes.w2_batch
        return {
            "x": rng.standard_normal((batch, 784)).astype(np.float32),
            "y": rng.integers(0, 10, size=batch).astype(np.int64),
            "W1": _uniform(rng, (784, 256), 784),
            "b1": _uniform(rng, (256,), 784),
            "W2": _uniform(rng, (256, 128), 256),
            "b2": _uniform(rng, (128,), 256),
            "W3": _uniform(rng, (128, 10), 128),
            "b3": _uniform(rng, (10,), 128),
        }
    if workload in ("W4", "W4m"):
        batch = sizes.w4_batch
        return {
            "x": rng.standard_normal((batch, 1, 28, 28)).astype(np.float32),
            "y": rng.integers(0, 10, size=batch).astype(np.int64),
            "conv1_w": _uniform(rng, (8, 1, 3, 3), 1 * 9),
            "conv1_b": _uniform(rng, (8,), 1 * 9),
            "conv2_w": _uniform(rng, (16, 8, 3, 3), 8 * 9),
            "conv2_b": _uniform(rng, (16,), 8 * 9),
            "fc_w": _uniform(rng, (16 * 7 * 7, 10), 16 * 7 * 7),
            "fc_b": _uniform(rng, (10,), 16 * 7 * 7),
        }
    raise ValueError(f"no data for workload {workload!r}")


# --------------------------------------------------------------------------- helpers


def to_numpy(t: Any) -> np.ndarray:
    """Copy a tensor (or ``.grad``) out to NumPy; used only by ``check``, never in timed code."""
    if hasattr(t, "detach"):
        t = t.detach()
    if hasattr(t, "numpy"):
        return np.array(t.numpy(), copy=True)
    return np.array(t.tolist())


def sgd_update(lib: ModuleType, params: list[Any], lr: float = LR) -> None:
    """The optimizer-free SGD step that ordinary training code writes by hand."""
    with lib.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None


#: How each chain op kind is applied to a tensor ``y`` (``x`` is the chain's input leaf).
LIB_OPS: dict[str, Callable[[Any, float | None, Any], Any]] = {
    "mul": lambda y, c, x: y * c,
    "add": lambda y, c, x: y + c,
    "sub": lambda y, c, x: y - c,
    "div": lambda y, c, x: y / c,
    "tanh": lambda y, c, x: y.tanh(),
    "sigmoid": lambda y, c, x: y.sigmoid(),
    "exp": lambda y, c, x: y.exp(),
    "log": lambda y, c, x: y.log(),
    "relu": lambda y, c, x: y.relu(),
    "addx": lambda y, c, x: y + x,
}


# --------------------------------------------------------------------------- W1 / W3


class ChainBench:
    """W1 and W3: a long chain of cheap ops on one small leaf, then ``.sum().backward()``.

    This isolates per-op framework overhead (graph node creation, dispatch, backward
    bookkeeping): the arithmetic itself is negligible at 16 or 1 element(s).
    """

    def __init__(self, lib: ModuleType, ops: list[Op], x: np.ndarray) -> None:
        self.lib = lib
        self.ops = [(LIB_OPS[kind], c) for kind, c in ops]
        self.x0 = x
        self.x = lib.tensor(x, requires_grad=True)

    def _forward(self) -> Any:
        x = self.x
        y = x
        for fn, c in self.ops:
            y = fn(y, c, x)
        return y.sum()

    def step(self) -> None:
        out = self._forward()
        out.backward()
        self.x.grad = None

    def check(self) -> dict[str, np.ndarray]:
        self.x = self.lib.tensor(self.x0, requires_grad=True)
        out = self._forward()
        out.backward()
        return {"out": to_numpy(out), "grad_x": to_numpy(self.x.grad)}


# --------------------------------------------------------------------------- W2 / W5


class MLPBench:
    """W2 (and W5 at batch 1024): MLP 784-256-128-10, ReLU, cross-entropy, manual SGD."""

    def __init__(self, lib: ModuleType, data: dict[str, np.ndarray]) -> None:
        self.lib = lib
        self.x = lib.tensor(data["x"])
        self.y = lib.tensor(data["y"])
        self.params = [lib.tensor(data[name], requires_grad=True) for name in MLP_PARAMS]

    def loss(self) -> Any:
        w1, b1, w2, b2, w3, b3 = self.params
        h = (self.x @ w1 + b1).relu()
        h = (h @ w2 + b2).relu()
        logits = h @ w3 + b3
        return self.lib.nn.functional.cross_entropy(logits, self.y)

    def step(self) -> None:
        self.loss().backward()
        sgd_update(self.lib, self.params)

    def check(self) -> dict[str, np.ndarray]:
        return _check_sgd(self.lib, self.loss, self.params, MLP_PARAMS)


class MLPModuleBench:
    """W2 as users write it (W2m): ``nn.Sequential`` of ``nn.Linear``/``nn.ReLU``, ``F.cross_entropy``,
    ``optim.SGD`` with ``zero_grad()`` and ``step()``, and ``loss.item()`` every step, so
    ``Module.__call__`` and the optimizer are inside the measured time."""

    def __init__(self, lib: ModuleType, data: dict[str, np.ndarray]) -> None:
        self.lib = lib
        nn = lib.nn
        self.x = lib.tensor(data["x"])
        self.y = lib.tensor(data["y"])
        shapes = [data[name].shape for name in MLP_PARAMS[::2]]
        layers: list[Any] = []
        for k, (n_in, n_out) in enumerate(shapes):
            layers += [nn.Linear(n_in, n_out)] + ([nn.ReLU()] if k < len(shapes) - 1 else [])
        self.model = nn.Sequential(*layers)
        _load_linears(lib, [m for m in self.model if isinstance(m, nn.Linear)], data, MLP_PARAMS)
        self.params = _linear_params([m for m in self.model if isinstance(m, nn.Linear)])
        self.opt = lib.optim.SGD(self.model.parameters(), lr=LR)

    def loss(self) -> Any:
        return self.lib.nn.functional.cross_entropy(self.model(self.x), self.y)

    def step(self) -> None:
        self.opt.zero_grad()
        loss = self.loss()
        loss.backward()
        self.opt.step()
        loss.item()

    def check(self) -> dict[str, np.ndarray]:
        return _check_module(self, MLP_PARAMS)


def _load_linears(lib: ModuleType, linears: list[Any], data: dict[str, np.ndarray], names: tuple[str, ...]) -> None:
    """Copy the shared (in, out) weights into ``nn.Linear``'s (out, in) layout."""
    with lib.no_grad():
        for lin, wname, bname in zip(linears, names[::2], names[1::2], strict=True):
            lin.weight.copy_(lib.tensor(np.ascontiguousarray(data[wname].T)))
            lin.bias.copy_(lib.tensor(data[bname]))


def _linear_params(linears: list[Any]) -> list[Any]:
    return [p for lin in linears for p in (lin.weight, lin.bias)]


def _check_module(bench: Any, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """``_check_sgd``'s quantities for a module-form bench: one step through its optimizer, with
    ``nn.Linear``'s weight gradients read back in the shared (in, out) layout."""
    bench.opt.zero_grad()
    loss = bench.loss()
    loss.backward()
    result = {"loss": to_numpy(loss)}
    for name, p in zip(names, bench.params, strict=True):
        g = to_numpy(p.grad)
        result[f"grad_{name}"] = g.T if g.ndim == 2 else g
    bench.opt.step()
    with bench.lib.no_grad():
        result["loss_after_step"] = to_numpy(bench.loss())
    return result


# --------------------------------------------------------------------------- W4


class CNNBench:
    """W4: conv(1->8)-relu-pool-conv(8->16)-relu-pool-linear(784->10), cross-entropy, SGD."""

    def __init__(self, lib: ModuleType, data: dict[str, np.ndarray]) -> None:
        self.lib = lib
        self.batch = int(data["x"].shape[0])
        self.x = lib.tensor(data["x"])
        self.y = lib.tensor(data["y"])
        self.params = [lib.tensor(data[name], requires_grad=True) for name in CNN_PARAMS]

    def loss(self) -> Any:
        F = self.lib.nn.functional
        c1w, c1b, c2w, c2b, fcw, fcb = self.params
        h = F.max_pool2d(F.conv2d(self.x, c1w, c1b, padding=1).relu(), 2)
        h = F.max_pool2d(F.conv2d(h, c2w, c2b, padding=1).relu(), 2)
        logits = h.reshape(self.batch, 16 * 7 * 7) @ fcw + fcb
        return F.cross_entropy(logits, self.y)

    def step(self) -> None:
        self.loss().backward()
        sgd_update(self.lib, self.params)

    def check(self) -> dict[str, np.ndarray]:
        return _check_sgd(self.lib, self.loss, self.params, CNN_PARAMS)


class CNNModuleBench:
    """W4 as users write it (W4m): ``nn.Sequential`` of ``Conv2d``/``ReLU``/``MaxPool2d``/``Flatten``/
    ``Linear``, ``F.cross_entropy``, ``optim.SGD`` with ``zero_grad()``/``step()``, ``loss.item()``."""

    def __init__(self, lib: ModuleType, data: dict[str, np.ndarray]) -> None:
        self.lib = lib
        nn = lib.nn
        self.x = lib.tensor(data["x"])
        self.y = lib.tensor(data["y"])
        self.model = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(16 * 7 * 7, 10))
        conv1, conv2, fc = self.model[0], self.model[3], self.model[7]
        with lib.no_grad():
            for m, wname, bname in ((conv1, "conv1_w", "conv1_b"), (conv2, "conv2_w", "conv2_b")):
                m.weight.copy_(lib.tensor(data[wname]))
                m.bias.copy_(lib.tensor(data[bname]))
        _load_linears(lib, [fc], data, CNN_PARAMS[4:])
        self.params = [conv1.weight, conv1.bias, conv2.weight, conv2.bias, fc.weight, fc.bias]
        self.opt = lib.optim.SGD(self.model.parameters(), lr=LR)

    def loss(self) -> Any:
        return self.lib.nn.functional.cross_entropy(self.model(self.x), self.y)

    step = MLPModuleBench.step

    def check(self) -> dict[str, np.ndarray]:
        return _check_module(self, CNN_PARAMS)


def _check_sgd(
    lib: ModuleType, loss_fn: Callable[[], Any], params: list[Any], names: tuple[str, ...]
) -> dict[str, np.ndarray]:
    """Loss and gradients of one step, then the loss after the SGD update (proves the update works)."""
    loss = loss_fn()
    loss.backward()
    result = {"loss": to_numpy(loss)}
    result.update({f"grad_{name}": to_numpy(p.grad) for name, p in zip(names, params, strict=True)})
    sgd_update(lib, params)
    with lib.no_grad():
        result["loss_after_step"] = to_numpy(loss_fn())
    return result


# --------------------------------------------------------------------------- factory


def build(lib: ModuleType, workload: str, sizes: Sizes, seed: int = 0) -> Bench:
    """Construct ``workload`` for library ``lib`` from the shared NumPy data."""
    data = make_data(workload, sizes, seed)
    if workload in ("W1", "W3"):
        return ChainBench(lib, chain_ops(workload, sizes), data["x"])
    if workload in ("W2", "W5"):
        return MLPBench(lib, data)
    if workload == "W2m":
        return MLPModuleBench(lib, data)
    if workload == "W4":
        return CNNBench(lib, data)
    if workload == "W4m":
        return CNNModuleBench(lib, data)
    raise ValueError(f"workload {workload!r} has no step")
