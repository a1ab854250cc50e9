"""``mg.ops.aten``: names for the ops minigrad's kernels run, as PyTorch names its ATen operators.

PyTorch's dispatcher calls each operator by an overload object, ``torch.ops.aten.mm.default``; code that
watches the dispatcher - a selective-checkpointing policy (``utils/selective_checkpoint.py``), a logging
mode - compares the op it is handed with such objects. ``mg.ops.aten.<name>.<overload>`` gives one object
per name, made on first use and the same every time after (``is`` and ``==`` compare them), printed as
PyTorch prints its own (``aten.mm.default``).

``overload_of(op, arrays, attrs, device)`` names the kernel call minigrad is about to make the way PyTorch's
dispatcher names the call it makes for the same program: ``x @ w`` on matrices runs minigrad's ``matmul``
kernel where PyTorch runs ``aten.mm.default``, ``softmax`` is ``aten._softmax.default``, ``x + 1`` is
``aten.add.Tensor`` (``OVERLOADS``, checked against PyTorch's dispatcher by ``tests/test_selective_checkpoint.py``).
An op of the same name with no entry there is ``<name>.default``.

Example:
    >>> import minigrad as mg
    >>> print(mg.ops.aten.mm.default)
    aten.mm.default
    >>> mg.ops.aten.mm.default is mg.ops.aten.mm.default
    True
"""

from __future__ import annotations

from typing import Any, Callable

__all__: list[str] = []  # (``aten`` is attached to ``mg.ops`` by ops/__init__.py: torch.ops.aten, not torch.aten)


def _made_once(made: dict[str, Any], name: str, make: Callable[[], Any]) -> Any:
    """The object of ``name``, made on first use (a dunder is no operator: Python's protocols ask for them)."""
    if name.startswith("__"):
        raise AttributeError(name)
    found = made.get(name)
    if found is None:
        found = made[name] = make()
    return found


class OpOverload:
    """One overload of an operator: ``aten.mm.default``, ``aten.add.Tensor``."""

    __slots__ = ("_packet", "_overloadname", "__weakref__")

    def __init__(self, packet: "OpOverloadPacket", overload: str) -> None:
        self._packet, self._overloadname = packet, overload

    @property
    def overloadpacket(self) -> "OpOverloadPacket":
        return self._packet

    def name(self) -> str:
        """PyTorch's ``aten::mm`` (``aten::add.Tensor`` for an overload other than ``default``)."""
        base = f"aten::{self._packet._name}"
        return base if self._overloadname == "default" else f"{base}.{self._overloadname}"

    def __repr__(self) -> str:
        return f"<OpOverload(op='aten.{self._packet._name}', overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return f"aten.{self._packet._name}.{self._overloadname}"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{self!r}: minigrad names PyTorch's operators, to compare the ops its kernels "
                                  "run with them; call the op through its function (mg.mm, mg.add ...) instead")


class OpOverloadPacket:
    """An operator with its overloads as attributes: ``aten.mm`` (``aten.mm.default``)."""

    __slots__ = ("_name", "_overloads")

    def __init__(self, name: str) -> None:
        self._name = name
        self._overloads: dict[str, OpOverload] = {}

    def __getattr__(self, overload: str) -> OpOverload:
        return _made_once(self._overloads, overload, lambda: OpOverload(self, overload))

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='aten.{self._name}')>"

    def __str__(self) -> str:
        return f"aten.{self._name}"

    def overloads(self) -> list[str]:
        """The overloads asked for so far."""
        return list(self._overloads)


class _Namespace:
    """``aten``: one packet per operator name, made on first use."""

    def __init__(self) -> None:
        self._packets: dict[str, OpOverloadPacket] = {}

    def __getattr__(self, name: str) -> OpOverloadPacket:
        return _made_once(self._packets, name, lambda: OpOverloadPacket(name))

    def __repr__(self) -> str:
        return "aten"


aten = _Namespace()


def _matmul(arrays: Any, attrs: Any, device: str) -> str:
    ndims = tuple(a.ndim for a in arrays[:2])
    return {(2, 2): "mm.default", (3, 3): "bmm.default", (1, 1): "dot.default", (2, 1): "mv.default"}.get(
        ndims, "matmul.default")


def _reduction(name: str) -> Callable[[Any, Any, str], str]:
    def overload(arrays: Any, attrs: Any, device: str) -> str:
        dim = attrs.get("dim") if attrs else None
        return f"{name}.default" if dim is None else f"{name}.{'dim_IntList' if name == 'sum' else 'dim'}"
    return overload


def _sdpa(arrays: Any, attrs: Any, device: str) -> str:
    if device == "cpu":
        return "_scaled_dot_product_flash_attention_for_cpu.default"
    half = arrays[0].dtype.itemsize == 2  # PyTorch CUDA's flash kernel takes float16/bfloat16 only
    return "_scaled_dot_product_flash_attention.default" if half else "_scaled_dot_product_efficient_attention.default"


#: minigrad's kernel op -> PyTorch's overload for the same call: a name, or a function of the call's arrays,
#: attributes and device
OVERLOADS: dict[str, str | Callable[[Any, Any, str], str]] = {
    "matmul": _matmul,
    "softmax": "_softmax.default", "log_softmax": "_log_softmax.default",
    "gelu_tanh": "gelu.default",
    "layer_norm": "native_layer_norm.default",
    "scaled_dot_product_attention": _sdpa,
    "add": "add.Tensor", "sub": "sub.Tensor", "mul": "mul.Tensor", "div": "div.Tensor",
    "pow": "pow.Tensor_Scalar",
    "sum": _reduction("sum"), "mean": _reduction("mean"), "max": _reduction("max"), "min": _reduction("min"),
    "reshape": "view.default", "unsafe_view": "_unsafe_view.default",
    "transpose": "transpose.int",
    "concat": "cat.default",
    "split": "split.Tensor",
    "nll_loss": "nll_loss_forward.default",
    "conv2d": "convolution.default",
    "max_pool2d": "max_pool2d_with_indices.default",
    "cast": "_to_copy.default",
    "masked_fill": "masked_fill.Scalar",
    # minigrad's kernel ops that PyTorch calls by another name
    "add_alpha": "add.Tensor", "add_scalar": "add.Tensor", "sub_alpha": "sub.Tensor", "sub_scalar": "sub.Tensor",
    "mul_scalar": "mul.Tensor", "div_scalar": "div.Tensor", "div_rounded": "div.Tensor_mode",
    "to_copy": "_to_copy.default", "to_device": "_to_copy.default",
    "log_softmax_backward_data": "_log_softmax_backward_data.default",
    "softmax_backward_data": "_softmax_backward_data.default", "safe_softmax": "_safe_softmax.default",
    "layer_norm_backward": "native_layer_norm_backward.default", "gelu_tanh_backward": "gelu_backward.default",
    "max_pool2d_grad": "max_pool2d_with_indices_backward.default",
    "max_pool3d_grad": "max_pool3d_with_indices_backward.default",
    "conv2d_input_grad": "convolution_backward.default", "conv2d_weight_grad": "convolution_backward.default",
    "conv3d_input_grad": "convolution_backward.default", "conv3d_weight_grad": "convolution_backward.default",
    "adaptive_avg_pool2d_backward": "_adaptive_avg_pool2d_backward.default",
    "clamp_max_tensor": "clamp_max.Tensor", "clamp_min_tensor": "clamp_min.Tensor",
    "masked_fill_tensor": "masked_fill.Tensor", "lerp_tensor": "lerp.Tensor",
    "index_fill_tensor": "index_fill.int_Tensor", "scatter_value": "scatter.value",
    "vector_norm": "linalg_vector_norm.default", "solve": "linalg_solve.default", "inv": "linalg_inv.default",
    "prelu_kernel": "_prelu_kernel.default", "weight_norm_interface": "_weight_norm_interface.default",
    "median_all": "median.default", "nanmedian_all": "nanmedian.default", "sort_values": "sort.default",
    "topk_values": "topk.default", "cross_entropy": "cross_entropy_loss.default",
    "pdist_backward": "_pdist_backward.default", "euclidean_dist": "_euclidean_dist.default",
    "ctc_loss_backward": "_ctc_loss_backward.default",
    "upsample_bilinear2d_aa": "_upsample_bilinear2d_aa.default",
    "upsample_bilinear2d_aa_backward": "_upsample_bilinear2d_aa_backward.default",
    "upsample_bicubic2d_aa": "_upsample_bicubic2d_aa.default",
    "upsample_bicubic2d_aa_backward": "_upsample_bicubic2d_aa_backward.default",
    **{f"upsample_nearest_exact{d}d{tail}": f"_upsample_nearest_exact{d}d{tail}.default"
       for d in (1, 2, 3) for tail in ("", "_backward")},
}

#: minigrad's kernel ops with no ATen operator of their own: steps PyTorch's kernels take inside another
#: operator (the indices of a ``max_pool2d``, a batch norm's moments), or minigrad's own (``getitem``, which
#: PyTorch runs as ``select``, ``slice`` or ``index`` by the key). ``tests/test_profiler.py`` checks that
#: every other op is an ATen operator's name or has an entry in ``OVERLOADS``.
NO_ATEN_OP = frozenset({
    "_embedding_bag_argmax", "_embedding_bag_layout", "adaptive_max_pool2d_indices", "adaptive_max_pool3d_indices",
    "affine_grid_base", "argcummax", "argcummin", "attention_weights", "batch_norm_moments",
    "batch_norm_weight_grad", "copy_slices", "cross_entropy_backward", "cummax_values", "cummin_values",
    "fill_tensor_", "fractional_max_pool2d_indices", "fractional_max_pool3d_indices", "frexp_exponent", "getitem",
    "getitem_grad", "grid_sampler_derivative", "grid_sampler_derivative_backward", "kthvalue_indices",
    "kthvalue_values", "layer_norm_weight_grad", "lu_permutation", "lu_transposed_solve", "max_pool2d_indices",
    "max_pool2d_select", "max_pool3d_indices", "max_pool3d_select", "max_values", "median_values", "min_values",
    "mode_indices", "mode_values", "nanmedian_indices", "nanmedian_values", "reflection_pad",
    "reflection_pad_backward", "replication_pad", "replication_pad_backward", "topk_indices", "unique",
    "unique_consecutive_runs"})


def overload_of(name: str, arrays: Any, attrs: Any, device: str) -> OpOverload:
    """PyTorch's overload for a call of minigrad's kernel op ``name`` (see the module docstring)."""
    rule = OVERLOADS.get(name)
    spelled = f"{name}.default" if rule is None else rule if isinstance(rule, str) else rule(arrays, attrs, device)
    packet, overload = spelled.rsplit(".", 1)
    return getattr(getattr(aten, packet), overload)


def profiler_name(name: str, inputs: Any, attrs: Any, device: str) -> str:
    """The name PyTorch's profiler gives a call of minigrad's kernel op ``name``: its ATen operator
    (``aten::mm``, ``aten::add``; overloads are not part of the name), or ``minigrad::getitem`` for an
    op PyTorch has no operator of (``NO_ATEN_OP``). ``inputs`` need ``ndim`` and ``dtype`` only."""
    if name in NO_ATEN_OP:
        return f"minigrad::{name}"
    return f"aten::{overload_of(name, inputs, attrs, device).overloadpacket._name}"
