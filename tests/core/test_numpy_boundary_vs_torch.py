"""NumPy at the boundary: no NumPy RuntimeWarning reaches the user (forward or backward), as torch
prints none; values are torch's inf/nan."""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import leafgrad

CASES = {
    "log0": lambda m, x: m.log(x * 0),
    "zero_div_zero": lambda m, x: (x * 0) / (x * 0),
    "sqrt_neg": lambda m, x: m.sqrt(-x),
    "exp_big": lambda m, x: m.exp(x * 1000.0),
    "pow_big": lambda m, x: (x * 1e30) ** 3,
    "mul_overflow": lambda m, x: x * 1e30 * 1e30,
    "inf_minus_inf": lambda m, x: (x * 1e30 * 1e30) - (x * 1e30 * 1e30),
    "reciprocal0": lambda m, x: (x * 0).reciprocal(),
    "log_softmax_inf": lambda m, x: m.log_softmax(x * 1e38 * 10, 0),
    "matmul_overflow": lambda m, x: (x * 1e30).reshape(1, -1) @ (x * 1e30).reshape(-1, 1),
    "tan_inf": lambda m, x: m.tan(x * 1e30 * 1e30),
    "sum_overflow": lambda m, x: (x * 1e38).sum() * 10,
    "mean_inf": lambda m, x: (x * 1e38 * 10).mean() - (x * 1e38 * 10).mean(),
    "var_inf": lambda m, x: (x * 1e38 * 10).var(),
}


def _run(m, case):
    x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = CASES[case](m, x)
    y.sum().backward()
    return y.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("case", sorted(CASES))
def test_inf_and_nan_as_torch(torch, case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, grad = _run(leafgrad, case)
        t_out, t_grad = _run(torch, case)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(t_out))
    np.testing.assert_array_equal(np.isinf(out), np.isinf(t_out))
    np.testing.assert_array_equal(np.isnan(grad), np.isnan(t_grad))


def test_no_numpy_runtime_warning_in_a_fresh_interpreter():
    """Every case, forward and backward, in a fresh interpreter with Python's default warning filters
    (pytest's own filters would hide or show warnings differently): nothing is printed."""
    code = ("import sys, warnings\n"
            f"sys.path.insert(0, {HERE!r})\n"
            "from test_numpy_boundary_vs_torch import CASES, _run\n"
            "import leafgrad\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    for case in sorted(CASES):\n"
            "        _run(leafgrad, case)\n"
            "print([str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)])\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=_env())
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == "[]" and res.stderr == "", (res.stdout, res.stderr[-2000:])


def _env():
    import os
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(leafgrad.__file__)),
                                         env.get("PYTHONPATH", "")])
    env.pop("PYTHONWARNINGS", None)
    return env


HERE = __import__("os").path.dirname(__import__("os").path.abspath(__file__))


@pytest.mark.parametrize("case", sorted(CASES))
def test_backward_is_silent_even_when_warnings_are_errors(case):
    """Inside backward nothing warns even with warnings turned into errors (as torch, which has none)."""
    x = leafgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the forward is not what this test checks)
        y = CASES[case](leafgrad, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y.sum().backward()


def test_a_script_prints_no_numpy_warning():
    """A fresh interpreter, default warning filters: stderr stays empty."""
    code = ("import leafgrad as torch\n"
            "x = torch.tensor([0.0, -1.0, 1000.0], requires_grad=True)\n"
            "y = torch.log(x) + x.sqrt() + x.exp() + x / 0\n"
            "y.sum().backward()\n"
            "print(y.isnan().sum().item())\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=_env())
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert res.stdout.strip() == "2"


def test_users_own_numpy_warnings_are_untouched():
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        np.log(np.zeros(1))
