"""Jupyter/IPython: the names and file names a kernel adds that must not reach an explanation.

IPython keeps the last outputs in ``_``, ``__``, ``___``, ``_N`` and ``Out``, and the inputs in
``_i``, ``_iN`` and ``In``: a tensor displayed in a cell is found under those names before the
user's own. Each cell runs from a temporary file (``/tmp/ipykernel_123/456.py``); the user
knows it as ``In [3]``.
"""
from __future__ import annotations

import re
import sys

_CACHE = re.compile(r"^(?:_{1,3}|_\d+|_i{1,3}|_i\d+|_oh|_ih|_dh|In|Out)$")
_INPUT = re.compile(r"^<ipython-input-(\d+)-[0-9a-f]+>$")
_KERNEL_FILE = re.compile(r"ipykernel_\d+[/\\]\d+\.py$")


def is_cache_name(name: str) -> bool:
    """True for IPython's output and input cache names (never the user's name for a tensor)."""
    return bool(_CACHE.match(name))


def cell_label(filename: str) -> str | None:
    """``"In [3]"`` for the file a notebook cell ran from (``"a notebook cell"`` when its number
    cannot be read), None for an ordinary file."""
    m = _INPUT.match(filename)
    if m:
        return f"In [{m.group(1)}]"
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    number = getattr(getattr(shell, "compile", None), "_filename_map", {}).get(filename)
    if number is not None:
        return f"In [{number}]"
    return "a notebook cell" if _KERNEL_FILE.search(filename) else None
