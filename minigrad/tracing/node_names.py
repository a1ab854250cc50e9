"""PyTorch's names for the grad nodes: ``MulBackward0``, ``SumBackward1``, ``SelectBackward0``.

A student who prints ``y.grad_fn`` and then opens a viewer sees one name: PyTorch's. Each op's
node class is named here (``OpDef`` asks ``node_class_name``); Paddle's name for the same node
(``MulGradNode``), which the engine's design follows, stays on the class as ``paddle_name`` and is
shown where the mechanism is taught (the glossary, ``describe``, ``docs/architecture.md``).

PyTorch names a node after the derivative formula of the overload that ran
(``tools/autograd/derivatives.yaml``): ``sum()`` is ``SumBackward0`` and ``sum(dim)``
``SumBackward1``. Where one minigrad op covers several overloads, ``NODE_VARIANTS`` picks the name
from the call; every other op is named by the rule (``layer_norm`` -> ``LayerNormBackward0``) or by
``TORCH_NODE_NAMES``. ``tests/test_grad_fn_names.py`` checks the names and the shape of
``next_functions`` against PyTorch on a representative call of every op, and lists the calls whose
graph differs, with why.
"""

from __future__ import annotations

import re
from typing import Any, Callable

__all__ = ["TORCH_NODE_NAMES", "NODE_VARIANTS", "SCALAR_SLOTS", "node_class_name", "paddle_node_name"]

#: Ops whose PyTorch node name is not ``<CamelCaseOp>Backward0``.
TORCH_NODE_NAMES: dict[str, str] = {
    "cast": "ToCopyBackward0",
    "to_copy": "ToCopyBackward0",
    "to_device": "ToCopyBackward0",
    "concat": "CatBackward0",
    "clip": "ClampBackward1",
    "clamp": "ClampBackward0",  # clamp.Tensor (tensor bounds); clamp by numbers is the clip op, ClampBackward1
    "clamp_min_tensor": "ClampMinBackward1",
    "clamp_max_tensor": "ClampMaxBackward1",
    "conv2d": "ConvolutionBackward0",  # PyTorch's one convolution op, transposed or not
    "conv_transpose2d": "ConvolutionBackward0",
    # the 3-D convolutions and max pool (ops/convolution3d.py, ops/pooling3d.py)
    "conv3d": "ConvolutionBackward0",
    "conv_transpose3d": "ConvolutionBackward0",
    "max_pool3d": "MaxPool3DWithIndicesBackward0",
    "max_pool3d_grad": "MaxPool3DWithIndicesBackwardBackward0",  # max_pool3d_with_indices_backward's node
    "copy_slices": "CopySlices",
    "multi_margin_loss_backward": "NotImplemented",  # PyTorch has no derivative for it: its node raises
    "multilabel_margin_loss_backward": "NotImplemented",  # (the same)
    "histogram": "NotImplemented",  # (the same: torch.histogram has no derivative)
    "_sample_dirichlet": "NotImplemented",  # (the same: torch._sample_dirichlet, ops/distributions.py)
    "_dirichlet_grad": "NotImplemented",  # (the same)
    "binomial": "NotImplemented",  # (the same: torch.binomial, ops/binomial.py)
    "ctc_loss_backward": "NotImplemented",  # (the same: _ctc_loss_backward, ops/ctc_loss.py)
    "linalg_ldl_factor_ex": "NotImplemented",  # (the same: torch.linalg.ldl_factor, ops/ldl.py)
    "linalg_ldl_solve": "NotImplemented",  # (the same)
    "diagonal_copy": "DiagonalBackward0_copy",  # torch.diag of a matrix: diagonal_copy's node, so named
    "copy_": "CopyBackwards",  # x.copy_(src); zero_ is ZeroBackward0 by the rule
    "fill_": "FillBackward2",  # fill_.Scalar; torch.fill (the op fill) is fill.Scalar, FillBackward0
    "fill_tensor_": "FillBackward3",  # fill_.Tensor
    "layer_norm": "NativeLayerNormBackward0",
    "batch_norm": "NativeBatchNormBackward0",
    "group_norm": "NativeGroupNormBackward0",
    "max_pool2d": "MaxPool2DWithIndicesBackward0",
    "avg_pool2d": "AvgPool2DBackward0",
    "avg_pool3d": "AvgPool3DBackward0",
    "adaptive_avg_pool2d": "AdaptiveAvgPool2DBackward0",
    "adaptive_max_pool2d": "AdaptiveMaxPool2DBackward0",
    "adaptive_max_pool3d": "AdaptiveMaxPool3DBackward0",
    "adaptive_max_pool2d_backward": "AdaptiveMaxPool2DBackwardBackward0",
    "adaptive_max_pool3d_backward": "AdaptiveMaxPool3DBackwardBackward0",
    "max_unpool2d": "MaxUnpool2DBackward0",
    "max_unpool3d": "MaxUnpool3DBackward0",
    "rrelu_with_noise_": "RreluWithNoiseBackward1",  # rrelu_, in place
    # the in-place activations whose node saves the result (NOTE [ The in-place activations that save their
    # result ] in ops/activation.py), and threshold_
    "leaky_relu_": "LeakyReluBackward1",
    "elu_": "EluBackward1",
    "celu_": "CeluBackward1",
    "threshold_": "ThresholdBackward1",
    "vector_norm": "LinalgVectorNormBackward0",
    "det": "LinalgDetBackward0",
    "inv": "LinalgInvExBackward0",
    "solve": "LinalgSolveExBackward0",
    "div_rounded": "DivBackward2",
    "log1p": "Log1PBackward0",  # PyTorch's code generator capitalizes the letter after a digit here
    "add_alpha": "AddBackward0",  # add.Tensor with alpha: one node, as add without it
    "sub_alpha": "SubBackward0",
    "rsub": "RsubBackward0",  # torch.rsub(x, y): y - x, its edges (x, y)
    "mul_scalar": "MulBackward1",  # mul.Scalar, which PyTorch's C++ composites call; x * 0.5 is MulBackward0
    "div_scalar": "DivBackward1",
    "lerp_tensor": "LerpBackward1",  # lerp.Tensor (a tensor weight); lerp by a number is lerp.Scalar, LerpBackward0
    "deg2rad": "Deg2RadBackward0",
    "rad2deg": "Rad2DegBackward0",
    "add_scalar": "AddBackward1",  # add.Scalar (pairwise_distance's + eps); x + 0.5 is AddBackward0
    "sub_scalar": "SubBackward1",  # sub.Scalar (cosine_embedding_loss's cos - margin)
    "threshold_backward": "ThresholdBackwardBackward0",
    "max_pool2d_grad": "MaxPool2DWithIndicesBackwardBackward0",  # max_pool2d_with_indices_backward's node
    "gelu_backward": "GeluBackwardBackward0",
    "gelu_tanh": "GeluBackward0",  # gelu(approximate='tanh') is the same overload, an argument apart
    "gelu_tanh_backward": "GeluBackwardBackward0",
    "nll_loss": "NllLossBackward0",
    "nll_loss2d": "NllLoss2DBackward0",
    "nll_loss2d_backward": "NllLoss2DBackwardBackward0",
    "cross_entropy": "NllLossBackward0",
    "masked_fill_tensor": "MaskedFillBackward1",  # masked_fill.Tensor; masked_fill.Scalar is MaskedFillBackward0
    "max": "MaxBackward1",  # max() of all elements
    "max_values": "MaxBackward0",  # max(dim)'s values, picked at argmax's indices
    "min_values": "MinBackward0",
    "min": "MinBackward1",
    "sort_values": "SortBackward0",  # sort's values, read at argsort's positions
    "topk_values": "TopkBackward0",
    "kthvalue_values": "KthvalueBackward0",
    "median_values": "MedianBackward1",  # median(dim)
    "median_all": "MedianBackward0",  # median() of all elements
    "nanmedian_values": "NanmedianBackward1",  # nanmedian(dim) (ops/sort.py)
    "nanmedian_all": "NanmedianBackward0",  # nanmedian() of all elements
    "mode_values": "ModeBackward0",  # mode(dim)'s values, read at mode_indices' positions (ops/sort.py)
    # reductions, scans and products (ops/reduce.py, ops/cumulative.py, ops/blas.py)
    "cummax_values": "CummaxBackward0",  # cummax's values, picked at argcummax's positions
    "cummin_values": "CumminBackward0",
    # index_fill.int_Tensor (a 0-d tensor value); index_fill.int_Scalar is IndexFillBackward0 (ops/scatter_gather.py)
    "index_fill_tensor": "IndexFillBackward1",
    "scatter_value": "ScatterBackward1",  # scatter.value (a number); scatter.src is ScatterBackward0
    "cross": "LinalgCrossBackward0",  # torch.cross and torch.linalg.cross are linalg_cross (ops/blas.py)
    # grid sampling (ops/grid_sample.py): PyTorch spells the dims with a capital D
    "grid_sampler_2d": "GridSampler2DBackward0",
    "grid_sampler_3d": "GridSampler3DBackward0",
    "grid_sampler_2d_backward": "GridSampler2DBackwardBackward0",
    "grid_sampler_3d_backward": "GridSampler3DBackwardBackward0",
    # the in-place view ops are overloads of their own (``x.squeeze_(0)``: SqueezeBackward4)
    "unsqueeze_": "UnsqueezeBackward1",
    "t_": "TBackward1",
    "transpose_": "TransposeBackward1",
    "as_strided_": "AsStridedBackward1",
    # acosh_, asinh_, atanh_: the in-place overloads, whose node raises (ops/trigonometric.py)
    "acosh_": "AcoshBackward1",
    "asinh_": "AsinhBackward1",
    "atanh_": "AtanhBackward1",
    "polygamma_": "PolygammaBackward1",  # x.polygamma_(n), in place (ops/gamma.py)
}


def _camel(op: str) -> str:
    return "".join(part.capitalize() for part in op.strip("_").split("_"))


def _torch_camel(op: str) -> str:
    """PyTorch's code generator's CamelCase: a letter after a digit is a capital too (``upsample_nearest2d`` ->
    ``UpsampleNearest2D``, ``im2col`` -> ``Im2Col``)."""
    return re.sub(r"(?<=\d)[a-z]", lambda m: m.group(0).upper(), _camel(op))


def node_class_name(op: str) -> str:
    """PyTorch's name of the node of ``op``'s most common call (``mul`` -> ``MulBackward0``)."""
    return TORCH_NODE_NAMES.get(op) or _torch_camel(op) + "Backward0"


def paddle_node_name(op: str) -> str:
    """Paddle's name of the same node (``mul`` -> ``MulGradNode``)."""
    return _camel(op) + "GradNode"


# -- names that depend on the call ----------------------------------------------------------------

def _constant(t: Any) -> bool:
    """A Python number the API layer wrapped (``Tensor._scalar``): PyTorch's Scalar overload takes it, where a
    0-d tensor the program made takes the Tensor overload (``x - 2`` and ``torch.tensor(2.) - x`` differ)."""
    return t is not None and getattr(t, "_number", False)


def _reduction(number: str) -> Callable[[Any, dict[str, Any]], str]:
    """``sum()``/``mean()`` (all elements) are overload 0, ``sum(dim)`` overload 1."""
    def name(inputs: Any, attrs: dict[str, Any]) -> str:
        return f"{number}Backward0" if attrs.get("dim") is None else f"{number}Backward1"
    return name


def _getitem(inputs: Any, attrs: dict[str, Any]) -> str:
    """``x[0]`` selects, ``x[1:3]`` slices, ``x[None]`` unsqueezes, ``x[idx]`` indexes; PyTorch applies
    a mixed index one step at a time, and the node a student sees is the last step's."""
    index = attrs.get("index")
    if getattr(index, "lone_slice", False):  # x[:] alone is a slice, x[:, :] an alias (ops/shape.py's LoneSlice)
        return "SliceBackward0"
    parts = index if isinstance(index, tuple) else (index,)
    last = "Alias"
    for p in parts:
        if p is Ellipsis or (isinstance(p, slice) and p == slice(None)):
            continue
        if isinstance(p, bool) or not isinstance(p, (int, slice, type(None))):
            return "IndexBackward0"
        last = "Select" if isinstance(p, int) else "Slice" if isinstance(p, slice) else "Unsqueeze"
    return f"{last}Backward0"


def _getitem_grad(inputs: Any, attrs: dict[str, Any]) -> str:
    """getitem's backward, named as PyTorch's backward of the step: ``select_backward`` and ``slice_backward``
    (``SelectBackwardBackward0``, ``SliceBackwardBackward0`` in a double backward); an index's scatter-add keeps
    its own name."""
    step = _getitem(inputs, attrs)
    return {"SelectBackward0": "SelectBackwardBackward0",
            "SliceBackward0": "SliceBackwardBackward0"}.get(step, "GetitemGradBackward0")


def _pow(inputs: Any, attrs: dict[str, Any]) -> str:
    x, y = inputs
    if _constant(x) and not _constant(y):
        return "PowBackward2"  # 2 ** x
    return "PowBackward0" if _constant(y) else "PowBackward1"


def _sub(inputs: Any, attrs: dict[str, Any]) -> str:
    x, y = inputs
    return "RsubBackward1" if _constant(x) and not _constant(y) else "SubBackward0"


def _squeeze(first: int) -> Callable[[Any, dict[str, Any]], str]:
    """``squeeze()``, ``squeeze(dim)``, ``squeeze(dims)``: overloads 0, 1, 2; ``squeeze_``'s are 3, 4, 5."""
    def name(inputs: Any, attrs: dict[str, Any]) -> str:
        dim = attrs.get("dim")
        return f"SqueezeBackward{first + (0 if dim is None else 1 if isinstance(dim, int) else 2)}"
    return name


def _matmul(inputs: Any, attrs: dict[str, Any]) -> str:
    """``torch.matmul`` runs ``dot``, ``mv``, ``mm`` or ``bmm`` by the operands' dims."""
    nx, ny = inputs[0]._data.ndim, inputs[1]._data.ndim
    if nx == 1 and ny == 1:
        return "DotBackward0"
    if nx == 2 and ny == 1:
        return "MvBackward0"
    if nx == 2 and ny == 2:
        return "MmBackward0"
    return "BmmBackward0" if nx == 3 and ny == 3 else "MatmulBackward0"


def _reshape(inputs: Any, attrs: dict[str, Any]) -> str:
    """``reshape`` of a contiguous input is a ``view`` (``ViewBackward0``), of another that allows a view
    ``_reshape_alias`` (``ReshapeAliasBackward0``). Where a copy is needed a call runs ``clone`` and
    ``unsafe_view`` instead, a formula's in graph mode too (NOTE [ An op that decomposes ] in ops/registry.py)."""
    flags = getattr(inputs[0]._data, "flags", None)
    return "ViewBackward0" if flags is None or flags.c_contiguous else "ReshapeAliasBackward0"


def _with_tensor_operand(number: str) -> Callable[[Any, dict[str, Any]], str]:
    """``fmod(x, 2.0)`` is overload 0, ``fmod(x, y)`` with a tensor ``y`` overload 1."""
    def name(inputs: Any, attrs: dict[str, Any]) -> str:
        return f"{number}Backward0" if _constant(inputs[1]) else f"{number}Backward1"
    return name


#: Ops with several PyTorch overloads: a function of the call's inputs and attributes gives the name.
def _xlogy(inputs: Any, attrs: dict[str, Any]) -> str:
    """``xlogy(x, y)``: ``xlogy.Tensor`` 0, a number ``x`` (``xlogy.Scalar_Self``) 1, a number ``y`` 2."""
    x, y = inputs
    return "XlogyBackward1" if _constant(x) and not _constant(y) else "XlogyBackward2" if _constant(y) else "XlogyBackward0"


def attention_kernel(query: Any, mask: Any) -> str:
    """The fused attention kernel PyTorch would run, by its ``backends.cuda`` switch name: flash attention for a
    CPU; on a GPU flash for float16/bfloat16 without a mask (dropout too), memory-efficient attention otherwise.
    The fused node is named for it (``_attention``), and ``F.scaled_dot_product_attention`` asks its switch."""
    on_cpu = getattr(query, "device", None) is None or str(query.device) == "cpu"
    if on_cpu or (mask is None and str(query.dtype).rsplit(".", 1)[-1] in ("float16", "bfloat16")):
        return "flash"
    return "mem_efficient"


def _attention(inputs: Any, attrs: dict[str, Any]) -> str:
    """The fused attention is named for the kernel PyTorch would run (``attention_kernel``)."""
    query, mask = inputs[0], inputs[3]
    if attention_kernel(query, mask) == "mem_efficient":
        return "ScaledDotProductEfficientAttentionBackward0"
    on_cpu = getattr(query, "device", None) is None or str(query.device) == "cpu"
    return "ScaledDotProductFlashAttentionForCpuBackward0" if on_cpu else "ScaledDotProductFlashAttentionBackward0"


def _padding(kind: str, suffix: str = "") -> Callable[[Any, dict[str, Any]], str]:
    """``F.pad(mode='reflect')`` of the last 1, 2 or 3 dims is ``reflection_pad1d``/``2d``/``3d``."""
    def name(inputs: Any, attrs: dict[str, Any]) -> str:
        return f"{kind}Pad{len(attrs['pad']) // 2}D{suffix}Backward0"
    return name


NODE_VARIANTS: dict[str, Callable[[Any, dict[str, Any]], str]] = {
    "reflection_pad": _padding("Reflection"),
    "reflection_pad_backward": _padding("Reflection", "Backward"),
    "replication_pad": _padding("Replication"),
    "replication_pad_backward": _padding("Replication", "Backward"),
    "scaled_dot_product_attention": _attention,
    "sum": _reduction("Sum"),
    "mean": _reduction("Mean"),
    "getitem": _getitem,
    "getitem_grad": _getitem_grad,
    "pow": _pow,
    "sub": _sub,
    "sub_alpha": _sub,  # rsub(x, 5, alpha=2): 5 - 2 * x, PyTorch's rsub.Scalar (RsubBackward1)
    "squeeze": _squeeze(0),
    "squeeze_": _squeeze(3),
    "matmul": _matmul,
    "reshape": _reshape,
    "fmod": _with_tensor_operand("Fmod"),
    "remainder": _with_tensor_operand("Remainder"),
    "copysign": lambda inputs, attrs: "CopysignBackward1" if _constant(inputs[1]) else "CopysignBackward0",
    "xlogy": _xlogy,
    "special_xlog1py": lambda inputs, attrs: _xlogy(inputs, attrs).replace("Xlogy", "SpecialXlog1Py"),  # the same three
    "special_zeta": lambda inputs, attrs: _xlogy(inputs, attrs).replace("Xlogy", "SpecialZeta"),  # (ops/incomplete_gamma.py)
    # at::norm(x, p) of all elements is norm.Scalar, over dims norm.ScalarOpt_dim (pairwise_distance's)
    "norm": lambda inputs, attrs: "NormBackward0" if attrs.get("dim") is None else "NormBackward1",
    # max()/min() of all elements; over given dims the op is amax/amin's, whose gradient is shared among ties
    "max": lambda inputs, attrs: "MaxBackward1" if attrs.get("dim") is None else "AmaxBackward0",
    "min": lambda inputs, attrs: "MinBackward1" if attrs.get("dim") is None else "AminBackward0",
    # reductions, scans and products (ops/reduce.py, ops/cumulative.py, ops/blas.py)
    "prod": _reduction("Prod"),
    "round": lambda inputs, attrs: "RoundBackward0" if attrs.get("decimals") is None else "RoundBackward1",
    # the in-place comparisons (ops/compare_inplace.py): eq_.Scalar 0, eq_.Tensor 1
    **{f"{op}_": _with_tensor_operand(op.capitalize()) for op in ("eq", "ne", "lt", "le", "gt", "ge")},
}

#: Node names of PyTorch's Scalar overloads -> the input slot their number fills (``GradNode.scalar_slot``):
#: PyTorch's node has no edge for it, so ``next_functions`` leaves it out (``pow.Tensor_Scalar`` has one next
#: function where ``mul`` by a wrapped number has two).
SCALAR_SLOTS: dict[str, int] = {
    "PowBackward0": 1, "PowBackward2": 0, "RsubBackward1": 0, "FmodBackward0": 1, "RemainderBackward0": 1,
    "CopysignBackward1": 1, "XlogyBackward1": 0, "XlogyBackward2": 1,
    "SpecialXlog1PyBackward1": 0, "SpecialXlog1PyBackward2": 1,
    "SpecialZetaBackward1": 0, "SpecialZetaBackward2": 1,  # (ops/incomplete_gamma.py)
    **{f"{op}Backward0": 1 for op in ("Eq", "Ne", "Lt", "Le", "Gt", "Ge")},
}


# -- recordings made before the rename --------------------------------------------------------------

def renamed_v1(op: str, name: str, attrs: Any) -> str:
    """A version-1 recording's node name (``SumGradNode#3``, ``AccumulationNode#2``) as version 2
    names it (``SumBackward1#3``, ``AccumulateGrad#2``). The loader renames every ``node.create``
    of an old file, so ``minigrad diff``, the viewers and the lessons read both. Version 1 kept the
    attributes but not the inputs, so an op whose name depends on its inputs gets its common name."""
    base, sep, node_id = name.rpartition("#")
    if not sep:
        base, node_id = name, ""
    if op == "accumulate":
        new = "AccumulateGrad"
    elif base.endswith("GradNode") and paddle_node_name(op) == base:
        new = node_class_name(op)
        if op in ("sum", "mean") and isinstance(attrs, dict) and attrs.get("dim") is not None:
            new = new[:-1] + "1"
    elif base.endswith("GradNode"):  # a custom Function's node: PyTorch's ``<Function>Backward``
        new = base[: -len("GradNode")] + "Backward"
    else:
        return name
    return f"{new}#{node_id}" if sep else new
