"""uint16 / uint32 / uint64 data in an array type of its own, which refuses what torch refuses.

torch 2.13 treats these three as "shell" dtypes: it stores them, casts them, views and copies them,
compares them for equality, multiplies them and sums them, but builds most CPU kernels without them
(``x + y`` is ``"add_stub" not implemented for 'UInt32'``). NumPy computes every ufunc on them, and
leafgrad's arithmetic runs on dtype-agnostic fast paths (``pointwise.binary``, ``registry.apply*``)
where a dtype test would cost every float32 op. So, as bfloat16 does (``_bfloat16.py``), a tensor of
these dtypes holds a :class:`UIntArray`, an ``ndarray`` subclass registered in ``_backend`` as an
array type of its own:

* a ufunc that torch has no kernel for (:data:`REFUSED_UFUNCS`) raises torch's NotImplementedError
  from ``__array_ufunc__`` when it would compute in one of these dtypes, before anything is written
  (an in-place op leaves its tensor as it was); one whose operands were promoted to a float first
  (``x + 1.5``) computes as usual;
* a few ``np.*`` functions torch has no kernel for (:data:`REFUSED_FUNCTIONS`: ``tril``, ``trace``,
  ``nonzero``...) raise from ``__array_function__``; every other one runs normally;
* a result keeps the subclass exactly when it keeps one of these dtypes (a bool comparison, a
  float32 cast or an int64 index comes back as a plain ``ndarray``), so the float paths, whose
  arrays are plain, never see this class.

Where torch's kernel name depends on the call's form rather than on the NumPy function (``max()``
is ``max_all``, ``max(0)`` is ``max_cpu``, ``amax`` is ``max_values_cpu``), or where torch refuses
before a check that leafgrad makes first, the op's entry point still calls
``_ops.unsigned.refuse_unsigned`` itself.
"""
from __future__ import annotations

import numpy as np

__all__ = ["UIntArray", "SHELL_NP", "as_shell", "keep_shell", "refuse", "MODULE"]

_PLAIN = np.ndarray
#: the NumPy dtypes of torch's shell dtypes
SHELL_NP = frozenset(np.dtype(n) for n in ("uint16", "uint32", "uint64"))
_NAMES = {np.dtype("uint16"): "UInt16", np.dtype("uint32"): "UInt32", np.dtype("uint64"): "UInt64"}


def refuse(kernel: str, np_dtype) -> None:
    """torch's NotImplementedError for ``kernel`` on ``np_dtype`` (one of :data:`SHELL_NP`)."""
    name = _NAMES[np.dtype(np_dtype)]
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}': torch has no CPU kernel for "
                              f"torch.{np.dtype(np_dtype).name} here; convert first, e.g. x.to(torch.int64)")


#: ufunc -> torch's kernel name, for the ufuncs torch 2.13 has no uint16/32/64 kernel for (checked on
#: torch; ``square`` is torch's pow, ``fmax`` its maximum). Only a call and ``outer`` refuse: the
#: ``reduce``/``accumulate`` methods serve ops torch supports (``sum``, ``cumsum``, ``all``) or ops whose
#: entry points refuse with their own kernel names (``max``, ``amin``).
REFUSED_UFUNCS = {
    np.add: "add_stub", np.subtract: "add_stub", np.negative: "neg_cpu", np.absolute: "abs_cpu",
    np.power: "pow", np.square: "pow", np.maximum: "maximum_cpu", np.fmax: "maximum_cpu",
    np.minimum: "minimum_cpu", np.fmin: "minimum_cpu", np.less: "lt_cpu", np.greater: "gt_cpu",
    np.less_equal: "le_cpu", np.greater_equal: "ge_cpu", np.sign: "sign_cpu", np.invert: "bitwise_not_cpu",
    np.logical_and: "logical_and_cpu", np.logical_or: "logical_or_cpu", np.logical_xor: "logical_xor_cpu",
    np.logical_not: "logical_not_cpu", np.gcd: "gcd_cpu", np.lcm: "lcm_cpu", np.heaviside: "heaviside_cpu",
    np.floor_divide: "div_floor_cpu", np.remainder: "remainder_cpu", np.fmod: "fmod_cpu",
    np.left_shift: "lshift_cpu", np.right_shift: "rshift_cpu", np.matmul: "addmm_impl_cpu_",
}
_REFUSED_METHODS = frozenset(("__call__", "outer"))
# a Python number as an operand is how leafgrad's ops pass torch's Scalar arguments: torch's
# clamp_min(x, 2) / relu(x) run its "clamp_min_scalar" kernel, and x ** 0 / x ** 1 need no kernel
# at all (torch fills ones / copies), where maximum(x, y) and x ** y run "maximum" and "pow"
_WITH_NUMBER = {np.maximum: "clamp_min_scalar_cpu", np.minimum: "clamp_max_scalar_cpu"}
_NUMBER = (int, float, bool, np.number, np.bool_)
# (cummax/cummin are running maxima: torch names those kernels by the op)
_ACCUMULATE = {np.maximum: "cummax_cpu", np.minimum: "cummin_cpu"}

#: np.* functions torch has no uint16/32/64 kernel for -> torch's kernel name
REFUSED_FUNCTIONS = {
    np.tril: "tril", np.triu: "triu", np.trace: "trace", np.cross: "cross", np.nonzero: "nonzero_count_cpu",
    np.argwhere: "nonzero_count_cpu", np.count_nonzero: "nonzero_count_cpu", np.flatnonzero: "nonzero_count_cpu",
    np.bincount: "bincount_cpu", np.inner: "matmul", np.dot: "matmul", np.vdot: "dot", np.tensordot: "matmul",
    np.einsum: "bmm",
}


def _shell_dtype(inputs):
    """The shell dtype a ufunc over ``inputs`` would compute in, or None (a float or complex operand, or
    none of these dtypes among the arrays)."""
    found = None
    for x in inputs:
        dt = getattr(x, "dtype", None)
        if dt is None:
            if isinstance(x, (float, complex)):
                return None
            continue
        if dt in SHELL_NP:
            found = dt
        elif dt.kind in "fc":
            return None
    return found


def _is_number(x) -> bool:
    """A Python number, or the 0-d plain array the backend makes of one (``_ShellBackend.const``):
    never a tensor's data, which is a UIntArray even when 0-d."""
    return isinstance(x, _NUMBER) or (x.__class__ is _PLAIN and x.ndim == 0)


def _matmul_kernel(a, b) -> str:
    """torch's kernel for a matrix product of operands of these ndims (it folds batches into mm/mv)."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 1 and nb == 1:
        return "dot"
    if nb == 1:
        return "addmv_impl_cpu"
    if nb == 2:
        return "addmm_impl_cpu_"
    return "bmm"


def _index_of_array(inputs) -> int:
    """Which of two ufunc operands is this module's array (the other may be a Python number)."""
    return 0 if inputs[0].__class__ is UIntArray else 1


def _plain(x):
    return x.view(_PLAIN) if isinstance(x, UIntArray) else x


def _wrap(r):
    """A result as this module hands it back: one of the shell dtypes as a UIntArray, anything else plain."""
    c = r.__class__
    if c is UIntArray:
        return r if r.dtype in SHELL_NP else r.view(_PLAIN)
    if c is _PLAIN:
        return r.view(UIntArray) if r.dtype in SHELL_NP else r
    if c is tuple or c is list:
        return c(_wrap(v) for v in r)
    return r


class UIntArray(np.ndarray):
    """uint16/32/64 values whose NumPy operations follow torch's CPU kernels (see the module docstring)."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        kernel = REFUSED_UFUNCS.get(ufunc) if method in _REFUSED_METHODS else \
            _ACCUMULATE.get(ufunc) if method == "accumulate" else None
        if kernel is not None:
            dt = _shell_dtype(inputs)
            if dt is not None:
                if method == "__call__" and len(inputs) == 2:
                    if ufunc is np.matmul:
                        kernel = _matmul_kernel(inputs[0], inputs[1])
                    elif _is_number(inputs[1 - _index_of_array(inputs)]):
                        if ufunc is np.power and inputs[0].__class__ is UIntArray and inputs[1] in (0, 1):
                            kernel = None
                        else:
                            kernel = _WITH_NUMBER.get(ufunc, kernel)
                if kernel is not None:
                    refuse(kernel, dt)
        args = [_plain(x) for x in inputs]
        if out is not None:
            kwargs["out"] = tuple(_plain(o) for o in out)
            getattr(ufunc, method)(*args, **kwargs)
            if method == "at":
                return None
            return out[0] if len(out) == 1 else out
        r = getattr(ufunc, method)(*args, **kwargs)
        return None if method == "at" else _wrap(r)

    def __array_function__(self, func, types, args, kwargs):
        kernel = REFUSED_FUNCTIONS.get(func)
        if kernel is not None and not (func is np.count_nonzero and kwargs.get("axis") is not None):
            # (torch counts along a dim for these dtypes, but has no kernel for the count of all)
            for a in args[:2]:  # (the data operands; ``np.cross``'s second, ``np.inner``'s too)
                if getattr(a, "dtype", None) in SHELL_NP:
                    refuse(_matmul_kernel(args[0], args[1]) if kernel == "matmul" else kernel, a.dtype)
        return _wrap(func._implementation(*args, **kwargs))

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """NumPy's astype; a UIntArray only when the result is one of the shell dtypes."""
        return _wrap(self.view(_PLAIN).astype(dtype, order=order, casting=casting, copy=copy))

    def argmax(self, *args, **kwargs):
        """torch has no argmax kernel for these dtypes (NumPy's method bypasses ``__array_ufunc__``)."""
        refuse("argmax_cpu", self.dtype)

    def argmin(self, *args, **kwargs):
        refuse("argmin_cpu", self.dtype)

    def view(self, *args, **kwargs):
        """NumPy's view; reading the bytes as another dtype (``view(np.int32)``) gives a plain array."""
        r = _PLAIN.view(self, *args, **kwargs)
        if r.__class__ is UIntArray and r.dtype not in SHELL_NP:
            return _PLAIN.view(r, _PLAIN)
        return r


def keep_shell(arr):
    """``arr`` as a UIntArray view when it holds a shell dtype, else itself: for the places that make a
    tensor's array outside an op (factories, casts, ``from_numpy``, loading a file)."""
    if arr.__class__ is _PLAIN and arr.dtype in SHELL_NP:
        return arr.view(UIntArray)
    return arr


def as_shell(obj, dtype=None, **kwargs):
    """The shell backend's ``asarray``: NumPy's, with a shell-dtype result as a UIntArray and any other
    one plain (how ``registry.apply`` converts a forward's result of another array type)."""
    if dtype is None and not kwargs and obj.__class__ is UIntArray:
        return _wrap(obj)
    return _wrap(np.asarray(_plain(obj), dtype=dtype, **kwargs))


class _ShellModule:
    """NumPy for the shell backend, with ``asarray`` = :func:`as_shell`."""

    asarray = staticmethod(as_shell)

    def __getattr__(self, name: str):
        value = getattr(np, name)
        setattr(self, name, value)
        return value


MODULE = _ShellModule()


def register(by_array_type: dict, cpu) -> None:
    """Enter the shell backend in ``_backend``'s table (called there, once)."""
    from ._backend import Backend

    class _ShellBackend(Backend):
        __slots__ = ()

        def const(self, value, dtype):
            """A Python number as a plain 0-d array (see Backend.const): a ufunc then tells torch's
            Scalar operand (``clamp_min(x, 2)``) from a tensor's data, which is always a UIntArray."""
            return cpu.const(value, dtype)

        def to_numpy(self, arr) -> np.ndarray:
            """A plain view of the same memory: ``numpy()`` of a uint32 tensor is an ordinary uint32 array."""
            return arr.view(_PLAIN)

    by_array_type[UIntArray] = _ShellBackend("numpy-unsigned", MODULE, UIntArray, cpu.device,
                                             special_module=cpu.special_module)
