"""Activation modules (``mg.nn.SiLU``, ``mg.nn.LeakyReLU`` ...), as PyTorch's ``torch/nn/modules/activation.py``.

Each module keeps its options and calls the function of ``functional`` in
``forward``; only ``PReLU`` holds a parameter (``weight``, one slope or one per
channel). ``inplace=True`` writes the result into the input, as PyTorch's (see
``minigrad.ops.activation.inplace_form``). ``ReLU``, ``GELU``, ``Sigmoid``,
``Tanh``, ``Softmax`` and ``LogSoftmax`` are older and live in ``nn/__init__.py``
and ``nn/layers.py``.

Example:
    >>> import minigrad as mg
    >>> mg.nn.LeakyReLU(0.2)(mg.tensor([-1.0, 2.0])).tolist()
    [-0.20000000298023224, 2.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from . import functional as F
from .module import Module, _new_parameter

__all__ = [
    "SiLU", "LeakyReLU", "ELU", "SELU", "CELU", "ReLU6", "Hardtanh", "Hardswish", "Hardsigmoid", "Mish",
    "Softsign", "Softmin", "Softplus", "LogSigmoid", "Tanhshrink", "GLU", "PReLU",
]


class _Inplace(Module):
    """An activation with PyTorch's ``inplace`` flag (passed to the function; shown by ``repr``)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class SiLU(_Inplace):
    """``x * sigmoid(x)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)


class Hardswish(_Inplace):
    """``x * relu6(x + 3) / 6``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return ""  # PyTorch's Hardswish prints no arguments, inplace or not


class Hardsigmoid(_Inplace):
    """``relu6(x + 3) / 6``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return ""  # PyTorch's Hardsigmoid prints no arguments, inplace or not


class Mish(_Inplace):
    """``x * tanh(softplus(x))``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)


class SELU(_Inplace):
    """``scale * elu(x, alpha)`` with the self-normalising constants."""

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, inplace=self.inplace)


class ReLU6(_Inplace):
    """``min(max(x, 0), 6)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.relu6(input, inplace=self.inplace)


class LeakyReLU(_Inplace):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__(inplace)
        self.negative_slope = negative_slope

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, inplace=self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(_Inplace):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(inplace)
        self.alpha = alpha

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, inplace=self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, inplace=self.inplace)


class Hardtanh(_Inplace):
    """``x`` clamped into ``[min_val, max_val]``."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__(inplace)
        if min_val > max_val:
            raise ValueError(f"Hardtanh(): min_val ({min_val}) cannot be greater than max_val ({max_val})")
        self.min_val, self.max_val = min_val, max_val

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, inplace=self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softmin(Module):
    """``softmax(-x, dim)``."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softsign(Module):
    """``x / (1 + |x|)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class LogSigmoid(Module):
    """``log(sigmoid(x))``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Tanhshrink(Module):
    """``x - tanh(x)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class GLU(Module):
    """Gated linear unit along ``dim``: ``a * sigmoid(b)`` of the two halves."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """Leaky ReLU with a learnt slope: ``weight`` of shape ``(num_parameters,)``, filled with ``init``."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = _new_parameter((num_parameters,), dtype, init, device)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Threshold(_Inplace):
    """``x`` where ``x > threshold``, ``value`` elsewhere."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__(inplace)
        self.threshold, self.value = threshold, value

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, inplace=self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class Hardshrink(Module):
    """``x`` where ``|x| > lambd``, 0 elsewhere."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """Shrink towards 0 by ``lambd``, 0 inside ``[-lambd, lambd]``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of ``(N, C, H, W)`` or ``(C, H, W)``."""

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input with 3 or 4 dimensions, but got {input.ndim}")
        return F.softmax(input, -3)


__all__ += ["Threshold", "Hardshrink", "Softshrink", "Softmax2d"]


class RReLU(_Inplace):
    """Randomized leaky ReLU: a slope drawn from ``[lower, upper]`` for each element ``<= 0`` in training, their
    mean in evaluation (``F.rrelu``; ``inplace`` runs ``rrelu_``)."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__(inplace)
        self.lower, self.upper = lower, upper

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


__all__ += ["RReLU"]
