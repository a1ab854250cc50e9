"""Autograd: grad nodes, the backward engine, GeneralGrad, hooks, grad mode (seed 001, 003, 004).

``mg.autograd.backward(tensors, grad_tensors=None, retain_graph=False)``
runs one backward pass from several outputs at once.
"""

from __future__ import annotations

from typing import Any, Sequence

from .accumulation import AccumulationNode
from .engine import run_backward
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .grad_node import Edge, GradNode
from .hooks import register_final_backward_hook
from .meta import AutogradMeta
from .tensor_wrapper import TensorWrapper

__all__ = [
    "backward",
    "run_backward",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "register_final_backward_hook",
    "GradNode",
    "AccumulationNode",
    "Edge",
    "AutogradMeta",
    "TensorWrapper",
]


def _as_list(name: str, value: Any) -> list[Any]:
    from ..tensor import Tensor

    if isinstance(value, Tensor) or value is None:
        return [value]
    if isinstance(value, (list, tuple)):
        return list(value)
    raise TypeError(f"backward(): argument '{name}' must be a Tensor or a sequence of Tensors, but got {type(value).__name__}")


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool = False) -> None:
    """Accumulate into leaf ``.grad`` the gradients of several outputs in one pass.

    Args:
        tensors: an output tensor or a sequence of them.
        grad_tensors: seeds, one per output (``None`` entries: ones for one-element outputs).
        retain_graph: keep saved tensors for another backward.
    """
    outs = _as_list("tensors", tensors)
    grads: Sequence[Any] | None = None if grad_tensors is None else _as_list("grad_tensors", grad_tensors)
    if not isinstance(retain_graph, bool):
        raise TypeError(f"backward(): argument 'retain_graph' must be bool, but got {type(retain_graph).__name__}")
    run_backward(outs, grads, retain_graph=retain_graph)
