"""What ``sparse=True`` means for ``F.embedding`` / ``F.embedding_bag`` (and their modules) here.

torch returns the weight's gradient as a sparse COO tensor then. leafgrad has no sparse layout, so
the gradient is the dense tensor of the same values (zero rows where no index looked up), which
every optimizer takes as a dense gradient: where torch's Adam, AdamW or RMSprop refuse a sparse
gradient, leafgrad's run. The first such call of each function says so once (a UserWarning);
``scale_grad_by_freq=True`` with ``sparse=True`` is refused at backward time, as torch does.
"""
from __future__ import annotations

import warnings

_WARNED: set = set()


def warn_dense_gradient(name: str) -> None:
    """The one-time warning for ``name(sparse=True)``."""
    if name in _WARNED:
        return
    _WARNED.add(name)
    warnings.warn(f"{name}(sparse=True): leafgrad has no sparse tensors, so the weight's gradient is a dense "
                  "tensor with the values of torch's sparse COO gradient (zero rows where no index looked up); "
                  "optimizers take it as a dense gradient (torch's Adam, AdamW and RMSprop would refuse a sparse "
                  "one). Pass sparse=False to silence this warning.", UserWarning, stacklevel=3)
