"""The suite must catch what it claims to: rules on how the tests themselves are written."""
from __future__ import annotations

import glob
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = {p: open(p, encoding="utf-8").read() for p in glob.glob(os.path.join(HERE, "**", "*.py"), recursive=True)
           if os.path.abspath(p) != os.path.abspath(__file__)}


def test_our_own_modules_are_never_importorskipped():
    """A broken import of leafgrad's own modules must fail the suite, not skip it."""
    bad = [p for p, s in SOURCES.items() if re.search(r"importorskip\(\s*['\"]leafgrad", s)]
    assert not bad, bad


def test_builtin_exceptions_are_checked_exactly():
    """``pytest.raises(RuntimeError)`` also passes for any subclass: torch raises the class itself."""
    rx = re.compile(r"pytest\.raises\(\s*(RuntimeError|TypeError|ValueError|IndexError)\b")
    bad = [(os.path.relpath(p, HERE), m.group(0)) for p, s in SOURCES.items() for m in rx.finditer(s)]
    assert not bad, f"use differential.raises_exactly: {bad}"
