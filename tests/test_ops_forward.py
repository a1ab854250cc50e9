"""Forward values of every op against NumPy references, and dtype behaviour (docs/pytorch-coverage.md: dtypes).

- ``FLOAT_CASES``: each op on random inputs in float16/float32/float64, compared
  with a NumPy (or plain-loop) reference computed in float64; the output dtype
  must be the input dtype.
- ``INT_CASES``: the ops that accept integers, exact results, integer dtypes kept.
- Promotion follows ``bool < int32 < int64 < float16 < float32 < float64``;
  Python scalars never widen a tensor (``2 * x``, ``10.0 / f``, ``1 + c``).
- Comparisons give bool tensors that never require grad.
"""

from __future__ import annotations

import itertools
import math
import zlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from strategies import ALL_DTYPE_NAMES

DTYPES = {"bool": mg.bool, "int32": mg.int32, "int64": mg.int64, "float16": mg.float16, "float32": mg.float32,
          "float64": mg.float64}
ORDER = list(ALL_DTYPE_NAMES)  # the promotion order, lowest first
TOL = {"float16": dict(rtol=2e-2, atol=2e-2), "float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-12, atol=1e-12)}

_erf = np.vectorize(math.erf, otypes=[np.float64])


# --- plain references (loops where NumPy has no one-liner) ---------------------------------


def ref_softmax(x: np.ndarray, dim: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def ref_log_softmax(x: np.ndarray, dim: int = -1) -> np.ndarray:
    return np.log(ref_softmax(x, dim))


def ref_cross_entropy(x: np.ndarray, t: np.ndarray, reduction: str = "mean") -> np.ndarray:
    nll = -ref_log_softmax(x, 1)[np.arange(len(t)), t]
    return {"none": nll, "sum": nll.sum(), "mean": nll.mean()}[reduction]


def ref_conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, stride=(1, 1), padding=(0, 0)) -> np.ndarray:
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    oh = (h + 2 * padding[0] - kh) // stride[0] + 1
    ow = (wd + 2 * padding[1] - kw) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride[0] : i * stride[0] + kh, j * stride[1] : j * stride[1] + kw]
            out[:, :, i, j] = np.einsum("nckl,ockl->no", patch, w)
    return out + (0 if b is None else b.reshape(1, -1, 1, 1))


def ref_conv2d_input_grad(g: np.ndarray, w: np.ndarray, x_shape, stride=(1, 1), padding=(0, 0)) -> np.ndarray:
    n, c, h, wd = x_shape
    _, _, kh, kw = w.shape
    dxp = np.zeros((n, c, h + 2 * padding[0], wd + 2 * padding[1]))
    for i in range(g.shape[2]):
        for j in range(g.shape[3]):
            dxp[:, :, i * stride[0] : i * stride[0] + kh, j * stride[1] : j * stride[1] + kw] += np.einsum(
                "no,ockl->nckl", g[:, :, i, j], w
            )
    return dxp[:, :, padding[0] : padding[0] + h, padding[1] : padding[1] + wd]


def ref_conv2d_weight_grad(x: np.ndarray, g: np.ndarray, w_shape, stride=(1, 1), padding=(0, 0)) -> np.ndarray:
    _, _, kh, kw = w_shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    dw = np.zeros(w_shape)
    for i in range(g.shape[2]):
        for j in range(g.shape[3]):
            patch = xp[:, :, i * stride[0] : i * stride[0] + kh, j * stride[1] : j * stride[1] + kw]
            dw += np.einsum("no,nckl->ockl", g[:, :, i, j], patch)
    return dw


def _pool_windows(x: np.ndarray, k, s, p):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0],) * 2, (p[1],) * 2), constant_values=-np.inf)
    oh, ow = (h + 2 * p[0] - k[0]) // s[0] + 1, (w + 2 * p[1] - k[1]) // s[1] + 1
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s[0] : i * s[0] + k[0], j * s[1] : j * s[1] + k[1]].reshape(n, c, -1)
            a = win.argmax(axis=-1)
            yield i, j, win, i * s[0] + a // k[1] - p[0], j * s[1] + a % k[1] - p[1]


def ref_max_pool2d(x: np.ndarray, k, s=None, p=(0, 0)) -> np.ndarray:
    k = (k, k) if isinstance(k, int) else k
    s = k if s is None else ((s, s) if isinstance(s, int) else s)
    p = (p, p) if isinstance(p, int) else p
    n, c = x.shape[:2]
    rows = list(_pool_windows(x, k, s, p))
    oh, ow = rows[-1][0] + 1, rows[-1][1] + 1
    out = np.zeros((n, c, oh, ow))
    for i, j, win, _, _ in rows:
        out[:, :, i, j] = win.max(axis=-1)
    return out


def ref_max_pool2d_grad(g: np.ndarray, x: np.ndarray, k, s, p) -> np.ndarray:
    dx = np.zeros_like(x)
    n, c = x.shape[:2]
    for i, j, _, r, q in _pool_windows(x, k, s, p):
        for a in range(n):
            for b in range(c):
                dx[a, b, r[a, b], q[a, b]] += g[a, b, i, j]
    return dx


def ref_max_pool2d_select(h: np.ndarray, x: np.ndarray, k, s, p) -> np.ndarray:
    n, c = x.shape[:2]
    rows = list(_pool_windows(x, k, s, p))
    out = np.zeros((n, c, rows[-1][0] + 1, rows[-1][1] + 1))
    for i, j, _, r, q in rows:
        for a in range(n):
            for b in range(c):
                out[a, b, i, j] = h[a, b, r[a, b], q[a, b]]
    return out


def ref_getitem_grad(g: np.ndarray, index, shape) -> np.ndarray:
    out = np.zeros(shape)
    np.add.at(out, index, g)
    return out


# --- float cases ------------------------------------------------------------------------


@dataclass
class FCase:
    id: str
    mg_fn: Callable[..., Any]
    ref: Callable[..., Any]
    shapes: tuple[tuple[int, ...], ...]
    low: float = -2.0
    high: float = 2.0
    half: bool = True  # also run in float16
    distinct: bool = False  # values far apart (argmax-based ops)


FLOAT_CASES = [
    FCase("add", lambda x, y: x + y, np.add, ((2, 3), (3,))),
    FCase("sub", lambda x, y: x - y, np.subtract, ((2, 1), (1, 3))),
    FCase("mul", lambda x, y: x * y, np.multiply, ((2, 3), (2, 3))),
    FCase("div", lambda x, y: x / y, np.divide, ((2, 3), (3,)), low=0.5, high=2.0),
    FCase("pow", lambda x, y: x ** y, np.power, ((2, 3), (2, 3)), low=0.5, high=2.0),
    FCase("neg", lambda x: -x, np.negative, ((4,),)),
    FCase("exp", mg.exp, np.exp, ((2, 3),)),
    FCase("log", mg.log, np.log, ((2, 3),), low=0.1, high=3.0),
    FCase("sqrt", mg.sqrt, np.sqrt, ((2, 3),), low=0.0, high=3.0),
    FCase("abs", mg.abs, np.abs, ((2, 3),)),
    FCase("sign", mg.sign, np.sign, ((2, 3),)),
    FCase("sin", mg.sin, np.sin, ((2, 3),)),
    FCase("cos", mg.cos, np.cos, ((2, 3),)),
    FCase("tanh", mg.tanh, np.tanh, ((2, 3),)),
    FCase("sigmoid", mg.sigmoid, lambda x: 1 / (1 + np.exp(-x)), ((2, 3),), low=-30, high=30),
    FCase("relu", mg.relu, lambda x: np.maximum(x, 0), ((2, 3),)),
    FCase("gelu", mg.gelu, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2))), ((2, 3),), low=-4, high=4),
    FCase("erf", mg.erf, _erf, ((2, 3),)),
    FCase("maximum", mg.maximum, np.maximum, ((2, 3), (3,))),
    FCase("minimum", mg.minimum, np.minimum, ((2, 3), (2, 1))),
    FCase("clip", lambda x: mg.clip(x, -0.5, 1.0), lambda x: np.clip(x, -0.5, 1.0), ((3, 3),)),
    FCase("clone", mg.clone, lambda x: x.copy(), ((3,),)),
    FCase("fill", lambda x: mg.fill(x, 1.5), lambda x: np.full_like(x, 1.5), ((2, 2),)),
    FCase("sum", mg.sum, np.sum, ((2, 3, 4),)),
    FCase("sum-dim-keepdim", lambda x: mg.sum(x, dim=(0, 2), keepdim=True),
          lambda x: np.sum(x, axis=(0, 2), keepdims=True), ((2, 3, 4),)),
    FCase("mean", lambda x: mg.mean(x, dim=-1), lambda x: np.mean(x, axis=-1), ((2, 3, 4),)),
    FCase("max", lambda x: mg.max(x, dim=1).values, lambda x: np.max(x, axis=1), ((2, 3, 4),)),
    FCase("min-all", mg.min, np.min, ((2, 3, 4),)),
    FCase("logsumexp", lambda x: mg.logsumexp(x, dim=0),
          lambda x: np.log(np.exp(x - x.max(0)).sum(0)) + x.max(0), ((3, 4),), low=-50, high=50, half=False),
    FCase("matmul-2d", mg.matmul, np.matmul, ((2, 3), (3, 4))),
    FCase("matmul-batched", mg.matmul, np.matmul, ((2, 1, 3, 4), (3, 4, 2))),
    FCase("matmul-1d", mg.matmul, np.matmul, ((3,), (2, 3, 4))),
    FCase("matmul-transpose", lambda x, y: mg.matmul(x, y, transpose_x=True, transpose_y=True),
          lambda x, y: np.swapaxes(x, -1, -2) @ np.swapaxes(y, -1, -2), ((2, 3, 2), (4, 3))),
    FCase("reshape", lambda x: x.reshape(4, -1), lambda x: x.reshape(4, -1), ((2, 3, 2),)),
    FCase("transpose", lambda x: mg.transpose(x, 0, 2), lambda x: np.swapaxes(x, 0, 2), ((2, 3, 4),)),
    FCase("permute", lambda x: x.permute(1, 2, 0), lambda x: x.transpose(1, 2, 0), ((2, 3, 4),)),
    FCase("expand", lambda x: x.expand(2, 3, 4), lambda x: np.broadcast_to(x, (2, 3, 4)), ((3, 1),)),
    FCase("squeeze", lambda x: mg.squeeze(x, 0), lambda x: x.squeeze(0), ((1, 3, 1),)),
    FCase("unsqueeze", lambda x: mg.unsqueeze(x, 1), lambda x: x[:, None], ((2, 3),)),
    FCase("concat", lambda a, b: mg.concat([a, b], dim=1), lambda a, b: np.concatenate([a, b], 1), ((2, 1), (2, 3))),
    FCase("stack", lambda a, b: mg.stack([a, b], dim=1), lambda a, b: np.stack([a, b], 1), ((2, 3), (2, 3))),
    FCase("getitem-mixed", lambda x: x[1:, None, [0, 2, 2]], lambda x: x[1:, None, [0, 2, 2]], ((3, 4),)),
    FCase("getitem-step", lambda x: x[::2, -1], lambda x: x[::2, -1], ((5, 4),)),
    FCase("getitem-bool", lambda x: x[x > 0], lambda x: x[x > 0], ((3, 4),)),
    FCase("softmax", lambda x: mg.softmax(x, dim=0), lambda x: ref_softmax(x, 0), ((3, 4),)),
    FCase("log_softmax", mg.log_softmax, ref_log_softmax, ((3, 4),), low=-30, high=30),
    FCase("mse_loss", mg.mse_loss, lambda a, b: np.mean((a - b) ** 2), ((3, 4), (3, 4))),
    FCase("mse_loss-none", lambda a, b: mg.mse_loss(a, b, reduction="none"), lambda a, b: (a - b) ** 2,
          ((3, 4), (3, 4))),
    FCase("conv2d", lambda x, w, b: mg.conv2d(x, w, b, stride=(2, 1), padding=1),
          lambda x, w, b: ref_conv2d(x, w, b, (2, 1), (1, 1)), ((2, 3, 5, 4), (4, 3, 3, 2), (4,))),
    FCase("conv2d_input_grad", lambda g, w: mg.conv2d_input_grad(g, w, (2, 2, 5, 5), 2, 1),
          lambda g, w: ref_conv2d_input_grad(g, w, (2, 2, 5, 5), (2, 2), (1, 1)), ((2, 3, 3, 3), (3, 2, 3, 3))),
    FCase("conv2d_weight_grad", lambda x, g: mg.conv2d_weight_grad(x, g, (3, 2, 3, 3), 2, 1),
          lambda x, g: ref_conv2d_weight_grad(x, g, (3, 2, 3, 3), (2, 2), (1, 1)), ((2, 2, 5, 5), (2, 3, 3, 3))),
    FCase("max_pool2d", lambda x: mg.max_pool2d(x, (3, 2), stride=(2, 1), padding=1),
          lambda x: ref_max_pool2d(x, (3, 2), (2, 1), (1, 1)), ((2, 2, 6, 5),), distinct=True),
    FCase("max_pool2d_grad", lambda g, x: mg.max_pool2d_grad(g, x, (2, 2), (1, 1), (1, 1)),
          lambda g, x: ref_max_pool2d_grad(g, x, (2, 2), (1, 1), (1, 1)), ((1, 2, 5, 5), (1, 2, 4, 4)),
          distinct=True),
    FCase("max_pool2d_select", lambda h, x: mg.max_pool2d_select(h, x, (2, 2), (1, 1), (1, 1)),
          lambda h, x: ref_max_pool2d_select(h, x, (2, 2), (1, 1), (1, 1)), ((1, 2, 4, 4), (1, 2, 4, 4)),
          distinct=True),
    FCase("getitem_grad", lambda g: mg.getitem_grad(g, ([0, 2, 0],), (3, 2)),
          lambda g: ref_getitem_grad(g, ([0, 2, 0],), (3, 2)), ((3, 2),)),
]


def _make_array(rng: np.random.Generator, shape, case: FCase) -> np.ndarray:
    if case.distinct:
        n = int(np.prod(shape))
        return ((rng.permutation(n) - n / 2) * 0.25).reshape(shape)
    return rng.uniform(case.low, case.high, size=shape)


@pytest.mark.parametrize(
    "case,dtype",
    [pytest.param(c, d, id=f"{c.id}-{d}") for c in FLOAT_CASES for d in ("float16", "float32", "float64")
     if c.half or d != "float16"],
)
def test_float_forward_matches_numpy(case: FCase, dtype: str) -> None:
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    arrays = [_make_array(rng, s, case).astype(dtype) for s in case.shapes]
    out = case.mg_fn(*[mg.tensor(a) for a in arrays])
    expected = np.asarray(case.ref(*[a.astype(np.float64) for a in arrays]))
    assert out.dtype is DTYPES[dtype]
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.numpy().astype(np.float64), expected, **TOL[dtype])


def test_cross_entropy_forward_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 4)) * 3
    t = rng.integers(0, 4, size=5)
    for reduction in ("mean", "sum", "none"):
        out = mg.cross_entropy(mg.tensor(x), mg.tensor(t), reduction=reduction)
        np.testing.assert_allclose(out.numpy(), ref_cross_entropy(x, t, reduction), rtol=1e-12)
        assert out.shape == ((5,) if reduction == "none" else ())


def test_softmax_and_logsumexp_are_stable_for_large_inputs() -> None:
    x = mg.tensor([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -1000.0]], dtype=mg.float32)
    np.testing.assert_allclose(mg.softmax(x).numpy()[0], ref_softmax(np.array([0.0, 1.0, 2.0])), rtol=1e-6)
    np.testing.assert_allclose(mg.logsumexp(x, dim=1).numpy(), [1002 + math.log(1 + math.exp(-1) + math.exp(-2)),
                                                               -1000 + math.log(3)], rtol=1e-6)
    assert np.all(np.isfinite(mg.log_softmax(x).numpy()))
    assert np.all(np.isfinite(mg.sigmoid(mg.tensor([-800.0, 800.0], dtype=mg.float64)).numpy()))


# --- integer cases ----------------------------------------------------------------------

INT_CASES = [
    ("add", lambda x, y: x + y, np.add),
    ("sub", lambda x, y: x - y, np.subtract),
    ("mul", lambda x, y: x * y, np.multiply),
    ("pow", lambda x, y: x ** mg.abs(y), lambda x, y: x ** np.abs(y)),
    ("maximum", mg.maximum, np.maximum),
    ("minimum", mg.minimum, np.minimum),
    ("neg", lambda x, y: -x, lambda x, y: -x),
    ("abs", lambda x, y: mg.abs(x), lambda x, y: np.abs(x)),
    ("sign", lambda x, y: mg.sign(x), lambda x, y: np.sign(x)),
    ("relu", lambda x, y: mg.relu(x), lambda x, y: np.maximum(x, 0)),
    ("clip", lambda x, y: mg.clip(x, -2, 3), lambda x, y: np.clip(x, -2, 3)),
    ("max", lambda x, y: mg.max(x, dim=0).values, lambda x, y: x.max(0)),
    ("min", lambda x, y: mg.min(x), lambda x, y: x.min()),
    ("matmul", lambda x, y: x @ y.T, lambda x, y: x @ y.T),
    ("where", lambda x, y: mg.where(x > y, x, y), lambda x, y: np.where(x > y, x, y)),
    ("getitem", lambda x, y: x[[1, 0], ::2], lambda x, y: x[[1, 0], ::2]),
    ("concat", lambda x, y: mg.concat([x, y], 0), lambda x, y: np.concatenate([x, y], 0)),
]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("name,fn,ref", INT_CASES, ids=[c[0] for c in INT_CASES])
def test_int_forward_is_exact_and_keeps_dtype(name: str, fn: Any, ref: Any, dtype: str) -> None:
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    x = rng.integers(-5, 6, size=(2, 3)).astype(dtype)
    y = rng.integers(-5, 6, size=(2, 3)).astype(dtype)
    out = fn(mg.tensor(x), mg.tensor(y))
    expected = np.asarray(ref(x, y))
    assert out.dtype is DTYPES[dtype]
    np.testing.assert_array_equal(out.numpy(), expected)


def test_int_sum_gives_int64_and_true_division_gives_float32() -> None:
    x = mg.tensor([[1, 2], [3, 4]], dtype=mg.int32)
    assert mg.sum(x).dtype is mg.int64 and mg.sum(x).item() == 10
    assert mg.sum(mg.tensor([True, True, False])).item() == 2
    q = x / 2
    assert q.dtype is mg.float32
    np.testing.assert_array_equal(q.numpy(), [[0.5, 1.0], [1.5, 2.0]])
    assert (x / x).dtype is mg.float32


@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "erf", "gelu"])
def test_float_only_unary_ops_promote_integers_to_float32(op: str) -> None:
    """Regression: these ops gave a float64 kernel result that InferMeta called int64 (an internal error)."""
    x = np.array([1, 2, 3])
    out = getattr(mg, op)(mg.tensor(x))
    assert out.dtype is mg.float32
    np.testing.assert_allclose(out.numpy(), getattr(mg, op)(mg.tensor(x.astype(np.float32))).numpy())


def test_mean_of_integers_is_refused() -> None:
    with pytest.raises((RuntimeError, ValueError), match="mean"):
        mg.mean(mg.tensor([1, 2, 3]))


def test_stack_output_shape_has_one_entry_per_tensor() -> None:
    """Regression: stack's InferMeta said (1, 2, 3) for three (2, 3) tensors; the kernel gave (3, 2, 3)."""
    xs = [mg.tensor(np.full((2, 3), i, dtype=np.float32)) for i in range(3)]
    for dim in (0, 1, 2, -1):
        out = mg.stack(xs, dim=dim)
        np.testing.assert_array_equal(out.numpy(), np.stack([x.numpy() for x in xs], axis=dim))


# --- promotion ------------------------------------------------------------------------------


@pytest.mark.parametrize("a,b", list(itertools.product(ORDER, ORDER)), ids=lambda d: d)
def test_binary_promotion_follows_the_total_order(a: str, b: str) -> None:
    expected = ORDER[max(ORDER.index(a), ORDER.index(b))]
    x = mg.tensor(np.array([1, 0, 1]).astype(a))
    y = mg.tensor(np.array([1, 1, 0]).astype(b))
    for op in (mg.add, mg.mul, mg.maximum, mg.minimum):
        out = op(x, y)
        assert out.dtype is DTYPES[expected], (op, a, b)
        np.testing.assert_array_equal(
            out.numpy(), getattr(np, {"add": "add", "mul": "multiply"}.get(op.name, op.name))(
                x.numpy().astype(expected), y.numpy().astype(expected))
        )
    if "bool" not in (a, b):
        assert mg.sub(x, y).dtype is DTYPES[expected]


def test_bool_arithmetic_is_logical_as_in_pytorch() -> None:
    a, b = mg.tensor([True, False, False]), mg.tensor([True, True, False])
    assert (a + b).tolist() == [True, True, False]
    assert (a * b).tolist() == [True, False, False]
    assert (a * True).dtype is mg.bool
    with pytest.raises(RuntimeError, match="^Subtraction, the `-` operator, with two bool tensors is not supported"):
        a - b


@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "float32", "float64"])
def test_python_scalars_keep_the_tensor_dtype(dtype: str) -> None:
    x = mg.tensor(np.array([1, 2, 4]).astype(dtype))
    for out in (2 * x, x * 2, x + 1, 1 + x, x - 1, 3 - x, x ** 2, mg.maximum(x, 0), mg.where(x > 1, x, 0)):
        assert out.dtype is DTYPES[dtype]
    np.testing.assert_array_equal((1 + x).numpy(), np.array([2, 3, 5]).astype(dtype))
    np.testing.assert_array_equal((3 - x).numpy(), np.array([2, 1, -1]).astype(dtype))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_scalar_with_float_tensor_keeps_its_dtype(dtype: str) -> None:
    f = mg.tensor(np.array([1.0, 2.0, 4.0]).astype(dtype))
    for out in (10.0 / f, f / 10.0, 2.5 * f, f + 0.5, 0.5 ** f):
        assert out.dtype is DTYPES[dtype]
    np.testing.assert_allclose((10.0 / f).numpy(), [10.0, 5.0, 2.5])


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64"])
def test_float_scalar_with_integer_tensor_gives_float32(dtype: str) -> None:
    c = mg.tensor(np.array([1, 0, 1]).astype(dtype))
    for out in (c * 2.5, 2.5 * c, c + 0.5, 10.0 / mg.tensor([1, 2, 4])):
        assert out.dtype is mg.float32
    np.testing.assert_allclose((c * 2.5).numpy(), [2.5, 0.0, 2.5])


def test_int_scalar_with_bool_tensor_gives_int64() -> None:
    c = mg.tensor([True, False])
    assert (c + 1).dtype is mg.int64 and (c + 1).tolist() == [2, 1]


def test_scalar_never_widens_a_float16_tensor() -> None:
    h = mg.tensor([1.0, 2.0], dtype=mg.float16)
    assert (h * 1e-3).dtype is mg.float16 and (1 + h).dtype is mg.float16


# --- comparisons --------------------------------------------------------------------------


@pytest.mark.parametrize("name,op,ref", [
    ("eq", lambda a, b: a == b, np.equal), ("ne", lambda a, b: a != b, np.not_equal),
    ("lt", lambda a, b: a < b, np.less), ("le", lambda a, b: a <= b, np.less_equal),
    ("gt", lambda a, b: a > b, np.greater), ("ge", lambda a, b: a >= b, np.greater_equal),
])
def test_comparisons_give_bool_without_grad(name: str, op: Any, ref: Any) -> None:
    a = mg.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    b = mg.tensor([[2.0], [2.0]], requires_grad=True)
    out = op(a, b)
    assert out.dtype is mg.bool and out.shape == (2, 3)
    assert out.requires_grad is False and out.grad_fn is None
    np.testing.assert_array_equal(out.detach().numpy(), ref(a.detach().numpy(), b.detach().numpy()))
    np.testing.assert_array_equal(op(a, 2.0).detach().numpy(), ref(a.detach().numpy(), 2.0))
    np.testing.assert_array_equal(op(mg.tensor([1, 2, 3]), mg.tensor([2.5, 2.0, 1.0])).numpy(),
                                  ref(np.array([1, 2, 3]), np.array([2.5, 2.0, 1.0])))


def test_integer_and_bool_results_never_require_grad() -> None:
    x = mg.tensor([1.5, -2.5], requires_grad=True)
    assert mg.cast(x, mg.int64).requires_grad is False
    assert mg.cast(x, mg.int64).tolist() == [1, -2]
    assert mg.sign(x).requires_grad is True  # float result: in the graph (its gradient is 0)


def test_cast_between_dtypes() -> None:
    x = mg.tensor([1.7, -1.2, 0.0])
    assert mg.cast(x, mg.int32).tolist() == [1, -1, 0]
    assert mg.cast(x, "bool").tolist() == [True, True, False]
    assert x.double().dtype is mg.float64 and x.half().dtype is mg.float16 and x.long().dtype is mg.int64


@pytest.mark.parametrize("dtype", ["int32", "float16", "float64"])
def test_where_scalar_takes_the_dtype_of_the_other_branch(dtype: str) -> None:
    """Regression: the scalar was wrapped in the *condition's* dtype (bool), so
    ``where(c, int32_x, 0)`` gave int64 and ``where(c, f16, 0.5)`` float32."""
    x = mg.tensor(np.array([1, 2, 3]).astype(dtype))
    cond = mg.tensor([True, False, True])
    assert mg.where(cond, x, 0).dtype is DTYPES[dtype]
    assert mg.where(cond, 1, x).dtype is DTYPES[dtype]
    if dtype != "int32":
        assert mg.where(cond, x, 0.5).dtype is DTYPES[dtype]
    assert mg.where(cond, 1.0, 0.0).dtype is mg.float32
    assert mg.where(cond, 1.0, 0.0).tolist() == [1.0, 0.0, 1.0]


def test_clip_integer_tensor_with_float_bounds_gives_float32() -> None:
    """Regression: the result stayed int64 and truncated, so clip([0, 5], 1.5, 2.5) gave [1, 2]
    (1 is below the lower bound). PyTorch promotes to float32: [1.5, 2.5]."""
    out = mg.clip(mg.tensor([0, 5]), 1.5, 2.5)
    assert out.dtype is mg.float32 and out.tolist() == [1.5, 2.5]
    kept = mg.clip(mg.tensor([0, 5], dtype=mg.int32), 1, 2)
    assert kept.dtype is mg.int32 and kept.tolist() == [1, 2]
    assert mg.clip(mg.tensor([0.5, 5.0], dtype=mg.float16), 1, 2).dtype is mg.float16


ZERO_D_OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b, "maximum": mg.maximum, "minimum": mg.minimum, "neg": lambda a, b: -a,
    "abs": lambda a, b: mg.abs(a), "sign": lambda a, b: mg.sign(a), "exp": lambda a, b: mg.exp(a),
    "log": lambda a, b: mg.log(a), "sqrt": lambda a, b: mg.sqrt(a), "sin": lambda a, b: mg.sin(a),
    "cos": lambda a, b: mg.cos(a), "tanh": lambda a, b: mg.tanh(a), "sigmoid": lambda a, b: mg.sigmoid(a),
    "relu": lambda a, b: mg.relu(a), "gelu": lambda a, b: mg.gelu(a), "erf": lambda a, b: mg.erf(a),
    "clip": lambda a, b: mg.clip(a, 0.0, 0.5), "where": lambda a, b: mg.where(a > b, a, b),
    "softmax": lambda a, b: mg.softmax(a), "log_softmax": lambda a, b: mg.log_softmax(a),
    "mse_loss-none": lambda a, b: mg.mse_loss(a, b, reduction="none"), "eq": lambda a, b: a == b,
}


@pytest.mark.parametrize("dtype", ["float16", "float64"])
@pytest.mark.parametrize("name", list(ZERO_D_OPS))
def test_0d_inputs_give_0d_array_tensors_that_can_be_written(name: str, dtype: str) -> None:
    """Regression: ufuncs returned NumPy scalars for 0-d inputs (in-place ops then failed with
    "'numpy.float32' object does not support item assignment"); erf/gelu crashed on 0-d input."""
    a = mg.tensor(1.5, dtype=DTYPES[dtype])
    b = mg.tensor(0.5, dtype=DTYPES[dtype])
    out = ZERO_D_OPS[name](a, b)
    assert out.shape == () and isinstance(out._data, np.ndarray)
    before = out.item()
    out.add_(True if out.dtype is mg.bool else 1)
    assert out.version == 1 and out.item() == pytest.approx(before + 1 if out.dtype is not mg.bool else True, abs=2e-3)


@pytest.mark.parametrize("scalar", [np.float32(2.0), np.float64(2.0), np.int32(2), np.int64(2)],
                         ids=lambda v: type(v).__name__)
def test_numpy_scalars_work_like_python_numbers(scalar: Any) -> None:
    """Regression: ``x * np.float32(2)`` raised TypeError (only np.float64, a float subclass, worked)."""
    f = mg.tensor([1.0, 2.0], dtype=mg.float16)
    for out in (f * scalar, scalar * f, f - scalar, scalar / f, mg.maximum(f, scalar)):
        assert out.dtype is mg.float16
    np.testing.assert_allclose((scalar * f).numpy(), [2.0, 4.0])
    i = mg.tensor([1, 2], dtype=mg.int32)
    expected = mg.int32 if isinstance(scalar, np.integer) else mg.float32
    assert (i + scalar).dtype is expected
