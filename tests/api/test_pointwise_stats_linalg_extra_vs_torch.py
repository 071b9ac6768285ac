"""The ops of _ops/pointwise_extra.py, stats_extra.py and linalg_extra.py against torch: values, dtypes,
grad_fn names, first and second gradients, in-place rules and exception classes."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad
from differential import raises_exactly, same

torch = pytest.importorskip("torch")

_R = np.random.default_rng(7)
A = _R.standard_normal((3, 3))
B = _R.standard_normal((3, 3))
POS = np.abs(A) + 0.5
POS2 = np.abs(B) + 0.5
V3 = _R.standard_normal((2, 3))
W3 = _R.standard_normal((2, 3))
TALL = _R.standard_normal((3, 5))
SIGNS = np.array([[1.5, -0.0, 0.0], [-2.0, 3.0, -0.5]])
TIES = np.array([[1.0, 3.0, 3.0, 1.0], [2.0, 0.5, 2.0, 0.5], [4.0, 4.0, -1.0, 4.0]])
WITH_NAN = np.array([[1.0, np.nan, 2.0], [np.nan, -1.0, 0.5]])
TRI = np.triu(A) + 3 * np.eye(3)


def _cotangent(m, like):
    n = int(np.prod(like.shape))
    return m.tensor(np.cos(np.arange(1, n + 1) * 0.7).reshape(tuple(like.shape)), dtype=like.dtype)


def grads(f, *arrays, second: bool = True):
    """f(m, *leaves): its values and grad_fn names, the gradients of a weighted sum of its float outputs and,
    with ``second``, the gradients of a weighted sum of those (create_graph=True)."""
    def run(m):
        xs = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
        out = f(m, *xs)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        names = [o.grad_fn.name() if o.grad_fn is not None else None for o in outs]
        diff = [o for o in outs if o.requires_grad]
        loss = sum((o * _cotangent(m, o)).sum() for o in diff)
        g = [None if x is None else x.clone() for x in  # (clone: torch's ZeroTensor cannot go to numpy)
             m.autograd.grad(loss, xs, create_graph=second, allow_unused=True)]
        result = {"out": outs, "names": names, "grad": list(g)}
        if second:
            used = [gi for gi in g if gi is not None and gi.requires_grad]
            if used:
                total = sum((gi * _cotangent(m, gi)).sum() for gi in used)
                result["grad2"] = [None if x is None else x.clone() for x in
                                   m.autograd.grad(total, xs, allow_unused=True)]
        return result
    return run


CASES = {
    "copysign": (lambda m, a, b: m.copysign(a, b), SIGNS, V3),
    "copysign_by_signs": (lambda m, a, b: m.copysign(b, a), SIGNS, V3),
    "copysign_scalar": (lambda m, a: m.copysign(a, -2.0), SIGNS),
    "copysign_method_broadcast": (lambda m, a, b: a.copysign(b[0]), V3, W3),
    "float_power": (lambda m, a, b: m.float_power(a, b), POS, B),
    "float_power_scalar": (lambda m, a: m.float_power(a, 3), A),
    "float_power_base": (lambda m, a: m.float_power(2.5, a), A),
    "frexp": (lambda m, a: m.frexp(a * 10), A),
    "ldexp": (lambda m, a, b: m.ldexp(a, b), A, B),
    "ldexp_int_exponent": (lambda m, a: m.ldexp(a, m.tensor([1, -2, 3])), A),
    "nextafter": (lambda m, a, b: m.nextafter(a, b), A, B),
    "igamma_other": (lambda m, x: m.igamma(m.tensor(POS2), x), POS),
    "igammac_other": (lambda m, x: m.igammac(m.tensor(POS2), x), POS),
    "special_gammainc": (lambda m, x: m.special.gammainc(m.tensor(POS2), x), POS),
    "angle": (lambda m, a: m.angle(a), SIGNS),
    "aminmax": (lambda m, a: m.aminmax(a), TIES),
    "aminmax_dim": (lambda m, a: m.aminmax(a, dim=1), TIES),
    "aminmax_dim_keepdim": (lambda m, a: m.aminmax(a, dim=0, keepdim=True), TIES),
    "mode": (lambda m, a: m.mode(a), TIES),
    "mode_dim0_keepdim": (lambda m, a: m.mode(a, 0, True), TIES),
    "mode_method": (lambda m, a: a.mode(dim=-2), TIES),
    "nansum": (lambda m, a: m.nansum(a), WITH_NAN),
    "nansum_dim": (lambda m, a: a.nansum(1, keepdim=True), WITH_NAN),
    "nanmean": (lambda m, a: m.nanmean(a), WITH_NAN),
    "nanmean_dim": (lambda m, a: a.nanmean(0), WITH_NAN),
    "std_mean": (lambda m, a: m.std_mean(a), A),
    "std_mean_dim": (lambda m, a: m.std_mean(a, 1, keepdim=True), A),
    "var_mean": (lambda m, a: m.var_mean(a, dim=0, correction=0), A),
    "var_mean_unbiased": (lambda m, a: m.var_mean(a, 1, False), A),
    "cov": (lambda m, a: m.cov(a), TALL),
    "cov_vector": (lambda m, a: m.cov(a[0]), TALL),
    "cov_weights": (lambda m, a: m.cov(a, correction=2, fweights=m.tensor([1, 2, 1, 3, 1]),
                                       aweights=m.tensor([0.5, 1.0, 2.0, 1.0, 0.25], dtype=m.float64)), TALL),
    "cov_method": (lambda m, a: a.cov(correction=0), TALL),
    "corrcoef": (lambda m, a: m.corrcoef(a), TALL),
    "cross_dim": (lambda m, a, b: m.cross(a, b, dim=1), V3, W3),
    "cross_method": (lambda m, a, b: a.cross(b, dim=-1), V3, W3),
    "dist": (lambda m, a, b: m.dist(a, b), A, B),
    "dist_p3_broadcast": (lambda m, a, b: m.dist(a, b[0], 3), A, B),
    "dist_p1": (lambda m, a, b: a.dist(b, 1), A, B),
    "dist_inf": (lambda m, a, b: m.dist(a, b, float("inf")), A, B),
    "renorm": (lambda m, a: m.renorm(a, 2, 0, 1.0), A),
    "renorm_p1_dim1": (lambda m, a: a.renorm(1, 1, 0.8), A),
    "lu_factor": (lambda m, a: m.linalg.lu_factor(a), A),
    "lu_factor_ex": (lambda m, a: m.linalg.lu_factor_ex(a), A),
    "linalg_lu": (lambda m, a: m.linalg.lu(a), A),
    "lu_unpack": (lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a)), A),
    "lu_solve": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), A, V3.T),
    "lu_solve_adjoint": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, adjoint=True), A, V3.T),
    "lu_solve_right": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, left=False), A, V3),
    "lu_solve_right_adjoint": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, left=False,
                                                                 adjoint=True), A, V3),
    "torch_lu": (lambda m, a: m.lu(a), A),
    "torch_lu_infos": (lambda m, a: a.lu(get_infos=True), A),
    "torch_lu_solve": (lambda m, a, b: b.lu_solve(*m.lu(a)), A, V3.T),
    "matrix_exp": (lambda m, a: m.linalg.matrix_exp(a), A),
    "matrix_exp_method": (lambda m, a: (a * 0.5).matrix_exp(), A),
    "triangular_solve": (lambda m, b, a: m.triangular_solve(b, a), V3.T, TRI),
    "triangular_solve_lower_t": (lambda m, b, a: m.triangular_solve(b, a, upper=False, transpose=True), V3.T, TRI.T),
    "triangular_solve_unit": (lambda m, b, a: b.triangular_solve(a, unitriangular=True), V3.T, TRI),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    f, *arrays = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (the deprecated legacy forms warn; see test_warnings)
        same(torch, grads(f, *arrays))


def test_lu_of_batches_matches_torch():
    batch = _R.standard_normal((2, 4, 4))
    same(torch, grads(lambda m, a: m.linalg.lu_factor(a), batch))
    for rect in (TALL, TALL.T, _R.standard_normal((2, 3, 4))):  # (wide, tall, a batch)
        same(torch, grads(lambda m, a: m.linalg.lu(a), rect))
        same(torch, grads(lambda m, a: m.linalg.lu_factor(a), rect))
        same(torch, grads(lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a)), rect))


def test_eig_first_gradients_match_torch():
    def f(m):
        a = m.tensor(A, dtype=m.float64, requires_grad=True)
        w, v = m.linalg.eig(a)
        # (a loss of |.| only: invariant to the eigenvectors' phases)
        loss = (w.abs() * m.tensor([1.0, 2.0, 3.0], dtype=m.float64)).sum() + \
            (v.abs() ** 2 * m.tensor(B, dtype=m.float64)).sum()
        g, = m.autograd.grad(loss, [a])
        ev = m.linalg.eigvals(a)
        return [w, v.abs(), g, ev, ev.grad_fn.name(), ev.dtype, m.linalg.eig(a.float())[0].dtype]
    same(torch, f)


@pytest.mark.parametrize("expr", [
    "m.copysign(m.tensor([1, -2, 3]), m.tensor([-1, 1, -1]))",
    "m.copysign(m.tensor([1, 2]), -1.0)",
    "m.copysign(m.tensor([1.0, 2.0], dtype=m.float32), m.tensor([-1.0, 1.0], dtype=m.float64))",
    "m.float_power(m.tensor([1.0, 2.0], dtype=m.float32), 2)",
    "m.float_power(m.tensor([1, 2]), m.tensor([2, 3]))",
    "m.gcd(m.tensor([4, 6, -8, 0]), m.tensor([6, 4, 12, 0]))",
    "m.lcm(m.tensor([4, 6, -8, 0]), m.tensor([6, 4, 12, 5]))",
    "m.gcd(m.tensor([4, 6], dtype=m.int32), m.tensor([6, 9]))",
    "m.ldexp(m.tensor([1, 2]), m.tensor([3, 4]))",
    "m.angle(m.tensor([-1, 0, 2]))",
    "m.angle(m.tensor([float('nan'), -0.0, -1.5]))",
    "m.isneginf(m.tensor([float('-inf'), float('inf'), 1.0, float('nan')]))",
    "m.isposinf(m.tensor([float('-inf'), float('inf'), 1.0]))",
    "m.isposinf(m.tensor([1, 2]))",
    "m.isreal(m.tensor([1.0, 2.0]))",
    "m.isreal(m.tensor([1 + 0j, 2 + 1j]))",
    "m.frexp(m.tensor([0.0, -3.5, 1e-30, float('inf')]))",
    "m.nextafter(m.tensor([1.0], dtype=m.float32), m.tensor([2.0], dtype=m.float32))",
    "m.aminmax(m.tensor([[1, 5], [7, -2]]), dim=0)",
    "m.mode(m.tensor([[2, 2, 3, 3], [7, 1, 1, 7]]), 1)",
    "m.mode(m.tensor(5.0))",
    "m.nansum(m.tensor([1, 2, 3]))",
    "m.nansum(m.tensor([1.0, float('nan')], dtype=m.float32), dtype=m.float64)",
    "m.cov(m.tensor([[1, 2, 4], [3, 1, 0]]))",
    "m.corrcoef(m.tensor([1.0, 2.0, 4.0]))",
    "m.dist(m.tensor([1.0, 2.0]), m.tensor([0.0, 0.0], dtype=m.float64))",
    "m.renorm(m.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)",
    "m.linalg.lu_factor_ex(m.zeros(2, 2))",
    "m.linalg.lu_factor(m.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=m.float32))",
    "m.linalg.lu(m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))",
    "m.lu_unpack(*m.linalg.lu_factor(m.tensor([[1.0, 2.0], [3.0, 4.0]])), unpack_data=False)",
    "m.linalg.matrix_exp(m.zeros(2, 0, 0))",
    "m.copysign(m.ones(2, dtype=m.float16), m.tensor([-1.0, 1.0]))",
    "m.copysign(m.tensor([True, False]), m.tensor([-1, 1]))",
    "m.float_power(m.tensor([1 + 1j, 2j]), 2)",
    "m.float_power(2, m.tensor([1, 2]))",
    "m.ldexp(m.ones(2, dtype=m.float32), m.tensor([1.0, 2.0], dtype=m.float64))",
    "m.ldexp(m.ones(2, dtype=m.float16), m.tensor([1, 2]))",
    "m.nextafter(m.ones(2, dtype=m.float32), m.tensor([2.0, 0.0], dtype=m.float64))",
    "m.igamma(m.ones(2, dtype=m.float32), m.tensor([0.5, 2.0]))",
    "m.angle(m.tensor([1 + 1j, -1 + 0j, 0j]))",
    "m.aminmax(m.tensor([True, False]))",
    "m.aminmax(m.tensor([[3, 1], [2, 2]], dtype=m.uint8), dim=-1, keepdim=True)",
    "m.mode(m.tensor([[1, 1, 2], [3, 3, 3]], dtype=m.int32), 0)",
    "m.mode(m.tensor([[True, False, False]]))",
    "m.nansum(m.tensor([True, True]))",
    "m.std_mean(m.tensor([1.0, 2.0, 4.0], dtype=m.float32), correction=0)",
    "m.var_mean(m.tensor([[1.0, 2.0], [4.0, 8.0]]), [0, 1])",
    "m.cov(m.tensor([[1.0, 2.0, 3.0]], dtype=m.float32), fweights=m.tensor([1, 1, 2]))",
    "m.cov(m.tensor([1.0, 2.0]), correction=5)",
    "m.corrcoef(m.tensor([[1, 2, 3], [1, 5, 2]]))",
    "m.dist(m.ones(2, dtype=m.float32), m.zeros(2, dtype=m.float32), 0)",
    "m.renorm(m.ones(2, 3, dtype=m.float32), 3, -1, 0.5)",
    "m.cross(m.ones(3), m.ones(2, 3))",
    "m.cross(m.ones(2, 3), m.ones(2, 3), 0)",
    "m.lcm(m.tensor([4, 6], dtype=m.uint8), m.tensor([3, 4], dtype=m.uint8))",
    "m.frexp(m.tensor([1.0, 5.0], dtype=m.float16))",
    "m.linalg.lu_solve(*m.linalg.lu_factor(m.eye(3, dtype=m.float32) * 2), m.ones(3, 2, dtype=m.float32))",
    "m.linalg.eigvals(m.tensor([[0, 1], [-1, 0]], dtype=m.float32))",
    "m.linalg.matrix_exp(m.eye(2, dtype=m.float32).expand(3, 2, 2))",
    "m.triangular_solve(m.ones(2, 3, 1), m.eye(3) * 2)",
    "m.triangular_solve(m.ones(3, 1), m.eye(3).expand(2, 3, 3))",
    "m.linalg.matrix_exp(m.tensor([[0.0, 1.0], [-1.0, 0.0]]))",
])
def test_dtypes_and_values_match_torch(expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        same(torch, lambda m: eval(expr, {"m": m}))


@pytest.mark.parametrize("expr", [
    "m.frexp(m.tensor([1, 2]))",
    "m.nanmean(m.tensor([1, 2]), dtype=m.float32)",
    "m.var_mean(m.tensor([1, 2]))",
    "m.dist(m.ones(2), m.zeros(3))",
    "m.dist(m.ones(2), 1.0)",
    "m.gcd(m.tensor([4, 6]), 4)",
    "m.lcm(3, m.tensor([4, 6]))",
    "m.ldexp(m.ones(2), 2)",
    "m.ones(2).nextafter(1.0)",
    "m.igammac(m.ones(2), 1.0)",
    "m.copysign(2.0, m.ones(2))",
    "m.isneginf(m.tensor([1j]))",
    "m.gcd(m.tensor([1.0]), m.tensor([2.0]))",
    "m.lcm(m.tensor([True]), m.tensor([True]))",
    "m.nextafter(m.tensor([1, 2]), m.tensor([3, 4]))",
    "m.igamma(m.tensor([1, 2]), m.tensor([3, 4]))",
    "m.copysign(m.tensor([1j]), m.tensor([1.0]))",
    "m.float_power_(m.tensor([1.0, 2.0]), 2) if hasattr(m, 'float_power_') else m.tensor([1.0]).float_power_(2)",
    "m.tensor([1.0, 2.0]).float_power_(2)",
    "m.aminmax(m.tensor([]))",
    "m.aminmax(m.zeros(2, 0), dim=1)",
    "m.mode(m.zeros(2, 3), 2)",
    "m.nanmean(m.tensor([1, 2]))",
    "m.cov(m.zeros(2, 2, 2))",
    "m.cov(m.ones(2, 3), fweights=m.tensor([1.0, 2.0, 3.0]))",
    "m.cov(m.ones(2, 3), fweights=m.tensor([1, -2, 3]))",
    "m.cov(m.ones(2, 3), aweights=m.tensor([1, 2, 3]))",
    "m.cov(m.ones(2, 3), aweights=m.tensor([1.0, 2.0]))",
    "m.cov(m.ones(2, 3), fweights=m.tensor([0, 0, 0]))",
    "m.cov(m.tensor([True, False]))",
    "m.corrcoef(m.zeros(1, 2, 3))",
    "m.renorm(m.ones(3), 2, 0, 1.0)",
    "m.renorm(m.ones(2, 2), -1, 0, 1.0)",
    "m.renorm(m.ones(2, 2), 2, 0, -1.0)",
    "m.renorm(m.ones(2, 2), 2, 2, 1.0)",
    "m.cross(m.ones(2, 2), m.ones(2, 2), dim=1)",
    "m.dist(m.tensor([1, 2]), m.tensor([1, 2]))",
    "m.linalg.lu_factor(m.eye(2), pivot=False)",
    "m.linalg.lu_factor(m.zeros(2, 2))",
    "m.linalg.lu_factor(m.ones(3))",
    "m.linalg.lu_factor(m.ones(2, 2, dtype=m.int64))",
    "m.lu_unpack(m.ones(2, 2), m.tensor([1, 2]))",
    "m.linalg.lu_solve(*m.linalg.lu_factor(m.eye(2)), m.ones(3, 1))",
    "m.linalg.lu_solve(*m.linalg.lu_factor(m.eye(2)), m.ones(2, 1, dtype=m.float64))",
    "m.linalg.matrix_exp(m.ones(2, 3))",
    "m.linalg.eig(m.ones(2, 3))",
    "m.linalg.eigvals(m.ones(3))",
    "m.triangular_solve(m.ones(3, 1), m.ones(2, 2))",
    "m.triangular_solve(m.ones(2, 1), m.ones(2, 2, dtype=m.float64))",
    "m.solve(m.eye(2), m.eye(2))",
    "m.lstsq(m.eye(2), m.eye(2))",
    "m.symeig(m.eye(2))",
    "m.eig(m.eye(2))",
    "m.eye(2).solve(m.eye(2))",
    "m.eye(2).lstsq(m.eye(2))",
    "m.eye(2).symeig()",
    "m.eye(2).eig()",
])
def test_errors_match_torch(expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        out = same(torch, lambda m: eval(expr, {"m": m}))
    assert out[0] == "raise", out


def test_igamma_has_no_gradient_for_its_first_argument():
    for m in (torch, leafgrad):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        y = m.igamma(a, m.tensor([0.5, 1.5])).sum()
        with raises_exactly(NotImplementedError, match="the derivative for 'igamma: input' is not implemented"):
            y.backward()


def test_warnings_of_the_deprecated_forms():
    """torch warns once per process (TORCH_WARN_ONCE), so only leafgrad's warning class is checked here."""
    def warned(fn):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn()
        return sorted({w.category.__name__ for w in caught})
    for fn in (lambda m: m.cross(m.ones(2, 3), m.ones(2, 3)), lambda m: m.lu(m.eye(2)),
               lambda m: m.triangular_solve(m.ones(2, 1), m.eye(2)),
               lambda m: m.lu_solve(m.ones(2, 1), *m.linalg.lu_factor(m.eye(2)))):
        assert warned(lambda: fn(leafgrad)) == ["UserWarning"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        leafgrad.cross(leafgrad.ones(2, 3), leafgrad.ones(2, 3), dim=1)
    assert not caught


@pytest.mark.parametrize("name", ["copysign_", "ldexp_", "nextafter_", "gcd_", "lcm_", "float_power_", "igamma_",
                                  "igammac_", "renorm_"])
def test_inplace_forms_match_torch(name):
    def run(m):
        if name in ("gcd_", "lcm_"):
            x = m.tensor([4, 6, -9])
            other = m.tensor([6, 4, 12])
        else:
            dt = m.float64
            x = m.tensor(POS, dtype=dt)
            other = m.tensor(POS2, dtype=dt)
        before = x._version
        args = {"renorm_": (2, 0, 1.0), "float_power_": (other,)}.get(name, (other,))
        out = getattr(x, name)(*args)
        return [x, out is x, x._version - before]
    same(torch, run)


def test_inplace_on_a_graph_records_the_op():
    def run(m):
        leaf = m.tensor(A, dtype=m.float64, requires_grad=True)
        y = leaf * 1.0
        y.copysign_(m.tensor(B, dtype=m.float64))
        z = leaf * 1.0
        z.renorm_(2, 1, 0.5)
        (g1,) = m.autograd.grad((y * 2).sum() + (z * _cotangent(m, z)).sum(), [leaf])
        return [y, y.grad_fn.name(), z.grad_fn.name(), g1]
    same(torch, run)
    with raises_exactly(RuntimeError):
        leafgrad.tensor([1.0], requires_grad=True).copysign_(leafgrad.tensor([-1.0]))
    with raises_exactly(RuntimeError):  # (a float result cannot be written into an integer tensor)
        leafgrad.tensor([1, 2]).copysign_(leafgrad.tensor([-1.0, 1.0]))


def test_every_top_level_name_is_served_and_is_torchs():
    from leafgrad._ops.extra_bindings import TOP_LEVEL
    from leafgrad._ops._lazy_names import TOP_LEVEL as LAZY
    assert {n for n, f in LAZY.items() if f == "extra_bindings"} == set(TOP_LEVEL)  # (served on first use: lazy.py)
    for name in TOP_LEVEL:
        assert hasattr(torch, name), name
        assert getattr(leafgrad, name) is TOP_LEVEL[name]
    for name in ("eig", "eigvals", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matrix_exp"):
        assert hasattr(torch.linalg, name) and callable(getattr(leafgrad.linalg, name))
    assert leafgrad.special.gammainc is leafgrad.igamma and leafgrad.special.gammaincc is leafgrad.igammac


def test_lu_with_infos_type_is_torchs():
    import pickle
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r = leafgrad.lu(leafgrad.eye(2), get_infos=True)
        t = torch.lu(torch.eye(2), get_infos=True)
    assert type(r).__name__ == type(t).__name__ == "_lu_with_info"
    assert r.n_fields == t.n_fields == 3
    assert [r.LU is r[0], r.pivots is r[1], r.info is r[2]] == [True, True, True]
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is type(r) and back.info.item() == 0
    assert "_lu_with_info" not in {c.__name__ for c in leafgrad.return_types.all_return_types}


_SAVED = {
    "copysign": lambda m, a, b: m.copysign(a, b), "copysign_scalar": lambda m, a, b: m.copysign(a, 2.0),
    "ldexp": lambda m, a, b: m.ldexp(a, b), "nextafter": lambda m, a, b: m.nextafter(a, b),
    "igamma": lambda m, a, b: m.igamma(a.abs(), b.abs()), "angle": lambda m, a, b: m.angle(a),
    "aminmax": lambda m, a, b: m.aminmax(a, dim=1)[0], "mode": lambda m, a, b: m.mode(a)[0],
    "mode0": lambda m, a, b: m.mode(a, 0)[0], "frexp": lambda m, a, b: m.frexp(a)[0],
    "std_mean": lambda m, a, b: m.std_mean(a, 1)[0], "nansum": lambda m, a, b: m.nansum(a, 1),
    "dist": lambda m, a, b: m.dist(a, b, 3), "renorm": lambda m, a, b: m.renorm(a, 2, 0, 1.0),
    "cross": lambda m, a, b: m.cross(a, b, dim=1), "lu_factor": lambda m, a, b: m.linalg.lu_factor(a)[0],
    "lu": lambda m, a, b: m.linalg.lu(a)[1], "lu_unpack": lambda m, a, b: m.lu_unpack(*m.linalg.lu_factor(a))[1],
    "lu_solve": lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b),
    "matrix_exp": lambda m, a, b: m.linalg.matrix_exp(a), "eig": lambda m, a, b: m.linalg.eig(a)[0],
    "triangular_solve": lambda m, a, b: m.triangular_solve(b, a)[0],
}


@pytest.mark.parametrize("name", sorted(_SAVED))
def test_saved_values_are_torchs(name):
    def run(m):
        a = m.tensor(A, dtype=m.float64, requires_grad=True)
        b = m.tensor(B, dtype=m.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            node = _SAVED[name](m, a, b).grad_fn
        return {k: getattr(node, k) for k in dir(node) if k.startswith("_saved_") and k != "_saved_names"}
    same(torch, run)
