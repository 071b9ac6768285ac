"""Embedding: a learned table of ``num_embeddings`` vectors, looked up by integer index.

It is the layer form of ``weight[indices]``; the extra options change only the
gradient (``padding_idx``, ``scale_grad_by_freq``) or renormalise looked-up rows in
place (``max_norm``).
"""
from __future__ import annotations

from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, _uninitialized
from .module import Module, _changed, _settings, parameter_of
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: they are strings at run time)
    from ..._tensor import Tensor

__all__ = ["Embedding"]


def _resolve_padding_idx(padding_idx, num_embeddings: int):
    """``padding_idx`` as a row number in ``[0, num_embeddings)`` (negative counts from the end), or None."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError(f"Padding_idx must be within num_embeddings: got padding_idx={padding_idx} for a table "
                             f"of {num_embeddings} rows")
    return padding_idx % num_embeddings


class Embedding(Module):
    """``Embedding(n, d)(idx)`` gives the rows ``idx`` of an (n, d) weight.

    The ``padding_idx`` row starts at zero and never receives gradient, so the index
    used to pad sequences keeps an all-zero vector.

    ``sparse=True``: torch's weight gradient is then a sparse COO tensor; leafgrad has no sparse
    layout, so it is the dense tensor of the same values (zero rows where no index looked up), and
    optimizers that refuse sparse gradients in torch (Adam, AdamW, RMSprop) take it. The first use
    warns once; see ``nn/_sparse_grad.py``.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx=None, max_norm=None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False, _weight=None,
                 _freeze: bool = False, device=None, dtype=None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = _resolve_padding_idx(padding_idx, num_embeddings)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is not None:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError(f"Shape of weight does not match num_embeddings and embedding_dim: expected "
                                     f"({num_embeddings}, {embedding_dim}), got {tuple(_weight.shape)}")
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        else:
            self.weight = _uninitialized((num_embeddings, embedding_dim), device, dtype, requires_grad=not _freeze)
            self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw the embedding table from N(0, 1) and zero the ``padding_idx`` row, torch's default."""
        init.normal_(self.weight)  # N(0, 1), torch's default for embeddings
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is None:
            return
        with no_grad():
            self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        """Look up the rows of the weight named by an integer ``input`` of any shape ``(*)``, giving
        ``(*, embedding_dim)``.

        This is ``F.embedding`` with the module's options: ``max_norm`` renormalises the looked-up rows of the
        weight in place first (outside autograd). The result records ``EmbeddingBackward0``, which saves the
        indices and scatters the gradient into the weight's rows (none into ``padding_idx``'s row; scaled by
        inverse frequency with ``scale_grad_by_freq``); the indices get no gradient.
        """
        return F.embedding(input, parameter_of(self, "weight"), self.padding_idx, self.max_norm,  # (parameter_of:
                           self.norm_type, self.scale_grad_by_freq, self.sparse)  # see there)

    def extra_repr(self) -> str:
        # the options appear only when they differ from their defaults
        return _settings(self.num_embeddings, self.embedding_dim,
                         **_changed(self, padding_idx=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                                    sparse=False))

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx=None, max_norm=None, norm_type: float = 2.0,
                        scale_grad_by_freq: bool = False, sparse: bool = False) -> "Embedding":
        """An Embedding whose table is ``embeddings`` (2-d); frozen (not trained) unless ``freeze=False``."""
        if embeddings.dim() != 2:
            raise AssertionError(f"Embeddings parameter is expected to be 2-dimensional, got shape "
                                 f"{tuple(embeddings.shape)}")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse, _weight=embeddings,
                   _freeze=freeze)
