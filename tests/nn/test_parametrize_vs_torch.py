"""nn.utils.parametrize, parametrizations.weight_norm/spectral_norm and the legacy weight_norm /
spectral_norm hooks against torch: state_dict keys, reprs, values and gradients with torch's weights."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import raises_exactly

torch = pytest.importorskip("torch")

import leafgrad as lg  # noqa: E402
import leafgrad.nn as nn  # noqa: E402
import leafgrad.nn.utils.parametrize as P  # noqa: E402
import torch.nn.utils.parametrize as TP  # noqa: E402


def _np(t):
    return np.asarray(t.detach().numpy())


def _close(a, b):
    np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12)


def _linear_pair(register_l, register_t, shape=(3, 4)):
    t = torch.nn.Linear(*shape).double()
    m = nn.Linear(*shape).double()
    m.load_state_dict({k: v.detach().numpy().copy() for k, v in t.state_dict().items()})
    register_t(t)
    register_l(m)
    assert list(m.state_dict()) == list(t.state_dict())
    m.load_state_dict({k: v.detach().numpy().copy() for k, v in t.state_dict().items()})
    return m, t


def _forward_backward_same(m, t, shape=(2, 3), params_l=None, params_t=None):
    x = np.random.default_rng(0).standard_normal(shape)
    out_l, out_t = m(lg.tensor(x)), t(torch.tensor(x))
    _close(out_l, out_t)
    (out_l ** 2).sum().backward()
    (out_t ** 2).sum().backward()
    for (n, p), (tn, tp) in zip(m.named_parameters(), t.named_parameters()):
        assert n == tn
        _close(p.grad, tp.grad)


def _removed_same(m, t, what):
    """remove_<what> on both: the same plain parameters, holding the same values."""
    getattr(nn.utils, "remove_" + what)(m)
    getattr(torch.nn.utils, "remove_" + what)(t)
    assert list(m.state_dict()) == list(t.state_dict())
    _close(m.weight, t.weight)


class Symmetric(torch.nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class LSymmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Scale(torch.nn.Module):
    def forward(self, X):
        return 2 * X

    def right_inverse(self, X):
        return X / 2


class LScale(nn.Module):
    def forward(self, X):
        return 2 * X

    def right_inverse(self, X):
        return X / 2


def test_register_chain_and_remove():
    m, t = _linear_pair(lambda m: (P.register_parametrization(m, "weight", LSymmetric()),
                                   P.register_parametrization(m, "weight", LScale())),
                        lambda t: (TP.register_parametrization(t, "weight", Symmetric()),
                                   TP.register_parametrization(t, "weight", Scale())), shape=(3, 3))
    assert type(m).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert repr(m).replace("LSymmetric", "Symmetric").replace("LScale", "Scale") == repr(t)
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias")
    assert P.type_before_parametrizations(m) is nn.Linear
    _forward_backward_same(m, t, shape=(2, 3))
    assert nn.Linear(3, 3).__class__ is nn.Linear and not hasattr(nn.Linear, "weight")  # other instances untouched
    with P.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight
    P.remove_parametrizations(m, "weight")
    TP.remove_parametrizations(t, "weight")
    assert type(m) is nn.Linear and list(m.state_dict()) == list(t.state_dict())
    _close(m.weight, t.weight)


def test_remove_leave_unparametrized():
    m, t = _linear_pair(lambda m: P.register_parametrization(m, "weight", LScale()),
                        lambda t: TP.register_parametrization(t, "weight", Scale()))
    # assignment goes through right_inverse
    w = np.arange(12.0).reshape(4, 3)
    with lg.no_grad():
        m.weight = lg.tensor(w)
    with torch.no_grad():
        t.weight = torch.tensor(w)
    _close(m.parametrizations.weight.original, t.parametrizations.weight.original)
    P.remove_parametrizations(m, "weight", leave_parametrized=False)
    TP.remove_parametrizations(t, "weight", leave_parametrized=False)
    _close(m.weight, t.weight)


def test_parametrize_errors():
    m = nn.Linear(3, 4)

    class Shape(nn.Module):
        def forward(self, X):
            return X[:1]

    class TShape(torch.nn.Module):
        def forward(self, X):
            return X[:1]
    for reg, mod, shape in ((P.register_parametrization, m, Shape()),
                            (TP.register_parametrization, torch.nn.Linear(3, 4), TShape())):
        with raises_exactly(ValueError, match="may not change the shape of the tensor"):
            reg(mod, "weight", shape)
        with raises_exactly(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
            reg(mod, "nope", shape)
    assert type(m) is nn.Linear and "weight" in m._parameters  # the failed call left the module as it was
    with raises_exactly(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(m, "weight")
    with raises_exactly(ValueError, match="does not have a parametrization on weight"):
        TP.remove_parametrizations(torch.nn.Linear(3, 4), "weight")
    P.register_parametrization(m, "weight", LSymmetric(), unsafe=True)
    with raises_exactly(RuntimeError, match="does not implement right_inverse"):
        m.weight = lg.zeros(4, 3)
    with raises_exactly(RuntimeError, match="Serialization of parametrized modules"):
        m.__getstate__()


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_parametrization(dim):
    m, t = _linear_pair(lambda m: nn.utils.parametrizations.weight_norm(m, dim=dim),
                        lambda t: torch.nn.utils.parametrizations.weight_norm(t, dim=dim))
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert repr(m) == repr(t)
    _forward_backward_same(m, t)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_legacy_weight_norm(dim):
    with warnings.catch_warnings(record=True) as wl:
        warnings.simplefilter("always")
        m, t = _linear_pair(lambda m: nn.utils.weight_norm(m, dim=dim), lambda t: torch.nn.utils.weight_norm(t, dim=dim))
    assert [w.category for w in wl] == [FutureWarning, FutureWarning]
    assert list(m.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert m.weight_g.shape == t.weight_g.shape
    _forward_backward_same(m, t)
    with raises_exactly(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        nn.utils.weight_norm(m)
    _removed_same(m, t, "weight_norm")
    with raises_exactly(ValueError, match="weight_norm of 'weight' not found in"):
        nn.utils.remove_weight_norm(m)


def test_spectral_norm_parametrization_with_torchs_vectors():
    m, t = _linear_pair(lambda m: nn.utils.parametrizations.spectral_norm(m),
                        lambda t: torch.nn.utils.parametrizations.spectral_norm(t), shape=(3, 5))
    assert repr(m) == repr(t)
    _forward_backward_same(m, t)  # training mode: one power iteration, then the buffers agree
    _close(m.parametrizations.weight[0]._u, t.parametrizations.weight[0]._u)
    m.eval(), t.eval()
    x = np.ones((1, 3))
    _close(m(lg.tensor(x)), t(torch.tensor(x)))


def test_legacy_spectral_norm_with_torchs_vectors():
    m, t = _linear_pair(lambda m: nn.utils.spectral_norm(m), lambda t: torch.nn.utils.spectral_norm(t), shape=(4, 3))
    for _ in range(2):
        _forward_backward_same(m, t, shape=(2, 4))
    _close(m.weight_u, t.weight_u)
    with raises_exactly(RuntimeError, match="Cannot register two spectral_norm hooks"):
        nn.utils.spectral_norm(m)
    _removed_same(m, t, "spectral_norm")
    with raises_exactly(ValueError, match="spectral_norm of 'weight' not found"):
        nn.utils.remove_spectral_norm(m)
    with raises_exactly(ValueError, match="Expected n_power_iterations to be positive"):
        nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
