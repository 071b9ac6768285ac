"""sort, argsort, msort, topk, kthvalue, median, nanmedian, cummax and cummin against torch: values,
indices (int64), the named-tuple type, grad_fn and its saved values, first- and second-order
gradients, and the errors. Inputs are tie-free where torch leaves the tie order unspecified
(topk, kthvalue, median); sort's ties are checked with stable=True, cummax/cummin's (defined:
the last equal position wins) directly."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
NAN = float("nan")
DATA = {
    "x": RNG.permutation(24).reshape(2, 3, 4).astype(np.float64) / 7 - 1,  # tie-free
    "v": np.array([0.5, -2.0, 3.0, 1.5, -0.25]),
    "s": np.array(1.25),
    "e": np.zeros((0, 3)),
    "n": np.array([[3.0, NAN, 1.0, 2.0, -1.0], [NAN, 0.5, NAN, 4.0, 2.5]]),
    "t": np.array([2.0, 1.0, 2.0, 1.0, 3.0, 1.0]),  # ties
}
CASES = {
    "sort": lambda L, d: L.sort(d["x"]),
    "sort dim 0": lambda L, d: L.sort(d["x"], 0),
    "sort dim -2 descending": lambda L, d: L.sort(d["x"], dim=-2, descending=True),
    "sort stable": lambda L, d: L.sort(d["x"], dim=1, stable=True),
    "sort ties stable": lambda L, d: L.sort(d["t"], stable=True),
    "sort ties stable descending": lambda L, d: L.sort(d["t"], descending=True, stable=True),
    "sort nan": lambda L, d: L.sort(d["n"]),
    "sort nan descending": lambda L, d: L.sort(d["n"], descending=True, stable=True),
    "sort 0-d": lambda L, d: L.sort(d["s"]),
    "sort empty": lambda L, d: L.sort(d["e"], 0),
    "Tensor.sort": lambda L, d: d["v"].sort(descending=True),
    "argsort": lambda L, d: L.argsort(d["x"], 1),
    "Tensor.argsort descending stable": lambda L, d: d["t"].argsort(descending=True, stable=True),
    "msort": lambda L, d: L.msort(d["x"]),
    "Tensor.msort": lambda L, d: d["v"].msort(),
    "topk": lambda L, d: L.topk(d["x"], 2),
    "topk smallest dim 0": lambda L, d: L.topk(d["x"], 1, dim=0, largest=False),
    "topk all": lambda L, d: d["v"].topk(5),
    "topk zero": lambda L, d: d["v"].topk(0),
    "topk 0-d": lambda L, d: L.topk(d["s"], 1),
    "topk nan": lambda L, d: L.topk(d["n"], 2),
    "kthvalue": lambda L, d: L.kthvalue(d["x"], 3),
    "kthvalue keepdim dim -2": lambda L, d: L.kthvalue(d["x"], 2, -2, keepdim=True),
    "Tensor.kthvalue": lambda L, d: d["v"].kthvalue(1),
    "kthvalue 0-d": lambda L, d: L.kthvalue(d["s"], 1),
    "median": lambda L, d: L.median(d["x"]),
    "median even count": lambda L, d: L.median(d["x"][0]),
    "median nan": lambda L, d: L.median(d["n"]),
    "median 0-d": lambda L, d: L.median(d["s"]),
    "median empty": lambda L, d: L.median(d["e"]),
    "median dim": lambda L, d: L.median(d["x"], 1),
    "median dim keepdim": lambda L, d: L.median(d["x"], -1, keepdim=True),
    "median dim nan": lambda L, d: L.median(d["n"], 1),
    "median dim 0-d": lambda L, d: L.median(d["s"], 0),
    "Tensor.median": lambda L, d: d["v"].median(0),
    "nanmedian": lambda L, d: L.nanmedian(d["n"]),
    "nanmedian dim": lambda L, d: L.nanmedian(d["n"], 1),
    "Tensor.nanmedian": lambda L, d: d["x"].nanmedian(2, keepdim=True),
    "cummax": lambda L, d: L.cummax(d["x"], 2),
    "cummax dim 0": lambda L, d: L.cummax(d["x"], 0),
    "cummax ties": lambda L, d: L.cummax(d["t"], 0),
    "cummax nan": lambda L, d: L.cummax(d["n"], -1),
    "cummax 0-d": lambda L, d: L.cummax(d["s"], 0),
    "cummax empty": lambda L, d: L.cummax(d["e"], 0),
    "cummin": lambda L, d: L.cummin(d["x"], -2),
    "cummin ties": lambda L, d: d["t"].cummin(0),
    "cummin nan": lambda L, d: d["n"].cummin(1),
}
ERRORS = {
    "sort dim out of range": (IndexError, lambda L: L.sort(L.ones(3), 1)),
    "sort 0-d dim out of range": (IndexError, lambda L: L.sort(L.tensor(1.0), 1)),
    "topk k too large": (RuntimeError, lambda L: L.topk(L.ones(3), 4)),
    "topk k negative": (RuntimeError, lambda L: L.topk(L.ones(3), -1)),
    "topk 0-d k 2": (RuntimeError, lambda L: L.topk(L.tensor(1.0), 2)),
    "kthvalue k too large": (RuntimeError, lambda L: L.kthvalue(L.ones(2, 3), 4)),
    "kthvalue k zero": (RuntimeError, lambda L: L.kthvalue(L.ones(3), 0)),
    "kthvalue empty": (IndexError, lambda L: L.kthvalue(L.ones(0), 1)),
    "median empty dim": (IndexError, lambda L: L.median(L.ones(0, 2), 0)),
    "nanmedian empty dim": (IndexError, lambda L: L.nanmedian(L.ones(0, 2), 0)),
    "median dim out of range": (IndexError, lambda L: L.median(L.ones(3), 2)),
    "cummax dim out of range": (IndexError, lambda L: L.cummax(L.ones(3), 1)),
}


def _run(lib, name, dtype=np.float64):
    d = {k: lib.tensor(v.astype(dtype), requires_grad=True) for k, v in DATA.items()}
    return d, CASES[name](lib, d)


def _pair(out):
    return (out, None) if not isinstance(out, tuple) else (out.values, out.indices)


def _arr(t):
    return t.detach().numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_matches_torch(name):
    for dtype in (np.float32, np.float64):
        (_, t_out), (_, l_out) = _run(torch, name, dtype), _run(lg, name, dtype)
        assert type(l_out).__name__ == type(t_out).__name__
        if isinstance(t_out, tuple):
            assert (l_out.values, l_out.indices) == tuple(l_out) and len(l_out) == 2
            assert repr(l_out).startswith(f"torch.return_types.{type(t_out).__name__}(\nvalues=")
        for t, l in zip(_pair(t_out), _pair(l_out)):
            if t is None:
                assert l is None
                continue
            assert str(l.dtype) == str(t.dtype) and tuple(l.shape) == tuple(t.shape)
            np.testing.assert_array_equal(_arr(l), _arr(t))
            assert (l.grad_fn is None) == (t.grad_fn is None)
            if t.grad_fn is not None:
                assert l.grad_fn.name() == t.grad_fn.name()


@pytest.mark.parametrize("name", sorted(CASES))
def test_saved_values_match_torch(name):
    (_, t_out), (_, l_out) = _run(torch, name), _run(lg, name)
    t_fn, l_fn = _pair(t_out)[0].grad_fn, _pair(l_out)[0].grad_fn
    if t_fn is None:
        return
    t_names = sorted(n for n in dir(t_fn) if n.startswith("_saved_"))
    assert sorted(n for n in dir(l_fn) if n.startswith("_saved_") and n != "_saved_names") == t_names
    for n in t_names:
        t_v, l_v = getattr(t_fn, n), getattr(l_fn, n)
        if isinstance(t_v, torch.Tensor):
            np.testing.assert_array_equal(_arr(l_v), _arr(t_v))
        else:
            assert tuple(l_v) == tuple(t_v) if isinstance(t_v, tuple) else l_v == t_v, n


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_match_torch(name):
    res = []
    for lib in (torch, lg):
        d, out = _run(lib, name)
        vals = _pair(out)[0]
        if not vals.requires_grad:  # argsort: indices only
            res.append(None)
            continue
        v = lib.tensor(np.arange(1, vals.numel() + 1, dtype=np.float64).reshape(tuple(vals.shape)) / 3,
                       requires_grad=True)
        firsts = lib.autograd.grad(vals, list(d.values()), grad_outputs=v, create_graph=True, allow_unused=True)
        used = [(k, g) for k, g in zip(d, firsts) if g is not None]
        c = {k: lib.tensor(np.cos(np.arange(g.numel(), dtype=np.float64)).reshape(tuple(g.shape))) for k, g in used}
        total = sum((g * c[k]).sum() for k, g in used)
        (second,) = lib.autograd.grad(total, [v], allow_unused=True)  # (unused: an empty cummax)
        res.append(({k: _arr(g) for k, g in used}, None if second is None else _arr(second)))
    t_res, l_res = res
    assert (t_res is None) == (l_res is None)
    if t_res is not None:
        assert sorted(l_res[0]) == sorted(t_res[0])
        for k in t_res[0]:
            np.testing.assert_allclose(l_res[0][k], t_res[0][k], rtol=1e-12)
        assert (l_res[1] is None) == (t_res[1] is None)
        if t_res[1] is not None:
            np.testing.assert_allclose(l_res[1], t_res[1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["sort", "sort ties stable descending", "topk", "kthvalue", "median dim",
                                  "median", "cummax ties", "cummin nan", "msort"])
def test_integer_inputs_match_torch(name):
    ints = {k: np.nan_to_num(v * 7, nan=9).astype(np.int64) for k, v in DATA.items()}
    outs = [CASES[name](lib, {k: lib.tensor(v) for k, v in ints.items()}) for lib in (torch, lg)]
    for t, l in zip(_pair(outs[0]), _pair(outs[1])):
        if t is not None:
            assert str(l.dtype) == str(t.dtype) and l.tolist() == t.tolist()


def _message(lib, kind, fn) -> str:
    with pytest.raises(kind) as info:
        fn(lib)
    return str(info.value)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    t_msg, l_msg = (_message(lib, *ERRORS[name]) for lib in (torch, lg))
    assert l_msg.startswith(t_msg.split(". ")[0].rstrip("."))


def test_topk_ties_pick_the_same_values():
    # torch's order among equal values is unspecified: only the values are compared
    t = [lib.topk(lib.tensor(DATA["t"]), 4) for lib in (torch, lg)]
    assert t[1].values.tolist() == t[0].values.tolist()
    assert sorted(DATA["t"][t[1].indices.numpy()]) == sorted(DATA["t"][t[0].indices.numpy()])


def test_topk_unsorted_returns_the_same_set():
    outs = [lib.topk(lib.tensor(DATA["v"]), 3, sorted=False) for lib in (torch, lg)]
    assert sorted(outs[1].values.tolist()) == sorted(outs[0].values.tolist())
    assert sorted(outs[1].indices.tolist()) == sorted(outs[0].indices.tolist())
