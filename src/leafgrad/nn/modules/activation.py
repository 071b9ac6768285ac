"""Activation modules: each one is an ``nn.functional`` op plus the options it is called with.

Keeping an activation as a module (rather than calling the function in ``forward``) is
what lets it sit in a Sequential and show its settings in the model's repr. So every
class here only declares three things: which function it applies, which of its
attributes are passed to that function, and which of them the repr shows.
MultiheadAttention lives in attention.py.
"""
from __future__ import annotations

from ..._ops.pointwise import sigmoid, tanh
from .. import functional as F
from .module import Module, _settings
from .attention import MultiheadAttention  # noqa: F401  (torch.nn.modules.activation.MultiheadAttention)
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: they are strings at run time)
    from ..._tensor import Tensor

__all__ = ["ReLU", "ReLU6", "Hardtanh", "LeakyReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax",
           "ELU", "Softplus", "LogSigmoid", "SELU", "CELU", "Mish", "Softsign", "Hardsigmoid", "Hardswish",
           "Tanhshrink", "Softshrink", "Hardshrink", "Threshold", "GLU", "Softmin"]


class _Activation(Module):
    _function = None  # the op applied, set by each subclass (a staticmethod)
    _shown: tuple[str, ...] = ()  # options always printed in repr; ``inplace`` is printed only when True

    def __init__(self, **options) -> None:
        super().__init__()
        self._options = tuple(options)
        for name, value in options.items():
            setattr(self, name, value)

    def forward(self, input: Tensor) -> Tensor:
        """Apply this activation's ``nn.functional`` op, with the options the module was built with, to an input
        of any shape; the output has the same shape (except GLU, which halves its ``dim``).

        The node recorded is the op's own, e.g. ``ReluBackward0`` for ReLU (also with ``inplace=True``, which
        overwrites the input and bumps its version counter, so not on a leaf that requires grad),
        ``GeluBackward0`` for GELU, ``SigmoidBackward0`` for Sigmoid; see the function's docstring for what
        it saves.
        """
        options = self._options
        if not options:  # (Sigmoid, Tanh, ...: no options, no dict built for them)
            return self._function(input)
        return self._function(input, **{name: getattr(self, name) for name in options})

    def extra_repr(self) -> str:
        shown = {name: getattr(self, name) for name in self._shown}
        if getattr(self, "inplace", False):
            shown["inplace"] = True
        return _settings(**{name: repr(v) if isinstance(v, str) else v for name, v in shown.items()})


class _InplaceOption(_Activation):
    """An activation whose one option is ``inplace`` (overwrite the input, saving memory; not on a leaf)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(inplace=inplace)

    def forward(self, input: Tensor) -> Tensor:
        # (_Activation.forward's call with its one option passed by name, without the dict the general form
        # builds: about 4 k instructions less a call of ReLU, the commonest module)
        return self._function(input, inplace=self.inplace)

    forward.__doc__ = _Activation.forward.__doc__


class ReLU(_InplaceOption):
    """``max(0, x)``. With ``inplace=True`` it overwrites its input, saving memory (not allowed on a leaf)."""

    _function = staticmethod(F.relu)


class Hardtanh(_Activation):
    """``x`` clipped to ``[min_val, max_val]``: a cheap, piecewise-linear tanh."""

    _function = staticmethod(F.hardtanh)
    _shown = ("min_val", "max_val")

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        if max_val <= min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val}), otherwise every "
                                 "output would be the same constant")
        super().__init__(min_val=min_val, max_val=max_val, inplace=inplace)


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)``: a ReLU whose output stays small (common in mobile networks)."""

    _shown = ()

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)


class LeakyReLU(_Activation):
    """``x`` for positive inputs, ``negative_slope * x`` otherwise, so units below zero still get gradient."""

    _function = staticmethod(F.leaky_relu)
    _shown = ("negative_slope",)

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__(negative_slope=negative_slope, inplace=inplace)


class GELU(_Activation):
    """``x * Phi(x)``; ``approximate='tanh'`` uses the tanh formula some pretrained models were trained with."""

    _function = staticmethod(F.gelu)
    _shown = ("approximate",)

    def __init__(self, approximate: str = "none") -> None:
        super().__init__(approximate=approximate)


class SiLU(_InplaceOption):
    """``x * sigmoid(x)`` (also called swish)."""

    _function = staticmethod(F.silu)


class _AlphaOption(_Activation):
    """ELU and CELU: an ``alpha`` (the scale of the negative side, always shown) and ``inplace``."""

    _shown = ("alpha",)

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(alpha=alpha, inplace=inplace)


class ELU(_AlphaOption):
    """``x`` for positive inputs, ``alpha * (exp(x) - 1)`` otherwise: smooth, with negative outputs."""

    _function = staticmethod(F.elu)


class Softplus(_Activation):
    """``log(1 + exp(beta * x)) / beta``, a smooth ReLU; linear above ``threshold`` to avoid overflow."""

    _function = staticmethod(F.softplus)
    _shown = ("beta", "threshold")

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__(beta=beta, threshold=threshold)


class Softmax(_Activation):
    """Exponentiate and normalise along ``dim`` so the values there sum to 1."""

    _function = staticmethod(F.softmax)
    _shown = ("dim",)

    def __init__(self, dim=None) -> None:
        super().__init__(dim=dim)


class LogSoftmax(_Activation):
    """``log(softmax(x))`` along ``dim``, computed without the underflow of taking the log afterwards."""

    _function = staticmethod(F.log_softmax)
    _shown = ("dim",)

    def __init__(self, dim=None) -> None:
        super().__init__(dim=dim)


class Tanh(_Activation):
    """``tanh(x)`` elementwise: squashes to (-1, 1); records ``TanhBackward0``, which saves the result."""
    _function = staticmethod(tanh)


class Sigmoid(_Activation):
    """``1 / (1 + exp(-x))`` elementwise: squashes to (0, 1); records ``SigmoidBackward0``, which saves the result."""
    _function = staticmethod(sigmoid)


class LogSigmoid(_Activation):
    """``log(sigmoid(x))``, stable for large negative inputs."""

    _function = staticmethod(F.logsigmoid)


class SELU(_InplaceOption):
    """``scale * elu(x, alpha)`` with constants that keep activations near zero mean and unit variance."""

    _function = staticmethod(F.selu)


class CELU(_AlphaOption):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``: an ELU whose slope is continuous at 0."""

    _function = staticmethod(F.celu)


class Mish(_InplaceOption):
    """``x * tanh(softplus(x))``: smooth and non-monotonic, like SiLU."""

    _function = staticmethod(F.mish)


class Softsign(_Activation):
    """``x / (1 + |x|)``: a tanh-like squashing with polynomial, not exponential, tails."""

    _function = staticmethod(F.softsign)


class _HardGate(_InplaceOption):
    """Hardsigmoid and Hardswish: an ``inplace`` option that torch's repr never shows."""

    def extra_repr(self) -> str:
        return ""


class Hardsigmoid(_HardGate):
    """``clamp(x / 6 + 1/2, 0, 1)``: a cheap, piecewise-linear sigmoid."""

    _function = staticmethod(F.hardsigmoid)


class Hardswish(_HardGate):
    """``x * hardsigmoid(x)``: a cheap swish (MobileNetV3)."""

    _function = staticmethod(F.hardswish)


class Tanhshrink(_Activation):
    """``x - tanh(x)``."""

    _function = staticmethod(F.tanhshrink)


class _Shrink(_Activation):
    """Softshrink and Hardshrink: one ``lambd``, shown bare in the repr as torch shows it."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__(lambd=lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Softshrink(_Shrink):
    """Shrink towards zero by ``lambd`` (soft thresholding, as in sparse coding)."""

    _function = staticmethod(F.softshrink)


class Hardshrink(_Shrink):
    """Zero inside ``[-lambd, lambd]``, ``x`` outside (hard thresholding)."""

    _function = staticmethod(F.hardshrink)


class Threshold(_Activation):
    """``value`` where ``x <= threshold``, ``x`` elsewhere."""

    _function = staticmethod(F.threshold)
    _shown = ("threshold", "value")

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__(threshold=threshold, value=value, inplace=inplace)


class GLU(_Activation):
    """The gated linear unit: the first half of ``dim`` times the sigmoid of the second."""

    _function = staticmethod(F.glu)
    _shown = ("dim",)

    def __init__(self, dim: int = -1) -> None:
        super().__init__(dim=dim)


class Softmin(_Activation):
    """``softmax(-x)`` along ``dim``: the smallest values get the largest weights."""

    _function = staticmethod(F.softmin)
    _shown = ("dim",)

    def __init__(self, dim=None) -> None:
        super().__init__(dim=dim)

    def forward(self, input: Tensor) -> Tensor:
        """``F.softmin`` along the module's ``dim`` (same shape out); the root is ``SoftmaxBackward0`` of the
        negated input, under which ``NegBackward0`` sits."""
        return F.softmin(input, self.dim, _stacklevel=5)
