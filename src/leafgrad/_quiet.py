"""No NumPy RuntimeWarning reaches the user from leafgrad's own arithmetic, as torch prints nothing
for log(0), 0/0, sqrt(-1) or exp(1000.) (it gives inf/nan silently).

Forward: one warnings filter, installed at import, ignores RuntimeWarnings attributed to leafgrad's
own modules (NumPy attributes a ufunc's floating-point warning to the Python frame that called it,
and every op's NumPy call is made in a leafgrad frame). It costs nothing until a warning is
emitted, where NumPy's own ``np.errstate`` around each op would cost about a microsecond per op.
Backward: ``quiet_numpy()`` around the engine's loop, once per backward()/grad() call.
A filter a user puts in front of it (``simplefilter("error")``) still sees forward warnings.
"""
from __future__ import annotations

import warnings

import numpy as np

_MODULES = r"leafgrad(\..*)?$"


def install() -> None:
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=_MODULES)


try:  # NumPy's own switch behind np.errstate: a context variable, set and reset in a fraction of errstate's time
    from numpy._core._ufunc_config import _extobj_contextvar as _EXTOBJ, _make_extobj
    _IGNORE = _make_extobj(all="ignore")
except ImportError:  # pragma: no cover - another NumPy layout: the public context manager
    _EXTOBJ = None


class _Quiet:
    """``np.errstate(all="ignore")`` through NumPy's context variable (0.4 us against errstate's 4 us)."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = _EXTOBJ.set(_IGNORE)

    def __exit__(self, *exc) -> None:
        _EXTOBJ.reset(self._token)


def quiet_numpy():
    """NumPy's floating-point warnings off for a block (the backward pass): inf and nan as torch gives them."""
    return np.errstate(all="ignore") if _EXTOBJ is None else _Quiet()


def quiet(forward):
    """``forward`` with NumPy's floating-point warnings off: for the ops whose NumPy calls run in NumPy's
    own Python code (``ndarray.sum``/``mean``/``var``, ``np.cumprod``), whose warnings the module filter
    cannot tell from the user's."""
    if _EXTOBJ is None:
        def run(*args):
            with np.errstate(all="ignore"):
                return forward(*args)
    else:
        set_, reset = _EXTOBJ.set, _EXTOBJ.reset

        def run(*args):
            token = set_(_IGNORE)
            try:
                return forward(*args)
            finally:
                reset(token)
    run.__wrapped__ = forward
    return run


def quiet_ops(namespace: dict) -> None:
    """Make every op defined in a module's namespace quiet (see ``quiet``)."""
    from ._ops.registry import OpDef
    for op in namespace.values():
        if isinstance(op, OpDef) and not hasattr(op.forward, "__wrapped__"):
            op.forward = quiet(op.forward)
