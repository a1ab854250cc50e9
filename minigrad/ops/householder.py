"""Householder reflectors: ``geqrf`` (the QR factorization in LAPACK's compact form), ``householder_product``
(``orgqr``: the ``Q`` those reflectors make) and ``ormqr`` (``Q`` applied to a matrix without forming it).

``geqrf`` leaves ``R`` on and above the diagonal of its result ``a`` and, below it, the vectors ``v_i`` of the
reflectors ``H_i = I - tau_i v_i v_i^T`` (each ``v_i`` 0 above row ``i``, an implicit 1 on it); ``Q = H_0 H_1
... H_{k-1}``. The formulas hold for any ``tau``, not only the ``2 / (v^T v)`` of an orthogonal reflector:

- ``out = H_{j_0} ... H_{j_{k-1}} C`` (``Q C`` or, the reflectors in the other order, ``Q^T C``): with
  ``R_t = H_{j_{t+1}} ... C`` (what reflector ``j_t`` acts on) and ``Y_t = H_{j_{t-1}} ... H_{j_0} G`` (the
  gradient carried back to it), ``g_tau_j = -v^T Y_t R_t^T v``, ``g_v = -tau_j (Y_t R_t^T v + R_t Y_t^T v)``
  and ``gC = Y_k = out``'s reflectors transposed applied to ``G`` (``_reflectors_grad``);
- ``householder_product`` is that product applied to the first ``n`` columns of the identity;
- ``geqrf`` has no derivative in PyTorch: a backward through it raises PyTorch's error.

Example:
    >>> import minigrad as mg
    >>> a, tau = mg.geqrf(mg.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> [round(v, 4) for v in mg.linalg.householder_product(a, tau).flatten().tolist()]
    [-0.6, -0.8, -0.8, 0.6]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..kernels.infer_meta import scalar_type_name
from ..kernels.key import Backend
from ..kernels.linalg_arrays import apply_reflectors_arrays, householder_product_arrays
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from . import _return_types as return_types
from ._checks import check_bool, check_tensor
from .factorization import _DTYPES, _cols, _mT
from .registry import Attr, defop
from ..dispatch.amp import autocast_as

__all__ = ["geqrf", "orgqr", "ormqr"]  # torch.geqrf, torch.orgqr, torch.ormqr; linalg.householder_product in mg.linalg


def _lapack_dtype(kernel: str, *tensors: Any) -> None:
    """PyTorch's dispatch: float and double only (``"orgqr_cpu" not implemented for 'Long'``)."""
    for t in tensors:
        if t.dtype.kind != "f" or t.dtype.itemsize < 4:
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(t.dtype)}'")


def _tau_of(op: str, a: Any, tau: Any) -> None:
    """PyTorch's checks of ``tau`` against ``input``: one dimension fewer, the same batch dims."""
    if tau.ndim != a.ndim - 1:
        raise RuntimeError(f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.ndim} and input.ndim is equal to {a.ndim}")
    if tuple(tau.shape[:-1]) != tuple(a.shape[:-2]):
        raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")


# -- geqrf -------------------------------------------------------------------------------------------------


def _infer_geqrf(op: str, a: Any) -> list[Any]:
    """InferMeta: ``a`` of the input's shape, ``tau`` one per reflector (``min(m, n)``)."""
    if a.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _lapack_dtype("geqrf_cpu", a)
    return [(tuple(a.shape), a.dtype), ((*a.shape[:-2], min(a.shape[-2:])), a.dtype)]


@register_kernel("geqrf", Backend.CPU, dtypes=_DTYPES, name="cpu/geqrf")
def geqrf_cpu(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's ``geqrf`` through ``np.linalg.qr(mode='raw')``, whose result is the transpose of LAPACK's
    column-major array: its transpose is PyTorch's, column-major as it."""
    k = min(a.shape[-2:])
    if a.size == 0:
        return np.array(a, copy=True), np.zeros((*a.shape[:-2], k), dtype=a.dtype)
    h, tau = np.linalg.qr(a, mode="raw")
    return np.swapaxes(h, -1, -2).astype(a.dtype, copy=False), np.ascontiguousarray(tau, dtype=a.dtype)


geqrf_op = defop("geqrf", inputs=("input",), infer_meta=_infer_geqrf, amp="deny", out=False,
                 doc="(a, tau): the QR factorization in LAPACK's compact form (R above the diagonal, the "
                     "Householder vectors below, their scalars in tau)")


@geqrf_op.def_backward
def geqrf_backward(ctx: Any, grads: Any) -> tuple[Any]:
    """PyTorch has no derivative for ``geqrf`` (its node exists, its backward refuses)."""
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input: Tensor) -> Any:
    """``torch.geqrf``: ``(a, tau)``, the QR factorization as LAPACK's ``geqrf`` leaves it; ``Q`` is
    ``linalg.householder_product(a, tau)``, ``R`` is ``a.triu()`` (its first ``min(m, n)`` rows). Not
    differentiable (``linalg.qr`` is).

    Example:
        >>> import minigrad as mg
        >>> mg.geqrf(mg.tensor([[3.0], [4.0]])).a.flatten().tolist()
        [-5.0, 0.5]
    """
    check_tensor("geqrf", "input", 0, input)
    _infer_geqrf("geqrf", input._data)  # (before kernel selection, which knows no int64)
    return return_types.geqrf(*geqrf_op(input))


# -- the gradient of a product of reflectors ------------------------------------------------------------------


def _reflector_vectors(ops: Any, a: Any, k: int) -> Any:
    """The ``(m, k)`` matrix of the vectors ``v_i``: ``a``'s first ``k`` columns below the diagonal, 1 on it."""
    m = a.shape[-2]
    first = _cols(ops, a, 0, k)
    unit = ops.diag_embed(ops.fill(ops.getitem(first, (Ellipsis, 0, slice(None))), 1.0))  # (k, k) identity
    if m > k:
        unit = ops.concat([unit, ops.fill(ops.getitem(first, (Ellipsis, slice(k, m), slice(None))), 0.0)], -2)
    return ops.add(ops.tril(first, -1), unit)


def _reflect(ops: Any, x: Any, v: Any, t: Any) -> Any:
    """``H x = x - t v (v^T x)`` for a column ``v`` (``(m, 1)``) and its scalar ``t`` (``(1, 1)``)."""
    return ops.sub(x, ops.mul(t, ops.matmul(v, ops.matmul(v, x, transpose_x=True))))


def _reflectors_grad(ops: Any, a: Any, tau: Any, c: Any, grad: Any, transpose: bool) -> tuple[Any, Any, Any]:
    """``(gA, gTau, gC)`` of ``out = Q C`` (``transpose``: ``Q^T C``), by the recurrences of the module
    docstring: one pass from the right to rebuild each ``R_t``, one from the left carrying ``Y_t``."""
    k, n = tau.shape[-1], a.shape[-1]
    if k == 0:  # no reflectors: out = C
        return ops.fill(a, 0.0), ops.fill(tau, 0.0), grad
    V = _reflector_vectors(ops, a, k)
    order = list(range(k - 1, -1, -1)) if transpose else list(range(k))
    vs = [_cols(ops, V, j, j + 1) for j in range(k)]
    ts = [ops.unsqueeze(_cols(ops, tau, j, j + 1), -1) for j in range(k)]
    acted = [c]  # acted[-1 - t] = R_t, what reflector order[t] acts on
    for j in reversed(order[1:]):
        acted.append(_reflect(ops, acted[-1], vs[j], ts[j]))
    acted.reverse()
    y, g_v, g_tau = grad, [None] * k, [None] * k
    for t, j in enumerate(order):
        v, r = vs[j], acted[t]
        yb = ops.matmul(y, ops.matmul(r, v, transpose_x=True))
        ytv = ops.matmul(y, v, transpose_x=True)
        g_tau[j] = ops.neg(ops.squeeze(ops.matmul(v, yb, transpose_x=True), -1))
        g_v[j] = ops.neg(ops.mul(ts[j], ops.add(yb, ops.matmul(r, ytv))))
        y = ops.sub(y, ops.mul(ts[j], ops.matmul(v, ytv, transpose_y=True)))
    ga = ops.tril(ops.concat(g_v, -1), -1)
    if n > k:
        ga = ops.concat([ga, ops.fill(_cols(ops, a, k, n), 0.0)], -1)
    return ga, ops.concat(g_tau, -1), y


# -- householder_product (orgqr) --------------------------------------------------------------------------------


def _infer_householder_product(op: str, a: Any, tau: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta, in PyTorch's order of checks: ``Q`` has ``input``'s shape."""
    name = "torch.linalg.householder_product"
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if a.shape[-2] < a.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if a.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    _tau_of(name, a, tau)
    if tau.dtype != a.dtype:
        raise RuntimeError(f"{name}: tau dtype {scalar_type_name(tau.dtype)} does not match input dtype "
                           f"{scalar_type_name(a.dtype)}")
    _lapack_dtype("orgqr_cpu", a)
    return tuple(a.shape), a.dtype


@register_kernel("linalg_householder_product", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_householder_product")
def householder_product_cpu(a: np.ndarray, tau: np.ndarray) -> np.ndarray:
    return householder_product_arrays(np, a, tau)


linalg_householder_product_op = defop(
    "linalg_householder_product", inputs=("input", "tau"), infer_meta=_infer_householder_product,
    save=("input", "tau"), amp="deny",
    doc="the first n columns of H_0 ... H_{k-1}, H_i = I - tau_i v_i v_i^T, the v_i below the diagonal of input")


@linalg_householder_product_op.def_backward
def linalg_householder_product_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``_reflectors_grad`` with ``C`` the first ``n`` columns of the identity (its own gradient unused)."""
    a, tau = ctx.saved()
    ops = ctx.ops
    m, n = a.shape[-2:]
    if m == 0 or n == 0:  # an empty Q: nothing depends on the inputs
        return ops.fill(a, 0.0), ops.fill(tau, 0.0)
    eye = ops.diag_embed(ops.fill(ops.getitem(a, (Ellipsis, 0, slice(None))), 1.0))
    if m > n:
        eye = ops.concat([eye, ops.fill(ops.getitem(a, (Ellipsis, slice(n, m), slice(None))), 0.0)], -2)
    ga, gtau, _ = _reflectors_grad(ops, a, tau, eye, grad, False)
    return (ga if ctx.needs(0) else None), (gtau if ctx.needs(1) else None)


def linalg_householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """``torch.linalg.householder_product``: the first ``n`` columns of ``H_0 ... H_{k-1}``, ``H_i = I - tau_i v_i
    v_i^T``, ``v_i`` column ``i`` of ``A`` below the diagonal with a 1 on it (LAPACK's ``orgqr``): ``Q`` of
    ``geqrf``'s ``(a, tau)``. Differentiable in ``A`` (below the diagonal) and ``tau``.

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.householder_product(mg.tensor([[1.0], [1.0]]), mg.tensor([1.0])).flatten().tolist()
        [0.0, -1.0]
    """
    check_tensor("linalg.householder_product", "input", 0, A)
    check_tensor("linalg.householder_product", "tau", 1, tau)
    _infer_householder_product("linalg_householder_product", A._data, tau._data)
    return linalg_householder_product_op(A, tau)


@autocast_as("orgqr")
def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """``torch.orgqr``: ``linalg.householder_product`` under LAPACK's name (the same node)."""
    check_tensor("orgqr", "input", 0, input)
    check_tensor("orgqr", "tau", 1, tau)
    _infer_householder_product("linalg_householder_product", input._data, tau._data)
    return linalg_householder_product_op(input, tau)


# -- ormqr ---------------------------------------------------------------------------------------------------


def _infer_ormqr(op: str, a: Any, tau: Any, c: Any, left: bool = True,
                 transpose: bool = False) -> tuple[tuple[int, ...], Any]:
    """InferMeta, in PyTorch's order of checks: the result has ``other``'s shape."""
    name = "torch.ormqr"
    for what, t in (("input", a), ("other", c)):
        if t.ndim < 2:
            raise RuntimeError(f"{name}: {what} must have at least 2 dimensions.")
    side = -2 if left else -1
    if c.shape[side] != a.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if tau.shape[-1] != min(c.shape[side], a.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    _tau_of(name, a, tau)
    if c.ndim != a.ndim:
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {c.ndim} and input.ndim is equal to {a.ndim}")
    if tuple(c.shape[:-2]) != tuple(a.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of other to be equal to input.shape[:-2], but got "
                           f"{list(c.shape[:-2])}")
    for what, t in (("tau", tau), ("other", c)):
        if t.dtype != a.dtype:
            raise RuntimeError(f"{name}: Expected input and {what} to have the same dtype, but input has dtype"
                               f"{scalar_type_name(a.dtype)} and {what} has dtype {scalar_type_name(t.dtype)}")
    _lapack_dtype("ormqr_cpu", a)
    return tuple(c.shape), a.dtype


@register_kernel("ormqr", Backend.CPU, dtypes=_DTYPES, name="cpu/ormqr")
def ormqr_cpu(a: np.ndarray, tau: np.ndarray, c: np.ndarray, left: bool = True, transpose: bool = False) -> np.ndarray:
    """LAPACK's ``ormqr``: one rank-1 update per reflector (``apply_reflectors_arrays``); column-major."""
    out = apply_reflectors_arrays(np, a, tau, c, left, transpose)
    return np.asfortranarray(out) if out.ndim == 2 else np.ascontiguousarray(np.swapaxes(out, -1, -2)).swapaxes(-1, -2)


ormqr_op = defop("ormqr", inputs=("input", "tau", "other"),
                 attrs=(Attr("left", True, check_bool), Attr("transpose", False, check_bool)),
                 infer_meta=_infer_ormqr, save=("input", "tau", "other"), amp="deny",
                 doc="Q other (left=False: other Q; transpose: Q^T) for the Q of geqrf's reflectors, not formed")


@ormqr_op.def_backward
def ormqr_backward(ctx: Any, grad: Any) -> tuple[Any, Any, Any]:
    """``_reflectors_grad``; ``C Q`` is ``(Q^T C^T)^T``, so a right product is the left one of the transposes
    with ``transpose`` flipped."""
    a, tau, c = ctx.saved()
    ops = ctx.ops
    left, transpose = ctx.attrs["left"], ctx.attrs["transpose"]
    if left:
        ga, gtau, gc = _reflectors_grad(ops, a, tau, c, grad, transpose)
    else:
        ga, gtau, gc = _reflectors_grad(ops, a, tau, _mT(ops, c), _mT(ops, grad), not transpose)
        gc = _mT(ops, gc)
    return (ga if ctx.needs(0) else None), (gtau if ctx.needs(1) else None), (gc if ctx.needs(2) else None)


def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True, transpose: bool = False) -> Tensor:
    """``torch.ormqr``: ``Q other`` (``left=False``: ``other Q``; ``transpose=True``: ``Q^T`` in place of ``Q``) for
    the ``Q`` of ``geqrf``'s ``(input, tau)``, applied reflector by reflector without forming it (LAPACK's
    ``ormqr``). Differentiable in all three tensors.

    Example:
        >>> import minigrad as mg
        >>> a, tau = mg.geqrf(mg.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> [round(v, 4) for v in mg.ormqr(a, tau, mg.eye(2)).flatten().tolist()]
        [-0.6, -0.8, -0.8, 0.6]
    """
    check_tensor("ormqr", "input", 0, input)
    check_tensor("ormqr", "input2", 1, tau)
    check_tensor("ormqr", "input3", 2, other)
    check_bool("ormqr", "left", 3, left)
    check_bool("ormqr", "transpose", 4, transpose)
    _infer_ormqr("ormqr", input._data, tau._data, other._data, left, transpose)
    return ormqr_op(input, tau, other, left, transpose)
