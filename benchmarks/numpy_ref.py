"""Hand-written NumPy baselines for W1-W5: forward AND backward by hand, no autograd.

These are the "how fast could this be in plain NumPy" references that leafgrad
(itself pure Python on NumPy) is measured against. They do the same arithmetic
as ``workloads.py`` on the same float32 data, so the runner's correctness check
can also compare them against torch.

Design choices, so the baselines are honest but not contrived:

* chains (W1/W3) keep a tape of (op, input, output) and walk it backwards, i.e.
  the same per-op work an autograd engine must do, minus the framework;
* the CNN (W4) works in NHWC internally so im2col is a single
  ``sliding_window_view`` + one copy and each conv is ONE matmul (the backward
  adds one matmul for dW and, for conv2 only, one for dX, computed as a "full"
  convolution of the output gradient with the flipped kernel); no Python loops
  over pixels or channels; max-pooling is a reshape + ``max``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from workloads import CNN_PARAMS, LR, MLP_PARAMS, Bench, Op, Sizes, chain_ops, make_data

# --------------------------------------------------------------------------- W1 / W3


def _sigmoid(y: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-y))


#: Forward of each chain op kind: (y, c, x) -> output.
FORWARD: dict[str, Callable[[np.ndarray, float | None, np.ndarray], np.ndarray]] = {
    "mul": lambda y, c, x: y * c,
    "add": lambda y, c, x: y + c,
    "sub": lambda y, c, x: y - c,
    "div": lambda y, c, x: y / c,
    "tanh": lambda y, c, x: np.tanh(y),
    "sigmoid": lambda y, c, x: _sigmoid(y),
    "exp": lambda y, c, x: np.exp(y),
    "log": lambda y, c, x: np.log(y),
    "relu": lambda y, c, x: np.maximum(y, 0.0),
    "addx": lambda y, c, x: y + x,
}

#: Backward of each chain op kind: (grad_out, c, input, output) -> grad_in.
BACKWARD: dict[str, Callable[[np.ndarray, float | None, np.ndarray, np.ndarray], np.ndarray]] = {
    "mul": lambda g, c, i, o: g * c,
    "add": lambda g, c, i, o: g,
    "sub": lambda g, c, i, o: g,
    "div": lambda g, c, i, o: g / c,
    "tanh": lambda g, c, i, o: g * (1.0 - o * o),
    "sigmoid": lambda g, c, i, o: g * (o * (1.0 - o)),
    "exp": lambda g, c, i, o: g * o,
    "log": lambda g, c, i, o: g / i,
    "relu": lambda g, c, i, o: g * (i > 0),
    "addx": lambda g, c, i, o: g,  # the x-branch is accumulated separately
}


class NumpyChain:
    """W1/W3 by hand: record a tape in the forward pass, walk it in reverse for d(sum)/dx."""

    def __init__(self, ops: list[Op], x: np.ndarray) -> None:
        self.ops = [(kind, FORWARD[kind], BACKWARD[kind], c) for kind, c in ops]
        self.x = x.copy()

    def _run(self) -> tuple[np.ndarray, np.ndarray]:
        x = self.x
        y = x
        tape = []
        for kind, fwd, bwd, c in self.ops:
            out = fwd(y, c, x)
            tape.append((kind, bwd, c, y, out))
            y = out
        total = y.sum()
        g = np.ones_like(y)
        gx = np.zeros_like(x)
        for kind, bwd, c, inp, out in reversed(tape):
            if kind == "addx":
                gx = gx + g
            g = bwd(g, c, inp, out)
        return np.asarray(total), gx + g

    def step(self) -> None:
        self._run()

    def check(self) -> dict[str, np.ndarray]:
        out, grad_x = self._run()
        return {"out": out, "grad_x": np.asarray(grad_x)}


# --------------------------------------------------------------------------- shared pieces


def cross_entropy(logits: np.ndarray, y: np.ndarray) -> tuple[np.float32, np.ndarray]:
    """Mean cross-entropy and its gradient w.r.t. ``logits`` (stable log-softmax)."""
    n = logits.shape[0]
    rows = np.arange(n)
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    loss = (np.log(s[:, 0]) - z[rows, y]).mean()
    dlogits = e / s
    dlogits[rows, y] -= 1.0
    dlogits /= n
    return loss, dlogits


def sgd(params: list[np.ndarray], grads: list[np.ndarray], lr: float = LR) -> None:
    """In-place SGD, the same update the library workloads perform under ``no_grad``."""
    for p, g in zip(params, grads, strict=True):
        p -= lr * g


def _check_sgd(
    loss_and_grads: Callable[[], tuple[np.float32, list[np.ndarray]]],
    loss_only: Callable[[], np.float32],
    params: list[np.ndarray],
    names: tuple[str, ...],
) -> dict[str, np.ndarray]:
    """Same record as ``workloads._check_sgd``: loss, grads, loss after one SGD step."""
    loss, grads = loss_and_grads()
    result = {"loss": np.asarray(loss)}
    result.update({f"grad_{name}": g.copy() for name, g in zip(names, grads, strict=True)})
    sgd(params, grads)
    result["loss_after_step"] = np.asarray(loss_only())
    return result


# --------------------------------------------------------------------------- W2 / W5


class NumpyMLP:
    """W2/W5 by hand: 784-256-128-10 MLP with ReLU, cross-entropy, SGD."""

    def __init__(self, data: dict[str, np.ndarray]) -> None:
        self.x = data["x"]
        self.y = data["y"]
        self.params = [data[name].copy() for name in MLP_PARAMS]

    def _forward(self) -> tuple[np.float32, np.ndarray, tuple[np.ndarray, ...]]:
        w1, b1, w2, b2, w3, b3 = self.params
        h1 = self.x @ w1 + b1
        a1 = np.maximum(h1, 0.0)
        h2 = a1 @ w2 + b2
        a2 = np.maximum(h2, 0.0)
        loss, dlogits = cross_entropy(a2 @ w3 + b3, self.y)
        return loss, dlogits, (h1, a1, h2, a2)

    def loss_and_grads(self) -> tuple[np.float32, list[np.ndarray]]:
        _, _, w2, _, w3, _ = self.params
        loss, d3, (h1, a1, h2, a2) = self._forward()
        d2 = (d3 @ w3.T) * (h2 > 0)
        d1 = (d2 @ w2.T) * (h1 > 0)
        grads = [self.x.T @ d1, d1.sum(0), a1.T @ d2, d2.sum(0), a2.T @ d3, d3.sum(0)]
        return loss, grads

    def step(self) -> None:
        _, grads = self.loss_and_grads()
        sgd(self.params, grads)

    def check(self) -> dict[str, np.ndarray]:
        return _check_sgd(self.loss_and_grads, lambda: self._forward()[0], self.params, MLP_PARAMS)


# --------------------------------------------------------------------------- W4


def im2col(x: np.ndarray) -> np.ndarray:
    """3x3, padding-1 patches of NHWC ``x`` as a (B*H*W, 9*C) matrix, column order (kh, kw, c).

    (kh, kw, c) rather than PyTorch's (c, kh, kw) keeps channels innermost, so the
    one copy out of the ``sliding_window_view`` runs over contiguous memory: 4-8x
    faster for C >= 8. ``_wmat`` reorders the (tiny) weights to match.
    """
    b, h, w, c = x.shape
    xp = np.zeros((b, h + 2, w + 2, c), dtype=x.dtype)
    xp[:, 1:-1, 1:-1] = x
    windows = sliding_window_view(xp, (3, 3), axis=(1, 2))  # (B, H, W, C, 3, 3), a view
    return windows.transpose(0, 1, 2, 4, 5, 3).reshape(b * h * w, 9 * c)  # the one copy


def _wmat(w: np.ndarray) -> np.ndarray:
    """PyTorch-layout (O, C, 3, 3) weights as the (O, 9*C) matrix matching ``im2col``'s columns."""
    return w.transpose(0, 2, 3, 1).reshape(w.shape[0], -1)


def conv3x3(x: np.ndarray, w: np.ndarray, bias: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Same-padding 3x3 conv on NHWC input via im2col + ONE matmul; returns (output, cols)."""
    b, h, wd, _ = x.shape
    cols = im2col(x)
    out = cols @ _wmat(w).T
    if bias is not None:
        out += bias
    return out.reshape(b, h, wd, w.shape[0]), cols


def conv3x3_backward(
    dout: np.ndarray, cols: np.ndarray, w: np.ndarray, need_dx: bool
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Gradients (dx, dw, db) of ``conv3x3``.

    dW is one matmul against the saved ``cols``. dX of a stride-1 same conv is the
    same conv applied to ``dout`` with the kernel flipped spatially and in/out
    channels swapped, so it reuses ``conv3x3`` (one more matmul, still no loops).
    """
    o, c = w.shape[:2]
    d2 = dout.reshape(-1, o)
    dw = np.ascontiguousarray((d2.T @ cols).reshape(o, 3, 3, c).transpose(0, 3, 1, 2))
    db = d2.sum(axis=0)
    dx = None
    if need_dx:
        dx, _ = conv3x3(dout, w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3), None)
    return dx, dw, db


def maxpool2(x: np.ndarray) -> np.ndarray:
    """2x2/stride-2 max-pool of NHWC ``x`` via reshape.

    Two pairwise ``np.maximum`` over the window axes: ~10x faster than
    ``.max(axis=(2, 4))``, whose strided reduction over length-2 axes is slow.
    """
    b, h, w, c = x.shape
    xr = x.reshape(b, h // 2, 2, w // 2, 2, c)
    rows = np.maximum(xr[:, :, 0], xr[:, :, 1])  # (B, H/2, W/2, 2, C)
    return np.maximum(rows[:, :, :, 0], rows[:, :, :, 1])


def maxpool2_backward(dout: np.ndarray, x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Route ``dout`` to the max positions.

    Ties get the gradient in every tied position (PyTorch picks one), but here the
    pool follows a ReLU: a tie is, in practice, only a window of zeros, whose
    gradient the ReLU backward then zeroes anyway, so the results agree exactly.
    """
    b, h, w, c = x.shape
    xr = x.reshape(b, h // 2, 2, w // 2, 2, c)
    mask = xr == out[:, :, None, :, None, :]
    return (mask * dout[:, :, None, :, None, :]).reshape(b, h, w, c)


class NumpyCNN:
    """W4 by hand, NHWC internally; the flatten before the linear layer uses PyTorch's (C, H, W) order."""

    def __init__(self, data: dict[str, np.ndarray]) -> None:
        x = data["x"]
        self.x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))  # NCHW -> NHWC once, outside timing
        self.y = data["y"]
        self.params = [data[name].copy() for name in CNN_PARAMS]

    def _forward(self) -> tuple[np.float32, np.ndarray, tuple[np.ndarray, ...]]:
        c1w, c1b, c2w, c2b, fcw, fcb = self.params
        z1, cols1 = conv3x3(self.x, c1w, c1b)
        r1 = np.maximum(z1, 0.0)
        p1 = maxpool2(r1)
        z2, cols2 = conv3x3(p1, c2w, c2b)
        r2 = np.maximum(z2, 0.0)
        p2 = maxpool2(r2)
        flat = p2.transpose(0, 3, 1, 2).reshape(p2.shape[0], -1)
        loss, dlogits = cross_entropy(flat @ fcw + fcb, self.y)
        return loss, dlogits, (cols1, z1, r1, p1, cols2, z2, r2, p2, flat)

    def loss_and_grads(self) -> tuple[np.float32, list[np.ndarray]]:
        c1w, _, c2w, _, fcw, _ = self.params
        loss, dlogits, (cols1, z1, r1, p1, cols2, z2, r2, p2, flat) = self._forward()
        dfcw = flat.T @ dlogits
        dfcb = dlogits.sum(axis=0)
        dflat = dlogits @ fcw.T
        dp2 = dflat.reshape(p2.shape[0], p2.shape[3], p2.shape[1], p2.shape[2]).transpose(0, 2, 3, 1)
        dz2 = maxpool2_backward(dp2, r2, p2) * (z2 > 0)
        dp1, dc2w, dc2b = conv3x3_backward(dz2, cols2, c2w, need_dx=True)
        assert dp1 is not None
        dz1 = maxpool2_backward(dp1, r1, p1) * (z1 > 0)
        _, dc1w, dc1b = conv3x3_backward(dz1, cols1, c1w, need_dx=False)
        return loss, [dc1w, dc1b, dc2w, dc2b, dfcw, dfcb]

    def step(self) -> None:
        _, grads = self.loss_and_grads()
        sgd(self.params, grads)

    def check(self) -> dict[str, np.ndarray]:
        return _check_sgd(self.loss_and_grads, lambda: self._forward()[0], self.params, CNN_PARAMS)


# --------------------------------------------------------------------------- factory


def build(workload: str, sizes: Sizes, seed: int = 0) -> Bench:
    """Construct the NumPy reference of ``workload`` from the shared data."""
    data = make_data(workload, sizes, seed)
    if workload in ("W1", "W3"):
        return NumpyChain(chain_ops(workload, sizes), data["x"])
    if workload in ("W2", "W2m", "W5"):  # (the module forms compute the same step)
        return NumpyMLP(data)
    if workload in ("W4", "W4m"):
        return NumpyCNN(data)
    raise ValueError(f"workload {workload!r} has no step")
