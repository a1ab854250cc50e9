"""Automatic mixed precision: ``with mg.autocast(level="O1"):`` (the AMP block of Paddle's generated dygraph functions).

In Paddle's generated dygraph function the first thing an op does, when an
AMP level other than O0 is active, is decide one destination dtype for its
inputs (``GetAmpDestDtype``), cast them (``EagerAmpAutoCast``), and call
itself again with AMP switched off (``AutoCastGuard(O0)``). minigrad's
dygraph layer (``run_layers``) calls ``autocast_inputs`` for the same step.

The destination dtype, per level:

- **O1** (mixed): ops on the *allow list* (matmul, conv2d - tensor-core
  friendly, numerically safe) run in float16; ops on the *deny list* (exp,
  log, softmax, cross_entropy, sum, mean... - overflow or precision
  sensitive) run in float32; every other op follows its inputs: float32 if
  any floating input is float32, else float16 (``GetPromoteType``).
- **O2** (almost all float16): every op runs in float16 except the deny list.

Only float16 and float32 inputs are cast (float64, integer and bool inputs
are left alone, as Paddle's ``NeedCast``). Each cast is a real ``cast`` op -
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
import threading
from typing import Any

from .. import dtypes as _dt
from ..tracing import bus
from ..tracing.events import AmpCast
from .amp_state import AMP
from .op_table import OPS

__all__ = ["autocast", "autocast_inputs", "amp_dest_dtype", "set_amp_category", "ALLOW_LIST", "DENY_LIST", "LEVELS"]

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


def autocast_inputs(op: Any, inputs: list[Any]) -> list[Any]:
    """Cast ``op``'s float inputs to the AMP destination dtype (``EagerAmpAutoCast``).

    The casts run with AMP off (``AutoCastGuard(O0)``) and are recorded ops,
    so gradients flow back through them. Inputs already in the destination
    dtype are passed through untouched.
    """
    name = op.name
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


def _cast_one(cast: Any, op_name: str, t: Any, dest: Any) -> Any:
    if t._dtype is dest or not _castable(t):
        return t
    rec = bus.recorder
    if rec is not None:
        rec.emit(AmpCast(op=op_name, tensor=t._id, from_dtype=t._dtype.name, to_dtype=dest.name))
    return cast(t, dest)
