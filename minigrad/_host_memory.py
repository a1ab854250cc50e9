"""Freed array memory is kept for the next arrays (glibc's heap padding).

NOTE [ Fresh pages for every large array ]
    A training step makes and frees many arrays of 128 KB to a few MB:
    activations, their gradients, a kernel's temporaries. glibc hands a freed
    block back to the operating system once enough free memory gathers at the
    top of its heap (about twice the largest block freed lately), and that
    happens at the end of every backward pass, when the step's arrays go. Each
    large array of the next step is then fresh memory, and its first write
    page-faults: about 100 faults for a 512 KB array. In the transformer
    benchmark (``bench/transformer.py``) that was 1,266 faults a step, and the
    step took 17.9 ms instead of 14.9.

    So at import minigrad asks glibc to keep 64 MiB of free memory at the top
    of its heap when it shrinks (``mallopt(M_TOP_PAD)``): the next step's
    arrays reuse the same pages, and the process holds at most that much more
    than it uses. NumPy tunes its allocations the same way: it asks for huge
    pages for large arrays. Other C libraries (musl, macOS, Windows) are left
    as they are.

    ``MINIGRAD_MALLOC_PAD`` changes it before ``import minigrad``: a number of
    bytes, or ``0`` to leave glibc's setting alone.

Example:
    >>> from minigrad import _host_memory
    >>> _host_memory.PAD_BYTES >> 20  # MiB
    64
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["PAD_BYTES", "keep_free_heap"]

#: What ``import minigrad`` asks glibc to keep (NOTE above).
PAD_BYTES = 64 << 20

#: Whether freed memory is kept for reuse (set at import): ``special.by_chunks`` works in
#: cache-sized chunks only when it is not, to avoid the page faults of fresh temporaries.
reused = False

_M_TOP_PAD = -2  # glibc's malloc.h


def keep_free_heap(nbytes: int) -> bool:
    """Ask glibc to keep ``nbytes`` of freed memory at the top of its heap; False where that is not glibc."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
    except (ValueError, OSError, AttributeError):  # not glibc, or no confstr (Windows)
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_TOP_PAD, nbytes))


def configure_from_environment() -> bool:
    """``import minigrad``'s step: the pad ``MINIGRAD_MALLOC_PAD`` names (bytes; 0 leaves glibc alone)."""
    value = os.environ.get("MINIGRAD_MALLOC_PAD", "").strip()
    try:
        nbytes = int(value) if value else PAD_BYTES
    except ValueError:
        raise ValueError(f"MINIGRAD_MALLOC_PAD must be a number of bytes (0 to leave glibc alone), got {value!r}") from None
    global reused
    reused = nbytes > 0 and keep_free_heap(min(nbytes, 2**31 - 1))
    return reused
