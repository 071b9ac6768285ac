"""Every autograd error and warning leafgrad raises, each with a stable code.

The first words of each message are the phrase PyTorch prints, so a search for the
torch error still finds it; the rest is ours: which tensor, which op, which line, and
what to change. ``leafgrad.explain(err)`` turns the code and the recorded details into
a longer explanation (English or Simplified Chinese) kept as data files.

The errors are instances of exactly torch's classes (``type(err) is RuntimeError``), the
warnings of exactly torch's categories (``UserWarning``): the code and details are
attributes of the instance. There is no leafgrad exception class: ``except RuntimeError``
is how torch code catches these, and ``code_of(err)`` tells whether one is leafgrad's.
"""
from __future__ import annotations

import os
import sys

from ._notebook import is_cache_name
import warnings

__all__ = ["code_of", "user_site", "raise_autograd", "warn_autograd", "CODES"]

# code -> short name, used by explain() and the docs.
CODES = {
    "LG101": "leaf-inplace",
    "LG102": "view-of-leaf-inplace",
    "LG103": "saved-tensor-modified",
    "LG104": "backward-twice",
    "LG105": "no-grad-fn",
    "LG106": "non-scalar-backward",
    "LG107": "requires-grad-non-leaf",
    "LG108": "non-leaf-grad-access",
    "LG109": "gradient-shape-mismatch",
    "LG110": "multi-output-view-inplace",
    "LG111": "no-grad-view-inplace",
    "LG112": "requires-grad-non-float",
    "LG113": "numpy-requires-grad",
    "LG114": "unused-input",
    "LG115": "input-not-requiring-grad",
    "LG116": "inference-tensor-inplace",
    "LG117": "nan-in-backward",
    "LG118": "inplace-overlap",
    "LG119": "retain-grad-no-grad",
    "LG120": "hook-no-grad",
    "LG121": "post-accumulate-hook-non-leaf",
    "LG122": "detach-view-inplace",
    "LG123": "deepcopy-non-leaf",
    "LG124": "function-backward-returns",
    "LG125": "grad-assign-mismatch",
    "LG126": "tensor-copy-construct",
}


def code_of(err) -> str | None:
    """The leafgrad code an error or warning instance carries, or None for anyone else's."""
    code = getattr(err, "code", None)
    return code if isinstance(code, str) and code in CODES else None


def _tag(exc: BaseException, code: str, details: dict):
    # Built-in exception and warning instances take attributes: the code and the recorded
    # details ride on an instance of torch's own class, so ``type(err) is RuntimeError``
    # holds and ``except RuntimeError`` / ``simplefilter("error", UserWarning)`` behave as on torch.
    exc.code = code
    exc.details = details
    return exc


def raise_autograd(code: str, message: str, cls: type = RuntimeError, **details):
    """Raise ``cls`` (torch's class, RuntimeError unless said) carrying ``code`` and ``details``."""
    if "raised_at" not in details:
        details["raised_at"] = user_site(2)  # provenance for explain(): the user's line
    raise _tag(cls(f"{message}\n[leafgrad {code}] leafgrad.explain(err) explains this error."), code, details)


def warn_autograd(code: str, message: str, stacklevel: int = 3, category: type = UserWarning, **details) -> None:
    """Warn with torch's ``category`` (UserWarning unless said), the instance carrying ``code`` and ``details``."""
    if "raised_at" not in details:
        details["raised_at"] = user_site(2)
    t = details.get("tensor")
    if t is not None and "names" not in details:
        # a warning has no traceback to read the user's variables from later: name the tensor now
        try:
            f = sys._getframe(1)
            while f is not None and is_internal(f.f_code.co_filename):
                f = f.f_back
            if f is not None:
                details["names"] = {n: v for n, v in f.f_locals.items() if v is t and not is_cache_name(n)}
        except Exception:
            pass
    warnings.warn(_tag(category(message), code, details), stacklevel=stacklevel)


_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


_STDLIB = os.path.dirname(os.path.abspath(os.__file__)) + os.sep  # where copy.py, runpy.py, ... live


def is_internal(fn: str) -> bool:
    """A frame that is not the user's: leafgrad itself or the standard library (copy, runpy, functools)."""
    return fn.startswith(_PKG_DIR) or fn.startswith("<frozen") or (
        fn.startswith(_STDLIB) and "-packages" + os.sep not in fn)


def user_site(skip: int = 2) -> tuple[str, int] | None:
    """(file, line) of the nearest caller outside leafgrad (and the stdlib): cheap, no traceback object."""
    try:
        f = sys._getframe(skip)
    except ValueError:
        return None
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(_PKG_DIR) and not is_internal(fn):
            return fn, f.f_lineno
        f = f.f_back
    return None


def format_site(site: tuple[str, int] | None) -> str:
    if not site:
        return "an unknown line"
    fn, line = site
    text = ""
    try:
        import linecache
        text = linecache.getline(fn, line).strip()
    except Exception:
        pass
    return f'{fn}:{line}' + (f'  ->  {text}' if text else "")
