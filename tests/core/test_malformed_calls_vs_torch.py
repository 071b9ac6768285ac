"""Malformed calls (tests/core/malformed_calls.py) raise exactly torch's class, with torch's opening
words, and change nothing: every call on torch and on leafgrad, compared."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import error_class, opening
from malformed_calls import ACCEPTED, CALLS, SETUP_CHANGES, inputs, unpack

import leafgrad


def outcome(fn, m):
    """("ok", None) or ("raise", exact class, message), with warnings silenced."""
    s = inputs(m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(m, s)
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return ("raise", error_class(e), str(e)), s
    return ("ok", None), s


def snapshot(s) -> dict:
    """Everything a failed call must leave as it was, for each input tensor."""
    out = {}
    for name, t in vars(s).items():
        g = t.grad if t.is_leaf else None
        out[name] = (t.detach().numpy().tobytes(), str(t.dtype), tuple(t.shape), t._version, t.requires_grad,
                     None if g is None else g.detach().numpy().tobytes())
    return out


def compare(name):
    """(matches: bool, class_matches: bool, torch outcome, leafgrad outcome)."""
    import torch
    fn, phrase = unpack(CALLS[name] if name in CALLS else ACCEPTED[name])
    t, _ = outcome(fn, torch)
    lg, _ = outcome(fn, leafgrad)
    if t[0] == "ok" or lg[0] == "ok":
        return t[0] == lg[0], t[0] == lg[0], t, lg
    same_class = t[1] == lg[1]
    words = phrase if phrase is not None else opening(t[2])
    return same_class and lg[2].startswith(words) and words in t[2], same_class, t, lg


@pytest.mark.parametrize("name", sorted(CALLS))
def test_malformed_call_raises_as_torch(torch, name):
    ok, _, t, lg = compare(name)
    assert t[0] == "raise", f"torch accepts {name}: the table holds malformed calls only"
    assert ok, f"\ntorch:    {t[1]}: {t[2][:300]}\nleafgrad: {lg[1:2]}: {str(lg[-1])[:300]}"


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_call_torch_accepts_is_accepted(torch, name):
    fn, _ = unpack(ACCEPTED[name])
    (t, ts), (lg, ls) = outcome(fn, torch), outcome(fn, leafgrad)
    assert t[0] == "ok" and lg == t, (t, lg)
    for k in vars(ts):  # and leaves the inputs as torch leaves them
        assert np.array_equal(getattr(ls, k).detach().numpy(), getattr(ts, k).detach().numpy()), k


@pytest.mark.parametrize("name", sorted(set(CALLS) - SETUP_CHANGES))
def test_failed_call_changes_nothing(name):
    fn, _ = unpack(CALLS[name])
    s = inputs(leafgrad)
    before = snapshot(s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception):
            fn(leafgrad, s)
    assert snapshot(s) == before


def test_the_state_check_can_fail():
    """snapshot() sees a half-done change (a value, a version, a .grad)."""
    s = inputs(leafgrad)
    before = snapshot(s)
    s.x.view(-1)[0] = 7.0
    assert snapshot(s) != before
    s = inputs(leafgrad)
    before = snapshot(s)
    s.xg.grad = leafgrad.ones(2, 3)
    assert snapshot(s) != before


def test_table_size():
    assert len(CALLS) >= 200


if __name__ == "__main__":  # a report: python tests/core/test_malformed_calls_vs_torch.py
    import sys
    rows = [(n, *compare(n)) for n in sorted(CALLS)]
    for n, ok, cls_ok, t, lg in rows:
        if not ok or "-v" in sys.argv:
            print(f"{'ok ' if ok else ('MSG' if cls_ok else 'CLS')} {n}\n    torch: {t[1:2]} {str(t[-1])[:160]!r}"
                  f"\n    lg:    {lg[1:2]} {str(lg[-1])[:160]!r}")
    rows += [(n, *compare(n)) for n in sorted(ACCEPTED)]
    print(f"{len(rows)} calls; class matches {sum(r[2] for r in rows)}; class and words match {sum(r[1] for r in rows)}")
    np.seterr(all="ignore")
