"""Layers, containers and losses (``mg.nn``), built on minigrad ops.

Example:
    >>> import minigrad as mg
    >>> _ = mg.manual_seed(0)  # returns the generator, as in PyTorch
    >>> model = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.ReLU(), mg.nn.Linear(8, 3))
    >>> model(mg.randn(2, 4)).shape
    minigrad.Size([2, 3])
"""

from __future__ import annotations

import math as _math
from typing import Any, Iterator

from .. import ops
from .. import dtypes
from ..tensor import Tensor
from . import functional
from . import init
from . import attention  # torch.nn.attention: sdpa_kernel
from .module import Buffer, Module, Parameter, _new_parameter
from .container import Container, Sequential  # (torch/nn/modules/container.py)

__all__ = [
    "Module", "Parameter", "Buffer", "Linear", "ReLU", "GELU", "Sigmoid", "Tanh", "Sequential", "Dropout", "Flatten",
    "MaxPool2d", "CrossEntropyLoss", "MSELoss", "functional", "init", "Container",
]


def _reset_weight_and_bias(weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's ``reset_parameters`` of Linear and Conv (``init._linear_default_``), in PyTorch's order."""
    init._linear_default_(weight, bias)


class MaxPool2d(Module):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride if stride is not None else kernel_size, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def forward(self, x: Tensor) -> Any:
        return ops.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                              self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Tensor) -> Tensor:
        return ops.flatten(x, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:  # inplace: x.relu_(), as PyTorch's F.relu(x, inplace=True)
        super().__init__()
        self.inplace = inplace

    def forward(self, x: Tensor) -> Tensor:
        return x.relu_() if self.inplace else ops.relu(x)  # type: ignore[attr-defined]

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class GELU(Module):
    """GELU, exact or ``approximate='tanh'``."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        return functional.gelu(x, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Sigmoid(Module):
    def forward(self, x: Tensor) -> Tensor:
        return ops.sigmoid(x)


class Tanh(Module):
    def forward(self, x: Tensor) -> Tensor:
        return ops.tanh(x)


class CrossEntropyLoss(Module):
    """``functional.cross_entropy`` with its options fixed (weight, ignore_index, reduction, label_smoothing)."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__()
        if isinstance(weight, str):  # the old positional reduction: CrossEntropyLoss("sum")
            weight, reduction = None, weight
        self.weight, self.ignore_index, self.reduction, self.label_smoothing = weight, ignore_index, reduction, label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return functional.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction, self.label_smoothing)


class MSELoss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return functional.mse_loss(input, target, reduction=self.reduction)


# More layers with PyTorch's names (they subclass Module, so they are imported last).
from .layers import (  # noqa: E402
    BatchNorm1d, BatchNorm2d, BatchNorm3d, Bilinear, Dropout, Embedding, EmbeddingBag, Identity, LayerNorm, Linear, LogSoftmax, ModuleDict,
    ModuleList, ParameterDict, ParameterList, Softmax,
)

__all__ += [
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Bilinear", "Embedding", "EmbeddingBag", "Identity", "LayerNorm", "LogSoftmax", "ModuleDict", "ModuleList",
    "ParameterDict", "ParameterList", "Softmax",
]


from . import utils  # noqa: E402  (clip_grad_norm_, parameters_to_vector, ...)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: E402

__all__ += ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
from .transformer import (  # noqa: E402
    MultiheadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ += ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
            "TransformerDecoder", "Transformer"]

# The lazy layers and their uninitialized parameters (nn/lazy.py, nn/parameter.py).
from . import parameter  # noqa: E402
from .lazy import (  # noqa: E402
    LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConvTranspose1d, LazyConvTranspose2d,
    LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear,
)
from .lazy import LazyConv3d, LazyConvTranspose3d  # noqa: E402
from .parameter import UninitializedBuffer, UninitializedParameter  # noqa: E402

__all__ += ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyBatchNorm1d",
            "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
            "UninitializedParameter", "UninitializedBuffer", "LazyConv3d", "LazyConvTranspose3d"]


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})


# Names imported only for annotations (never evaluated, thanks to ``from __future__ import
# annotations``) leave the namespace: see NOTE [ The namespace is the API ] in minigrad/__init__.py.
del annotations, Any, Iterator


# PyTorch's activation, loss, convolution, pooling and normalization modules, by family.
from .activation import *  # noqa: E402,F401,F403
from . import activation as _activation  # noqa: E402

__all__ += _activation.__all__
from .loss import *  # noqa: E402,F401,F403
from . import loss as _loss  # noqa: E402

__all__ += _loss.__all__
from .pooling import *  # noqa: E402,F401,F403
from .upsampling import *  # noqa: E402,F401,F403
from .flatten import *  # noqa: E402,F401,F403
from . import flatten as _flatten, pooling as _pooling, upsampling as _upsampling  # noqa: E402

__all__ += _pooling.__all__ + _upsampling.__all__ + _flatten.__all__
from .conv import *  # noqa: E402,F401,F403
from . import conv as _conv  # noqa: E402

__all__ += _conv.__all__
from .normalization import *  # noqa: E402,F401,F403
from .distance import *  # noqa: E402,F401,F403
from .padding import *  # noqa: E402,F401,F403
from . import distance as _distance, normalization as _normalization, padding as _padding  # noqa: E402

__all__ += _normalization.__all__ + _distance.__all__ + _padding.__all__
from .fold import *  # noqa: E402,F401,F403
from . import fold as _fold  # noqa: E402

__all__ += _fold.__all__
from .dropout import *  # noqa: E402,F401,F403
from . import dropout as _dropout  # noqa: E402

__all__ += _dropout.__all__
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402  (nn/adaptive.py)

__all__ += ["AdaptiveLogSoftmaxWithLoss"]
from .cross_map_lrn import CrossMapLRN2d  # noqa: E402  (nn/cross_map_lrn.py: PyTorch's legacy Function)

__all__ += ["CrossMapLRN2d"]
from . import parallel  # noqa: E402  (nn/parallel.py: DataParallel and SyncBatchNorm on one machine)
from .parallel import DataParallel, SyncBatchNorm  # noqa: E402

__all__ += ["DataParallel", "SyncBatchNorm"]


def factory_kwargs(kwargs: dict[str, Any] | None) -> dict[str, Any]:
    """``torch.nn.factory_kwargs``: the ``device``/``dtype``/``memory_format`` keywords of ``kwargs`` as one dict for
    a factory (``mg.empty(..., **factory_kwargs(kwargs))``), merged with an explicit ``factory_kwargs`` entry; an
    unknown keyword, or one given twice, is a ``TypeError``."""
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    r = dict(kwargs.get("factory_kwargs", {}))
    for k in simple_keys:
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r


__all__ += ["factory_kwargs"]
from .linear_cross_entropy import LinearCrossEntropyLoss, LinearCrossEntropyOptions  # noqa: E402

__all__ += ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]
