"""The fused BLAS forms torch has beside addmm: addbmm, baddbmm, addmv and addr, and their in-place forms.

Each computes ``beta * input + alpha * (product)`` as one op with torch's node (AddbmmBackward0, ...)
and saved values. As in torch, ``beta=0`` leaves ``input`` out entirely (a nan or inf in it does not
reach the result), and an integer result refuses a floating-point ``beta``/``alpha``. The gradients are
derivatives.yaml's: the input's is ``beta * grad`` (summed to its broadcast shape by the engine), the
factors' are the products of the gradient with the other factor, times ``alpha``.
"""
from __future__ import annotations

from .. import _dtype as D
from .._tensor import Tensor
from .linalg import BMM, MV
from .lazy import bind
from .registry import apply, defop

__all__ = ["addbmm", "addbmm_", "addmv", "addmv_", "addr", "addr_", "baddbmm", "baddbmm_"]


def _combine(xp, bias, prod, beta, alpha):
    """``beta * bias + alpha * prod``, with ``bias`` left out when beta is 0 (torch ignores its nan/inf)."""
    out = prod if alpha == 1 else prod * alpha
    if beta == 0:
        return xp.broadcast_to(out, xp.broadcast_shapes(bias.shape, out.shape)).copy() if bias.shape != out.shape \
            else out
    return out + (bias if beta == 1 else bias * beta)


def _times(g, k):
    return g if k == 1 else g * k


def _bmm_grads(xp, g, b1, b2, alpha):
    """batch1's and batch2's gradients for a batched product whose gradient is ``g`` (batched)."""
    return (_times(xp.apply(BMM, g, xp.swapaxes(b2, 1, 2)), alpha),
            _times(xp.apply(BMM, xp.swapaxes(b1, 1, 2), g), alpha))


def _spread(xp, g, batches: int):
    """addbmm's gradient of the summed product, repeated for every batch: (b, n, p)."""
    return xp.broadcast_to(xp.expand_dims(g, 0), (batches,) + tuple(g.shape))


ADDBMM = defop("AddbmmBackward0",
               lambda xp, bias, b1, b2, beta, alpha: _combine(xp, bias, xp.sum(xp.matmul(b1, b2), axis=0), beta, alpha),
               (lambda xp, g, batch1, batch2, beta, alpha: _times(g, beta),
                lambda xp, g, batch1, batch2, beta, alpha: _times(xp.apply(
                    BMM, _spread(xp, g, batch2.shape[0]), xp.swapaxes(batch2, 1, 2)), alpha),
                lambda xp, g, batch1, batch2, beta, alpha: _times(xp.apply(
                    BMM, xp.swapaxes(batch1, 1, 2), _spread(xp, g, batch1.shape[0])), alpha)),
               saved=("input1", "input2", "beta", "alpha"), n_in=3)
ADDBMM.node_cls._saved_names = ("batch1", "batch2", "beta", "alpha")
BADDBMM = defop("BaddbmmBackward0",
                lambda xp, bias, b1, b2, beta, alpha: _combine(xp, bias, xp.matmul(b1, b2), beta, alpha),
                (lambda xp, g, batch1, batch2, beta, alpha: _times(g, beta),
                 lambda xp, g, batch1, batch2, beta, alpha: _bmm_grads(xp, g, batch1, batch2, alpha)[0],
                 lambda xp, g, batch1, batch2, beta, alpha: _bmm_grads(xp, g, batch1, batch2, alpha)[1]),
                saved=("input1", "input2", "beta", "alpha"), n_in=3)
BADDBMM.node_cls._saved_names = ("batch1", "batch2", "beta", "alpha")
ADDMV = defop("AddmvBackward0",
              lambda xp, bias, m, v, beta, alpha: _combine(xp, bias, xp.matmul(m, v), beta, alpha),
              (lambda xp, g, mat, vec, beta, alpha: _times(g, beta),
               lambda xp, g, mat, vec, beta, alpha: _times(xp.expand_dims(g, 1) * xp.expand_dims(vec, 0), alpha),
               lambda xp, g, mat, vec, beta, alpha: _times(xp.apply(MV, xp.swap_last(mat), g), alpha)),
              saved=("input1", "input2", "beta", "alpha"), n_in=3)
ADDMV.node_cls._saved_names = ("mat", "vec", "beta", "alpha")
ADDR = defop("AddrBackward0",
             lambda xp, bias, v1, v2, beta, alpha: _combine(xp, bias, xp.multiply.outer(v1, v2), beta, alpha),
             (lambda xp, g, vec1, vec2, beta, alpha: _times(g, beta),
              lambda xp, g, vec1, vec2, beta, alpha: _times(xp.apply(MV, g, vec2), alpha),
              lambda xp, g, vec1, vec2, beta, alpha: _times(xp.apply(MV, xp.swap_last(g), vec1), alpha)),
             saved=("input1", "input2", "beta", "alpha"), n_in=3)
ADDR.node_cls._saved_names = ("vec1", "vec2", "beta", "alpha")


# ----------------------------------------------------------------------------- checks
_BOOL_KERNELS = {"addbmm": "addmm_impl_cpu_", "baddbmm": "baddbmm", "addmv": "addmv_impl_cpu"}


def _scalars(name: str, dtype, beta, alpha) -> tuple:
    """torch's rules for ``beta``/``alpha`` by result dtype; returns them as the result's kind of number.

    Only addr takes bool tensors, and only addr refuses a floating-point scalar for an integer result (the
    others truncate it, as torch's kernels convert it to the tensor's type)."""
    if dtype.is_floating_point or dtype.is_complex:
        return beta, alpha
    if name != "addr":
        if dtype is D.bool:
            raise NotImplementedError(f'"{_BOOL_KERNELS[name]}" not implemented for \'Bool\'')
        return int(beta), int(alpha)
    for arg, v in (("beta", beta), ("alpha", alpha)):
        if dtype is not D.bool and isinstance(v, bool):
            raise RuntimeError(f"Boolean {arg} only supported for Boolean results.")
        if isinstance(v, float):
            raise RuntimeError(f"For integral input tensors, argument {arg} must not be a floating point number.")
    return (bool(beta), bool(alpha)) if dtype is D.bool else (int(beta), int(alpha))


def _broadcast_input(input: Tensor, shape: tuple, inplace: bool) -> None:
    """The input must broadcast to the product's shape (in place: have it)."""
    have = tuple(input._data.shape)
    ok = len(have) <= len(shape) and all(h in (1, s) for h, s in zip(have[::-1], shape[::-1]))
    if inplace and have != shape or not ok:
        raise RuntimeError(f"The expanded size of the tensor ({shape[0] if shape else 0}) must match the existing "
                           f"size ({have[0] if have else 0}) at non-singleton dimension 0.  Target sizes: "
                           f"{list(shape)}.  Tensor sizes: {list(have)}")


def _bmm_checks(name: str, input: Tensor, batch1: Tensor, batch2: Tensor) -> None:
    for arg, t in (("batch1", batch1), ("batch2", batch2)):
        if t._data.ndim != 3:
            raise RuntimeError(f"{arg} must be a 3D tensor")
    s1, s2 = batch1._data.shape, batch2._data.shape
    if s1[0] != s2[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {s1[0]} and {s2[0]}")
    if s1[2] != s2[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({s1[1]}x{s1[2]} and {s2[1]}x{s2[2]})")
    dts = (input.dtype, batch1.dtype, batch2.dtype)
    if len(set(dts)) != 1:
        if name == "addbmm":
            a, b = (input, batch1) if input.dtype != batch1.dtype else (batch1, batch2)
            raise RuntimeError(f"self and mat2 must have the same dtype, but got {D.scalar_type_name(a.dtype)} and "
                               f"{D.scalar_type_name(b.dtype)}")
        raise RuntimeError(f"Input dtypes must be the same, got: input {_cname(input)}, batch1: {_cname(batch1)}, "
                           f"batch2: {_cname(batch2)}")


def _cname(t: Tensor) -> str:
    return D.scalar_type_name(t.dtype).lower()


def _run(op, name: str, input: Tensor, a: Tensor, b: Tensor, shape: tuple, beta, alpha, inplace: bool) -> Tensor:
    beta, alpha = _scalars(name, input.dtype, beta, alpha)
    _broadcast_input(input, shape, inplace)
    if inplace:
        from .inplace import inplace as run_inplace
        return run_inplace(op, input, (a, b), (beta, alpha), name + "_")
    return apply(op, (input, a, b), (beta, alpha))


# ----------------------------------------------------------------------------- public forms
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    _bmm_checks("addbmm", input, batch1, batch2)
    shape = (batch1._data.shape[1], batch2._data.shape[2])
    return _run(ADDBMM, "addbmm", input, batch1, batch2, shape, beta, alpha, False)


def addbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    _bmm_checks("addbmm", self, batch1, batch2)
    shape = (batch1._data.shape[1], batch2._data.shape[2])
    return _run(ADDBMM, "addbmm", self, batch1, batch2, shape, beta, alpha, True)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)``, batch by batch."""
    _bmm_checks("baddbmm", input, batch1, batch2)
    shape = (batch1._data.shape[0], batch1._data.shape[1], batch2._data.shape[2])
    return _run(BADDBMM, "baddbmm", input, batch1, batch2, shape, beta, alpha, False)


def baddbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    _bmm_checks("baddbmm", self, batch1, batch2)
    shape = (batch1._data.shape[0], batch1._data.shape[1], batch2._data.shape[2])
    return _run(BADDBMM, "baddbmm", self, batch1, batch2, shape, beta, alpha, True)


def _mv_checks(input: Tensor, mat: Tensor, vec: Tensor) -> tuple:
    if mat._data.ndim != 2 or vec._data.ndim != 1 or mat._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0] if input._data.ndim else 1}), mat "
                           f"({'x'.join(map(str, mat._data.shape))}), vec "
                           f"({vec._data.shape[0] if vec._data.ndim else 1})")
    if not input.dtype == mat.dtype == vec.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {D.scalar_type_name(input.dtype)}, "
                           f"{D.scalar_type_name(mat.dtype)}, and {D.scalar_type_name(vec.dtype)}")
    return (mat._data.shape[0],)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``."""
    return _run(ADDMV, "addmv", input, mat, vec, _mv_checks(input, mat, vec), beta, alpha, False)


def addmv_(self: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    return _run(ADDMV, "addmv", self, mat, vec, _mv_checks(self, mat, vec), beta, alpha, True)


def _addr_operands(input: Tensor, vec1: Tensor, vec2: Tensor, inplace: bool) -> tuple:
    """addr's checks; torch promotes its three operands to one dtype (the input's, in place)."""
    for name, t in (("vec1", vec1), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    dt = D.promote_types(D.promote_types(input.dtype, vec1.dtype), vec2.dtype)
    if inplace:
        import numpy as np

        from .inplace import check_cast
        check_cast(input, np.dtype(dt.np))
        dt = input.dtype
    return (input if inplace else input.to(dt)), vec1.to(dt), vec2.to(dt), (vec1._data.shape[0], vec2._data.shape[0])


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``."""
    input, vec1, vec2, shape = _addr_operands(input, vec1, vec2, False)
    return _run(ADDR, "addr", input, vec1, vec2, shape, beta, alpha, False)


def addr_(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    _, vec1, vec2, shape = _addr_operands(self, vec1, vec2, True)
    return _run(ADDR, "addr", self, vec1, vec2, shape, beta, alpha, True)


def _bind_methods() -> None:
    bind("blas_extra", {name: globals()[name] for name in __all__})


#: torch's top-level forms, served by ``leafgrad.__getattr__`` (lazy.py)
TOP_LEVEL = {name: globals()[name] for name in ("addbmm", "addmv", "addmv_", "addr", "baddbmm")}

_bind_methods()
