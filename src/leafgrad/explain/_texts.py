"""Reading the explanation texts (``texts/<lang>/<CODE>.md``) and filling them in.

A text file looks like this::

    # LG101 · A leaf that requires grad was changed in place
    <!-- match: ^a leaf Variable that requires grad is being used in an in-place operation -->

    ## What happened
    - `{op}` wrote into {tensor} at {raised_at}.
    - {!tensor}A leaf tensor was written in place.

    ## The rule
    ...

    ## Fixes
    ...

Placeholders: ``{name}`` is a fact (the line is dropped when the fact is unknown),
``{name|default}`` falls back to ``default``, a line holding ``{!name}`` is kept only
when ``name`` is unknown (so a line can have an alternative), and one holding
``{?name}`` only when it is known (without printing it). ``match:``
comments hold regular expressions (named groups become facts) that recognise the
error's message, leafgrad's or PyTorch's.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

__all__ = ["Text", "load", "available", "fill", "LANGS"]

LANGS = ("en", "zh")
_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "texts")
_CACHE: dict = {}
_MATCH = re.compile(r"<!--\s*match:\s*(.*?)\s*-->")
_PH = re.compile(r"\{([!?]?)([a-z_][a-z0-9_]*)(?:\|([^{}]*))?\}")


@dataclass
class Text:
    key: str
    lang: str
    title: str
    sections: list = field(default_factory=list)   # [(heading, [lines])]
    match: list = field(default_factory=list)      # compiled regexes


def _path(key: str, lang: str) -> str:
    return os.path.join(_DIR, lang, f"{key}.md")


def available(lang: str = "en") -> list:
    d = os.path.join(_DIR, lang)
    try:
        return sorted(f[:-3] for f in os.listdir(d) if f.endswith(".md"))
    except FileNotFoundError:
        return []


def load(key: str, lang: str = "en") -> Text | None:
    ck = (key, lang)
    if ck in _CACHE:
        return _CACHE[ck]
    path = _path(key, lang)
    if not os.path.exists(path):
        _CACHE[ck] = None
        return None
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    text = parse(raw, key, lang)
    _CACHE[ck] = text
    return text


def parse(raw: str, key: str = "", lang: str = "en") -> Text:
    title = key
    sections: list = []
    match = []
    cur = None
    in_code = False
    for line in raw.splitlines():
        m = _MATCH.search(line)
        if m and not in_code:
            match.append(re.compile(m.group(1), re.S | re.I | re.M))
            continue
        if line.startswith("```"):
            in_code = not in_code
        if not in_code and line.startswith("# ") and not sections and cur is None:
            title = line[2:].strip()
            if "·" in title:
                title = title.split("·", 1)[1].strip()
            continue
        if not in_code and line.startswith("## "):
            cur = (line[3:].strip(), [])
            sections.append(cur)
            continue
        if cur is not None:
            cur[1].append(line)
    for _, lines in sections:
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
    return Text(key, lang, title, sections, match)


def fill(line: str, facts: dict) -> str | None:
    """The line with its placeholders filled, or None when it must be dropped."""
    if "{" not in line:
        return line
    keep = True

    def sub(m):
        nonlocal keep
        neg, name, default = m.group(1), m.group(2), m.group(3)
        val = facts.get(name)
        if neg == "!":
            if val not in (None, ""):
                keep = False
            return ""
        if neg == "?":
            if val in (None, ""):
                keep = False
            return ""
        if val in (None, ""):
            if default is not None:
                return default
            keep = False
            return ""
        return str(val)

    out = _PH.sub(sub, line)
    return out if keep else None
