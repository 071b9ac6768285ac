"""Three torch.nn names that, on a CPU-only build, come down to something simple, as in torch:

* ``Container``: the deprecated ancestor of Module (keyword arguments become child modules);
* ``DataParallel``: with no CUDA device it keeps ``device_ids`` empty and calls the wrapped
  module directly (what torch does without GPUs); its state_dict keys carry ``module.``;
* ``SyncBatchNorm``: BatchNorm over any (N, C, *) input that would synchronise statistics across
  processes only for GPU inputs in an initialised process group; otherwise it is plain batch norm,
  and with a group initialised it raises torch's ValueError for a CPU input.
"""
from __future__ import annotations

import warnings

from .. import functional as F
from .module import Module
from .normalization import _BatchNorm
from .normalization_extra import _InstanceNorm

__all__ = ["Container", "DataParallel", "SyncBatchNorm"]


class Container(Module):
    """Deprecated: a Module whose keyword arguments are added as child modules."""

    def __init__(self, **kwargs) -> None:
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                      "Subclass that instead.", FutureWarning, stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class DataParallel(Module):
    """Single-process data parallelism over CUDA devices; without any (this build), a transparent wrapper."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        from ... import cuda
        self.module = module
        self.device_ids = []
        if cuda.is_available():  # (leafgrad has no CUDA backend: never true here)
            raise RuntimeError("DataParallel over CUDA devices is not available in leafgrad: wrap the model in "
                               "nothing, or use DistributedDataParallel")

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class SyncBatchNorm(_BatchNorm):
    """Batch norm whose statistics a multi-GPU job shares across processes; on CPU, BatchNorm."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        factor = self._update_factor()
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_buffers = not self.training or self.track_running_stats
        running_mean = self.running_mean if use_buffers else None
        running_var = self.running_var if use_buffers else None
        from ... import distributed
        if bn_training and self.training and distributed.is_available() and distributed.is_initialized():
            raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone: leafgrad "
                             "tensors live on the CPU, so use BatchNorm (or convert back) in a CPU process group")
        return F.batch_norm(input, running_mean, running_var, self.weight, self.bias, bn_training, factor, self.eps)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """Every BatchNorm*d layer in ``module`` replaced by a SyncBatchNorm sharing its parameters and
        buffers (a BatchNorm given itself comes back as a new SyncBatchNorm)."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
