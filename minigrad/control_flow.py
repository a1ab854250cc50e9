"""``mg.cond``: PyTorch's structured if-statement, ``torch.cond(pred, true_fn, false_fn, operands)``.

``cond`` is an ``if`` that a compiler can capture: both branches take the same operands and return the
same kind of result. In eager mode - the only mode minigrad has - it calls one branch. What it checks and
records follows eager PyTorch (``torch/_higher_order_ops/cond.py``):

- ``pred`` a Python bool (or int, float): the branch is simply called - no checks, the result is the
  branch's own, with the branch's grad nodes (``SinBackward0`` ...).
- ``pred`` a one-element tensor: the arguments are checked (operands a tuple or list whose leaves are all
  tensors), the branch runs as a single operation of its own, ``CondAutogradOp``: its outputs have
  ``grad_fn`` ``CondAutogradOpBackward``, with one edge per tensor input (``pred`` first). Its backward
  runs the branch again with recording on and backpropagates through it, as PyTorch's does.

How minigrad differs: PyTorch compiles a tensor-``pred`` call and so traces *both* branches, refusing
branches whose outputs differ in number or dtype; minigrad runs the branch taken only, so those
refusals come only when that branch's own result is unfit (a float or None, or an input returned).

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([0.0, 1.0], requires_grad=True)
    >>> y = mg.cond(x.sum() > 0, lambda a: a.sin(), lambda a: a.cos(), (x,))
    >>> y.grad_fn.name()
    'CondAutogradOpBackward'
    >>> y.sum().backward(); x.grad.tolist()
    [1.0, 0.5403022766113281]
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from ._pytree import TreeSpec, tree_flatten, tree_unflatten
from .autograd import grad as _grad
from .autograd.function import Function
from .autograd.grad_mode import enable_grad
from .tensor import Tensor

__all__ = ["cond"]


def cond(pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any],
         operands: tuple[Any, ...] | list[Any] = ()) -> Any:
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``: PyTorch's ``torch.cond`` in eager mode.

    Args:
        pred: a Python bool, or a tensor with one element (its truth picks the branch).
        true_fn: called with the operands when ``pred`` is true.
        false_fn: called with the operands when ``pred`` is false.
        operands: a tuple or list of tensors (nested in dicts, lists, tuples) passed to the branch.

    Returns:
        The branch's result: for a tensor ``pred`` its tensors come out of one ``CondAutogradOp``.

    Raises:
        RuntimeError: ``pred`` neither a bool nor a one-element tensor, a branch not callable, an operand
            leaf not a tensor, or (tensor ``pred``) a branch returning something other than tensors and
            ints, or returning one of its inputs.
    """
    if isinstance(pred, (bool, int, float)):  # the eager case: no checks, nothing recorded of its own
        return true_fn(*operands) if pred else false_fn(*operands)
    _check_arguments(pred, true_fn, false_fn, operands)
    leaves, spec = tree_flatten(operands)
    branch = true_fn if bool(pred) else false_fn
    out_spec: list[TreeSpec] = []  # filled by the forward: the structure of the branch's result
    _CALL.pending = (branch, spec, out_spec)  # NOTE [ Tensors only through apply ]
    try:
        outputs = CondAutogradOp.apply(pred, *leaves)
    except _NoTensorResult as only_ints:  # a branch of ints makes no operation, as in PyTorch
        return only_ints.result
    return tree_unflatten(list(outputs), out_spec[0])


def _check_arguments(pred: Any, true_fn: Any, false_fn: Any, operands: Any) -> None:
    """PyTorch's ``_validate_input``: the refusals come before either branch runs."""
    if not isinstance(pred, Tensor):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or not all(isinstance(t, Tensor) for t in tree_flatten(operands)[0]):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only "
                           f"consists of tensor leaves, but got {operands}.")


def _check_outputs(leaves: list[Any], inputs: tuple[Any, ...]) -> None:
    """What a branch may return: tensors and ints (bools), none of them an input or a view of one."""
    for out in leaves:
        if not isinstance(out, (Tensor, int)):
            raise RuntimeError("torch.cond: HigherOrderOperator body's output must consist of tensors or "
                               f"ints/bools only but got {type(out)}.")
        if isinstance(out, Tensor) and any(out is t or out._base is t or (out._base is not None and out._base is t._base)
                                           for t in inputs):
            raise RuntimeError("torch.cond: Encountered aliasing during higher order op tracing. Higher order ops "
                               "do not support aliasing: replace `return input` with `return input.clone()`.")


# NOTE [ Tensors only through apply ]
#     A grad node has one edge per argument of ``Function.apply``; PyTorch's ``CondAutogradOpBackward`` has
#     one per tensor (``pred``, then the operands' leaves). So the branch and the operands' structure reach
#     the forward beside ``apply``, in a per-thread slot the forward empties on entry (before the branch
#     runs, so a branch may call ``cond`` in turn).
_CALL = threading.local()


class _NoTensorResult(Exception):
    """Raised by the forward for a branch that returned ints only: ``cond`` returns them as they are."""

    def __init__(self, result: Any) -> None:
        super().__init__()
        self.result = result


class CondAutogradOp(Function):
    """The branch taken, as one recorded operation (PyTorch's ``CondAutogradOp``).

    ``forward`` runs the branch without recording; ``backward`` runs it again with recording on, from
    detached copies of the operands, and differentiates its outputs - the branch's own formulas, once.
    """

    @staticmethod
    def forward(ctx: Any, pred: Tensor, *leaves: Tensor) -> Any:
        branch, spec, out_spec = _CALL.pending
        del _CALL.pending
        result = branch(*tree_unflatten(list(leaves), spec))
        out_leaves, result_spec = tree_flatten(result)
        _check_outputs(out_leaves, leaves)
        if not any(isinstance(t, Tensor) for t in out_leaves):
            raise _NoTensorResult(result)
        out_spec.append(result_spec)
        ctx.branch, ctx.spec = branch, spec
        ctx.save_for_backward(*leaves)
        return tuple(out_leaves)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        leaves = ctx.saved_tensors
        wanted = ctx.needs_input_grad[1:]
        with enable_grad():
            inputs = [t.detach().requires_grad_(w) if w else t.detach() for t, w in zip(leaves, wanted)]
            out_leaves, _ = tree_flatten(ctx.branch(*tree_unflatten(inputs, ctx.spec)))
        pairs = [(o, g) for o, g in zip(out_leaves, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        sources = [t for t, w in zip(inputs, wanted) if w]
        found = iter(_grad([o for o, _ in pairs], sources, [g for _, g in pairs], allow_unused=True)
                     if pairs and sources else [None] * len(sources))
        return (None, *(next(found) if w else None for w in wanted))
