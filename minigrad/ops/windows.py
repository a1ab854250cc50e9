"""Window functions for spectral analysis: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window`` (``torch.*_window``).

Each is a factory: a 1-D tensor of ``window_length`` weights that taper to the
ends, made on the host in the requested floating dtype (the default float dtype
when none is given) and moved to ``device``; no op, no node (``requires_grad=True``
makes a leaf). ``periodic=True`` (the default) computes ``window_length + 1``
points and drops the last, the form a DFT wants; ``periodic=False`` the
symmetric window. Lengths 0 and 1 are an empty tensor and ``[1.]``.

NOTE [ A window is computed as PyTorch computes it ]
    PyTorch makes a window from ``arange`` with in-place steps (``mul_``,
    ``cos_``, ``add_``), each rounded to the window's dtype; a float16 or
    bfloat16 step is computed in float32 and rounded. The kernels here take
    the same steps in the same order and round after each (Kaiser's
    ``1 - r^2`` fused, as the compiled kernel fuses it). Against PyTorch's,
    float16, bfloat16 and Bartlett windows agree to the last bit; the cosine
    windows differ in a few elements in a hundred (float32) or a thousand
    (float64) by half an ulp of 1 (the cosine's last bit is the library's:
    SLEEF there, NumPy here); Kaiser ones in a rare last bit (float32) or by
    up to 3 ulp (float64: the last steps of ``i0``, ops/bessel.py).
    The Hamming family is ``alpha - beta * cos(2 pi k / (N - 1))``;
    Blackman ``0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))``;
    Bartlett ``2k / (N - 1)`` mirrored at the middle; Kaiser
    ``I0(beta sqrt(1 - ((k - a) / a)^2)) / I0(beta)`` with ``a = (N - 1) / 2``.

Example:
    >>> import minigrad as mg
    >>> mg.hann_window(4).tolist()
    [0.0, 0.5, 1.0, 0.5]
    >>> mg.bartlett_window(5, periodic=False).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dt
from ..fma import fused_multiply_add
from ..tensor import Tensor, check_device, finish
from .bessel import i0_array
from .registry import type_name

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]

_UNSET: Any = object()


class _Steps:
    """Arithmetic on an array of the window's dtype, each step rounded to it (NOTE [ A window is computed as
    PyTorch computes it ])."""

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype
        self.work = dtype if dtype.itemsize >= 4 else np.dtype(np.float32)

    def arange(self, n: int) -> np.ndarray:
        return np.arange(n, dtype=np.float64).astype(self.dtype)

    def number(self, s: float) -> Any:
        """A Python number as a step takes it: rounded to the window's dtype, then widened."""
        return self.work.type(self.dtype.type(s))

    def mul(self, a: np.ndarray, s: float) -> np.ndarray:
        return (a.astype(self.work) * self.number(s)).astype(self.dtype)

    def add(self, a: np.ndarray, s: float) -> np.ndarray:
        return (a.astype(self.work) + self.number(s)).astype(self.dtype)

    def sub(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a.astype(self.work) - b.astype(self.work)).astype(self.dtype)

    def cos(self, a: np.ndarray) -> np.ndarray:
        """(through float64: NumPy's float32 cosine misses PyTorch's last bit three times as often)"""
        return np.cos(a.astype(np.float64)).astype(self.work).astype(self.dtype)


def _hamming_values(s: _Steps, n: int, alpha: float, beta: float) -> np.ndarray:
    return s.add(s.mul(s.cos(s.mul(s.arange(n), math.pi * 2.0 / (n - 1))), -beta), alpha)


def _blackman_values(s: _Steps, n: int) -> np.ndarray:
    k = s.mul(s.arange(n), math.pi / (n - 1))
    return s.add(s.sub(s.mul(s.cos(s.mul(k, 4)), 0.08), s.mul(s.cos(s.mul(k, 2)), 0.5)), 0.42)


def _bartlett_values(s: _Steps, n: int) -> np.ndarray:
    w = s.mul(s.arange(n), 2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    w[half:] = s.add(s.mul(w[half:], -1), 2)
    return w


def _kaiser_values(s: _Steps, n: int, beta: float) -> np.ndarray:
    work = s.work.type
    k = s.arange(n).astype(s.work)
    alpha = work((n - 1) / 2.0)
    r = (k - alpha) / alpha
    inner = work(beta) * np.sqrt(np.abs(fused_multiply_add(-r, r, work(1))))  # 1 - r^2, fused as compiled there
    return (i0_array(inner) / i0_array(np.array([beta], s.work))).astype(s.dtype)


def _options(dtype: Any, device: Any) -> str:
    """PyTorch's print of the factory's ``TensorOptions`` in its refusal of a dtype (made before
    ``requires_grad`` is applied: it shows the default)."""
    return (f"TensorOptions(dtype={_dt.cpp_type_name(dtype)}, device={device}, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")


def _window(op: str, n: Any, periodic: Any, values: Callable[[_Steps, int], np.ndarray], dtype: Any, device: Any,
            requires_grad: Any) -> Tensor:
    """The window of ``n`` points (``n + 1`` with the last dropped when ``periodic``), refused as PyTorch
    refuses its arguments."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{op}(): argument 'window_length' (position 1) must be int, not {type_name(n)}")
    if not isinstance(periodic, bool):
        raise TypeError(f"{op}() received an invalid combination of arguments - got (int, {type_name(periodic)}), "
                        "but expected one of: (int window_length, bool periodic, ...)")
    dt = _dt.default_float() if dtype is None else _dt.as_dtype(dtype, f"{op}(): argument 'dtype'")
    dev = check_device(op, device)
    if n < 0:
        raise RuntimeError(f"{op} requires non-negative window_length, got window_length={n}")
    if not dt.is_floating:
        raise RuntimeError(f"{op} expects floating point dtypes, got: {_options(dt, dev)}")
    np_dtype = np.dtype(dt.np)
    if n <= 1:
        data = np.ones(int(n), dtype=np_dtype)
    else:
        data = values(_Steps(np_dtype), int(n) + 1 if periodic else int(n))[:int(n)]
    return finish(op, np.ascontiguousarray(data), dt, dev, requires_grad)


def _refuse_keywords_before(op: str, n: Any, given: tuple[tuple[str, Any], ...]) -> None:
    """PyTorch's overloads take ``periodic``, ``alpha``, ``beta`` only in that order: one given by keyword
    without those before it matches none of them."""
    missing = False
    for name, v in given:
        if v is _UNSET:
            missing = True
        elif missing:
            got = ", ".join([type_name(n)] + [f"{k}={type_name(x)}" for k, x in given if x is not _UNSET])
            raise TypeError(f"{op}() received an invalid combination of arguments - got ({got}), but expected "
                            f"one of the forms without {name} or with every argument before it")


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """The Hann window ``0.5 - 0.5 cos(2 pi k / (N - 1))`` (``torch.hann_window``)."""
    return _window("hann_window", window_length, periodic, lambda s, n: _hamming_values(s, n, 0.5, 0.5), dtype,
                   device, requires_grad)


def hamming_window(window_length: int, periodic: Any = _UNSET, alpha: Any = _UNSET, beta: Any = _UNSET, *,
                   dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: bool = False,
                   requires_grad: bool = False) -> Tensor:
    """The generalised Hamming window ``alpha - beta cos(2 pi k / (N - 1))`` (``torch.hamming_window``; alpha
    0.54, beta 0.46)."""
    _refuse_keywords_before("hamming_window", window_length, (("periodic", periodic), ("alpha", alpha), ("beta", beta)))
    a = 0.54 if alpha is _UNSET else float(alpha)
    b = 0.46 if beta is _UNSET else float(beta)
    return _window("hamming_window", window_length, True if periodic is _UNSET else periodic,
                   lambda s, n: _hamming_values(s, n, a, b), dtype, device, requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                    device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """The Blackman window (``torch.blackman_window``)."""
    return _window("blackman_window", window_length, periodic, _blackman_values, dtype, device, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                    device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """The Bartlett (triangular) window (``torch.bartlett_window``)."""
    return _window("bartlett_window", window_length, periodic, _bartlett_values, dtype, device, requires_grad)


def kaiser_window(window_length: int, periodic: Any = _UNSET, beta: Any = _UNSET, *, dtype: Any = None,
                  layout: Any = None, device: Any = None, pin_memory: bool = False,
                  requires_grad: bool = False) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - ((k - a) / a)^2)) / I0(beta)`` (``torch.kaiser_window``; beta 12)."""
    _refuse_keywords_before("kaiser_window", window_length, (("periodic", periodic), ("beta", beta)))
    b = 12.0 if beta is _UNSET else float(beta)
    return _window("kaiser_window", window_length, True if periodic is _UNSET else periodic,
                   lambda s, n: _kaiser_values(s, n, b), dtype, device, requires_grad)
