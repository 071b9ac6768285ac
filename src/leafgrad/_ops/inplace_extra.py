"""The in-place forms of ops leafgrad already has (``ceil_``, ``cumsum_``, ``remainder_``, ``eq_``,
``tril_``, ``t_``, ...), each the existing op run through ``inplace.inplace``: the version bump,
torch's leaf and view checks, CopySlices for a write through a view, and the node torch records.

Three kinds need more than that:

* comparisons (``eq_``...) write 0/1 in the tensor's own dtype; torch records ``EqBackward0``
  (a number) / ``EqBackward1`` (a tensor), whose gradient is zero: their ops are defined here;
* logical and bitwise ops are not differentiable: torch writes the values and bumps the version,
  but leaves the tensor's history as it was (no node is recorded) and makes no leaf check (a
  leaf that requires grad may be written so);
* ``t_``/``transpose_``/``squeeze_``/``unsqueeze_`` change the tensor's shape and strides in place
  (its memory is untouched): torch records ``TBackward1``, ``TransposeBackward1``, ... and bumps
  the version, with the same leaf checks as a write.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._backend import _BY_ARRAY_TYPE
from .._tensor import _STATE, Tensor, _wrap_dim, vc_of
from ..autograd.grad_mode import no_grad
from . import indexing as I
from . import inplace as IP
from . import linalg as L
from . import pointwise as P
from . import reduction as R
from . import shape as S
from . import shape_extra as SX
from . import special_ops as SP
from .registry import _finish_saves, _record, defop
from .unsigned import refuse_unsigned

__all__ = ["FUNCTIONS", "METHODS"]


def _no_bool(self: Tensor, kernel: str) -> None:
    if self._data.dtype.kind == "b":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool': convert first, e.g. t.float()")


def _unary_(op, name: str, float_only: bool = False, params: tuple = (), kernel: str = ""):
    """``x.ceil_()``-style: the op written into x. ``float_only`` ops refuse integer tensors with
    torch's cast error up front (their out-of-place forms would compute in float); ``kernel`` names
    torch's kernel in its refusal of a bool tensor."""
    def m(self: Tensor) -> Tensor:
        if float_only and self._data.dtype.kind not in "fc":
            IP.check_cast(self, np.dtype(D.get_default_dtype().np))
        if kernel:
            _no_bool(self, kernel)
        return IP.inplace(op, self, (), params, name)
    m.__name__ = m.__qualname__ = name
    return m


def _negative_(self: Tensor) -> Tensor:
    if self.dtype is D.bool:
        P.neg(self)  # (torch's refusal of a bool negation)
    return IP.inplace(P.NEG, self, (), (), "negative_")


def _round_(self: Tensor, *, decimals: int = 0) -> Tensor:
    _no_bool(self, "round_cpu" if decimals else "round_vml_cpu")
    if decimals:
        return IP.inplace(P.ROUND_DECIMALS, self, (), (int(decimals),), "round_")
    return IP.inplace(P.ROUND, self, (), (), "round_")


def _square_(self: Tensor) -> Tensor:
    return IP.inplace(P.POW_SCALAR, self, (), (2,), "square_")  # (torch: pow_(2), PowBackward0)


def _check_dtype_arg(self: Tensor, dtype, name: str) -> None:
    if dtype is not None and D.to_dtype(dtype) is not self.dtype:
        def cpp(dt):
            return D.CPP_NAMES.get(dt.name, dt.name)
        raise RuntimeError(f"Bad in-place call: input tensor dtype {cpp(self.dtype)} and output tensor dtype "
                           f"{cpp(D.to_dtype(dtype))} should match ({name} keeps the tensor's dtype; use the "
                           "out-of-place form to change it).")


def _cumsum_(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    _check_dtype_arg(self, dtype, "cumsum_")
    d = _wrap_dim(dim, self._data.ndim)
    refuse_unsigned(self.dtype, "cumsum_out_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    return IP.inplace(R.CUMSUM, self, (), (d,), "cumsum_")


def _cumprod_(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    _check_dtype_arg(self, dtype, "cumprod_")
    d = _wrap_dim(dim, self._data.ndim)
    refuse_unsigned(self.dtype, "cumprod_out_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    return IP.inplace(SX.CUMPROD, self, (), (d,), "cumprod_")


def _mod_(op, op_number, name: str):
    """remainder_ / fmod_: a number is a forward parameter (RemainderBackward0), a tensor an input
    (RemainderBackward1), as in the out-of-place forms."""
    def m(self: Tensor, other) -> Tensor:
        if isinstance(other, Tensor):
            return IP.binary_(op, self, other, (), name)
        dt = D.result_type(self, other)
        IP.check_cast(self, np.dtype(dt.np))
        return IP.inplace(op_number, self, (), (np.asarray(other).astype(self._data.dtype),), name)
    m.__name__ = m.__qualname__ = name
    return m


FLOOR_DIVIDE_INPLACE = defop("torch::autograd::NotImplemented", P.FLOOR_DIVIDE.forward,
                             (P._no_derivative("floor_divide_", P._FLOOR_DIVIDE_HINT),
                              P._no_derivative("floor_divide_", P._FLOOR_DIVIDE_HINT)), n_in=2)


def _floor_divide_(self: Tensor, other) -> Tensor:
    return IP.binary_(FLOOR_DIVIDE_INPLACE, self, other, (), "floor_divide_")


def _addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if not isinstance(t, Tensor) or t._data.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {getattr(t, 'ndim', 0)}-D tensor")
    (n, k), (k2, p) = mat1._data.shape, mat2._data.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{p})")
    L._same_dtype(mat1, mat2, "addmm_")
    if self._data.shape != (n, p):
        raise RuntimeError(f"The input tensor must be a matrix with size {n}x{p}, but got a "
                           f"{self._data.ndim}-D tensor with size {'x'.join(map(str, self._data.shape))}: addmm_ "
                           "writes the product into the tensor, which cannot broadcast.")
    return IP.inplace(L.ADDMM, self, (mat1, mat2), (beta, alpha), "addmm_")


def _triangle_(op, name: str):
    def m(self: Tensor, diagonal: int = 0) -> Tensor:
        if self._data.ndim < 2:
            raise RuntimeError(f"{name[:-1]}: input tensor must have at least 2 dimensions")
        return IP.inplace(op, self, (), (int(diagonal),), name)
    m.__name__ = m.__qualname__ = name
    return m


POLYGAMMA_INPLACE = defop("PolygammaBackward1", SP._polygamma_fwd,
                          lambda xp, g, self, n: g * xp.apply(SP.POLYGAMMA, self, params=(n + 1,)),
                          saved=("self", "n"))


def _polygamma_(self: Tensor, n: int) -> Tensor:
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"polygamma_(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n. Use n >= 0 (n = 0 is digamma).")
    if self._data.dtype.kind not in "fc":
        IP.check_cast(self, np.dtype(D.get_default_dtype().np))
    return IP.inplace(POLYGAMMA_INPLACE, self, (), (n,), "polygamma_")


def _mvlgamma_(self: Tensor, p: int) -> Tensor:
    if p < 1:
        raise RuntimeError(f"p has to be greater than or equal to 1, got p = {p}")
    if not self.dtype.is_floating_point:
        raise RuntimeError("mvlgamma is not implemented for integer tensors: pass a floating point tensor.")
    return IP.inplace(SP.MVLGAMMA, self, (), (p,), "mvlgamma_")


# ----------------------------------------------------------------------------- comparisons written in place
def _zero_grad(xp, g, *rest):
    return xp.zeros_like(g)


def _cmp_ops(torch_name: str, ufunc):
    number = defop(f"{torch_name}Backward0", lambda xp, a, other: ufunc(a, other), _zero_grad)
    tensor = defop(f"{torch_name}Backward1", lambda xp, a, b: ufunc(a, b), (_zero_grad, _zero_grad), n_in=2)
    return number, tensor


_CMP = {name: _cmp_ops(torch_name, uf) for name, torch_name, uf in (
    ("eq", "Eq", np.equal), ("ne", "Ne", np.not_equal), ("ge", "Ge", np.greater_equal), ("gt", "Gt", np.greater),
    ("le", "Le", np.less_equal), ("lt", "Lt", np.less))}


def _cmp_(short: str, name: str):
    number_op, tensor_op = _CMP[short]
    out_of_place = getattr(P, short)

    def m(self: Tensor, other) -> Tensor:
        out_of_place(self.detach(), other.detach() if isinstance(other, Tensor) else other)  # (its operand checks)
        if isinstance(other, Tensor):
            return IP.binary_(tensor_op, self, other, (), name)
        return IP.inplace(number_op, self, (), (other,), name)
    m.__name__ = m.__qualname__ = name
    return m


# ----------------------------------------------------------------------------- non-differentiable writes
_WRITE = defop("torch::autograd::NotImplemented", lambda xp, a, values: values, None)


def write_values(self: Tensor, result: Tensor, name: str) -> Tensor:
    """Write a non-differentiable op's ``result`` into ``self``: torch's shape and cast checks, a
    version bump, and no change to ``self``'s history (nor a leaf check: torch makes none)."""
    shape = self._data.shape
    if result._data.shape != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(result._data.shape)}: an in-place op cannot change the shape of the tensor it "
                           "writes into.")
    IP.check_cast(self, result._data.dtype)
    with no_grad():  # (torch allows these on leaves that require grad and on any view: no history to guard)
        return IP.inplace(_WRITE, self, (), (result._data,), name, 3)


def _nondiff_(fn, name: str, tensor_other: bool = False, unary: bool = False):
    """A logical/bitwise op's in-place form: ``fn``'s checks and values, written by ``write_values``."""
    if unary:
        def m(self: Tensor) -> Tensor:
            return write_values(self, fn(self.detach()), name)
    else:
        def m(self: Tensor, other) -> Tensor:
            if tensor_other and not isinstance(other, Tensor):
                raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
            return write_values(self, fn(self.detach(), other.detach() if isinstance(other, Tensor) else other), name)
    m.__name__ = m.__qualname__ = name
    return m


# ----------------------------------------------------------------------------- shape changes in place
def _untranspose(xp, g, dim0, dim1):
    return xp.apply(S.TRANSPOSE, g, params=(dim0, dim1))


T_INPLACE = defop("TBackward1", lambda xp, a: a.T, lambda xp, g: xp.apply(S.T, g))
TRANSPOSE_INPLACE = defop("TransposeBackward1", lambda xp, a, dim0, dim1: xp.swapaxes(a, dim0, dim1), _untranspose,
                          saved=("dim0", "dim1"))
UNSQUEEZE_INPLACE = defop("UnsqueezeBackward1", lambda xp, a, dim: xp.expand_dims(a, dim),
                          lambda xp, g, dim: xp.apply(S.SQUEEZE_DIM, g, params=(dim,)), saved=("dim",))
SQUEEZE_INPLACE = defop("SqueezeBackward3", lambda xp, a: a.reshape(tuple(s for s in a.shape if s != 1)),
                        S._unview, saved=("self_sym_sizes",))
SQUEEZE_DIM_INPLACE = defop("SqueezeBackward4", lambda xp, a, dim: a.reshape(a.shape[:dim] + a.shape[dim + 1:])
                            if a.shape[dim] == 1 else a.view(),
                            lambda xp, g, dim, self_sym_sizes: S._unview(xp, g, self_sym_sizes),
                            saved=("dim", "self_sym_sizes"))
SQUEEZE_DIMS_INPLACE = defop("SqueezeBackward5", lambda xp, a, dim: a.reshape(
    tuple(s for i, s in enumerate(a.shape) if not (i in dim and s == 1))),
    lambda xp, g, dim, self_sym_sizes: S._unview(xp, g, self_sym_sizes), saved=("dim", "self_sym_sizes"))


def restride(self: Tensor, op, params: tuple, name: str) -> Tensor:
    """Give ``self`` the shape/strides ``op`` makes of its array (a view of the same memory), record
    ``op`` as its history when autograd is on, and bump the version as torch does."""
    if self._base is not None and self._vc is not None and self._vc.v != self._view_v:
        IP.regenerate_view_grad_fn(self)
    grad_on = _STATE.grad
    if grad_on:
        IP._check_allowed(self, name)
    new = op.forward(_BY_ARRAY_TYPE[self._data.__class__].xp, self._data, *params)
    needs = grad_on and self._data.dtype.kind in "fc" and (
        self._requires_grad or self._grad_fn is not None or (self._base is not None and self._base._requires_grad))
    if needs:
        pre = IP._pre_image(self, None)
        node = _record(op, (pre,))
        self._data = new
        self._grad_fn = node
        self._requires_grad = True
        self._output_nr = 0
        _finish_saves(op, node, (pre,), (self,), params)
    else:
        self._data = new
    vc = vc_of(self)
    vc.bump()
    if self._base is not None:
        self._view_v = vc.v  # (its history is the node just recorded, not one re-derived from the base)
    return self


def _t_(self: Tensor) -> Tensor:
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D. "
                           "Use .transpose_(dim0, dim1) for batches of matrices.")
    return restride(self, T_INPLACE, (), "t_")


def _transpose_(name: str):
    def m(self: Tensor, dim0: int, dim1: int) -> Tensor:
        nd = self._data.ndim
        return restride(self, TRANSPOSE_INPLACE, (_wrap_dim(dim0, nd), _wrap_dim(dim1, nd)), name)
    m.__name__ = m.__qualname__ = name
    return m


def _squeeze_(self: Tensor, dim=None) -> Tensor:
    nd = self._data.ndim
    if dim is None:
        return restride(self, SQUEEZE_INPLACE, (), "squeeze_")
    if isinstance(dim, (tuple, list)):
        return restride(self, SQUEEZE_DIMS_INPLACE, (tuple(_wrap_dim(d, nd) for d in dim),), "squeeze_")
    return restride(self, SQUEEZE_DIM_INPLACE, (_wrap_dim(dim, nd),), "squeeze_")


def _unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return restride(self, UNSQUEEZE_INPLACE, (_wrap_dim(dim, self._data.ndim + 1),), "unsqueeze_")


def _fix(input: Tensor) -> Tensor:
    """torch.fix: trunc under its other name (TruncBackward0)."""
    return P.trunc(input)


_ceil_ = _unary_(P.CEIL, "ceil_", kernel="ceil_vml_cpu")
_floor_ = _unary_(P.FLOOR, "floor_", kernel="floor_vml_cpu")
_trunc_ = _unary_(P.TRUNC, "trunc_", kernel="trunc_vml_cpu")
_fix_ = _unary_(P.TRUNC, "fix_", kernel="trunc_vml_cpu")
_atan_ = _unary_(P.ATAN, "atan_", True)
_arctan_ = _unary_(P.ATAN, "arctan_", True)
_tan_ = _unary_(P.TAN, "tan_", True)
_erf_ = _unary_(P.ERF, "erf_", True)
_expm1_ = _unary_(P.EXPM1, "expm1_", True)
_log2_ = _unary_(P.LOG2, "log2_", True)
_log10_ = _unary_(P.LOG10, "log10_", True)
_i0_ = _unary_(SP.I0, "i0_", True)
_digamma_ = _unary_(SP.DIGAMMA, "digamma_", True)
_lgamma_ = _unary_(SP.LGAMMA, "lgamma_", True)

METHODS = {
    "absolute_": _unary_(P.ABS, "absolute_"), "negative_": _negative_, "ceil_": _ceil_, "floor_": _floor_,
    "trunc_": _trunc_, "fix": _fix, "fix_": _fix_, "round_": _round_, "square_": _square_, "atan_": _atan_,
    "arctan_": _arctan_, "tan_": _tan_, "erf_": _erf_, "expm1_": _expm1_, "log2_": _log2_, "log10_": _log10_,
    "i0_": _i0_, "digamma_": _digamma_, "lgamma_": _lgamma_, "polygamma_": _polygamma_, "mvlgamma_": _mvlgamma_,
    "cumsum_": _cumsum_, "cumprod_": _cumprod_,
    "remainder_": _mod_(P.REMAINDER, P.REMAINDER_SCALAR, "remainder_"),
    "fmod_": _mod_(P.FMOD, P.FMOD_SCALAR, "fmod_"), "floor_divide_": _floor_divide_, "addmm_": _addmm_,
    "tril_": _triangle_(I.TRIL, "tril_"), "triu_": _triangle_(I.TRIU, "triu_"),
    "eq_": _cmp_("eq", "eq_"), "ne_": _cmp_("ne", "ne_"), "not_equal_": _cmp_("ne", "not_equal_"),
    "ge_": _cmp_("ge", "ge_"), "greater_equal_": _cmp_("ge", "greater_equal_"), "gt_": _cmp_("gt", "gt_"),
    "greater_": _cmp_("gt", "greater_"), "le_": _cmp_("le", "le_"), "less_equal_": _cmp_("le", "less_equal_"),
    "lt_": _cmp_("lt", "lt_"), "less_": _cmp_("lt", "less_"),
    "greater_equal": P.ge, "less_equal": P.le, "not_equal": P.ne,
    "logical_and_": _nondiff_(P.logical_and, "logical_and_", True), "logical_or_": _nondiff_(P.logical_or, "logical_or_", True),
    "logical_xor_": _nondiff_(P.logical_xor, "logical_xor_", True), "logical_not_": _nondiff_(P.logical_not, "logical_not_", unary=True),
    "bitwise_and_": _nondiff_(P.bitwise_and, "bitwise_and_"), "bitwise_or_": _nondiff_(P.bitwise_or, "bitwise_or_"),
    "bitwise_xor_": _nondiff_(P.bitwise_xor, "bitwise_xor_"), "bitwise_not_": _nondiff_(P.bitwise_not, "bitwise_not_", unary=True),
    "bitwise_left_shift_": _nondiff_(P.bitwise_left_shift, "bitwise_left_shift_"),
    "bitwise_right_shift_": _nondiff_(P.bitwise_right_shift, "bitwise_right_shift_"),
    "t_": _t_, "transpose_": _transpose_("transpose_"), "swapaxes_": _transpose_("swapaxes_"),
    "swapdims_": _transpose_("swapdims_"), "squeeze_": _squeeze_, "unsqueeze_": _unsqueeze_,
}

# the names torch also has at the top level (torch.ceil_(x), torch.fix(x), ...)
FUNCTIONS = {name: METHODS[name] for name in (
    "arctan_", "atan_", "ceil_", "floor_", "round_", "trunc_", "fix", "fix_", "erf_", "expm1_", "log10_", "log2_",
    "i0_", "square_", "tan_", "negative_", "greater_equal", "less_equal", "not_equal")}
