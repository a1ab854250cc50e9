"""Parameter initialisation (``mg.nn.init``), PyTorch's functions drawing PyTorch's numbers.

Each function fills a tensor in place under ``no_grad`` - a ``Parameter`` is a leaf
that requires grad, which may change in place only there - and returns it. The
random ones draw from the default generator (or ``generator=``) in PyTorch's order,
so ``mg.manual_seed(0); mg.nn.Linear(3, 4)`` holds the weights
``torch.manual_seed(0); torch.nn.Linear(3, 4)`` holds.

The fan of a weight (``_calculate_fan_in_and_fan_out``): for a ``(out, in, *kernel)``
weight, ``fan_in = in * prod(kernel)`` and ``fan_out = out * prod(kernel)``. The
Kaiming and Xavier rules pick a scale from it so activations keep their variance
from layer to layer.

Example:
    >>> import minigrad as mg
    >>> w = mg.empty(3, 5)
    >>> _ = mg.nn.init.kaiming_uniform_(w, mode="fan_in", nonlinearity="relu")
    >>> w.shape
    minigrad.Size([3, 5])
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..autograd import no_grad
from ..ops.sampling import fill_
from ..random import Generator, generator_arg, randperm_array
from ..tensor import Tensor

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_",
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_", "uniform",
    "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
    "orthogonal", "sparse",
]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (the factor the Kaiming/Xavier scales are multiplied by).

    ``linear``/``conv*``/``sigmoid`` 1, ``tanh`` 5/3, ``relu`` sqrt(2), ``leaky_relu``
    sqrt(2 / (1 + slope**2)) (slope ``param``, default 0.01), ``selu`` 3/4.

    Example:
        >>> import minigrad as mg
        >>> round(mg.nn.init.calculate_gain("relu"), 4)
        1.4142
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _tensor_arg(fn: str, tensor: Any) -> Tensor:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{fn}(): argument 'tensor' must be Tensor, but got {type(tensor).__name__}")
    return tensor


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill with U(a, b) in place."""
    _tensor_arg("uniform_", tensor)
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill with N(mean, std**2) in place."""
    _tensor_arg("normal_", tensor)
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: Generator | None = None) -> Tensor:
    """Fill with N(mean, std**2) truncated to [a, b], by rejection as PyTorch samples it.

    When [a, b] holds more than 30% of the mass, normal draws outside it are redrawn
    (a whole tensor of fresh draws per round, as PyTorch does); otherwise uniform
    proposals on [a, b] are accepted with the normal's density relative to its peak.
    """
    _tensor_arg("trunc_normal_", tensor)
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    gen = generator_arg("trunc_normal_", generator)
    dt, n = tensor.dtype, tensor.numel()

    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
        lo, hi = dt.np.type(a), dt.np.type(b)  # the bounds as the tensor's dtype holds them
        result = gen.normal(n, dt, mean, std)
        while True:
            outside = (result < lo) | (result > hi)
            if not outside.any():
                break
            result = np.where(outside, gen.normal(n, dt, mean, std), result)
    else:
        one = dt.np.type
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_density(x: np.ndarray) -> np.ndarray:
            return ((((x - one(mean)) / one(std)) ** 2) * one(-0.5) - one(log_peak)).astype(dt.np)

        result = gen.uniform(n, dt, a, b)
        pending = np.log(gen.uniform(n, dt)) > log_density(result)
        while pending.any():
            candidates = gen.uniform(n, dt, a, b)
            result = np.where(pending, candidates, result)
            pending = np.where(pending, np.log(gen.uniform(n, dt)) > log_density(candidates), pending)
    with no_grad():
        return fill_(tensor, "trunc_normal_", result)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val`` in place."""
    _tensor_arg("constant_", tensor)
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones in place."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros in place."""
    _tensor_arg("zeros_", tensor)
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix (ones on the diagonal) in place."""
    _tensor_arg("eye_", tensor)
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return fill_(tensor, "eye_", np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3/4/5-D convolution weight with the Dirac delta (the convolution then copies its input)."""
    _tensor_arg("dirac_", tensor)
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    values = np.zeros(sizes)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min(per_group, sizes[1])):
            values[(g * per_group + d, d) + centre] = 1
    with no_grad():
        return fill_(tensor, "dirac_", values)


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight of shape ``(out, in, *kernel)``."""
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Glorot: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(_tensor_arg("xavier_uniform_", tensor))
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Glorot: N(0, std**2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(_tensor_arg("xavier_normal_", tensor))
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(fn: str, tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    _tensor_arg(fn, tensor)
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator: Generator | None = None) -> Tensor:
    """He: U(-bound, bound) with ``bound = gain * sqrt(3 / fan)`` (``a``: leaky_relu's slope).

    ``nn.Linear`` and ``nn.Conv2d`` call it with ``a=sqrt(5)``, which makes the bound ``1/sqrt(fan_in)``.
    """
    std = _kaiming_std("kaiming_uniform_", tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator: Generator | None = None) -> Tensor:
    """He: N(0, std**2) with ``std = gain / sqrt(fan)``."""
    std = _kaiming_std("kaiming_normal_", tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Generator | None = None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of a normal matrix, signs fixed by R's diagonal.

    The normal draws are PyTorch's; the QR runs in NumPy's LAPACK, so the result agrees
    with PyTorch's to rounding, not bit for bit.
    """
    _tensor_arg("orthogonal_", tensor)
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    gen = generator_arg("orthogonal_", generator)
    flat = gen.normal(rows * cols, tensor.dtype).reshape(rows, cols)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    with no_grad():
        return fill_(tensor, "orthogonal_", (q * gain).astype(tensor.dtype.np))


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Generator | None = None) -> Tensor:
    """A 2-D matrix from N(0, std**2) with a fraction ``sparsity`` of each column set to zero."""
    _tensor_arg("sparse_", tensor)
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    gen = generator_arg("sparse_", generator)
    values = gen.normal(rows * cols, tensor.dtype, 0.0, std).reshape(rows, cols)
    for col in range(cols):
        values[randperm_array(gen, rows)[:num_zeros], col] = 0
    with no_grad():
        return fill_(tensor, "sparse_", values)


def _linear_default_(weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's ``reset_parameters`` of Linear and the convolutions: Kaiming-uniform weight with
    ``a=sqrt(5)`` (a bound of ``1/sqrt(fan_in)``), then the bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)


def uniform(tensor: Any, a: float = 0.0, b: float = 1.0, dtype: Any = None) -> Tensor:
    """PyTorch's deprecated spelling of ``uniform_``; minigrad's older ``uniform(shape, bound)``
    (a new tensor from U(-bound, bound)) still works when the first argument is a shape."""
    if isinstance(tensor, (tuple, list)):
        dt = _dt.as_dtype(dtype) if dtype is not None else _dt.float32
        out = Tensor._make(np.zeros(tuple(tensor), dt.np), dt)
        return uniform_(out, -a, a)
    _warn_deprecated("uniform", "uniform_")
    return uniform_(tensor, a, b)


def _warn_deprecated(old: str, new: str) -> None:
    warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new}`.", FutureWarning, stacklevel=3)


def _deprecated(fn: Any) -> Any:
    """PyTorch's old names without the trailing underscore: the same function, with a FutureWarning."""
    old = fn.__name__[:-1]

    def deprecated(*args: Any, **kwargs: Any) -> Any:
        _warn_deprecated(old, fn.__name__)
        return fn(*args, **kwargs)

    deprecated.__name__ = old
    deprecated.__doc__ = f"Deprecated: ``{fn.__name__}``."
    return deprecated


normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    return sorted({*__all__, *(n for n in globals() if n.startswith("__"))})
