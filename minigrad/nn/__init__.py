"""Layers, containers and losses (``mg.nn``), built on minigrad ops.

Example:
    >>> import minigrad as mg
    >>> mg.manual_seed(0)
    >>> model = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.ReLU(), mg.nn.Linear(8, 3))
    >>> model(mg.randn(2, 4)).shape
    (2, 3)
"""

from __future__ import annotations

import math as _math
from typing import Any, Iterator

from .. import ops
from ..tracing import bus, provenance
from ..autograd.meta import AutogradMeta
from ..tensor import Tensor, generator
from . import functional
from .module_state import ModuleStateMixin

__all__ = [
    "Module", "Parameter", "Linear", "ReLU", "GELU", "Sigmoid", "Tanh", "Sequential", "Dropout", "Flatten",
    "Conv2d", "MaxPool2d", "CrossEntropyLoss", "MSELoss", "functional", "init",
]


class Parameter(Tensor):
    """A leaf tensor that requires grad and is registered by the Module it is assigned to."""

    __slots__ = ()

    def __new__(cls, data: Tensor, requires_grad: bool = True) -> "Parameter":
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be a Tensor, but got {type(data).__name__}")
        p = cls._make(data._data, data._dtype, data._device, data._layout)
        if requires_grad:
            p._meta = AutogradMeta(p._id)
        return p

    def __init__(self, data: Tensor, requires_grad: bool = True) -> None:  # noqa: D401 - set up in __new__
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class Module(ModuleStateMixin):
    """Base class of layers: parameters and submodules assigned as attributes are registered.

    Subclasses define ``forward``; calling the module calls it.
    """

    def __init__(self) -> None:
        # Plain dicts keep insertion order (PyTorch's Module uses them too).
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}: call super().__init__() before assigning attributes")
        # A registered name keeps its kind, as in PyTorch: ``m.w = mg.ones(2)`` would otherwise
        # leave the old Parameter in parameters() (and in the optimizer) while forward uses the new tensor.
        if name in self._parameters and not isinstance(value, Parameter):
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                f"(minigrad.nn.Parameter or None expected)")
            del self._parameters[name]
        elif name in self._modules and not isinstance(value, Module):
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' "
                                f"(minigrad.nn.Module or None expected)")
            del self._modules[name]
        if name in self.__dict__.get("_buffers", {}):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (Tensor or None expected)")
            self._buffers[name] = value
        elif isinstance(value, Parameter):
            self._parameters[name] = value
            self._modules.pop(name, None)
            if value._name is None:
                value.name = name
        elif isinstance(value, Module):
            self._modules[name] = value
            self._parameters.pop(name, None)
            # Parameters are named by their path in the module tree ("0.weight"), so
            # traces, the renderer and the TUI can tell the layers apart.
            for rel, p in value.named_parameters():
                p.name = f"{name}.{rel}"
        object.__setattr__(self, name, value)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if bus.recorder is None:
            return self.forward(*args, **kwargs)
        provenance.enter_module(self)  # so node.create events name the module that made them
        try:
            return self.forward(*args, **kwargs)
        finally:
            provenance.exit_module()

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs, depth first, each parameter once."""
        seen: set[int] = set()
        stack: list[tuple[str, Module]] = [(prefix, self)]
        out: list[tuple[str, Parameter]] = []
        while stack:
            pre, mod = stack.pop(0)
            for name, p in mod._parameters.items():
                if id(p) not in seen:
                    seen.add(id(p))
                    out.append((pre + name, p))
            stack[0:0] = [(pre + name + ".", m) for name, m in mod._modules.items()]
        return iter(out)

    def parameters(self) -> Iterator[Parameter]:
        """All parameters (for an optimizer)."""
        return (p for _, p in self.named_parameters())

    def modules(self) -> Iterator["Module"]:
        """This module and all submodules, depth first."""
        stack: list[Module] = [self]
        while stack:
            m = stack.pop(0)
            yield m
            stack[0:0] = list(m._modules.values())

    # (state_dict, buffers, named_modules, children, apply, to, double ... : ModuleStateMixin)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Set every parameter's ``.grad`` to ``None``."""
        for p in self.parameters():
            p.grad = None

    def train(self, mode: bool = True) -> "Module":
        """Training mode (Dropout active)."""
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> "Module":
        """Evaluation mode (Dropout off)."""
        return self.train(False)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__}({self.extra_repr()}"]
        for name, m in self._modules.items():
            sub = repr(m).replace("\n", "\n  ")
            lines.append(f"  ({name}): {sub}")
        return lines[0] + (")" if len(lines) == 1 else "\n" + "\n".join(lines[1:]) + "\n)")


class init:
    """Parameter initialisers (reproducible with ``mg.manual_seed``)."""

    @staticmethod
    def uniform(shape: tuple[int, ...], bound: float, dtype: Any = None) -> Tensor:
        from .. import dtypes

        dt = dtype or dtypes.float32
        data = generator().uniform(-bound, bound, size=shape).astype(dt.np)
        return Tensor._make(data, dt)


class Linear(Module):
    """``y = x @ W.T + b`` with ``W`` of shape (out_features, in_features), PyTorch's default init."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, dtype: Any = None) -> None:
        super().__init__()
        for nm, v in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise TypeError(f"Linear(): argument '{nm}' must be a positive int, but got {v!r}")
        self.in_features = in_features
        self.out_features = out_features
        bound = 1.0 / _math.sqrt(in_features)
        self.weight = Parameter(init.uniform((out_features, in_features), bound, dtype))
        self.bias = Parameter(init.uniform((out_features,), bound, dtype)) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return functional.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Conv2d(Module):
    """2-D convolution layer (NCHW), with PyTorch's ``dilation``, ``groups`` and string ``padding``."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, dtype: Any = None) -> None:
        super().__init__()
        kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv2d(): in_channels ({in_channels}) and out_channels ({out_channels}) must be divisible by groups ({groups})")
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        bound = 1.0 / _math.sqrt(in_channels // groups * kh * kw)
        self.weight = Parameter(init.uniform((out_channels, in_channels // groups, kh, kw), bound, dtype))
        self.bias = Parameter(init.uniform((out_channels,), bound, dtype)) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        if self.dilation == 1 and self.groups == 1:
            return ops.conv2d(x, self.weight, self.bias, self.stride, self.padding)
        return ops.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class MaxPool2d(Module):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def forward(self, x: Tensor) -> Any:
        return ops.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                              self.return_indices)


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Tensor) -> Tensor:
        return ops.flatten(x, self.start_dim, self.end_dim)


class ReLU(Module):
    def forward(self, x: Tensor) -> Tensor:
        return ops.relu(x)


class GELU(Module):
    """GELU, exact or ``approximate='tanh'``."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        return functional.gelu(x, approximate=self.approximate)


class Sigmoid(Module):
    def forward(self, x: Tensor) -> Tensor:
        return ops.sigmoid(x)


class Tanh(Module):
    def forward(self, x: Tensor) -> Tensor:
        return ops.tanh(x)


class Dropout(Module):
    """Randomly zero elements in training mode (reproducible with ``mg.manual_seed``)."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout(): p must be in [0, 1], but got {p!r}")
        self.p = float(p)

    def forward(self, x: Tensor) -> Tensor:
        return functional.dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class Sequential(Module):
    """Modules applied in order."""

    def __init__(self, *modules: Module) -> None:
        super().__init__()
        for i, m in enumerate(modules):
            if not isinstance(m, Module):
                raise TypeError(f"Sequential(): argument {i} must be a Module, but got {type(m).__name__}")
            setattr(self, str(i), m)

    def forward(self, x: Any) -> Any:
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, i: int) -> Module:
        return list(self._modules.values())[i]

    def __len__(self) -> int:
        return len(self._modules)


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
        return ops.mse_loss(input, target, self.reduction)


# More layers with PyTorch's names (they subclass Module, so they are imported last).
from .layers import (  # noqa: E402
    BatchNorm1d, BatchNorm2d, Embedding, Identity, LayerNorm, LogSoftmax, ModuleDict, ModuleList, Softmax,
)

__all__ += [
    "BatchNorm1d", "BatchNorm2d", "Embedding", "Identity", "LayerNorm", "LogSoftmax", "ModuleDict", "ModuleList",
    "Softmax",
]


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})


# Names imported only for annotations (never evaluated, thanks to ``from __future__ import
# annotations``) leave the namespace: see NOTE [ The namespace is the API ] in minigrad/__init__.py.
del annotations, Any, Iterator
