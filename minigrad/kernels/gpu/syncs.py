"""Copies and syncs between the host and the GPU, made visible (imports no CuPy).

A GPU runs ahead of Python: kernels are queued and Python goes on. A program
loses that lead where it makes the host wait - ``.item()``, ``print(t)``,
``if t:``, ``.cpu()``/``.numpy()``, a tensor moved to the GPU from host memory,
``mg.cuda.synchronize()``. Every such copy is a ``device.copy`` event and
every wait a ``device.sync`` event (``minigrad/tracing/events.py``), each with
the user's ``file:line``, and ``mg.cuda.set_sync_debug_mode`` makes them warn or
raise as PyTorch's ``torch.cuda.set_sync_debug_mode`` does.

The GPU backend's movers (``kernels/gpu/__init__.py``) and the kernels' own
uploads (``_runtime.upload``) call ``copied``; ``mg.cuda.synchronize`` calls
``synced``. A copy from ordinary (pageable) host memory waits for the stream in
both directions, so each copy is also a sync.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

from ...tracing import bus
from ...tracing.events import DeviceCopy, DeviceSync
from ...tracing.provenance import user_source

__all__ = ["set_mode", "get_mode", "copied", "synced"]

#: 0: say nothing, 1: warn, 2: raise (PyTorch's ``default``, ``warn``, ``error``)
_MODE = [0]
_NAMES = {"default": 0, "warn": 1, "error": 2}

#: the minigrad function a program called -> the ``device.sync`` reason
_REASONS = {
    "item": "item", "__int__": "item", "__float__": "item", "__index__": "item", "__complex__": "item",
    "__bool__": "bool",
    "__repr__": "print", "__str__": "print", "__format__": "print",
    "synchronize": "synchronize",
    "nonzero_count": "nonzero",
    "distinct_count": "unique",
    "_not_positive_definite": "cholesky",
    "matrix_exp_arrays": "matrix_exp",
    "nan_output": "anomaly check",  # autograd/anomaly_mode.py: a node's outputs tested for NaN
}
#: reasons whose copy is of a flag the engine made, not of the tensor the program called a method on
_NO_TENSOR = {"anomaly check"}
#: how a message names each reason
_WORDS = {"item": "a tensor's value read on the host (.item(), int(), float())", "bool": "bool() of a tensor",
          "print": "a tensor printed", "host copy": "a copy between the host and the GPU",
          "synchronize": "minigrad.cuda.synchronize()",
          "event": "a CUDA event or stream waited for (Event.synchronize(), Stream.synchronize())",
          "nonzero": "the number of non-zero elements read on the host (nonzero, x[mask], masked_select)",
          "unique": "the number of distinct values read on the host (unique)",
          "cholesky": "linalg.cholesky's info read on the host (a matrix that is not positive-definite is refused)",
          "matrix_exp": "the number of squarings read on the host (matrix_exp)",
          "anomaly check": "anomaly mode's NaN test of a node's gradients (autograd.detect_anomaly)"}

_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def set_mode(debug_mode: Any) -> None:
    """PyTorch's ``set_sync_debug_mode``: ``"default"``/0, ``"warn"``/1 or ``"error"``/2."""
    if isinstance(debug_mode, str):
        if debug_mode not in _NAMES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`")
        debug_mode = _NAMES[debug_mode]
    elif isinstance(debug_mode, bool) or not isinstance(debug_mode, int):  # PyTorch's words (torch/csrc/cuda/Module.cpp)
        raise RuntimeError("invalid argument to set_sync_debug_mode, must be one of 0, 1, 2")
    elif debug_mode not in (0, 1, 2):
        raise RuntimeError("invalid value of debug_mode, expected one of 0,1,2")
    _MODE[0] = debug_mode


def get_mode() -> int:
    return _MODE[0]


def _context() -> tuple[str | None, int | None]:
    """The reason named by the outermost minigrad call the program made (``item``, ``__bool__``...; None
    when none names one) and the tensor it was called on."""
    reason = tensor = None
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        name = frame.f_code.co_name
        if name in _REASONS:
            reason = _REASONS[name]
        this = frame.f_locals.get("self") if "self" in frame.f_code.co_varnames[:1] else None
        if this is not None and any(c.__name__ == "Tensor" for c in type(this).__mro__):  # a Tensor method
            tensor = this._id
        frame = frame.f_back
    return reason, tensor


def _check_mode(reason: str, source: str | None) -> None:
    """PyTorch's ``warn_or_error_on_sync`` (c10/cuda/CUDAFunctions.cpp), in its words, naming the line."""
    mode = _MODE[0]
    if not mode:
        return
    where = f" at {source}" if source else ""
    message = f"called a synchronizing CUDA operation: {_WORDS.get(reason, reason)}{where}"
    if mode == 2:
        raise RuntimeError(message)
    filename, _, line = (source or "").rpartition(":")
    if filename and line.isdigit():
        warnings.warn_explicit(message, UserWarning, filename, int(line))
    else:
        warnings.warn(message, UserWarning, stacklevel=3)


def copied(direction: str, nbytes: int, waits: bool = True, of_tensor: bool = True) -> None:
    """A copy between the host and the GPU is about to happen (``direction``: ``"h2d"`` or ``"d2h"``):
    the debug mode's check, then the ``device.copy`` and ``device.sync`` events. A copy from pinned
    memory with ``non_blocking=True`` does not wait (``waits=False``): its ``device.copy`` alone, and
    the debug mode lets it pass, as PyTorch's does; so does a copy made inside a wait another copy
    is the event of (the device-side checks' flags, read with a value). ``of_tensor``: the copy is of
    the tensor the program's call was made on (else ``tensor`` is None)."""
    rec = bus.recorder
    if rec is None and not _MODE[0]:
        return
    reason, tensor = _context()
    if not of_tensor or reason in _NO_TENSOR:
        tensor = None
    reason = reason or "host copy"
    source = user_source()
    if waits:
        _check_mode(reason, source)
    if rec is not None:
        rec.emit(DeviceCopy.new(direction=direction, bytes=int(nbytes), tensor=tensor, source=source))
        if waits:
            rec.emit(DeviceSync.new(reason=reason, source=source))


def synced(reason: str = "synchronize", debug_mode: bool = True) -> None:
    """The host is about to wait for the GPU (``mg.cuda.synchronize()``). ``debug_mode=False``: a wait
    PyTorch's ``set_sync_debug_mode`` lets pass (an event's ``synchronize``) - its ``device.sync`` alone."""
    rec = bus.recorder
    if rec is None and not (_MODE[0] and debug_mode):
        return
    source = user_source()
    if debug_mode:
        _check_mode(reason, source)
    if rec is not None:
        rec.emit(DeviceSync.new(reason=reason, source=source))
