"""Lazy modules: layers that learn their input size from the first batch.

``nn.LazyLinear(out_features)`` starts with placeholder weights (``UninitializedParameter``,
``leafgrad/nn/_uninitialized.py``). Its first call runs a forward pre-hook that reads the input's
size, materialises the weights, initialises them as the non-lazy layer would, removes the hook and
turns the module, in place, into that layer (``type(m) is nn.Linear`` afterwards), as torch's
``LazyModuleMixin`` does. A state_dict saves placeholders as they are, and loading real values
into a lazy module materialises its placeholders first (the class changes at the first forward).
LazyConv3d / LazyConvTranspose3d / LazyBatchNorm3d exist when their non-lazy layer does.
"""
from __future__ import annotations

from ... import _dtype as D
from ..._creation import tensor
from .._uninitialized import UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d
from .linear import Linear
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d
from .normalization_extra import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """Shape inference on the first forward; a subclass says how in ``initialize_parameters(input)``."""

    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer of this module (not its children) is still a placeholder."""
        return any(is_lazy(v) for v in (*self._parameters.values(), *self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs) -> None:
        """Give the placeholder parameters their shapes from the first input; each lazy module defines it."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    @staticmethod
    def _infer_parameters(module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        # a placeholder is saved as itself (detach() is one of the methods it refuses)
        for name, value in self._parameters.items():
            if value is not None:
                destination[prefix + name] = value if (is_lazy(value) or keep_vars) else value.detach()
        for name, value in self._buffers.items():
            if value is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = value if (is_lazy(value) or keep_vars) else value.detach()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        # real values loaded into placeholders: materialise them at the checkpoint's shapes first
        from ...autograd.grad_mode import no_grad
        for name, value in (*self._parameters.items(), *self._buffers.items()):
            key = prefix + name
            if value is not None and key in state_dict and is_lazy(value) and not is_lazy(state_dict[key]):
                with no_grad():
                    value.materialize(state_dict[key].shape)
        if any(is_lazy(v) for v in state_dict.values()):
            state_dict = {k: v for k, v in state_dict.items() if not is_lazy(v)}  # placeholders: nothing to copy
            missing_keys_before = len(missing_keys)
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs)
            del missing_keys[missing_keys_before:]
            return
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


def _placeholders(module: Module, names, factory: dict) -> None:
    for name in names:
        setattr(module, name, UninitializedParameter(**factory))


# =============================================================================== Linear
class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose ``in_features`` is the last dim of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        factory = {"device": device, "dtype": dtype}
        self.weight = UninitializedParameter(**factory)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**factory)

    def reset_parameters(self) -> None:
        """Re-initialise the parameters as the non-lazy module does; does nothing while they are still placeholders."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        """Materialise the placeholder parameters from the first input's shape, then initialise them as the non-lazy module does (called by the first forward)."""
        if self.has_uninitialized_params():
            from ...autograd.grad_mode import no_grad
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # materialised by load_state_dict: take the size from the weight
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


# =============================================================================== convolutions
class _LazyConvXdMixin(LazyModuleMixin):
    _transposed = False

    def _lazy_init(self, out_channels: int, bias: bool, device, dtype) -> None:
        factory = {"device": device, "dtype": dtype}
        self.weight = UninitializedParameter(**factory)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory)

    def reset_parameters(self) -> None:
        """Re-initialise the parameters as the non-lazy module does; does nothing while they are still placeholders."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _get_in_channels(self, input) -> int:
        n = self._spatial_dims
        if input.dim() not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == n + 2 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        """Materialise the placeholder parameters from the first input's channels, then initialise them as the non-lazy module does (called by the first forward)."""
        if not self.has_uninitialized_params():
            return
        from ...autograd.grad_mode import no_grad
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        with no_grad():
            if self._transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy_conv(name: str, base: type, doc: str) -> type:
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        base.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)
        self._lazy_init(out_channels, bias, device, dtype)

    return type(name, (_LazyConvXdMixin, base), {"__init__": __init__, "cls_to_become": base, "__doc__": doc,
                                                   "__module__": __name__})


def _lazy_conv_transpose(name: str, base: type, doc: str) -> type:
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        base.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                      padding_mode)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)
        self._lazy_init(out_channels, bias, device, dtype)

    return type(name, (_LazyConvXdMixin, base), {"__init__": __init__, "cls_to_become": base, "__doc__": doc,
                                                   "_transposed": True, "__module__": __name__})


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d, "Conv1d whose in_channels is read from the first input.")
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d, "Conv2d whose in_channels is read from the first input.")
LazyConvTranspose1d = _lazy_conv_transpose("LazyConvTranspose1d", ConvTranspose1d,
                                           "ConvTranspose1d whose in_channels is read from the first input.")
LazyConvTranspose2d = _lazy_conv_transpose("LazyConvTranspose2d", ConvTranspose2d,
                                           "ConvTranspose2d whose in_channels is read from the first input.")


# =============================================================================== norms
class _LazyNormBase(LazyModuleMixin):
    """The shared lazy batch/instance norm: affine and running statistics on by default, as torch's."""

    def _lazy_init(self, affine: bool, track_running_stats: bool, bias: bool, device, dtype) -> None:
        factory = {"device": device, "dtype": dtype}
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(**factory)
            if bias:
                self.bias = UninitializedParameter(**factory)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**factory)
            self.running_var = UninitializedBuffer(**factory)
            self.num_batches_tracked = tensor(0, dtype=D.int64)

    def reset_parameters(self) -> None:
        """Re-initialise the parameters as the non-lazy module does; does nothing while they are still placeholders."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        """Materialise the placeholder parameters from the first input's shape, then initialise them as the non-lazy module does (called by the first forward)."""
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        for name in ("weight", "bias", "running_mean", "running_var"):
            value = getattr(self, name)
            if value is not None:
                value.materialize((self.num_features,))
        self.reset_parameters()


def _lazy_norm(name: str, base: type, doc: str) -> type:
    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        base.__init__(self, 0, eps, momentum, False, False, device, dtype, bias=False)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)
        self._lazy_init(affine, track_running_stats, bias, device, dtype)

    return type(name, (_LazyNormBase, base), {"__init__": __init__, "cls_to_become": base, "__doc__": doc,
                                                "__module__": __name__})


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", BatchNorm1d, "BatchNorm1d whose num_features is the first input's "
                             "dim 1.")
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", BatchNorm2d, "BatchNorm2d whose num_features is the first input's "
                             "dim 1.")
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", InstanceNorm1d, "InstanceNorm1d whose num_features is the "
                                "first input's dim 1.")
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", InstanceNorm2d, "InstanceNorm2d whose num_features is the "
                                "first input's dim 1.")
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", InstanceNorm3d, "InstanceNorm3d whose num_features is the "
                                "first input's dim 1.")

# the 3-d layers (nn/modules/layers3d.py) come from another branch: their lazy forms exist where they do
try:
    from . import layers3d as _layers3d
except ImportError:
    _layers3d = None
for _lazy_name, _base_name, _make in (("LazyConv3d", "Conv3d", _lazy_conv),
                                      ("LazyConvTranspose3d", "ConvTranspose3d", _lazy_conv_transpose),
                                      ("LazyBatchNorm3d", "BatchNorm3d", _lazy_norm)):
    _base = getattr(_layers3d, _base_name, None)
    if _base is not None:
        globals()[_lazy_name] = _make(_lazy_name, _base, f"{_base_name} whose input size is read from the first "
                                                         "input.")
        __all__.append(_lazy_name)
