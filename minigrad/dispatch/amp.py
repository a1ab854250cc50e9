"""Automatic mixed precision: ``with mg.autocast(level="O1"):`` (the AMP block of Paddle's generated dygraph functions).

In Paddle's generated dygraph function the first thing an op does, when an
AMP level other than O0 is active, is decide one destination dtype for its
inputs (``GetAmpDestDtype``), cast them (``EagerAmpAutoCast``), and call
itself again with AMP switched off (``AutoCastGuard(O0)``). minigrad's
dygraph layer (``run_layers``) calls ``autocast_call`` for the same step.

The destination dtype, per level:

- **O1** (mixed): ops on the *allow list* (matmul, conv2d - tensor-core
  friendly, numerically safe) run in float16; ops on the *deny list* (exp,
  log, softmax, cross_entropy, sum, mean... - overflow or precision
  sensitive) run in float32; every other op follows its inputs: float32 if
  any floating input is float32, else float16 (``GetPromoteType``).
- **O2** (almost all float16): every op runs in float16 except the deny list.

Only float16 and float32 inputs are cast (float64, integer and bool inputs
are left alone, as Paddle's ``NeedCast``).

PyTorch's spelling (``autocast("cpu")``, ``autocast("cuda")``, set up by ``minigrad/amp.py``) fills
``AMP.devices`` instead, and the same step casts by PyTorch's per-device lists
(``autocast_policy.py``): only the tensors on an enabled device type, float32 parameters through
PyTorch's cast cache. ``autocast_as`` marks the functions PyTorch runs as one operator. Each cast is a real ``cast`` op -
recorded, with a ``ToCopyBackward0`` - so gradients flow back to float32 leaves
and arrive there as float32; each emits ``amp.cast``.

Example:
    >>> import minigrad as mg
    >>> w = mg.randn(4, 3, requires_grad=True)
    >>> with mg.autocast(level="O1"):
    ...     y = mg.randn(2, 4) @ w          # matmul: both inputs cast to float16
    ...     loss = y.sum()                  # sum: cast back to float32
    >>> y.dtype, loss.dtype
    (minigrad.float16, minigrad.float32)
    >>> loss.backward(); w.grad.dtype
    minigrad.float32
"""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any

from .. import dtypes as _dt
from ..tracing import bus
from ..tracing.events import AmpCast
from ..tracing.profiling import scope
from .amp_state import AMP
from .autocast_policy import BANNED, FP32, FP32_SET_OPT_DTYPE, LOWER, PROMOTE, aten_name_of, policy_of
from .op_table import OPS

__all__ = ["autocast", "autocast_inputs", "autocast_call", "autocast_as", "amp_dest_dtype", "set_amp_category", "ALLOW_LIST", "DENY_LIST",
           "LEVELS"]

# The lists are filled from the op definitions (``defop(..., amp="allow")``), never by hand:
# an op's AMP category is written in its own file.

#: Ops that run in float16 under O1 (Paddle's white list): ``amp="allow"``.
ALLOW_LIST: set[str] = set()

#: Ops that always run in float32 under O1 and O2 (Paddle's black list): ``amp="deny"``.
DENY_LIST: set[str] = set()

#: Ops AMP never touches, ``amp="never"``: the cast itself (else it would recurse).
_NEVER: set[str] = set()

AMP_CATEGORIES = {"allow": ALLOW_LIST, "deny": DENY_LIST, "never": _NEVER}


def set_amp_category(op_name: str, category: str | None) -> None:
    """File ``op_name`` under its AMP category (``"allow"``, ``"deny"``, ``"never"``; None: follow the inputs)."""
    for members in AMP_CATEGORIES.values():
        members.discard(op_name)
    if category is not None:
        if category not in AMP_CATEGORIES:
            raise ValueError(f"amp category must be one of {', '.join(AMP_CATEGORIES)} or None, got {category!r}")
        AMP_CATEGORIES[category].add(op_name)

LEVELS = {"O0": 0, "O1": 1, "O2": 2}
_AMP_DTYPES = (_dt.float16,)


class autocast:
    """Context manager: run ops in mixed precision.

    Args:
        level: ``"O1"`` (allow/deny lists), ``"O2"`` (almost all float16) or
            ``"O0"`` (off, e.g. to exclude a region inside an autocast block).
        dtype: the low-precision dtype (``mg.float16``).
        enabled: ``False`` makes the context a no-op.

    Contexts nest; leaving one restores the level and dtype it replaced.
    """

    __slots__ = ("level", "dtype", "enabled", "_saved")

    def __init__(self, level: str = "O1", dtype: Any = _dt.float16, enabled: bool = True) -> None:
        if not isinstance(level, str) or level not in LEVELS:
            raise ValueError(f"autocast(): argument 'level' must be one of 'O0', 'O1', 'O2', but got {level!r}")
        dt = _dt.as_dtype(dtype, "autocast(): argument 'dtype' (position 1)")
        if dt not in _AMP_DTYPES:
            raise ValueError(f"autocast(): argument 'dtype' must be minigrad.float16, but got minigrad.{dt.name}")
        if not isinstance(enabled, bool):
            raise TypeError(f"autocast(): argument 'enabled' must be bool, but got {type(enabled).__name__}")
        self.level = LEVELS[level]
        self.dtype = dt
        self.enabled = enabled
        self._saved = threading.local()  # per thread: a decorated function may run in several at once

    def __enter__(self) -> "autocast":
        self._saved.__dict__.setdefault("stack", []).append((AMP.level, AMP.dtype))
        if self.enabled:
            AMP.level, AMP.dtype = self.level, self.dtype
        return self

    def __exit__(self, *exc: Any) -> None:
        AMP.level, AMP.dtype = self._saved.stack.pop()

    def __call__(self, fn: Any) -> Any:
        """Use as a decorator: ``@mg.autocast("O1")``."""
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return wrapper


def _castable(t: Any) -> bool:
    d = t._dtype
    return d is _dt.float32 or d is _dt.float16


def amp_dest_dtype(op_name: str, inputs: list[Any], level: int, amp_dtype: Any) -> Any:
    """``GetAmpDestDtype``: the dtype ``op_name``'s float inputs run in, or None to leave them."""
    if op_name in _NEVER:
        return None
    if op_name in DENY_LIST:
        return _dt.float32
    if level >= 2 or op_name in ALLOW_LIST:
        return amp_dtype
    # O1, neither list: follow the inputs (float32 wins over float16).
    seen_low = False
    for v in inputs:
        for t in v if isinstance(v, list) else (v,):
            if t is None:
                continue
            if t._dtype is _dt.float32:
                return _dt.float32
            if t._dtype is amp_dtype:
                seen_low = True
    return amp_dtype if seen_low else None


def _set_opt_dtype(op_name: str, first: Any, device: str, given: dict[str, Any]) -> dict[str, Any]:
    """PyTorch's ``set_opt_dtype``: ``dtype=float32`` where the caller gave none and the first input is eligible
    (an ``amp.cast`` event says so), else the arguments as they are."""
    if given.get("dtype") is not None or not _eligible(first, device):
        return given
    _announce_cast(op_name, first, _dt.float32)
    return {**given, "dtype": _dt.float32}


def autocast_call(op: Any, inputs: list[Any], attrs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """``autocast_inputs``, but for an op of PyTorch's ``fp32_set_opt_dtype`` policy that takes ``dtype=`` (``sum``,
    ``prod``, ``cumsum``, ``cumprod`` on CUDA): its input is not cast; it is read in float32 by the op itself
    (``dtype=float32``, when the caller gave no dtype and the input is eligible), as PyTorch's autocast kernel
    sets the optional dtype. So the graph has the op's node alone, as PyTorch's (no ``ToCopyBackward0``). The
    ``amp.cast`` event still says which input autocast reads in float32."""
    if AMP.devices is not None and AMP.level == 1 and "dtype" in attrs:
        first, device = _region(inputs)
        if device is not None and policy_of(aten_name_of(op.name, attrs), device) == FP32_SET_OPT_DTYPE:
            return inputs, _set_opt_dtype(op.name, first, device, attrs)
    return autocast_inputs(op, inputs, attrs), attrs


def autocast_inputs(op: Any, inputs: list[Any], attrs: dict[str, Any] | None = None) -> list[Any]:
    """Cast ``op``'s float inputs to the AMP destination dtype (``EagerAmpAutoCast``).

    The casts run with AMP off (``AutoCastGuard(O0)``) and are recorded ops,
    so gradients flow back through them. Inputs already in the destination
    dtype are passed through untouched. Under PyTorch's spelling (``AMP.devices``)
    the op's ATen name and device type choose the policy (``autocast_policy``).
    """
    name = op.name
    if AMP.devices is not None and AMP.level == 1:
        return _torch_cast(name, aten_name_of(name, attrs or {}), inputs)
    dest = amp_dest_dtype(name, inputs, AMP.level, AMP.dtype)
    if dest is None:
        return inputs
    cast = OPS["cast"]
    out: list[Any] = []
    changed = False
    level = AMP.level
    AMP.level = 0  # AutoCastGuard(O0): the casts themselves are not auto-cast
    try:
        for spec, v in zip(op.inputs, inputs):
            if v is None:
                out.append(v)
            elif isinstance(v, list):
                row = [_cast_one(cast, name, t, dest) for t in v]
                changed = changed or any(a is not b for a, b in zip(row, v))
                out.append(row)
            else:
                c = _cast_one(cast, name, v, dest)
                changed = changed or c is not v
                out.append(c)
    finally:
        AMP.level = level
    return out if changed else inputs


# -- PyTorch's spelling: per-device lists ----------------------------------------------------------


def _is_tensor(v: Any) -> bool:
    return hasattr(v, "_dtype") and hasattr(v, "_device")


def _tensors(values: Any) -> Any:
    """The tensors among ``values`` (an op's inputs, or a call's arguments), lists and tuples walked."""
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _tensors(v)
        elif _is_tensor(v):
            yield v


def _region(values: Any) -> tuple[Any, str | None]:
    """The first tensor among ``values`` and its device type, the type None where autocast is off for it (or
    there is no tensor): the device type whose lists and dtype apply to the call."""
    first = next(_tensors(values), None)
    device = None if first is None else first._device.partition(":")[0]
    return first, (device if device in AMP.devices else None)


def _eligible(t: Any, device: str) -> bool:
    """PyTorch's ``is_autocast_eligible``: floating, not float64, on the context's device type."""
    d = t._dtype
    return d.is_floating and d is not _dt.float64 and t._device.partition(":")[0] == device


_BANNED = ("torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
           "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
           "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
           "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
           "safe to autocast.")


def _destination(aten: str, values: Any, first: Any, device: str | None) -> tuple[str, Any] | None:
    """The device type and the dtype autocast casts ``aten``'s eligible inputs to, or None to leave them
    (``first``, ``device``: ``_region(values)``)."""
    if device is None:
        return None
    low = AMP.devices[device]
    policy = policy_of(aten, device)
    if policy is None:
        return None
    if policy == LOWER:
        return device, low
    if policy == FP32:
        return device, _dt.float32
    if policy == FP32_SET_OPT_DTYPE:  # float32 unless the caller chose a dtype; only when the first input is eligible
        return (device, _dt.float32) if _eligible(first, device) else None
    if policy == PROMOTE:  # PyTorch's prioritize: float32 wins, float64 ignored, another low dtype refused
        dest = low
        for t in _tensors(values):
            if _eligible(t, device) and t._dtype is not dest:
                if t._dtype is _dt.float32 or dest is _dt.float32:
                    dest = _dt.float32
                else:
                    raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
        return device, dest
    if policy == BANNED:
        raise RuntimeError(_BANNED)
    raise AssertionError(policy)


def _torch_cast(op_name: str, aten: str, inputs: list[Any]) -> list[Any]:
    found = _destination(aten, inputs, *_region(inputs))
    if found is None:
        return inputs
    device, dest = found
    cast = OPS["cast"]
    level, AMP.level = AMP.level, 0
    try:
        out = [_torch_cast_value(cast, op_name, v, device, dest) for v in inputs]
    finally:
        AMP.level = level
    return out if any(a is not b for a, b in zip(out, inputs)) else inputs


def _torch_cast_value(cast: Any, op_name: str, v: Any, device: str, dest: Any) -> Any:
    if isinstance(v, (list, tuple)):
        row = [_torch_cast_value(cast, op_name, t, device, dest) for t in v]
        return v if all(a is b for a, b in zip(row, v)) else type(v)(row)
    if not _is_tensor(v) or v._dtype is dest or not _eligible(v, device):
        return v
    # PyTorch's cast cache: a float32 leaf that needs a gradient (a parameter) is cast to the low dtype once
    # per outermost autocast context, however many ops use it.
    cacheable = (dest is AMP.devices[device] and v._dtype is _dt.float32 and v.requires_grad and v.is_leaf
                 and v._view is None and AMP.cache_enabled)
    if cacheable:
        hit = AMP.cache.get(id(v))
        if hit is not None and hit[0] is v:
            return hit[1]
    out = _cast(cast, op_name, v, dest)
    if cacheable:
        AMP.cache[id(v)] = (v, out)
    return out


def _autocast_as_call(fn: Any, aten: str, composite: bool, takes_dtype: bool, args: tuple[Any, ...],
                      kwargs: dict[str, Any]) -> Any:
    """A call of ``autocast_as``'s function inside an autocast region of PyTorch's spelling."""
    values = list(args) + list(kwargs.values())
    first, device = _region(values)
    if device is None or (composite and policy_of(aten, device) is None):
        return fn(*args, **kwargs)
    if takes_dtype and policy_of(aten, device) == FP32_SET_OPT_DTYPE:
        kwargs = _set_opt_dtype(aten, first, device, kwargs)  # no cast: the dtype set (``autocast_call``)
        found = None
    else:
        found = _destination(aten, values, first, device)
    cast = OPS["cast"]
    level, AMP.level = AMP.level, 0
    try:
        if found is not None:
            device, dest = found
            args = tuple(_torch_cast_value(cast, aten, v, device, dest) for v in args)
            kwargs = {k: _torch_cast_value(cast, aten, v, device, dest) for k, v in kwargs.items()}
        return fn(*args, **kwargs)
    finally:
        AMP.level = level


def autocast_as(aten: str, *, composite: bool = True) -> Any:
    """Decorate a minigrad function that PyTorch runs as the one ATen operator ``aten``.

    Under PyTorch's spelling of autocast, where ``aten`` has a policy on its arguments' device type, the
    function's tensor arguments are cast by it and its body runs with autocast off, as PyTorch's autocast
    kernel redispatches below itself: ``F.l1_loss`` of a bfloat16 input on the CPU runs in float32 and
    returns float32, as PyTorch's ``l1_loss`` does, whatever ops minigrad writes it with. Where ``aten``
    has none, a ``composite`` operator (one PyTorch decomposes, ``CompositeImplicitAutograd``) lets the ops
    of its body cast as they would, and another (``torch.mv``, PyTorch's own kernel) runs its body with
    autocast off: PyTorch's ``mv`` of float32 tensors on the CPU is float32 where minigrad's ``matmul``
    would be cast.
    """
    def decorate(fn: Any) -> Any:
        takes_dtype = "dtype" in inspect.signature(fn).parameters

        # A profile shows a composite operator as PyTorch's does: ``aten::linear`` around the ops it runs.
        ranged = f"aten::{aten}" if composite else None

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if AMP.devices is None or AMP.level != 1:
                if bus.recorder is None or ranged is None:
                    return fn(*args, **kwargs)
                with scope(ranged):
                    return fn(*args, **kwargs)
            if ranged is None:
                return _autocast_as_call(fn, aten, composite, takes_dtype, args, kwargs)
            with scope(ranged):
                return _autocast_as_call(fn, aten, composite, takes_dtype, args, kwargs)

        wrapper.__autocast_aten__ = (aten, composite)  # type: ignore[attr-defined]
        return wrapper

    return decorate


def _cast_one(cast: Any, op_name: str, t: Any, dest: Any) -> Any:
    if t._dtype is dest or not _castable(t):
        return t
    return _cast(cast, op_name, t, dest)


def _cast(cast: Any, op_name: str, t: Any, dest: Any) -> Any:
    _announce_cast(op_name, t, dest)
    return cast(t, dest)


def _announce_cast(op_name: str, t: Any, dest: Any) -> None:
    """The ``amp.cast`` event: autocast has ``op_name`` read ``t`` in ``dest``."""
    rec = bus.recorder
    if rec is not None:
        rec.emit(AmpCast(op=op_name, tensor=t._id, from_dtype=t._dtype.name, to_dtype=dest.name))
