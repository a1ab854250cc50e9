"""AMP state read by the dygraph layer (``AMP.level`` is 0 when no autocast is active)."""

from __future__ import annotations

import threading

__all__ = ["AMP"]


class _AmpState(threading.local):
    """Per-thread autocast state: ``autocast`` in one thread leaves the others in full precision."""

    def __init__(self) -> None:
        self.level = 0  # 0 = O0 (off), 1 = O1, 2 = O2
        self.dtype = None


AMP = _AmpState()
