"""minigrad: an instrumented teaching framework for deep-learning internals.

A small but complete eager engine - four-layer forward path, grad nodes,
a deque-driven backward engine, GeneralGrad - that emits an event for every
step. See DESIGN §8 for the public API.

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4., 6.])
"""

from __future__ import annotations

import os as _os

from . import dtypes, flags
from .dtypes import bool_, float16, float32, float64, int32, int64
from .tensor import (
    Tensor,
    arange,
    channels_last,
    full,
    full_like,
    manual_seed,
    ones,
    ones_like,
    rand,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from .kernels import cpu as _cpu_kernels  # noqa: F401  (registers the CPU kernels)
from .ops import *  # noqa: F401,F403
from .ops import __all__ as _ops_all
from . import _tensor_methods  # noqa: F401  (operators and methods)
from . import autograd
from .autograd import enable_grad, grad, no_grad, set_grad_enabled, is_grad_enabled
from .autograd.function import Function as _Function, FunctionCtx as _FunctionCtx

# ``mg.autograd.Function``: its module sits above the dygraph layer, which ``minigrad.autograd``'s
# own __init__ cannot import (``minigrad.tensor`` imports that package first), so it is attached here.
autograd.Function = _Function
autograd.FunctionCtx = _FunctionCtx
from .kernels.backends import is_gpu_available, register_backend, unregister_backend
from .autograd.amp import autocast
from .tracing import trace
from . import nn, optim

bool = bool_  # noqa: A001  (mg.bool, as torch.bool)

__version__ = "0.1.0"

__all__ = [
    "Tensor", "tensor", "zeros", "ones", "full", "arange", "randn", "rand", "zeros_like", "ones_like",
    "full_like", "manual_seed", "channels_last", "float16", "float32", "float64", "int32", "int64", "bool", "bool_", "dtypes",
    "flags", "autograd", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "trace", "nn",
    "optim", "is_gpu_available", "register_backend", "unregister_backend", "autocast", *_ops_all,
]



def __getattr__(name: str):
    # ``mg.viz`` works after a plain ``import minigrad``, importing the renderer (and
    # graphviz) only on first use: the engine itself never imports the viewers.
    if name in ("viz", "tui"):
        import importlib

        return importlib.import_module(f"minigrad.{name}")
    raise AttributeError(f"module 'minigrad' has no attribute {name!r}")


if _os.environ.get("MINIGRAD_TRACE"):
    from .tracing.recorder import start_env_recording as _start_env_recording

    _start_env_recording(_os.environ["MINIGRAD_TRACE"])
