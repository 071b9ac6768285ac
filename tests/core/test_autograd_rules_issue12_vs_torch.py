"""Autograd rules and NumPy interop at the edges, each compared with torch: requires_grad on a
non-leaf, inference tensors, anomaly mode's switches and NaN check, no_grad views' flags,
np.asarray/np ufuncs on tensors, from_numpy of a read-only array, the per-process default seed."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from differential import opening, raises_exactly, same

import leafgrad


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - compared
        return type(e), str(e)
    return None, None


def _same_error(torch, fn):
    t, lg = _error(lambda: fn(torch)), _error(lambda: fn(leafgrad))
    assert t[0] is not None and lg[0] is t[0], (t, lg)
    assert lg[1].startswith(opening(t[1])), (t[1], lg[1])


def test_requires_grad_attribute_on_a_non_leaf(torch):
    def set_true(m):
        y = m.ones(2, requires_grad=True) * 2
        y.requires_grad = True
    _same_error(torch, set_true)

    def method_true_is_a_no_op(m):
        y = m.ones(2, requires_grad=True) * 2
        return y.requires_grad_(True).requires_grad
    same(torch, method_true_is_a_no_op)


def test_inference_tensors(torch):
    def flags(m):
        x = m.ones(2, requires_grad=True)
        with m.inference_mode():
            t = m.ones(2)
            u = x * 2
        return [x.is_inference(), t.is_inference(), u.is_inference(), u.requires_grad, u.grad_fn is None,
                t.exp().is_inference(), t.view(2, 1).is_inference()]
    same(torch, flags)

    def saved_for_backward(m):
        x = m.ones(2, requires_grad=True)
        with m.inference_mode():
            t = m.ones(2)
        (x * t).sum().backward()
    _same_error(torch, saved_for_backward)

    def not_saved_is_fine(m):
        x = m.ones(2, requires_grad=True)
        with m.inference_mode():
            t = m.ones(2)
        (x + t).sum().backward()
        return x.grad
    same(torch, not_saved_is_fine)

    def requires_grad_outside(m):
        with m.inference_mode():
            t = m.ones(2)
        t.requires_grad_()
    _same_error(torch, requires_grad_outside)

    def inplace_outside(m):
        with m.inference_mode():
            t = m.ones(2)
        t.add_(1)
    _same_error(torch, inplace_outside)


def test_anomaly_switches(torch):
    for m in (torch, leafgrad):
        assert (m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()) == (False, True)
        with m.autograd.detect_anomaly():
            assert (m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()) == (True, True)
        with m.autograd.detect_anomaly(check_nan=False):
            assert (m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()) == (True, False)
        assert m.is_anomaly_enabled() is False


@pytest.mark.parametrize("case", ["mul", "sqrt", "div"])
def test_anomaly_nan_check_messages(torch, case):
    def run(m):
        a = m.tensor([0.0, 1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with m.autograd.detect_anomaly():
                if case == "mul":
                    out = a * m.tensor([float("nan"), 1.0])
                elif case == "sqrt":
                    out = a.sqrt() * 0
                else:
                    out = m.tensor([1.0, 1.0]) / a * 0
                out.sum().backward()
    _same_error(torch, run)

    def off(m):  # check_nan=False: the nan goes through silently
        a = m.tensor([0.0, 1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with m.autograd.detect_anomaly(check_nan=False):
                (a.sqrt() * 0).sum().backward()
        return a.grad.isnan().tolist()
    same(torch, off)


def test_view_made_under_no_grad_reports_torchs_flags(torch):
    def f(m):
        x = m.ones(3, requires_grad=True)
        with m.no_grad():
            v = x[0:2]
            w = x.view(3)
            c = x * 2  # not a view: no flags inherited
        return [v.requires_grad, v.is_leaf, v.grad_fn is None, v._base is x, w.requires_grad, w.is_leaf,
                c.requires_grad]
    same(torch, f)


def test_numpy_asarray_of_a_tensor_requiring_grad(torch):
    for fn in (np.asarray, np.array, np.exp, lambda t: np.add(t, 1)):
        _same_error(torch, lambda m: fn(m.ones(2, requires_grad=True)))
    for m in (torch, leafgrad):  # detached, it works
        assert isinstance(np.asarray(m.ones(2, requires_grad=True).detach()), np.ndarray)


@pytest.mark.parametrize("ufunc", ["exp", "sin", "negative", "sqrt"])
def test_numpy_ufunc_of_a_tensor_returns_a_tensor(torch, ufunc):
    def f(m):
        out = getattr(np, ufunc)(m.tensor([1.0, 4.0]))
        return [type(out).__name__, out, out.dtype]
    same(torch, f)

    def ints(m):
        out = np.exp(m.tensor([1, 2]))
        return [type(out).__name__, out.dtype]
    same(torch, ints)

    def binary(m):
        out = np.add(m.tensor([1.0, 2.0]), 1)
        return [type(out).__name__, out, out.dtype]
    same(torch, binary)


def test_from_numpy_of_a_read_only_array_warns_as_torch(torch):
    from leafgrad import _creation
    _creation._WARNED_READ_ONLY.clear()
    got = {}
    for m in (torch, leafgrad):
        a = np.arange(3.0)
        a.flags.writeable = False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = m.from_numpy(a)
        got[m.__name__] = [(w.category, str(w.message).split(". ")[0]) for w in caught]
        assert t.tolist() == [0.0, 1.0, 2.0]
    assert got["leafgrad"] == got["torch"] and got["torch"]


def test_default_seed_is_drawn_per_process(torch):
    code = "import {0}; print({0}.initial_seed())"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(leafgrad.__file__)),
                                         env.get("PYTHONPATH", "")])
    seeds = {subprocess.run([sys.executable, "-c", code.format("leafgrad")], capture_output=True, text=True,
                            env=env, timeout=120).stdout.strip() for _ in range(3)}
    assert len(seeds) == 3 and all(s.isdigit() for s in seeds), seeds
    # a new Generator keeps torch's fixed default seed; manual_seed makes runs repeat
    assert leafgrad.Generator().initial_seed() == torch.Generator().initial_seed()
    leafgrad.manual_seed(7)
    a = leafgrad.rand(3)
    leafgrad.manual_seed(7)
    assert leafgrad.equal(a, leafgrad.rand(3))


def test_set_requires_grad_true_on_non_leaf_is_explained():
    y = leafgrad.ones(2, requires_grad=True) * 2
    with raises_exactly(RuntimeError) as info:
        y.requires_grad = True
    assert leafgrad.explain(info.value).code == "LG107"
