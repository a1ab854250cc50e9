"""AMP state read by the dygraph layer (``AMP.level`` is 0 when no autocast is active)."""

from __future__ import annotations

import threading

__all__ = ["AMP"]


class _AmpState(threading.local):
    """Per-thread autocast state: ``autocast`` in one thread leaves the others in full precision."""

    def __init__(self) -> None:
        self.level = 0  # 0 = O0 (off), 1 = O1, 2 = O2
        self.dtype = None
        # PyTorch's spelling (``autocast("cpu")``): device type -> dtype for the types autocast is on for,
        # cast by PyTorch's per-device lists; None: minigrad's levels, which cast every tensor.
        self.devices: dict[str, object] | None = None
        # PyTorch's cast cache: id of a float32 leaf parameter -> (the leaf, its lower-precision cast),
        # emptied when the outermost autocast context exits.
        self.cache: dict[int, tuple[object, object]] = {}
        self.cache_enabled = True


AMP = _AmpState()
