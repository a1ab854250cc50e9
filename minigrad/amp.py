"""``mg.amp``: PyTorch's mixed-precision names - ``autocast(device_type, dtype)`` and ``GradScaler``.

minigrad's autocast is Paddle's, by level (``mg.autocast(level="O1")``, ``dispatch/amp.py``, as Paddle's generated dygraph
functions cast). PyTorch spells the same context by device (``torch.autocast("cuda", dtype=torch.float16)``), and its
list-based casting is what O1 does, so the PyTorch spelling here is O1 under another signature.

``GradScaler`` is loss scaling, the other half of float16 training. Small float16 gradients underflow to
zero, so the loss is multiplied by a large factor before ``backward()`` (every gradient is then scaled by
the same factor), and the gradients are divided by it again before the optimizer step. If any gradient
came out inf or NaN the scale was too large: the step is skipped and the scale halved. After
``growth_interval`` steps in a row without one it is doubled, to stay as large as float16 allows.

NOTE [ The scale's arithmetic ]
    PyTorch keeps the scale in a float32 tensor; each update multiplies it by the factor in float64 and
    rounds the product to float32, and the unscaling factor is ``1/scale`` computed in float64 and rounded
    to float32. The scaler here keeps the same tensor and does the same, so ``get_scale()`` follows
    PyTorch's sequence value for value.

PyTorch keeps autocast's state per thread and per device type (enabled, dtype; the weight cache and a nesting
count for all), and its top-level functions read and set it (``torch.set_autocast_enabled("cpu", True)``,
``torch.get_autocast_dtype("cpu")`` ...). Those functions are here too, on a state of the same shape, and
each change drives minigrad's one autocast (``dispatch/amp_state.py``): NOTE [ One autocast, many device types ].

PyTorch's spelling casts as PyTorch does: by PyTorch's lists for the device type (``autocast("cpu")`` leaves
``softmax`` and ``sum`` alone and runs the losses in float32; ``autocast("cuda")`` runs ``softmax`` and ``sum``
in float32 too), only the tensors on that device type, with PyTorch's cast cache for parameters
(``dispatch/autocast_policy.py``). minigrad's own spelling, ``autocast("O1")``, casts every tensor by
Paddle's lists. Misusing a scaler (``step()`` before ``scale()``) raises ``RuntimeError`` where PyTorch
fails an ``assert``.

Example:
    >>> import minigrad as mg
    >>> w = mg.nn.Parameter(mg.ones(2))
    >>> opt = mg.optim.SGD([w], lr=0.1)
    >>> scaler = mg.amp.GradScaler("cpu", init_scale=8.0)
    >>> scaler.scale((w * 3).sum()).backward()       # every gradient is 8 times too large
    >>> w.grad.tolist()
    [24.0, 24.0]
    >>> scaler.step(opt); scaler.update()             # divided by 8, then the SGD step
    >>> w.tolist(), scaler.get_scale()
    ([0.699999988079071, 0.699999988079071], 8.0)
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
import types
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from . import dtypes as _dt
from .autograd import no_grad
from .creation import full, zeros_like
from .devices import is_gpu_available
from .errors import ShapeError
from .dispatch import amp as _paddle_amp
from .dispatch.amp_state import AMP
from .kernels.key import Backend
from .kernels.registry import kernel_of, register_kernel
from .ops import isfinite, logical_and, logical_not, logical_or, maximum, where
from .optim.update import bump
from .tracing import bus
from .tensor import Tensor

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd", "is_autocast_available", "is_autocast_enabled",
           "get_autocast_dtype"]

_GPU_TYPES = ("cuda", "gpu")


def _device_type(device_type: Any, fn: str) -> str:
    """PyTorch's device type of ``device_type`` (``"cpu"`` or ``"cuda"``; minigrad's ``"gpu"`` is ``"cuda"``)."""
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}: argument 'device_type' must be str, but got {type(device_type).__name__}")
    kind = device_type.partition(":")[0]
    if kind not in ("cpu",) + _GPU_TYPES:
        levels = " or a level ('O0', 'O1', 'O2')" if fn == "autocast()" else ""
        raise ValueError(f"{fn}: argument 'device_type' must be 'cpu' or 'cuda'{levels}, but got {device_type!r}")
    return "cuda" if kind in _GPU_TYPES else "cpu"


# -- autocast's state, as PyTorch keeps it ----------------------------------------------------------

#: PyTorch's device types (the words of its refusal), and the ones autocast keeps a state for, with their
#: default dtypes (``torch.get_autocast_dtype``: bfloat16 on the CPU, float16 on CUDA).
_PYTORCH_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
                         "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_DEFAULT_DTYPES = {"cpu": _dt.bfloat16, "cuda": _dt.float16, "ipu": _dt.float16, "xpu": _dt.float16,
                   "maia": _dt.bfloat16, "xla": _dt.bfloat16, "mps": _dt.float16, "hpu": _dt.bfloat16,
                   "mtia": _dt.float16, "privateuseone": _dt.float16}


class _AutocastState(threading.local):
    """PyTorch's autocast state for one thread: per device type, enabled and dtype; the cache flag and nesting.

    NOTE [ One autocast, many device types ]
        minigrad's dygraph layer reads one state, ``AMP``: a level, and the dtype of each device type that
        autocast is on for (``AMP.devices``). It is derived from this one (``_apply``): the CPU entry casts
        CPU tensors by PyTorch's CPU lists, the CUDA entry (with a GPU) GPU tensors by its CUDA lists
        (``dispatch/autocast_policy.py``). The other device types have no tensors in minigrad: their entries
        are kept and read back, and cast nothing - as PyTorch's CUDA entry casts no CPU tensor.
    """

    def __init__(self) -> None:
        self.enabled = dict.fromkeys(_DEFAULT_DTYPES, False)
        self.dtype = dict(_DEFAULT_DTYPES)
        self.nesting = 0


_STATE = _AutocastState()


def _state_device(device_type: Any, fn: str, position: int = 1) -> str:
    """The device type ``device_type`` names in autocast's state (``"cuda:0"`` and minigrad's ``"gpu"`` are CUDA)."""
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): argument 'device_type' (position {position}) must be str, "
                        f"not {type(device_type).__name__}")
    kind = device_type.partition(":")[0]
    if kind == "gpu":
        return "cuda"
    if kind not in _PYTORCH_DEVICE_TYPES:
        # ShapeError: a RuntimeError as PyTorch's, and the ValueError minigrad raised before
        raise ShapeError(f"Expected one of {', '.join(_PYTORCH_DEVICE_TYPES)} device type at start of device "
                         f"string: {device_type}")
    if kind not in _DEFAULT_DTYPES:
        raise ShapeError("unknown device type for autocast in get_autocast_dispatch_key_from_device_type")
    return kind


def _apply() -> None:
    """Set ``AMP`` from the per-device state (NOTE [ One autocast, many device types ])."""
    devices = {}
    if _STATE.enabled["cpu"]:
        devices["cpu"] = _STATE.dtype["cpu"]
    if _STATE.enabled["cuda"] and is_gpu_available():
        devices["gpu"] = _STATE.dtype["cuda"]
    if devices:
        AMP.level, AMP.dtype, AMP.devices = 1, next(iter(devices.values())), devices
    else:
        AMP.level, AMP.dtype, AMP.devices = 0, None, None


def _check_dtype(dtype: Any, fn: str) -> _dt.DType:
    if not isinstance(dtype, _dt.DType):
        raise TypeError(f"{fn}(): argument 'dtype' (position 2) must be minigrad.dtype, not {type(dtype).__name__}")
    return dtype


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def _check_bool(enabled: Any) -> bool:
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    return enabled


def is_autocast_enabled(device_type: Any = "cuda") -> bool:
    """Whether autocast is on for ``device_type`` in this thread (PyTorch's default: ``"cuda"``).

    minigrad's own spelling, ``autocast("O1")``, casts every tensor: under it every device type is on.

    Example:
        >>> import minigrad as mg
        >>> with mg.autocast("cpu"):
        ...     mg.is_autocast_enabled("cpu"), mg.is_autocast_enabled()
        (True, False)
    """
    kind = _state_device(device_type, "is_autocast_enabled")
    return _STATE.enabled[kind] or (AMP.level > 0 and not any(_STATE.enabled.values()))


def set_autocast_enabled(*args: Any, **kwargs: Any) -> None:
    """Switch autocast on or off for a device type: ``set_autocast_enabled("cpu", True)``, or
    ``set_autocast_enabled(True)`` for CUDA (PyTorch's two forms).

    Example:
        >>> import minigrad as mg
        >>> mg.set_autocast_enabled("cpu", True)
        >>> (mg.ones(2, 2) @ mg.ones(2, 2)).dtype
        minigrad.bfloat16
        >>> mg.set_autocast_enabled("cpu", False)
    """
    if len(args) + len(kwargs) == 1 and (args or "enabled" in kwargs):
        kind, enabled, position = "cuda", args[0] if args else kwargs["enabled"], 1
    else:
        bound = dict(zip(("device_type", "enabled"), args), **kwargs)
        if len(args) + len(kwargs) != 2 or set(bound) != {"device_type", "enabled"}:
            got = ", ".join(type(v).__name__ for v in (*args, *kwargs.values()))
            raise TypeError(f"set_autocast_enabled() received an invalid combination of arguments - got ({got}), "
                            f"but expected one of:\n * (str device_type, bool enabled)\n * (bool enabled)\n")
        kind = _state_device(bound["device_type"], "set_autocast_enabled")
        enabled, position = bound["enabled"], 2
    if not isinstance(enabled, bool):
        raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position {position}) must be bool, "
                        f"not {type(enabled).__name__}")
    _STATE.enabled[kind] = enabled
    _apply()


def get_autocast_dtype(device_type: str) -> Any:
    """The dtype autocast casts to on ``device_type``: PyTorch's defaults, ``bfloat16`` on the CPU and
    ``float16`` on CUDA, until ``set_autocast_dtype`` or an ``autocast(dtype=...)`` context changes it."""
    return _STATE.dtype[_state_device(device_type, "get_autocast_dtype")]


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    """Set the dtype autocast casts to on ``device_type`` (any dtype, as PyTorch: the check is ``autocast``'s)."""
    kind = _state_device(device_type, "set_autocast_dtype")
    _STATE.dtype[kind] = _check_dtype(dtype, "set_autocast_dtype")
    _apply()


def is_autocast_cache_enabled() -> bool:
    """Whether autocast's cast cache is on: a float32 parameter used by several ops in an autocast region is
    cast to the low dtype once, and the cast reused (one ``ToCopyBackward0`` in the graph, as PyTorch's)."""
    return AMP.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Switch autocast's cast cache on or off."""
    AMP.cache_enabled = _check_bool(enabled)


def clear_autocast_cache() -> None:
    """Empty autocast's cast cache (the outermost autocast context does it as it exits)."""
    AMP.cache.clear()


def autocast_increment_nesting() -> int:
    """One more autocast context entered in this thread; returns the new depth."""
    _STATE.nesting += 1
    return _STATE.nesting


def autocast_decrement_nesting() -> int:
    """One autocast context left; returns the new depth (it may go below 0, as PyTorch's)."""
    _STATE.nesting -= 1
    return _STATE.nesting


def _deprecated_forms(device: str, short: str) -> dict[str, Any]:
    """PyTorch's older per-device functions (``is_autocast_cpu_enabled`` ...): each warns and calls the new one."""

    def is_enabled() -> bool:
        _deprecated(f"is_autocast_{short}_enabled()", f"is_autocast_enabled('{device}')")
        return is_autocast_enabled(device)

    def set_enabled(enabled: bool) -> None:
        _deprecated(f"set_autocast_{short}_enabled(enabled)", f"set_autocast_enabled('{device}', enabled)")
        set_autocast_enabled(device, _check_bool(enabled))

    def get_dtype() -> Any:
        _deprecated(f"get_autocast_{short}_dtype()", f"get_autocast_dtype('{device}')")
        return get_autocast_dtype(device)

    def set_dtype(dtype: Any) -> None:
        _deprecated(f"set_autocast_{short}_dtype(dtype)", f"set_autocast_dtype('{device}', dtype)")
        if not isinstance(dtype, _dt.DType):
            raise TypeError(f"dtype must be a minigrad.dtype (got {type(dtype).__name__})")
        set_autocast_dtype(device, dtype)

    forms = {f"is_autocast_{short}_enabled": is_enabled, f"set_autocast_{short}_enabled": set_enabled,
             f"get_autocast_{short}_dtype": get_dtype, f"set_autocast_{short}_dtype": set_dtype}
    for name, fn in forms.items():
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"``torch.{name}`` (deprecated in PyTorch): the ``{device}`` entry of autocast's state."
    return forms


# CUDA's are "gpu" in PyTorch's old names, with no is_/set_autocast_gpu_enabled (torch.is_autocast_enabled()).
_DEPRECATED = {name: fn for device, short in (("cpu", "cpu"), ("cuda", "gpu"), ("ipu", "ipu"), ("xla", "xla"))
               for name, fn in _deprecated_forms(device, short).items()
               if name not in ("is_autocast_gpu_enabled", "set_autocast_gpu_enabled")}
globals().update(_DEPRECATED)

#: the names ``minigrad/__init__.py`` exports as ``mg.<name>`` (PyTorch's top-level autocast functions)
STATE_FUNCTIONS = ["set_autocast_enabled", "set_autocast_dtype", "is_autocast_cache_enabled",
                   "set_autocast_cache_enabled", "clear_autocast_cache", "autocast_increment_nesting",
                   "autocast_decrement_nesting", *_DEPRECATED]


# -- autocast: the context ----------------------------------------------------------------------------

#: the dtypes PyTorch's CPU and CUDA autocast take (another one warns and disables the context)
_AUTOCAST_DTYPES = (_dt.bfloat16, _dt.float16)


class autocast(_paddle_amp.autocast):  # noqa: N801  (PyTorch's lower-case class name)
    """Mixed precision in either spelling: PyTorch's ``autocast("cpu", dtype=mg.bfloat16)`` or ``autocast("O1")``.

    Args:
        device_type: ``"cuda"`` (or ``"gpu"``) or ``"cpu"``: PyTorch's spelling, which runs at level O1 and
            sets that device type's entry of autocast's state (``mg.is_autocast_enabled("cpu")``) for the
            block, as PyTorch's does. A level string (``"O0"``, ``"O1"``, ``"O2"``) in its place is
            minigrad's spelling, which casts every tensor.
        dtype: the low-precision dtype, ``bfloat16`` or ``float16``; by default the device type's
            (``mg.get_autocast_dtype``: ``bfloat16`` on the CPU, ``float16`` on CUDA; ``float16`` for a level).
            Another dtype warns and disables the context, as PyTorch does.
        enabled: ``False`` makes the context switch autocast off for its block.
        cache_enabled: the cast cache's flag for the block (default: the current one).
        level: minigrad's AMP level, by name.

    ``autocast("cuda")`` without a GPU warns and disables itself, as PyTorch does without CUDA.

    Example:
        >>> import minigrad as mg
        >>> w = mg.randn(4, 3)
        >>> with mg.autocast(device_type="cpu"):
        ...     y = mg.randn(2, 4) @ w
        >>> y.dtype
        minigrad.bfloat16
    """

    __slots__ = ("device_type", "cache_enabled")

    def __init__(self, device_type: Any = None, dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None, *, level: str | None = None) -> None:
        if isinstance(device_type, str) and device_type.startswith("O") and level is None:
            device_type, level = None, device_type  # minigrad's spelling: autocast("O1") (checked below)
        self.device_type = None if device_type is None else _device_type(device_type, "autocast()")
        default = _dt.float16 if self.device_type is None else get_autocast_dtype(self.device_type)
        low = default if dtype is None else _dt.as_dtype(dtype, "autocast(): argument 'dtype'")
        if low not in _AUTOCAST_DTYPES:
            if self.device_type is None:  # minigrad's spelling keeps its strict check
                raise ValueError(f"autocast(): argument 'dtype' must be minigrad.bfloat16 or minigrad.float16, "
                                 f"but got minigrad.{low.name}")
            name = self.device_type.upper()
            warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                          f"{name} Autocast only supports dtypes of {', '.join(map(str, _AUTOCAST_DTYPES))} "
                          f"currently.", stacklevel=2)
            enabled = False
        if self.device_type == "cuda" and enabled and not is_gpu_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            enabled = False
        if self.device_type == "cuda" and enabled and low is _dt.bfloat16:  # no bfloat16 kernels on minigrad's GPU
            raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
        self.cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        # Paddle's context (dispatch/amp.py) takes float16 alone; the dtype is set after its checks.
        super().__init__("O1" if level is None else level, _dt.float16, enabled)
        self.dtype = low

    def __enter__(self) -> "autocast":
        if self.device_type is None:
            return super().__enter__()
        kind, state = self.device_type, _STATE
        self._saved.__dict__.setdefault("stack", []).append(
            (AMP.level, AMP.dtype, AMP.devices, state.enabled[kind], state.dtype[kind], AMP.cache_enabled))
        state.enabled[kind], state.dtype[kind] = self.enabled, self.dtype
        state.nesting += 1
        AMP.cache_enabled = self.cache_enabled
        _apply()
        if self.enabled and self.level != 1:  # minigrad's keyword level="O2": its own lists, every tensor
            AMP.level, AMP.dtype = self.level, self.dtype
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.device_type is None:
            return super().__exit__(*exc)
        kind, state = self.device_type, _STATE
        state.nesting -= 1
        if state.nesting == 0:  # PyTorch's: the outermost context empties the cast cache
            AMP.cache.clear()
        (AMP.level, AMP.dtype, AMP.devices, state.enabled[kind], state.dtype[kind],
         AMP.cache_enabled) = self._saved.stack.pop()  # an enclosing autocast("O2") gets its level back
        return None


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can run on ``device_type``: the CPU always, ``"cuda"`` with a GPU."""
    return _device_type(device_type, "is_autocast_available()") == "cpu" or is_gpu_available()



# -- custom autograd Functions under autocast ------------------------------------------------------


def _cast_floating(value: Any, device_type: str, dtype: Any) -> Any:
    """``value`` with its floating tensors on ``device_type`` (float64 ones excepted) cast to ``dtype``;
    lists, tuples, dicts and other iterables are walked (PyTorch's ``torch.amp.autocast_mode._cast``)."""
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype is not _dt.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, Mapping):
        return {_cast_floating(k, device_type, dtype): _cast_floating(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, Iterable):
        cast = (_cast_floating(v, device_type, dtype) for v in value)
        return type(value)(cast) if isinstance(value, (list, tuple)) else cast
    return value


def custom_fwd(fwd: Any = None, *, device_type: str, cast_inputs: Any = None) -> Any:
    """Decorate a custom Function's ``forward`` so that it runs well under autocast.

    Without ``cast_inputs`` the forward runs under the autocast state of its caller; with it, inside an
    autocast region, its floating inputs are cast to ``cast_inputs`` and it runs with autocast off (outside
    one it runs as written). Either way it notes on ``ctx`` the state ``custom_bwd`` gives the backward.

    Example:
        >>> import minigrad as mg
        >>> class Mm(mg.autograd.Function):
        ...     @staticmethod
        ...     @mg.amp.custom_fwd(device_type="cpu", cast_inputs=mg.float32)
        ...     def forward(ctx, a, b):
        ...         ctx.save_for_backward(a, b)
        ...         return a @ b
        ...     @staticmethod
        ...     @mg.amp.custom_bwd(device_type="cpu")
        ...     def backward(ctx, g):
        ...         a, b = ctx.saved_tensors
        ...         return g @ b.T, a.T @ g
        >>> with mg.autocast("cpu"):
        ...     Mm.apply(mg.ones(2, 2), mg.ones(2, 2)).dtype
        minigrad.float32
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    kind = _state_device(device_type, "custom_fwd")

    @functools.wraps(fwd)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False  # the forward runs without autocast, and so will the backward
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast_floating(args, kind, cast_inputs), **_cast_floating(kwargs, kind, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd: Any = None, *, device_type: str) -> Any:
    """Decorate a custom Function's ``backward`` to run under the autocast state its forward ran under
    (what ``custom_fwd`` noted on ``ctx``). See ``custom_fwd`` for an example."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd


# -- GradScaler --------------------------------------------------------------------------------

_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


class GradScaler:
    """Loss scaling for float16 training, PyTorch's ``torch.amp.GradScaler``.

    Args:
        device: ``"cuda"`` (default, as PyTorch) or ``"cpu"``. ``"cuda"`` without a GPU warns and
            disables the scaler, as PyTorch does without CUDA.
        init_scale: the first scale.
        growth_factor: the scale is multiplied by it after ``growth_interval`` steps without inf/NaN.
        backoff_factor: the scale is multiplied by it after a step with inf/NaN gradients.
        growth_interval: how many clean steps in a row grow the scale.
        enabled: ``False`` makes every method a pass-through (``scale`` returns its input,
            ``step`` just steps, ``get_scale()`` is 1.0).

    The iteration, as a training script writes it::

        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)                    # optional: before clipping the true gradients
        mg.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)                        # unscales (if not done), steps unless inf/NaN
        scaler.update()                               # backs off or grows the scale

    NOTE [ The scale stays on the device ]
        As PyTorch's, the scale and the growth count are tensors on the device of the first scaled loss,
        and each optimizer's inf/NaN flag is a tensor there too: ``unscale_`` multiplies every gradient
        by ``1/scale`` and sets the flag in one multi-tensor kernel per 32 gradients
        (``_amp_foreach_non_finite_check_and_unscale_``), ``update`` computes the next scale in one
        more (``_amp_update_scale_``). Only ``step`` reads the flag on the host (``.item()``: on a GPU
        one sync a step, as PyTorch's), to know whether to step. With a recorder active the same work
        runs as ops, one per gradient, so the trace shows it.
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = _device_type(device, "GradScaler()")
        if enabled and self._device == "cuda" and not is_gpu_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=2)
            enabled = False
        self._enabled = bool(enabled)
        if self._enabled:
            if not growth_factor > 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if not backoff_factor < 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
        self._init_scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._init_growth_tracker = 0
        # NOTE [ The scale stays on the device ]: float32 and int32 0-d tensors, made by the first scale()
        self._scale: Tensor | None = None
        self._growth_tracker: Tensor | None = None
        self._per_optimizer: dict[int, dict[str, Any]] = {}

    # -- the iteration ---------------------------------------------------------------------------

    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or a list/tuple/iterable of them) times the scale; as is when disabled.

        The product is a recorded ``mul`` by the float32 scale tensor, so ``backward()`` through it scales
        every gradient, and a float16 loss comes out float32 (as in PyTorch: 65536 is past float16's range).
        """
        if not self._enabled:
            return outputs
        return self._scale_all(outputs)

    def _lazy_init(self, device: Any) -> None:
        """The scale and the growth count, made on ``device`` by the first ``scale()``."""
        self._scale = full((), self._init_scale, dtype=_dt.float32, device=device)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=_dt.int32, device=device)

    def _scale_all(self, val: Any) -> Any:
        if isinstance(val, Tensor):
            if self._scale is None:
                self._lazy_init(val.device)
            return val * self._scale.to(val.device)
        if isinstance(val, (list, tuple)):
            return type(val)(self._scale_all(v) for v in val)
        if isinstance(val, Iterable) and not isinstance(val, (str, bytes)):
            return map(self._scale_all, val)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer: Any) -> None:
        """Divide ``optimizer``'s gradients by the scale, in place, and note whether any is inf/NaN.

        Call it once per optimizer between ``backward()`` and ``step()``, where the true gradients are
        needed (clipping them). ``ValueError`` for float16 gradients: unscaled they may underflow, so
        the parameters a scaler serves are float32.
        """
        if not self._enabled:
            return
        self._check_scaled("unscale_")
        state = self._state(optimizer)
        if state["stage"] is _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        if any(g.dtype is _dt.float16 for g in grads):
            raise ValueError("Attempting to unscale FP16 gradients.")
        with no_grad():
            inv_scale = self._scale.double().reciprocal().float()  # NOTE [ The scale's arithmetic ]
            state["found_inf_per_device"] = self._flags(grads, inv_scale)
        state["stage"] = _UNSCALED

    def _flags(self, grads: list[Tensor], inv_scale: Tensor) -> dict[Any, Tensor]:
        """``grads`` times ``inv_scale`` in place (nothing changes for a scale of 1), and each device's inf/NaN flag."""
        found: dict[Any, Tensor] = {}
        groups: dict[tuple[Any, Any], list[Tensor]] = {}
        for g in grads:
            groups.setdefault((g.device, g.dtype), []).append(g)
        for (device, _), group in groups.items():
            if device not in found:
                found[device] = full((), 0.0, dtype=_dt.float32, device=self._scale.device).to(device)
            found[device] = _unscale_group(group, found[device], inv_scale.to(device))
        return found

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale (unless ``unscale_`` did), then ``optimizer.step()`` - skipped if a gradient is inf/NaN.

        Returns what ``optimizer.step`` returns, or None when the step was skipped. Whether to step is
        read on the host: on a GPU, one sync (NOTE [ The scale stays on the device ]).
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scaled("step")
        state = self._state(optimizer)
        if state["stage"] is _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if getattr(optimizer, "_step_supports_amp_scaling", False):
            return self._step_fused(optimizer, state, args, kwargs)
        if state["stage"] is _READY:
            self.unscale_(optimizer)
        skipped = sum(v.item() for v in state["found_inf_per_device"].values())
        result = None if skipped else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def _step_fused(self, optimizer: Any, state: dict[str, Any], args: tuple, kwargs: dict[str, Any]) -> Any:
        """``step`` of an optimizer that takes the scale and the flag itself (a fused one), as PyTorch's: the flag
        checked without unscaling if ``unscale_`` was not called, then both handed over as ``optimizer.grad_scale``
        and ``optimizer.found_inf``, which its kernel reads on the device (nothing read here: no sync). An
        optimizer whose ``step`` takes ``grad_scaler`` is handed the scaler instead (PyTorch's older contract)."""
        if "grad_scaler" in inspect.signature(optimizer.step).parameters:
            warnings.warn("GradScaler is going to stop passing itself as a keyword argument to the passed "
                          "optimizer. In the near future GradScaler registers `grad_scale: Tensor` and "
                          "`found_inf: Tensor` to the passed optimizer and let the optimizer use them directly.",
                          FutureWarning, stacklevel=3)
            result = optimizer.step(*args, **{**kwargs, "grad_scaler": self})
            state["stage"] = _STEPPED
            return result
        if state["stage"] is _READY:
            self._check_inf_per_device(optimizer, state)
        found = [f.to(self._scale.device) for f in state["found_inf_per_device"].values()]
        found_inf = found[0] if len(found) == 1 else sum(found[1:], found[0])
        unscaled = state["stage"] is _UNSCALED
        optimizer.grad_scale = (getattr(optimizer, "grad_scale", None) if unscaled
                                else self._scale * getattr(optimizer, "grad_scale", 1))
        optimizer.found_inf = found_inf
        try:
            result = optimizer.step(*args, **kwargs)
        finally:
            del optimizer.grad_scale
            del optimizer.found_inf
        state["stage"] = _STEPPED
        return result

    def _check_inf_per_device(self, optimizer: Any, state: dict[str, Any]) -> None:
        """Each device's inf/NaN flag of ``optimizer``'s gradients, which stay scaled (float16 ones too):
        ``unscale_``'s kernel with a scale of 1."""
        grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        with no_grad():
            one = full((), 1.0, dtype=_dt.float32, device=self._scale.device)
            state["found_inf_per_device"] = self._flags(grads, one)

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Set the scale for the next iteration: ``new_scale`` if given, else back off or grow.

        Any inf/NaN this iteration (over every optimizer stepped) multiplies the scale by
        ``backoff_factor`` and restarts the count; ``growth_interval`` clean iterations in a row
        multiply it by ``growth_factor`` (if the result is finite). On the device: nothing is read.
        """
        if not self._enabled:
            return
        self._check_scaled("update")
        with no_grad():
            if new_scale is not None:
                if isinstance(new_scale, Tensor):
                    if new_scale.numel() != 1 or new_scale.requires_grad:
                        raise ValueError("new_scale should be a float or a 1-element torch.FloatTensor "
                                         "with requires_grad=False.")
                    self._scale.copy_(new_scale.reshape(()))
                else:
                    self._scale.fill_(float(new_scale))
            else:
                found = [f.to(self._scale.device) for s in self._per_optimizer.values()
                         for f in s.get("found_inf_per_device", {}).values()]
                if not found:
                    raise RuntimeError("No inf checks were recorded prior to update().")
                combined = found[0]
                for f in found[1:]:
                    combined = combined + f
                self._update_scale(combined)
        self._per_optimizer = {}

    def _update_scale(self, found_inf: Tensor) -> None:
        """PyTorch's ``_amp_update_scale_`` on the scale and growth count tensors (NOTE [ The scale's
        arithmetic ]): the backend's kernel, or with a recorder active the ops that show it."""
        args = (self._growth_factor, self._backoff_factor, self._growth_interval)
        if not bus.steps_traced():
            kernel_of("_amp_update_scale_", self._scale)(self._scale._data, self._growth_tracker._data,
                                                         found_inf._data, *args)
            return
        new_scale, new_tracker = _update_scale_ops(self._scale, self._growth_tracker, found_inf, *args)
        self._scale.copy_(new_scale)
        self._growth_tracker.copy_(new_tracker)

    def _state(self, optimizer: Any) -> dict[str, Any]:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf_per_device": {}})

    def _check_scaled(self, fn: str) -> None:
        if self._scale is None:
            raise RuntimeError(f"Attempted {fn} but _scale is None.  This may indicate your script did not use "
                               f"scaler.scale(loss or outputs) earlier in the iteration.")

    # -- reading and setting the state ---------------------------------------------------------

    def get_scale(self) -> float:
        """The current scale (``init_scale`` before the first ``scale()``; 1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def is_enabled(self) -> bool:
        return self._enabled

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = int(new_interval)

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._scale is None else self._growth_tracker.item()

    def state_dict(self) -> dict[str, Any]:
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval``, ``_growth_tracker``
        (PyTorch's keys); ``{}`` when disabled."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` returned (a no-op when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
            self._growth_tracker.fill_(self._init_growth_tracker)


def _unscale_group(grads: list[Tensor], found_inf: Tensor, inv_scale: Tensor) -> Tensor:
    """``grads`` (one device, one dtype) times ``inv_scale`` in place; ``found_inf`` (a float32 0-d tensor)
    set to 1 if one holds an inf or a NaN. The backend's multi-tensor kernel when nothing records and every
    gradient is contiguous; else one op per gradient, which a trace shows. Returns the flag tensor."""
    if not bus.steps_traced() and all(g._data.flags.c_contiguous for g in grads):
        kernel = kernel_of("_amp_foreach_non_finite_check_and_unscale_", grads[0])
        if kernel is not None:
            kernel([g._data for g in grads], found_inf._data, inv_scale._data)
            for g in grads:
                bump(g)
            return found_inf
    for g in grads:
        bad = logical_not(isfinite(g).all())
        found_inf = maximum(found_inf, bad.to(_dt.float32))
        g.mul_(inv_scale)
    return found_inf


def _update_scale_ops(scale: Tensor, tracker: Tensor, found_inf: Tensor, growth_factor: float,
                      backoff_factor: float, growth_interval: int) -> tuple[Tensor, Tensor]:
    """``_amp_update_scale_`` as ops (with a recorder): the new scale and growth count."""
    wide = scale.double()
    backed_off = (wide * backoff_factor).float()
    grown = (wide * growth_factor).float()
    successful = tracker + 1
    at_interval = successful == growth_interval
    found = found_inf != 0
    keep_grown = logical_and(at_interval, isfinite(grown))
    new_scale = where(found, backed_off, where(keep_grown, grown, scale))
    new_tracker = where(logical_or(found, at_interval), zeros_like(tracker), successful)
    return new_scale, new_tracker


@register_kernel("_amp_foreach_non_finite_check_and_unscale_", Backend.CPU, dtypes=(_dt.float16, _dt.bfloat16,
                 _dt.float32, _dt.float64), name="cpu/amp_unscale")
def _amp_unscale_cpu(grads: list[np.ndarray], found_inf: np.ndarray, inv_scale: np.ndarray) -> None:
    """PyTorch's ``_amp_foreach_non_finite_check_and_unscale_`` on the CPU: each value times ``inv_scale`` in
    the value's op math (float32 for the half types), ``found_inf`` 1 where one is not finite."""
    s = np.float32(inv_scale.reshape(-1)[0])
    for g in grads:
        acc = np.float32 if g.dtype.itemsize < 4 else g.dtype.type
        v = g.astype(acc, copy=False)
        if not np.isfinite(v).all():
            found_inf.reshape(-1)[0] = 1.0
        if s != 1:
            with np.errstate(all="ignore"):
                g[...] = v * acc(s)


@register_kernel("_amp_update_scale_", Backend.CPU, dtypes=(_dt.float32,), name="cpu/amp_update_scale")
def _amp_update_scale_cpu(scale: np.ndarray, tracker: np.ndarray, found_inf: np.ndarray, growth_factor: float,
                          backoff_factor: float, growth_interval: int) -> None:
    """PyTorch's ``_amp_update_scale_``, in place (NOTE [ The scale's arithmetic ])."""
    current = np.float64(scale.reshape(-1)[0])
    if found_inf.reshape(-1)[0]:
        scale.reshape(-1)[0] = np.float32(current * backoff_factor)
        tracker.reshape(-1)[0] = 0
        return
    successful = int(tracker.reshape(-1)[0]) + 1
    if successful == growth_interval:
        with np.errstate(over="ignore"):  # an overflow to inf is checked for just below
            grown = np.float32(current * growth_factor)
        if np.isfinite(grown):
            scale.reshape(-1)[0] = grown
        tracker.reshape(-1)[0] = 0
    else:
        tracker.reshape(-1)[0] = successful


# -- torch.cuda.amp: the older spelling, fixed to the GPU ----------------------------------------

def _cuda_grad_scaler(init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                      growth_interval: int = 2000, enabled: bool = True) -> GradScaler:
    """``torch.cuda.amp.GradScaler(...)``: ``GradScaler("cuda", ...)`` (deprecated in PyTorch)."""
    warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', "
                  "args...)` instead.", FutureWarning, stacklevel=2)
    return GradScaler("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def _cuda_custom_fwd(fwd: Any = None, *, cast_inputs: Any = None) -> Any:
    """``torch.cuda.amp.custom_fwd(...)``: ``custom_fwd(..., device_type="cuda")`` (deprecated in PyTorch)."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. "
                  "Please use `torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def _cuda_custom_bwd(bwd: Any) -> Any:
    """``torch.cuda.amp.custom_bwd(...)``: ``custom_bwd(..., device_type="cuda")`` (deprecated in PyTorch)."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. "
                  "Please use `torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return custom_bwd(bwd, device_type="cuda")


def _cuda_autocast(enabled: bool = True, dtype: Any = _dt.float16, cache_enabled: bool = True) -> autocast:
    """``torch.cuda.amp.autocast(...)``: ``autocast("cuda", ...)`` (deprecated in PyTorch)."""
    warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', "
                  "args...)` instead.", FutureWarning, stacklevel=2)
    return autocast("cuda", dtype, enabled, cache_enabled)


#: ``mg.cuda.amp`` (importable as ``minigrad.cuda.amp``, as ``torch.cuda.amp`` is).
# Named after the package this module is in (a renamed copy of minigrad, as bench/ builds, keeps its own).
cuda_amp = types.ModuleType(f"{__package__}.cuda.amp", "torch.cuda.amp's names: GradScaler, autocast, custom_fwd and custom_bwd, fixed to the GPU.")
cuda_amp.GradScaler = _cuda_grad_scaler  # type: ignore[attr-defined]
cuda_amp.autocast = _cuda_autocast  # type: ignore[attr-defined]
cuda_amp.custom_fwd = _cuda_custom_fwd  # type: ignore[attr-defined]
cuda_amp.custom_bwd = _cuda_custom_bwd  # type: ignore[attr-defined]
cuda_amp.__all__ = ["GradScaler", "autocast", "custom_fwd", "custom_bwd"]  # type: ignore[attr-defined]
sys.modules[cuda_amp.__name__] = cuda_amp


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    return sorted({*__all__, *(n for n in globals() if n.startswith("__"))})
