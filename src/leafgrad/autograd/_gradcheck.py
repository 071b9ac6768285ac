"""gradcheck / gradgradcheck: compare autograd's gradients with central finite differences (float64)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _outputs(fn, inputs):
    return tuple(o for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor))


def _numerical_jacobian(fn, inputs, eps: float):
    """J[out][inp] with shape (out.numel, inp.numel), by perturbing one input element at a time.

    Grad mode stays on: the function may itself call autograd (gradgradcheck does).
    """
    base = _outputs(fn, inputs)
    jac = [[np.zeros((o.numel(), t.numel())) for t in inputs] for o in base]
    for j, t in enumerate(inputs):
        if not (isinstance(t, Tensor) and t.requires_grad):
            continue
        flat = t._data.reshape(-1)  # a view: writes go into the input
        for k in range(flat.size):
            orig = flat[k].copy()
            flat[k] = orig + eps
            plus = [o._data.astype(np.float64).reshape(-1) for o in _outputs(fn, inputs)]
            flat[k] = orig - eps
            minus = [o._data.astype(np.float64).reshape(-1) for o in _outputs(fn, inputs)]
            flat[k] = orig
            for i in range(len(base)):
                jac[i][j][:, k] = (plus[i] - minus[i]) / (2 * eps)
    return jac


def _analytical_jacobian(fn, inputs):
    from . import grad
    outs = _outputs(fn, inputs)
    diff = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    jac = [[np.zeros((o.numel(), t.numel())) for t in inputs] for o in outs]
    for i, o in enumerate(outs):
        if not o.requires_grad:
            continue
        for r in range(o.numel()):
            v = np.zeros(o._data.size, dtype=o._data.dtype)
            v[r] = 1
            gs = grad(o, diff, Tensor._make(v.reshape(o._data.shape)), retain_graph=True, allow_unused=True)
            k = 0
            for j, t in enumerate(inputs):
                if isinstance(t, Tensor) and t.requires_grad:
                    if gs[k] is not None:
                        jac[i][j][r, :] = gs[k]._data.astype(np.float64).reshape(-1)
                    k += 1
    return jac


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False, fast_mode: bool = False,
              masked=None, **kwargs) -> bool:
    """True when autograd's Jacobian matches finite differences for every differentiable input."""
    inputs = _as_tuple(inputs)
    for t in inputs:
        if isinstance(t, Tensor) and t.requires_grad and t.dtype.name not in ("float64", "complex128"):
            import warnings
            warnings.warn(f"Input #{inputs.index(t)} requires gradient and is not a double precision floating point. "
                          "This check will likely fail if all the inputs are not of double precision floating point.",
                          UserWarning, stacklevel=2)
    numerical = _numerical_jacobian(func, inputs, eps)
    analytical = _analytical_jacobian(func, inputs)
    for i, (num_row, ana_row) in enumerate(zip(numerical, analytical)):
        for j, (n, a) in enumerate(zip(num_row, ana_row)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                msg = (f"Jacobian mismatch for output {i} with respect to input {j},\n"
                       f"numerical:{n}\nanalytical:{a}\n")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True, **kwargs) -> bool:
    """gradcheck of the first derivative: checks that backward formulas are themselves differentiable."""
    from . import grad
    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    rng = np.random.default_rng(0)
    if grad_outputs is None:
        grad_outputs = tuple(Tensor._make(rng.standard_normal(o._data.shape).astype(o._data.dtype))
                             .requires_grad_(True) for o in outs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_idx = [k for k, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]

    def first_grad(*args):
        ins, gos = args[:n_in], args[n_in:]
        o = _outputs(func, ins)
        gs = grad(o, [ins[k] for k in diff_idx], gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_grad, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
