"""Helpers for the leafgrad.nn tests: run a leafgrad module and the same torch module side by side."""
from __future__ import annotations

import numpy as np

import leafgrad as lg

TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-7, atol=1e-9)}


def np_of(t) -> np.ndarray:
    """The values of a leafgrad or torch tensor as a NumPy array."""
    if isinstance(t, lg.Tensor):
        return np.asarray(t.detach().numpy())
    return t.detach().cpu().numpy()


def close(a, b, dtype: str = "float64", rtol=None, atol=None) -> None:
    tol = dict(TOL[dtype])
    if rtol is not None:
        tol["rtol"] = rtol
    if atol is not None:
        tol["atol"] = atol
    x, y = np_of(a), np_of(b)
    assert x.shape == y.shape, (x.shape, y.shape)
    np.testing.assert_allclose(x, y, **tol)


def pair(torch, arr: np.ndarray, requires_grad: bool = True):
    """The same data as a leafgrad tensor and a torch tensor (independent copies)."""
    a = lg.tensor(arr.copy())
    t = torch.tensor(arr.copy())
    if requires_grad and arr.dtype.kind == "f":
        a.requires_grad_(True)
        t.requires_grad_(True)
    return a, t


def copy_weights(lg_module, torch_module) -> None:
    """Load torch's state_dict (as NumPy arrays) into the leafgrad module, strictly."""
    state = {k: v.detach().numpy().copy() for k, v in torch_module.state_dict().items()}
    res = lg_module.load_state_dict(state)
    assert not res.missing_keys and not res.unexpected_keys


def run_both(torch, lg_module, torch_module, arrays, dtype: str = "float64", seed: int = 0, rtol=None, atol=None,
             out_index=None, call=None):
    """Forward both modules on the same inputs, backward the same random cotangent, compare everything.

    ``out_index`` picks one output of a tuple-returning module (or a nested tuple path);
    ``call`` overrides how the module is called: ``call(module, *inputs)``.
    """
    rng = np.random.default_rng(seed)
    lg_in, t_in = zip(*[pair(torch, a) for a in arrays]) if arrays else ((), ())
    call = call or (lambda m, *xs: m(*xs))
    out_l = call(lg_module, *lg_in)
    out_t = call(torch_module, *t_in)
    outs_l, outs_t = _flatten(out_l), _flatten(out_t)
    assert len(outs_l) == len(outs_t)
    for a, b in zip(outs_l, outs_t):
        close(a, b, dtype, rtol, atol)
    # one scalar objective over every differentiable output
    total_l, total_t = None, None
    for a, b in zip(outs_l, outs_t):
        if not b.requires_grad:
            continue
        w = rng.standard_normal(tuple(b.shape)).astype(np_of(b).dtype)
        tl = (a * lg.tensor(w)).sum()
        tt = (b * torch.tensor(w)).sum()
        total_l = tl if total_l is None else total_l + tl
        total_t = tt if total_t is None else total_t + tt
    if total_t is None:
        return out_l, out_t
    total_l.backward()
    total_t.backward()
    for (name, p), (tname, tp) in zip(lg_module.named_parameters(), torch_module.named_parameters()):
        assert name == tname
        if tp.grad is None:
            assert p.grad is None, name
            continue
        close(p.grad, tp.grad, dtype, rtol, atol)
    for a, b in zip(lg_in, t_in):
        if b.grad is not None:
            close(a.grad, b.grad, dtype, rtol, atol)
    return out_l, out_t


def _flatten(x) -> list:
    if isinstance(x, (tuple, list)):
        out = []
        for v in x:
            out.extend(_flatten(v))
        return out
    return [] if x is None else [x]


def grad_fn_name(t) -> str | None:
    fn = t.grad_fn
    return None if fn is None else fn.name().split("::")[-1]


def chain(t, depth: int = 3) -> str:
    """A readable grad_fn tree (torch's AccumulateGrad spelled the same for both)."""
    def rec(fn, d):
        if fn is None:
            return "None"
        name = fn.name().split("::")[-1]
        if d >= depth:
            return name
        kids = ", ".join(rec(n, d + 1) for n, _ in fn.next_functions)
        return f"{name}({kids})" if kids else name
    return rec(t.grad_fn, 0)


# ----------------------------------------------------------------------------- strict comparisons
# (used by the *_extra_vs_torch tests: values with NaN and the sign of zero, whole graphs, errors)
STRICT_TOL = {"float64": dict(rtol=1e-9, atol=1e-12), "float32": dict(rtol=2e-5, atol=1e-6)}
SECOND_ORDER_TOL = {"float64": dict(rtol=1e-8, atol=1e-11), "float32": dict(rtol=1e-3, atol=1e-5)}


def same_values(a, b, dtype: str, tol=None, signs: bool = False) -> None:
    """Equal values (NaN where torch has NaN), shape and dtype; with ``signs``, the sign of each zero
    too (checked for outputs, whose -0.0 a caller can see; a gradient's zero sign is the kernel's)."""
    x, y = np_of(a), np_of(b)
    assert x.shape == y.shape and x.dtype == y.dtype, (x.shape, y.shape, x.dtype, y.dtype)
    np.testing.assert_allclose(x, y, equal_nan=True, **(tol or STRICT_TOL)[dtype])
    if signs:
        np.testing.assert_array_equal(np.signbit(x[x == 0]), np.signbit(y[x == 0]))


def graph_nodes(fn) -> list:
    """Every node of the graph below ``fn``, depth first, each once."""
    out, seen, stack = [], set(), [fn]
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        out.append(f)
        stack.extend(n for n, _ in reversed(f.next_functions))
    return out


def saved_names(fn) -> list:
    """(node name, its ``_saved_*`` attribute names) for every node below ``fn``."""
    return [(f.name().split("::")[-1], sorted(a for a in dir(f) if a.startswith("_saved_") and a != "_saved_names"))
            for f in graph_nodes(fn)]


def same_graph(out_l, out_t) -> None:
    """The same grad_fn tree (names, edges) and, node for node, the same saved attribute names."""
    assert chain(out_l, 99) == chain(out_t, 99)
    assert saved_names(out_l.grad_fn) == saved_names(out_t.grad_fn)


def raised(fn):
    """The exception ``fn()`` raises, or None."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return e
    return None


def same_error(call_l, call_t) -> None:
    """An exception of exactly torch's class (not a subclass), whose message opens with torch's
    (leafgrad may add a hint after it)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        el, et = raised(call_l), raised(call_t)
    assert et is not None and el is not None, (el, et)
    assert type(el) is type(et), (type(el), type(et), el, et)
    assert str(el).startswith(str(et)), (str(el), str(et))
