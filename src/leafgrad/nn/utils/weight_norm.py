"""Weight normalisation, ``w = g * v / ||v||``: the legacy hook form ``nn.utils.weight_norm``.

The legacy form replaces parameter ``weight`` by ``weight_g`` (the norms) and ``weight_v`` (the direction)
and recomputes ``module.weight`` before every forward through a forward pre-hook; torch deprecates it in
favour of ``nn.utils.parametrizations.weight_norm`` (which shares the arithmetic below).
"""
from __future__ import annotations

import warnings

from leafgrad import Tensor

from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dim but ``dim``, shaped to broadcast against ``v``; ``dim=-1``
    means over all dims (a 0-d result), as torch's ``norm_except_dim``."""
    if dim == -1:
        return v.norm(pow)
    dims = [d for d in range(v.dim()) if d != dim]
    return v.norm(pow, dim=dims, keepdim=True) if dims else v.abs()  # one element per slice: its |value|


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    name: str
    dim: int

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module) -> Tensor:
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name: str, dim: int) -> "WeightNorm":
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name: str = "weight", dim: int = 0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (norms over every dim but ``dim``; ``None``: whole)."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name: str = "weight"):
    """Fold ``<name>_g`` and ``<name>_v`` back into one plain parameter ``<name>``."""
    return _remove_hook(module, WeightNorm, name, "weight_norm")


def _remove_hook(module, hook_class: type, name: str, what: str):
    """Undo the legacy reparametrization hook of ``hook_class`` on ``name`` (weight_norm, spectral_norm)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, hook_class) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")
