"""Creation functions: ``mg.tensor``, ``zeros``, ``ones``, ``full``, ``arange``, ``randn``, ``rand``, ``*_like``, and
PyTorch's ``from_numpy``, ``eye``, ``linspace``, ``randint``, ``randperm``, ``multinomial`` (the random ones draw
from the generator ``manual_seed`` seeds).

Each makes a new leaf tensor; ``manual_seed`` makes the random ones (and
``Dropout`` and the ``nn.init`` functions) reproducible.

Example:
    >>> import minigrad as mg
    >>> mg.zeros(2, 3).shape
    (2, 3)
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from . import dtypes as _dt
from .device import Layout, to_numpy
from .dtypes import DType
from .tensor import Tensor, check_device as _check_device, finish as _finish, from_data

__all__ = [
    "tensor", "channels_last", "zeros", "ones", "full", "arange", "randn", "rand", "zeros_like", "ones_like", "full_like",
    "manual_seed", "generator", "from_numpy", "eye", "linspace", "randint", "randperm", "multinomial",
]

_rng = np.random.default_rng()


def _names_allocation_failures(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """Creation functions: NumPy's bare ``MemoryError`` gets the function's name (DESIGN §7).

    NumPy already says how much and which shape (``Unable to allocate 3.64 TiB
    for an array with shape (1000000, 1000000) ...``); the user also needs to
    know which call of theirs asked for it.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Tensor:
        try:
            return fn(*args, **kwargs)
        except MemoryError as exc:
            raise MemoryError(f"{fn.__name__}(): out of memory: {exc}") from None

    return wrapper


def manual_seed(seed: int) -> None:
    """Seed minigrad's random generator (``randn``, ``rand``, ``Dropout``, init)."""
    global _rng
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"manual_seed(): argument 'seed' must be int, but got {type(seed).__name__}")
    _rng = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    """The generator behind ``randn``/``rand`` (reseeded by ``manual_seed``)."""
    return _rng


def tensor(
    data: Any,
    dtype: Any = None,
    device: str = "cpu",
    requires_grad: bool = False,
    name: str | None = None,
    layout: str = "NCHW",
) -> Tensor:
    """A new leaf tensor from data (nested lists, numbers, NumPy arrays or a Tensor).

    Float data gives ``float32``, integer data ``int64``, bools ``bool``
    (NumPy arrays keep their dtype). ``layout="NHWC"`` tags 4-D data given
    in (N, H, W, C) order as channels-last: kernel selection then looks for
    NHWC kernels, and PrepareData transposes to and from NCHW-only kernels
    (``data.transform`` events) - see ``channels_last``.

    Example:
        >>> import minigrad as mg
        >>> mg.tensor([1, 2]).dtype, mg.tensor([1.5]).dtype
        (minigrad.int64, minigrad.float32)
    """
    return from_data(data, dtype, device, requires_grad, name, layout)


def channels_last(x: Tensor, requires_grad: bool | None = None, name: str | None = None) -> Tensor:
    """A new NHWC ("channels last") leaf holding the 4-D NCHW tensor ``x``'s values in (N, H, W, C) order.

    The copy is a new leaf on ``x``'s device (gradients do not flow back to
    ``x``; ``requires_grad`` defaults to ``x``'s). Ops then select NHWC
    kernels where a backend has them, or transpose in and out of NCHW-only
    kernels - each transpose a ``data.transform`` event.

    Example:
        >>> import minigrad as mg
        >>> x = mg.channels_last(mg.zeros(2, 3, 4, 5))
        >>> x.layout, x.shape
        ('NHWC', (2, 4, 5, 3))
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"channels_last(): argument 'x' must be Tensor, but got {type(x).__name__}")
    if x.ndim != 4 or x.layout != Layout.NCHW:
        raise ValueError(f"channels_last(): 'x' must be a 4-D NCHW tensor, but got {x.ndim}-D {x.layout}")
    data = to_numpy(x._data).transpose(0, 2, 3, 1)
    rg = x.requires_grad if requires_grad is None else requires_grad
    return _finish("channels_last", np.ascontiguousarray(data), x._dtype, x._device, rg, name, Layout.NHWC)

def _shape_arg(fn: str, size: Sequence[Any]) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    for i, s in enumerate(size):
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"{fn}(): argument 'size' must be a sequence of ints, but element {i} is {type(s).__name__}")
        if s < 0:
            raise ValueError(f"{fn}(): negative dimension {s} in size {tuple(size)}")
    return tuple(int(s) for s in size)


def _dtype_arg(fn: str, dtype: Any, default: DType) -> DType:
    return default if dtype is None else _dt.as_dtype(dtype, f"{fn}(): argument 'dtype'")


@_names_allocation_failures
def zeros(*size: Any, dtype: Any = None, device: str = "cpu", requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A tensor of zeros of the given size (default dtype float32)."""
    dt = _dtype_arg("zeros", dtype, _dt.float32)
    return _finish("zeros", np.zeros(_shape_arg("zeros", size), dt.np), dt, _check_device("zeros", device), requires_grad, name)


@_names_allocation_failures
def ones(*size: Any, dtype: Any = None, device: str = "cpu", requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A tensor of ones of the given size (default dtype float32)."""
    dt = _dtype_arg("ones", dtype, _dt.float32)
    return _finish("ones", np.ones(_shape_arg("ones", size), dt.np), dt, _check_device("ones", device), requires_grad, name)


@_names_allocation_failures
def full(size: Sequence[int], fill_value: Any, dtype: Any = None, device: str = "cpu", requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from it)."""
    if not isinstance(fill_value, (int, float, bool)):
        raise TypeError(f"full(): argument 'fill_value' (position 1) must be a number, but got {type(fill_value).__name__}")
    default = _dt.bool_ if isinstance(fill_value, bool) else _dt.int64 if isinstance(fill_value, int) else _dt.float32
    dt = _dtype_arg("full", dtype, default)
    shape = _shape_arg("full", (size,) if isinstance(size, (list, tuple)) else (size,))
    return _finish("full", np.full(shape, fill_value, dt.np), dt, _check_device("full", device), requires_grad, name)


@_names_allocation_failures
def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, device: str = "cpu", requires_grad: bool = False) -> Tensor:
    """Values from ``start`` to ``end`` (exclusive) by ``step``; ``arange(n)`` is ``0..n-1``."""
    if end is None:
        start, end = 0, start
    for nm, v in (("start", start), ("end", end), ("step", step)):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise TypeError(f"arange(): argument '{nm}' must be a number, but got {type(v).__name__}")
    if step == 0:
        raise ValueError("arange(): step must be nonzero")
    all_int = all(isinstance(v, int) for v in (start, end, step))
    dt = _dtype_arg("arange", dtype, _dt.int64 if all_int else _dt.float32)
    return _finish("arange", np.arange(start, end, step).astype(dt.np), dt, _check_device("arange", device), requires_grad)


@_names_allocation_failures
def randn(*size: Any, dtype: Any = None, device: str = "cpu", requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Standard normal samples (reproducible with ``manual_seed``)."""
    dt = _dtype_arg("randn", dtype, _dt.float32)
    if not dt.is_floating:
        raise TypeError(f"randn(): dtype must be a float dtype, but got {dt}")
    data = _rng.standard_normal(_shape_arg("randn", size)).astype(dt.np)
    return _finish("randn", data, dt, _check_device("randn", device), requires_grad, name)


@_names_allocation_failures
def rand(*size: Any, dtype: Any = None, device: str = "cpu", requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Uniform samples in [0, 1) (reproducible with ``manual_seed``)."""
    dt = _dtype_arg("rand", dtype, _dt.float32)
    if not dt.is_floating:
        raise TypeError(f"rand(): dtype must be a float dtype, but got {dt}")
    data = _rng.random(_shape_arg("rand", size)).astype(dt.np)
    return _finish("rand", data, dt, _check_device("rand", device), requires_grad, name)


def _like(fn: str, t: Any) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 0) must be Tensor, but got {type(t).__name__}")
    return t


@_names_allocation_failures
def zeros_like(input: Tensor, dtype: Any = None, device: str | None = None, requires_grad: bool = False) -> Tensor:
    """Zeros with ``input``'s shape (and dtype/device unless given)."""
    t = _like("zeros_like", input)
    return zeros(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


@_names_allocation_failures
def ones_like(input: Tensor, dtype: Any = None, device: str | None = None, requires_grad: bool = False) -> Tensor:
    """Ones with ``input``'s shape (and dtype/device unless given)."""
    t = _like("ones_like", input)
    return ones(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


@_names_allocation_failures
def full_like(input: Tensor, fill_value: Any, dtype: Any = None, device: str | None = None, requires_grad: bool = False) -> Tensor:
    """``fill_value`` with ``input``'s shape (and dtype/device unless given)."""
    t = _like("full_like", input)
    return full(t.shape, fill_value, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


# -- PyTorch's other creation functions -------------------------------------------------------


def from_numpy(array: np.ndarray) -> Tensor:
    """A CPU tensor that shares memory with ``array`` (writes to one show in the other), keeping its dtype."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy(): expected np.ndarray, but got {type(array).__name__}")
    return _finish("from_numpy", array, _dt.from_numpy(array.dtype), "cpu", False)


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: str = "cpu", requires_grad: bool = False) -> Tensor:
    """The ``n x m`` identity matrix (``m`` defaults to ``n``)."""
    dt = _dtype_arg("eye", dtype, _dt.float32)
    return _finish("eye", np.eye(n, n if m is None else m, dtype=dt.np), dt, _check_device("eye", device), requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: str = "cpu",
             requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        raise ValueError(f"linspace(): argument 'steps' must be a non-negative int, but got {steps!r}")
    dt = _dtype_arg("linspace", dtype, _dt.float32)
    data = np.linspace(start, end, steps).astype(dt.np)
    return _finish("linspace", data, dt, _check_device("linspace", device), requires_grad)


def randint(low: int, high: int | None = None, size: Any = None, *, dtype: Any = None, device: str = "cpu") -> Tensor:
    """Random integers in ``[low, high)`` of shape ``size``; ``randint(high, size)`` starts at 0 (int64)."""
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if high is None or size is None:
        raise TypeError("randint(): expected randint(low, high, size) or randint(high, size)")
    shape = _shape_arg("randint", tuple(size) if isinstance(size, (tuple, list)) else (size,))
    if high <= low:
        raise ValueError(f"randint(): 'high' ({high}) must be greater than 'low' ({low})")
    dt = _dtype_arg("randint", dtype, _dt.int64)
    data = generator().integers(low, high, size=shape).astype(dt.np)
    return _finish("randint", data, dt, _check_device("randint", device), False)


def randperm(n: int, *, dtype: Any = None, device: str = "cpu") -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"randperm(): argument 'n' must be a non-negative int, but got {n!r}")
    dt = _dtype_arg("randperm", dtype, _dt.int64)
    return _finish("randperm", generator().permutation(n).astype(dt.np), dt, _check_device("randperm", device), False)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False) -> Tensor:
    """Indices drawn from the categorical distribution in each row of ``input`` (weights, not necessarily
    normalised); 1-D input gives ``(num_samples,)``, 2-D input ``(rows, num_samples)``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' (position 0) must be Tensor, but got {type(input).__name__}")
    if input.ndim not in (1, 2):
        raise ValueError(f"multinomial(): input must be 1-D or 2-D, but got shape {tuple(input.shape)}")
    w = to_numpy(input._data).astype(np.float64)
    rows = w.reshape(1, -1) if w.ndim == 1 else w
    if np.any(rows < 0) or np.any(~np.isfinite(rows)) or np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("multinomial(): probabilities must be finite, non-negative and not all zero in a row")
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError(f"multinomial(): cannot draw {num_samples} samples without replacement from {rows.shape[1]} categories")
    rng = generator()
    out = np.stack([rng.choice(rows.shape[1], size=num_samples, replace=replacement, p=r / r.sum()) for r in rows])
    out = out.astype(np.int64)
    return _finish("multinomial", out[0] if w.ndim == 1 else out, _dt.int64, input.device, False)
