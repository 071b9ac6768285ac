"""The Transformer family of "Attention Is All You Need": encoder/decoder layers, their stacks, the full model.

Each layer is composed of leafgrad's own MultiheadAttention, Linear, LayerNorm and Dropout with torch's
attribute names (``self_attn``, ``linear1``, ``norm1`` ...) so state_dicts load in either library.
torch's eval-mode fast paths compute the same function (to float rounding) with one visible difference that
is reproduced here: a ``TransformerEncoder`` that would pack its input into a nested tensor returns zeros at
the padded positions (before its final ``norm``), because those positions are never computed there.
"""
from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import leafgrad

from .. import functional as F
from ..init import xavier_uniform_
from .activation import GELU, ReLU
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


def _generate_square_subsequent_mask(sz: int, device=None, dtype=None):
    """(sz, sz) float mask: 0 on and below the diagonal, -inf above, so position i never sees j > i."""
    return leafgrad.triu(leafgrad.full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src, batch_first: bool) -> int:
    if src.dim() == 2:  # unbatched: (seq, feature)
        return src.size(0)
    return src.size(1 if batch_first else 0)


def _detect_is_causal_mask(mask, is_causal=None, size=None) -> bool:
    """``is_causal=None`` means "look": a mask equal to the square subsequent mask counts as causal."""
    if is_causal is not None or mask is None:
        return is_causal is True
    sz = size if size is not None else mask.size(-2)
    causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
    return tuple(mask.shape) == tuple(causal.shape) and bool((mask == causal).all())


def _get_activation_fn(activation: str) -> Callable:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _get_clones(module: Module, n: int) -> ModuleList:
    # independent deep copies: every layer starts from the same weights, as in torch
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _canonical_padding_and_mask(padding, pad_name: str, mask, mask_name: str, dtype):
    """Both masks as float masks of ``dtype``; the padding mask's kind must match the attention mask's."""
    padding = F._canonical_mask(padding, pad_name, None if mask is None else mask.dtype, mask_name, dtype)
    mask = F._canonical_mask(mask, mask_name, None, "", dtype, check_other=False)
    return padding, mask


def _add_feedforward_and_norms(layer: Module, blocks: int, d_model: int, dim_feedforward: int, dropout: float,
                               eps: float, norm_first: bool, bias: bool, new: dict) -> None:
    """The feed-forward block and one LayerNorm and Dropout per residual block, registered in torch's order
    (which is the order of ``state_dict()``)."""
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, **new)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, **new)
    layer.norm_first = norm_first
    for i in range(1, blocks + 1):
        setattr(layer, f"norm{i}", LayerNorm(d_model, eps=eps, bias=bias, **new))
    for i in range(1, blocks + 1):
        setattr(layer, f"dropout{i}", Dropout(dropout))


class TransformerEncoderLayer(Module):
    """Self-attention then a two-layer feed-forward block, each with a residual and a LayerNorm
    (after the residual, or before the block when ``norm_first``)."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        new = dict(device=device, dtype=dtype)
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **new)
        _add_feedforward_and_norms(self, 2, d_model, dim_feedforward, dropout, layer_norm_eps, norm_first, bias, new)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        # torch records which of its two fused activations this is (it decides the fast paths)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        if not hasattr(self, "activation"):  # pickles from before the activation was configurable
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal: bool = False):
        """One encoder block over ``src`` ``(S, N, d_model)`` (``(N, S, d_model)`` with ``batch_first``;
        unbatched ``(S, d_model)`` too): self-attention, then the feed-forward network, each added back to its
        input, with LayerNorm after each (or before, with ``norm_first``). ``src_mask`` is ``(S, S)`` or
        ``(N * nhead, S, S)``, ``src_key_padding_mask`` ``(N, S)``.

        The output is shaped like ``src``. Everything is recorded as ordinary ops, so the root is the last
        step's node: ``NativeLayerNormBackward0`` by default, ``AddBackward0`` (the residual) with
        ``norm_first``; dropout acts only in training.
        """
        src_key_padding_mask, src_mask = _canonical_padding_and_mask(
            src_key_padding_mask, "src_key_padding_mask", src_mask, "src_mask", src.dtype)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal: bool = False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """Masked self-attention, attention over the encoder's ``memory``, then the feed-forward block."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        new = dict(device=device, dtype=dtype)
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **new)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 bias=bias, **new)
        _add_feedforward_and_norms(self, 3, d_model, dim_feedforward, dropout, layer_norm_eps, norm_first, bias, new)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def __setstate__(self, state) -> None:
        if "activation" not in state:
            state["activation"] = F.relu
        super().__setstate__(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal: bool = False, memory_is_causal: bool = False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal: bool = False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal: bool = False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _why_no_nested_tensor(layer) -> str:
    """torch's reason (its words, shown in its warning) why an encoder stack cannot pack padded input."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


def _left_aligned(keep) -> bool:
    """True when every row of the boolean ``keep`` mask is a run of True followed only by False."""
    k = keep.to(leafgrad.int64)
    return bool((k[:, 1:] <= k[:, :-1]).all()) if k.size(1) > 1 else True


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer`` applied in turn, then the optional ``norm``."""

    __constants__ = ["norm"]

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why}",
                          UserWarning, stacklevel=2)
            self.use_nested_tensor = False

    def _packs_padding(self, src, mask, padding) -> bool:
        """Whether torch would run this call on a nested tensor (and so zero the padded positions)."""
        first = self.layers[0]
        if (not getattr(self, "use_nested_tensor", False) or first.training or src.dim() != 3 or padding is None
                or mask is not None):
            return False
        if getattr(self, "mask_check", True) and not _left_aligned(padding.logical_not()):
            return False
        attn, n1, n2, l1, l2 = first.self_attn, first.norm1, first.norm2, first.linear1, first.linear2
        args = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias, n1.weight,
                n1.bias, n2.weight, n2.bias, l1.weight, l1.bias, l2.weight, l2.bias)
        return not (leafgrad.is_grad_enabled() and any(a is not None and a.requires_grad for a in args))

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal: bool | None = None):
        src_key_padding_mask, mask = _canonical_padding_and_mask(
            src_key_padding_mask, "src_key_padding_mask", mask, "mask", src.dtype)
        first = self.layers[0]
        packed = self._packs_padding(src, mask, src_key_padding_mask)
        is_causal = _detect_is_causal_mask(mask, is_causal, _get_seq_len(src, first.self_attn.batch_first))
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if packed:  # a float padding mask is 0 where kept, -inf where padded
            keep = src_key_padding_mask == 0
            output = output * keep.unsqueeze(-1).to(output.dtype)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer`` applied in turn to ``tgt`` with ``memory``."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal: bool | None = None, memory_is_causal: bool = False):
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """Encoder stack over ``src`` then decoder stack over ``tgt`` attending to the encoder's output."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = F.relu, custom_encoder: Any | None = None,
                 custom_decoder: Any | None = None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        new = dict(device=device, dtype=dtype)
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                      bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*layer_args, **new), num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **new))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*layer_args, **new), num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **new))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal: bool | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False):
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.size(batch_dim) != tgt.size(batch_dim):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None):
        """The causal mask for a sequence of ``sz``: -inf above the diagonal, 0 elsewhere."""
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)

    def _reset_parameters(self) -> None:
        # every matrix (not the biases or the norms' vectors) gets Xavier-uniform initialisation
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)
