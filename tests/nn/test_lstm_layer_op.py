"""A float32 nn.LSTM records one node per layer and direction, torch's ``MkldnnRnnLayerBackward0``
(``_ops/lstm_layer.py``): values, gradients (of every input, weight and initial state, through any
subset of the outputs), second-order gradients, the recorded graph and the saved values, against torch."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from differential import raises_exactly

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # nn_testutil, under any --import-mode

import leafgrad as lg  # noqa: E402

CONFIGS = [{}, {"num_layers": 1}, {"bidirectional": True}, {"batch_first": True}, {"bias": False},
           {"bidirectional": True, "batch_first": True, "num_layers": 3}]


def _pair(**kwargs):
    opts = {"num_layers": 2, **kwargs}
    t = torch.nn.LSTM(5, 8, **opts)
    m = lg.nn.LSTM(5, 8, **opts)
    m.load_state_dict({k: lg.tensor(v.detach().numpy().copy()) for k, v in t.state_dict().items()})
    return m, t


def _names(fn, depth=5):
    """grad_fn names along the first non-leaf edge."""
    out = []
    while fn is not None and len(out) < depth:
        out.append(fn.name())
        nxt = [f for f, _ in fn.next_functions if f is not None and "AccumulateGrad" not in f.name()]
        fn = nxt[0] if nxt else None
    return out


def _run(lib, mod, arrays, objective, with_state):
    x = lib.tensor(arrays[0], requires_grad=True)
    state = tuple(lib.tensor(a, requires_grad=True) for a in arrays[1:]) if with_state else ()
    out, (h, c) = mod(x, state) if with_state else mod(x)
    loss = objective(out, h, c)
    wrt = [x, *state, *mod.parameters()]
    grads = lib.autograd.grad(loss, wrt, allow_unused=True)
    values = [out, h, c] + [g if g is not None else lib.zeros(1) for g in grads]
    return [v.detach().numpy() for v in values], (_names(out.grad_fn), _names(h.grad_fn), _names(c.grad_fn))


OBJECTIVES = {"all": lambda o, h, c: (o * o).sum() + (h ** 3).sum() + c.sum(),
              "output": lambda o, h, c: (o ** 3).sum(), "h_n": lambda o, h, c: (h * h).sum(),
              "c_n": lambda o, h, c: (c ** 3).sum()}


@pytest.mark.parametrize("objective", list(OBJECTIVES))
@pytest.mark.parametrize("opts", CONFIGS, ids=str)
def test_values_gradients_and_graph_vs_torch(opts, objective):
    m, t = _pair(**opts)
    rng = np.random.default_rng(0)
    d = (2 if opts.get("bidirectional") else 1) * opts.get("num_layers", 2)
    shape = (3, 6, 5) if opts.get("batch_first") else (6, 3, 5)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in (shape, (d, 3, 8), (d, 3, 8))]
    for with_state in (False, True):
        ours, our_graph = _run(lg, m, arrays, OBJECTIVES[objective], with_state)
        theirs, their_graph = _run(torch, t, arrays, OBJECTIVES[objective], with_state)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        if not with_state:  # (a given state reaches torch's node through SelectBackward0, leafgrad's through unbind)
            assert our_graph == their_graph
    assert "MkldnnRnnLayerBackward0" in our_graph[0]


def test_unbatched_input_and_eval_mode_with_dropout():
    m, t = _pair(dropout=0.5)
    m.eval(), t.eval()
    x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    ours, our_graph = _run(lg, m, [x], OBJECTIVES["all"], False)
    theirs, their_graph = _run(torch, t, [x], OBJECTIVES["all"], False)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    assert our_graph == their_graph


def test_second_order_gradients_vs_torch():
    m, t = _pair(num_layers=1, bidirectional=True)
    x = np.random.default_rng(2).standard_normal((4, 2, 5)).astype(np.float32)
    both = []
    for lib, mod in ((lg, m), (torch, t)):
        xt = lib.tensor(x, requires_grad=True)
        out, (h, c) = mod(xt)
        wrt = [xt, *mod.parameters()]
        grads = lib.autograd.grad((out ** 3).sum() + (c * c).sum(), wrt, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), wrt)
        both.append([g.detach().numpy() for g in grads + second])
    for a, b in zip(*both):
        np.testing.assert_allclose(a, b, rtol=2e-3, atol=1e-4)


def test_saved_values_as_torch():
    m, t = _pair(bidirectional=True, bias=False)
    x = np.random.default_rng(3).standard_normal((6, 2, 5)).astype(np.float32)
    nodes = []
    for lib, mod in ((lg, m), (torch, t)):
        out, (h, c) = mod(lib.tensor(x))
        nodes.append((out.grad_fn.next_functions[1][0], h, c))  # the last layer's reverse direction
    (ours, h, c), (theirs, _, _) = nodes
    names = sorted(n for n in dir(theirs) if n.startswith("_saved_"))
    assert sorted(n for n in dir(ours) if n.startswith("_saved_") and n != "_saved_names") == names
    for name in names:
        a, b = getattr(ours, name), getattr(theirs, name)
        if name == "_saved_result3":  # (the workspace: each library's own layout)
            continue
        if isinstance(b, torch.Tensor):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
        else:
            assert a == b, name
    np.testing.assert_array_equal(ours._saved_result1.numpy(), h[3].detach().numpy())
    np.testing.assert_array_equal(ours._saved_result2.numpy(), c[3].detach().numpy())


def test_float64_and_projection_keep_the_per_step_cells():
    x = lg.randn(3, 2, 5, dtype=lg.float64)
    out, _ = lg.nn.LSTM(5, 8).double()(x)
    assert out.grad_fn.name() == "StackBackward0"
    out, _ = lg.nn.LSTM(5, 8, proj_size=3)(lg.randn(3, 2, 5))
    assert out.grad_fn.name() == "StackBackward0"


def test_backward_twice_and_in_place_changes_raise_as_torch():
    m = lg.nn.LSTM(5, 8)
    x = lg.randn(3, 2, 5, requires_grad=True)
    out, _ = m(x)
    out.sum().backward()
    with raises_exactly(RuntimeError, match="backward through the graph a second time"):
        out.sum().backward()
    out, _ = m(x)
    with lg.no_grad():
        m.weight_hh_l0.mul_(2)
    with raises_exactly(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
