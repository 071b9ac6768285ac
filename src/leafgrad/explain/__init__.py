"""leafgrad.explain: every autograd error and warning, explained in English or Simplified Chinese.

    import leafgrad as torch
    try:
        loss.backward()
    except RuntimeError as err:
        print(torch.explain(err))              # what happened, the rule, the fixes
        print(torch.explain(err, lang="zh"))   # 中文
    print(torch.explain("one of the variables needed for gradient computation has been modified ..."))
    print(torch.explain_grad(w, loss))         # why is w.grad None (or zero)?

The words live in data files, one per code and language: ``texts/en/LG103.md``,
``texts/zh/LG103.md``; the facts (which tensor, which op, which line of your code)
come from the error's ``details`` and from the provenance records leafgrad keeps.

``leafgrad.explain`` is this module, and it is callable: ``leafgrad.explain(err)`` is
``leafgrad.explain.explain(err)``.
"""
from __future__ import annotations

import sys
import types

from ._core import Explanation, explain, explain_grad, facts_of, match_message
from ._texts import LANGS, available

__all__ = ["explain", "explain_grad", "Explanation", "match_message", "facts_of", "available", "codes", "LANGS"]


def codes() -> dict:
    """{code: short name} of every error and warning leafgrad explains."""
    from ..errors import CODES
    return dict(CODES)


class _CallableModule(types.ModuleType):
    """``leafgrad.explain`` is both this package and the function: calling it explains."""

    def __call__(self, error=None, lang: str = "en"):
        return explain(error, lang=lang)


sys.modules[__name__].__class__ = _CallableModule
