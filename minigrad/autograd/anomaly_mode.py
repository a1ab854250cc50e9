"""Anomaly detection: which forward line made the node that failed, and which node first made a NaN.

``torch.autograd.detect_anomaly()`` is how PyTorch users debug a backward pass
that raises or gives NaN. With it on, the engine does two more things
(NOTE [ Anomaly mode ]):

* every grad node made keeps the traceback of the forward call that made it,
  and when a node's backward raises, a ``UserWarning`` prints that traceback
  ("Error detected in DivBackward0. Traceback of forward call that caused the
  error: ...") before the error reaches the program;
* with ``check_nan`` (the default), after each node runs its outputs are
  checked, and the first that holds a NaN stops the pass:
  ``RuntimeError: Function 'DivBackward0' returned nan values in its 1th output.``
  The output's number is its position in the node's ``next_functions``.

Example:
    >>> import warnings, minigrad as mg
    >>> x = mg.tensor([0.0, 1.0], requires_grad=True)
    >>> with warnings.catch_warnings(record=True):
    ...     with mg.autograd.detect_anomaly():
    ...         y = x.sqrt()
    ...         try:
    ...             (y / y).sum().backward()
    ...         except RuntimeError as e:
    ...             print(e)
    Function 'DivBackward0' returned nan values in its 1th output.

NOTE [ Anomaly mode ]
    The switch is global, as PyTorch's (``torch.is_anomaly_enabled()`` answers
    the same in every thread). The check costs what PyTorch's does: a NaN test
    of every gradient a node returns, which on a GPU reads a flag back to the
    host, one per output (a ``device.sync`` event, reason ``"anomaly check"``,
    that ``mg.cuda.set_sync_debug_mode`` sees). A node made inside backward
    (``create_graph=True``) also remembers the node whose backward made it:
    its error's warning is followed by one more, "Previous calculation was
    induced by ...", per link of that chain, as PyTorch's are. The tracebacks
    show the program's own frames and the ``nn`` modules' ``forward`` lines,
    not the engine's. Off, it costs one flag test per node made and per node
    run.
"""

from __future__ import annotations

import os
import sys
import traceback
import warnings
import weakref
from typing import Any

from ..devices import to_numpy
from ..tracing.provenance import is_user_file

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
           "set_anomaly_enabled"]


class _Anomaly:
    """The global switch (NOTE [ Anomaly mode ]); ``running`` is the node whose backward is running."""

    __slots__ = ("enabled", "check_nan", "running")

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True
        self.running: list[Any] = []


ANOMALY = _Anomaly()

#: grad node -> (traceback text of the forward call that made it, the node whose backward made it or None)
_FORWARD: "weakref.WeakKeyDictionary[Any, tuple[str, Any]]" = weakref.WeakKeyDictionary()


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on (``torch.is_anomaly_enabled``)."""
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks each node's outputs for NaN (``torch.is_anomaly_check_nan_enabled``)."""
    return ANOMALY.check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off (``torch.set_anomaly_enabled``)."""
    ANOMALY.enabled = bool(enabled)
    ANOMALY.check_nan = bool(check_nan)


class detect_anomaly:  # noqa: N801  (PyTorch's name)
    """A context in which the engine keeps forward tracebacks and checks outputs for NaN (see the module
    docstring). Entering it warns that it slows the program, as PyTorch's does."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = ANOMALY.enabled
        self.check_nan = check_nan
        self.prev_check_nan = ANOMALY.check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: Any) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:  # noqa: N801  (PyTorch's name)
    """Turn anomaly detection on or off now (``torch.autograd.set_detect_anomaly(True)``); as a context, the
    previous setting comes back at its end."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = ANOMALY.enabled
        self.prev_check_nan = ANOMALY.check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: Any) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# -- what the engine calls -------------------------------------------------------------------------------


def record_forward(node: Any) -> None:
    """Keep the traceback of the call making ``node`` (``GradNode.__init__`` calls this in anomaly mode)."""
    frames = [f for f in traceback.extract_stack()[:-2] if is_user_file(f.filename) or _is_nn_file(f.filename)]
    parent = ANOMALY.running[-1] if ANOMALY.running else None
    _FORWARD[node] = ("".join(traceback.format_list(frames)), parent)


def copy_forward(node: Any, copy: Any) -> None:
    """GeneralGrad's copy of ``node`` keeps its forward traceback."""
    entry = _FORWARD.get(node)
    if entry is not None:
        _FORWARD[copy] = entry


def _is_nn_file(filename: str) -> bool:
    """A module's ``forward`` or an ``nn.functional`` line: PyTorch's tracebacks show its ``torch/nn`` frames."""
    return os.path.abspath(filename).startswith(_NN)


#: minigrad's ``nn`` package (``minigrad/nn/``): the layers' own lines belong in a forward traceback
_NN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "nn") + os.sep


def report(node: Any) -> None:
    """Warn with the forward traceback of ``node``, whose backward raised, and of the nodes whose backward
    made it (PyTorch's "Error detected in ..." warning)."""
    name = type(node).__name__
    entry = _FORWARD.get(node)
    if entry is None:
        warnings.warn(f"Error detected in {name}. No forward pass information available. Enable detect anomaly "
                      "during forward pass for more information.", stacklevel=_user_stacklevel())
        return
    text, parent = entry
    level = _user_stacklevel()
    warnings.warn(f"Error detected in {name}. Traceback of forward call that caused the error:\n{text}", stacklevel=level)
    seen = {id(node)}
    while parent is not None and id(parent) not in seen:  # one warning per link, as PyTorch's
        seen.add(id(parent))
        parent_entry = _FORWARD.get(parent)
        if parent_entry is None:
            break
        warnings.warn(f"\n\nPrevious calculation was induced by {type(parent).__name__}. Traceback of forward call "
                      f"that induced the previous calculation:\n{parent_entry[0]}", stacklevel=level)
        parent = parent_entry[1]


def _user_stacklevel() -> int:
    """The ``stacklevel`` that attributes a warning to the program's line that started the backward pass."""
    frame, level = sys._getframe(2), 2  # (the frame that called ``report``)
    while frame is not None and not is_user_file(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level if frame is not None else 2


def nan_output(node: Any, grads_out: list[list[Any]]) -> int | None:
    """The position (in ``next_functions``' order) of the first output of ``node`` holding a NaN, or None.
    On a GPU each test reads a flag back: a ``device.sync`` event, reason ``"anomaly check"``."""
    specs = node.opdef.inputs if node.opdef is not None else ()
    position = 0
    for slot, row in enumerate(grads_out):
        if (slot < len(specs) and not specs[slot].differentiable) or slot == node.scalar_slot:
            continue  # an input PyTorch's node has no output for (a target, an index, a Scalar)
        for g in row:
            if g is not None and g._dtype.is_floating and _has_nan(g):
                return position
            position += 1
    return None


def _has_nan(g: Any) -> bool:
    data = g._data
    # On a GPU the flag comes back through the backend's mover: a d2h copy and a sync, which the GPU
    # backend names "anomaly check" (``nan_output`` is in its reasons: kernels/gpu/syncs.py).
    return bool(to_numpy((data != data).any()))
