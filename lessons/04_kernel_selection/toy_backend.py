"""Lesson 4, Task 4.2: a toy backend.

A backend is a name used in KernelKeys, a device string users type, and two
functions that move arrays there and back (``register_backend``). Kernels are
registered per (op, backend, layout, dtype) (``register_kernel``). Every op
without a TOY kernel reaches the CPU kernels through the fallback steps of
the search order.
"""

from __future__ import annotations

import numpy as np

from minigrad.dtypes import FLOAT_DTYPES
from minigrad.kernels.backends import register_backend, unregister_backend
from minigrad.kernels.registry import register_kernel, unregister_kernels

#: How many times the TOY add kernel ran (the tests read it).
CALLS = {"add": 0}


class ToyArray(np.ndarray):
    """The TOY backend's arrays: NumPy arrays of their own class, so they can be told apart."""


def to_toy(array: np.ndarray) -> ToyArray:
    """NumPy array -> TOY array (a copy)."""
    return np.array(array, copy=True).view(ToyArray)


def to_host(array: ToyArray) -> np.ndarray:
    """TOY array -> NumPy array (a copy)."""
    return np.array(array, copy=True).view(np.ndarray)


def toy_add(x: np.ndarray, y: np.ndarray) -> ToyArray:
    """The TOY kernel of ``add``: counts its calls, returns a ToyArray."""
    CALLS["add"] += 1
    return np.add(x, y).view(ToyArray)


def register_toy_backend() -> None:
    """Register the backend ``TOY`` (device ``"toy"``) and ``toy_add`` as its ``add`` kernel.

    After this, ``mg.ones(3).to("toy") + 1`` runs ``toy_add`` (kernel name
    ``"toy/toy_add"``, registered for ALL_LAYOUT and the float dtypes), and
    ``mg.ones(3).to("toy").exp()`` falls back to the CPU kernel.
    """
    # BEGIN LESSON 4 TASK 4.2: register the TOY backend and its add kernel
    register_backend("TOY", "toy", to_device=to_toy, to_host=to_host, array_types=(ToyArray,))
    register_kernel("add", "TOY", dtypes=FLOAT_DTYPES, name="toy/toy_add")(toy_add)
    # END LESSON 4 TASK 4.2


def unregister_toy_backend() -> None:
    """Undo ``register_toy_backend`` (the tests call it after each test)."""
    unregister_kernels("add", "TOY")
    unregister_backend("TOY")
