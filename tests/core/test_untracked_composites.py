"""Composites that record nothing run their steps on the arrays at once, and leave what the steps would.

``matmul``'s batched and batch-folded cases and ``F.linear`` are made of several recorded ops (expand,
view, t, bmm, addmm, ...) so that their graphs have torch's nodes. When nothing is recorded (grad mode
off, or no input that requires grad) they run the same forwards on the arrays in one go
(``registry.records`` / ``composite_result``). These tests hold that shortcut to the step-by-step path
(forced by making ``records`` answer True, which only decides the path): the same bits, the same
view-or-not result, and the same provenance (the cut a chain from a tensor that requires grad carries,
its kind, its op and its line; the inference flag), for every combination of inputs that require grad
or carry a cut. The flags a user sees are checked against torch.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad as lg
from leafgrad import provenance
from leafgrad._ops import linalg

F = lg.nn.functional
R = np.random.default_rng(7)


def _arr(*shape, dtype=np.float32):
    return R.standard_normal(shape).astype(dtype)


def _step_by_step(monkeypatch):
    """Make the composites take their step-by-step path (``records`` answering True decides only that)."""
    monkeypatch.setattr(linalg, "records", lambda *inputs: True)


# name -> (arrays, fn(tensors) -> result); every tensor below is made from these arrays
MATMULS = {
    "4d": ([(2, 3, 4, 5), (2, 3, 5, 6)], lambda a, b: a @ b),
    "attention_scores": ([(1, 4, 16, 8), (1, 4, 16, 8)], lambda q, k: q @ k.transpose(-2, -1)),
    "heads_from_transpose": ([(2, 6, 4, 8), (2, 6, 4, 8)],  # (B, T, H, d) -> (B, H, T, d): a copy to fold
                             lambda q, k: q.transpose(1, 2) @ k.transpose(1, 2).transpose(-2, -1)),
    "broadcast_batch": ([(3, 4, 5), (2, 1, 5, 6)], lambda a, b: a @ b),
    "matrix_at_batch": ([(4, 5), (3, 5, 6)], lambda a, b: a @ b),
    "expanded_operand": ([(1, 4, 5), (3, 5, 2)], lambda a, b: a.expand(3, 4, 5) @ b),
    "folded": ([(2, 3, 5), (5, 4)], lambda a, b: a @ b),
    "folded_transposed": ([(3, 2, 5), (5, 4)], lambda a, b: a.transpose(0, 1) @ b),
    "folded_float64": ([(2, 3, 5), (5, 4)], lambda a, b: lg.matmul(a.double(), b.double())),
}
LINEARS = {
    "2d_bias": ([(6, 5), (4, 5), (4,)], lambda x, w, b: F.linear(x, w, b)),
    "3d_bias": ([(2, 3, 5), (4, 5), (4,)], lambda x, w, b: F.linear(x, w, b)),
    "1d_bias": ([(5,), (4, 5), (4,)], lambda x, w, b: F.linear(x, w, b)),
    "3d_transposed_bias": ([(3, 2, 5), (4, 5), (4,)], lambda x, w, b: F.linear(x.transpose(0, 1), w, b)),
    "2d": ([(6, 5), (4, 5)], lambda x, w: F.linear(x, w)),
    "3d": ([(2, 3, 5), (4, 5)], lambda x, w: F.linear(x, w)),
    "3d_transposed": ([(3, 2, 5), (4, 5)], lambda x, w: F.linear(x.transpose(0, 1), w)),
    "module": ([(2, 3, 5)], None),
}
CASES = {**{f"matmul_{k}": v for k, v in MATMULS.items()}, **{f"linear_{k}": v for k, v in LINEARS.items()}}


def _inputs(lib, arrays, requires, cut_from):
    """Tensors of ``arrays``; ``requires[i]``: the i-th requires grad; ``cut_from[i]``: it is computed
    (under no_grad) from a tensor that requires grad, so it carries a cut."""
    out = []
    for a, rg, cut in zip(arrays, requires, cut_from):
        if cut:
            src = lib.tensor(a, requires_grad=True)
            with lib.no_grad():
                t = src * 1.0
        else:
            t = lib.tensor(a, requires_grad=rg)
        out.append(t)
    return out


def _run(name, mode, requires, cut_from, seed_arrays):
    shapes, fn = CASES[name]
    if fn is None:  # nn.Linear, as a model calls it
        lg.manual_seed(0)
        lin = lg.nn.Linear(5, 4)
        lin.weight.requires_grad_(requires[0])
        lin.bias.requires_grad_(requires[0])
        x = _inputs(lg, seed_arrays, (False,), cut_from)[0]
        fn, inputs = (lambda x: lin(x)), [x]
    else:
        inputs = _inputs(lg, seed_arrays, requires, cut_from)
    ctx = {"no_grad": lg.no_grad, "inference_mode": lg.inference_mode, "grad": lg.enable_grad}[mode]
    with ctx():
        return inputs, fn(*inputs)  # (one line: both paths' cuts name it)


def _observed(inputs, out):
    m = out._meta
    cut = provenance.cut_of(out)
    which = next((i for i, t in enumerate(inputs) if cut is not None and provenance.cut_of(t) is cut), None)
    return {
        "bits": (out._data.dtype, out._data.shape, np.ascontiguousarray(out._data).tobytes()),
        "strides": out._data.strides,
        "is_view": out._base is not None,
        "view_kind": m.view_kind if m is not None else None,
        "inference": bool(m is not None and m.inference),
        "requires_grad": out.requires_grad,
        "grad_fn": type(out.grad_fn).__name__ if out.grad_fn is not None else None,
        "cut": None if cut is None else (cut.kind, cut.site, cut.op, which),
    }


def _combos(n):
    """(requires, cut_from) pairs: every input requires grad or not, carries a cut or not (not both)."""
    for flags in itertools.product((0, 1, 2), repeat=n):
        yield tuple(f == 1 for f in flags), tuple(f == 2 for f in flags)


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode", "grad"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_shortcut_leaves_what_the_steps_leave(monkeypatch, name, mode):
    shapes = CASES[name][0]
    for requires, cut_from in _combos(len(shapes) if CASES[name][1] is not None else 1):
        if mode == "grad" and any(requires):
            continue  # (a graph is recorded: no shortcut is taken)
        arrays = [_arr(*s) for s in shapes]
        with monkeypatch.context() as mp:
            fast = _observed(*_run(name, mode, requires, cut_from, arrays))
            _step_by_step(mp)
            slow = _observed(*_run(name, mode, requires, cut_from, arrays))
        assert fast == slow, (name, mode, requires, cut_from)


def test_the_shortcut_is_taken(monkeypatch):
    """(So the test above compares two paths, not one path with itself.)"""
    calls = []
    real = linalg.composite_result
    monkeypatch.setattr(linalg, "composite_result", lambda *a, **k: calls.append(a[1].name) or real(*a, **k))
    x, w, b = lg.tensor(_arr(2, 3, 5)), lg.tensor(_arr(4, 5), requires_grad=True), lg.tensor(_arr(4))
    with lg.no_grad():
        F.linear(x, w, b)
        x @ lg.tensor(_arr(2, 5, 3))
        x @ lg.tensor(_arr(5, 3))
    F.linear(x, w.detach(), b)  # (grad mode on, nothing requires grad)
    assert calls == ["AddmmBackward0", "BmmBackward0", "MmBackward0", "AddmmBackward0"]
    calls.clear()
    F.linear(x, w, b)  # (recorded: the steps)
    assert calls == []


def test_a_stale_view_is_brought_up_to_date_before_the_choice():
    """A view whose base was written in place with a tensor that requires grad requires grad itself:
    ``records`` refreshes it first, so the product is recorded, as torch records it."""
    base = lg.zeros(2, 3, 4)
    view = base[:, :, :]
    w = lg.ones(2, 3, 4, requires_grad=True)
    base.copy_(w)
    out = view @ lg.tensor(_arr(2, 4, 5))
    assert out.requires_grad and out.grad_fn is not None
    out.sum().backward()
    assert w.grad is not None


@pytest.mark.parametrize("case", ["linear_3d", "linear_2d", "matmul_4d", "matmul_folded"])
def test_flags_as_torch(torch, case):
    def run(lib):
        x = lib.tensor(_fixed(2, 3, 5) if case != "linear_2d" else _fixed(6, 5))
        w = lib.tensor(_fixed(4, 5), requires_grad=True)
        b = lib.tensor(_fixed(4), requires_grad=True)
        with lib.no_grad():
            if case.startswith("linear"):
                y = lib.nn.functional.linear(x, w, b)
            elif case == "matmul_4d":
                y = x.reshape(1, 2, 3, 5) @ lib.tensor(_fixed(1, 2, 5, 3))
            else:
                y = x @ w.t()
        flags = (y.requires_grad, y.is_leaf, y.grad_fn is None, y._is_view(), y._version, tuple(y.shape),
                 y.is_contiguous())
        y.add_(1)  # (allowed outside no_grad: nothing it views requires grad)
        return flags, y._version, y.detach().numpy().copy()

    (ft, vt, at), (fl, vl, al) = run(torch), run(lg)
    assert ft == fl and vt == vl
    np.testing.assert_allclose(al, at, rtol=2e-5, atol=1e-6)


def _fixed(*shape):
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7 - 1
