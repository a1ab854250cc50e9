"""The binomial sampler, as PyTorch's ``_s_binomial_cpu`` (``ATen/native/Distributions.cpp``) with
``sample_binomial`` from ``Distributions.h``: ``torch.binomial(count, prob)``. A CPU kernel only: on a GPU tensor it
falls back to it visibly (``kernel.select`` with ``fallback_cpu``), drawing from the CPU generator.

NOTE [ PyTorch's binomial draws ]
    Per element, serially in the row-major order of the result, each try drawing double uniforms
    (``uniform_real_distribution<double>``). ``prob > 0.5`` draws the failures (``count - draw(count, 1 - prob)``);
    then, with ``n p`` the mean of what is drawn:

    - ``n p < 10``: inversion - add geometric waiting times ``ceil(log U / log(1 - p))`` until they pass ``n``;
      the count of whole ones is the draw (one uniform each);
    - ``n p >= 10``: Hormann's BTRS (transformed rejection with squeeze), two uniforms a try, the exact test
      against Stirling's series (tabulated below 10).

    The arithmetic is double except where PyTorch's is in the tensor's type: ``n p (1 - p)`` before its square
    root, ``n p``, ``p / (1 - p)``, ``(n + 1) p``, ``1 - p`` and ``log1p(-p)`` (``log1pf`` for float32, called
    from the C library as compiled code calls it), so float32 draws are PyTorch's bit for bit too.

Example:
    >>> import minigrad as mg
    >>> mg.binomial(mg.tensor([0.0, 10.0, 100.0]), mg.tensor([0.5, 1.0, 0.3]),
    ...             generator=mg.Generator().manual_seed(0)).tolist()
    [0.0, 10.0, 29.0]
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..random import Generator, generator_arg
from ..tensor import Tensor
from ._checks import check_tensor
from .distributions import _GENERATOR, _LIBM
from .registry import defop

__all__ = ["binomial"]

_F = np.float32
_LIBM.log1pf.restype = ctypes.c_float
_LIBM.log1pf.argtypes = [ctypes.c_float]


def _log1p(x: Any) -> float:
    """``std::log1p`` of ``x``'s own type (``log1pf`` for float32)."""
    return float(_LIBM.log1pf(float(x))) if type(x) is _F else math.log1p(x)


# Stirling's series tail log(k!) - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi)/2], exact below 10.
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k: float) -> float:
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _inversion(n: Any, p: Any, gen: Generator) -> Any:
    """Count the geometric waiting times (in trials) that fit in ``n`` trials: one uniform each, plus the last."""
    log_q, nf = _log1p(-p), float(n)
    total, k = 0.0, type(n)(0)
    while True:
        total += math.ceil(math.log(float(gen.uniform_double(1)[0])) / log_q)
        if total > nf:
            return k
        k = k + type(n)(1)


def _btrs(n: Any, p: Any, gen: Generator) -> Any:
    """Hormann's BTRS (1993): a box-and-hat proposal ``k``, accepted in the box at once, else by the ratio test."""
    T, one = type(n), type(n)(1)
    stddev = float(np.sqrt(n * p * (one - p)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(p)
    c = float(n * p) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(p / (one - p))
    alpha = (2.83 + 5.1 / b) * stddev
    m = float(np.floor((n + one) * p))
    nf = float(n)
    while True:
        u = float(gen.uniform_double(1)[0]) - 0.5
        v = float(gen.uniform_double(1)[0])
        us = 0.5 - abs(u)
        k = T(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        kf, n_k1 = float(k), float(n - k + one)  # (count - k + 1 in the tensor's type, as PyTorch's)
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (r * (nf - m + 1)))
                 + float(n + one) * math.log((nf - m + 1) / n_k1)
                 + (kf + 0.5) * math.log(r * n_k1 / float(k + one))
                 + _stirling_tail(m) + _stirling_tail(nf - m) - _stirling_tail(kf) - _stirling_tail(float(n - k)))
        if v <= bound:
            return k


def binomial_one(n: Any, p: Any, gen: Generator) -> Any:
    """One Binomial(n, p) draw (NOTE [ PyTorch's binomial draws ]); ``n``, ``p`` NumPy scalars of one type."""
    T = type(n)
    if n <= 0 or p <= 0:
        return T(0)
    if p >= 1:
        return n
    if p <= 0.5:
        return _btrs(n, p, gen) if n * p >= 10 else _inversion(n, p, gen)
    if p > 0.5:
        q = T(1.0 - float(p))
        return n - (_btrs(n, q, gen) if n * q >= 10 else _inversion(n, q, gen))
    return T(math.nan)  # a NaN probability


@register_kernel("binomial", Backend.CPU, dtypes=FLOAT_DTYPES)
def binomial_cpu(count: np.ndarray, prob: np.ndarray, generator: Any = None) -> np.ndarray:
    gen = generator_arg("binomial", generator)
    n, p = np.broadcast_arrays(count, prob)
    out = [binomial_one(ni, pi, gen) for ni, pi in zip(n.reshape(-1), p.reshape(-1))]  # (row-major, as PyTorch)
    return np.array(out, count.dtype).reshape(n.shape)


_binomial_op = defop("binomial", inputs=("count", "prob"), attrs=(_GENERATOR,),
                     infer_meta=im.broadcast, doc="a Binomial(count, prob) draw per element (inversion or BTRS)")


@_binomial_op.def_backward
def _binomial_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch has no derivative for a binomial draw: its node refuses, in PyTorch's words."""
    raise RuntimeError("derivative for aten::binomial is not implemented")


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """``torch.binomial``: a count of successes in ``count`` trials of probability ``prob``, per element, in the
    dtype of ``count`` (PyTorch's numbers on the CPU: NOTE [ PyTorch's binomial draws ]).

    Example:
        >>> import minigrad as mg
        >>> mg.binomial(mg.tensor([5.0]), mg.tensor([1.0])).tolist()
        [5.0]
    """
    check_tensor("binomial", "count", 0, count)
    check_tensor("binomial", "prob", 1, prob)
    for name, t in (("count", count), ("prob", prob)):
        if not t.dtype.is_floating:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, "
                             f"got: {im.scalar_type_name(t.dtype.np)}")
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {im.scalar_type_name(prob.dtype.np)} but expected "
                           f"{im.scalar_type_name(count.dtype.np)}")
    if count.dtype.np.type not in (np.float32, np.float64):
        raise NotImplementedError(f'"binomial_cpu" not implemented for \'{im.scalar_type_name(count.dtype.np)}\'')
    return _binomial_op(count, prob, generator)
