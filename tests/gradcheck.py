"""A float64 central-finite-difference gradient checker for minigrad.

``gradcheck(fn, inputs)`` compares the gradients minigrad's backward pass
computes with numeric ones::

    d L / d x[i]  ~=  (L(x[i] + eps) - L(x[i] - eps)) / (2 * eps)

where ``L = sum_k sum(w_k * out_k)`` folds ``fn``'s output(s) into a scalar
with fixed random weights ``w_k`` (random, not ones, so a backward formula
that ignores or mis-places its incoming gradient is caught). The analytic
side seeds the backward pass with the same ``w_k``.

``gradgradcheck(fn, inputs)`` checks second derivatives: the first
gradients, computed with ``create_graph=True``, are themselves checked with
``gradcheck`` (finite differences of the analytic first derivative).

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    >>> gradcheck(lambda t: t * t, [x])
    True
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

import minigrad as mg
from minigrad.autograd.engine import run_backward

__all__ = ["gradcheck", "gradgradcheck", "first_grads", "GradcheckError"]


class GradcheckError(AssertionError):
    """Analytic and numeric gradients disagree (or the backward pass misbehaved)."""


def _outputs(result: Any) -> list[Any]:
    if isinstance(result, mg.Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        # Integer outputs (the indices of ``max(x, dim)``) carry no gradient, as in PyTorch's gradcheck.
        return [r for r in result if r is not None and r.dtype.is_floating]
    raise GradcheckError(f"fn must return a Tensor or a sequence of Tensors, got {type(result).__name__}")


def _fresh_leaves(inputs: Sequence[Any]) -> list[Any]:
    """Copies of the inputs as new leaves (same requires_grad), so the caller's tensors are untouched."""
    out = []
    for t in inputs:
        if isinstance(t, mg.Tensor):
            out.append(mg.tensor(t.detach().numpy().copy(), dtype=t.dtype, requires_grad=t.requires_grad))
        else:
            out.append(t)
    return out


def _weights(outs: list[Any], rng: np.random.Generator) -> list[np.ndarray]:
    return [rng.uniform(0.5, 1.5, size=o.shape) * rng.choice([-1.0, 1.0], size=o.shape) for o in outs]


def _scalar(fn: Callable[..., Any], args: list[Any], weights: list[np.ndarray]) -> float:
    outs = _outputs(fn(*args))
    return float(sum(np.sum(w * o.detach().numpy().astype(np.float64)) for w, o in zip(weights, outs)))


def _describe(i: int, t: Any) -> str:
    return f"input {i} (shape {tuple(t.shape)}, {t.dtype})"


def gradcheck(
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    seed: int = 0,
) -> bool:
    """Check minigrad's gradients of ``fn(*inputs)`` against central finite differences.

    Args:
        fn: takes ``inputs`` (tensors, or other values passed through) and returns
            a Tensor or a tuple of Tensors.
        inputs: tensors should be float64; those with ``requires_grad=True`` are checked.
        eps: finite-difference step.
        atol, rtol: tolerance, ``|analytic - numeric| <= atol + rtol * |numeric|``.
        seed: seed of the output weights.

    Returns:
        ``True``; raises ``GradcheckError`` with the input, the worst element and
        both values otherwise.
    """
    checked = [i for i, t in enumerate(inputs) if isinstance(t, mg.Tensor) and t.requires_grad]
    if not checked:
        raise GradcheckError("gradcheck: no input requires grad, nothing would be checked")
    for i in checked:
        if inputs[i].dtype is not mg.float64:
            raise GradcheckError(f"gradcheck: {_describe(i, inputs[i])} must be float64 for finite differences")

    # -- analytic: one backward pass seeded with the weights -----------------
    leaves = _fresh_leaves(inputs)
    outs = _outputs(fn(*leaves))
    rng = np.random.default_rng(seed)
    weights = _weights(outs, rng)
    pairs = [(o, w) for o, w in zip(outs, weights) if o.requires_grad]
    if pairs:
        seeds = [mg.tensor(w, dtype=o.dtype) for o, w in pairs]
        run_backward([o for o, _ in pairs], seeds)
    analytic = []
    for i in checked:
        g = leaves[i].grad
        if g is None:
            analytic.append(None)
            continue
        if tuple(g.shape) != tuple(inputs[i].shape):
            raise GradcheckError(f"gradcheck: .grad of {_describe(i, inputs[i])} has shape {tuple(g.shape)}")
        if g.dtype is not inputs[i].dtype:
            raise GradcheckError(f"gradcheck: .grad of {_describe(i, inputs[i])} has dtype {g.dtype}")
        analytic.append(g.numpy().astype(np.float64))

    # -- numeric: central differences, one element at a time -----------------
    for i, a in zip(checked, analytic):
        base = inputs[i].detach().numpy().astype(np.float64)
        numeric = np.zeros_like(base)
        flat = numeric.reshape(-1)
        for k in range(base.size):
            vals = []
            for sign in (1.0, -1.0):
                pert = base.copy().reshape(-1)
                pert[k] += sign * eps
                args = _fresh_leaves(inputs)
                args[i] = mg.tensor(pert.reshape(base.shape), dtype=mg.float64, requires_grad=True)
                vals.append(_scalar(fn, args, weights))
            flat[k] = (vals[0] - vals[1]) / (2 * eps)
        if a is None:
            if np.any(np.abs(numeric) > atol):
                raise GradcheckError(
                    f"gradcheck: {_describe(i, inputs[i])} got no gradient (.grad is None) but the numeric "
                    f"gradient is nonzero:\n{numeric}"
                )
            continue
        err = np.abs(a - numeric)
        bad = err > atol + rtol * np.abs(numeric)
        if np.any(bad):
            worst = np.unravel_index(int(np.argmax(err)), base.shape) if base.ndim else ()
            raise GradcheckError(
                f"gradcheck: gradient of {_describe(i, inputs[i])} is wrong at {int(bad.sum())} of {base.size} "
                f"elements; worst at index {worst}: analytic {a[worst]!r} vs numeric {numeric[worst]!r} "
                f"(|diff| {err[worst]:.3g}, atol {atol}, rtol {rtol})\nanalytic:\n{a}\nnumeric:\n{numeric}"
            )
    return True


def first_grads(fn: Callable[..., Any], inputs: Sequence[Any], seed: int = 1) -> tuple[Any, ...]:
    """The first gradients of ``sum(w * fn(*inputs))`` w.r.t. the inputs that require grad,
    computed with ``create_graph=True`` so they can be differentiated again.

    Leaves' ``.grad`` is reset to ``None`` afterwards (the returned tensors keep
    their history), so a later backward pass starts from clean leaves.
    """
    outs = _outputs(fn(*inputs))
    rng = np.random.default_rng(seed)
    weights = _weights(outs, rng)
    pairs = [(o, w) for o, w in zip(outs, weights) if o.requires_grad]
    seeds = [mg.tensor(w, dtype=o.dtype) for o, w in pairs]
    run_backward([o for o, _ in pairs], seeds, retain_graph=True, create_graph=True)
    grads = []
    for t in inputs:
        if isinstance(t, mg.Tensor) and t.requires_grad:
            g = t.grad
            grads.append(g if g is not None else mg.zeros(t.shape, dtype=t.dtype))
            t.grad = None
    return tuple(grads)


def gradgradcheck(
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-4,
) -> bool:
    """Check second derivatives: ``gradcheck`` applied to ``first_grads(fn, ·)``."""
    return gradcheck(lambda *xs: first_grads(fn, xs), inputs, eps=eps, atol=atol, rtol=rtol, seed=2)
