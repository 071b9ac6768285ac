"""The extra element-wise math (asin ... heaviside) against torch: values at the edges of each
domain, dtypes, grad_fn names and saved values, first and second derivatives, in-place forms,
and the errors torch raises."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg

INF, NAN = float("inf"), float("nan")
EDGES = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 1e-3, 10.0, INF, -INF, NAN]
GENERIC = [-2.0, -0.7, 0.0, 0.3, 1.5]
UNIT = [-0.9, -0.3, 0.0, 0.4, 0.8]  # inside (-1, 1): asin, acos, atanh, erfinv

# name -> (call on a library and a tensor, points where the function is smooth)
UNARY = {
    "asin": (lambda L, x: L.asin(x), UNIT),
    "acos": (lambda L, x: L.acos(x), UNIT),
    "asinh": (lambda L, x: L.asinh(x), GENERIC),
    "acosh": (lambda L, x: L.acosh(x), [1.2, 2.0, 5.0]),
    "atanh": (lambda L, x: L.atanh(x), UNIT),
    "sinh": (lambda L, x: L.sinh(x), GENERIC),
    "cosh": (lambda L, x: L.cosh(x), GENERIC),
    "erfc": (lambda L, x: L.erfc(x), GENERIC),
    "erfinv": (lambda L, x: L.erfinv(x), UNIT),
    "exp2": (lambda L, x: L.exp2(x), GENERIC),
    "sinc": (lambda L, x: L.sinc(x), GENERIC),
    "frac": (lambda L, x: L.frac(x), [-1.5, -0.3, 0.2, 2.7]),
    "sgn": (lambda L, x: L.sgn(x), GENERIC),
    "logit": (lambda L, x: L.logit(x), [0.1, 0.4, 0.7, 0.95]),
    "logit eps 0.1": (lambda L, x: L.logit(x, eps=0.1), [0.05, 0.4, 0.7, 0.95]),
    "logit eps -0.1": (lambda L, x: L.logit(x, -0.1), [0.1, 0.4, 0.7, 0.95]),
    "logit eps 0.7": (lambda L, x: L.logit(x, 0.7), [0.1, 0.4, 0.7, 0.95]),
    "deg2rad": (lambda L, x: L.deg2rad(x), GENERIC),
    "rad2deg": (lambda L, x: L.rad2deg(x), GENERIC),
    "nan_to_num": (lambda L, x: L.nan_to_num(x), GENERIC + [NAN, INF, -INF]),
    "nan_to_num numbers": (lambda L, x: L.nan_to_num(x, nan=1.5, posinf=2.0, neginf=-3.0), GENERIC + [NAN, INF]),
    "Tensor.asin": (lambda L, x: x.asin(), UNIT),
    "Tensor.logit": (lambda L, x: x.logit(0.2), [0.1, 0.4, 0.7]),
    "Tensor.nan_to_num": (lambda L, x: x.nan_to_num(posinf=5.0), GENERIC + [INF]),
}
# name -> (call, self points, other points): self of shape (2, 1) against other of shape (3,), so the
# engine reduces the broadcast gradients
BINARY = {
    "atan2": (lambda L, a, b: L.atan2(a, b), [[0.5], [-1.0]], [2.0, -0.3, 1.0]),
    "arctan2": (lambda L, a, b: L.arctan2(a, b), [[0.5], [-1.0]], [2.0, -0.3, 1.0]),
    "hypot": (lambda L, a, b: L.hypot(a, b), [[0.5], [-1.0]], [2.0, -0.3, 1.0]),
    "logaddexp": (lambda L, a, b: L.logaddexp(a, b), [[0.5], [-1.0]], [2.0, -0.3, 1.0]),
    "logaddexp2": (lambda L, a, b: L.logaddexp2(a, b), [[0.5], [-1.0]], [2.0, -0.3, 1.0]),
    "xlogy": (lambda L, a, b: L.xlogy(a, b), [[0.5], [-1.0]], [2.0, 0.3, 1.0]),
    "xlogy, number other": (lambda L, a, b: L.xlogy(a, 3.0), [[0.5], [-1.0]], [2.0, 0.3, 1.0]),
    "xlogy, number self": (lambda L, a, b: L.xlogy(2.5, b), [[0.5], [-1.0]], [2.0, 0.3, 1.0]),
    "Tensor.atan2": (lambda L, a, b: a.atan2(b), [[0.5], [-1.0]], [2.0, -0.3, 1.0]),
    "Tensor.xlogy": (lambda L, a, b: a.xlogy(b), [[0.5], [-1.0]], [2.0, 0.3, 1.0]),
}
# pairs at the edges: zeros, signed zeros, infinities, nan, xlogy's x = 0 with y <= 0
EDGE_A = [0.0, 0.0, -0.0, -0.0, 1.0, INF, INF, -INF, NAN, 0.0, 0.0, 2.0, -INF]
EDGE_B = [0.0, -0.0, 0.0, -0.0, INF, INF, 1.0, -INF, 1.0, -1.0, NAN, 0.0, -INF]
BINARY_EDGES = {
    "atan2": lambda L, a, b: L.atan2(a, b),
    "hypot": lambda L, a, b: L.hypot(a, b),
    "logaddexp": lambda L, a, b: L.logaddexp(a, b),
    "logaddexp2": lambda L, a, b: L.logaddexp2(a, b),
    "xlogy": lambda L, a, b: L.xlogy(a, b),
    "xlogy, number other 0": lambda L, a, b: L.xlogy(a, 0.0),
    "xlogy, number other -1": lambda L, a, b: L.xlogy(a, -1.0),
    "xlogy, number self 0": lambda L, a, b: L.xlogy(0.0, b),
    "heaviside": lambda L, a, b: L.heaviside(a, b),
}
ALIASES = {"arcsin": "asin", "arccos": "acos", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
           "arctan2": "atan2"}
INPLACE_UNARY = ["asin_", "acos_", "asinh_", "acosh_", "atanh_", "sinh_", "cosh_", "erfc_", "erfinv_", "exp2_",
                 "sinc_", "frac_", "sgn_", "logit_", "deg2rad_", "rad2deg_", "nan_to_num_", "arcsin_", "arccos_",
                 "arcsinh_", "arccosh_", "arctanh_"]
INPLACE_BINARY = ["atan2_", "arctan2_", "hypot_", "xlogy_", "heaviside_"]
RTOL = {"float32": 2e-6, "float64": 1e-12}
# derivatives: their formulas cancel (sinc's pi x cos(pi x) - sin(pi x) near 0), so an ulp of
# difference in cos or sin grows
GRAD_RTOL = {"float32": 1e-5, "float64": 1e-9}
NO_GRAPH = "a first derivative that does not require grad"


def _outcome(fn):
    """("ok", result) or ("raise", exact exception class, message)."""
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("raise", type(e).__name__ if type(e).__module__ == "builtins" else repr(type(e)), str(e))


def _same_outcome(t, lg_, what: str = "", dtype_name: str = "float32") -> None:
    assert lg_[0] == t[0], (what, t, lg_)
    if t[0] == "raise":
        opening = t[2].split(". ")[0].split("\n")[0].rstrip(".")
        assert lg_[1] == t[1] and lg_[2].startswith(opening), (what, t, lg_)
    elif hasattr(t[1], "detach"):
        _same_values(lg_[1], t[1], dtype_name, what)
    else:
        assert lg_[1] == t[1], (what, t, lg_)


def _np(t) -> np.ndarray:
    t = t.detach()
    return t.numpy(force=True) if type(t).__module__.startswith("torch") else t.numpy()  # (force: a ZeroTensor)


def _same_values(actual, expected, dtype_name: str, what: str = "", rtol: dict = RTOL) -> None:
    a, e = _np(actual), _np(expected)
    assert a.shape == e.shape and str(a.dtype) == str(e.dtype), (what, a.dtype, e.dtype)
    tol = rtol.get(dtype_name, 1e-3)
    if a.dtype.kind == "b":
        assert a.tolist() == e.tolist(), what
        return
    np.testing.assert_allclose(a.astype(np.float64) if a.dtype.kind != "c" else a, e, rtol=tol,
                               atol=tol * 10, err_msg=what)
    zeros = (e == 0) & (a == 0)
    if a.dtype.kind == "f":  # the sign of a zero result is part of torch's answer (frac(-0.0), sgn, xlogy)
        assert (np.signbit(a[zeros]) == np.signbit(e[zeros])).all(), (what, a.tolist(), e.tolist())


def _grads_both(fn, lib, data: dict, dtype_name: str):
    """Values, first and second derivatives of ``fn`` in ``lib``, with fixed incoming gradients."""
    dt = getattr(lib, dtype_name)
    ts = {k: lib.tensor(v, dtype=dt, requires_grad=True) for k, v in data.items()}
    out = fn(lib, *ts.values())
    v = lib.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)).tolist(), dtype=dt)
    inputs = list(ts.values())
    first = lib.autograd.grad(out, inputs, v, create_graph=True, allow_unused=True)
    second = []
    for g in first:
        if g is None or not g.requires_grad:
            second.append(NO_GRAPH)
            continue
        w = lib.tensor(np.linspace(-1.0, 2.0, g.numel()).reshape(tuple(g.shape)).tolist(), dtype=dt)
        second.append(lib.autograd.grad(g, inputs, w, retain_graph=True, allow_unused=True))
    return out, first, second


def _compare_grads(fn, data: dict, dtype_name: str, torch) -> None:
    t_out, t_first, t_second = _grads_both(fn, torch, data, dtype_name)
    l_out, l_first, l_second = _grads_both(fn, lg, data, dtype_name)
    _same_values(l_out, t_out, dtype_name, "value")
    assert l_out.grad_fn.name() == t_out.grad_fn.name()
    for i, (lgr, tgr) in enumerate(zip(l_first, t_first)):
        assert (lgr is None) == (tgr is None), f"first derivative {i} defined"
        if tgr is not None:
            _same_values(lgr, tgr, dtype_name, f"first derivative {i}", GRAD_RTOL)
    for i, (lgr, tgr) in enumerate(zip(l_second, t_second)):
        assert (lgr is NO_GRAPH) == (tgr is NO_GRAPH), f"first derivative {i} recorded a graph"
        if tgr is NO_GRAPH:
            continue
        for j, (l2, t2) in enumerate(zip(lgr, tgr)):
            assert (l2 is None) == (t2 is None), f"second derivative {i}, {j} defined"
            if t2 is not None:
                _same_values(l2, t2, dtype_name, f"second derivative {i}, {j}", GRAD_RTOL)


# ----------------------------------------------------------------------------- values
@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_at_the_edges_match_torch(torch, name, dtype_name):
    fn = UNARY[name][0]
    outs = [fn(L, L.tensor(EDGES, dtype=getattr(L, dtype_name))) for L in (torch, lg)]
    _same_values(outs[1], outs[0], dtype_name, name)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BINARY_EDGES))
def test_binary_values_at_the_edges_match_torch(torch, name, dtype_name):
    outs = [BINARY_EDGES[name](L, L.tensor(EDGE_A, dtype=getattr(L, dtype_name)),
                               L.tensor(EDGE_B, dtype=getattr(L, dtype_name))) for L in (torch, lg)]
    _same_values(outs[1], outs[0], dtype_name, name)


@pytest.mark.parametrize("name", ["signbit", "sgn", "frac", "nan_to_num", "sinc", "erfinv"])
def test_more_edge_values_match_torch(torch, name):
    data = [0.0, -0.0, NAN, -NAN, -1.0, 1.0, -1.5, 2.25, INF, -INF, 1e-30, -1e-30]
    outs = [getattr(L, name)(L.tensor(data)) for L in (torch, lg)]
    _same_values(outs[1], outs[0], "float32", name)


@pytest.mark.parametrize("dtype_name", ["int64", "int32", "uint8", "bool", "float16"])
@pytest.mark.parametrize("name", sorted(n for n in UNARY if not n.startswith("Tensor.")) + ["signbit"])
def test_result_dtype_of_other_inputs_matches_torch(torch, name, dtype_name):
    fn = UNARY[name][0] if name in UNARY else (lambda L, x: L.signbit(x))
    data = [0, 1, 2, 5] if dtype_name != "bool" else [True, False]
    t, l_ = (_outcome(lambda: fn(L, L.tensor(data, dtype=getattr(L, dtype_name)))) for L in (torch, lg))
    _same_outcome(t, l_, name, "float16" if dtype_name == "float16" else "float32")


@pytest.mark.parametrize("pair", [("int64", "int64"), ("float32", "int64"), ("int32", "float64"), ("bool", "bool"),
                                  ("float32", "float64"), ("float64", "float32"), ("float16", "float16")])
@pytest.mark.parametrize("name", ["atan2", "hypot", "logaddexp", "logaddexp2", "xlogy", "heaviside"])
def test_binary_result_dtype_matches_torch(torch, name, pair):
    data = [[1, 0, 2], [1, 0, 3]] if pair != ("bool", "bool") else [[True, False, True], [False, False, True]]
    t, l_ = (_outcome(lambda: getattr(L, name)(L.tensor(data[0], dtype=getattr(L, pair[0])),
                                               L.tensor(data[1], dtype=getattr(L, pair[1]))))
             for L in (torch, lg))
    _same_outcome(t, l_, name, "float16" if "float16" in pair else "float32")


@pytest.mark.parametrize("case", ["int tensor, float", "int tensor, int", "int, int tensor", "float, float64 tensor",
                                  "float32 tensor, 0-dim float64", "bool, float tensor", "NumPy float, float tensor",
                                  "float tensor, NumPy int"])
def test_xlogy_promotion_with_numbers_matches_torch(torch, case):
    def run(L):
        i, f = L.tensor([0, 1, 3]), L.tensor([0.5, 1.0, 2.0])
        return {"int tensor, float": lambda: L.xlogy(i, 2.0), "int tensor, int": lambda: L.xlogy(i, 2),
                "int, int tensor": lambda: L.xlogy(2, i), "float, float64 tensor": lambda: L.xlogy(2.0, f.double()),
                "float32 tensor, 0-dim float64": lambda: L.xlogy(f, L.tensor(3.0, dtype=L.float64)),
                "bool, float tensor": lambda: L.xlogy(True, f), "NumPy float, float tensor": lambda: L.xlogy(
                    np.float64(2.0), f.requires_grad_()), "float tensor, NumPy int": lambda: L.xlogy(
                    f.requires_grad_(), np.int64(3))}[case]()
    t, l_ = run(torch), run(lg)
    _same_values(l_, t, "float32", case)
    assert (l_.grad_fn is None) == (t.grad_fn is None) and (t.grad_fn is None or l_.grad_fn.name() == t.grad_fn.name())


# ----------------------------------------------------------------------------- graph nodes and saved values
def _saved(out) -> dict:
    fn = out.grad_fn
    names = sorted(a for a in dir(fn) if a.startswith("_saved_") and a != "_saved_names")
    return {a: getattr(fn, a) for a in names}


NODE_CASES = {**{name: (lambda L, x, fn=fn: fn(L, x)) for name, (fn, _) in UNARY.items()},
              **{name: (lambda L, x, fn=fn: fn(L, x[:2].reshape(2, 1), x + 2)) for name, (fn, _, _) in BINARY.items()},
              "heaviside": lambda L, x: L.heaviside(x, x.detach()),
              "heaviside, values need grad": lambda L, x: L.heaviside(x.detach(), x)}


@pytest.mark.parametrize("name", sorted(NODE_CASES))
def test_grad_fn_and_saved_values_match_torch(torch, name):
    res = []
    for L in (torch, lg):
        x = L.tensor([0.25, 0.5, 0.75], dtype=L.float64, requires_grad=True)
        out = NODE_CASES[name](L, x[:2] if "heaviside" in name else x)
        res.append(out)
    t_out, l_out = res
    assert l_out.grad_fn.name() == t_out.grad_fn.name()
    t_saved, l_saved = _saved(t_out), _saved(l_out)
    assert sorted(l_saved) == sorted(t_saved)
    for k, tv in t_saved.items():
        lv = l_saved[k]
        if isinstance(tv, torch.Tensor):
            assert isinstance(lv, lg.Tensor), k
            np.testing.assert_allclose(_np(lv), _np(tv), rtol=1e-12, err_msg=k)
        else:
            assert lv == tv and type(lv) is type(tv), (k, lv, tv)


# ----------------------------------------------------------------------------- derivatives
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (sinc at 0: its second derivative's discarded 0 / 0)
@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_first_and_second_derivatives_match_torch(torch, name, dtype_name):
    fn, points = UNARY[name]
    _compare_grads(lambda L, x: fn(L, x), {"x": points}, dtype_name, torch)


# (the second derivatives run leafgrad's own mul, div and sin backward on nan and inf, which warn)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(n for n in UNARY if not n.startswith("Tensor.")))
def test_unary_derivatives_at_the_edges_match_torch(torch, name):
    fn = UNARY[name][0]
    _compare_grads(lambda L, x: fn(L, x), {"x": EDGES}, "float64", torch)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_first_and_second_derivatives_match_torch(torch, name, dtype_name):
    fn, a, b = BINARY[name]
    _compare_grads(fn, {"a": a, "b": b}, dtype_name, torch)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(n for n in BINARY_EDGES if n != "heaviside"))
def test_binary_derivatives_at_the_edges_match_torch(torch, name):
    _compare_grads(BINARY_EDGES[name], {"a": EDGE_A, "b": EDGE_B}, "float64", torch)


@pytest.mark.parametrize("name", sorted(UNARY) + sorted(n for n in BINARY_EDGES if n != "heaviside"))
def test_edges_give_nan_and_inf_without_warnings(name):
    """torch answers asin(2), logit(0), xlogy(0, 0) silently; so must the forwards and the first
    derivatives (leafgrad's own div or mul warn on such values when they are used bare)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if name in UNARY:
            x = lg.tensor(EDGES, requires_grad=True)
            lg.autograd.grad(UNARY[name][0](lg, x), x, lg.ones(len(EDGES)))
        else:
            a, b = lg.tensor(EDGE_A, requires_grad=True), lg.tensor(EDGE_B, requires_grad=True)
            lg.autograd.grad(BINARY_EDGES[name](lg, a, b), (a, b), lg.ones(len(EDGE_A)), allow_unused=True)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("eps", [None, 0.1, -0.1, 0.7])
def test_logit_gradient_outside_its_range_matches_torch(torch, eps, create_graph):
    """torch's first derivative differs with create_graph (its infinitely differentiable form) at
    nan and for a negative eps; leafgrad follows both."""
    data = [0.0, 1.0, 0.5, -1.0, 2.0, NAN, 0.1, 0.9, 0.05]
    grads = []
    for L in (torch, lg):
        x = L.tensor(data, requires_grad=True)
        grads.append(L.autograd.grad(L.logit(x, eps), x, L.ones(len(data)), create_graph=create_graph)[0])
    _same_values(grads[1], grads[0], "float32", f"eps={eps}")


@pytest.mark.parametrize("which", ["input", "values"])
def test_heaviside_backward_is_refused_as_in_torch(torch, which):
    msgs = []
    for L in (torch, lg):
        x = L.tensor([0.5, 0.0, -1.0], requires_grad=which == "input")
        values = L.tensor([0.5], requires_grad=which == "values")
        out = L.heaviside(x, values)
        with raises_exactly(RuntimeError) as info:
            out.sum().backward()
        msgs.append(str(info.value))
    assert msgs[1].startswith(msgs[0])


def test_signbit_is_a_bool_tensor_without_history(torch):
    for L in (torch, lg):
        out = L.signbit(L.tensor([-0.0, 1.0], requires_grad=True))
        assert out.dtype is L.bool and not out.requires_grad and out.grad_fn is None


# ----------------------------------------------------------------------------- complex inputs
@pytest.mark.parametrize("name", ["asin", "acos", "asinh", "acosh", "atanh", "sinh", "cosh", "exp2", "sinc", "sgn",
                                  "logaddexp"])
def test_complex_values_and_gradients_match_torch(torch, name):
    data = [0.5 + 0.25j, -1.5 + 2.0j, 0.3 - 0.1j]
    res = []
    for L in (torch, lg):
        x = L.tensor(data, dtype=L.complex128, requires_grad=True)
        out = getattr(L, name)(x, x.flip(0)) if name == "logaddexp" else getattr(L, name)(x)
        (g,) = L.autograd.grad(out.abs().sum(), x)
        res.append((out, g))
    _same_values(res[1][0], res[0][0], "float64", "value")
    _same_values(res[1][1], res[0][1], "float64", "gradient")


@pytest.mark.parametrize("name", ["sgn", "nan_to_num", "logaddexp"])
def test_complex_edge_values_match_torch(torch, name):
    data = [0j, 3 + 4j, complex(NAN, INF), complex(-INF, 1.0), complex(INF, -INF)]
    outs = [getattr(L, name)(*[L.tensor(data)] * (2 if name == "logaddexp" else 1)) for L in (torch, lg)]
    _same_values(outs[1], outs[0], "float32", name)


# ----------------------------------------------------------------------------- names
@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_aliases_are_the_same_function(torch, alias):
    assert getattr(lg, alias) is getattr(lg, ALIASES[alias])
    nodes = []
    for L in (torch, lg):
        t = L.tensor([0.3, -0.2], requires_grad=True)
        args = (t.detach() + 1,) if alias == "arctan2" else ()
        fn_out, method_out = getattr(L, alias)(t, *args), getattr(t, alias)(*args)
        assert fn_out.grad_fn.name() == method_out.grad_fn.name()
        nodes.append(fn_out.grad_fn.name())
    assert nodes[1] == nodes[0]


@pytest.mark.parametrize("name", sorted({n.split()[0] for n in UNARY if not n.startswith("Tensor.")})
                         + ["atan2", "hypot", "logaddexp", "logaddexp2", "xlogy", "heaviside", "signbit"])
def test_every_function_is_also_a_tensor_method(torch, name):
    assert hasattr(torch.Tensor, name) and hasattr(lg.Tensor, name)
    assert hasattr(lg.Tensor, name + "_") == hasattr(torch.Tensor, name + "_")


# ----------------------------------------------------------------------------- in place
def _inplace_call(name: str, L, t):
    if name in INPLACE_BINARY:
        other = L.tensor([0.5, 2.0, 1.0], dtype=t.dtype)
        return getattr(t, name)(other)
    if name == "logit_":
        return t.logit_(0.1)
    if name == "nan_to_num_":
        return t.nan_to_num_(posinf=7.0)
    return getattr(t, name)()


@pytest.mark.parametrize("name", INPLACE_UNARY + INPLACE_BINARY)
def test_inplace_forms_match_torch(torch, name):
    """The value, the version bump, the node, and the gradient through it (which torch refuses for
    asinh_, acosh_, atanh_ and heaviside_)."""
    data = [1.5, 0.5, 0.25] if "acosh" in name or "arccosh" in name else [0.25, -0.5, 0.0]
    res = []
    for L in (torch, lg):
        leaf = L.tensor(data, dtype=L.float64, requires_grad=True)
        y = leaf * 1  # (a non-leaf: an in-place op may write into it)
        v0 = y._version
        out = _inplace_call(name, L, y)
        assert out is y and y._version == v0 + 1 and y.requires_grad
        grad = _outcome(lambda: L.autograd.grad(y, leaf, L.tensor([1.0, 2.0, 3.0], dtype=L.float64))[0])
        res.append((y, y.grad_fn.name(), grad))
    (t_y, t_node, t_grad), (l_y, l_node, l_grad) = res
    assert l_node == t_node
    _same_values(l_y, t_y, "float64", "value")
    _same_outcome(t_grad, l_grad, "gradient", "float64")


@pytest.mark.parametrize("name", INPLACE_UNARY + INPLACE_BINARY)
def test_inplace_errors_match_torch(torch, name):
    """On a leaf that requires grad, and on an integer tensor (the result would not fit)."""
    for make in (lambda L: L.tensor([0.25, 0.5, 0.75], requires_grad=True), lambda L: L.tensor([0, 1, 2])):
        # (sgn_, nan_to_num_, heaviside_ keep an integer tensor's dtype: no error there)
        t, l_ = (_outcome(lambda: _inplace_call(name, L, make(L)).shape) for L in (torch, lg))
        _same_outcome(t, l_, name)


# ----------------------------------------------------------------------------- errors
ERRORS = {
    "atan2 with a number": lambda L: L.atan2(L.ones(2), 0.5),
    "atan2 with a number first": lambda L: L.atan2(0.5, L.ones(2)),
    "Tensor.atan2 with a number": lambda L: L.ones(2).atan2(0.5),
    "atan2_ with a number": lambda L: L.ones(2).atan2_(0.5),
    "hypot with a number": lambda L: L.hypot(L.ones(2), 2.0),
    "Tensor.hypot with a number": lambda L: L.ones(2).hypot(2.0),
    "logaddexp with a number": lambda L: L.logaddexp(L.ones(2), 2.0),
    "logaddexp2 with a number": lambda L: L.logaddexp2(L.ones(2), 2.0),
    "heaviside with a number": lambda L: L.heaviside(L.ones(2), 0.5),
    "Tensor.heaviside with a number": lambda L: L.ones(2).heaviside(0.5),
    "heaviside with different dtypes": lambda L: L.heaviside(L.ones(2), L.ones(2, dtype=L.float64)),
    "heaviside_ with different dtypes": lambda L: L.ones(2).heaviside_(L.ones(2, dtype=L.float64)),
    "heaviside of complex": lambda L: L.heaviside(L.ones(2, dtype=L.complex64), L.ones(2, dtype=L.complex64)),
    "xlogy of two numbers": lambda L: L.xlogy(2.0, 3.0),
    "xlogy of complex": lambda L: L.xlogy(L.ones(2, dtype=L.complex64), L.ones(2, dtype=L.complex64)),
    "hypot of integers": lambda L: L.hypot(L.ones(2, dtype=L.int64), L.ones(2, dtype=L.int64)),
    "hypot_ of integers": lambda L: L.ones(2, dtype=L.int64).hypot_(L.ones(2, dtype=L.int64)),
    "hypot of complex": lambda L: L.hypot(L.ones(2, dtype=L.complex64), L.ones(2, dtype=L.complex64)),
    "atan2 of complex": lambda L: L.atan2(L.ones(2, dtype=L.complex64), L.ones(2, dtype=L.complex64)),
    "logaddexp of integers": lambda L: L.logaddexp(L.ones(2, dtype=L.int64), L.ones(2, dtype=L.int64)),
    "logaddexp2 of complex": lambda L: L.logaddexp2(L.ones(2, dtype=L.complex64), L.ones(2, dtype=L.complex64)),
    "atan2 shapes that do not broadcast": lambda L: L.atan2(L.ones(2), L.ones(3)),
    "atan2_ into a smaller shape": lambda L: L.ones(3).atan2_(L.ones(2, 3)),
    "logit with a string eps": lambda L: L.logit(L.ones(2), "a"),
    "logit of complex": lambda L: L.logit(L.ones(2, dtype=L.complex64)),
    "erfc of complex": lambda L: L.erfc(L.ones(2, dtype=L.complex64)),
    "erfinv of complex": lambda L: L.erfinv(L.ones(2, dtype=L.complex64)),
    "frac of complex": lambda L: L.frac(L.ones(2, dtype=L.complex64)),
    "frac of integers": lambda L: L.frac(L.ones(2, dtype=L.int64)),
    "deg2rad of complex": lambda L: L.deg2rad(L.ones(2, dtype=L.complex64)),
    "rad2deg of complex": lambda L: L.rad2deg(L.ones(2, dtype=L.complex64)),
    "signbit of complex": lambda L: L.signbit(L.ones(2, dtype=L.complex64)),
    "nan_to_num of complex that requires grad": lambda L: L.nan_to_num(L.ones(2, dtype=L.complex64,
                                                                                requires_grad=True)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(torch, name):
    t, l_ = (_outcome(lambda: ERRORS[name](L)) for L in (torch, lg))
    assert t[0] == "raise"
    _same_outcome(t, l_, name)


# ----------------------------------------------------------------------------- without SciPy
@pytest.mark.parametrize("name", ["erfc", "erfinv"])
def test_erfc_and_erfinv_without_scipy_match_torch(torch, monkeypatch, name):
    """SciPy is optional: the NumPy-only forms must give the same values."""
    from leafgrad._backend import CPU
    monkeypatch.setitem(CPU._special, name, None)
    monkeypatch.setitem(CPU._special, "erf", None)
    data = [0.0, -0.0, 0.5, -0.5, 0.999, -0.999999, 1.0, -1.0, 2.0, NAN, 1e-8, 0.3, 3.0, -5.0]
    if name == "erfinv":
        data = [v for v in data if abs(v) <= 1 or v != v] + [1.5]
    for dtype_name in ("float32", "float64"):
        outs = [getattr(L, name)(L.tensor(data, dtype=getattr(L, dtype_name))) for L in (torch, lg)]
        tol = 1e-10 if dtype_name == "float64" else 2e-6
        np.testing.assert_allclose(_np(outs[1]), _np(outs[0]), rtol=tol, atol=tol)
