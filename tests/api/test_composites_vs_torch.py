"""torch's top-level composites (_ops/composites.py) and window functions (_ops/windows.py) against torch
2.13: values, dtypes, the node recorded (and the one under it), gradients, and refusals."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import raises_exactly, same

import leafgrad

torch = pytest.importorskip("torch")


def _graph(r):
    """A result as a user sees it: the tensor, its grad_fn and the nodes right under it."""
    fn = r.grad_fn
    return [r, fn, [f for f, _ in fn.next_functions] if fn is not None else None]


def _grads(m, make, *shapes, dtype=None):
    """``make(m, *leaves)`` on random leaves of ``shapes`` (seeded), backward of the sum of its real
    part, then its graph and the leaves' gradients."""
    rng = np.random.default_rng(0)
    leaves = [m.tensor(rng.standard_normal(s), dtype=dtype or m.float32, requires_grad=True) for s in shapes]
    r = make(m, *leaves)
    (r.real if r.is_complex() else r).sum().backward()
    return _graph(r) + [x.grad for x in leaves]


@pytest.mark.parametrize("fn", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4), (1, 2, 3, 4)])
def test_atleast(fn, shape):
    same(torch, lambda m: _grads(m, lambda m, x: getattr(m, fn)(x) * 1, shape))
    same(torch, lambda m: _graph(getattr(m, fn)(m.ones(shape, requires_grad=True))))
    # several tensors, or one sequence of them: a tuple; no tensors: ()
    same(torch, lambda m: [r.shape for r in getattr(m, fn)(m.ones(shape), m.ones(()))])
    same(torch, lambda m: [r.shape for r in getattr(m, fn)([m.ones(shape), m.ones(2)])])
    same(torch, lambda m: getattr(m, fn)())
    x = leafgrad.ones(shape)
    assert (getattr(leafgrad, fn)(x) is x) == (getattr(torch, fn)(torch.ones(shape)).dim() == len(shape))


def test_block_diag():
    same(torch, lambda m: _grads(m, lambda m, a, b, c: m.block_diag(a, b, c), (2, 2), (3,), ()))
    same(torch, lambda m: _grads(m, lambda m, a, b: m.block_diag(a, b) * 2, (2, 3), (1, 0)))
    same(torch, lambda m: m.block_diag(m.tensor(1), m.tensor([1.0, 2.0]), m.ones(2, 1, dtype=m.float64)))
    same(torch, lambda m: m.block_diag(m.ones(2, dtype=m.int32), m.ones(1, dtype=m.int8)))
    same(torch, lambda m: m.block_diag())
    same(torch, lambda m: m.block_diag(m.ones(1), m.ones(2, 2, 2)))
    same(torch, lambda m: m.block_diag(m.ones(1), 3))
    # the gradient reaches each input in its own dtype
    same(torch, lambda m: _grads(m, lambda m, a, b: m.block_diag(a, b.double()), (2,), (2,)))


def test_column_row_dstack():
    for fn in ("column_stack", "row_stack", "dstack"):
        same(torch, lambda m: _grads(m, lambda m, a, b, c: getattr(m, fn)([a, b, c]), (3,), (3,), (3,)))
        same(torch, lambda m: _grads(m, lambda m, a, b: getattr(m, fn)((a, b)), (3, 2), (3, 2)))
        same(torch, lambda m: getattr(m, fn)([m.tensor(1.0), m.tensor(2)]))
        same(torch, lambda m: getattr(m, fn)([]))
    same(torch, lambda m: m.column_stack([m.ones(3), m.ones(3, 2)]))
    same(torch, lambda m: m.dstack([m.ones(2, 3), m.ones(2, 3, 2)]))


@pytest.mark.parametrize("fn", ["trapezoid", "trapz", "cumulative_trapezoid"])
def test_integration(fn):
    f = lambda m: getattr(m, fn)  # noqa: E731
    same(torch, lambda m: _grads(m, lambda m, y: f(m)(y), (5,)))
    same(torch, lambda m: _grads(m, lambda m, y: f(m)(y, dx=0.5), (2, 5)))
    same(torch, lambda m: _grads(m, lambda m, y: f(m)(y, dim=0, dx=3), (4, 3)))
    same(torch, lambda m: _grads(m, lambda m, y, x: f(m)(y, x), (5,), (5,)))
    same(torch, lambda m: _grads(m, lambda m, y, x: f(m)(y, x, dim=0), (4, 3), (4,)))
    same(torch, lambda m: _grads(m, lambda m, y, x: f(m)(y, x), (2, 4), (4,)))
    same(torch, lambda m: _grads(m, lambda m, y, x: f(m)(y, x), (3, 2, 4), (2, 4)))
    same(torch, lambda m: _grads(m, lambda m, y: f(m)(y), (3,), dtype=m.float64))
    same(torch, lambda m: f(m)(m.tensor([1, 2, 4])))
    same(torch, lambda m: f(m)(m.tensor([1, 2, 4]), m.tensor([0, 1, 3])))
    same(torch, lambda m: f(m)(m.tensor([1.0, 2.0, 4.0]), m.tensor([0, 1, 3])))
    if fn != "cumulative_trapezoid":  # (leafgrad's narrow refuses the empty case: not yet torch's [[], []])
        same(torch, lambda m: f(m)(m.ones(2, 0)))
    same(torch, lambda m: f(m)(m.ones(3), m.ones(4)))
    same(torch, lambda m: f(m)(m.tensor([True, False])))
    if fn == "trapezoid":
        same(torch, lambda m: f(m)(m.ones(3), dx=True))
        same(torch, lambda m: f(m)(m.ones(3), dx=1j))


@pytest.mark.parametrize("increasing", [False, True])
def test_vander(increasing):
    same(torch, lambda m: _grads(m, lambda m, x: m.vander(x, increasing=increasing), (4,)))
    same(torch, lambda m: _grads(m, lambda m, x: m.vander(x, N=2, increasing=increasing), (3,)))
    for dt in ("int32", "int64", "bool", "float64", "uint8"):
        same(torch, lambda m: m.vander(m.tensor([1, 0, 3]).to(getattr(m, dt)), increasing=increasing))
    same(torch, lambda m: m.vander(m.tensor([1.0, 2.0]), N=0, increasing=increasing))
    same(torch, lambda m: _graph(m.vander(m.ones(2, requires_grad=True), N=1, increasing=increasing)))
    same(torch, lambda m: m.vander(m.ones(2, 2)))
    same(torch, lambda m: m.vander(m.ones(2), N=-1))


def test_unravel_index():
    same(torch, lambda m: m.unravel_index(m.tensor([4, 5, 0, 7, -1]), (2, 3)))
    same(torch, lambda m: m.unravel_index(m.tensor(5), (2, 3)))
    same(torch, lambda m: m.unravel_index(m.tensor([[1, 2], [3, 4]], dtype=m.int32), [5]))
    same(torch, lambda m: m.unravel_index(m.tensor([1, 2]), 3))
    same(torch, lambda m: m.unravel_index(m.tensor([1, 2]), ()))
    same(torch, lambda m: m.unravel_index(m.tensor([1.0]), (2, 3)))
    same(torch, lambda m: m.unravel_index(m.tensor([True]), (2, 3)))
    same(torch, lambda m: m.unravel_index(m.tensor([1]), (2, -3)))
    same(torch, lambda m: m.unravel_index(m.tensor([1]), (2, 3.0)))
    same(torch, lambda m: m.unravel_index(m.tensor([1]), "ab"))


def test_complex_and_polar():
    for fn in ("complex", "polar"):
        same(torch, lambda m: _grads(m, lambda m, a, b: getattr(m, fn)(a, b), (3,), (3,)))
        same(torch, lambda m: _grads(m, lambda m, a, b: getattr(m, fn)(a, b).abs(), (2, 3), (3,)))
        same(torch, lambda m: _grads(m, lambda m, a, b: getattr(m, fn)(a, b).imag, (3,), (3,), dtype=m.float64))
        same(torch, lambda m: getattr(m, fn)(m.ones(2), m.ones(2, dtype=m.float64)))
        same(torch, lambda m: getattr(m, fn)(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)))
        same(torch, lambda m: getattr(m, fn)(m.ones(2), m.ones(3)))
    # polar's gradient for abs is real(conj(g) sgn(result)): zero at abs 0, negated for a negative abs
    same(torch, lambda m: _grads(m, lambda m, a, b: m.polar(a * m.tensor([0.0, -1.0, 1.0]), b), (3,), (3,)))
    same(torch, lambda m: m.complex(m.tensor([0.0, float("inf")]), m.tensor([float("inf"), 0.0])))
    same(torch, lambda m: m.polar(m.ones(1, dtype=m.float16), m.ones(1, dtype=m.float16)))


def test_complex_second_derivative():
    def second(m):
        a = m.tensor([0.5, 2.0], requires_grad=True)
        b = m.tensor([1.0, -1.0], requires_grad=True)
        z = m.polar(a, b) * m.complex(b, a)
        ga, gb = m.autograd.grad((z.real * z.imag).sum(), (a, b), create_graph=True)
        return m.autograd.grad((ga * gb).sum(), (a, b))
    same(torch, second)


def test_aliases_and_range():
    same(torch, lambda m: _grads(m, lambda m, a, b: m.multiply(a, b), (3,), (3,)))
    same(torch, lambda m: _grads(m, lambda m, a, b: m.subtract(a, b, alpha=2), (3,), (3,)))
    from leafgrad._ops.composites import range as lg_range  # (not served yet: see composites.TOP_LEVEL)
    for args, kw in [((0, 3), {}), ((1, 4, 0.5), {}), ((0, 1, 0.3), {}), ((4,), {}), ((1, 4), {"dtype": "int64"}),
                     ((5, 1, -2), {}), ((0, 3), {"dtype": "float64"}), ((0, 3), {"requires_grad": True}),
                     ((4, 1), {}), ((0, 1, 0), {}), ((0, float("inf")), {})]:
        def run(m, args=args, kw=kw):
            kw = {k: getattr(m, v) if k == "dtype" else v for k, v in kw.items()}
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                r = (m.range if m is torch else lg_range)(*args, **kw)
            return [r, r.requires_grad, [(w.category.__name__, str(w.message)) for w in caught]]
        same(torch, run)


def test_chain_matmul():
    def run(m, shapes):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _grads(m, lambda m, *ms: m.chain_matmul(*ms), *shapes, dtype=m.float64)
    for shapes in ([(2, 3)], [(2, 3), (3, 4)], [(2, 3), (3, 4), (4, 1)], [(5, 1), (1, 4), (4, 3)],
                   [(2, 3), (3, 9), (9, 1), (1, 5), (5, 2)]):
        same(torch, lambda m: run(m, shapes))
    for bad in ([], [(2, 3, 1)], [(2, 3), (3,)]):
        same(torch, lambda m: m.chain_matmul(*[m.ones(s) for s in bad]))


def test_once_warnings_and_warn_always():
    # chain_matmul's deprecation warning come once per process, every time under set_warn_always
    code = ("import warnings, sys\nimport {m} as t\nwarnings.simplefilter('always')\n"
            "a = t.eye(2) * 2\nn = []\nfor always in (False, False, True, True):\n    t.set_warn_always(always)\n"
            "    with warnings.catch_warnings(record=True) as w:\n        warnings.simplefilter('always')\n"
            "        t.chain_matmul(a, a)\n"
            "    n.append([str(x.message).split(' is ')[0] for x in w])\n"
            "print(n, t.is_warn_always_enabled())\n")
    import subprocess
    import sys
    from pathlib import Path
    src = str(Path(__file__).resolve().parents[2] / "src")
    outs = [subprocess.run([sys.executable, "-c", code.format(m=m)], capture_output=True, text=True,
                           env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"}, check=True).stdout for m in ("torch", "leafgrad")]
    assert outs[0] == outs[1], outs


def test_matrix_rank():
    same(torch, lambda m: m.matrix_rank(m.eye(2)))


def test_queries_and_fill():
    for x in ("ones(1)", "tensor([0.0])", "tensor([])", "ones(2)", "tensor(3)", "tensor([True])"):
        same(torch, lambda m: m.is_nonzero(eval(f"m.{x}")))
    same(torch, lambda m: [m.is_same_size(m.ones(2), m.ones(2)), m.is_same_size(m.ones(2), m.ones(2, 1))])
    for dt in ("uint8", "int8", "float32", "bool", "int64", "complex64"):
        same(torch, lambda m: m.is_signed(m.ones(1, dtype=getattr(m, dt))))
    for dt in ("float32", "float64", "int64", "bool", "complex64", "uint8", "float16", "bfloat16"):
        same(torch, lambda m: m.typename(m.ones(1, dtype=getattr(m, dt))))
    same(torch, lambda m: [m.typename(3), m.typename(int), m.typename("x"), m.typename(None), m.typename(len)])
    same(torch, lambda m: _grads(m, lambda m, x: m.fill(x, 2.5) + x, (3,)))
    same(torch, lambda m: m.fill(m.tensor([1, 2]), 7))
    same(torch, lambda m: m.fill(m.ones(2), m.tensor(4.0)))
    same(torch, lambda m: m.fill(m.ones(2), m.ones(2)))
    same(torch, lambda m: _grads(m, lambda m, x: m.zero_(x * 1) + x, (3,)))
    same(torch, lambda m: _grads(m, lambda m, x: m.detach(x) * x, (3,)))
    for fn in ("is_nonzero", "is_signed", "zero_", "detach"):
        same(torch, lambda m: getattr(m, fn)(3))


@pytest.mark.parametrize("name,args", [("abs_", ()), ("exp_", ()), ("sigmoid_", ()), ("tanh_", ()), ("neg_", ()),
                                       ("sqrt_", ()), ("log_", ()), ("reciprocal_", ()), ("sinc_", ()),
                                       ("clamp_", (-0.5, 0.5)), ("clamp_min_", (0.1,)), ("clip_", (None, 0.2)),
                                       ("clamp_max_", (0.3,)), ("nan_to_num_", (0.0, 1.0)), ("logit_", (0.1,)),
                                       ("xlogy_", (2.0,)), ("fill_", (1.5,)), ("rsqrt_", ()), ("frac_", ()),
                                       ("deg2rad_", ()), ("erfc_", ()), ("exp2_", ())])
def test_inplace_forms(name, args):
    def run(m):
        leaf = m.tensor([0.25, 0.5, 2.0], requires_grad=True)
        x = leaf * 1
        r = getattr(m, name)(x, *args)
        assert r is x
        r.sum().backward()
        return [r, r.grad_fn, x._version, leaf.grad]
    same(torch, run)
    same(torch, lambda m: getattr(m, name)(m.ones(2, requires_grad=True), *args))
    if not args:  # (torch's refusal with arguments lists its overloads: leafgrad names the input instead)
        same(torch, lambda m: getattr(m, name)(3, *args))


def test_clamp_inplace_keywords():
    same(torch, lambda m: m.clamp_(m.tensor([-2.0, 0.0, 2.0]), min=-1, max=1))
    same(torch, lambda m: m.detach_(m.ones(2, requires_grad=True) * 2).requires_grad)


def test_process_settings():
    import subprocess
    import sys
    from pathlib import Path
    src = str(Path(__file__).resolve().parents[2] / "src")
    code = ("import {m} as t\nr = [t.get_num_interop_threads(), t.is_warn_always_enabled()]\n"
            "for n in (0, 3, 2):\n    try:\n        t.set_num_interop_threads(n)\n        r.append(t.get_num_interop_threads())\n"
            "    except Exception as e:\n        r.append(type(e).__name__ + ': ' + str(e)[:40])\n"
            "t.set_warn_always(True); r.append(t.is_warn_always_enabled()); t.set_warn_always(False)\n"
            "r.append(t.is_warn_always_enabled())\nprint(r)\n")
    outs = [subprocess.run([sys.executable, "-c", code.format(m=m)], capture_output=True, text=True,
                           env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"}, check=True).stdout for m in ("torch", "leafgrad")]
    assert outs[0] == outs[1], outs


# ----------------------------------------------------------------------------- windows
WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@pytest.mark.parametrize("fn", WINDOWS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 8, 33, 400])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(fn, n, periodic):
    for dt in ("float32", "float64"):
        a = getattr(torch, fn)(n, periodic, dtype=getattr(torch, dt)).numpy()
        b = getattr(leafgrad, fn)(n, periodic, dtype=getattr(leafgrad, dt)).numpy()
        assert a.dtype == b.dtype and a.shape == b.shape
        # torch's single-precision cosine and its Cephes I0 differ from NumPy's in the last bits
        if fn == "kaiser_window":  # (torch's Cephes I0 series loses a few digits at large N)
            np.testing.assert_allclose(b, a, rtol=2e-5 if dt == "float32" else 1e-14, atol=0 if dt == "float64" else 1e-6)
        else:
            np.testing.assert_allclose(b, a, rtol=0, atol=2 * np.finfo(a.dtype).eps)
    same(torch, lambda m: getattr(m, fn)(n, periodic))


def test_window_options_and_refusals():
    same(torch, lambda m: m.hann_window(5))
    same(torch, lambda m: m.hamming_window(6, False, 0.5, 0.25))
    same(torch, lambda m: m.kaiser_window(6, True, 5.0))
    same(torch, lambda m: m.kaiser_window(7, False, beta=3.0))
    for fn in WINDOWS:
        same(torch, lambda m: [m.get_default_dtype(), getattr(m, fn)(4, requires_grad=True).requires_grad,
                               getattr(m, fn)(4, requires_grad=True).is_leaf])
        same(torch, lambda m: getattr(m, fn)(3, dtype=m.int64))
        same(torch, lambda m: getattr(m, fn)(-1))
    with raises_exactly(TypeError):
        leafgrad.kaiser_window(5, beta=3.0)
    with raises_exactly(TypeError):
        torch.kaiser_window(5, beta=3.0)
