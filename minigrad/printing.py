"""How a tensor prints: PyTorch's formatting rules (``torch/_tensor_str.py``), so printed tensors read the same.

``format_values(array)`` is the values part of ``repr(tensor)``:
``[1.5000, 2.0000]``, ``[1., 2.]``, ``[1.0000e-05, 1.0000e+03]``, and
``...`` past 1000 elements; ``add_suffixes`` appends ``dtype=``/``grad_fn=``
and breaks the line where the last one would pass the line width.
``set_printoptions`` changes the precision, the summary threshold and edge
items, the line width and the notation, as ``torch.set_printoptions`` does.

Example:
    >>> import minigrad as mg
    >>> mg.set_printoptions(precision=2)
    >>> mg.tensor([1.0, 2.5])
    tensor([1.00, 2.50])
    >>> mg.set_printoptions(profile="default")
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .dtypes import is_floating_np

__all__ = ["format_values", "add_suffixes", "set_printoptions", "get_printoptions", "PRINT_OPTS"]


@dataclass
class PrintOptions:
    """What ``set_printoptions`` changes (PyTorch's ``PRINT_OPTS``)."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    #: None: each tensor picks (``1.0000e-05`` when its values span more than 1000x); True/False forces it.
    sci_mode: bool | None = None


PRINT_OPTS = PrintOptions()

#: ``profile=``: the named settings (precision, threshold, edgeitems, linewidth).
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """How tensors print from now on (``torch.set_printoptions``).

    Args:
        precision: digits after the point (default 4).
        threshold: more elements than this print summarized, ``...`` in the middle (default 1000).
        edgeitems: elements kept at each end of a summarized dimension (default 3).
        linewidth: characters a line holds before it breaks (default 80).
        profile: ``"default"``, ``"short"`` or ``"full"`` (never summarized); the other arguments given
            override it. Another name is ignored, as PyTorch ignores it.
        sci_mode: True or False forces scientific notation on or off; None (the default, and what every
            call that leaves it out sets, as in PyTorch) lets each tensor choose.
    """
    if profile in _PROFILES:  # another name changes nothing, as in PyTorch
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options as a dict (``torch._tensor_str.get_printoptions``)."""
    o = PRINT_OPTS
    return {"precision": o.precision, "threshold": o.threshold, "edgeitems": o.edgeitems,
            "linewidth": o.linewidth, "sci_mode": o.sci_mode}


class _Formatter:
    """One width and one style for every element: ``1.``, ``1.5000`` or ``1.0000e-05``.

    As PyTorch's: the width and the style come from the finite non-zero values only (an ``inf`` or a
    ``0.`` is padded to them); a ``sci_mode`` set by ``set_printoptions`` overrides the choice.
    """

    def __init__(self, values: np.ndarray) -> None:
        p = PRINT_OPTS.precision
        self.floating = is_floating_np(values.dtype)
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not self.floating:
            self.width = max((len(str(v)) for v in values.reshape(-1).tolist()), default=1)
            return
        v = values.astype(np.float64).reshape(-1)
        nz = v[np.isfinite(v) & (v != 0)]
        if nz.size == 0:
            return
        lo, hi = np.abs(nz).min(), np.abs(nz).max()
        self.int_mode = bool(np.all(nz == np.ceil(nz)))
        forced = PRINT_OPTS.sci_mode
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if forced is None else forced
        fmt = f"{{:.{p}e}}" if self.sci_mode else "{:.0f}." if self.int_mode else f"{{:.{p}f}}"
        self.width = max(len(fmt.format(x)) for x in nz.tolist())

    def format(self, value: Any) -> str:
        p = PRINT_OPTS.precision
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.width}.{p}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{p}f}"
        return text.rjust(self.width)


def _summarized(arr: np.ndarray) -> np.ndarray:
    """The edge items of every dimension (what a summarized repr shows, and its formatter measures)."""
    edge = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        return np.concatenate([arr[:edge], arr[-edge:]]) if arr.shape[0] > 2 * edge else arr
    if not edge:
        return arr[tuple(slice(0, 0) for _ in arr.shape)]
    rows = list(arr[:edge]) + list(arr[-edge:]) if arr.shape[0] > 2 * edge else list(arr)
    return np.stack([_summarized(a) for a in rows])


def _format_nested(arr: np.ndarray, fmt: _Formatter, indent: int, summarize: bool) -> str:
    edge = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return fmt.format(arr.item())
    n = arr.shape[0]
    cut = summarize and n > 2 * edge
    if arr.ndim == 1:
        if summarize and not edge:
            items = ["..."]
        else:
            rows = list(range(edge)) + [-1] + list(range(n - edge, n)) if cut else list(range(n))
            items = [" ..." if i < 0 else fmt.format(arr[i].item()) for i in rows]
        per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / (fmt.width + 2))))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = list(range(edge)) + [-1] + list(range(n - edge, n)) if cut else list(range(n))
    parts = ["..." if i < 0 else _format_nested(arr[i], fmt, indent + 1, summarize) for i in rows]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def format_values(arr: np.ndarray, indent: int = len("tensor(")) -> str:
    """The values part of ``repr``, as PyTorch prints it (``[1.5000, 2.0000]``, ``[1., 2.]``)."""
    if arr.size == 0:
        return "[]"
    summarize = arr.size > PRINT_OPTS.threshold
    fmt = _Formatter(_summarized(arr) if summarize else arr)
    return _format_nested(arr, fmt, indent, summarize)


def add_suffixes(text: str, suffixes: list[str], indent: int = len("tensor(")) -> str:
    """``text`` (``tensor([...]``) closed with its suffixes (``dtype=...``, ``grad_fn=<...>``): each on the
    line so far, or on a new line indented under the values where it would pass the line width."""
    out = [text]
    last_line = len(text) - text.rfind("\n") + 1  # PyTorch's count (one more than the line's length)
    for suffix in suffixes:
        # Measured as PyTorch's spelling (``dtype=torch.float64``): the lines break where the tutorial's do.
        n = len(suffix) - suffix.count("minigrad.") * (len("minigrad.") - len("torch."))
        if last_line + n + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            last_line = indent + n
        else:
            out.append(", " + suffix)
            last_line += n + 2
    out.append(")")
    return "".join(out)
