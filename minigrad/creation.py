"""Creation functions: ``mg.tensor``, ``zeros``, ``ones``, ``full``, ``arange``, ``randn``, ``rand``, ``*_like``, and
PyTorch's ``from_numpy``, ``eye``, ``linspace``, ``logspace``, ``randint``, ``randperm``, ``multinomial`` (the random ones draw
from the generator ``manual_seed`` seeds).

Each makes a new leaf tensor; ``manual_seed`` makes the random ones (and
``Dropout`` and the ``nn.init`` functions) reproducible.

Example:
    >>> import minigrad as mg
    >>> mg.zeros(2, 3).shape
    minigrad.Size([2, 3])
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from .errors import ShapeError
from . import flags as _flags
from . import dtypes as _dt
from . import random as _random
from .devices import (Layout, array_module, as_memory_format, canonical_device, check_memory_format_rank,
                      contiguous_format, filled_array, format_strides, made_array, memory_format, preserve_format,
                      row_major_strides, dense_strides_in_order, to_numpy)
from .devices import _non_overlapping_and_dense as dense
from .dtypes import DType
from .ranges import arange_array, linspace_array, logspace_array
from .random import (
    Generator, generator_arg, manual_seed, multinomial_array, randint_array, randperm_array,
)
from .size import Size
from .tracing import bus
from .tracing.profiling import scope
from .tensor import Tensor, VersionCounter, check_device as _check_device, finish as _finish, from_data

__all__ = [
    "tensor", "channels_last", "zeros", "ones", "full", "arange", "randn", "rand", "zeros_like", "ones_like", "full_like",
    "manual_seed", "generator", "from_numpy", "eye", "linspace", "logspace", "randint", "randperm", "multinomial",
]

def _names_allocation_failures(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """Creation functions: NumPy's bare ``MemoryError`` gets the function's name (docs/architecture.md, bad input),
    and a profile shows the call as PyTorch's shows its operator (``aten::zeros``).

    NumPy already says how much and which shape (``Unable to allocate 3.64 TiB
    for an array with shape (1000000, 1000000) ...``); the user also needs to
    know which call of theirs asked for it.
    """

    ranged = f"aten::{fn.__name__}"  # a profile's range for the call, as PyTorch names its operator

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Tensor:
        try:
            if bus.recorder is None:
                return fn(*args, **kwargs)
            with scope(ranged, "create"):  # (the tensor returned as it is: its line still names it)
                return fn(*args, **kwargs)
        except MemoryError as exc:
            raise MemoryError(f"{fn.__name__}(): out of memory: {exc}") from None

    return wrapper


def generator() -> Generator:
    """The default generator (``mg.random.default_generator``), which ``manual_seed`` seeds."""
    return _random.default_generator


def tensor(
    data: Any,
    dtype: Any = None,
    device: Any = None,
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
    if isinstance(data, Tensor):
        _warn_copy_construct("minigrad.tensor(sourceTensor)")
    return from_data(data, dtype, device, requires_grad, name, layout)


def _warn_copy_construct(call: str) -> None:
    """PyTorch's warning for ``tensor(t)``: it copies and detaches, which ``t.detach().clone()`` says plainly."""
    warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                  f"sourceTensor.detach().clone().requires_grad_(True), rather than {call}.", UserWarning, stacklevel=3)


class _ChannelsLast(memory_format):
    """``minigrad.channels_last``: PyTorch's memory format (``x.to(memory_format=minigrad.channels_last)``,
    ``x.is_contiguous(memory_format=...)``: an NCHW tensor whose channels are its fastest dim in memory), and,
    called, Paddle's NHWC layout (``minigrad.channels_last(x)``: a tensor of shape (N, H, W, C) whose kernels
    PrepareData selects or transforms to - the layout lesson's)."""

    __slots__ = ()

    def __call__(self, x: Tensor, requires_grad: bool | None = None, name: str | None = None) -> Tensor:
        return _nhwc_leaf(x, requires_grad, name)


channels_last = _ChannelsLast("channels_last")


def _nhwc_leaf(x: Tensor, requires_grad: bool | None = None, name: str | None = None) -> Tensor:
    """A new NHWC ("channels last") leaf holding the 4-D NCHW tensor ``x``'s values in (N, H, W, C) order.

    The copy is a new leaf on ``x``'s device (gradients do not flow back to
    ``x``; ``requires_grad`` defaults to ``x``'s). Ops then select NHWC
    kernels where a backend has them, or transpose in and out of NCHW-only
    kernels - each transpose a ``data.transform`` event.

    Example:
        >>> import minigrad as mg
        >>> x = mg.channels_last(mg.zeros(2, 3, 4, 5))
        >>> x.layout, x.shape
        ('NHWC', minigrad.Size([2, 4, 5, 3]))
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
            raise ShapeError(f"{fn}(): negative dimension {s} in size {tuple(size)}")
    return tuple(int(s) for s in size)


def _dtype_arg(fn: str, dtype: Any, default: DType) -> DType:
    return default if dtype is None else _dt.as_dtype(dtype, f"{fn}(): argument 'dtype'")


def _filled(shape: tuple[int, ...], value: Any, dt: DType, device: str) -> Any:
    """The array of a ``zeros``/``ones``/``full``/``empty``: NumPy's on the CPU; on another device made there,
    by a fill kernel given the value (PyTorch's CUDA factories copy nothing from the host either).
    bfloat16 is made on the host (NumPy knows it through ml_dtypes) and copied."""
    if device == "cpu" or dt is _dt.bfloat16:
        if type(value) is int and value in (0, 1):  # zeros, ones, empty: NumPy's own (zeros are calloc'ed)
            return np.zeros(shape, dt.np) if value == 0 else np.ones(shape, dt.np)
        return np.full(shape, value, dt.np)
    return filled_array(shape, value, dt.np, device)


def _unset(dt: DType) -> Any:
    """What ``empty`` holds: zeros, or - under ``use_deterministic_algorithms`` with
    ``utils.deterministic.fill_uninitialized_memory`` - PyTorch's fill: NaN for floats, True for bool, an integer
    type's largest value (``minigrad/determinism.py``)."""
    if not (_flags.deterministic_algorithms and _flags.fill_uninitialized_memory):
        return 0
    if dt.is_floating_point or dt.is_complex:
        return float("nan")
    return True if dt is _dt.bool_ else int(np.iinfo(dt.np).max)


@_names_allocation_failures
def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A tensor of zeros of the given size (default dtype float32)."""
    dt = _dtype_arg("zeros", dtype, _dt.default_float())
    device = _check_device("zeros", device)
    return _finish("zeros", _filled(_shape_arg("zeros", size), 0, dt, device), dt, device, requires_grad, name)


@_names_allocation_failures
def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A tensor of ones of the given size (default dtype float32)."""
    dt = _dtype_arg("ones", dtype, _dt.default_float())
    device = _check_device("ones", device)
    return _finish("ones", _filled(_shape_arg("ones", size), 1, dt, device), dt, device, requires_grad, name)


@_names_allocation_failures
def full(size: Sequence[int], fill_value: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from it)."""
    if not isinstance(fill_value, (int, float, bool)):
        raise TypeError(f"full(): argument 'fill_value' (position 1) must be a number, but got {type(fill_value).__name__}")
    default = _dt.bool_ if isinstance(fill_value, bool) else _dt.int64 if isinstance(fill_value, int) else _dt.default_float()
    dt = _dtype_arg("full", dtype, default)
    shape = _shape_arg("full", (size,) if isinstance(size, (list, tuple)) else (size,))
    device = _check_device("full", device)
    return _finish("full", _filled(shape, fill_value, dt, device), dt, device, requires_grad, name)


def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding the number ``s`` (``torch.scalar_tensor``): in the default float dtype unless
    ``dtype`` says otherwise, an int or a bool too (``scalar_tensor(3)`` is ``tensor(3.)``)."""
    if not isinstance(s, (int, float, bool)):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not {type(s).__name__}")
    return full((), s, dtype=_dtype_arg("scalar_tensor", dtype, _dt.default_float()), device=device,
                requires_grad=requires_grad)


@_names_allocation_failures
def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Values from ``start`` to ``end`` (exclusive) by ``step``; ``arange(n)`` is ``0..n-1``."""
    if end is None:
        start, end = 0, start
    for nm, v in (("start", start), ("end", end), ("step", step)):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise TypeError(f"arange(): argument '{nm}' must be a number, but got {type(v).__name__}")
    all_int = all(isinstance(v, int) for v in (start, end, step))
    dt = _dtype_arg("arange", dtype, _dt.int64 if all_int else _dt.default_float())
    _check_range(start, end, step, dt is _dt.int64)
    device = _check_device("arange", device)
    data = None
    if device != "cpu" and dt.is_integer and all(isinstance(v, int) for v in (start, end, step)):
        data = made_array("arange", device, start, end, step, dtype=dt.np)  # exact: integers throughout
    if data is None:  # PyTorch's values, bit for bit (ranges.py); on another device, copied there
        data = arange_array(start, end, step, np.dtype(dt.np))
    return _finish("arange", data, dt, device, requires_grad)


def _check_range(start: Any, end: Any, step: Any, integral: bool) -> None:
    """PyTorch's checks of an ``arange``; an int64 output (``integral``) checks its arguments truncated."""
    if integral:
        start, end, step = (math.trunc(v) if math.isfinite(v) else v for v in (start, end, step))
    if not (math.isfinite(start) and math.isfinite(end)):
        raise ShapeError(f"unsupported range: {start} -> {end}")
    if step == 0:
        raise ShapeError("step must be nonzero")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise ShapeError("upper bound and lower bound inconsistent with step sign")


@_names_allocation_failures
def randn(*size: Any, generator: Generator | None = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False, name: str | None = None, **kwargs: Any) -> Tensor:
    """Standard normal samples, PyTorch's numbers for the same seed (``manual_seed`` or ``generator=``).

    Example:
        >>> import minigrad as mg
        >>> g = mg.Generator().manual_seed(2147483647)
        >>> mg.randn(3, generator=g)
        tensor([-0.9800, -1.6578, -0.0572])
    """
    size_kw = _size_keyword("randn", kwargs)
    gen = generator_arg("randn", generator)
    dt = _float_dtype_arg("randn", dtype)
    shape = _shape_arg("randn", size if size or size_kw is None else (size_kw,))
    device = _check_device("randn", device)
    data = _random.device_draws("normal", shape, dt.np, device, 0.0, 1.0, generator=generator)
    if data is None:
        data = gen.normal(int(np.prod(shape)), dt).reshape(shape)
    return _finish("randn", data, dt, device, requires_grad, name)


@_names_allocation_failures
def rand(*size: Any, generator: Generator | None = None, dtype: Any = None, device: Any = None,
         requires_grad: bool = False, name: str | None = None, **kwargs: Any) -> Tensor:
    """Uniform samples in [0, 1), PyTorch's numbers for the same seed (``manual_seed`` or ``generator=``)."""
    size_kw = _size_keyword("rand", kwargs)
    gen = generator_arg("rand", generator)
    dt = _float_dtype_arg("rand", dtype)
    shape = _shape_arg("rand", size if size or size_kw is None else (size_kw,))
    device = _check_device("rand", device)
    data = _random.device_draws("uniform", shape, dt.np, device, 0.0, 1.0, generator=generator)
    if data is None:
        data = gen.uniform(int(np.prod(shape)), dt).reshape(shape)
    return _finish("rand", data, dt, device, requires_grad, name)


def _size_keyword(fn: str, kwargs: dict[str, Any]) -> Any:
    """PyTorch's ``size=`` keyword (``randn(size=(2, 3))``); anything else is an unknown keyword."""
    size = kwargs.pop("size", None)
    if kwargs:
        raise TypeError(f"{fn}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return size


def _float_dtype_arg(fn: str, dtype: Any) -> DType:
    dt = _dtype_arg(fn, dtype, _dt.default_float())
    if not dt.is_floating:
        raise TypeError(f"{fn}(): dtype must be a float dtype, but got {dt}")
    return dt


def _like(fn: str, t: Any) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 0) must be Tensor, but got {type(t).__name__}")
    return t


def _like_strides(fn: str, t: Tensor, device: Any, fmt: Any) -> tuple[int, ...] | None:
    """The strides (elements) of a ``*_like``'s result by its ``memory_format``, as PyTorch's ``empty_like``
    allocates it, or None for row-major: ``preserve_format`` keeps the input's strides where it is dense (and
    stays on its device), else dense ones in the order of its strides (a slice of a channels-last image is
    channels last); ``contiguous_format`` is row-major; a channels-last format its own strides."""
    fmt = as_memory_format(fn, fmt, None)
    if fmt == "preserve_format":
        data = t._data
        if data.ndim < 2 or canonical_device(device or t.device) != t.device:
            return None
        steps = tuple(s // data.itemsize for s in data.strides)
        if not dense(data):
            steps = dense_strides_in_order(tuple(data.shape), steps)
        return None if steps == row_major_strides(data.shape) else steps
    if fmt == "contiguous_format":
        return None
    check_memory_format_rank(fmt, t.ndim)
    return format_strides(tuple(t.shape), fmt)


def _laid_out(out: Tensor, strides: tuple[int, ...] | None) -> Tensor:
    """``out`` (a new tensor, row-major) given ``strides`` over its own buffer, whose memory order then holds
    its values in the order they were made (a constant's stay what they are)."""
    if strides is not None:
        data = out._data
        xp = array_module(out._device)
        steps = tuple(s * data.itemsize for s in strides)  # (a view of the buffer: its base is set, as a kernel's)
        out._data = xp.lib.stride_tricks.as_strided(data.reshape(-1), data.shape, steps).view()
    return out


def _sampled_like(fn: str, t: Tensor, dtype: Any, device: Any, requires_grad: bool, fill: Any,
                  fmt: Any) -> Tensor | None:
    """A ``rand_like``/``randn_like``/``randint_like`` laid out other than row-major (``_like_strides``), as
    PyTorch makes it: ``empty_like`` then the in-place sampler ``fill``, which draws in memory order on the CPU
    (NOTE [ Draws land in memory order ] in ops/sampling.py). None where the result is row-major."""
    strides = _like_strides(fn, t, device, fmt)
    if strides is None:
        return None
    out = _laid_out(empty(t.shape, dtype=dtype, device=device or t.device), strides)
    fill(out)
    return out.requires_grad_(requires_grad) if requires_grad else out


@_names_allocation_failures
def zeros_like(input: Tensor, dtype: Any = None, device: str | None = None, requires_grad: bool = False, *,
               memory_format: Any = preserve_format) -> Tensor:
    """Zeros with ``input``'s shape (and dtype/device unless given)."""
    t = _like("zeros_like", input)
    return _laid_out(zeros(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad),
                     _like_strides("zeros_like", t, device, memory_format))


@_names_allocation_failures
def ones_like(input: Tensor, dtype: Any = None, device: str | None = None, requires_grad: bool = False, *,
              memory_format: Any = preserve_format) -> Tensor:
    """Ones with ``input``'s shape (and dtype/device unless given)."""
    t = _like("ones_like", input)
    return _laid_out(ones(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad),
                     _like_strides("ones_like", t, device, memory_format))


@_names_allocation_failures
def full_like(input: Tensor, fill_value: Any, dtype: Any = None, device: str | None = None, requires_grad: bool = False,
              *, memory_format: Any = preserve_format) -> Tensor:
    """``fill_value`` with ``input``'s shape (and dtype/device unless given)."""
    t = _like("full_like", input)
    return _laid_out(full(t.shape, fill_value, dtype=dtype or t.dtype, device=device or t.device,
                          requires_grad=requires_grad), _like_strides("full_like", t, device, memory_format))


# -- PyTorch's other creation functions -------------------------------------------------------


def from_numpy(array: np.ndarray) -> Tensor:
    """A CPU tensor that shares memory with ``array`` (writes to one show in the other), keeping its dtype."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy(): expected np.ndarray, but got {type(array).__name__}")
    return _finish("from_numpy", array, _dt.from_numpy(array.dtype), "cpu", False)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, sharing memory where it can (``torch.as_tensor``): a Tensor of the asked dtype
    and device is returned itself, a NumPy array of a dtype minigrad has is wrapped without a copy (as
    ``from_numpy``); anything else is copied, as ``tensor(data)`` does."""
    if isinstance(data, Tensor):
        out = data if dtype is None else data.to(_dtype_arg("as_tensor", dtype, data.dtype))
        return out if device is None else out.to(device)
    dt = None if dtype is None else _dtype_arg("as_tensor", dtype, None)
    if (isinstance(data, np.ndarray) and _check_device("as_tensor", device) == "cpu"
            and data.dtype in _dt.BY_NUMPY and (dt is None or dt.np == data.dtype)):
        return from_numpy(data)
    return tensor(data, dtype=dt, device=device)


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """The ``n x m`` identity matrix (``m`` defaults to ``n``)."""
    dt = _dtype_arg("eye", dtype, _dt.default_float())
    device = _check_device("eye", device)
    m = n if m is None else m
    data = None
    if device != "cpu" and dt is not _dt.bfloat16 and all(type(v) is int and v >= 0 for v in (n, m)):
        data = made_array("eye", device, n, m, dtype=dt.np)  # made there; bad sizes raise on the host path
    return _finish("eye", np.eye(n, m, dtype=dt.np) if data is None else data, dt, device, requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        raise ShapeError(f"linspace(): argument 'steps' must be a non-negative int, but got {steps!r}")
    dt = _dtype_arg("linspace", dtype, _dt.default_float())
    data = linspace_array(start, end, steps, np.dtype(dt.np))  # PyTorch's values, bit for bit (ranges.py)
    return _finish("linspace", data, dt, _check_device("linspace", device), requires_grad)


def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """``steps`` values ``base ** e``, the exponents ``e`` evenly spaced from ``start`` to ``end`` inclusive.

    Example:
        >>> import minigrad as mg
        >>> mg.logspace(0, 2, 3).tolist()
        [1.0, 10.0, 100.0]
    """
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        raise ShapeError(f"logspace(): argument 'steps' must be a non-negative int, but got {steps!r}")
    dt = _dtype_arg("logspace", dtype, _dt.default_float())
    data = logspace_array(start, end, steps, base, np.dtype(dt.np))  # PyTorch's values (ranges.py)
    # Made on the host and copied, as linspace's: a handful of numbers
    return _finish("logspace", data, dt, _check_device("logspace", device), requires_grad)


def randint(low: int, high: Any = None, size: Any = None, *, generator: Generator | None = None,
            dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Random integers in ``[low, high)`` of shape ``size``; ``randint(high, size)`` starts at 0 (int64).

    Example:
        >>> import minigrad as mg
        >>> g = mg.Generator().manual_seed(2147483647)
        >>> mg.randint(0, 10, (5,), generator=g)
        tensor([1, 4, 9, 2, 3])
    """
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if high is None or size is None:
        raise TypeError("randint(): expected randint(low, high, size) or randint(high, size)")
    for nm, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"randint(): argument '{nm}' must be int, but got {type(v).__name__}")
    shape = _shape_arg("randint", tuple(size) if isinstance(size, (tuple, list)) else (size,))
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    gen = generator_arg("randint", generator)
    dt = _dtype_arg("randint", dtype, _dt.int64)
    device = _check_device("randint", device)
    data = _random.device_draws("randint", shape, dt.np, device, int(low), int(high), generator=generator)
    if data is None:
        data = randint_array(gen, int(np.prod(shape)), int(low), int(high)).reshape(shape).astype(dt.np)
    return _finish("randint", data, dt, device, requires_grad)


def randperm(n: int, *, generator: Generator | None = None, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64), PyTorch's for the same seed."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"randperm(): n must be non-negative, got {n}")
    gen = generator_arg("randperm", generator)
    dt = _dtype_arg("randperm", dtype, _dt.int64)
    data = randperm_array(gen, int(n)).astype(dt.np)
    return _finish("randperm", data, dt, _check_device("randperm", device), requires_grad)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:
    """Indices drawn from the categorical distribution in each row of ``input`` (weights, not necessarily
    normalised); 1-D input gives ``(num_samples,)``, 2-D input ``(rows, num_samples)``.

    Example (the makemore lecture's sampling step):
        >>> import minigrad as mg
        >>> g = mg.Generator().manual_seed(2147483647)
        >>> p = mg.tensor([0.1, 0.2, 0.7])
        >>> mg.multinomial(p, num_samples=1, replacement=True, generator=g)
        tensor([2])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' (position 0) must be Tensor, but got {type(input).__name__}")
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)):
        raise TypeError(f"multinomial(): argument 'num_samples' (position 1) must be int, not {type(num_samples).__name__}")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim, but got shape {tuple(input.shape)}")
    if not input.dtype.is_floating:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    gen = generator_arg("multinomial", generator)
    w = to_numpy(input._data)
    rows = w.reshape(1, -1) if w.ndim == 1 else w
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if np.any(~np.isfinite(rows)) or np.any(rows < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    work = rows.astype(np.float64 if w.dtype == np.float64 else np.float32)
    out = multinomial_array(gen, work, int(num_samples), bool(replacement))
    return _finish("multinomial", out[0] if w.ndim == 1 else out, _dt.int64, input.device, False)


# -- random tensors shaped like another, and PyTorch's normal / bernoulli --------------------------


def _like_dtype(fn: str, t: Tensor, dtype: Any, need_float: bool) -> DType:
    dt = t.dtype if dtype is None else _dt.as_dtype(dtype, f"{fn}(): argument 'dtype'")
    if need_float and not dt.is_floating:
        raise RuntimeError(f"{fn}(): expected a floating point dtype, but got {dt}")
    return dt


def rand_like(input: Tensor, *, generator: Generator | None = None, dtype: Any = None, device: Any = None,
              requires_grad: bool = False, memory_format: Any = preserve_format) -> Tensor:
    """``rand`` with ``input``'s shape (and dtype/device unless given)."""
    t = _like("rand_like", input)
    dt = _like_dtype("rand_like", t, dtype, True)
    kept = _sampled_like("rand_like", t, dt, device, requires_grad, lambda o: o.uniform_(0.0, 1.0, generator=generator),
                         memory_format)
    if kept is not None:
        return kept
    return rand(t.shape, generator=generator, dtype=dt, device=device or t.device, requires_grad=requires_grad)


def randn_like(input: Tensor, *, generator: Generator | None = None, dtype: Any = None, device: Any = None,
               requires_grad: bool = False, memory_format: Any = preserve_format) -> Tensor:
    """``randn`` with ``input``'s shape (and dtype/device unless given)."""
    t = _like("randn_like", input)
    dt = _like_dtype("randn_like", t, dtype, True)
    kept = _sampled_like("randn_like", t, dt, device, requires_grad, lambda o: o.normal_(0.0, 1.0, generator=generator),
                         memory_format)
    if kept is not None:
        return kept
    return randn(t.shape, generator=generator, dtype=dt, device=device or t.device, requires_grad=requires_grad)


def randint_like(input: Tensor, low: int = 0, high: int | None = None, *, generator: Generator | None = None,
                 dtype: Any = None, device: Any = None, requires_grad: bool = False, memory_format: Any = preserve_format) -> Tensor:
    """``randint`` with ``input``'s shape (and dtype/device unless given); ``randint_like(x, high)`` starts at 0."""
    t = _like("randint_like", input)
    if high is None:
        low, high = 0, low
    dt = _like_dtype("randint_like", t, dtype, False)
    kept = _sampled_like("randint_like", t, dt, device, requires_grad,
                         lambda o: o.random_(low, high, generator=generator), memory_format)
    if kept is not None:
        return kept
    return randint(low, high, t.shape, generator=generator, dtype=dt, device=device or t.device,
                   requires_grad=requires_grad)


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Generator | None = None, dtype: Any = None,
           device: Any = None, requires_grad: bool = False) -> Tensor:
    """Normal samples: ``normal(mean, std, size)`` with numbers, or elementwise ``mean``/``std`` tensors
    (broadcast together; the noise is drawn as ``randn`` draws it, then scaled and shifted).

    Example:
        >>> import minigrad as mg
        >>> _ = mg.manual_seed(0)
        >>> mg.normal(2.0, 3.0, size=(2,))
        tensor([6.6230, 1.1197])
    """
    gen = generator_arg("normal", generator)
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise TypeError("normal(): with float mean and std, argument 'size' is required")
        for nm, v in (("mean", mean), ("std", std)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"normal(): argument '{nm}' must be float, but got {type(v).__name__}")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        dt = _float_dtype_arg("normal", dtype)
        shape = _shape_arg("normal", tuple(size) if isinstance(size, (tuple, list)) else (size,))
        device = _check_device("normal", device)
        data = _random.device_draws("normal", shape, dt.np, device, float(mean), float(std), generator=generator)
        if data is None:
            data = gen.normal(int(np.prod(shape)), dt, float(mean), float(std)).reshape(shape)
        return _finish("normal", data, dt, device, requires_grad)
    m = to_numpy(mean._data) if mean_t else np.asarray(mean, np.float64)
    sd = to_numpy(std._data) if std_t else np.asarray(std, np.float64)
    ref = mean if mean_t else std
    if not ref.dtype.is_floating:
        raise RuntimeError(f"normal expects floating point mean and std, but got {ref.dtype}")
    if np.any(sd < 0):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    shape = np.broadcast_shapes(m.shape, sd.shape)
    dt = ref.dtype
    noise = gen.normal(int(np.prod(shape)), dt).reshape(shape)
    # PyTorch: output.normal_(0, 1) then mul_(std).add_(mean), each rounded in the output's dtype
    data = (noise * sd.astype(dt.np)).astype(dt.np) + m.astype(dt.np)
    return _finish("normal", data.astype(dt.np), dt, ref.device, requires_grad)


def bernoulli(input: Tensor, p: float | None = None, *, generator: Generator | None = None) -> Tensor:
    """0/1 draws with the probabilities in ``input`` (or the number ``p``), in ``input``'s dtype."""
    t = _like("bernoulli", input)
    gen = generator_arg("bernoulli", generator)
    n = t.numel()
    if p is not None:
        drawn = _random.device_draws("bernoulli", t.shape, t.dtype.np, t.device, float(p), 1.0, generator=generator)
        if drawn is not None:
            return _finish("bernoulli", drawn, t.dtype, t.device, False)
        data = _random.bernoulli_array(gen, float(p), n)
    else:
        probs = to_numpy(t._data)
        if np.any((probs < 0) | (probs > 1)):
            raise RuntimeError("bernoulli(): all elements of input should be between 0 and 1")
        if probs.dtype == np.float64:
            data = _random.bernoulli_array(gen, probs.reshape(-1), n)
        else:
            # a float probability tensor draws float32 uniforms (bernoulli_distribution<float>)
            data = gen.uniform(n, _dt.float32) < probs.reshape(-1).astype(np.float32)
    return _finish("bernoulli", data.reshape(t.shape).astype(t.dtype.np), t.dtype, t.device, False)


@_names_allocation_failures
def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
          memory_format: Any = contiguous_format) -> Tensor:
    """A tensor of the given size whose values are not set (minigrad fills it with zeros, or as PyTorch under
    ``use_deterministic_algorithms``: ``_unset``); row-major, or laid out in a channels-last ``memory_format``."""
    dt = _dtype_arg("empty", dtype, _dt.default_float())
    device = _check_device("empty", device)
    shape = _shape_arg("empty", size)
    fmt = as_memory_format("empty", memory_format, None)
    if fmt == "preserve_format":
        raise RuntimeError("unsupported memory format Preserve")
    if fmt != "contiguous_format":
        check_memory_format_rank(fmt, len(shape))
    out = _finish("empty", _filled(shape, _unset(dt), dt, device), dt, device, requires_grad)
    return out if fmt == "contiguous_format" else _laid_out(out, format_strides(shape, fmt))


def empty_like(input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               memory_format: Any = preserve_format) -> Tensor:
    """``empty`` with ``input``'s shape (and dtype/device unless given)."""
    t = _like("empty_like", input)
    return _laid_out(empty(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad),
                     _like_strides("empty_like", t, device, memory_format))


@_names_allocation_failures
def empty_strided(size: Any, stride: Any, *, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False) -> Tensor:
    """A tensor of ``size`` whose elements lie ``stride`` apart (in elements) in a new storage just large enough
    for them, at offset 0 (``torch.empty_strided``; its values are not set: minigrad's are zeros). Strides
    that read an element twice (0) are allowed, as in PyTorch."""
    shape = _shape_arg("empty_strided", (size,))
    if not isinstance(stride, (list, tuple)) or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                          for v in stride):
        raise TypeError(f"empty_strided(): argument 'stride' must be tuple of ints, but got {type(stride).__name__}")
    steps = tuple(int(v) for v in stride)
    if len(steps) != len(shape):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides ({len(steps)})")
    if any(v < 0 for v in steps):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and strides={list(steps)}")
    dt = _dtype_arg("empty_strided", dtype, _dt.default_float())
    device = _check_device("empty_strided", device)
    length = 0 if 0 in shape else 1 + sum((n - 1) * v for n, v in zip(shape, steps))
    buffer = _filled((length,), _unset(dt), dt, device)
    data = array_module(device).lib.stride_tricks.as_strided(buffer, shape, tuple(v * buffer.itemsize for v in steps))
    out = _finish("empty_strided", data.view(), dt, device, requires_grad)
    out._vc = VersionCounter()
    out._vc.storage = buffer  # (CuPy's as_strided leaves no base to find it by: ``storage_array``)
    return out


__all__ += ["rand_like", "randn_like", "randint_like", "normal", "bernoulli", "empty", "empty_like", "empty_strided",
            "as_tensor"]


# -- Tensor.new_*: new tensors with this tensor's dtype and device (unless given) ----------------------


def _new_args(self: Tensor, fn: str, dtype: Any, device: Any) -> tuple[DType, Any]:
    if not isinstance(self, Tensor):
        raise TypeError(f"{fn}(): 'self' must be Tensor, but got {type(self).__name__}")
    dt = self.dtype if dtype is None else _dt.as_dtype(dtype, f"{fn}(): argument 'dtype'")
    return dt, self.device if device is None else device


def new_zeros(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Zeros of ``size`` with ``self``'s dtype and device (unless given)."""
    dt, dev = _new_args(self, "new_zeros", dtype, device)
    return zeros(*size, dtype=dt, device=dev, requires_grad=requires_grad)


def new_ones(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Ones of ``size`` with ``self``'s dtype and device (unless given)."""
    dt, dev = _new_args(self, "new_ones", dtype, device)
    return ones(*size, dtype=dt, device=dev, requires_grad=requires_grad)


def new_empty(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """An unset tensor of ``size`` with ``self``'s dtype and device (unless given)."""
    dt, dev = _new_args(self, "new_empty", dtype, device)
    return empty(*size, dtype=dt, device=dev, requires_grad=requires_grad)


def new_empty_strided(self: Tensor, size: Any, stride: Any, *, dtype: Any = None, device: Any = None,
                      requires_grad: bool = False) -> Tensor:
    """``empty_strided`` with ``self``'s dtype and device (unless given)."""
    dt, dev = _new_args(self, "new_empty_strided", dtype, device)
    return empty_strided(size, stride, dtype=dt, device=dev, requires_grad=requires_grad)


def new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """``fill_value`` in ``size`` with ``self``'s dtype and device (unless given)."""
    dt, dev = _new_args(self, "new_full", dtype, device)
    return full(size, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)


def new_tensor(self: Tensor, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new leaf holding a copy of ``data``, with ``self``'s dtype and device (unless given)."""
    dt, dev = _new_args(self, "new_tensor", dtype, device)
    if isinstance(data, Tensor):
        _warn_copy_construct("tensor.new_tensor(sourceTensor)")
    return from_data(data, dt, dev, requires_grad, None, "NCHW")


def _options(t: Tensor) -> str:
    return (f"TensorOptions(dtype={_dt.cpp_type_name(t.dtype)}, device={t.device}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def new(self: Tensor, *args: Any, device: Any = None, **kwargs: Any) -> Tensor:
    """PyTorch's legacy constructor, with ``self``'s dtype: ``x.new(2, 3)`` (or a ``Size``) an unset tensor of that
    size, ``x.new([1, 2])`` a tensor of that data, ``x.new()`` an empty one, ``x.new(t)`` ``t``'s memory (``t``
    must have ``self``'s dtype and device)."""
    if kwargs:
        def kind(v: Any) -> str:
            return "torch.dtype" if isinstance(v, DType) else type(v).__name__

        got = ", ".join([kind(a) for a in args] + [f"{k}={kind(v)}" for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        " * (*, torch.device device = None)\n"
                        f"      didn't match because some of the keywords were incorrect: {', '.join(kwargs)}\n"
                        " * (torch.Storage storage)\n * (Tensor other)\n"
                        " * (tuple of ints size, *, torch.device device = None)\n"
                        " * (object data, *, torch.device device = None)\n")
    dev = self.device if device is None else device
    if not args:
        return empty(0, dtype=self.dtype, device=dev)
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other.dtype != self.dtype or other.device != dev:
            raise TypeError(f"expected {_options(self)} (got {_options(other)})")
        return other.detach()  # the same memory, as PyTorch's alias
    if len(args) == 1 and not isinstance(args[0], (int, np.integer, Size)):
        if not isinstance(args[0], (list, tuple, np.ndarray)):
            raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
        return tensor(args[0], dtype=self.dtype, device=dev)
    return empty(*args, dtype=self.dtype, device=dev)


#: the Tensor methods this module defines (attached in ``_tensor_methods``)
TENSOR_METHODS = {"new_zeros": new_zeros, "new_ones": new_ones, "new_empty": new_empty,
                  "new_empty_strided": new_empty_strided, "new_full": new_full,
                  "new_tensor": new_tensor, "new": new}
