"""The view scatters, masked_scatter, put, nanmedian, nanquantile, pdist, renorm, chain_matmul and the torch.* forms
of functions minigrad had elsewhere (matrix_power, hardshrink, threshold, threshold_, kl_div, adjoint,
channel_shuffle, celu_, selu_, frobenius_norm), each against PyTorch: values, dtypes, shapes, ``grad_fn`` names,
gradients, errors (class and words), and that a refused call leaves no node and no changed tensor.

(tests/test_ops_grad.py checks their formulas against finite differences, tests/test_grad_fn_names.py their whole
graphs, tests/test_conformance.py PyTorch's OpInfo samples of those that have one.)
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 5))
NAN_X = X.copy()
NAN_X[0, 1], NAN_X[2, :], NAN_X[3, [0, 4]] = np.nan, np.nan, np.nan
MASK = RNG.random((4, 5)) > 0.5
SRC = RNG.standard_normal((3, 8))
ROWS = RNG.standard_normal((6, 3))
ROWS[4] = ROWS[1]  # two equal rows: a zero distance, whose gradient is 0
BAT = RNG.standard_normal((2, 6, 3))


def _name(t: Any) -> str | None:
    fn = t.grad_fn
    if fn is None:
        return None
    return fn.name() if callable(getattr(fn, "name", None)) else type(fn).__name__


def _both(fn: Callable[..., Any], *arrays: np.ndarray, grad: bool = True) -> None:
    """``fn(lib, *tensors)`` under both libraries: the outputs' values, dtypes, shapes and ``grad_fn`` names, then
    the gradients of a weighted sum of the floating outputs, equal."""
    results = []
    for lib in (torch, mg):
        leaves = [lib.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
        out = fn(lib, *leaves)
        outs = list(out) if isinstance(out, tuple) else [out]
        loss = None
        for k, o in enumerate(outs):
            if o.requires_grad:
                w = lib.tensor(np.arange(o.numel(), dtype=np.float64).reshape(tuple(o.shape)) + k + 1)
                term = (o * w.to(o.dtype)).nansum() if o.dtype.is_floating_point else None
                loss = term if loss is None else loss + term
        if loss is not None:
            loss.backward()
        results.append(([(o.detach().numpy(), str(o.dtype).split(".")[-1], tuple(o.shape), _name(o)) for o in outs],
                        [None if t.grad is None else t.grad.numpy() for t in leaves]))
    (want, want_grads), (got, got_grads) = results
    for (wv, wd, ws, wn), (gv, gd, gs, gn) in zip(want, got):
        assert (gd, gs, gn) == (wd, ws, wn)
        np.testing.assert_allclose(gv, wv, rtol=1e-12, atol=1e-12, equal_nan=True)
    for wg, gg in zip(want_grads, got_grads):
        assert (wg is None) == (gg is None)
        if wg is not None:
            np.testing.assert_allclose(gg, wg, rtol=1e-10, atol=1e-12)


# -- the calls, each run under both libraries -------------------------------------------------------------------

CALLS: dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]] = {
    "slice_scatter": (lambda lib, x, s: lib.slice_scatter(x, s, dim=1, start=-4, end=100, step=2), (X, SRC[:2, :4].T)),
    "slice_scatter default": (lambda lib, x, s: x.slice_scatter(s), (X[:2], SRC[:2, :5])),
    "select_scatter": (lambda lib, x, s: lib.select_scatter(x, s, -1, -2), (X, SRC[0, :4])),
    "select_scatter 1-d": (lambda lib, x, s: x.select_scatter(s, 0, 3), (X[0], np.array(2.5))),
    "diagonal_scatter": (lambda lib, x, s: lib.diagonal_scatter(x, s, 1), (X, SRC[0, :4])),
    "diagonal_scatter dims": (lambda lib, x, s: x.diagonal_scatter(s, -1, 2, 0), (BAT, SRC[:3, :4].reshape(6, 2))),
    "masked_scatter": (lambda lib, x, s: lib.masked_scatter(x, lib.tensor(MASK), s), (X, SRC)),
    "masked_scatter broadcast": (lambda lib, x, s: x[1].masked_scatter(lib.tensor(MASK), s), (X, SRC)),
    "masked_scatter ints": (lambda lib, x: lib.masked_scatter(x, x > 2, lib.tensor([7, 8, 9])),
                            (np.arange(6).reshape(2, 3),)),
    "put": (lambda lib, x, s: lib.put(x, lib.tensor([[0, -1], [7, 12]]), s), (X, SRC[0, :4].reshape(2, 2))),
    "put accumulate": (lambda lib, x, s: x.put(lib.tensor([3, 3, -17, 3]), s, accumulate=True), (X, SRC[1, :4])),
    "put of a transposed input": (lambda lib, x, s: x.t().put(lib.tensor([1, 6]), s), (X, SRC[1, :2])),
    "nanmedian": (lambda lib, x: x.nanmedian(), (NAN_X,)),
    "nanmedian of nan only": (lambda lib, x: lib.nanmedian(x[2]), (NAN_X,)),
    "nanmedian dim": (lambda lib, x: tuple(lib.nanmedian(x, 1)), (NAN_X,)),
    "nanmedian dim keepdim": (lambda lib, x: tuple(x.nanmedian(dim=0, keepdim=True)), (NAN_X,)),
    "nanmedian ties": (lambda lib, x: tuple(lib.nanmedian(x, -1)), (np.array([[3.0, 1.0, 3.0, 1.0, np.nan]] * 2),)),
    "nanmedian of a number": (lambda lib, x: tuple(lib.nanmedian(x, 0)), (np.array(2.5),)),
    "nanmedian of ints": (lambda lib, x: (lib.nanmedian(x), *lib.nanmedian(x, 0)), (np.array([[4, 1, 4], [2, 9, 0]]),)),
    "median (unchanged)": (lambda lib, x: tuple(lib.median(x, 1)), (NAN_X,)),
    "nanquantile": (lambda lib, x: lib.nanquantile(x, 0.3), (NAN_X,)),
    "nanquantile dim": (lambda lib, x: x.nanquantile(0.75, dim=1, keepdim=True), (NAN_X,)),
    "nanquantile q tensor": (lambda lib, x, q: lib.nanquantile(x, q, 0, interpolation="midpoint"),
                             (NAN_X, np.array([0.0, 0.4, 1.0]))),
    "nanquantile nearest": (lambda lib, x: lib.nanquantile(x, 0.5, -1, interpolation="nearest"), (NAN_X,)),
    "nanquantile lower": (lambda lib, x: lib.nanquantile(x, 0.62, 1, interpolation="lower"), (NAN_X,)),
    "nanquantile higher of a number": (lambda lib, x: lib.nanquantile(x, 0.62, 0, interpolation="higher"),
                                       (np.array(1.5),)),
    "quantile with nan": (lambda lib, x: x.quantile(0.3, dim=1), (NAN_X,)),
    "quantile q gradient": (lambda lib, x, q: lib.quantile(x, q, 1), (X, np.array([0.2, 0.9]))),
    "pdist": (lambda lib, x: lib.pdist(x), (ROWS,)),
    **{f"pdist p={p}": ((lambda p: lambda lib, x: lib.nn.functional.pdist(x, p))(p), (ROWS,))
       for p in (0, 0.5, 1, 1.5, 3, float("inf"))},
    "pdist of one row": (lambda lib, x: lib.pdist(x[:1]), (ROWS,)),
    "renorm": (lambda lib, x: lib.renorm(x, 2, 0, 1.5), (X,)),
    "renorm p1 dim -1": (lambda lib, x: x.renorm(1, -1, 1.0), (BAT,)),
    "renorm inf": (lambda lib, x: x.renorm(float("inf"), 1, 0.5), (BAT,)),
    "renorm_ of a non-leaf": (lambda lib, x: (x * 2).renorm_(3, 0, 1.0), (X,)),
    "chain_matmul": (lambda lib, a, b, c, d: lib.chain_matmul(a, b, c, d),
                     (X, RNG.standard_normal((5, 2)), RNG.standard_normal((2, 6)), RNG.standard_normal((6, 1)))),
    "chain_matmul of two": (lambda lib, a, b: lib.chain_matmul(a, b), (X, RNG.standard_normal((5, 2)))),
    "chain_matmul of one": (lambda lib, a: lib.chain_matmul(a), (X,)),
    "matrix_power": (lambda lib, a: lib.matrix_power(a, 4), (RNG.standard_normal((2, 3, 3)),)),
    "matrix_power inverse": (lambda lib, a: lib.matrix_power(a, -2), (RNG.standard_normal((3, 3)) + 3 * np.eye(3),)),
    "hardshrink": (lambda lib, x: lib.hardshrink(x, 0.7), (X,)),
    "threshold": (lambda lib, x: lib.threshold(x, 0.1, -3.0), (X,)),
    "threshold ints": (lambda lib, x: lib.threshold(x, 2, 9), (np.arange(5),)),
    "threshold_": (lambda lib, x: lib.threshold_(x * 1, 0.1, -3.0), (X,)),
    "celu_": (lambda lib, x: lib.celu_(x * 1, 0.5), (X,)),
    "selu_": (lambda lib, x: lib.selu_(x * 1), (X,)),
    **{f"kl_div reduction={r}": ((lambda r: lambda lib, x, t: lib.kl_div(x, t, r))(r), (X, np.abs(X[::-1]).copy()))
       for r in (0, 1, 2, 3)},
    "kl_div default": (lambda lib, x, t: lib.kl_div(x, t), (X, np.abs(X))),
    "kl_div log_target": (lambda lib, x, t: lib.kl_div(x, t, 2, log_target=True), (X, X[::-1].copy())),
    "adjoint": (lambda lib, x: lib.adjoint(x), (BAT,)),
    "adjoint method": (lambda lib, x: x.adjoint() * 2, (X,)),
    "channel_shuffle": (lambda lib, x: lib.channel_shuffle(x, 3), (BAT,)),
    "channel_shuffle 4-d": (lambda lib, x: lib.nn.functional.channel_shuffle(x.reshape(1, 6, 2, 3), 2), (BAT,)),
    "ChannelShuffle": (lambda lib, x: lib.nn.ChannelShuffle(2)(x), (BAT,)),
    "frobenius_norm": (lambda lib, x: lib.frobenius_norm(x, (0, 2), True), (BAT,)),
    "frobenius_norm of no dim": (lambda lib, x: lib.frobenius_norm(x, []), (BAT,)),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_matches_pytorch(name: str) -> None:
    fn, arrays = CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (chain_matmul's and frobenius_norm's deprecations: their own test below)
        _both(fn, *arrays)


def test_the_scatters_write_their_source_where_pytorch_writes_it() -> None:
    """The values themselves, on a tensor of distinct integers (no float rounding to hide a misplaced write)."""
    x, s = np.arange(20).reshape(4, 5), np.arange(100, 110)
    for lib_fn in (lambda lib: lib.slice_scatter(lib.tensor(x), lib.tensor(s[:8]).reshape(4, 2), 1, 1, 5, 2),
                   lambda lib: lib.select_scatter(lib.tensor(x), lib.tensor(s[:4]), 1, 2),
                   lambda lib: lib.diagonal_scatter(lib.tensor(x), lib.tensor(s[:3]), 2),
                   lambda lib: lib.masked_scatter(lib.tensor(x), lib.tensor(MASK), lib.tensor(s)),
                   lambda lib: lib.put(lib.tensor(x), lib.tensor([0, 19, 7]), lib.tensor(s[:3]))):
        assert lib_fn(mg).tolist() == lib_fn(torch).tolist()


# -- errors: PyTorch's class and words, and nothing changed ------------------------------------------------------

ERRORS: dict[str, Callable[[Any], Any]] = {
    "slice_scatter shape": lambda lib: lib.slice_scatter(lib.zeros(4, 5), lib.zeros(4, 3), 1, 0, 2),
    "slice_scatter step": lambda lib: lib.slice_scatter(lib.zeros(4, 5), lib.zeros(4, 0), 1, 0, None, 0),
    "slice_scatter dim": lambda lib: lib.slice_scatter(lib.zeros(4, 5), lib.zeros(4, 5), 2),
    "slice_scatter 0-d": lambda lib: lib.slice_scatter(lib.tensor(1.0), lib.tensor(2.0)),
    "select_scatter shape": lambda lib: lib.select_scatter(lib.zeros(4, 5), lib.zeros(4), 0, 1),
    "select_scatter index": lambda lib: lib.select_scatter(lib.zeros(4, 5), lib.zeros(5), 0, 7),
    "select_scatter 0-d": lambda lib: lib.select_scatter(lib.tensor(1.0), lib.tensor(2.0), 0, 0),
    "diagonal_scatter shape": lambda lib: lib.diagonal_scatter(lib.zeros(4, 5), lib.zeros(5)),
    "diagonal_scatter same dims": lambda lib: lib.diagonal_scatter(lib.zeros(4, 5), lib.zeros(4), 0, 1, 1),
    "diagonal_scatter 1-d": lambda lib: lib.diagonal_scatter(lib.zeros(3), lib.zeros(3)),
    "masked_scatter source too small": lambda lib: lib.masked_scatter(lib.zeros(4, 5), lib.ones(4, 5, dtype=lib.bool),
                                                                      lib.zeros(3)),
    "masked_scatter mask dtype": lambda lib: lib.masked_scatter(lib.zeros(4, 5), lib.ones(4, 5), lib.zeros(30)),
    "masked_scatter source dtype": lambda lib: lib.masked_scatter(lib.zeros(4, 5, dtype=lib.float64),
                                                                  lib.ones(4, 5, dtype=lib.bool), lib.zeros(30)),
    "masked_scatter broadcast": lambda lib: lib.masked_scatter(lib.zeros(4, 5), lib.ones(3, dtype=lib.bool),
                                                               lib.zeros(30)),
    "masked_scatter_ mask too big": lambda lib: lib.zeros(5).masked_scatter_(lib.ones(4, 5, dtype=lib.bool),
                                                                             lib.zeros(30)),
    "masked_scatter_ mask mismatch": lambda lib: lib.zeros(2, 5).masked_scatter_(lib.ones(4, 1, dtype=lib.bool),
                                                                                 lib.zeros(30)),
    "put count": lambda lib: lib.put(lib.zeros(5), lib.tensor([1, 2]), lib.tensor([1.0, 2.0, 3.0])),
    "put out of range": lambda lib: lib.put(lib.zeros(5), lib.tensor([1, 7]), lib.tensor([1.0, 2.0])),
    "put out of range below": lambda lib: lib.zeros(5).put(lib.tensor([1, -7]), lib.tensor([1.0, 2.0])),
    "put int32 index": lambda lib: lib.put(lib.zeros(5), lib.tensor([1, 2], dtype=lib.int32), lib.tensor([1.0, 2.0])),
    "put source dtype": lambda lib: lib.put(lib.zeros(5), lib.tensor([1, 2]), lib.tensor([1.0, 2.0], dtype=lib.float64)),
    "put into nothing": lambda lib: lib.put(lib.zeros(0), lib.tensor([1]), lib.tensor([1.0])),
    "nanmedian dim of nothing": lambda lib: lib.nanmedian(lib.zeros(2, 0), 1),
    "nanmedian dim": lambda lib: lib.nanmedian(lib.zeros(2, 3), 2),
    "nanquantile ints": lambda lib: lib.nanquantile(lib.arange(3), 0.5),
    "nanquantile q": lambda lib: lib.nanquantile(lib.zeros(3), 1.5),
    "nanquantile q tensor range": lambda lib: lib.nanquantile(lib.zeros(3), lib.tensor([0.5, -0.5])),
    "nanquantile q 2-d": lambda lib: lib.nanquantile(lib.zeros(3), lib.tensor([[0.5]])),
    "nanquantile q dtype": lambda lib: lib.nanquantile(lib.zeros(3), lib.tensor([0.5], dtype=lib.float64)),
    "nanquantile interpolation": lambda lib: lib.nanquantile(lib.zeros(3), 0.5, interpolation="foo"),
    "nanquantile empty": lambda lib: lib.nanquantile(lib.zeros(0), 0.5),
    "nanquantile dim": lambda lib: lib.nanquantile(lib.zeros(2, 3), 0.5, dim=2),
    "quantile q": lambda lib: lib.quantile(lib.zeros(3), -0.1),
    "pdist 1-d": lambda lib: lib.pdist(lib.zeros(4)),
    "pdist 3-d": lambda lib: lib.pdist(lib.zeros(2, 4, 3)),
    "pdist p": lambda lib: lib.pdist(lib.zeros(4, 3), -1),
    "pdist ints": lambda lib: lib.pdist(lib.arange(6).reshape(2, 3)),
    "renorm p": lambda lib: lib.renorm(lib.zeros(2, 2), 0, 0, 1.0),
    "renorm maxnorm": lambda lib: lib.renorm(lib.zeros(2, 2), 2, 0, -1.0),
    "renorm 1-d": lambda lib: lib.renorm(lib.zeros(4), 2, 0, 1.0),
    "renorm dim": lambda lib: lib.renorm(lib.zeros(2, 2), 2, 3, 1.0),
    "renorm ints": lambda lib: lib.renorm(lib.arange(4).reshape(2, 2), 2, 0, 1.0),
    "chain_matmul of none": lambda lib: lib.chain_matmul(),
    "chain_matmul 1-d": lambda lib: lib.chain_matmul(lib.zeros(3), lib.zeros(3, 2)),
    "chain_matmul shapes": lambda lib: lib.chain_matmul(lib.zeros(3, 2), lib.zeros(3, 2)),
    "matrix_power 1-d": lambda lib: lib.matrix_power(lib.zeros(3), 2),
    "matrix_power not square": lambda lib: lib.matrix_power(lib.zeros(2, 3), 2),
    "kl_div ints": lambda lib: lib.kl_div(lib.arange(3), lib.arange(3)),
    "adjoint 1-d": lambda lib: lib.adjoint(lib.zeros(3)),
    "channel_shuffle 2-d": lambda lib: lib.channel_shuffle(lib.zeros(2, 4), 2),
    "channel_shuffle groups": lambda lib: lib.channel_shuffle(lib.zeros(2, 4, 3), 0),
    "channel_shuffle divisible": lambda lib: lib.nn.functional.channel_shuffle(lib.zeros(2, 5, 3), 2),
    "frobenius_norm dims": lambda lib: lib.frobenius_norm(lib.zeros(2, 2, 2), (0, 1, 2)),
    "frobenius_norm ints": lambda lib: lib.frobenius_norm(lib.arange(4).reshape(2, 2), (0,)),
}


def _error(fn: Callable[[Any], Any], lib: Any) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            fn(lib)
    return info.value


@pytest.mark.parametrize("name", list(ERRORS))
def test_refuses_as_pytorch(name: str) -> None:
    want, got = _error(ERRORS[name], torch), _error(ERRORS[name], mg)
    assert isinstance(got, type(want)), (type(got), type(want), got)
    assert str(got).split("\n")[0] == str(want).split("\n")[0]


@pytest.mark.parametrize("method, args", [
    ("masked_scatter_", lambda: (mg.ones(4, 5, dtype=mg.bool), mg.zeros(3, dtype=mg.float64))),
    ("put_", lambda: (mg.tensor([1, 70]), mg.tensor([1.0, 2.0], dtype=mg.float64))),
    ("renorm_", lambda: (0, 0, 1.0)),
])
def test_a_refused_in_place_call_changes_nothing(method: str, args: Callable[[], tuple[Any, ...]]) -> None:
    """The tensor keeps its values, its version and its node (a refused call leaves no half-built state)."""
    x = mg.tensor(X, requires_grad=True) * 1
    before, version, node = x.detach().numpy().copy(), x._version, x.grad_fn
    with pytest.raises(Exception):
        getattr(x, method)(*args())
    assert x._version == version and x.grad_fn is node
    np.testing.assert_array_equal(x.detach().numpy(), before)


# -- in place: through views, the version counter, a leaf ---------------------------------------------------------


@pytest.mark.parametrize("method, args", [
    ("masked_scatter_", lambda lib: (lib.tensor(MASK[1]), lib.tensor(SRC[0]))),
    ("put_", lambda lib: (lib.tensor([4, 0]), lib.tensor(SRC[0, :2]))),
    ("renorm_", lambda lib: (2, 1, 0.5)),
])
def test_in_place_through_a_view_as_pytorch(method: str, args: Callable[[Any], tuple[Any, ...]]) -> None:
    """Written through a view of a non-leaf: the base sees it, its version moves, and the gradient reaching the
    leaf is PyTorch's."""
    results = []
    for lib in (torch, mg):
        leaf = lib.tensor(X, requires_grad=True)
        base = leaf * 3
        view = base[1:3] if method == "renorm_" else base[1]
        version = base._version
        getattr(view, method)(*args(lib))
        assert base._version == version + 1
        (base * lib.tensor(X)).sum().backward()
        results.append((base.detach().numpy(), leaf.grad.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("call", [lambda lib, x: x.masked_scatter_(lib.tensor(MASK), lib.tensor(SRC)),
                                  lambda lib, x: x.put_(lib.tensor([0]), lib.tensor([1.0], dtype=lib.float64)),
                                  lambda lib, x: x.renorm_(2, 0, 1.0),
                                  lambda lib, x: lib.threshold_(x, 0.0, 1.0),
                                  lambda lib, x: lib.celu_(x)])
def test_in_place_on_a_leaf_that_requires_grad_is_refused(call: Callable[..., Any]) -> None:
    want = _error(lambda lib: call(lib, lib.tensor(X, requires_grad=True)), torch)
    got = _error(lambda lib: call(lib, lib.tensor(X, requires_grad=True)), mg)
    assert isinstance(got, type(want)) and str(got) == str(want)


def test_a_saved_input_changed_in_place_is_refused_in_backward() -> None:
    """renorm saves its input: changing that input afterwards makes backward refuse, as PyTorch's."""
    for lib in (torch, mg):
        x = lib.tensor(X, requires_grad=True) * 1
        y = lib.renorm(x, 2, 0, 1.0)
        x.add_(1)
        with pytest.raises(RuntimeError, match="modified by an in-?place operation"):
            y.sum().backward()


# -- second derivatives, deprecation warnings, the return types ---------------------------------------------------


def test_pdist_gradient_has_no_derivative_as_in_pytorch() -> None:
    for lib in (torch, mg):
        x = lib.tensor(ROWS, requires_grad=True)
        (g,) = lib.autograd.grad(lib.pdist(x).sum(), [x], create_graph=True)
        assert _name(g) == "PdistBackwardBackward0"
        with pytest.raises(NotImplementedError, match="the derivative for '_pdist_backward' is not implemented."):
            g.sum().backward()


@pytest.mark.parametrize("call", [lambda lib, x, s: lib.masked_scatter(x, lib.tensor(MASK), s).sin(),
                                  lambda lib, x, s: lib.put(x, lib.tensor([3, 1]), s[0, :2]).sin(),
                                  lambda lib, x, s: lib.slice_scatter(x, s[:, :4].T[:, :2].sin(), 1, 1, 3).sin()])
def test_second_derivatives_as_pytorch(call: Callable[..., Any]) -> None:
    grads = []
    for lib in (torch, mg):
        x, s = lib.tensor(X, requires_grad=True), lib.tensor(SRC, requires_grad=True)
        gx, gs = lib.autograd.grad(call(lib, x, s).sum(), [x, s], create_graph=True)
        grads.append([t.numpy() for t in lib.autograd.grad((gx * gx).sum() + (gs * gs).sum(), [x, s])])
    for w, g in zip(*grads):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


#: PyTorch's words (TORCH_WARN_ONCE: PyTorch itself may have warned already in this process, so they are kept here)
CHAIN_MATMUL = ("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                "parameters.")
FROBENIUS = ("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
             "future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead")


@pytest.mark.parametrize("module, flag, words, call", [
    ("blas", "_CHAIN_MATMUL_WARNED", CHAIN_MATMUL, lambda lib: lib.chain_matmul(lib.ones(2, 2), lib.ones(2, 2))),
    ("norm", "_FROBENIUS_WARNED", FROBENIUS, lambda lib: lib.frobenius_norm(lib.ones(2, 2), (0,))),
])
def test_deprecation_warned_once_in_pytorch_words(module: str, flag: str, words: str, call: Callable[[Any], Any]) -> None:
    """The first call of the process warns (PyTorch's words, less its C++ source line), later calls do not."""
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        call(torch)
    assert all(str(w.message).split(" (Triggered internally")[0] == words for w in theirs)
    state = getattr(sys.modules[f"minigrad.ops.{module}"], flag)
    state[0] = False
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        call(mg)
        call(mg)
    assert [(str(w.message), w.category) for w in ours] == [(words, UserWarning)]


def test_nanmedian_returns_pytorchs_named_tuple() -> None:
    got = mg.nanmedian(mg.tensor([[1.0, float("nan"), 3.0]]), 1)
    assert type(got) is mg.return_types.nanmedian and got._fields == ("values", "indices")
    assert repr(got).startswith("minigrad.return_types.nanmedian(\nvalues=tensor([1.]),")


def test_channel_shuffle_module_repr() -> None:
    assert repr(mg.nn.ChannelShuffle(3)) == repr(torch.nn.ChannelShuffle(3))
