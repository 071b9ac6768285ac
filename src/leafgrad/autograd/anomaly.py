"""Anomaly mode: remember where each node was created, and stop at the first NaN in backward."""
from __future__ import annotations

import traceback

from .grad_mode import ANOMALY_USED, STATE, _DecoratorContextManager

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled() -> bool:
    return STATE.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    return STATE.anomaly_check_nan


class detect_anomaly(_DecoratorContextManager):
    """Context manager / decorator: record forward tracebacks; raise on NaN in backward."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan

    def __enter__(self) -> None:
        self._prev = (STATE.anomaly, STATE.anomaly_check_nan)
        STATE.anomaly = ANOMALY_USED[0] = True
        STATE.anomaly_check_nan = self.check_nan

    def __exit__(self, *exc) -> None:
        STATE.anomaly, STATE.anomaly_check_nan = self._prev

    def clone(self):
        return detect_anomaly(self.check_nan)


class set_detect_anomaly(_DecoratorContextManager):
    """Switches anomaly mode immediately; also usable as a context manager that restores it."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = (STATE.anomaly, STATE.anomaly_check_nan)
        self.mode, self.check_nan = bool(mode), check_nan
        STATE.anomaly = self.mode
        if self.mode:
            ANOMALY_USED[0] = True
        STATE.anomaly_check_nan = check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        STATE.anomaly, STATE.anomaly_check_nan = self._prev

    def clone(self):
        return set_detect_anomaly(self.mode, self.check_nan)


def record_forward_trace(node) -> None:
    """Keep the user's part of the forward stack on the node (only in anomaly mode)."""
    from ..errors import _PKG_DIR
    stack = [fs for fs in traceback.extract_stack()[:-1] if not fs.filename.startswith(_PKG_DIR)]
    node.metadata["traceback_"] = traceback.format_list(stack)


def apply_traced(fn, grads):
    """``fn.apply`` in anomaly mode: a failure names the forward call that created ``fn``; NaNs stop here."""
    try:
        outputs = fn.apply(grads)
    except Exception as exc:
        _annotate(exc, fn)
        raise
    check_outputs(fn, outputs)
    return outputs


def _annotate(exc: BaseException, fn) -> None:
    if getattr(exc, "_leafgrad_anomaly_noted", False):
        return  # raised by a nested node already annotated
    trace = forward_trace(fn)
    site = getattr(fn, "_site", None)
    if not trace and site is not None:  # provenance still knows the line
        import linecache
        trace = f'  File "{site[0]}", line {site[1]}\n    {linecache.getline(site[0], site[1]).strip()}\n'
    text = (f"Error detected in {fn.name()}. Traceback of forward call that caused the error:\n"
            + (trace or "  (not recorded: the node was created outside anomaly mode)\n"))
    import warnings
    from ..errors import user_site
    where = user_site(2)
    if where is not None:
        warnings.warn_explicit(text, UserWarning, where[0], where[1])
    else:
        warnings.warn(text, UserWarning, stacklevel=3)
    details = getattr(exc, "details", None)
    if isinstance(details, dict):
        details.setdefault("node", fn)
        details["anomaly_node"] = fn
        details["forward_trace"] = trace
        if site is not None:
            details.setdefault("forward_site", site)
    try:
        exc._leafgrad_anomaly_noted = True
    except Exception:
        pass
    if hasattr(exc, "add_note"):
        exc.add_note(text.rstrip("\n"))
    elif exc.args and isinstance(exc.args[0], str):
        exc.args = (exc.args[0] + "\n\n" + text,) + exc.args[1:]


def forward_trace(node) -> str:
    if node is None or node._extra is None:
        return ""
    return "".join(node._extra.get("metadata", {}).get("traceback_", []))


def check_outputs(fn, outputs) -> None:
    if not STATE.anomaly_check_nan:
        return
    import numpy as np
    from ..errors import raise_autograd
    for i, g in enumerate(outputs):
        if g is not None and g._data.dtype.kind in "fc" and np.isnan(g._data).any():
            trace = forward_trace(fn)
            raise_autograd(
                "LG117",
                f"Function '{fn.name()}' returned nan values in its {i}th output. The forward call that created "
                f"this node:\n{trace or '  (not recorded: the node was created outside anomaly mode)'}",
                node=fn, index=i, forward_site=getattr(fn, "_site", None), forward_trace=trace)
