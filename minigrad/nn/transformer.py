"""Attention layers: ``MultiheadAttention``, the Transformer's encoder and decoder layers and stacks, and
``Transformer`` itself (composites).

Everything is built from ops - ``linear``, ``reshape``/``permute`` to split
and merge heads, ``matmul``, ``softmax``, ``dropout``, ``layer_norm`` - so the
backward of attention is visible node by node. Parameter names and shapes are
PyTorch's (``in_proj_weight`` ``(3E, E)``, ``in_proj_bias``, ``out_proj.weight``,
``out_proj.bias``; ``self_attn.*``, ``linear1``, ``linear2``, ``norm1``,
``norm2`` in an encoder layer), so a PyTorch ``state_dict`` loads as is.

``MultiheadAttention`` lives here rather than in an ``activation.py`` as in
PyTorch: it belongs with the transformer it is the heart of. Its ``out_proj``
and the layers' ``linear1``/``linear2``/``dropout*`` are ``nn.Linear`` and
``nn.Dropout``, so code that walks ``model.modules()`` finds them.

Multi-head attention, for queries ``Q``, keys ``K`` and values ``V``::

    q, k, v = Q W_q^T + b_q,  K W_k^T + b_k,  V W_v^T + b_v         (rows of in_proj_weight)
    split each into num_heads heads of head_dim = E / num_heads
    head_h = softmax(q_h k_h^T / sqrt(head_dim) + mask) v_h
    out = concat(head_1, ..., head_H) W_o^T + b_o                   (out_proj)

Masks follow PyTorch: in ``attn_mask`` and ``key_padding_mask`` a **True**
entry is a position that may **not** be attended (the opposite of
``scaled_dot_product_attention``'s bool mask); a float mask is added.

Example:
    >>> import minigrad as mg
    >>> _ = mg.manual_seed(0)  # returns the generator, as in PyTorch
    >>> mha = mg.nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)
    >>> x = mg.randn(3, 5, 8)
    >>> out, w = mha(x, x, x)
    >>> out.shape, w.shape
    (minigrad.Size([3, 5, 8]), minigrad.Size([3, 5, 5]))
"""

from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dt
from .. import ops
from ..tensor import Tensor
from . import functional as F
from . import init
from .layers import Dropout, LayerNorm, Linear, ModuleList, NonDynamicallyQuantizableLinear
from .module import Module, Parameter, _new_parameter

__all__ = [
    "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
    "TransformerDecoder", "Transformer",
]


def _xavier_uniform(shape: tuple[int, int], dtype: Any, device: Any = None) -> Parameter:
    """``uniform(-a, a)`` with ``a = sqrt(6 / (fan_in + fan_out))`` (Glorot), as ``nn.init.xavier_uniform_``."""
    p = _new_parameter(shape, dtype, device=device)
    init.xavier_uniform_(p)
    return p


def _xavier_normal(shape: tuple[int, ...], dtype: Any, device: Any = None) -> Parameter:
    """``normal(0, sqrt(2 / (fan_in + fan_out)))`` (Glorot), as ``nn.init.xavier_normal_``."""
    p = _new_parameter(shape, dtype, device=device)
    init.xavier_normal_(p)
    return p


class MultiheadAttention(Module):
    """Multi-head attention (see the module docstring), PyTorch's signature and parameters.

    Args:
        embed_dim: ``E``, the model width (divisible by ``num_heads``).
        num_heads: the number of heads.
        dropout: dropout on the attention weights (training only).
        bias: biases in the input and output projections.
        kdim, vdim: key/value widths when they differ from ``E`` (then the projections are
            ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight`` instead of ``in_proj_weight``).
        batch_first: inputs ``(N, L, E)`` instead of ``(L, N, E)``.

    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)`` returns ``(output, weights)``;
    weights are ``(N, L, S)`` averaged over heads, ``(N, H, L, S)`` otherwise, ``None``
    without ``need_weights``.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = embed_dim, num_heads, float(dropout), batch_first
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        # PyTorch's order of draws: out_proj (a Linear) first, then the Glorot in-projections.
        out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = _xavier_uniform((3 * embed_dim, embed_dim), dtype, device)
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.q_proj_weight = _xavier_uniform((embed_dim, embed_dim), dtype, device)
            self.k_proj_weight = _xavier_uniform((embed_dim, self.kdim), dtype, device)
            self.v_proj_weight = _xavier_uniform((embed_dim, self.vdim), dtype, device)
            self.in_proj_weight = None
        self.in_proj_bias = _new_parameter((3 * embed_dim,), dtype, device=device) if bias else None
        if bias:
            out_proj.bias = _new_parameter((embed_dim,), dtype, device=device)
        self.out_proj = out_proj
        if add_bias_kv:  # a learned extra key and value every query may attend to
            self.bias_k = _xavier_normal((1, 1, embed_dim), dtype, device)
            self.bias_v = _xavier_normal((1, 1, embed_dim), dtype, device)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn  # an extra all-zero key and value per head

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """PyTorch's ``multi_head_attention_forward`` on the module's parameters, after the checks: the code of
        ``F.multi_head_attention_forward`` (``F._attention``), as PyTorch's module calls the functional form;
        ``batch_first`` inputs are made sequence-first for it and the output made batch-first again."""
        batched = F._check_attention(query, key, value, key_padding_mask, attn_mask, is_causal, self.embed_dim,
                                   self.kdim, self.vdim, self.num_heads, self.batch_first)
        if self.batch_first and batched:  # sequence-first, keeping which of them are the same tensor
            if key is value:
                if query is key:
                    query = key = value = ops.transpose(query, 1, 0)
                else:
                    query, key = (ops.transpose(t, 1, 0) for t in (query, key))
                    value = key
            else:
                query, key, value = (ops.transpose(t, 1, 0) for t in (query, key, value))
        out, weights = F._attention(
            query, key, value, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k, self.bias_v,
            self.add_zero_attn, self.dropout if self.training else 0.0, self.out_proj.weight, self.out_proj.bias,
            key_padding_mask, need_weights, attn_mask, (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight),
            average_attn_weights, is_causal, batched)
        if self.batch_first and batched:
            out = ops.transpose(out, 1, 0)
        return out, weights


def _activation(activation: str | Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if callable(activation):
        return activation
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class _FeedForwardLayer(Module):
    """What the encoder and decoder layers share: the self-attention block, the feed-forward block's modules,
    the norms and dropouts."""

    def _build_feedforward(self, d_model: int, dim_feedforward: int, dropout: float,
                           activation: str | Callable[[Tensor], Tensor], layer_norm_eps: float, norm_first: bool,
                           bias: bool, device: Any, dtype: Any, sublayers: int) -> None:
        """``linear1``, ``dropout``, ``linear2``, then one ``norm<i>`` and ``dropout<i>`` per sublayer, in
        PyTorch's order (the order of the parameters' draws and of ``state_dict``)."""
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, device=device, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, device=device, dtype=dtype)
        self.norm_first = norm_first
        for i in range(1, sublayers + 1):
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype))
        for i in range(1, sublayers + 1):
            setattr(self, f"dropout{i}", Dropout(dropout))
        if isinstance(activation, Module):
            self.activation = activation
        else:
            self._act = _activation(activation)

    def _activate(self, x: Tensor) -> Tensor:
        return self.activation(x) if "activation" in self._modules else self._act(x)

    def _sa_block(self, x: Tensor, attn_mask: Any, key_padding_mask: Any, is_causal: bool) -> Tensor:
        """``dropout1(self_attn(x, x, x))``: the first sublayer of both layers (``self_attn`` set by the subclass)."""
        return self.dropout1(self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                            need_weights=False, is_causal=is_causal)[0])


def _clones(layer: Module, num_layers: int, owner: str, what: str) -> ModuleList:
    """``num_layers`` deep copies of ``layer`` (keys ``layers.0.*``, ...)."""
    if not isinstance(layer, Module):
        raise TypeError(f"{owner}(): {what} must be a Module, but got {type(layer).__name__}")
    return ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])


class TransformerEncoderLayer(_FeedForwardLayer):
    """Self-attention then a feed-forward block, each with a residual connection and LayerNorm.

    Post-norm (the default, the original Transformer)::

        x = norm1(x + dropout1(self_attn(x)));  x = norm2(x + dropout2(linear2(dropout(act(linear1(x))))))

    ``norm_first=True`` (pre-norm, as GPT-2)::

        x = x + dropout1(self_attn(norm1(x)));  x = x + dropout2(ff(norm2(x)))
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = "relu", layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            device=device, dtype=dtype)
        self._build_feedforward(d_model, dim_feedforward, dropout, activation, layer_norm_eps, norm_first, bias,
                                device, dtype, sublayers=2)
        self.batch_first = batch_first

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self._activate(self.linear1(x)))))

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        x = src
        if self.norm_first:
            x = ops.add(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal))
            return ops.add(x, self._ff_block(self.norm2(x)))
        x = self.norm1(ops.add(x, self._sa_block(x, src_mask, src_key_padding_mask, is_causal)))
        return self.norm2(ops.add(x, self._ff_block(x)))


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (keys ``layers.0.*``, ...), then an optional ``norm``."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers, "TransformerEncoder", "encoder_layer")
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal))
        return self.norm(x) if self.norm is not None else x


class TransformerDecoderLayer(_FeedForwardLayer):
    """Masked self-attention, attention over the encoder's output (``memory``), then a feed-forward
    block; each with a residual connection and LayerNorm (``norm_first``: pre-norm)::

        x = norm1(x + dropout1(self_attn(x, x, x)))
        x = norm2(x + dropout2(multihead_attn(x, memory, memory)))
        x = norm3(x + dropout3(linear2(dropout(act(linear1(x))))))
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = "relu", layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            device=device, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, device=device, dtype=dtype)
        self._build_feedforward(d_model, dim_feedforward, dropout, activation, layer_norm_eps, norm_first, bias,
                                device, dtype, sublayers=3)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask: Any, key_padding_mask: Any, is_causal: bool) -> Tensor:
        return self.dropout2(self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                                 is_causal=is_causal, need_weights=False)[0])

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self._activate(self.linear1(x)))))

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool = False, memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = ops.add(x, self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = ops.add(x, self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
            return ops.add(x, self._ff_block(self.norm3(x)))
        x = self.norm1(ops.add(x, self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal)))
        x = self.norm2(ops.add(x, self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)))
        return self.norm3(ops.add(x, self._ff_block(x)))


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` (keys ``layers.0.*``, ...), then an optional ``norm``."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers, "TransformerDecoder", "decoder_layer")
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self.norm(x) if self.norm is not None else x


def _xavier_uniform_(p: Parameter) -> None:
    """Redraw a 2-D parameter from Glorot's uniform (the draw of ``_xavier_uniform``)."""
    p._data[...] = _xavier_uniform(tuple(p.shape), p.dtype, p.device)._data


class Transformer(Module):
    """The encoder-decoder Transformer (Vaswani et al.): ``decoder(tgt, encoder(src))``.

    Every parameter with two or more dimensions is redrawn from Glorot's uniform
    after construction, as PyTorch does. ``generate_square_subsequent_mask(n)``
    gives the float causal mask (``-inf`` above the diagonal) for ``tgt_mask``.
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = "relu", custom_encoder: Any = None,
                 custom_decoder: Any = None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, device=device, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, device=device, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype))
        for p in self.parameters():
            if p.ndim > 1:
                _xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        batched = src.ndim == 3
        if batched and src.shape[0 if self.batch_first else 1] != tgt.shape[0 if self.batch_first else 1]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """The causal mask for a sequence of ``sz``: ``-inf`` above the diagonal, 0 elsewhere."""
        dt = dtype or _dt.float32
        return Tensor._make(np.triu(np.full((sz, sz), -np.inf), 1).astype(dt.np), dt)
