"""``mg.nn.utils.skip_init``: make a module without spending the random draws of its initialization, PyTorch's.

PyTorch builds the module on its "meta" device, where nothing is drawn, and then allocates its tensors
uninitialized. minigrad has no meta device: it builds the module as usual and then puts every random
generator back where it was, so the draws a program makes afterwards are the ones it would make after
PyTorch's ``skip_init``. The module's values are whatever the initialization left - unspecified, as
PyTorch's uninitialized memory is; the program is expected to set them (``load_state_dict``, ``copy_``).

Example:
    >>> import minigrad as mg
    >>> _ = mg.manual_seed(0)
    >>> layer = mg.nn.utils.skip_init(mg.nn.Linear, 3, 2)
    >>> round(mg.rand(1).item(), 4)  # the draw right after manual_seed(0): nothing was spent
    0.4963
"""

from __future__ import annotations

import inspect
from typing import Any

from ... import cuda, random
from ..module import Module

__all__ = ["skip_init"]


def skip_init(module_cls: type, *args: Any, **kwargs: Any) -> Module:
    """``module_cls(*args, **kwargs)`` made without consuming random draws (see the module docstring); the
    class must take ``device=``, as PyTorch requires."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs["device"] = kwargs.pop("device", "cpu")
    states = random.get_rng_state(), cuda.get_rng_state()
    try:
        return module_cls(*args, **kwargs)
    finally:
        random.set_rng_state(states[0])
        cuda.set_rng_state(states[1])
