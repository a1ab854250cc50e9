"""``torch.testing``: ``assert_close``, ``make_tensor`` and the deprecated ``assert_allclose``.

A course checks a student's gradient against autograd's with ``torch.testing.assert_close(mine, theirs)``;
a failure must read as PyTorch's does, so the student can search for it::

    AssertionError: Tensor-likes are not close!

    Mismatched elements: 1 / 3 (33.3%)
    Greatest absolute difference: 0.09999990463256836 at index (1,) (up to 1e-05 allowed)
    Greatest relative difference: 0.04761900380253792 at index (1,) (up to 1.3e-06 allowed)

The rules, as PyTorch's ``torch/testing/_comparison.py`` has them:

- Sequences and mappings are compared item by item (a failure names the item: ``The failure occurred for
  item [1]``); ``None`` only matches ``None``, a bool a bool, a number a number, a tensor (or a NumPy
  array) a tensor (an array).
- Tensors must agree in shape, then (unless switched off) in device and dtype, then (with
  ``check_stride=True``) in strides. Their values are then compared with ``isclose``: where the dtypes
  differ (``check_dtype=False``) both are promoted first, where the devices differ both go to the CPU.
- Tolerances default by dtype (the loosest of the two): float16 ``rtol=1e-3, atol=1e-5``, bfloat16
  ``1.6e-2, 1e-5``, float32 ``1.3e-6, 1e-5``, float64 ``1e-7, 1e-7``, anything else exact. Given, both
  must be.
"""

from __future__ import annotations

import collections.abc
import math
import warnings
from typing import Any, Callable

import numpy as np

from . import dtypes as _dt
from .creation import empty, randint, tensor
from .tensor import Tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]

#: dtype -> (rtol, atol): PyTorch's defaults (other dtypes compare exactly)
_PRECISIONS = {_dt.float16: (0.001, 1e-5), _dt.bfloat16: (0.016, 1e-5), _dt.float32: (1.3e-6, 1e-5),
               _dt.float64: (1e-7, 1e-7)}

#: the dtype a Python number compares as (for its default tolerances)
_NUMBER_DTYPES = {int: _dt.int64, float: _dt.float64, complex: _dt.float64}


class _Mismatch(Exception):
    """A comparison's failure: the exception class to raise, its words, and the item it happened at."""

    def __init__(self, kind: type[Exception], words: str, where: tuple[Any, ...] = ()) -> None:
        super().__init__(words)
        self.kind, self.words, self.where = kind, words, where

    def error(self, msg: str | Callable[[str], str] | None) -> Exception:
        if isinstance(msg, str):
            return self.kind(msg)
        words = self.words
        if self.where:
            words += f"\n\nThe failure occurred for item {''.join(str([k]) for k in self.where)}"
        return self.kind(msg(words) if callable(msg) else words)


def _tolerances(dtypes: tuple[Any, ...], rtol: float | None, atol: float | None,
                where: tuple[Any, ...]) -> tuple[float, float]:
    if (rtol is None) != (atol is None):
        raise _Mismatch(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                    f"{'rtol' if rtol is None else 'atol'}.", where)
    if rtol is not None:
        return rtol, atol  # type: ignore[return-value]
    pairs = [_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _mismatch_words(what: str, extra: str, abs_diff: Any, abs_at: Any, atol: float, rel_diff: Any, rel_at: Any,
                    rtol: float) -> str:
    """PyTorch's report: ``<what> are not close!`` (``equal`` with no tolerance), ``extra``, the greatest
    differences (with their index, for tensors) and the tolerances."""
    exact = rtol == 0 and atol == 0

    def line(kind: str, diff: Any, at: Any, tol: float) -> str:
        text = f"{kind.title()} difference: {diff}" if at is None else f"Greatest {kind} difference: {diff} at index {at}"
        return text + ("" if exact else f" (up to {tol} allowed)")

    return (f"{what} are not {'equal' if exact else 'close'}!\n\n{extra.strip()}\n"
            f"{line('absolute', abs_diff, abs_at, atol)}\n{line('relative', rel_diff, rel_at, rtol)}")


def _scalar_words(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_words("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol, rel_diff, None,
                           rtol)


def _compare_numbers(actual: Any, expected: Any, where: tuple[Any, ...], rtol: Any, atol: Any, equal_nan: bool,
                     check_dtype: bool) -> None:
    actual, expected = (v.item() if isinstance(v, np.number) else v for v in (actual, expected))
    rtol, atol = _tolerances((_NUMBER_DTYPES[type(actual)], _NUMBER_DTYPES[type(expected)]), rtol, atol, where)
    if check_dtype and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.", where)
    if actual == expected:
        return
    if equal_nan and actual != actual and expected != expected:
        return
    diff = abs(actual - expected)
    if math.isfinite(diff) and diff <= atol + rtol * abs(expected):
        return
    raise _Mismatch(AssertionError, _scalar_words(actual, expected, rtol, atol), where)


def _as_tensor(v: Any) -> Tensor:
    return v if isinstance(v, Tensor) else Tensor._make(np.asarray(v), _dt.from_numpy(np.asarray(v).dtype))


def _index_of(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def _compare_tensors(actual: Any, expected: Any, where: tuple[Any, ...], rtol: Any, atol: Any, equal_nan: bool,
                     check_device: bool, check_dtype: bool, check_stride: bool) -> None:
    a, e = _as_tensor(actual), _as_tensor(expected)
    rtol, atol = _tolerances((a.dtype, e.dtype), rtol, atol, where)

    def differ(attribute: str, mine: Any, theirs: Any) -> None:
        raise _Mismatch(AssertionError, f"The values for attribute '{attribute}' do not match: {mine} != {theirs}.",
                        where)

    if tuple(a.shape) != tuple(e.shape):
        differ("shape", a.shape, e.shape)
    if check_stride and a.stride() != e.stride():
        differ("stride()", a.stride(), e.stride())
    if check_device and a.device != e.device:
        differ("device", a.device, e.device)
    if check_dtype and a.dtype != e.dtype:
        differ("dtype", a.dtype, e.dtype)
    # the values: on one device, in one dtype (PyTorch's promotion), compared on the host
    av, ev = a.detach().cpu(), e.detach().cpu()
    if av.dtype != ev.dtype:
        common = _dt.promote_types(av.dtype, ev.dtype)
        av, ev = av.to(common), ev.to(common)
    x, y = av.numpy(), ev.numpy()
    floating = av.dtype.is_floating
    if floating:
        acc = np.float64 if x.dtype == np.float64 else np.float32  # (half types widened exactly)
        xf, yf = x.astype(acc), y.astype(acc)
        with np.errstate(all="ignore"):
            # PyTorch's isclose: equal values (infinities too) match; a finite difference within the tolerance
            close = (xf == yf) | (np.isfinite(xf) & np.isfinite(yf) & (np.abs(xf - yf) <= atol + rtol * np.abs(yf)))
            if equal_nan:
                close |= np.isnan(xf) & np.isnan(yf)
    else:
        xi, yi = x.astype(np.int64), y.astype(np.int64)
        close = np.abs(xi - yi) <= atol + rtol * np.abs(yi) if (rtol or atol) else xi == yi
    if close.all():
        return
    if not av.shape:
        raise _Mismatch(AssertionError, _scalar_words(av.item(), ev.item(), rtol, atol), where)
    raise _Mismatch(AssertionError, _tensor_words(x, y, close, floating, rtol, atol), where)


def _tensor_words(x: np.ndarray, y: np.ndarray, close: np.ndarray, floating: bool, rtol: float, atol: float) -> str:
    """PyTorch's report on two tensors: how many elements differ, the greatest absolute and relative differences
    among them and where (each difference in the tensors' dtype, integers in int64)."""
    total, bad = close.size, int(close.size - close.sum())
    extra = f"Mismatched elements: {bad} / {total} ({bad / total:.1%})"
    kind = x.dtype if floating else np.dtype(np.int64)
    xf, yf, ok = x.astype(kind).reshape(-1), y.astype(kind).reshape(-1), close.reshape(-1)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(xf - yf)
        abs_diff[ok] = 0
        rel_diff = abs_diff / np.abs(yf)
        if not floating:  # (an integer divided by an integer is float32 in PyTorch)
            rel_diff = (abs_diff.astype(np.float32) / np.abs(yf).astype(np.float32))
        rel_diff[ok] = 0
    at_abs, at_rel = _argmax_nan_first(abs_diff), _argmax_nan_first(rel_diff)
    return _mismatch_words("Tensor-likes", extra, _number(abs_diff[at_abs]), _index_of(at_abs, x.shape), atol,
                           _number(rel_diff[at_rel]), _index_of(at_rel, x.shape), rtol)


def _argmax_nan_first(v: np.ndarray) -> int:
    """``torch.max(v, 0)``'s index: the first NaN if there is one, else the first greatest."""
    nan = np.isnan(v) if v.dtype.kind == "f" else np.zeros(v.shape, bool)
    return int(np.argmax(nan)) if nan.any() else int(np.argmax(v))


def _number(v: Any) -> Any:
    """A difference as ``.item()`` gives it: a Python int or float (a float32 widened exactly)."""
    return int(v) if np.asarray(v).dtype.kind in "iub" else float(v)


def _pairs(actual: Any, expected: Any, where: tuple[Any, ...], out: list[tuple[Any, Any, tuple[Any, ...]]]) -> None:
    """The leaves to compare, found by walking sequences and mappings alike, as PyTorch's ``originate_pairs``."""
    seq = collections.abc.Sequence
    if isinstance(actual, seq) and isinstance(expected, seq) and not isinstance(actual, str) \
            and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(actual)} != "
                                            f"{len(expected)}", where)
        for i in range(len(actual)):
            _pairs(actual[i], expected[i], (*where, i), out)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        mine, theirs = set(actual.keys()), set(expected.keys())
        if mine != theirs:
            raise _Mismatch(AssertionError, "The keys of the mappings do not match:\n"
                                            f"Missing keys in the actual mapping: {sorted(theirs - mine)}\n"
                                            f"Additional keys in the actual mapping: {sorted(mine - theirs)}", where)
        try:
            keys: Any = sorted(mine)
        except TypeError:
            keys = mine
        for k in keys:
            _pairs(actual[k], expected[k], (*where, k), out)
        return
    out.append((actual, expected, where))


def _kind(v: Any) -> str | None:
    """Which comparison takes ``v``: None, a bool, a number, a tensor (or array); None if none does."""
    if v is None:
        return "none"
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, float, complex, np.number)):
        return "number"
    if isinstance(v, (Tensor, np.ndarray)):
        return "tensor"
    return None


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """``torch.testing.assert_close``: raise ``AssertionError`` (PyTorch's report) unless ``actual`` and ``expected``
    are close: ``|actual - expected| <= atol + rtol * |expected|`` element by element, after their attributes agree.

    Example:
        >>> import minigrad as mg
        >>> mg.testing.assert_close(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 2.0 + 1e-7]))
        >>> mg.testing.assert_close(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 2.5]))
        Traceback (most recent call last):
        ...
        AssertionError: Tensor-likes are not close!
        <BLANKLINE>
        Mismatched elements: 1 / 2 (50.0%)
        Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
        Greatest relative difference: 0.2 at index (1,) (up to 1.3e-06 allowed)
    """
    __tracebackhide__ = True
    try:
        leaves: list[tuple[Any, Any, tuple[Any, ...]]] = []
        _pairs(actual, expected, (), leaves)
        for a, e, where in leaves:
            kinds = (_kind(a), _kind(e))
            if kinds[0] == "none" or kinds[1] == "none":
                if a is not None or e is not None:
                    raise _Mismatch(AssertionError, f"None mismatch: {a} is not {e}", where)
            elif kinds == ("bool", "bool"):
                if bool(a) is not bool(e):
                    raise _Mismatch(AssertionError, f"Booleans mismatch: {bool(a)} is not {bool(e)}", where)
            elif kinds == ("number", "number"):
                _compare_numbers(a, e, where, rtol, atol, equal_nan, check_dtype)
            elif kinds == ("tensor", "tensor") and (isinstance(a, type(e)) or isinstance(e, type(a))) \
                    and (allow_subclasses or type(a) is type(e)):
                _compare_tensors(a, e, where, rtol, atol, equal_nan, check_device, check_dtype, check_stride)
            else:
                raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {type(a)} and "
                                           f"{type(e)}.", where)
    except _Mismatch as failure:
        raise failure.error(msg) from None


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None, atol: float | None = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """``torch.testing.assert_allclose`` (deprecated in PyTorch 1.12): ``assert_close`` with the old tolerances
    (float16 ``1e-3, 1e-3``, float32 ``1e-4, 1e-5``, float64 ``1e-5, 1e-8``), dtypes not checked, NaNs equal."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    actual = actual if isinstance(actual, Tensor) else tensor(actual)
    expected = expected if isinstance(expected, Tensor) else tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        old = {_dt.float16: (1e-3, 1e-3), _dt.float32: (1e-4, 1e-5), _dt.float64: (1e-5, 1e-8)}
        pairs = [old.get(d, (0.0, 0.0)) for d in (actual.dtype, expected.dtype)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)


def make_tensor(*shape: Any, dtype: Any, device: Any = None, low: float | None = None, high: float | None = None,
                requires_grad: bool = False, noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: Any = None) -> Tensor:
    """``torch.testing.make_tensor``: a tensor of ``shape`` with values drawn uniformly from ``[low, high)`` by the
    global generator, as PyTorch draws them (so the same values after the same ``manual_seed``): integers by
    ``randint`` (default ``[-9, 10)``, unsigned ``[0, 10)``, bool ``[0, 2)``), floats by ``uniform_`` (default
    ``[-9, 9)``). ``noncontiguous`` draws twice the last dim and keeps every other element; ``exclude_zero``
    replaces zeros by 1 (integers) or the dtype's tiny value (floats)."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = tuple(shape[0])
    shape = tuple(int(s) for s in shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    floating = dtype.is_floating
    if requires_grad and not floating:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is _dt.bool_:
        low, high = _range(dtype, low, high, 0, 2, 0, 2)
        result = randint(int(low), int(high), shape, device=device, dtype=dtype)
    elif not floating:
        info = _dt.iinfo(dtype)
        top = info.max + (1 if dtype is not _dt.int64 else 0)
        low, high = _range(dtype, low, high, info.min, top, 0 if info.min == 0 else -9, 10)
        result = randint(int(low), int(high), shape, device=device, dtype=dtype)
    else:
        info = _dt.finfo(dtype)
        low, high = _range(dtype, low, high, info.min, info.max, -9, 9)
        result = empty(shape, device=device, dtype=dtype)
        if high - low >= info.max:
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if not floating else _dt.finfo(dtype).tiny
    if floating:
        result.requires_grad = requires_grad
    return result


def _range(dtype: Any, low: Any, high: Any, lowest: float, highest: float, default_low: float,
           default_high: float) -> tuple[Any, Any]:
    """``make_tensor``'s ``[low, high)``: the defaults, PyTorch's checks, clamped to what ``dtype`` holds (integers
    rounded up)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype.is_floating:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    return (math.ceil(low), math.ceil(high)) if not dtype.is_floating else (low, high)
