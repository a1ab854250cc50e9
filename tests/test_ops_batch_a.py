"""isin, unique_consecutive, unravel_index, gcd/lcm, nextafter, frexp, ldexp, histogram, the window functions, i0
and special.i1, combinations and vander against PyTorch: values, dtypes and shapes, gradients, ``grad_fn`` where
a node refuses its backward, and the refusals of bad input (class and words).

Each call is written once against the framework ``lib`` (minigrad or torch), as in ``tests/test_grad_fn_names.py``.
The ``grad_fn`` graphs are in ``tests/test_grad_fn_names.py``, the finite-difference gradient checks in
``tests/test_ops_grad.py`` and PyTorch's OpInfo samples in ``tests/test_conformance.py``; this file has the integer
forms, the factories and the edge cases those do not reach.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

NAN, INF = float("nan"), float("inf")
RNG = np.random.default_rng(3)
X = [1.0, 2.0, 1.0, 4.0, 2.5, 7.0]
M = [[1, 1, 2], [1, 1, 2], [3, 1, 2]]


def T(lib: Any, v: Any, **kw: Any) -> Any:
    return lib.tensor(v, **kw)


def _plain(r: Any) -> Any:
    """A result as comparable data: a tensor as (dtype name, shape, values, requires_grad), a tuple of results as a
    list."""
    if isinstance(r, tuple):
        return [_plain(t) for t in r]
    if isinstance(r, (mg.Tensor, torch.Tensor)):
        values = r.detach().cpu().double().numpy() if r.dtype not in (mg.bool, torch.bool) else r.detach().cpu().numpy()
        return str(r.dtype).split(".")[-1], tuple(r.shape), values, r.requires_grad
    return r


def _assert_same(ours: Any, theirs: Any, rtol: float = 0.0) -> None:
    if isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _assert_same(o, t, rtol)
        return
    assert ours[:2] == theirs[:2] and ours[3] == theirs[3], (ours, theirs)
    if rtol:
        np.testing.assert_allclose(ours[2], theirs[2], rtol=rtol, atol=0)
    else:
        np.testing.assert_array_equal(ours[2], theirs[2])


# -- values: (id, call, rtol: 0 for the same bits) -------------------------------------------------------------

VALUES: list[tuple[str, Callable[[Any], Any], float]] = [
    # isin: promoted comparison, numbers on either side, NaN in nothing
    ("isin", lambda l: l.isin(T(l, [1, 2, 3]), T(l, [2.0, 5.0])), 0),
    ("isin number element", lambda l: l.isin(2, T(l, [2, 5])), 0),
    ("isin number test element", lambda l: l.isin(T(l, [1, 2]), 2.0), 0),
    ("isin 2.5 in ints", lambda l: l.isin(2.5, T(l, [1, 2])), 0),
    ("isin NaN", lambda l: l.isin(T(l, [NAN, 1.0]), T(l, [NAN, 1.0])), 0),
    ("isin invert", lambda l: l.isin(T(l, [[1, 2], [3, 4]]), T(l, [2, 4]), invert=True), 0),
    ("isin assume_unique", lambda l: l.isin(T(l, [[1, 2], [3, 4]]), T(l, [2, 4]), assume_unique=True), 0),
    ("isin float16 in float32", lambda l: l.isin(T(l, [1.0, 0.1], dtype=l.float16), T(l, [1.0, 0.1])), 0),
    ("isin int64 in float32", lambda l: l.isin(T(l, [16777217]), T(l, [16777216.0])), 0),
    ("isin 0-d", lambda l: l.isin(T(l, 2), T(l, [1, 2])), 0),
    ("isin empty", lambda l: l.isin(T(l, [1, 2]), T(l, [], dtype=l.int64)), 0),
    ("isin keywords", lambda l: l.isin(elements=T(l, [1, 2]), test_elements=T(l, [2])), 0),
    # unique_consecutive
    ("unique_consecutive", lambda l: l.unique_consecutive(T(l, [1, 1, 2, 2, 3, 1, 1, 2])), 0),
    ("unique_consecutive all", lambda l: l.unique_consecutive(T(l, [1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True,
                                                              return_counts=True), 0),
    ("unique_consecutive counts", lambda l: l.unique_consecutive(T(l, [1, 1, 2]), return_counts=True), 0),
    ("unique_consecutive method", lambda l: T(l, [1, 1, 2, 1]).unique_consecutive(True), 0),
    ("unique_consecutive 2-d", lambda l: l.unique_consecutive(T(l, M), return_inverse=True), 0),
    ("unique_consecutive dim 0", lambda l: l.unique_consecutive(T(l, M), True, True, dim=0), 0),
    ("unique_consecutive dim 1", lambda l: l.unique_consecutive(T(l, M), True, True, dim=1), 0),
    ("unique_consecutive dim -1", lambda l: l.unique_consecutive(T(l, M), dim=-1), 0),
    ("unique_consecutive 3-d dim 1", lambda l: l.unique_consecutive(
        T(l, [[[1, 1], [1, 1], [2, 2]], [[1, 1], [1, 1], [3, 3]]]), return_inverse=True, return_counts=True, dim=1), 0),
    ("unique_consecutive 0-d", lambda l: l.unique_consecutive(T(l, 3), return_inverse=True, return_counts=True), 0),
    ("unique_consecutive empty", lambda l: l.unique_consecutive(T(l, []), return_inverse=True, return_counts=True), 0),
    ("unique_consecutive empty dim", lambda l: l.unique_consecutive(l.zeros(0, 2), True, True, dim=0), 0),
    ("unique_consecutive NaN", lambda l: l.unique_consecutive(T(l, [NAN, NAN, 1.0, 1.0])), 0),
    ("unique_consecutive bool", lambda l: l.unique_consecutive(T(l, [True, True, False])), 0),
    ("unique_consecutive requires grad", lambda l: l.unique_consecutive(T(l, [1.0, 1.0, 2.0], requires_grad=True),
                                                                        return_counts=True), 0),
    # unravel_index: indices past the end and negative ones wrap, as PyTorch's arithmetic makes them
    ("unravel_index", lambda l: l.unravel_index(T(l, [4, 1, -1, 6, -7]), (2, 3)), 0),
    ("unravel_index int shape", lambda l: l.unravel_index(T(l, [1]), 3), 0),
    ("unravel_index 2-d", lambda l: l.unravel_index(T(l, [[1, 2], [3, 4]]), (5, 2)), 0),
    ("unravel_index empty shape", lambda l: l.unravel_index(T(l, 0), ()), 0),
    ("unravel_index int32", lambda l: l.unravel_index(T(l, [3], dtype=l.int32), (2, 2)), 0),
    ("unravel_index 0 size, no indices", lambda l: l.unravel_index(T(l, [], dtype=l.int64), (2, 0)), 0),
    ("unravel_index Size", lambda l: l.unravel_index(T(l, [3]), l.Size([2, 2])), 0),
    ("unravel_index keywords", lambda l: l.unravel_index(indices=T(l, [3]), shape=(2, 2)), 0),
    # gcd, lcm: integer kinds, promotion, overflow as C++ wraps it
    ("gcd", lambda l: l.gcd(T(l, [12, -18, 0, 7, 0]), T(l, [8, 12, 5, 0, 0])), 0),
    ("lcm", lambda l: l.lcm(T(l, [12, -18, 0, 7, -4]), T(l, [8, 12, 5, 0, 6])), 0),
    ("gcd uint8 with int32", lambda l: l.gcd(T(l, [6], dtype=l.uint8), T(l, [4], dtype=l.int32)), 0),
    ("gcd int8 -128", lambda l: l.gcd(T(l, [-128], dtype=l.int8), T(l, [0], dtype=l.int8)), 0),
    ("lcm int8 overflow", lambda l: l.lcm(T(l, [100, -100, 127], dtype=l.int8), T(l, [3, 3, -2], dtype=l.int8)), 0),
    ("lcm broadcast", lambda l: l.lcm(T(l, [[4], [6]]), T(l, [3, 4, 10])), 0),
    ("gcd_", lambda l: T(l, [6], dtype=l.int8).gcd_(T(l, [4000])), 0),
    ("lcm_", lambda l: T(l, [6], dtype=l.int32).lcm_(T(l, [4])), 0),
    ("torch.gcd_", lambda l: l.gcd_(T(l, [6, 9]), T(l, [4, 6])), 0),
    ("lcm method", lambda l: T(l, [6]).lcm(T(l, [4])), 0),
    ("gcd out=", lambda l: l.gcd(T(l, [12, 18]), T(l, [8, 12]), out=l.empty(2, dtype=l.int64)), 0),
    # nextafter
    ("nextafter", lambda l: l.nextafter(T(l, [1.0, 0.0, -1.0, INF, NAN, 5e-324], dtype=l.float64),
                                        T(l, 0.0, dtype=l.float64)), 0),
    ("nextafter float32", lambda l: l.nextafter(T(l, [1.0, 0.0, -1.0, INF, NAN]), T(l, 2.0)), 0),
    ("nextafter float32 with float64", lambda l: l.nextafter(T(l, [1.0]), T(l, [2.0], dtype=l.float64)), 0),
    ("nextafter float16", lambda l: l.nextafter(T(l, [1.0, 0.0], dtype=l.float16), T(l, [2.0, -1.0], dtype=l.float16)), 0),
    ("nextafter bfloat16", lambda l: l.nextafter(T(l, [1.0, 0.0], dtype=l.bfloat16), T(l, [2.0, -1.0], dtype=l.bfloat16)), 0),
    ("nextafter_", lambda l: T(l, [1.0]).nextafter_(T(l, [2.0])), 0),
    # frexp
    ("frexp", lambda l: tuple(l.frexp(T(l, [0.0, -0.0, 1.0, INF, NAN, 1e-310, -3.5], dtype=l.float64))), 0),
    ("frexp float32 method", lambda l: tuple(T(l, [3.0, 1e-40]).frexp()), 0),
    ("frexp float16", lambda l: tuple(l.frexp(T(l, [3.0, 1e-6], dtype=l.float16))), 0),
    ("frexp bfloat16", lambda l: tuple(l.frexp(T(l, [3.0, 1e-6], dtype=l.bfloat16))), 0),
    # ldexp: an integer exponent scales exactly, a floating one multiplies by exp2
    ("ldexp integer exponent", lambda l: l.ldexp(T(l, [1e-300], dtype=l.float64), T(l, [1100])), 0),
    ("ldexp floating exponent", lambda l: l.ldexp(T(l, [1e-300], dtype=l.float64), T(l, [1100.0])), 0),
    ("ldexp float32", lambda l: l.ldexp(T(l, [1.5, 1e-40, 2.0]), T(l, [3, 200, -150])), 0),
    ("ldexp float32 with float64", lambda l: l.ldexp(T(l, [1.5]), T(l, [3.0], dtype=l.float64)), 0),
    ("ldexp 2.5", lambda l: l.ldexp(T(l, [3.0], dtype=l.float64), T(l, [2.5], dtype=l.float64)), 0),
    ("ldexp integers", lambda l: l.ldexp(T(l, [3]), T(l, [3])), 0),
    ("ldexp bools", lambda l: l.ldexp(T(l, [True]), T(l, [True])), 0),
    ("ldexp float16", lambda l: l.ldexp(T(l, [3.0, 2.0, 2.0], dtype=l.float16), T(l, [3, -20, 20])), 0),
    ("ldexp_", lambda l: T(l, [3.0]).ldexp_(T(l, [2])), 0),
    ("ldexp method", lambda l: T(l, [3.0]).ldexp(T(l, [2])), 0),
    # i0 and special.i1
    ("i0 float64", lambda l: l.i0(T(l, [0.0, 1.0, -2.0, 7.9, 8.1, 50.0, 800.0, INF, NAN], dtype=l.float64)), 1e-15),
    ("i0 integers", lambda l: l.i0(T(l, [1, 2])), 1e-7),
    ("i0 bool", lambda l: l.i0(T(l, [True])), 1e-7),
    ("i0_", lambda l: T(l, [1.0, 3.0]).i0_(), 1e-7),
    ("torch.i0_", lambda l: l.i0_(T(l, [1.0, 3.0])), 1e-7),
    ("special.i0", lambda l: l.special.i0(T(l, [1.0, 3.0], dtype=l.float64)), 1e-15),
    ("special.i1", lambda l: l.special.i1(T(l, [0.0, 1.0, -2.0, 5.0, 29.9, 30.1, 100.0, 700.0, NAN, INF, -INF, 1e-300],
                                            dtype=l.float64)), 1e-14),
    ("special.i1 integers", lambda l: l.special.i1(T(l, [1, -3])), 1e-7),
    # histogram
    ("histogram", lambda l: tuple(l.histogram(T(l, X), 4)), 0),
    ("histogram range", lambda l: tuple(l.histogram(T(l, X), 3, range=(0.0, 3.0))), 0),
    ("histogram int range", lambda l: tuple(l.histogram(T(l, X), 3, range=(0, 3))), 0),
    ("histogram one point", lambda l: tuple(l.histogram(T(l, [2.0, 2.0]), 4)), 0),
    ("histogram one-point range", lambda l: tuple(l.histogram(T(l, [2.0, 2.0]), 2, range=(2.0, 2.0))), 0),
    ("histogram empty", lambda l: tuple(l.histogram(T(l, []), 4)), 0),
    ("histogram weight", lambda l: tuple(l.histogram(T(l, X), 3, weight=T(l, [1.0, 2, 3, 4, 5, 6]))), 0),
    ("histogram weight of another shape", lambda l: tuple(l.histogram(l.ones(2, 3), 2, weight=l.ones(3, 2))), 0),
    ("histogram density", lambda l: tuple(l.histogram(T(l, X), 3, density=True)), 0),
    ("histogram density weight", lambda l: tuple(l.histogram(T(l, X, dtype=l.float64), 3, density=True,
                                                             weight=T(l, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], dtype=l.float64))), 0),
    ("histogram empty density", lambda l: tuple(l.histogram(T(l, [5.0]), 2, range=(0.0, 1.0), density=True)), 0),
    ("histogram edges", lambda l: tuple(l.histogram(T(l, X), T(l, [0.0, 1.5, 2.5, 10.0]))), 0),
    ("histogram decreasing edges", lambda l: tuple(l.histogram(T(l, X), T(l, [3.0, 1.5, 2.5]))), 0),
    ("histogram NaN outside a range", lambda l: tuple(l.histogram(T(l, [1.0, NAN, 2.0]), 3, range=(0.0, 3.0))), 0),
    ("histogram NaN weight", lambda l: tuple(l.histogram(T(l, [0.5, 0.2]), 2, range=(0.0, 1.0),
                                                         weight=T(l, [NAN, 1.0]))), 0),
    ("histogram 2-d", lambda l: tuple(l.histogram(T(l, [[1.0, 2.0], [3.0, 4.0]]), 3)), 0),
    ("histogram float64 edges", lambda l: tuple(l.histogram(T(l, [0.1, 0.7, 0.3], dtype=l.float64), 7)), 0),
    ("histogram float32 edges", lambda l: tuple(l.histogram(T(l, [0.1, 0.7, 0.3]), 7)), 0),
    ("histogram last edge closed", lambda l: tuple(l.histogram(T(l, [0.0, 1.0, 3.0]), 3, range=(0.0, 3.0))), 0),
    ("histogram method", lambda l: tuple(T(l, X).histogram(2)), 0),
    ("histogram requires grad", lambda l: tuple(l.histogram(T(l, X, requires_grad=True), 2)), 0),
    ("histogram of normals", lambda l: tuple(l.histogram(T(l, RNG_NORMALS, dtype=l.float32), 13)), 0),
    # (PyTorch adds weights in per-thread partial sums: the last bit may differ)
    ("histogram of weighted normals", lambda l: tuple(l.histogram(T(l, RNG_NORMALS), 17, weight=T(l, RNG_NORMALS ** 2))),
     1e-13),
    # combinations
    ("combinations with replacement", lambda l: l.combinations(T(l, [1, 2, 3]), 2, True), 0),
    ("combinations r=3", lambda l: l.combinations(T(l, [1, 2, 3, 4]), 3), 0),
    ("combinations r=1", lambda l: l.combinations(T(l, [1.0, 2.0], requires_grad=True), 1), 0),
    ("combinations r=0", lambda l: l.combinations(T(l, [1.0, 2.0]), 0), 0),
    ("combinations r > n", lambda l: l.combinations(T(l, [1.0, 2.0]), 3), 0),
    ("combinations empty", lambda l: l.combinations(T(l, []), 2), 0),
    ("combinations bool", lambda l: l.combinations(T(l, [True, False]), 2), 0),
    ("combinations keywords", lambda l: l.combinations(input=T(l, [1, 2, 3]), r=2, with_replacement=True), 0),
    # vander
    ("vander", lambda l: l.vander(T(l, [1, 2, 3]), 3), 0),
    ("vander default N", lambda l: l.vander(T(l, [1.5, -2.0, 3.0], dtype=l.float64)), 0),
    ("vander empty", lambda l: l.vander(T(l, [])), 0),
    ("vander int8", lambda l: l.vander(T(l, [2, 3], dtype=l.int8), 4), 0),
    ("vander increasing", lambda l: l.vander(T(l, [2.0, 3.0]), 4, True), 0),
    ("vander bool", lambda l: l.vander(T(l, [True, False]), 3), 0),
    ("vander float16", lambda l: l.vander(T(l, [2.0], dtype=l.float16), 3), 0),
    ("vander N=0", lambda l: l.vander(T(l, [2.0, 3.0], requires_grad=True), 0), 0),
    ("vander N=1", lambda l: l.vander(T(l, [2.0, 3.0], requires_grad=True), 1), 0),
    ("vander requires grad", lambda l: l.vander(T(l, [2.0, 3.0], requires_grad=True), 3), 0),
    ("vander keywords", lambda l: l.vander(x=T(l, [2.0, 3.0]), N=2, increasing=True), 0),
    # windows: the cases whose bits agree (the others below)
    ("hann_window 0", lambda l: l.hann_window(0), 0),
    ("hamming_window 1", lambda l: l.hamming_window(1), 0),
    ("blackman_window 1 symmetric", lambda l: l.blackman_window(1, periodic=False), 0),
    ("bartlett_window requires_grad", lambda l: l.bartlett_window(5, requires_grad=True), 0),
    ("kaiser_window float16", lambda l: l.kaiser_window(7, dtype=l.float16), 0),
    ("hamming_window alpha beta", lambda l: l.hamming_window(5, False, 0.5, 0.3), 0),
    ("hamming_window keywords", lambda l: l.hamming_window(5, periodic=False, alpha=0.5, beta=0.3), 0),
    ("kaiser_window beta", lambda l: l.kaiser_window(5, False, 5.0), 0),
    ("kaiser_window beta keyword", lambda l: l.kaiser_window(5, True, beta=5.0), 0),
    ("hann_window bfloat16", lambda l: l.hann_window(9, dtype=l.bfloat16), 0),
]
RNG_NORMALS = RNG.standard_normal(1000)


@pytest.mark.parametrize("call, rtol", [pytest.param(c, r, id=i) for i, c, r in VALUES])
def test_values_are_pytorchs(call: Callable[[Any], Any], rtol: float) -> None:
    _assert_same(_plain(call(mg)), _plain(call(torch)), rtol)


def test_return_types_name_their_fields() -> None:
    m, e = mg.frexp(mg.tensor([3.0]))
    got = mg.frexp(mg.tensor([3.0]))
    assert (got.mantissa is got[0], got.exponent is got[1], type(got).__name__) == (True, True, "frexp")
    assert repr(got) == "minigrad.return_types.frexp(\nmantissa=tensor([0.7500]),\nexponent=tensor([2], dtype=minigrad.int32))"
    h = mg.histogram(mg.tensor([1.0, 2.0]), 2)
    assert type(h).__name__ == "histogram" and h._fields == ("hist", "bin_edges") and h.hist.tolist() == [1.0, 1.0]


# -- the window functions against PyTorch's, every length to 70 and a few long ones -----------------------------

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
LENGTHS = list(range(2, 70)) + [255, 256, 1000]
#: bit-for-bit where PyTorch's steps are NumPy's; where its cosine (SLEEF) or its float64 i0 rounds its last bit
#: differently, the largest difference allowed, in units of the dtype's epsilon (absolute: a window is within [0, 1])
WINDOW_EPS = {("hann_window", "float32"): 0.5, ("hann_window", "float64"): 0.5, ("hamming_window", "float32"): 0.5,
              ("hamming_window", "float64"): 0.5, ("blackman_window", "float32"): 1.0,
              ("blackman_window", "float64"): 0.5, ("kaiser_window", "float32"): 0.5, ("kaiser_window", "float64"): 2.0}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("name", WINDOWS)
def test_windows_are_pytorchs(name: str, dtype: str) -> None:
    eps = WINDOW_EPS.get((name, dtype), 0.0) * float(torch.finfo(getattr(torch, dtype)).eps)
    for n in LENGTHS:
        for periodic in (True, False):
            theirs = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype))
            ours = getattr(mg, name)(n, periodic, dtype=getattr(mg, dtype))
            assert ours.dtype == getattr(mg, dtype) and tuple(ours.shape) == (n,)
            diff = np.abs(ours.double().numpy() - theirs.double().numpy()).max()
            assert diff <= eps, f"{name}({n}, {periodic}, {dtype}) differs by {diff}"


def test_windows_take_the_default_dtype_and_a_device() -> None:
    saved = mg.get_default_dtype()
    try:
        mg.set_default_dtype(mg.float64)
        assert mg.hann_window(3).dtype == mg.float64
    finally:
        mg.set_default_dtype(saved)
    w = mg.kaiser_window(4, device="cpu", requires_grad=True)
    assert w.dtype == mg.float32 and w.is_leaf and w.requires_grad and w.grad_fn is None


# -- i0 over its range, in float32 and float64 --------------------------------------------------------------------


@pytest.mark.parametrize("dtype, ulps, share", [("float32", 2, 0.005), ("float64", 2, 0.06)])
def test_i0_rounds_as_pytorchs(dtype: str, ulps: int, share: float) -> None:
    """float32: PyTorch's bits but for about one element in a thousand, by an ulp or two; float64: a few in a
    hundred, by up to 2 ulp (NOTE [ How the Bessel kernels are evaluated ] in ops/bessel.py)."""
    x = RNG.uniform(-30, 30, 4000).astype(dtype)
    theirs = torch.i0(torch.tensor(x)).numpy()
    ours = mg.i0(mg.tensor(x)).numpy()
    assert np.max(np.abs(ours.astype(np.float64) - theirs) / np.spacing(np.abs(theirs))) <= ulps
    assert np.mean(ours != theirs) <= share


# -- gradients -----------------------------------------------------------------------------------------------------

GRADS: list[tuple[str, Callable[[Any, list[Any]], Any], list[Any]]] = [
    ("ldexp", lambda l, a: l.ldexp(a[0], a[1]), [[0.5, 1.5, -2.0], [1.0, 2.0, 0.5]]),
    # (an integer exponent's 2 ** e is computed in integers, as PyTorch's gradient does: 0 below 2^0, wrapped at the top)
    ("ldexp integer exponent", lambda l, a: l.ldexp(a[0], T(l, [1, -2, 3, 62, 63])), [[0.5, 1.5, -2.0, 1.0, 1.0]]),
    ("ldexp int8 exponent", lambda l, a: l.ldexp(a[0], T(l, [-1, 2, 7, 8], dtype=l.int8)), [[0.5, 1.5, -2.0, 1.0]]),
    ("ldexp uint8 exponent", lambda l, a: l.ldexp(a[0], T(l, [255, 2, 7], dtype=l.uint8)), [[0.5, 1.5, -2.0]]),
    ("ldexp broadcast", lambda l, a: l.ldexp(a[0], a[1]), [[[0.5], [1.5]], [1.0, 2.0, 0.5]]),
    ("nextafter", lambda l, a: l.nextafter(a[0], a[1]), [[1.0, 1.0, 2.0, NAN, 1.0, INF, 0.0, 5e-324],
                                                        [1.0, 2.0, 0.0, 1.0, NAN, 0.0, 0.0, 0.0]]),
    ("frexp", lambda l, a: l.frexp(a[0])[0], [[0.5, 1.5, -2.0, 3.0, 0.0, 1e-310]]),
    ("i0", lambda l, a: l.i0(a[0]), [[NAN, 1.0, 0.0, -3.0, 20.0]]),
    ("special.i1", lambda l, a: l.special.i1(a[0]), [[NAN, 1.0, INF, 0.0, -3.0, 1e-17, 40.0]]),
    ("combinations", lambda l, a: l.combinations(a[0], 2, True), [[0.5, 1.5, -2.0, 3.0]]),
    ("in place ldexp_", lambda l, a: (a[0] * 1).ldexp_(T(l, [1.0, 2.0, 3.0], dtype=l.float64)), [[0.5, 1.5, -2.0]]),
    ("in place i0_", lambda l, a: (a[0] * 1).i0_(), [[0.5, 1.5, -2.0]]),
    ("in place nextafter_", lambda l, a: (a[0] * 1).nextafter_(T(l, [0.5, 3.0, 0.0], dtype=l.float64)), [[0.5, 1.5, -2.0]]),
]


@pytest.mark.parametrize("call, values", [pytest.param(c, v, id=i) for i, c, v in GRADS])
def test_gradients_are_pytorchs(call: Callable[[Any, list[Any]], Any], values: list[Any]) -> None:
    results = []
    for lib in (mg, torch):
        leaves = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
        out = call(lib, leaves)
        weights = lib.tensor(np.arange(1.0, out.numel() + 1).reshape(tuple(out.shape)), dtype=lib.float64)
        (out * weights).sum().backward()
        results.append([_plain(t.grad) for t in leaves] + [str(type(out.grad_fn).__name__)])
    ours, theirs = results
    assert ours[-1] == theirs[-1]
    for o, t in zip(ours[:-1], theirs[:-1]):
        _assert_same(o, t, rtol=1e-14)


REFUSED_BACKWARDS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("unique_consecutive", lambda l, x: l.unique_consecutive(x)),
    ("histogram", lambda l, x: l.histogram(x, 2).hist),
    ("histogram's edges", lambda l, x: l.histogram(x, 2).bin_edges),
    ("vander", lambda l, x: l.vander(x, 3)),
]


@pytest.mark.parametrize("call", [pytest.param(c, id=i) for i, c in REFUSED_BACKWARDS])
def test_backwards_pytorch_refuses_are_refused(call: Callable[[Any, Any], Any]) -> None:
    """unique_consecutive and histogram have no derivative in PyTorch; vander's backward finds its saved cumprod input overwritten (NOTE [ vander's backward is refused, as
    PyTorch's ])."""
    caught = []
    for lib in (torch, mg):
        out = call(lib, lib.tensor([1.0, 1.0, 2.0], requires_grad=True))
        with pytest.raises(Exception) as info:
            out.sum().backward()
        caught.append(info.value)
    theirs, ours = caught
    assert isinstance(ours, type(theirs))
    if not isinstance(theirs, RuntimeError) or "derivative" in str(theirs):  # (the words of a node that refuses)
        assert str(theirs).split("\n")[0] in str(ours)


# -- refusals: PyTorch's class, and its words where minigrad's argument parser does not word them its own way ------

def _words(e: BaseException) -> str:
    """The first line, the dtypes as minigrad prints them."""
    return str(e).split("\n")[0].replace("torch.", "minigrad.")


#: (id, call, whether the message is PyTorch's too; False: only the class, where minigrad's argument parser
#: words it its own way: the argument's 0-based position, or the forms a call may take)
ERRORS: list[tuple[str, Callable[[Any], Any], bool]] = [
    ("isin of two numbers", lambda l: l.isin(1, 2), False),
    ("isin of bools", lambda l: l.isin(T(l, [True]), T(l, [True])), True),
    ("unique_consecutive dim out of range", lambda l: l.unique_consecutive(T(l, M), dim=3), True),
    ("unique_consecutive dim of a 0-d tensor", lambda l: l.unique_consecutive(T(l, 3), dim=0), True),
    ("unique_consecutive unselected 0-size dim", lambda l: l.unique_consecutive(l.zeros(0, 2), dim=1), True),
    ("unravel_index of a number", lambda l: l.unravel_index(5, (2, 3)), True),
    ("unravel_index of floats", lambda l: l.unravel_index(T(l, [1.0]), (2, 3)), True),
    ("unravel_index of bools", lambda l: l.unravel_index(T(l, [True]), (2,)), True),
    ("unravel_index negative size", lambda l: l.unravel_index(T(l, [1]), (2, -3)), True),
    ("unravel_index float size", lambda l: l.unravel_index(T(l, [3]), (2.0, 2)), True),
    ("unravel_index string shape", lambda l: l.unravel_index(T(l, [3]), "ab"), True),
    ("unravel_index 0 size", lambda l: l.unravel_index(T(l, [0]), (2, 0)), True),
    ("gcd of bools", lambda l: l.gcd(T(l, [True]), T(l, [True])), True),
    ("gcd of floats", lambda l: l.gcd(T(l, [1.0]), T(l, [2.0])), True),
    ("gcd of int and float", lambda l: l.gcd(T(l, [1]), T(l, [2.0])), True),
    ("gcd of a number", lambda l: l.gcd(T(l, [1]), 4), False),
    ("gcd shapes", lambda l: l.gcd(T(l, [6, 1]), T(l, [4, 2, 3])), True),
    ("lcm of floats", lambda l: l.lcm(T(l, [1.0]), T(l, [2.0])), True),
    ("nextafter of ints", lambda l: l.nextafter(T(l, [1]), T(l, [2])), True),
    ("nextafter of a number", lambda l: l.nextafter(T(l, [1.0]), 2.0), False),
    ("frexp of ints", lambda l: l.frexp(T(l, [1])), True),
    ("ldexp of a number", lambda l: l.ldexp(T(l, [3.0]), 2), False),
    ("ldexp_ of an int tensor", lambda l: T(l, [3]).ldexp_(T(l, [2])), False),
    # (PyTorch computes the gradient's integer 2 ** other as it records the node: none for a bool)
    ("ldexp of a bool exponent, recorded", lambda l: l.ldexp(T(l, [1.0, 2.0], requires_grad=True), T(l, [True, False])),
     True),
    ("i0_ of an int tensor", lambda l: T(l, [1]).i0_(), True),
    ("histogram of ints", lambda l: l.histogram(T(l, [1, 2]), 4), True),
    ("histogram of bfloat16", lambda l: l.histogram(T(l, [1.0], dtype=l.bfloat16), 4), True),
    ("histogram of ints with edges", lambda l: l.histogram(T(l, [1, 2]), T(l, [1, 2])), True),
    ("histogram 0 bins", lambda l: l.histogram(T(l, X), 0), True),
    ("histogram 1 edge", lambda l: l.histogram(T(l, X), T(l, [3.0])), True),
    ("histogram no edges", lambda l: l.histogram(T(l, X), T(l, [])), True),
    ("histogram 2-d edges", lambda l: l.histogram(T(l, X), T(l, [[3.0, 1.5]])), True),
    ("histogram float64 edges", lambda l: l.histogram(T(l, X), T(l, [0.0, 1.5], dtype=l.float64)), True),
    ("histogram edges and a range", lambda l: l.histogram(T(l, X), T(l, [0.0, 1.5]), range=(0.0, 1.0)), True),
    ("histogram float bins", lambda l: l.histogram(T(l, X), 2.0), True),
    ("histogram bool bins", lambda l: l.histogram(T(l, X), True), True),
    ("histogram positional range", lambda l: l.histogram(T(l, X), 3, (0.0, 3.0)), False),
    ("histogram weight size", lambda l: l.histogram(T(l, X), 3, weight=T(l, [1.0, 2.0])), True),
    ("histogram weight dtype", lambda l: l.histogram(T(l, X), 3, weight=T(l, [1.0] * 6, dtype=l.float64)), True),
    ("histogram int weight", lambda l: l.histogram(T(l, X), 3, weight=T(l, [1] * 6)), True),
    ("histogram reversed range", lambda l: l.histogram(T(l, X), 3, range=(3.0, 1.0)), True),
    ("histogram infinite range", lambda l: l.histogram(T(l, X), 3, range=(0.0, INF)), True),
    ("histogram NaN data", lambda l: l.histogram(T(l, [1.0, NAN, 2.0]), 3), True),
    ("histogram infinite data", lambda l: l.histogram(T(l, [1.0, INF, 2.0]), 3), True),
    ("combinations of a matrix", lambda l: l.combinations(l.ones(2, 2)), True),
    ("combinations of a 0-d tensor", lambda l: l.combinations(T(l, 1.0)), True),
    ("combinations r < 0", lambda l: l.combinations(l.ones(2), -1), True),
    ("combinations float r", lambda l: l.combinations(T(l, [1, 2, 3]), 2.0), False),
    ("vander of a matrix", lambda l: l.vander(l.ones(2, 2)), True),
    ("vander of a 0-d tensor", lambda l: l.vander(T(l, 2.0)), True),
    ("vander N < 0", lambda l: l.vander(l.ones(2), -1), True),
    *[(f"{w} negative length", lambda l, w=w: getattr(l, w)(-1), True) for w in WINDOWS],
    *[(f"{w} int dtype", lambda l, w=w: getattr(l, w)(4, dtype=l.int64), True) for w in WINDOWS],
    *[(f"{w} float length", lambda l, w=w: getattr(l, w)(3.0), True) for w in WINDOWS],
    *[(f"{w} int periodic", lambda l, w=w: getattr(l, w)(3, 1), True) for w in WINDOWS],
    ("hann_window int dtype requiring grad", lambda l: l.hann_window(3, dtype=l.int64, requires_grad=True), True),
    ("hamming_window alpha without periodic", lambda l: l.hamming_window(5, alpha=0.3), True),
    ("kaiser_window beta without periodic", lambda l: l.kaiser_window(5, beta=5.0), True),
]


@pytest.mark.parametrize("call, words", [pytest.param(c, w, id=i) for i, c, w in ERRORS])
def test_refusals_are_pytorchs(call: Callable[[Any], Any], words: bool) -> None:
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(mg)
    assert isinstance(ours.value, type(theirs.value)), (ours.value, theirs.value)
    if words:
        mine, pytorchs = _words(ours.value), _words(theirs.value)
        assert mine.startswith(pytorchs.removesuffix("but expected one of:").rstrip()), (mine, pytorchs)


def test_a_refused_call_changes_nothing() -> None:
    """An in-place refusal leaves the tensor's values and version as they were, and a refused call makes no node."""
    t = mg.tensor([6, 9], dtype=mg.int32)
    version = t._version
    for bad in (lambda: t.gcd_(mg.tensor([1.0, 2.0])), lambda: t.ldexp_(mg.tensor([1, 2])), lambda: t.i0_()):
        with pytest.raises(Exception):
            bad()
    assert t.tolist() == [6, 9] and t._version == version
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    row = x.reshape(1, 2)
    with mg.trace() as tr:
        for bad in (lambda: mg.histogram(x, 2, range=(3.0, 1.0)), lambda: mg.combinations(x, -1),
                    lambda: mg.unique_consecutive(row, dim=2), lambda: mg.vander(x, -1),
                    lambda: mg.ldexp(x, 2), lambda: mg.nextafter(x, mg.tensor([1.0, 2.0, 3.0]))):
            with pytest.raises(Exception):
                bad()
    assert not [e for e in tr.events if e.kind == "node.create"]


def test_the_integer_ops_have_no_node() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    assert not mg.isin(x, x).requires_grad
    assert not any(t.requires_grad for t in mg.unravel_index(mg.tensor([3]), (2, 2)))
    assert not mg.frexp(x).exponent.requires_grad
    values, inverse, counts = mg.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert values.requires_grad and not inverse.requires_grad and not counts.requires_grad
    assert type(values.grad_fn).__name__ == "UniqueConsecutiveBackward0"
    assert type(mg.histogram(x, 2).hist.grad_fn).__name__ == "NotImplemented"


def test_unravel_index_inverts_flattening() -> None:
    """Coordinates that index the flat position back, for a random shape (what a student uses it for)."""
    shape = (3, 4, 5)
    flat = mg.tensor(RNG.integers(0, 60, 20))
    coords = mg.unravel_index(flat, shape)
    back = (coords[0] * 20 + coords[1] * 5 + coords[2]).tolist()
    assert back == flat.tolist() and [re.sub("minigrad.", "", str(c.dtype)) for c in coords] == ["int64"] * 3
