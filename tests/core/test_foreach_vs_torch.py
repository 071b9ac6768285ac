"""leafgrad._foreach_* (the list ops of optimizers' foreach paths) against torch and against the
per-tensor methods: values (bit-identical to the methods), version counters, torch's refusals."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5,), ()]


def _arrays(seed, dtype="float32"):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) + 2).astype(dtype) for s in SHAPES]


CASES = {
    "add_scalar": lambda lib, a, b, c: lib._foreach_add_(a, 0.5),
    "add_list_alpha": lambda lib, a, b, c: lib._foreach_add_(a, b, alpha=-0.3),
    "add_scalars": lambda lib, a, b, c: lib._foreach_add_(a, [1.0, 2.0, 3.0]),
    "mul_scalar": lambda lib, a, b, c: lib._foreach_mul_(a, 0.9),
    "mul_list": lambda lib, a, b, c: lib._foreach_mul_(a, b),
    "div_scalars": lambda lib, a, b, c: lib._foreach_div_(a, [3.0, 0.7, 1.5]),
    "lerp_small": lambda lib, a, b, c: lib._foreach_lerp_(a, b, 0.1),
    "lerp_large": lambda lib, a, b, c: lib._foreach_lerp_(a, b, 0.9),
    "addcmul": lambda lib, a, b, c: lib._foreach_addcmul_(a, b, c, 0.001),
    "addcmul_one": lambda lib, a, b, c: lib._foreach_addcmul_(a, b, c),
    "addcdiv_scalars": lambda lib, a, b, c: lib._foreach_addcdiv_(a, b, c, [-0.1, 0.2, 1.0]),
}

METHODS = {
    "add_scalar": lambda a, b, c, i: a.add_(0.5), "add_list_alpha": lambda a, b, c, i: a.add_(b, alpha=-0.3),
    "add_scalars": lambda a, b, c, i: a.add_(float(i + 1)), "mul_scalar": lambda a, b, c, i: a.mul_(0.9),
    "mul_list": lambda a, b, c, i: a.mul_(b), "div_scalars": lambda a, b, c, i: a.div_([3.0, 0.7, 1.5][i]),
    "lerp_small": lambda a, b, c, i: a.lerp_(b, 0.1), "lerp_large": lambda a, b, c, i: a.lerp_(b, 0.9),
    "addcmul": lambda a, b, c, i: a.addcmul_(b, c, value=0.001), "addcmul_one": lambda a, b, c, i: a.addcmul_(b, c),
    "addcdiv_scalars": lambda a, b, c, i: a.addcdiv_(b, c, value=[-0.1, 0.2, 1.0][i]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(CASES))
def test_in_place_list_ops_vs_torch_and_the_methods(case, dtype):
    arrays = [_arrays(k, dtype) for k in range(3)]
    results = {}
    for lib in (lg, torch):
        a, b, c = ([lib.tensor(x.copy()) for x in group] for group in arrays)
        before = [t._version for t in a]
        written = CASES[case](lib, a, b, c)
        assert len(written) == len(a) and all(w is t for w, t in zip(written, a))
        assert [t._version for t in a] == [v + 1 for v in before]
        results[lib] = [t.numpy() for t in a]
    a, b, c = ([lg.tensor(x.copy()) for x in group] for group in arrays)
    for i, (x, y, z) in enumerate(zip(a, b, c)):
        METHODS[case](x, y, z, i)
    for ours, theirs, method in zip(results[lg], results[torch], a):
        np.testing.assert_array_equal(ours, method.numpy())  # (the same arithmetic as the methods)
        np.testing.assert_allclose(ours, theirs, rtol=1e-6 if dtype == "float32" else 1e-14)


def test_sqrt_returns_new_tensors():
    arrays = _arrays(0)
    ours = lg._foreach_sqrt([lg.tensor(x) for x in arrays])
    theirs = torch._foreach_sqrt([torch.tensor(x) for x in arrays])
    for o, t, x in zip(ours, theirs, arrays):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-6)
        assert not np.shares_memory(o.numpy(), x)


def test_a_saved_tensor_changed_by_a_list_op_is_caught():
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    w = lg.tensor([3.0, 4.0])
    y = (x * w).sum()  # (saves w)
    lg._foreach_mul_([w], 2.0)
    with raises_exactly(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_grad_mode_rules_and_slow_forms_go_through_the_methods():
    with raises_exactly(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        lg._foreach_mul_([lg.ones(2, requires_grad=True)], 2.0)
    with lg.no_grad():
        p = lg.ones(2, requires_grad=True)
        lg._foreach_add_([p], [lg.tensor(2.0, dtype=lg.float64)])  # (another dtype: the method's promotion)
        assert p.dtype is lg.float32 and p.tolist() == [3.0, 3.0]
    ints = [lg.tensor([1, 2])]
    lg._foreach_mul_(ints, 3)  # (an integer tensor: through the method)
    assert ints[0].tolist() == [3, 6]


def test_refusals_as_torch():
    for lib in (lg, torch):
        with raises_exactly(RuntimeError, match="Tensor list must have at least one tensor"):
            lib._foreach_mul_([], 2.0)
        with raises_exactly(RuntimeError, match="Tensor list must have same number of elements as scalar list"):
            lib._foreach_mul_([lib.ones(2)], [1.0, 2.0])
        with raises_exactly(RuntimeError, match="Tensor lists must have the same number of tensors, got 1 and 2"):
            lib._foreach_add_([lib.ones(2)], [lib.ones(2), lib.ones(2)])


@pytest.mark.parametrize("opts", [{"weight_decay": 0.0}, {"weight_decay": 0.1}, {"lr": 0.05, "betas": (0.8, 0.9)}],
                         ids=str)
@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
def test_adam_foreach_path_is_the_per_parameter_path_and_torchs(cls, opts):
    rng = np.random.default_rng(5)
    weights = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    finals = {}
    for lib, foreach in ((lg, None), (lg, False), (torch, None)):
        params = [lib.tensor(w.copy(), requires_grad=True) for w in weights]
        opt = getattr(lib.optim, cls)(params, foreach=foreach, **opts)
        for _ in range(4):
            loss = sum(((p * p) * (k + 1)).sum() + p.sum() for k, p in enumerate(params))
            opt.zero_grad()
            loss.backward()
            opt.step()
        steps = [opt.state[p]["step"].item() for p in params]
        finals[(lib, foreach)] = ([p.detach().numpy() for p in params], steps)
    (batched, steps_b), (single, steps_s), (theirs, steps_t) = finals.values()
    assert steps_b == steps_s == steps_t == [4.0] * 3
    for b, s, t in zip(batched, single, theirs):
        np.testing.assert_array_equal(b, s)
        np.testing.assert_allclose(b, t, rtol=1e-5, atol=1e-6)
