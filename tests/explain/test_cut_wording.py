"""LG105 after the chain was cut by .item(), .tolist() or a NumPy round trip says so; a pasted
message, which carries no records, does not claim that no cut was recorded."""
from collections import deque

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad
from leafgrad import provenance


@pytest.fixture(autouse=True)
def fresh_escapes(monkeypatch):
    monkeypatch.setattr(provenance, "_ESCAPES", deque(maxlen=1))


def _explain(make, lang="en"):
    with raises_exactly(RuntimeError) as info:
        make().backward()
    return info.value, str(leafgrad.explain(info.value, lang=lang))


def _one_line(text):
    return " ".join(text.split())


@pytest.mark.parametrize("how,words", [
    (lambda w: leafgrad.tensor((w * 2).sum().item()), "`.item()` turned a tensor on the chain into a Python number"),
    (lambda w: leafgrad.tensor(w.tolist()).sum(), "`.tolist()` turned a tensor on the chain into Python numbers"),
    (lambda w: leafgrad.tensor(np.exp(w.detach().numpy())).sum(), "`.numpy()` took the values out of autograd"),
], ids=["item", "tolist", "numpy"])
def test_a_cut_through_python_or_numpy_is_named(how, words):
    w = leafgrad.ones(3, requires_grad=True)
    _, text = _explain(lambda: how(w) * 3)
    text = _one_line(text)
    assert "values last left autograd at" in text and words in text
    assert "test_cut_wording.py" in text
    assert "create the leaves (the weights) with `requires_grad=True`" not in text


def test_nothing_requiring_grad_keeps_the_requires_grad_advice():
    _, text = _explain(lambda: leafgrad.ones(3).sum())
    assert "No cut was recorded on the way to it" in _one_line(text)


def test_a_pasted_message_does_not_claim_there_was_no_cut():
    w = leafgrad.ones(3, requires_grad=True)
    err, _ = _explain(lambda: leafgrad.tensor(w.sum().item()) * 2)
    for lang, says in (("en", "A pasted message carries no record"), ("zh", "粘贴的消息里没有切断点的记录")):
        text = _one_line(str(leafgrad.explain(str(err), lang=lang)))
        assert says in text
        assert "No cut was recorded" not in text and "没有记录到切断点，所以" not in text


def test_the_chinese_text_names_the_cut_too():
    w = leafgrad.ones(3, requires_grad=True)
    _, text = _explain(lambda: leafgrad.tensor(w.sum().item()) * 2, lang="zh")
    assert "数值最后一次离开自动求导" in text and "Python 数字" in text
