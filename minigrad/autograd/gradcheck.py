"""``gradcheck`` and ``gradgradcheck`` (PyTorch's ``torch.autograd.gradcheck``): compare the gradients
autograd computes with central finite differences.

For every input ``x_i`` that requires grad and every output ``y_o``:

- numerical Jacobian: perturb one element of ``x_i`` by ``+-eps`` and take
  ``(y(x + eps) - y(x - eps)) / (2 eps)`` - one column per element;
- analytical Jacobian: one backward pass per element of ``y_o``, seeded with
  a one-hot tensor (``mg.grad``) - one row per element;
- they must agree within ``atol + rtol * |numerical|``, and a second backward
  pass must give the same analytical values (within ``nondet_tol``).

``gradgradcheck`` runs ``gradcheck`` on the function ``(inputs, v) -> v^T J``
(its backward, built with ``create_graph=True``), so it checks second derivatives.
Use float64 inputs: with float32 the finite differences are too coarse.

On a mismatch both raise ``GradcheckError`` (a ``RuntimeError``), or return
``False`` with ``raise_exception=False``; they return ``True`` otherwise.
``fast_mode`` is accepted and runs the full check; forward-mode and batched
checks (``check_forward_ad``, ``check_batched_grad``, ...) are not available.

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([0.5, -1.0], dtype=mg.float64, requires_grad=True)
    >>> mg.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,))
    True
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dt
from ..kernels.backends import move_array, to_numpy
from ..tensor import Tensor
from . import grad as _grad
from .grad_mode import enable_grad

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck``/``gradgradcheck`` when the gradients do not match."""


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _outputs(func: Callable[..., Any], inputs: tuple[Any, ...]) -> tuple[Tensor, ...]:
    with enable_grad():
        return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor))


def _flat(t: Tensor) -> np.ndarray:
    return np.asarray(to_numpy(t.detach()._data), dtype=np.float64).reshape(-1)


def _numerical(func: Callable[..., Any], inputs: tuple[Any, ...], i: int, eps: float) -> list[np.ndarray]:
    """``d outputs / d inputs[i]`` by central differences: one ``(n_in, n_out)`` array per output."""
    x = inputs[i]
    data = x._data
    host = to_numpy(data).copy()
    flat = host.reshape(-1)
    cols: list[list[np.ndarray]] = []
    for k in range(flat.size):
        orig = flat[k]
        values = []
        for delta in (eps, -eps):
            flat[k] = orig + delta
            x._data = host.copy() if x.device == "cpu" else move_array(host.copy(), "cpu", x.device)
            values.append([_flat(o) for o in _outputs(func, inputs)])
        flat[k] = orig
        cols.append([(a - b) / (2 * eps) for a, b in zip(*values)])
    x._data = data
    n_out = len(cols[0]) if cols else len(_outputs(func, inputs))
    return [np.stack([c[o] for c in cols], 0) if cols else np.zeros((0, 0)) for o in range(n_out)]


def _analytical(outputs: tuple[Tensor, ...], diff_inputs: list[Tensor]) -> list[list[np.ndarray]]:
    """``[input][output]`` arrays ``(n_in, n_out)`` from one backward pass per output element."""
    jac = [[np.zeros((t.numel(), o.numel())) for o in outputs] for t in diff_inputs]
    for o_idx, out in enumerate(outputs):
        if not out.requires_grad:
            continue
        for j in range(out.numel()):
            seed = np.zeros(out.numel(), dtype=out.dtype.np)
            seed[j] = 1
            seed = seed.reshape(tuple(out.shape))
            seed_t = Tensor._make(seed if out.device == "cpu" else move_array(seed, "cpu", out.device),
                                  out.dtype, out.device)
            grads = _grad(out, diff_inputs, seed_t, retain_graph=True, allow_unused=True)
            for i_idx, g in enumerate(grads):
                if g is not None:
                    jac[i_idx][o_idx][:, j] = _flat(g)
    return jac


def _fail(msg: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check ``func``'s analytical gradients against finite differences (see the module docstring)."""
    if check_batched_grad or check_batched_forward_grad or check_forward_ad:
        raise NotImplementedError("gradcheck(): minigrad has no forward-mode or batched gradients to check")
    tupled = _as_tuple(inputs)
    if not any(isinstance(t, Tensor) and t.requires_grad for t in tupled):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    for i, t in enumerate(tupled):
        if isinstance(t, Tensor) and t.requires_grad and t.dtype is not _dt.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          f"This check will likely fail if all the inputs are not of double precision floating "
                          f"point or complex. ", stacklevel=2)
    diff_idx = [i for i, t in enumerate(tupled) if isinstance(t, Tensor) and t.requires_grad]
    outputs = _outputs(func, tupled)
    if not check_backward_ad:
        return True
    analytical = _analytical(outputs, [tupled[i] for i in diff_idx])
    for k, i in enumerate(diff_idx):
        numerical = _numerical(func, tupled, i, eps)
        for o, out in enumerate(outputs):
            num = numerical[o]
            if not out.requires_grad:
                if np.any(num != 0):
                    return _fail("Numerical gradient for function expected to be zero", raise_exception)
                continue
            ana = analytical[k][o]
            if num.shape != ana.shape or not np.allclose(ana, num, rtol=rtol, atol=atol):
                return _fail(f"Jacobian mismatch for output {o} with respect to input {i},\n"
                             f"numerical:{num}\nanalytical:{ana}\n", raise_exception)
            if check_grad_dtypes and out.dtype is not tupled[i].dtype:
                return _fail("Gradient has dtype mismatch", raise_exception)
    # Reentrant: a second backward with the same input and seed gives the same values.
    again = _analytical(_outputs(func, tupled), [tupled[i] for i in diff_idx])
    for k, i in enumerate(diff_idx):
        for o in range(len(outputs)):
            if np.any(np.abs(again[k][o] - analytical[k][o]) > nondet_tol):
                return _fail(f"Backward is not reentrant, i.e., running backward with same input and grad_output "
                             f"multiple times gives different values, although analytical gradient matches "
                             f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}.",
                             raise_exception)
    return True


def gradgradcheck(func: Callable[..., Any], inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """Check second derivatives: ``gradcheck`` of ``(inputs, v) -> grad(func(inputs), inputs, v)``.

    ``grad_outputs`` (the ``v``) default to random values in ``[-1, 1)``, one per differentiable output.
    """
    if check_fwd_over_rev:
        raise NotImplementedError("gradgradcheck(): minigrad has no forward-mode gradients to check")
    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        outs = [o for o in _outputs(func, tupled) if o.requires_grad]
        rng = np.random.default_rng(0)  # fixed: a failing check can be rerun with the same v
        grad_outputs = tuple(
            Tensor._make(rng.uniform(-1, 1, tuple(o.shape)).astype(o.dtype.np), o.dtype).requires_grad_(True)
            for o in outs)
    tupled_v = _as_tuple(grad_outputs)
    n_v = len(tupled_v)

    def vjp_of_func(*args: Any) -> tuple[Tensor, ...]:
        ins, vs = args[:-n_v], args[-n_v:]
        with enable_grad():
            outs = [o for o in _as_tuple(func(*ins)) if isinstance(o, Tensor) and o.requires_grad]
            diff = [x for x in ins if isinstance(x, Tensor) and x.requires_grad]
            grads = _grad(outs, diff, list(vs), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    if not check_rev_over_rev:
        return True
    return gradcheck(vjp_of_func, tupled + tupled_v, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception,
                     nondet_tol=nondet_tol, check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode)
