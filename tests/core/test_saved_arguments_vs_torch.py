"""Tensor arguments an op saves for backward (an index, a mask, a condition, a target) follow
torch's rules for saved tensors, compared with torch itself:

* an in-place change to one after the forward makes backward raise RuntimeError;
* reading ``grad_fn._saved_<name>`` after the graph is freed raises RuntimeError;
* the values torch shows for them (nll_loss's target, self and total_weight; every loss's
  reduction as at::Reduction's number) are the same;
* batch_norm's update of the running statistics does not bump their version.
"""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

X = np.array([[0.1, -0.2, 0.3], [0.3, 0.1, -0.2]])


def _lib_cases(m):
    """name -> (build(x) -> (output, saved argument), torch's saved attribute)."""
    F = m.nn.functional
    return {
        "where": (lambda x: (lambda c: (m.where(c, x * 1, x * 2), c))(m.tensor([[True, False, True]] * 2)),
                  "_saved_condition"),
        "masked_fill": (lambda x: (lambda c: ((x * 1).masked_fill(c, 0.0), c))(m.tensor([[True, False, False]] * 2)),
                        "_saved_mask"),
        "gather": (lambda x: (lambda i: ((x * 1).gather(1, i), i))(m.tensor([[0], [2]])), "_saved_index"),
        "index_select": (lambda x: (lambda i: ((x * 1).index_select(1, i), i))(m.tensor([2, 0])), "_saved_index"),
        "scatter_src": (lambda x: (lambda i: (m.zeros(2, 3, dtype=m.float64).scatter(1, i, x * 1), i))(
            m.tensor([[0, 1, 2], [2, 1, 0]])), "_saved_index"),
        "nll_loss": (lambda x: (lambda t: (F.nll_loss(x * 1, t), t))(m.tensor([0, 2])), "_saved_target"),
        # the op's input itself (torch keeps it, though only its shape is read)
        "gather_self": (lambda x: (lambda y: (y.gather(1, m.tensor([[0], [2]])), y))(x * 1), "_saved_self"),
        "masked_select_self": (lambda x: (lambda y: (y.masked_select(m.tensor([[True, False, True]] * 2)), y))(x * 1),
                               "_saved_self"),
    }


CASES = sorted(_lib_cases(torch))


def _run(m, case, action):
    build, attr = _lib_cases(m)[case]
    x = m.tensor(X.copy(), requires_grad=True)
    out, arg = build(x)
    if action == "modify":
        arg.copy_(arg.clone())
        try:
            out.sum().backward()
        except RuntimeError as e:
            return RuntimeError, str(e)
        return None, None
    out.sum().backward()
    try:
        getattr(out.grad_fn, attr)
    except RuntimeError as e:
        return RuntimeError, str(e)
    return None, None


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("action", ["modify", "read_after_backward"])
def test_saved_argument_rules_match_torch(case, action):
    t_exc, t_msg = _run(torch, case, action)
    l_exc, l_msg = _run(lg, case, action)
    assert t_exc is RuntimeError, f"torch did not raise for {case}/{action}"
    assert l_exc is RuntimeError, f"leafgrad did not raise RuntimeError for {case}/{action}"
    opening = t_msg.split(":")[0] if action == "modify" else t_msg.split("(")[0]
    assert l_msg.startswith(opening.strip())


@pytest.mark.parametrize("case", CASES)
def test_saved_argument_is_the_callers_tensor(case):
    for m in (torch, lg):
        build, attr = _lib_cases(m)[case]
        out, arg = build(m.tensor(X.copy(), requires_grad=True))
        assert getattr(out.grad_fn, attr) is arg, m.__name__


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("target", [[0, 2, 1], [0, -100, 2], [-100, -100, -100]])
def test_nll_saved_values_match_torch(reduction, weighted, target):
    x = np.random.default_rng(0).standard_normal((3, 4))
    got = {}
    for m in (torch, lg):
        xt = m.tensor(x.copy(), requires_grad=True)
        w = m.tensor([1.0, 2.0, 3.0, 4.0], dtype=m.float64) if weighted else None
        t = m.tensor(target)
        fn = m.nn.functional.nll_loss(xt, t, weight=w, reduction=reduction).grad_fn
        tw = fn._saved_total_weight
        got[m] = (type(fn).__name__, fn._saved_self is xt, fn._saved_target is t, fn._saved_reduction,
                  fn._saved_ignore_index, tw.item(), str(tw.dtype).split(".")[-1], tw.requires_grad, tw.dim())
    assert got[lg] == got[torch]


@pytest.mark.parametrize("shape", [(4,), (2, 4, 3), (2, 4, 2, 2)])
def test_nll_total_weight_other_ranks_match_torch(shape):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape)
    t = rng.integers(0, 4, size=shape[:1] + shape[2:] if len(shape) > 1 else ())
    vals = []
    for m in (torch, lg):
        fn = m.nn.functional.nll_loss(m.tensor(x, requires_grad=True), m.tensor(t)).grad_fn
        vals.append((type(fn).__name__, fn._saved_total_weight.item()))
    assert vals[0] == vals[1]


def test_nll_double_backward_reaches_the_input_as_torch():
    """torch's nll_loss_backward takes the input as an input: a gradient of the gradient
    exists (zeros) even when nothing else in the graph depends on the input."""
    got = {}
    for m in (torch, lg):
        x = m.tensor(X.copy(), requires_grad=True)
        (g,) = m.autograd.grad(m.nn.functional.nll_loss(x, m.tensor([0, 2])), x, create_graph=True)
        edges = [type(fn).__name__ if fn is not None else None for fn, _ in g.grad_fn.next_functions]
        (gg,) = m.autograd.grad((g * g).sum(), x)
        got[m] = (type(g.grad_fn).__name__, edges, gg.tolist(),
                  sorted(a for a in dir(g.grad_fn) if a.startswith("_saved_") and a != "_saved_names"))
    assert got[lg] == got[torch]


@pytest.mark.parametrize("make", [
    lambda m, x, t: m.nn.functional.mse_loss(x, t, reduction="sum"),
    lambda m, x, t: m.nn.functional.smooth_l1_loss(x, t),
    lambda m, x, t: m.nn.functional.huber_loss(x, t, reduction="none"),
    lambda m, x, t: m.nn.functional.binary_cross_entropy(x.sigmoid(), t.sigmoid(), reduction="sum"),
    lambda m, x, t: m.nn.functional.binary_cross_entropy_with_logits(x, t.sigmoid()),
])
def test_saved_reduction_is_torchs_number(make):
    x = np.linspace(-1, 1, 6)
    shown = [make(m, m.tensor(x, requires_grad=True), m.tensor(x[::-1].copy())).grad_fn._saved_reduction
             for m in (torch, lg)]
    assert shown[0] == shown[1]


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_running_stats_keep_their_version(training):
    got = {}
    for m in (torch, lg):
        x = m.tensor(np.random.default_rng(2).standard_normal((4, 3)), requires_grad=True)
        rm, rv = m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64)
        y = m.nn.functional.batch_norm(x * 1, rm, rv, training=training)
        versions = (rm._version, rv._version)
        rm.add_(1)
        try:
            y.sum().backward()
            raised = False
        except RuntimeError:
            raised = True
        got[m] = (versions, raised)
    assert got[lg] == got[torch]
