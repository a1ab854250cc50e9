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
    PyTorch keeps the scale in a float32 tensor and updates it in float32; the unscaling factor is
    ``1/scale`` computed in float64 and rounded to float32. The scaler here keeps a ``numpy.float32``
    and does the same, so ``get_scale()`` follows PyTorch's sequence value for value.

How minigrad differs: autocast casts to float16 on every device (minigrad has no bfloat16, PyTorch's CPU
default), so ``autocast("cpu")`` means float16; another ``dtype`` disables the context with a warning, as
PyTorch does for a dtype a device does not support. Misusing a scaler (``step()`` before ``scale()``)
raises ``RuntimeError`` where PyTorch fails an ``assert``.

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

import sys
import types
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from . import dtypes as _dt
from .autograd import no_grad
from .creation import full
from .devices import is_gpu_available
from .dispatch import amp as _paddle_amp
from .dispatch.amp_state import AMP
from .ops import isfinite
from .tensor import Tensor

__all__ = ["autocast", "GradScaler", "is_autocast_available", "is_autocast_enabled", "get_autocast_dtype"]

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


class autocast(_paddle_amp.autocast):  # noqa: N801  (PyTorch's lower-case class name)
    """Mixed precision in either spelling: PyTorch's ``autocast("cuda", dtype=mg.float16)`` or ``autocast("O1")``.

    Args:
        device_type: ``"cuda"`` (or ``"gpu"``) or ``"cpu"``: PyTorch's spelling, which runs at level O1.
            A level string (``"O0"``, ``"O1"``, ``"O2"``) in its place is minigrad's spelling.
        dtype: the low-precision dtype; minigrad has ``float16`` only (the default on every device).
            Another dtype warns and disables the context, as PyTorch does for an unsupported one.
        enabled: ``False`` makes the context a no-op (``enabled=(dtype == "float16")`` in scripts).
        cache_enabled: accepted for PyTorch's signature; minigrad caches no casts.
        level: minigrad's AMP level, by name.

    ``autocast("cuda")`` without a GPU warns and disables itself, as PyTorch does without CUDA.

    Example:
        >>> import minigrad as mg
        >>> w = mg.randn(4, 3)
        >>> with mg.autocast(device_type="cpu", dtype=mg.float16):
        ...     y = mg.randn(2, 4) @ w
        >>> y.dtype
        minigrad.float16
    """

    __slots__ = ("device_type",)

    def __init__(self, device_type: Any = None, dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None, *, level: str | None = None) -> None:
        if isinstance(device_type, str) and device_type.startswith("O") and level is None:
            device_type, level = None, device_type  # minigrad's spelling: autocast("O1") (checked below)
        self.device_type = None if device_type is None else _device_type(device_type, "autocast()")
        low = _dt.float16 if dtype is None else _dt.as_dtype(dtype, "autocast(): argument 'dtype'")
        if low is not _dt.float16:
            if self.device_type is None:  # minigrad's spelling keeps its strict check
                raise ValueError(f"autocast(): argument 'dtype' must be minigrad.float16, but got minigrad.{low.name}")
            warnings.warn(f"In {self.device_type} autocast, but the target dtype is not supported. "
                          f"Disabling autocast. minigrad's autocast supports minigrad.float16 only.", stacklevel=2)
            low, enabled = _dt.float16, False
        if self.device_type == "cuda" and enabled and not is_gpu_available():
            warnings.warn("CUDA is not available. Disabling autocast.", stacklevel=2)
            enabled = False
        super().__init__("O1" if level is None else level, low, enabled)


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether an autocast context is active in this thread (minigrad's applies to every device)."""
    if device_type is not None:
        _device_type(device_type, "is_autocast_enabled()")
    return AMP.level > 0


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can run on ``device_type``: the CPU always, ``"cuda"`` with a GPU."""
    return _device_type(device_type, "is_autocast_available()") == "cpu" or is_gpu_available()


def get_autocast_dtype(device_type: str) -> Any:
    """The dtype autocast casts to on ``device_type``: ``mg.float16`` on every device (no bfloat16 here)."""
    _device_type(device_type, "get_autocast_dtype()")
    return _dt.float16


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
        self._scale: np.float32 | None = None  # NOTE [ The scale's arithmetic ]; set by the first scale()
        self._growth_tracker = 0
        self._per_optimizer: dict[int, dict[str, Any]] = {}

    # -- the iteration ---------------------------------------------------------------------------

    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or a list/tuple/iterable of them) times the scale; as is when disabled.

        The product is a recorded ``mul`` by a float32 scalar tensor, so ``backward()`` through it scales
        every gradient, and a float16 loss comes out float32 (as in PyTorch: 65536 is past float16's range).
        """
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = np.float32(self._init_scale)
            self._growth_tracker = self._init_growth_tracker
        return self._scale_all(outputs)

    def _scale_all(self, val: Any) -> Any:
        if isinstance(val, Tensor):
            return val * full((), float(self._scale), dtype=_dt.float32, device=val.device)
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
        inv_scale = float(np.float32(1.0 / np.float64(self._scale)))
        found_inf = False
        with no_grad():
            for g in grads:
                found_inf = found_inf or not isfinite(g).all().item()
                g.mul_(inv_scale)
        state["found_inf"], state["stage"] = found_inf, _UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale (unless ``unscale_`` did), then ``optimizer.step()`` - skipped if a gradient is inf/NaN.

        Returns what ``optimizer.step`` returns, or None when the step was skipped.
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scaled("step")
        state = self._state(optimizer)
        if state["stage"] is _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is _READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Set the scale for the next iteration: ``new_scale`` if given, else back off or grow.

        Any inf/NaN this iteration (over every optimizer stepped) multiplies the scale by
        ``backoff_factor`` and restarts the count; ``growth_interval`` clean iterations in a row
        multiply it by ``growth_factor`` (if the result is finite).
        """
        if not self._enabled:
            return
        self._check_scaled("update")
        if new_scale is not None:
            if isinstance(new_scale, Tensor):
                if new_scale.numel() != 1 or new_scale.requires_grad:
                    raise ValueError("new_scale should be a float or a 1-element torch.FloatTensor "
                                     "with requires_grad=False.")
                new_scale = new_scale.item()
            self._scale = np.float32(new_scale)
        else:
            found = [s["found_inf"] for s in self._per_optimizer.values() if s["found_inf"] is not None]
            if not found:
                raise RuntimeError("No inf checks were recorded prior to update().")
            self._update_scale(any(found))
        self._per_optimizer = {}

    def _update_scale(self, found_inf: bool) -> None:
        """PyTorch's ``_amp_update_scale_``, in float32 (NOTE [ The scale's arithmetic ])."""
        if found_inf:
            self._scale = np.float32(self._scale * np.float32(self._backoff_factor))
            self._growth_tracker = 0
            return
        successful = self._growth_tracker + 1
        if successful == self._growth_interval:
            with np.errstate(over="ignore"):  # an overflow to inf is checked for just below
                grown = np.float32(self._scale * np.float32(self._growth_factor))
            if np.isfinite(grown):
                self._scale = grown
            self._growth_tracker = 0
        else:
            self._growth_tracker = successful

    def _state(self, optimizer: Any) -> dict[str, Any]:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": None})

    def _check_scaled(self, fn: str) -> None:
        if self._scale is None:
            raise RuntimeError(f"Attempted {fn} but _scale is None.  This may indicate your script did not use "
                               f"scaler.scale(loss or outputs) earlier in the iteration.")

    # -- reading and setting the state ---------------------------------------------------------

    def get_scale(self) -> float:
        """The current scale (``init_scale`` before the first ``scale()``; 1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale)

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
        return self._init_growth_tracker if self._scale is None else self._growth_tracker

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
            self._scale = np.float32(self._init_scale)
            self._growth_tracker = self._init_growth_tracker


# -- torch.cuda.amp: the older spelling, fixed to the GPU ----------------------------------------

def _cuda_grad_scaler(init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                      growth_interval: int = 2000, enabled: bool = True) -> GradScaler:
    """``torch.cuda.amp.GradScaler(...)``: ``GradScaler("cuda", ...)`` (deprecated in PyTorch)."""
    return GradScaler("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def _cuda_autocast(enabled: bool = True, dtype: Any = _dt.float16, cache_enabled: bool = True) -> autocast:
    """``torch.cuda.amp.autocast(...)``: ``autocast("cuda", ...)`` (deprecated in PyTorch)."""
    return autocast("cuda", dtype, enabled, cache_enabled)


#: ``mg.cuda.amp`` (importable as ``minigrad.cuda.amp``, as ``torch.cuda.amp`` is).
# Named after the package this module is in (a renamed copy of minigrad, as bench/ builds, keeps its own).
cuda_amp = types.ModuleType(f"{__package__}.cuda.amp", "torch.cuda.amp's names: GradScaler and autocast, fixed to the GPU.")
cuda_amp.GradScaler = _cuda_grad_scaler  # type: ignore[attr-defined]
cuda_amp.autocast = _cuda_autocast  # type: ignore[attr-defined]
cuda_amp.__all__ = ["GradScaler", "autocast"]  # type: ignore[attr-defined]
sys.modules[cuda_amp.__name__] = cuda_amp


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    return sorted({*__all__, *(n for n in globals() if n.startswith("__"))})
