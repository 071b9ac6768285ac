"""MultiheadAttention: ``num_heads`` scaled dot-product attentions side by side, then one output projection.

The parameter layout is torch's, so checkpoints move between the two: one packed
``in_proj_weight`` (3*E, E) when query, key and value share the embedding size, or
separate ``q/k/v_proj_weight`` when ``kdim`` / ``vdim`` differ; ``out_proj`` is a Linear.
The computation itself is ``F.multi_head_attention_forward``, which works sequence-first,
so ``batch_first`` inputs are transposed on the way in and out.
"""
from __future__ import annotations

from .. import functional as F
from .. import init
from ..parameter import _uninitialized
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


def _swap_batch_and_time(*tensors) -> list:
    """Transpose dims 0 and 1 of each tensor, once per distinct tensor, so ``query is key`` stays true."""
    swapped: dict[int, object] = {}
    for t in tensors:
        if id(t) not in swapped:
            swapped[id(t)] = t.transpose(1, 0)
    return [swapped[id(t)] for t in tensors]


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of size ``embed_dim // num_heads``; returns ``(output, weights or None)``."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim=None, vdim=None,
                 batch_first: bool = False, device=None, dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        if embed_dim % num_heads:
            raise AssertionError(f"embed_dim must be divisible by num_heads (got {embed_dim} and {num_heads}): each "
                                 "head takes an equal slice of the embedding")
        super().__init__()
        new = dict(device=device, dtype=dtype)
        self.embed_dim, self.num_heads, self.head_dim = embed_dim, num_heads, embed_dim // num_heads
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == self.vdim == embed_dim
        self.dropout, self.batch_first, self.add_zero_attn = dropout, batch_first, add_zero_attn
        # registration order fixes the order of named_parameters(), which matches torch's
        packed = self._qkv_same_embed_dim
        if packed:
            self.register_parameter("in_proj_weight", _uninitialized((3 * embed_dim, embed_dim), **new))
        for name, width in (("q_proj_weight", embed_dim), ("k_proj_weight", self.kdim), ("v_proj_weight", self.vdim)):
            self.register_parameter(name, None if packed else _uninitialized((embed_dim, width), **new))
        if not packed:
            self.register_parameter("in_proj_weight", None)
        self.register_parameter("in_proj_bias", _uninitialized((3 * embed_dim,), **new) if bias else None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **new)
        # learned extra key/value rows appended to every sequence (plain None attributes when off, as in torch)
        self.bias_k = _uninitialized((1, 1, embed_dim), **new) if add_bias_kv else None
        self.bias_v = _uninitialized((1, 1, embed_dim), **new) if add_bias_kv else None
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        for weight in (self.in_proj_weight, self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
            if weight is not None:
                init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:  # both biases start at zero
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for extra in (self.bias_k, self.bias_v):
            if extra is not None:
                init.xavier_normal_(extra)

    def forward(self, query, key, value, key_padding_mask=None, need_weights: bool = True, attn_mask=None,
                average_attn_weights: bool = True, is_causal: bool = False):
        """Attend from ``query`` ``(L, N, E)`` to ``key``/``value`` ``(S, N, E)`` (batch first with
        ``batch_first``; unbatched ``(L, E)``/``(S, E)`` too), with ``key_padding_mask`` ``(N, S)`` marking keys
        to ignore and ``attn_mask`` ``(L, S)`` or ``(N * num_heads, L, S)``.

        Returns ``(attn_output, attn_weights)``: output shaped like the query, weights ``(N, L, S)`` averaged
        over heads (``(N, num_heads, L, S)`` with ``average_attn_weights=False``) or ``None`` when
        ``need_weights`` is false. It is ``F.multi_head_attention_forward`` with the module's projections, so
        everything is recorded as ordinary ops: the output's root is ``ViewBackward0`` (``TransposeBackward0``
        batch first), the averaged weights' ``MeanBackward1``; dropout on the weights acts only in training.
        """
        # both masks become float masks of the query's dtype before the heads are split
        key_padding_mask = F._canonical_mask(key_padding_mask, "key_padding_mask",
                                             None if attn_mask is None else attn_mask.dtype, "attn_mask",
                                             query.dtype)
        attn_mask = F._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        transpose = self.batch_first and query.dim() == 3
        if transpose:
            query, key, value = _swap_batch_and_time(query, key, value)
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        return (out.transpose(1, 0) if transpose else out), weights
