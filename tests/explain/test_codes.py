"""Every error and warning code: triggered, checked (type, leading phrase, code), and explained.

Each case is one function written against a module ``m`` (leafgrad, or torch where it is
installed), so the same code checks torch's type and phrase. The explanation must name
the right tensor and quote the right lines of this file: the lines are found by the
``# <tag>`` markers on them.
"""
from __future__ import annotations

import copy
import os
import warnings

import pytest
from differential import raises_exactly

import leafgrad
from leafgrad.errors import CODES, code_of

HERE = os.path.abspath(__file__)
BASENAME = os.path.basename(HERE)
with open(HERE, encoding="utf-8") as _f:
    _SOURCE = _f.read().splitlines()


def line_of(tag: str) -> int:
    hits = [i + 1 for i, line in enumerate(_SOURCE) if line.rstrip().endswith(f"# <{tag}>")]
    assert len(hits) == 1, (tag, hits)
    return hits[0]


# ----------------------------------------------------------------------------- the cases
def c101(m):
    x = m.ones(2, requires_grad=True)
    x.add_(1)  # <101>


def c102(m):
    x = m.ones(2, requires_grad=True)
    x[0] = 5.0  # <102>


def c103(m):
    a = m.tensor([1.0, 2.0], requires_grad=True)
    b = a.exp()  # <103-saved>
    b_view = b.detach()
    b_view[0] = 99.0  # <103-mod>
    b.sum().backward()  # <103-bw>


def c104(m):
    W = m.ones(3, 3, requires_grad=True)
    h = m.zeros(3)
    for _ in range(2):
        h = m.tanh(W @ h + 1)  # <104-h>
        loss = h.sum()
        loss.backward()  # <104-bw>


def c105(m):
    x = m.ones(2, requires_grad=True)
    with m.no_grad():
        y = x * 2  # <105-cut>
    z = y * 3
    z.sum().backward()  # <105-bw>


def c106(m):
    x = m.ones(2, requires_grad=True)
    y = x * 2
    y.backward()  # <106>


def c107(m):
    x = m.ones(2, requires_grad=True)
    y = x * 2
    y.requires_grad = False  # <107>


def c108(m):
    x = m.ones(2, requires_grad=True)
    y = x * 2
    return y.grad  # <108>


def c109(m):
    x = m.ones(2, requires_grad=True)
    y = x * 2
    y.backward(m.ones(3))  # <109>


def c110(m):
    x = m.ones(2, requires_grad=True)
    a, b = (x * 1).unbind()
    a.mul_(2)  # <110>


def c111(m):
    x = m.ones(2, requires_grad=True)
    y = x * 1
    with m.no_grad():
        v = y[0:1]
    v.mul_(2)  # <111>


def c112(m):
    ints = m.tensor([1, 2])
    ints.requires_grad_()  # <112>


def c113(m):
    x = m.ones(2, requires_grad=True)
    x.numpy()  # <113>


def c114(m):
    x = m.ones(2, requires_grad=True)
    unused = m.ones(2, requires_grad=True)
    m.autograd.grad((x * 2).sum(), [x, unused])  # <114>


def c115(m):
    x = m.ones(2, requires_grad=True)
    const = m.ones(2)
    m.autograd.grad((x * 2).sum(), [x, const])  # <115>


def c116(m):
    with m.inference_mode():
        t = m.ones(2)
    t.add_(1)  # <116>


def c117(m):
    x = m.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with m.autograd.detect_anomaly():
            ratio = x / x  # <117-fwd>
            ratio.sum().backward()  # <117-bw>


def c118(m):
    e = m.ones(1).expand(3)
    e.add_(1)  # <118>


def c119(m):
    c = m.ones(2)
    c.retain_grad()  # <119>


def c120(m):
    c = m.ones(2)
    c.register_hook(print)  # <120>


def c121(m):
    x = m.ones(2, requires_grad=True)
    y = x * 2
    y.register_post_accumulate_grad_hook(print)  # <121>


def c122(m):
    x = m.ones(3, requires_grad=True)
    v = x[0:1]
    v.detach_()  # <122>


def c123(m):
    x = m.ones(2, requires_grad=True)
    y = x * 2
    copy.deepcopy(y)  # <123>


def c124(m):
    class Scale(m.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    x = m.ones(2, requires_grad=True)
    out = Scale.apply(x, x)
    out.sum().backward()  # <124>


def c125(m):
    x = m.ones(2, requires_grad=True)
    x.grad = m.ones(3)  # <125>


def c126(m):
    x = m.ones(2, requires_grad=True)
    return m.tensor(x)  # <126>


# code: (case, exception type or Warning, torch's leading phrase, names that must appear, line tags)
CASES = {
    "LG101": (c101, RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation",
              ["`x`"], ["101"]),
    "LG102": (c102, RuntimeError, "a view of a leaf Variable that requires grad is being used in an in-place "
              "operation", ["`x`"], ["102"]),
    "LG103": (c103, RuntimeError, "one of the variables needed for gradient computation has been modified by an "
              "inplace operation", ["`b`", "`b_view`", "ExpBackward0"], ["103-saved", "103-mod", "103-bw"]),
    "LG104": (c104, RuntimeError, "Trying to backward through the graph a second time", ["`loss`", "TanhBackward0"],
              ["104-h", "104-bw"]),
    "LG105": (c105, RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn", [],
              ["105-cut", "105-bw"]),
    "LG106": (c106, RuntimeError, "grad can be implicitly created only for scalar outputs", ["`y`"], ["106"]),
    "LG107": (c107, RuntimeError, "you can only change requires_grad flags of leaf variables", ["`y`"], ["107"]),
    "LG108": (c108, UserWarning, "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed",
              ["`y`"], ["108"]),
    "LG109": (c109, RuntimeError, "Mismatch in shape", ["`y`"], ["109"]),
    "LG110": (c110, RuntimeError, "Output 0 of Unbind is a view and is being modified inplace", ["`a`"],
              ["110"]),
    "LG111": (c111, RuntimeError, "A view was created in no_grad mode and is being modified inplace with grad mode "
              "enabled", ["`v`"], ["111"]),
    "LG112": (c112, RuntimeError, "only Tensors of floating point dtype can require gradients",
              ["`ints`"], ["112"]),
    "LG113": (c113, RuntimeError, "Can't call numpy() on Tensor that requires grad", ["`x`"], ["113"]),
    "LG114": (c114, RuntimeError, "The differentiated Tensor at index 1 appears to not have been used in the graph",
              ["`unused`"], ["114"]),
    "LG115": (c115, RuntimeError, "One of the differentiated Tensors does not require grad", ["`const`"], ["115"]),
    "LG116": (c116, RuntimeError, "Inplace update to inference tensor outside InferenceMode is not allowed",
              ["`t`"], ["116"]),
    "LG117": (c117, RuntimeError, "Function 'DivBackward0' returned nan values in its 1th output",
              ["DivBackward0", "`ratio`"], ["117-fwd", "117-bw"]),
    "LG118": (c118, RuntimeError, "unsupported operation: more than one element of the written-to tensor refers to "
              "a single memory location", ["`e`"], ["118"]),
    "LG119": (c119, RuntimeError, "can't retain_grad on Tensor that has requires_grad=False", ["`c`"], ["119"]),
    "LG120": (c120, RuntimeError, "cannot register a hook on a tensor that doesn't require gradient", ["`c`"],
              ["120"]),
    "LG121": (c121, RuntimeError, "post accumulate grad hooks cannot be registered on non-leaf tensors", ["`y`"],
              ["121"]),
    "LG122": (c122, RuntimeError, "Can't detach views in-place. Use detach() instead", ["`v`", "`x`"], ["122"]),
    "LG123": (c123, RuntimeError, "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
              "protocol at the moment", ["`y`"], ["123"]),
    "LG124": (c124, RuntimeError, "function ScaleBackward returned an incorrect number of gradients (expected 2, "
              "got 1)", ["ScaleBackward", "`out`"], ["124"]),
    "LG125": (c125, RuntimeError, "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'",
              ["`x`"], ["125"]),
    "LG126": (c126, UserWarning, "To copy construct from a tensor, it is recommended to use "
              "sourceTensor.detach().clone()", ["`x`"], ["126"]),
}


def trigger(case, kind, m):
    """Run a case; return the raised error, or the warning (as a WarningMessage) it emitted."""
    if issubclass(kind, Warning):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            case(m)
        hits = [w for w in caught if w.category is kind]  # exactly torch's category, not a subclass
        assert hits, f"no {kind.__name__} from {case.__name__}: {[str(w.message) for w in caught]}"
        return hits[0]
    with pytest.raises(Exception) as info:
        case(m)
    assert type(info.value) is kind, (type(info.value), kind)  # exactly torch's class, not a subclass
    return info.value


def message_of(obj) -> str:
    return str(getattr(obj, "message", obj))


def test_every_code_has_a_case_and_texts():
    assert set(CASES) == set(CODES)
    for code in CODES:
        for lang in ("en", "zh"):
            path = os.path.join(os.path.dirname(leafgrad.__file__), "explain", "texts", lang, f"{code}.md")
            assert os.path.exists(path), path


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("code", sorted(CASES))
def test_code(code, lang):
    case, kind, phrase, names, tags = CASES[code]
    got = trigger(case, kind, leafgrad)
    err = got.message if hasattr(got, "category") else got
    assert message_of(err).startswith(phrase), message_of(err)[:300]
    assert err.code == code and code_of(err) == code
    assert type(err) is kind
    text = leafgrad.explain(got, lang=lang)
    assert text.code == code
    assert text.startswith(f"[{code}]")
    for name in names:
        assert name in text, f"{name} missing from:\n{text}"
    for tag in tags:
        where = f"{BASENAME}:{line_of(tag)}"
        assert where in text, f"{where} missing from:\n{text}"
    # the three parts are there, in the chosen language
    headings = [h for h, _ in text.sections]
    assert headings[-2:] == (["The rule", "Fixes"] if lang == "en" else ["规则", "怎么改"]), headings


@pytest.mark.parametrize("code", sorted(CASES))
def test_torch_agrees_and_its_message_is_recognised(code):
    torch = pytest.importorskip("torch")
    case, kind, phrase, _names, _tags = CASES[code]
    got = trigger(case, kind, torch)
    msg = message_of(got)
    assert msg.startswith(phrase), msg[:300]
    # a PyTorch user pastes torch's own message: it maps to the same explanation
    pasted = f"{'UserWarning' if issubclass(kind, Warning) else type(got).__name__}: {msg}"
    assert leafgrad.explain(pasted).code == code
    assert leafgrad.explain(pasted, lang="zh").code == code


def test_leafgrad_message_with_code_is_recognised():
    for code, (case, kind, *_rest) in CASES.items():
        got = trigger(case, kind, leafgrad)
        assert leafgrad.explain(message_of(got)).code == code


def test_explain_accepts_codes_names_and_unknown_text():
    assert leafgrad.explain("LG103").code == "LG103"
    assert leafgrad.explain("saved-tensor-modified").code == "LG103"
    other = leafgrad.explain("this is not an autograd error")
    assert other.code is None and "leafgrad.explain.codes()" in other
    assert leafgrad.explain("RuntimeError: leaf variable has been moved into the graph interior").code == "LG102"
    assert leafgrad.explain("RuntimeError：叶变量已移动到图形内部", lang="zh").code == "LG102"


def test_explain_last_exception(monkeypatch):
    try:
        c106(leafgrad)
    except RuntimeError as e:
        monkeypatch.setattr("sys.last_value", e, raising=False)
        monkeypatch.setattr("sys.last_exc", e, raising=False)
    assert leafgrad.explain().code == "LG106"


def test_explain_is_callable_module_and_function():
    import importlib
    mod = importlib.import_module("leafgrad.explain")
    assert callable(leafgrad.explain) and callable(mod)
    assert mod("LG101").code == "LG101"
    assert leafgrad.explain_grad is mod.explain_grad
    assert "LG101" in mod.codes()


def test_explanation_markdown_and_facts():
    try:
        c103(leafgrad)
    except RuntimeError as e:
        text = leafgrad.explain(e)
    assert text.facts["version_saved"] == "0" and text.facts["version_now"] == "1"
    assert text._repr_markdown_().startswith("### [LG103]")
    assert "```python" in text.markdown


def test_pasted_torch_message_facts():
    msg = ("RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
           "operation: [torch.FloatTensor [2]], which is output 0 of ExpBackward0, is at version 1; expected "
           "version 0 instead. Hint: enable anomaly detection")
    text = leafgrad.explain(msg)
    assert text.code == "LG103"
    assert "version 1" in text and "ExpBackward0" in text


def test_anomaly_names_forward_line_of_failing_node():
    class Boom(leafgrad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    x = leafgrad.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with leafgrad.autograd.detect_anomaly():
            y = Boom.apply(x)  # <anomaly-fwd>
            with raises_exactly(ValueError) as info:
                y.sum().backward()
    note = "\n".join(getattr(info.value, "__notes__", []) or [str(info.value)])
    assert "Error detected in BoomBackward" in note
    assert f'line {line_of("anomaly-fwd")}' in note
    assert any("Error detected in BoomBackward" in str(w.message) for w in caught)


def test_anomaly_off_no_wrapping():
    x = leafgrad.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (x / x).sum().backward()  # no anomaly mode: NaNs go through silently, as in torch
    assert bool(leafgrad.isnan(x.grad).any())


@pytest.mark.parametrize("code", sorted(CASES))
def test_leafgrad_run_explains_every_code(code, tmp_path, capsys):
    """`leafgrad run` on a script that hits each code: torch's class name on the error line, then the text."""
    from leafgrad import cli
    case, kind, phrase, _names, _tags = CASES[code]
    script = tmp_path / f"case_{code}.py"
    script.write_text("import sys, warnings, torch\n"
                      f"sys.path.insert(0, {os.path.dirname(HERE)!r})\n"
                      "warnings.simplefilter('always')\n"
                      f"from {os.path.splitext(BASENAME)[0]} import {case.__name__}\n"
                      f"{case.__name__}(torch)\n")
    with warnings.catch_warnings(record=True):  # (the recorder is the showwarning `run` wraps)
        rc = cli.main(["run", str(script)])
    _out, err = capsys.readouterr()
    assert f"[{code}]" in err, err[-2000:]
    if issubclass(kind, Warning):
        assert rc == 0
    else:
        assert rc != 0
        assert f"\n{kind.__name__}: {phrase}" in err, err[-2000:]
        assert "leafgrad.errors" not in err
