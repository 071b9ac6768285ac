"""Bind the ops onto Tensor as methods and operators (``t.exp()``, ``a + b``, ``t.add_(1)``).

Nothing is defined here: every name points at the one definition in the op modules.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._backend import backend_for_device, device as Device
from .._tensor import Tensor
from . import indexing as I
from .layout import check_rank, in_format, preserve_format, suggested_format
from . import inplace as IP
from . import linalg as L
from . import pointwise as P
from . import pointwise_math as PM
from . import reduction as R
from . import shape as S
from . import shape_extra as SX
from . import sorting as SO
from .numpy_kwargs import numpy_kwargs
from .unsigned import refuse_unsigned
from .random_ import bernoulli_, exponential_, normal_, random_, uniform_


def _swap(fn):
    def r(self, other):
        return fn(other, self)
    return r


def _to(self: Tensor, *args, **kwargs) -> Tensor:
    """to(dtype) / to(device) / to(tensor) / to(device, dtype): returns self when nothing changes."""
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    fmt = kwargs.pop("memory_format", None)
    for a in args:
        if isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, D.dtype) or a in (float, int, bool, complex):
            dtype = a
        elif isinstance(a, (str, Device)):
            dev = a
        elif isinstance(a, np.dtype) or (isinstance(a, type) and issubclass(a, np.generic)):
            dtype = a
        elif a is not None:
            raise TypeError(f"to() received an invalid combination of arguments: {a!r}")
    if dev is not None:
        backend_for_device(dev)  # clear error for cuda while there is no GPU backend
    if fmt is not None and fmt is not preserve_format:  # (torch.channels_last & co: see _ops/layout.py)
        check_rank(fmt, self._data.ndim)
        target = self.dtype if dtype is None else D.to_dtype(dtype)
        if target is self.dtype and not copy and suggested_format(self._data) is fmt:
            return self  # (torch's test: the layout it would suggest for self is already fmt)
        res = P.to_dtype(self, target, copy=True)
        res._data = in_format(res._data, fmt)  # (a fresh result that nothing else holds yet)
        return res
    if dtype is None:
        return P.clone(self) if copy else self
    return P.to_dtype(self, D.to_dtype(dtype), copy=copy)


def _cast(dt):
    def m(self, memory_format=None):
        if memory_format is not None:
            return _to(self, dt, memory_format=memory_format)
        return P.to_dtype(self, dt)
    return m


def _new_factory(fn):
    # x.new_zeros(2, 3) / ((2, 3)) / ([2, 3]) / (Size): x's dtype and device unless given (never the default device)
    def m(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        return fn(*size, dtype=dtype or self.dtype, device=device or "cpu", requires_grad=requires_grad)
    return m


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """A copy of ``data`` with this tensor's dtype unless given; a tensor is copied detached, with torch's warning."""
    from .._creation import tensor
    if isinstance(data, Tensor):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor("
                      "sourceTensor).", UserWarning, stacklevel=2)
        data = data._data  # (the array: copied below, with no history and no second warning)
    return tensor(data, dtype=dtype or self.dtype, device=device or "cpu", requires_grad=requires_grad)


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    from .._creation import full
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    return full(size, fill_value, dtype=dtype or self.dtype, device=device or "cpu", requires_grad=requires_grad)


@numpy_kwargs(name="max")
def _max_method(self, dim=None, keepdim=False):
    return R.max(self, dim, keepdim)


@numpy_kwargs(name="min")
def _min_method(self, dim=None, keepdim=False):
    return R.min(self, dim, keepdim)


def _unary_(op, name):
    def m(self):
        return IP.inplace(op, self, (), (), name)
    m.__name__ = name
    return m


def _binary_(op, name, with_alpha=False, params=()):
    """``add_``-style methods, and with ``params`` bound the ``+=``-style operators (no keywords there).

    A hand-written parameter update calls these once per parameter: ``binary_`` is a closure
    variable rather than two module lookups, and the ``3`` tells the in-place path that this
    frame is leafgrad's, so its walk for the user's line starts at this method's caller.
    """
    binary_ = IP.binary_
    if op is P.SUB:  # (torch refuses - on bools, and a float alpha with integers, in place too)
        def m(self, other, *, alpha=1):
            P._check_bool_sub(self, other)
            if alpha.__class__ is not int:
                P.check_alpha(self, other, alpha)
            return binary_(op, self, other, (alpha,), name, 3)
    elif with_alpha:
        def m(self, other, *, alpha=1):
            if alpha.__class__ is not int:
                P.check_alpha(self, other, alpha)
            return binary_(op, self, other, (alpha,), name, 3)
    else:
        def m(self, other):
            return binary_(op, self, other, params, name, 3)
    m.__name__ = name
    return m


def _div_(self, other, *, rounding_mode=None):
    if rounding_mode is not None:
        return IP.copy_(self, P.div(self, other, rounding_mode=rounding_mode))
    if not self.dtype.is_floating_point and not self.dtype.is_complex:
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{D.scalar_type_name(self.dtype)}")
    return IP.binary_(P.DIV, self, other, (), "div_")


def _pow_(self, exponent):
    if isinstance(exponent, Tensor):
        return IP.binary_(P.POW_TENSOR, self, exponent, (), "pow_")
    return IP.inplace(P.POW_SCALAR, self, (), (exponent,), "pow_")


def _clamp_(self, min=None, max=None):
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return IP.copy_(self, P.clamp(self, min, max))
    for bound in (min, max):  # (a float bound on an integer tensor promotes: the write would cast it back)
        if bound is not None:
            IP.check_cast(self, np.dtype(D.result_type(self, bound).np), cpp_name=True)  # (torch: "long int")
    return IP.inplace(P.CLAMP, self, (), (min, max), "clamp_")


def _clamp_side_(op, op_tensor, name: str):
    """``clamp_min_``/``clamp_max_``: torch records the one-sided node (ClampMinBackward0 for a
    number, ClampMinBackward1 for a tensor bound), not clamp's."""
    def m(self, bound):
        if isinstance(bound, Tensor):
            return IP.binary_(op_tensor, self, bound, (), name, 3)
        IP.check_cast(self, np.dtype(D.result_type(self, bound).np), cpp_name=True)
        return IP.inplace(op, self, (), (bound,), name, 3)
    m.__name__ = name
    return m


def _masked_fill_(self, mask, value):
    I.check_masked_fill(self, mask, value, inplace=True)
    if isinstance(value, Tensor):
        return IP.inplace(I.MASKED_FILL_T, self, (value,), (mask,), "masked_fill_")
    return IP.inplace(I.MASKED_FILL, self, (), (mask, value), "masked_fill_")


def _fused_(check, op, name):
    """The in-place form of addcmul / addcdiv: the same op written into the tensor (version
    bump, leaf checks naming ``name``, torch's node), after the out-of-place checks."""
    def m(self, tensor1, tensor2, *, value=1):
        _, value = check(self, tensor1, tensor2, value)
        IP.check_broadcast_into(self, tensor1, tensor2)
        return IP.inplace(op, self, (tensor1, tensor2), (value,), name)
    m.__name__ = name
    return m


def _lerp_(self, end, weight):
    op, others, params = P.lerp_check(self, end, weight)
    IP.check_broadcast_into(self, *others)
    return IP.inplace(op, self, others, params, "lerp_")


def _float_binary_(name, op, method_name):
    """atan2_ / hypot_: the out-of-place form's checks (a tensor operand, torch's dtype rules),
    then the op written into the tensor."""
    def m(self, other):
        PM.binary_dtype(name, self, other)
        return IP.binary_(op, self, other, (), method_name)
    return P.tensors_only_method(m, method_name)


def _xlogy_(self, other):
    PM.binary_dtype("xlogy", self, other)
    if isinstance(other, Tensor):
        return IP.binary_(PM.XLOGY, self, other, (), "xlogy_")
    return IP.inplace(PM.XLOGY_NUMBER_OTHER, self, (), (other,), "xlogy_")


def _heaviside(self, values):
    PM.heaviside_check(self, values, position=1)  # (torch counts ``values`` as position 1 on the method)
    return PM.heaviside(self, values)


def _heaviside_(self, values):
    PM.heaviside_check(self, values, position=1)
    refuse_unsigned(self.dtype, "heaviside_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    return IP.binary_(PM.HEAVISIDE_INPLACE, self, values, (), "heaviside_")


def _logit_(self, eps=None):
    return IP.inplace(PM.LOGIT, self, (), (PM.logit_eps(eps),), "logit_")


def _nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    return IP.inplace(PM.NAN_TO_NUM, self, (), (nan, posinf, neginf), "nan_to_num_")


def _T(self):
    if self._data.ndim == 2:
        return S.t(self)
    if self._data.ndim > 2:
        import warnings
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and "
                      "it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices "
                      "or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
                      UserWarning, stacklevel=2)
    return S.permute(self, tuple(range(self._data.ndim))[::-1])


def _mT(self):
    if self._data.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self._data.ndim}-D tensor.")
    return S.transpose(self, -2, -1)


METHODS = {
    # arithmetic
    "add": P.add, "sub": P.sub, "subtract": P.sub, "mul": P.mul, "multiply": P.mul, "div": P.div, "divide": P.div,
    "true_divide": P.div, "floor_divide": P.floor_divide, "remainder": P.remainder, "fmod": P.fmod,
    "neg": P.neg, "negative": P.neg, "reciprocal": P.reciprocal, "pow": P.pow, "square": P.square,
    "exp": P.exp, "expm1": P.expm1, "log": P.log, "log2": P.log2, "log10": P.log10, "log1p": P.log1p,
    "sqrt": P.sqrt, "rsqrt": P.rsqrt, "sin": P.sin, "cos": P.cos, "tan": P.tan, "atan": P.atan, "tanh": P.tanh,
    "sigmoid": P.sigmoid, "relu": P.relu, "abs": P.abs, "absolute": P.abs, "sign": P.sign, "erf": P.erf,
    "clamp": P.clamp, "clip": P.clamp, "clamp_min": P.clamp_min, "clamp_max": P.clamp_max,
    "maximum": P.tensors_only_method(P.maximum, "maximum"), "minimum": P.tensors_only_method(P.minimum, "minimum"),
    "fmax": P.tensors_only_method(P.fmax, "fmax"), "fmin": P.tensors_only_method(P.fmin, "fmin"), "conj": P.conj,
    "clone": P.clone, "floor": P.floor, "ceil": P.ceil, "round": P.round, "trunc": P.trunc,
    "eq": P.eq, "ne": P.ne, "lt": P.lt, "le": P.le, "gt": P.gt, "ge": P.ge, "greater": P.gt, "less": P.lt,
    "logical_and": P.tensors_only_method(P.logical_and, "logical_and"),
    "logical_or": P.tensors_only_method(P.logical_or, "logical_or"),
    "logical_xor": P.tensors_only_method(P.logical_xor, "logical_xor"),
    "logical_not": P.logical_not, "bitwise_not": P.bitwise_not, "bitwise_and": P.bitwise_and,
    "bitwise_or": P.bitwise_or, "bitwise_xor": P.bitwise_xor, "bitwise_left_shift": P.bitwise_left_shift,
    "bitwise_right_shift": P.bitwise_right_shift, "isnan": P.isnan, "isinf": P.isinf,
    "isfinite": P.isfinite, "equal": P.equal, "allclose": P.tensors_only_method(P.allclose, "allclose"),
    "isclose": P.tensors_only_method(P.isclose, "isclose"),
    "where": lambda self, condition, other: P.where(condition, self, other),
    "addcmul": P.addcmul, "addcdiv": P.addcdiv, "lerp": P.lerp,
    "addcmul_": _fused_(P.addcmul_check, P.ADDCMUL, "addcmul_"),
    "addcdiv_": _fused_(P.addcdiv_check, P.ADDCDIV, "addcdiv_"),
    "lerp_": _lerp_,
    # more math (pointwise_math)
    "asin": PM.asin, "arcsin": PM.asin, "acos": PM.acos, "arccos": PM.acos, "asinh": PM.asinh,
    "arcsinh": PM.asinh, "acosh": PM.acosh, "arccosh": PM.acosh, "atanh": PM.atanh, "arctanh": PM.atanh,
    "sinh": PM.sinh, "cosh": PM.cosh, "erfc": PM.erfc, "erfinv": PM.erfinv, "exp2": PM.exp2, "sinc": PM.sinc,
    "frac": PM.frac, "sgn": PM.sgn, "logit": PM.logit, "deg2rad": PM.deg2rad, "rad2deg": PM.rad2deg,
    "nan_to_num": PM.nan_to_num, "signbit": PM.signbit, "xlogy": PM.xlogy, "heaviside": _heaviside,
    "atan2": P.tensors_only_method(PM.atan2, "atan2"), "arctan2": P.tensors_only_method(PM.atan2, "arctan2"),
    "hypot": P.tensors_only_method(PM.hypot, "hypot"), "logaddexp": P.tensors_only_method(PM.logaddexp, "logaddexp"),
    "logaddexp2": P.tensors_only_method(PM.logaddexp2, "logaddexp2"),
    # reductions
    "sum": R.sum, "mean": R.mean, "prod": R.prod, "max": _max_method, "min": _min_method, "amax": R.amax,
    "amin": R.amin, "var": R.var, "std": R.std, "logsumexp": R.logsumexp, "norm": R.norm, "softmax": R.softmax,
    "log_softmax": R.log_softmax, "argmax": R.argmax, "argmin": R.argmin, "all": R.all, "any": R.any,
    "count_nonzero": R.count_nonzero, "cumsum": R.cumsum,
    # sorting and order statistics
    "sort": SO.sort, "argsort": SO.argsort, "msort": SO.msort, "topk": SO.topk, "kthvalue": SO.kthvalue,
    "median": SO.median, "nanmedian": SO.nanmedian, "cummax": SO.cummax, "cummin": SO.cummin,
    # linear algebra
    "matmul": L.matmul, "mm": L.mm, "bmm": L.bmm, "mv": L.mv, "dot": L.dot, "vdot": L.vdot, "inner": L.inner,
    "outer": L.outer, "ger": L.outer,
    "addmm": L.addmm,
    # shape
    "view": S.view, "reshape": S.reshape, "flatten": S.flatten, "unflatten": S.unflatten,
    "transpose": S.transpose, "swapaxes": S.transpose, "swapdims": S.transpose, "permute": S.permute, "t": S.t,
    "movedim": S.movedim, "squeeze": S.squeeze, "unsqueeze": S.unsqueeze, "expand": S.expand,
    "expand_as": S.expand_as, "broadcast_to": S.broadcast_to, "narrow": S.narrow, "select": S.select,
    "diagonal": S.diagonal, "flip": S.flip, "split": S.split, "chunk": S.chunk, "tensor_split": S.tensor_split,
    "unbind": S.unbind, "contiguous": S.contiguous, "repeat": S.repeat, "tile": S.tile, "roll": S.roll,
    # less common shape and cumulative functions (shape_extra)
    "trace": SX.trace, "diag": SX.diag, "diag_embed": SX.diag_embed, "cumprod": SX.cumprod,
    "logcumsumexp": SX.logcumsumexp, "diff": SX.diff, "rot90": SX.rot90, "fliplr": SX.fliplr, "flipud": SX.flipud,
    "repeat_interleave": SX.repeat_interleave, "take_along_dim": SX.take_along_dim, "kron": SX.kron,
    "view_as": lambda self, other: S.view(self, other.shape), "reshape_as": lambda self, other: S.reshape(self, other.shape),
    # indexing
    "gather": I.gather, "index_select": I.index_select, "masked_fill": I.masked_fill, "nonzero": I.nonzero,
    "masked_select": I.masked_select, "take": I.take, "scatter_add": I.scatter_add, "scatter": I.scatter,
    "tril": I.tril, "triu": I.triu, "index_put": IP.index_put,
    # conversion
    "to": _to, "double": _cast(D.float64), "float": _cast(D.float32), "half": _cast(D.float16),
    "bfloat16": _cast(D.bfloat16), "long": _cast(D.int64), "int": _cast(D.int32), "short": _cast(D.int16),
    "char": _cast(D.int8), "byte": _cast(D.uint8), "bool": _cast(D.bool),
    "type_as": lambda self, other: P.to_dtype(self, other.dtype),
    "new_zeros": None, "new_ones": None, "new_empty": None, "new_tensor": _new_tensor, "new_full": _new_full,
    # in place
    "add_": _binary_(P.ADD, "add_", True), "sub_": _binary_(P.SUB, "sub_", True),
    "subtract_": _binary_(P.SUB, "sub_", True), "mul_": _binary_(P.MUL, "mul_"),
    "multiply_": _binary_(P.MUL, "mul_"), "div_": _div_, "divide_": _div_, "true_divide_": _div_, "pow_": _pow_,
    "neg_": _unary_(P.NEG, "neg_"), "exp_": _unary_(P.EXP, "exp_"), "log_": _unary_(P.LOG, "log_"),
    "log1p_": _unary_(P.LOG1P, "log1p_"), "sqrt_": _unary_(P.SQRT, "sqrt_"), "rsqrt_": _unary_(P.RSQRT, "rsqrt_"),
    "abs_": _unary_(P.ABS, "abs_"), "sin_": _unary_(P.SIN, "sin_"), "cos_": _unary_(P.COS, "cos_"),
    "relu_": _unary_(P.RELU, "relu_"), "sigmoid_": _unary_(P.SIGMOID, "sigmoid_"),
    "tanh_": _unary_(P.TANH, "tanh_"), "reciprocal_": _unary_(P.RECIPROCAL, "reciprocal_"),
    "sign_": _unary_(P.SIGN, "sign_"), "clamp_": _clamp_, "clip_": _clamp_,
    "clamp_min_": _clamp_side_(P.CLAMP_MIN, P.CLAMP_MIN_T, "clamp_min_"),
    "clamp_max_": _clamp_side_(P.CLAMP_MAX, P.CLAMP_MAX_T, "clamp_max_"),
    "zero_": IP.zero_, "fill_": IP.fill_, "copy_": IP.copy_, "masked_fill_": _masked_fill_,
    "scatter_": I.scatter_, "scatter_add_": I.scatter_add_,
    "index_put_": IP.index_put_, "uniform_": uniform_, "normal_": normal_, "bernoulli_": bernoulli_,
    "exponential_": exponential_, "random_": random_,
    "asin_": _unary_(PM.ASIN, "asin_"), "arcsin_": _unary_(PM.ASIN, "arcsin_"), "acos_": _unary_(PM.ACOS, "acos_"),
    "arccos_": _unary_(PM.ACOS, "arccos_"), "asinh_": _unary_(PM.ASINH_INPLACE, "asinh_"),
    "arcsinh_": _unary_(PM.ASINH_INPLACE, "arcsinh_"), "acosh_": _unary_(PM.ACOSH_INPLACE, "acosh_"),
    "arccosh_": _unary_(PM.ACOSH_INPLACE, "arccosh_"), "atanh_": _unary_(PM.ATANH_INPLACE, "atanh_"),
    "arctanh_": _unary_(PM.ATANH_INPLACE, "arctanh_"), "sinh_": _unary_(PM.SINH, "sinh_"),
    "cosh_": _unary_(PM.COSH, "cosh_"),
    "erfc_": _unary_(PM.ERFC, "erfc_"), "erfinv_": _unary_(PM.ERFINV, "erfinv_"), "exp2_": _unary_(PM.EXP2, "exp2_"),
    "sinc_": _unary_(PM.SINC, "sinc_"), "frac_": _unary_(PM.FRAC, "frac_"), "sgn_": _unary_(PM.SGN, "sgn_"),
    "deg2rad_": _unary_(PM.DEG2RAD, "deg2rad_"), "rad2deg_": _unary_(PM.RAD2DEG, "rad2deg_"), "logit_": _logit_,
    "nan_to_num_": _nan_to_num_, "atan2_": _float_binary_("atan2", PM.ATAN2, "atan2_"),
    "arctan2_": _float_binary_("atan2", PM.ATAN2, "arctan2_"), "hypot_": _float_binary_("hypot", PM.HYPOT, "hypot_"),
    "xlogy_": _xlogy_, "heaviside_": _heaviside_,
}

def _statistics_method(name: str):
    """A Tensor method of statistics.py, which is imported on the first call (rarely used ops)."""
    def m(self, *args, **kwargs):
        from . import statistics
        return getattr(statistics, name)(self, *args, **kwargs)
    m.__name__ = name
    return m


for _name in ("unique", "unique_consecutive", "bincount", "histc", "histogram", "quantile", "nanquantile"):
    METHODS[_name] = _statistics_method(_name)

for _name, _fn in METHODS.items():
    if _fn is not None:
        setattr(Tensor, _name, _fn)

from .._creation import empty as _empty, ones as _ones, zeros as _zeros  # noqa: E402

Tensor.new_zeros = _new_factory(_zeros)
Tensor.new_ones = _new_factory(_ones)
Tensor.new_empty = _new_factory(_empty)
Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.H = property(lambda self: P.conj(_T(self)))
# (Tensor.real / Tensor.imag: views with their history, bound in complex_views.py)

# ----------------------------------------------------------------------------- operators
Tensor.__add__ = P.binary_alpha_method(P.ADD)
Tensor.__radd__ = Tensor.__add__
Tensor.__iadd__ = _binary_(P.ADD, "add_ (+=)", params=(1,))
Tensor.__sub__ = P.sub
Tensor.__rsub__ = lambda self, other: P.rsub(self, other)
Tensor.__isub__ = _binary_(P.SUB, "sub_ (-=)", params=(1,))
Tensor.__mul__ = P.binary_method(P.MUL)
Tensor.__rmul__ = Tensor.__mul__
Tensor.__imul__ = _binary_(P.MUL, "mul_ (*=)")
Tensor.__truediv__ = P.div  # int / int promotes to float: keep the full promotion path
Tensor.__rtruediv__ = lambda self, other: P.mul(P.reciprocal(self), other)
Tensor.__itruediv__ = _div_
Tensor.__floordiv__ = P.floor_divide
Tensor.__rfloordiv__ = _swap(P.floor_divide)
Tensor.__mod__ = P.remainder
Tensor.__rmod__ = _swap(P.remainder)
Tensor.__pow__ = P.pow
Tensor.__rpow__ = _swap(P.pow)
Tensor.__ipow__ = _pow_
Tensor.__matmul__ = L.matmul
Tensor.__rmatmul__ = _swap(L.matmul)
Tensor.__neg__ = P.neg
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = P.abs
Tensor.__invert__ = P.invert
Tensor.__lshift__ = P.bitwise_left_shift
Tensor.__rlshift__ = _swap(P.bitwise_left_shift)
Tensor.__rshift__ = P.bitwise_right_shift
Tensor.__rrshift__ = _swap(P.bitwise_right_shift)
Tensor.__and__ = P.bitwise_and
Tensor.__rand__ = _swap(P.bitwise_and)
Tensor.__or__ = P.bitwise_or
Tensor.__ror__ = _swap(P.bitwise_or)
Tensor.__xor__ = P.bitwise_xor
Tensor.__rxor__ = _swap(P.bitwise_xor)
Tensor.__iand__ = lambda self, other: IP.copy_(self, P.bitwise_and(self, other))
Tensor.__ior__ = lambda self, other: IP.copy_(self, P.bitwise_or(self, other))
Tensor.__eq__ = P.eq
Tensor.__ne__ = P.ne
Tensor.__lt__ = P.lt
Tensor.__le__ = P.le
Tensor.__gt__ = P.gt
Tensor.__ge__ = P.ge
Tensor.__getitem__ = I.getitem
Tensor.__setitem__ = IP.setitem
Tensor.__hash__ = lambda self: id(self)


class _NotInLeafgrad:
    """A public ``torch.Tensor`` name leafgrad lacks (see ``_tensor._TorchOnlyNames``): reading it
    raises coverage's AttributeError, which says so instead of reading like a typo. A non-data
    descriptor, so an attribute a user sets on a tensor under that name still wins."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        from ..coverage import missing
        where = f"'{type(obj).__name__}' object" if obj is not None else f"type object '{owner.__name__}'"
        raise missing("torch.Tensor", self.name, owner=where)


def install_missing_names() -> None:
    """Called last by ``leafgrad/__init__.py``, when every module has bound its Tensor methods."""
    from .._tensor import _TorchOnlyNames
    from ..coverage import torch_names
    for name in torch_names("torch.Tensor"):
        if not name.startswith("_") and not any(name in vars(c) for c in Tensor.__mro__):  # (hasattr would load
            # a lazy family: lazy.py's stand-ins are on Tensor's base already)
            setattr(_TorchOnlyNames, name, _NotInLeafgrad(name))


from .docs import document as _document  # noqa: E402

_document(Tensor)  # public names on the closures above, and docstrings from the op table where missing
