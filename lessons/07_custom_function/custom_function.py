"""Lesson 7: custom autograd Functions (PyTorch's ``torch.autograd.Function``, PaddlePaddle's ``PyLayer``).

A Function is an op you write by hand: ``forward`` computes the output,
``backward`` receives the gradient of the output and returns the gradient of
each input. ``Function.apply`` turns the pair into one grad node, named after
the class (``StableSoftplusBackward``), which the engine queues, runs and
releases like any built-in node.

The backward is written with minigrad ops. With ``create_graph=True`` the
engine records those ops too, so the gradient itself has a graph and can be
differentiated again: a double backward, as Paddle's ``MatmulDoubleGradNode``
does for matmul.
"""

from __future__ import annotations

import minigrad as mg

__all__ = ["StableSoftplus", "SignSTE", "softplus", "sign_ste"]


class StableSoftplus(mg.autograd.Function):
    """``softplus(x) = log(1 + exp(x))`` without overflow for large ``|x|``."""

    @staticmethod
    def forward(ctx, x: mg.Tensor) -> mg.Tensor:
        """Save ``x`` for the backward (``ctx.save_for_backward(x)``) and return softplus(x).

        ``exp(x)`` overflows float32 above x = 88; rewrite the formula so that no
        ``exp`` of a positive number is taken: ``max(x, 0) + log(1 + exp(-|x|))``.
        """
        # BEGIN LESSON 7 TASK 7.1: a numerically stable softplus forward
        ctx.save_for_backward(x)
        return mg.maximum(x, mg.zeros_like(x)) + mg.log(1.0 + mg.exp(-mg.abs(x)))
        # END LESSON 7 TASK 7.1

    @staticmethod
    def backward(ctx, grad: mg.Tensor) -> mg.Tensor:
        """The gradient of softplus is ``sigmoid(x)``: return ``grad * sigmoid(x)``, with minigrad ops
        only (no NumPy), so that ``create_graph=True`` can differentiate it again."""
        # BEGIN LESSON 7 TASK 7.2: its backward, made of minigrad ops (double backward works)
        (x,) = ctx.saved_tensors
        return grad * mg.sigmoid(x)
        # END LESSON 7 TASK 7.2


class SignSTE(mg.autograd.Function):
    """``sign(x)`` forward; backward passes the gradient straight through where ``|x| <= 1``, 0 elsewhere."""

    @staticmethod
    def forward(ctx, x: mg.Tensor) -> mg.Tensor:
        """Save ``x`` and return ``sign(x)`` (-1, 0 or 1 per element)."""
        # BEGIN LESSON 7 TASK 7.3: a straight-through estimator
        ctx.save_for_backward(x)
        return mg.sign(x)
        # END LESSON 7 TASK 7.3

    @staticmethod
    def backward(ctx, grad: mg.Tensor) -> mg.Tensor:
        """The straight-through estimator: ``grad`` where ``|x| <= 1``, zero elsewhere."""
        # BEGIN LESSON 7 TASK 7.3: a straight-through estimator
        (x,) = ctx.saved_tensors
        return mg.where(mg.abs(x) <= 1.0, grad, mg.zeros_like(grad))
        # END LESSON 7 TASK 7.3


def softplus(x: mg.Tensor) -> mg.Tensor:
    """``StableSoftplus.apply(x)``."""
    return StableSoftplus.apply(x)


def sign_ste(x: mg.Tensor) -> mg.Tensor:
    """``SignSTE.apply(x)``."""
    return SignSTE.apply(x)
