"""Sphinx configuration for leafgrad's API reference (built by .ci/run with warnings as errors).

The pages come from the docstrings: autodoc imports leafgrad, so the methods bound from the
op table at import time are documented with the rest. ``_generated/`` is written here at each
build from what leafgrad exports, so a new top-level function appears without editing a page.
"""
import inspect
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))

import leafgrad  # noqa: E402

project = "leafgrad"
release = leafgrad.__leafgrad_version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]  # (napoleon: the "Args:" sections)
autodoc_default_options = {"members": True, "undoc-members": True}
autodoc_typehints = "none"  # (signatures as written; leafgrad's annotations name internal modules)
autodoc_inherit_docstrings = False
suppress_warnings = ["autodoc.duplicate_object"]  # aliases (clip/clamp) are one function under two names
exclude_patterns = ["_build"]
html_theme = "alabaster"


def _write_top_level() -> None:
    names = sorted(n for n in dir(leafgrad) if not n.startswith("_") and inspect.isfunction(getattr(leafgrad, n)))
    lines = ["Top-level functions", "===================", "", ".. currentmodule:: leafgrad", ""]
    lines += [f".. autofunction:: {n}" for n in names]
    out = HERE / "_generated"
    out.mkdir(exist_ok=True)
    text = "\n".join(lines) + "\n"
    path = out / "top_level.rst"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


_write_top_level()
