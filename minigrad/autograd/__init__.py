"""Autograd: grad nodes, the backward engine, GeneralGrad, hooks, grad mode (Paddle's paddle/fluid/eager/backward.cc, PyTorch's torch/csrc/autograd/).

``mg.autograd.backward(tensors, grad_tensors=None, retain_graph=False)``
runs one backward pass from several outputs at once; ``mg.grad(outputs,
inputs, ...)`` returns gradients without touching any ``.grad`` (GeneralGrad).
"""

from __future__ import annotations

import warnings
import inspect
from typing import Any, Sequence

from ..autograd_meta import AutogradMeta
from ..tensor import Tensor
from ..tracing import bus
from .accumulation import AccumulateGrad, AccumulationNode, run_post_accumulate_grad_hooks
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import run_backward
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .grad_mode import inference_mode, is_inference_mode_enabled
from .grad_node import Edge, GradNode
from .hooks import register_final_backward_hook
from .tensor_wrapper import TensorWrapper
from . import graph
from .gradient_edge import GradientEdge

__all__ = [
    "backward",
    "grad",
    "run_backward",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "register_final_backward_hook",
    "GradNode",
    "AccumulateGrad",
    "AccumulationNode",
    "Edge",
    "AutogradMeta",
    "TensorWrapper",
    "Variable",
    "detect_anomaly",
    "set_detect_anomaly",
]


def _as_list(name: str, value: Any) -> list[Any]:
    if isinstance(value, Tensor) or value is None:
        return [value]
    if isinstance(value, (list, tuple)):
        return list(value)
    raise TypeError(f"backward(): argument '{name}' must be a Tensor or a sequence of Tensors, but got {type(value).__name__}")


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables: Any = None, inputs: Any = None) -> None:
    """Accumulate into leaf ``.grad`` the gradients of several outputs in one pass.

    Args:
        tensors: an output tensor or a sequence of them.
        grad_tensors: seeds, one per output (``None`` entries: ones for one-element outputs).
        retain_graph: keep saved tensors for another backward; defaults to ``create_graph``.
        create_graph: record the backward formulas, so the gradients can be differentiated again.
        grad_variables: PyTorch's old name for ``grad_tensors``.
        inputs: accumulate only into these tensors' ``.grad`` (leaves or not); the
            gradients are computed as ``grad()`` computes them, on a pruned copy of
            the graph, which is not released.
    """
    outs = _as_list("tensors", tensors)
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("backward(): 'grad_tensors' and 'grad_variables' (its old name) cannot both be given")
        grad_tensors = grad_variables
    grads: Sequence[Any] | None = None if grad_tensors is None else _as_list("grad_tensors", grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    for name, flag in (("retain_graph", retain_graph), ("create_graph", create_graph)):
        if not isinstance(flag, bool):
            raise TypeError(f"backward(): argument '{name}' must be bool, but got {type(flag).__name__}")
    if inputs is None:
        run_backward(outs, grads, retain_graph=retain_graph, create_graph=create_graph)
        return
    targets = _tensor_list("inputs", inputs, edges=True)
    if not targets:
        raise RuntimeError("backward(): the 'inputs' argument to backward() cannot be empty")
    results = run_backward(outs, grads, retain_graph=retain_graph, create_graph=create_graph, inputs=targets,
                           allow_unused=True)
    for t, g in zip(targets, results):
        if isinstance(t, GradientEdge):  # a leaf's edge fills its .grad; another edge has no .grad to fill
            t = t.node.variable if t.node.is_accumulation else None
        if g is not None and t is not None:
            with set_grad_enabled(create_graph):
                t.grad = g if t.grad is None else t.grad + g
                if t._meta.grad_node is None and t._meta.post_hooks:  # a leaf's, as its AccumulateGrad runs them
                    run_post_accumulate_grad_hooks(t._meta, bus.recorder)


def _tensor_list(name: str, value: Any, allow_none_items: bool = False, edges: bool = False) -> list[Any]:
    """``value`` as a list of Tensors (a single Tensor is wrapped), checked for grad(); with ``edges``,
    ``GradientEdge``\\ s are taken too (a GradientEdge is a tuple: it is one item, never a sequence)."""
    kinds = (Tensor, GradientEdge) if edges else Tensor
    if isinstance(value, kinds):
        return [value]
    what = "Tensor or GradientEdge" if edges else "Tensor"
    if not isinstance(value, (list, tuple)):
        many = "a sequence of them" if edges else "a sequence of Tensors"
        raise TypeError(f"grad(): argument '{name}' must be a {what} or {many}, but got {type(value).__name__}")
    items = list(value)
    for i, t in enumerate(items):
        if t is None and allow_none_items:
            continue
        if not isinstance(t, kinds):
            want = f"{what} or None" if allow_none_items else what
            raise TypeError(f"grad(): element {i} of argument '{name}' must be a {want}, but got {type(t).__name__}")
    return items


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
    no_grad_vars: Any = None,
) -> list[Any]:
    """The gradients of ``outputs`` with respect to ``inputs`` (PyTorch's
    ``torch.autograd.grad``, Paddle's ``paddle.grad``; docs/concepts/general-grad.md).

    Runs on a pruned copy of the backward graph (GeneralGrad): only the nodes
    between the outputs and the inputs run, no ``.grad`` is written, and the
    user's graph is never released.

    Args:
        outputs: a Tensor or a sequence of Tensors to differentiate.
        inputs: a Tensor or a sequence of distinct Tensors that require grad;
            leaves or intermediate tensors.
        grad_outputs: seeds, one per output (``None`` entries: ones, only for
            one-element outputs).
        retain_graph: free the copy's saved tensors after use unless True;
            defaults to ``create_graph``. The user's graph is never freed.
        create_graph: record the backward formulas, so the results can be
            differentiated again (any order).
        allow_unused: return ``None`` for an input the outputs do not reach
            (otherwise a ``RuntimeError``).
        no_grad_vars: tensors treated as constants (their incoming edges are cut).

    Returns:
        One entry per input: its gradient (``requires_grad == create_graph``) or ``None``.

    Example:
        >>> import minigrad as mg
        >>> x = mg.tensor(2.0, requires_grad=True)
        >>> y = x ** 3
        >>> (dy,) = mg.grad(y, x, create_graph=True)
        >>> (d2y,) = mg.grad(dy, x)
        >>> dy.item(), d2y.item()
        (12.0, 12.0)
    """
    outs = _tensor_list("outputs", outputs, edges=True)
    ins = _tensor_list("inputs", inputs, edges=True)
    if not outs:
        raise RuntimeError("grad(): argument 'outputs' is empty; pass at least one Tensor")
    if not ins:
        raise RuntimeError("grad(): argument 'inputs' is empty; pass at least one Tensor")
    seeds: list[Any] | None = None
    if grad_outputs is not None:
        seeds = _tensor_list("grad_outputs", grad_outputs, allow_none_items=True)
        if len(seeds) != len(outs):
            raise RuntimeError(
                f"grad(): got {len(outs)} outputs but {len(seeds)} grad_outputs; pass one gradient (or None) per output"
            )
    for name, value in (("create_graph", create_graph), ("allow_unused", allow_unused)):
        if not isinstance(value, bool):
            raise TypeError(f"grad(): argument '{name}' must be bool, but got {type(value).__name__}")
    if retain_graph is None:
        retain_graph = create_graph
    elif not isinstance(retain_graph, bool):
        raise TypeError(f"grad(): argument 'retain_graph' must be bool or None, but got {type(retain_graph).__name__}")
    no_grad = [] if no_grad_vars is None else _tensor_list("no_grad_vars", no_grad_vars)
    for i, t in enumerate(ins):  # (an input may be given twice: each gets the gradient, as in PyTorch)
        if isinstance(t, GradientEdge):
            continue
        if not t.requires_grad:
            raise RuntimeError(
                f"grad(): input {i} does not require grad; create it with requires_grad=True "
                f"(or pass a tensor computed from one)"
            )
    return run_backward(
        outs,
        seeds,
        retain_graph=retain_graph,
        create_graph=create_graph,
        inputs=ins,
        allow_unused=allow_unused,
        no_grad_vars=no_grad,
    )


class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=False)``: the wrapper of PyTorch before 0.4, kept for old code.

    Tensors carry their own autograd state now, so it returns a new leaf sharing
    ``tensor``'s storage (no history), and every tensor is an instance of ``Variable``.

    Example:
        >>> import minigrad as mg
        >>> v = mg.autograd.Variable(mg.ones(2), requires_grad=True)
        >>> v.requires_grad, v.is_leaf, isinstance(mg.ones(1), mg.autograd.Variable)
        (True, True, True)
    """

    def __new__(cls, data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:  # type: ignore[misc]
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          stacklevel=2)
        out = data.detach()
        return out.requires_grad_(True) if requires_grad else out




_grad_list = grad  # (this module's ``grad`` is ``grad_tuple`` once ``minigrad/__init__.py`` has run)


def grad_tuple(*args: Any, **kwargs: Any) -> tuple[Any, ...]:
    """``torch.autograd.grad``: ``grad`` above, returning a tuple as PyTorch's does (``mg.grad``, Paddle's
    ``paddle.grad``, returns a list). ``minigrad/__init__.py`` installs it as ``mg.autograd.grad``."""
    return tuple(_grad_list(*args, **kwargs))


# help() shows grad's parameters and the tuple it returns.
grad_tuple.__signature__ = inspect.signature(_grad_list).replace(  # type: ignore[attr-defined]
    return_annotation="tuple[Tensor | None, ...]")

def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})
