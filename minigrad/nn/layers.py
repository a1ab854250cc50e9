"""More layers with PyTorch's names: ``Linear``, ``Dropout``, containers (``ModuleList``, ``ModuleDict``),
``Embedding``, ``LayerNorm``, ``BatchNorm1d``/``BatchNorm2d`` (running statistics, train/eval), ``Softmax``,
``LogSoftmax``, ``Identity``. Each forward calls the function of ``functional``.

Example:
    >>> import minigrad as mg
    >>> _ = mg.manual_seed(0)  # returns the generator, as in PyTorch
    >>> emb = mg.nn.Embedding(10, 4)
    >>> emb(mg.tensor([[1, 2, 3]])).shape
    minigrad.Size([1, 3, 4])
"""

from __future__ import annotations

import math
import warnings
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Iterable, Iterator

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from ..autograd import no_grad
from . import functional as F
from . import init

# ``nn/__init__`` imports this module at its end, once ``Module`` and ``Parameter`` exist.
from .module import Module, Parameter, _indent, _new_parameter, _on_default_device

__all__ = [
    "Linear", "Bilinear", "Dropout", "ModuleList", "ModuleDict", "Embedding", "EmbeddingBag", "LayerNorm", "BatchNorm1d",
    "BatchNorm2d", "Softmax", "LogSoftmax", "Identity",
]


class Linear(Module):
    """``y = x @ W.T + b`` with ``W`` of shape (out_features, in_features), PyTorch's default init."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        for nm, v in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"Linear(): argument '{nm}' must be an int, but got {v!r}")
        if in_features < 0 or out_features < 0:  # (0 is a layer of no units, as PyTorch's)
            bad = in_features if in_features < 0 else out_features
            raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: [{out_features}, {in_features}]")
        self.in_features = in_features
        self.out_features = out_features
        self.weight = _new_parameter((out_features, in_features), dtype, device=device)
        self.bias = _new_parameter((out_features,), dtype, device=device) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's initialisation, drawn from the default generator in PyTorch's order."""
        init._linear_default_(self.weight, self.bias)

    def forward(self, x: Tensor) -> Tensor:
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear`` under the name PyTorch gives ``MultiheadAttention.out_proj`` (``torch/nn/modules/linear.py``),
    so that a printed attention layer reads as PyTorch's."""


class Bilinear(Module):
    """``y = x1^T A x2 + b``: ``weight`` (out_features, in1_features, in2_features) and ``bias`` drawn from
    ``uniform(-1/sqrt(in1_features), 1/sqrt(in1_features))``, in that order (PyTorch's ``reset_parameters``)."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = _new_parameter((out_features, in1_features, in2_features), dtype, device=device)
        self.bias = _new_parameter((out_features,), dtype, device=device) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Dropout(Module):
    """Randomly zero elements in training mode (reproducible with ``mg.manual_seed``)."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:  # inplace: kept for repr, computed out of place
        super().__init__()
        if not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout(): p must be in [0, 1], but got {p!r}")
        self.p = float(p)
        self.inplace = inplace

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class ModuleList(Module):
    """A list of modules, registered under "0", "1", ... (indexable, iterable, appendable)."""

    def __init__(self, modules: Iterable[Any] | None = None) -> None:
        super().__init__()
        for m in modules or ():
            self.append(m)

    def append(self, module: Any) -> "ModuleList":
        if not isinstance(module, Module):
            raise TypeError(f"ModuleList.append(): expected a Module, but got {type(module).__name__}")
        setattr(self, str(len(self._modules)), module)
        return self

    def extend(self, modules: Iterable[Any]) -> "ModuleList":
        for m in modules:
            self.append(m)
        return self

    def __getitem__(self, i: Any) -> Any:
        items = list(self._modules.values())
        return ModuleList(items[i]) if isinstance(i, slice) else items[i]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._modules.values()))

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("ModuleList has no forward(); iterate over it in your own forward()")

    def __repr__(self) -> str:
        """PyTorch's: a run of children that print the same is one entry, ``(0-5): 6 x Block(...)``."""
        runs: list[list[Any]] = []  # [first index, last index, repr]
        for i, m in enumerate(self):
            r = repr(m)
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        if not runs:
            return f"{self._get_name()}()"
        lines = [_indent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}") for a, b, r in runs]
        return f"{self._get_name()}(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules by name, registered under those names."""

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        for k, m in (dict(modules) if modules is not None else {}).items():
            self[k] = m

    def __setitem__(self, key: str, module: Any) -> None:
        if not isinstance(module, Module):
            raise TypeError(f"ModuleDict: value for '{key}' must be a Module, but got {type(module).__name__}")
        setattr(self, key, module)

    def __getitem__(self, key: str) -> Any:
        return self._modules[key]

    def __delitem__(self, key: str) -> None:
        delattr(self, key)

    def pop(self, key: str) -> Any:
        """Remove the module ``key`` and return it."""
        module = self[key]
        del self[key]
        return module

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._modules))

    def keys(self) -> Any:
        return self._modules.keys()

    def values(self) -> Any:
        return self._modules.values()

    def items(self) -> Any:
        return self._modules.items()

def _tensor_lines(items: Iterable[tuple[Any, Any]], describe: Any) -> str:
    """ParameterList's and ParameterDict's ``extra_repr``: one ``(key): Parameter containing: [...]`` line per
    item, as PyTorch's (``torch/nn/modules/container.py``); ``describe`` names a tensor's type."""
    lines = []
    for k, v in items:
        if isinstance(v, Tensor):
            where = f" (cuda:{v.device.index or 0})" if v.device.type == "cuda" else ""  # PyTorch prints cuda:0
            kind = "Parameter" if isinstance(v, Parameter) else "Tensor"
            size = "x".join(str(n) for n in v.shape)
            lines.append(f"  ({k}): {kind} containing: [{describe(v)} of size {size}{where}]")
        else:
            lines.append(f"  ({k}): Object of type: {type(v).__name__}")
    return "\n".join(lines)


def _as_parameter(value: Any) -> Any:
    """A Parameter for a tensor put in a ParameterList/ParameterDict (PyTorch wraps plain tensors too)."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """A list of parameters, registered under "0", "1", ... (indexable, iterable, appendable).

    Example:
        >>> import minigrad as mg
        >>> ps = mg.nn.ParameterList([mg.nn.Parameter(mg.ones(2)) for _ in range(3)])
        >>> len(list(mg.nn.Module.parameters(ps))), [n for n, _ in ps.named_parameters()]
        (3, ['0', '1', '2'])
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        for v in values or ():
            self.append(v)

    def append(self, value: Any) -> "ParameterList":
        setattr(self, str(len(self)), _as_parameter(value))
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        for v in values:
            self.append(v)
        return self

    def __getitem__(self, i: Any) -> Any:
        items = [getattr(self, str(k)) for k in range(len(self))]
        return ParameterList(items[i]) if isinstance(i, slice) else items[i]

    def __setitem__(self, i: int, value: Any) -> None:
        setattr(self, str(range(len(self))[i]), _as_parameter(value))

    def __len__(self) -> int:
        return sum(1 for k in self.__dict__ if k.isdigit())

    def __iter__(self) -> Iterator[Any]:
        return iter([getattr(self, str(k)) for k in range(len(self))])

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("ParameterList has no forward(); use its parameters in your own forward()")

    def extra_repr(self) -> str:
        return _tensor_lines(enumerate(self), lambda t: repr(t.dtype))


class ParameterDict(Module):
    """A dict of parameters by name, registered under those names."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        object.__setattr__(self, "_keys", [])
        if parameters is None:
            return
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            items = parameters.items()
        elif isinstance(parameters, Mapping):
            items = sorted(parameters.items())  # PyTorch's update(): a plain mapping's keys in sorted order
        else:
            items = parameters  # (key, value) pairs, in order
        for k, v in items:
            self[k] = v

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in self._keys:
            self._keys.append(key)
        setattr(self, key, _as_parameter(value))

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._keys))

    def keys(self) -> Any:
        return list(self._keys)

    def values(self) -> Any:
        return [self[k] for k in self._keys]

    def items(self) -> Any:
        return [(k, self[k]) for k in self._keys]

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("ParameterDict has no forward(); use its parameters in your own forward()")

    def extra_repr(self) -> str:
        return _tensor_lines(self.items(), lambda t: t.type())


class Embedding(Module):
    """A lookup table: ``weight[indices]``, weight ``(num_embeddings, embedding_dim)`` from N(0, 1).

    With ``max_norm`` every row a call picks is first scaled down in place to that ``norm_type``-norm
    where it is longer (``F.embedding``); with ``scale_grad_by_freq`` a row's gradient is divided by how
    often its index occurs in the call. ``sparse=True`` (a sparse gradient) is not supported.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight: Tensor | None = None, _freeze: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = padding_idx + num_embeddings if padding_idx < 0 else padding_idx
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = _new_parameter((num_embeddings, embedding_dim), dtype, device=device)
            self.weight.requires_grad_(not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self) -> None:
        """PyTorch's initialisation: N(0, 1) from the default generator, the padding row zeroed."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True, padding_idx: int | None = None,
                        max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> "Embedding":
        """An ``Embedding`` whose weight is ``embeddings`` (its memory, as PyTorch's), trained unless ``freeze``."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings (``F.embedding_bag``), weight ``(num_embeddings,
    embedding_dim)`` from N(0, 1), the padding row zeroed, as ``Embedding``'s. ``sparse=True`` is not supported."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                 _weight: Tensor | None = None, include_last_offset: bool = False, padding_idx: int | None = None,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx = padding_idx + num_embeddings if padding_idx < 0 else padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = _new_parameter((num_embeddings, embedding_dim), dtype, device=device)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    def reset_parameters(self) -> None:
        """PyTorch's initialisation: N(0, 1) from the default generator, the padding row zeroed."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0

    def forward(self, input: Tensor, offsets: Tensor | None = None, per_sample_weights: Tensor | None = None) -> Tensor:
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                        sparse: bool = False, include_last_offset: bool = False,
                        padding_idx: int | None = None) -> "EmbeddingBag":
        """An ``EmbeddingBag`` whose weight is ``embeddings`` (its memory), trained unless ``freeze``."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, max_norm=max_norm,
                  norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad_(not freeze)
        return bag

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

class LayerNorm(Module):
    """Normalise over the last dims; learnable ``weight`` (ones) and ``bias`` (zeros)."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = _new_parameter(self.normalized_shape, dtype, 1.0, device) if elementwise_affine else None
        self.bias = _new_parameter(self.normalized_shape, dtype, 0.0, device) if elementwise_affine and bias else None

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")

class _BatchNorm(Module):
    expected_dims: tuple[int, ...] = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        dt = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = _new_parameter(num_features, dt, 1.0, device) if affine else None
        # (PyTorch 2.13's ``bias=False``: an affine scale without a shift)
        self.bias = _new_parameter(num_features, dt, 0.0, device) if affine and bias else None
        if track_running_stats:
            self.register_buffer("running_mean", _on_default_device(Tensor._make(np.zeros(num_features, dt.np), dt), device))
            self.register_buffer("running_var", _on_default_device(Tensor._make(np.ones(num_features, dt.np), dt), device))
            self.register_buffer("num_batches_tracked",
                                 _on_default_device(Tensor._make(np.zeros((), np.int64), _dt.int64), device))
        else:
            self.running_mean = self.running_var = None

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        # (a channel count other than num_features is refused by batch_norm, in PyTorch's words:
        # "running_mean should contain 4 elements not 3")
        use_batch = self.training or not self.track_running_stats
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked._data = self.num_batches_tracked._data + 1
            if self.momentum is None:  # a cumulative average: batch k weighs 1/k (the count read: a sync on a GPU)
                momentum = 1.0 / float(self.num_batches_tracked._data)
        return F.batch_norm(input, self.running_mean if self.track_running_stats else None,
                            self.running_var if self.track_running_stats else None, self.weight, self.bias,
                            training=use_batch, momentum=momentum, eps=self.eps)

    def reset_running_stats(self) -> None:
        """The running statistics back to their start (mean 0, variance 1, no batch counted), as PyTorch's."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def _check_input_dim(self, input: Tensor) -> None:
        """PyTorch's check of the input's rank, in its words (``expected 2D or 3D input (got 4D input)``)."""
        if input.ndim not in self.expected_dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self.expected_dims)} input (got {input.ndim}D input)")

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")

class BatchNorm1d(_BatchNorm):
    """Batch norm over ``(N, C)`` or ``(N, C, L)``."""

    expected_dims = (2, 3)

class BatchNorm2d(_BatchNorm):
    """Batch norm over ``(N, C, H, W)``."""

    expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm over ``(N, C, D, H, W)``."""

    expected_dims = (5,)

def _implicit_dim(name: str, dim: int | None, input: Tensor) -> int:
    """``dim`` or, when it is None, PyTorch's implicit choice (``torch/nn/functional.py``'s
    ``_get_softmax_dim``: 0 for 0-, 1- and 3-D inputs, else 1), with PyTorch's warning."""
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                  "dim=X as an argument.", stacklevel=4)
    return 0 if input.ndim in (0, 1, 3) else 1


class Softmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, _implicit_dim("softmax", self.dim, input))

    def extra_repr(self) -> str:
        return f"dim={self.dim}"

class LogSoftmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, _implicit_dim("log_softmax", self.dim, input))

    def extra_repr(self) -> str:
        return f"dim={self.dim}"

class Identity(Module):
    """Returns its input (a placeholder layer)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input
