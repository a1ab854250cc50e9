"""A "TOY" backend for CPU-only tests: NumPy arrays wrapped in a distinct class.

Registered with ``mg.register_backend`` exactly as a user would register a
real device. Its arrays are ``ToyArray`` (an ndarray subclass), so a test can
tell where an array lives: a TOY kernel that receives a plain ndarray was
given data that PrepareData did not move. Its library-accelerated variant is
``TOYDNN``, so the two ``GPUDNN`` steps of the search order run on CPU CI.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np

import minigrad as mg
from minigrad.kernels import select
from minigrad.kernels.key import Layout

TOY, TOYDNN = "TOY", "TOYDNN"


class ToyArray(np.ndarray):
    """An array on the TOY device."""


def to_toy(a: Any) -> ToyArray:
    return np.array(a).view(ToyArray)


def to_host(a: Any) -> np.ndarray:
    return np.array(a).view(np.ndarray)


def on_toy(a: Any) -> bool:
    return isinstance(a, ToyArray)


@contextmanager
def toy_backend() -> Iterator[Any]:
    """Register the TOY backend (no kernels) for the duration of a test."""
    info = mg.register_backend(TOY, device="toy", dnn=TOYDNN, to_device=to_toy, to_host=to_host, array_types=(ToyArray,))
    fallback = mg.flags.enable_api_kernel_fallback
    gpudnn = mg.flags.use_gpudnn
    try:
        yield info
    finally:
        mg.flags.enable_api_kernel_fallback = fallback
        mg.flags.use_gpudnn = gpudnn
        mg.unregister_backend(TOY)
        select.clear_cache()


def toy_kernel(op: str, backend: str = TOY, layout: str = Layout.ALL_LAYOUT, fn: Any = None, **kw: Any) -> list[Any]:
    """Register ``fn`` (default: the NumPy ufunc named like ``op``) on the TOY side; returns the arrays it saw."""
    seen: list[Any] = []
    base = fn or {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum}[op]

    def kernel(*args: Any, **attrs: Any) -> Any:
        seen.append(args)
        return to_toy(base(*[to_host(a) if isinstance(a, np.ndarray) else a for a in args], **attrs))

    kernel.__name__ = f"{op}_{backend.lower()}_{layout.lower()}"
    mg.kernels.registry.register_kernel(op, backend, layout=layout, dtypes=mg.dtypes.FLOAT_DTYPES, **kw)(kernel)
    return seen


def events(tr: Any, *kinds: str) -> list[dict[str, Any]]:
    """The recorded events of the given kinds, as dicts without the header."""
    out = []
    for e in tr.events:
        if e.kind in kinds:
            d = e.to_dict()
            for k in ("seq", "ts_ns"):
                d.pop(k)
            out.append(d)
    return out
