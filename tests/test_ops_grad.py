"""Every op's backward formula against float64 central finite differences (docs/pytorch-coverage.md).

Each row of ``CASES`` is one op (or one variant of an op: broadcasting, a
``dim``/``keepdim`` choice, transposes, an indexing form ...). Inputs are
random float64 values chosen away from the points where the op is not
differentiable (ties of max/min/maximum, 0 for abs/relu, the bounds of
clip, equal maxima in a pooling window). ``test_every_op_has_a_gradient_case``
fails when an op with a backward formula is added to ``mg.OPS`` without a row.

The second-order test checks, for every row, that the backward formula is
itself differentiable (``create_graph=True``) and correct: finite
differences of the analytic first derivative.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from gradcheck import GradcheckError, gradcheck, gradgradcheck

F64 = mg.float64


@dataclass
class Case:
    id: str
    op: str  # the mg.OPS name this case covers
    fn: Callable[..., Any]
    make: Callable[[np.random.Generator], list[Any]]
    atol: float = 1e-5
    rtol: float = 1e-4
    eps: float = 1e-6
    second_order: bool = True  # False where PyTorch's gradient has no derivative (its backward raises)


def T(a: Any, requires_grad: bool = True) -> mg.Tensor:
    return mg.tensor(np.asarray(a, dtype=np.float64), dtype=F64, requires_grad=requires_grad)


def rnd(*shape: int, low: float = -2.0, high: float = 2.0, rg: bool = True) -> Callable[[np.random.Generator], mg.Tensor]:
    return lambda rng: T(rng.uniform(low, high, size=shape), rg)


def away(*shape: int, lo: float = 0.3, hi: float = 2.0) -> Callable[[np.random.Generator], mg.Tensor]:
    """Values with |v| in [lo, hi] and random sign (away from 0)."""
    return lambda rng: T(rng.uniform(lo, hi, size=shape) * rng.choice([-1.0, 1.0], size=shape))


def distinct(*shape: int, rg: bool = True) -> Callable[[np.random.Generator], mg.Tensor]:
    """Values at least 0.1 apart from each other (no ties within reach of eps)."""

    def make(rng: np.random.Generator) -> mg.Tensor:
        n = int(np.prod(shape)) if shape else 1
        vals = (rng.permutation(n) - n / 2) * 0.1 + rng.uniform(-0.02, 0.02, size=n)
        return T(vals.reshape(shape), rg)

    return make


def _spd(a: mg.Tensor) -> mg.Tensor:
    """A symmetric positive-definite matrix made of ``a`` (for the factorizations that need one)."""
    return a @ a.mT + mg.eye(a.shape[-1], dtype=a.dtype)


def inputs(*makers: Callable[[np.random.Generator], Any]) -> Callable[[np.random.Generator], list[Any]]:
    return lambda rng: [m(rng) for m in makers]


def pair_apart(shape_x: tuple[int, ...], shape_y: tuple[int, ...]) -> Callable[[np.random.Generator], list[Any]]:
    """x and y (broadcastable) whose broadcast values differ by at least 0.2 everywhere."""

    def make(rng: np.random.Generator) -> list[Any]:
        y = rng.uniform(-1, 1, size=shape_y)
        out_shape = np.broadcast_shapes(shape_x, shape_y)
        # x must differ from every y it meets: pick x per element away from the y range it broadcasts against.
        x = rng.uniform(0.2, 1.0, size=shape_x) * rng.choice([-1.0, 1.0], size=shape_x)
        x = np.where(x > 0, x + 1.0, x - 1.0)  # |x| >= 1.2 > max|y| + 0.2
        assert np.broadcast_shapes(x.shape, y.shape) == out_shape
        return [T(x), T(y)]

    return make


def const(value: Any) -> Callable[[np.random.Generator], Any]:
    return lambda rng: value


def cls_target(n: int, c: int) -> Callable[[np.random.Generator], mg.Tensor]:
    return lambda rng: mg.tensor(rng.integers(0, c, size=n), dtype=mg.int64)


def pool_input(*shape: int) -> Callable[[np.random.Generator], mg.Tensor]:
    return distinct(*shape)


def _gamma_cdf(a: float, x: float) -> float:
    """The regularized lower incomplete gamma ``P(a, x)``: its series below ``a + 1``, else one minus Legendre's
    continued fraction (Lentz's method)."""
    a, x = float(a), float(x)
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        for n in range(1, 500):
            term *= x / (a + n)
            total += term
        return total * math.exp(log_front)
    tiny = 1e-300  # Lentz's guard against a zero denominator
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for n in range(1, 500):
        an = -n * (n - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
    return 1 - math.exp(log_front) * h


def gamma_at_fixed_cdf(alpha: mg.Tensor, u: mg.Tensor) -> mg.Tensor:
    """Standard gamma draws whose values are the inverse CDF at ``u`` (found by bisection): finite differences
    then see ``dx/dalpha`` with the draw held at its CDF value, the reparameterized gradient that
    ``_standard_gamma``'s backward gives (its draw, seeded, is the one ``u`` was taken from)."""
    drawn = mg._standard_gamma(alpha, generator=mg.Generator().manual_seed(0))
    exact = []
    for a, p in zip(alpha.detach().numpy().reshape(-1), u.numpy().reshape(-1)):
        lo, hi = 1e-12, 200.0
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if _gamma_cdf(a, mid) < p else (lo, mid)
        exact.append((lo + hi) / 2)
    return drawn + (T(np.reshape(exact, alpha.shape), requires_grad=False) - drawn.detach())


def gamma_cdf_inputs(rng: np.random.Generator) -> list[mg.Tensor]:
    """Concentrations and the CDF values of their seeded draws (the inputs of ``gamma_at_fixed_cdf``)."""
    alpha = T(rng.uniform(0.6, 6.0, size=(2, 3)))
    drawn = mg._standard_gamma(alpha.detach(), generator=mg.Generator().manual_seed(0)).numpy()
    u = [_gamma_cdf(a, x) for a, x in zip(alpha.detach().numpy().reshape(-1), drawn.reshape(-1))]
    return [alpha, T(np.reshape(u, (2, 3)), requires_grad=False)]


def sample_grid(n: int, out: tuple[int, ...], spatial: tuple[int, ...], align: bool = False,
                outside: int = 1) -> Callable[[np.random.Generator], mg.Tensor]:
    """A ``grid_sample`` grid ``(n, *out, k)`` whose pixel positions lie 0.1-0.4 or 0.6-0.9 past an integer
    (up to ``outside`` pixels past the input): away from the kinks of bilinear and bicubic weights, of the
    border's clip and of the reflections (at integers and, without ``align_corners``, at half pixels)."""

    def make(rng: np.random.Generator) -> mg.Tensor:
        cols = []
        for size in reversed(spatial):  # the grid's x runs along the last dim
            pos = (rng.integers(-outside, size + outside, size=(n,) + out) + rng.uniform(0.1, 0.4, size=(n,) + out)
                   + rng.choice([0.0, 0.5], size=(n,) + out))
            cols.append(2 * pos / (size - 1) - 1 if align else (2 * pos + 1) / size - 1)
        return T(np.stack(cols, -1))

    return make


def _sampler(dims: int, mode: int, padding: int, align: bool) -> Callable[..., Any]:
    return lambda x, g: mg.OPS[f"grid_sampler_{dims}d"](x, g, mode, padding, align)


def _sampler_backward(dims: int, mode: int, padding: int, align: bool) -> Callable[..., Any]:
    return lambda go, x, g: mg.OPS[f"grid_sampler_{dims}d_backward"](go, x, g, mode, padding, align, (True, True))



# --- the table -------------------------------------------------------------------------

CASES: list[Case] = [
    # arithmetic, with broadcasting and Python scalars on either side
    Case("add-same", "add", lambda x, y: x + y, inputs(rnd(3, 4), rnd(3, 4))),
    Case("add-broadcast", "add", lambda x, y: mg.add(x, y), inputs(rnd(2, 3, 1), rnd(3, 4))),
    Case("add-scalar-right", "add", lambda x: x + 2.5, inputs(rnd(3))),
    Case("add-scalar-left", "add", lambda x: 2.5 + x, inputs(rnd(3))),
    Case("add-0d", "add", lambda x, y: x + y, inputs(rnd(), rnd(2, 2))),
    Case("sub-broadcast", "sub", lambda x, y: x - y, inputs(rnd(4, 1), rnd(3))),
    Case("sub-scalar-left", "sub", lambda x: 1.0 - x, inputs(rnd(3))),
    Case("mul-broadcast", "mul", lambda x, y: x * y, inputs(rnd(3, 1), rnd(1, 4))),
    Case("mul-same-tensor", "mul", lambda x: x * x, inputs(rnd(5))),
    Case("mul-scalar-left", "mul", lambda x: 2 * x, inputs(rnd(3))),
    Case("div-broadcast", "div", lambda x, y: x / y, inputs(rnd(2, 3), away(3))),
    Case("div-scalar-left", "div", lambda x: mg.div(10.0, x), inputs(away(4))),
    Case("reciprocal", "reciprocal", mg.reciprocal, inputs(away(4))),
    Case("reciprocal-scalar-left", "reciprocal", lambda x: 10.0 / x, inputs(away(4))),  # reciprocal(x) * 10
    Case("div-scalar-right", "div", lambda x: x / 4, inputs(rnd(4))),
    Case("pow-tensor", "pow", lambda x, y: x ** y, inputs(rnd(2, 3, low=0.3, high=2.0), rnd(3))),
    Case("pow-scalar-exp", "pow", lambda x: x ** 3, inputs(rnd(4))),
    Case("pow-scalar-base", "pow", lambda x: 2.0 ** x, inputs(rnd(4))),
    Case("pow-negative-base-int-exp", "pow", lambda x: mg.pow(x, 2.0), inputs(away(4))),
    Case("neg", "neg", lambda x: -x, inputs(rnd(2, 3))),
    # unary math and activations
    Case("exp", "exp", mg.exp, inputs(rnd(2, 3))),
    Case("log", "log", mg.log, inputs(rnd(2, 3, low=0.2, high=3.0))),
    Case("sqrt", "sqrt", mg.sqrt, inputs(rnd(2, 3, low=0.2, high=3.0))),
    Case("abs", "abs", mg.abs, inputs(away(2, 3))),
    Case("sign", "sign", mg.sign, inputs(away(2, 3))),
    Case("sin", "sin", mg.sin, inputs(rnd(2, 3))),
    Case("cos", "cos", mg.cos, inputs(rnd(2, 3))),
    Case("tanh", "tanh", mg.tanh, inputs(rnd(2, 3))),
    Case("sigmoid", "sigmoid", mg.sigmoid, inputs(rnd(2, 3, low=-5, high=5))),
    Case("relu", "relu", mg.relu, inputs(away(2, 3))),
    Case("gelu", "gelu", mg.gelu, inputs(rnd(2, 3, low=-3, high=3))),
    Case("gelu_tanh", "gelu_tanh", lambda x: mg.nn.functional.gelu(x, approximate="tanh"), inputs(rnd(2, 3, low=-3, high=3))),
    Case("softplus", "softplus", mg.softplus, inputs(rnd(2, 3, low=-3, high=3))),
    Case("softplus-beta-threshold", "softplus", lambda x: mg.softplus(x, beta=2.0, threshold=3.0),
         inputs(rnd(2, 3, low=-3, high=3))),
    Case("erf", "erf", mg.erf, inputs(rnd(2, 3))),
    Case("log1p", "log1p", mg.log1p, inputs(rnd(2, 3, low=-0.8, high=3.0))),
    Case("expm1", "expm1", mg.expm1, inputs(rnd(2, 3))),
    Case("floor", "floor", lambda x: mg.floor(x) * x, inputs(rnd(2, 3))),
    Case("ceil", "ceil", lambda x: mg.ceil(x) + x, inputs(rnd(2, 3))),
    Case("trunc", "trunc", lambda x: mg.trunc(x) * x, inputs(rnd(2, 3))),
    Case("round", "round", lambda x: mg.round(x) * x, inputs(rnd(2, 3))),
    Case("round-decimals", "round", lambda x: mg.round(x, decimals=1) * x, inputs(rnd(2, 3))),
    Case("maximum-broadcast", "maximum", mg.maximum, pair_apart((2, 3), (3,))),
    Case("maximum-scalar", "maximum", lambda x: mg.maximum(x, 0.0), inputs(away(5))),
    Case("minimum-broadcast", "minimum", mg.minimum, pair_apart((3, 1), (3, 4))),
    Case("minimum-scalar", "minimum", lambda x: mg.minimum(0.0, x), inputs(away(5))),
    Case("where", "where", lambda c, x, y: mg.where(c, x, y),
         inputs(lambda rng: mg.tensor(rng.random((2, 3)) > 0.5), rnd(2, 3), rnd(3))),
    Case("where-broadcast-cond", "where", lambda c, x, y: mg.where(c, x, y),
         inputs(lambda rng: mg.tensor(np.array([True, False, True])), rnd(2, 1), rnd(2, 3))),
    Case("where-scalar", "where", lambda x: mg.where(x > 0, x, 0.0), inputs(away(6))),
    Case("masked_fill", "masked_fill", lambda x: x.masked_fill(mg.tensor([[True, False, True], [False, False, True]]), 0.5),
         inputs(rnd(2, 3))),
    Case("masked_fill-broadcast", "masked_fill", lambda x: x.masked_fill(mg.tensor([[True], [False]]), -1.0),
         inputs(rnd(3))),
    Case("masked_fill_tensor", "masked_fill_tensor",
         lambda x, v: x.masked_fill(mg.tensor([[True, False, True], [False, False, True]]), v), inputs(rnd(2, 3), rnd())),
    Case("masked_select", "masked_select", lambda x: x.masked_select(mg.tensor([True, False, True])), inputs(rnd(2, 3))),
    Case("index_select", "index_select", lambda x: x.index_select(1, mg.tensor([3, 0, 3])), inputs(rnd(2, 4))),
    Case("index_select-0d", "index_select", lambda x: mg.index_select(x, 0, mg.tensor([0])) * x, inputs(rnd())),
    Case("index_put", "index_put", lambda x, v: x.index_put((mg.tensor([2, 0]),), v), inputs(rnd(3, 4), rnd(2, 4))),
    Case("index_put-broadcast", "index_put", lambda x, v: mg.index_put(x, (mg.tensor([0, 1]), mg.tensor([3, 1])), v),
         inputs(rnd(2, 4), rnd())),
    Case("index_put-accumulate", "index_put", lambda x, v: x.index_put((mg.tensor([1, 1, 0]),), v, accumulate=True),
         inputs(rnd(3, 2), rnd(2))),
    Case("index_put-mask", "index_put", lambda x, v: x.index_put((mg.tensor([True, False, True]),), v),
         inputs(rnd(3, 2), rnd(1, 2))),
    Case("setitem-mask-number", "index_put", lambda x: _set(x * 1, x > 0, 0.5) * x, inputs(rnd(3, 4))),
    Case("tril", "tril", lambda x: x.tril(), inputs(rnd(2, 3, 4))),
    Case("tril-offset", "tril", lambda x: mg.tril(x, -1), inputs(rnd(4, 3))),
    Case("triu-offset", "triu", lambda x: x.triu(1), inputs(rnd(3, 4))),
    Case("clip-both", "clip", lambda x: mg.clip(x, -0.5, 0.5),
         inputs(lambda rng: T(np.array([-1.3, -0.7, -0.3, 0.0, 0.2, 0.45, 0.6, 1.8])))),
    Case("clip-min-only", "clip", lambda x: mg.clip(x, min=0.1), inputs(lambda rng: T([-1.0, 0.0, 0.5, 2.0]))),
    Case("clip-max-only", "clip", lambda x: x.clamp(max=0.1), inputs(lambda rng: T([-1.0, 0.0, 0.5, 2.0]))),
    Case("cast-f64-f32-f64", "cast", lambda x: mg.cast(mg.cast(x, mg.float32), F64), inputs(rnd(2, 3)),
         eps=1e-2, atol=1e-3, rtol=1e-3),
    Case("cast-f64-f64", "cast", lambda x: mg.cast(x, F64) * 3, inputs(rnd(3))),
    Case("clone", "clone", lambda x: mg.clone(x) * x, inputs(rnd(2, 3))),
    Case("to_copy", "to_copy", lambda x: x.to(memory_format=mg.channels_last) * x, inputs(rnd(2, 3, 2, 2))),
    Case("fill", "fill", lambda x: mg.fill(x, 3.0) + x, inputs(rnd(2, 3))),
    # the in-place fills and copy_ (their old values get no gradient; fill_'s 0-d value and copy_'s src do)
    Case("zero_", "zero_", lambda x: (x * 2).zero_() + x, inputs(rnd(2, 3))),
    Case("fill_", "fill_", lambda x: (x * 2).fill_(3.0) * x, inputs(rnd(2, 3))),
    Case("fill_-tensor", "fill_tensor_", lambda x, v: (x * 2).fill_(v * v) * x, inputs(rnd(2, 3), rnd())),
    Case("copy_-broadcast", "copy_", lambda x, s: (x * 2).copy_(s) * x, inputs(rnd(2, 3), rnd(3))),
    Case("copy_-into-no-grad", "copy_", lambda s: mg.zeros(2, 3, dtype=F64).copy_(s * s), inputs(rnd(2, 3))),
    # the in-place comparisons (x.eq_(y)): zero gradients, to x and to a broadcast y (the product keeps x's own)
    *(Case(f"{name}-tensor", name, (lambda n: lambda x, y: getattr(x * 2, n)(y) * x + y)(name), inputs(rnd(2, 3), rnd(3)))
      for name in ("eq_", "ne_", "lt_", "le_", "gt_", "ge_")),
    Case("lt_-number", "lt_", lambda x: (x * 2).lt_(0.5) * x, inputs(rnd(2, 3))),
    Case("ge_-float32-other", "ge_", lambda x, y: (x * 2).ge_(y.float()) * x, inputs(rnd(2, 3), rnd(2, 3))),
    # reductions
    Case("sum-all", "sum", mg.sum, inputs(rnd(2, 3, 4))),
    Case("sum-dim0", "sum", lambda x: mg.sum(x, dim=0), inputs(rnd(2, 3, 4))),
    Case("sum-dim-neg-keepdim", "sum", lambda x: x.sum(dim=-1, keepdim=True), inputs(rnd(2, 3, 4))),
    Case("sum-dims-tuple", "sum", lambda x: mg.sum(x, dim=(0, 2)), inputs(rnd(2, 3, 4))),
    Case("sum-0d", "sum", mg.sum, inputs(rnd())),
    Case("mean-all", "mean", mg.mean, inputs(rnd(2, 3, 4))),
    Case("mean-dim1-keepdim", "mean", lambda x: mg.mean(x, dim=1, keepdim=True), inputs(rnd(2, 3, 4))),
    Case("mean-dims-tuple", "mean", lambda x: mg.mean(x, dim=(-1, 0)), inputs(rnd(2, 3, 4))),
    Case("max-all", "max", mg.max, inputs(distinct(3, 4))),
    # max/min with dim pick each value at its index (PyTorch's rule for ties): the max_values/min_values ops
    Case("max-dim1", "max_values", lambda x: mg.max(x, dim=1), inputs(distinct(3, 4))),
    Case("max-dim0-of-1d", "max_values", lambda x: x.max(dim=0).values, inputs(distinct(5))),
    Case("max-dim0-keepdim", "max_values", lambda x: x.max(dim=0, keepdim=True), inputs(distinct(3, 4))),
    Case("min-all", "min", mg.min, inputs(distinct(3, 4))),
    Case("min-dims-tuple", "min", lambda x: mg.min(x, dim=(0, 2)), inputs(distinct(2, 3, 4))),
    Case("min-dim-neg-keepdim", "min_values", lambda x: mg.min(x, dim=-1, keepdim=True), inputs(distinct(3, 4))),
    Case("var-all", "var", mg.var, inputs(rnd(3, 4))),
    Case("var-dim1-correction0", "var", lambda x: mg.var(x, dim=1, correction=0), inputs(rnd(2, 3, 4))),
    Case("var-dims-keepdim", "var", lambda x: mg.var(x, dim=(0, -1), keepdim=True), inputs(rnd(2, 3, 4))),
    Case("std-all", "std", mg.std, inputs(rnd(3, 4))),
    Case("std-dim0", "std", lambda x: mg.std(x, dim=0), inputs(rnd(3, 4))),
    Case("std-dim-correction2-keepdim", "std", lambda x: mg.std(x, dim=-1, correction=2, keepdim=True),
         inputs(rnd(2, 5))),
    Case("logsumexp-all", "logsumexp", mg.logsumexp, inputs(rnd(3, 4))),
    Case("logsumexp-dim1", "logsumexp", lambda x: mg.logsumexp(x, dim=1), inputs(rnd(3, 4))),
    Case("logsumexp-dim0-keepdim", "logsumexp", lambda x: mg.logsumexp(x, dim=0, keepdim=True), inputs(rnd(3, 4))),
    Case("logsumexp-large", "logsumexp", lambda x: mg.logsumexp(x, dim=-1), inputs(rnd(2, 3, low=500, high=502))),
    # matmul
    Case("matmul-1d-1d", "matmul", mg.matmul, inputs(rnd(4), rnd(4))),
    Case("matmul-1d-2d", "matmul", mg.matmul, inputs(rnd(3), rnd(3, 5))),
    Case("matmul-2d-1d", "matmul", mg.matmul, inputs(rnd(2, 3), rnd(3))),
    Case("matmul-2d-2d", "matmul", lambda x, y: x @ y, inputs(rnd(2, 3), rnd(3, 4))),
    Case("t-2d", "t", mg.t, inputs(rnd(2, 3))),
    Case("t-1d", "t", mg.t, inputs(rnd(3))),
    Case("addmm", "addmm", mg.addmm, inputs(rnd(4), rnd(3, 2), rnd(2, 4))),
    Case("addmm-scaled-row", "addmm", lambda i, a, b: mg.addmm(i, a, b, beta=0.5, alpha=-2.0),
         inputs(rnd(1, 4), rnd(3, 2), rnd(2, 4))),
    Case("matmul-batched-2d", "matmul", mg.matmul, inputs(rnd(2, 3, 4), rnd(4, 5))),
    Case("matmul-batched-broadcast", "matmul", mg.matmul, inputs(rnd(2, 1, 3, 4), rnd(3, 4, 2))),
    Case("matmul-1d-batched", "matmul", mg.matmul, inputs(rnd(3), rnd(2, 3, 4))),
    Case("matmul-batched-1d", "matmul", mg.matmul, inputs(rnd(2, 3, 4), rnd(4))),
    Case("matmul-transpose-x", "matmul", lambda x, y: mg.matmul(x, y, transpose_x=True), inputs(rnd(3, 2), rnd(3, 4))),
    Case("matmul-transpose-y", "matmul", lambda x, y: mg.matmul(x, y, transpose_y=True), inputs(rnd(2, 3), rnd(4, 3))),
    Case("matmul-transpose-both-batched", "matmul", lambda x, y: mg.matmul(x, y, transpose_x=True, transpose_y=True),
         inputs(rnd(2, 3, 2), rnd(1, 4, 3))),
    Case("matmul-transpose-x-1d-y", "matmul", lambda x, y: mg.matmul(x, y, transpose_x=True), inputs(rnd(3, 2), rnd(3))),
    Case("matmul-1d-x-transpose-y", "matmul", lambda x, y: mg.matmul(x, y, transpose_y=True), inputs(rnd(3), rnd(4, 3))),
    # shape ops
    Case("reshape", "reshape", lambda x: x.reshape(3, -1), inputs(rnd(2, 3, 2))),
    Case("reshape-0d", "reshape", lambda x: mg.reshape(x, (1, 1)), inputs(rnd())),
    Case("reshape-alias", "reshape", lambda x: x[:, :2].reshape(2, 4), inputs(rnd(2, 3, 2))),
    Case("reshape-copy", "unsafe_view", lambda x: x.transpose(0, 2).reshape(-1), inputs(rnd(2, 3, 2))),
    Case("view", "view", lambda x: x.view(3, -1), inputs(rnd(2, 3, 2))),
    Case("squeeze_", "squeeze_", lambda x: (x * 1).squeeze_(1), inputs(rnd(3, 1, 2))),
    Case("unsqueeze_", "unsqueeze_", lambda x: (x * 1).unsqueeze_(-1), inputs(rnd(3, 2))),
    Case("t_", "t_", lambda x: (x * 1).t_(), inputs(rnd(3, 2))),
    Case("transpose_", "transpose_", lambda x: (x * 1).transpose_(0, 2), inputs(rnd(2, 3, 2))),
    Case("matmul-vector-matrix", "squeeze_", lambda x, y: x @ y, inputs(rnd(3), rnd(3, 4))),
    Case("matmul-folded", "unsafe_view", lambda x, y: x @ y, inputs(rnd(2, 3, 4), rnd(4, 2))),
    Case("matmul-folded-transposed", "unsafe_view", lambda x, y: x @ y, inputs(rnd(3, 4), rnd(2, 4, 2))),
    Case("matmul-batched-broadcast", "unsafe_view", lambda x, y: x @ y, inputs(rnd(2, 1, 3, 4), rnd(3, 4, 2))),
    Case("matmul-batched-vector", "unsafe_view", lambda x, y: x @ y, inputs(rnd(4), rnd(2, 4, 3))),
    Case("view-of-transpose", "view", lambda x: x.transpose(0, 1).view(3, 2, 2), inputs(rnd(2, 3, 2))),
    Case("transpose", "transpose", lambda x: mg.transpose(x, 0, -1), inputs(rnd(2, 3, 4))),
    Case("transpose-T", "permute", lambda x: x.T, inputs(rnd(2, 3))),
    Case("permute", "permute", lambda x: x.permute(2, 0, 1), inputs(rnd(2, 3, 4))),
    Case("permute-negative", "permute", lambda x: mg.permute(x, (-1, 0, -2)), inputs(rnd(2, 3, 4))),
    Case("expand", "expand", lambda x: x.expand(2, 3, 4), inputs(rnd(3, 1))),
    Case("expand-minus-one", "expand", lambda x: mg.expand(x, (2, -1, 4)), inputs(rnd(3, 1))),
    Case("squeeze-all", "squeeze", mg.squeeze, inputs(rnd(1, 3, 1))),
    Case("squeeze-dim", "squeeze", lambda x: mg.squeeze(x, 2), inputs(rnd(1, 3, 1))),
    Case("unsqueeze", "unsqueeze", lambda x: mg.unsqueeze(x, -1), inputs(rnd(2, 3))),
    Case("concat-dim1", "concat", lambda a, b, c: mg.concat([a, b, c], dim=1),
         inputs(rnd(2, 1), rnd(2, 3, rg=False), rnd(2, 2))),
    Case("concat-neg-dim-same-tensor", "concat", lambda a: mg.concat([a, a * 2], dim=-1), inputs(rnd(2, 3))),
    Case("stack", "stack", lambda a, b: mg.stack([a, b], dim=1), inputs(rnd(2, 3), rnd(2, 3))),
    # split/unbind: one node with an output per piece; a piece with no gradient is filled with zeros
    Case("split", "split", lambda x: x.split(2, 1), inputs(rnd(3, 5))),
    Case("split-some-pieces", "split", lambda x: x.split(2, -1)[::2], inputs(rnd(3, 6))),
    Case("split-one-piece", "split", lambda x: x.split(4, 0)[0] * 2, inputs(rnd(3, 2))),
    Case("chunk-dim0", "split", lambda x: x.chunk(2)[1], inputs(rnd(5, 2))),
    Case("split-with-sizes", "split_with_sizes", lambda x: x.split([1, 0, 3], 1), inputs(rnd(2, 4))),
    Case("split-with-sizes-last", "split_with_sizes", lambda x: mg.split_with_sizes(x, [2, 1], -1)[1] ** 2,
         inputs(rnd(2, 3))),
    # unsafe_split: split's pieces, not views to autograd; a piece may change in place (the RNN cells' gates)
    Case("unsafe_split", "unsafe_split", lambda x: x.unsafe_split(2, 1), inputs(rnd(3, 5))),
    Case("unsafe_chunk-in-place", "unsafe_split", lambda x: tuple(p.sigmoid_() for p in (x * 1).unsafe_chunk(3, -1)),
         inputs(rnd(2, 6))),
    Case("unsafe_split_with_sizes", "unsafe_split_with_sizes",
         lambda x: mg.unsafe_split_with_sizes(x, [2, 0, 1], 0)[0] ** 2, inputs(rnd(3, 2))),
    Case("unbind", "unbind", lambda x: x.unbind(1), inputs(rnd(2, 3))),
    Case("unbind-one-row", "unbind", lambda x: x.unbind(0)[1].exp(), inputs(rnd(3, 2))),
    Case("unbind-1d", "unbind", lambda x: x.unbind()[0] * x.unbind()[2], inputs(rnd(3))),
    Case("stack-neg-dim", "stack", lambda a, b: mg.stack([a, b, a], dim=-1), inputs(rnd(2, 3), rnd(2, 3))),
    Case("getitem-int", "getitem", lambda x: x[1], inputs(rnd(3, 4))),
    Case("getitem-negative-int", "getitem", lambda x: x[-1, 2], inputs(rnd(3, 4))),
    Case("getitem-slice", "getitem", lambda x: x[1:, ::2], inputs(rnd(3, 5))),
    Case("getitem-steps", "getitem", lambda x: x[::2, 0:4:2], inputs(rnd(3, 5))),
    Case("getitem-none-ellipsis", "getitem", lambda x: x[None, ..., 1], inputs(rnd(2, 3, 4))),
    Case("diagonal-view", "diagonal", lambda x: x.diagonal(), inputs(rnd(3, 4))),
    Case("diagonal-view-offset-dims", "diagonal", lambda x: x.diagonal(-1, 2, 0), inputs(rnd(3, 2, 4))),
    Case("unfold-view-overlapping", "unfold", lambda x: x.unfold(1, 3, 1), inputs(rnd(2, 5))),
    Case("unfold-view-strided", "unfold", lambda x: x.unfold(0, 2, 3), inputs(rnd(7, 2))),
    Case("as_strided", "as_strided", lambda x: x.as_strided((2, 3), (1, 4), 1), inputs(rnd(3, 4))),
    Case("as_strided_", "as_strided_", lambda x: (x * 1).as_strided_((2, 3), (1, 4), 1), inputs(rnd(3, 4))),
    Case("as_strided_-overlapping", "as_strided_", lambda x: (x * 1).as_strided_((4, 3), (2, 1)), inputs(rnd(10))),
    Case("as_strided-overlapping", "as_strided", lambda x: x.as_strided((4, 3), (2, 1)), inputs(rnd(10))),
    Case("as_strided-stride-0", "as_strided", lambda x: x.as_strided((3, 2, 2), (0, 1, 3), 2), inputs(rnd(2, 4))),
    Case("as_strided-of-a-view", "as_strided", lambda x: x[1:].t().as_strided((2, 2), (1, 1)), inputs(rnd(3, 3))),
    Case("as_strided-of-an-expanded-input", "as_strided",  # the input sees each element thrice: shared
         lambda x: x.expand(3, 4).as_strided((3, 2), (1, 1)), inputs(rnd(4))),
    Case("copy_slices", "copy_slices", lambda b, s: mg.OPS["copy_slices"](b, s, np.array([[5, 1], [2, 7]])),
         inputs(rnd(2, 4), rnd(2, 2))),
    # F.pad circular: PyTorch's _pad_circular, slices copied into a new tensor (every copy a copy_slices)
    Case("pad-circular", "copy_slices", lambda x: mg.nn.functional.pad(x, (2, 1, -1, 2), mode="circular"),
         inputs(rnd(2, 3, 4))),
    Case("getitem-int-array", "getitem", lambda x: x[[0, 2]], inputs(rnd(3, 4))),
    Case("getitem-repeated-indices", "getitem", lambda x: x[[0, 0, 2, 0]], inputs(rnd(3, 4))),
    Case("getitem-int-tensor-2d", "getitem", lambda x: x[mg.tensor([[0, 1], [1, 1]])], inputs(rnd(3, 2))),
    Case("getitem-two-arrays", "getitem", lambda x: x[[0, 1, 1], [2, 0, 2]], inputs(rnd(3, 4))),
    Case("getitem-array-and-slice", "getitem", lambda x: x[1:, [3, 0, 3]], inputs(rnd(3, 4))),
    Case("getitem-bool-mask", "getitem", lambda x: x[mg.tensor([[True, False], [False, True], [True, True]])],
         inputs(rnd(3, 2))),
    Case("getitem-bool-row-mask", "getitem", lambda x: x[[True, False, True]], inputs(rnd(3, 2))),
    Case("getitem-bool-scalar", "getitem", lambda x: x[True], inputs(rnd(3, 2))),
    Case("getitem-0d-int-tensor", "getitem", lambda x: x[mg.tensor(1)], inputs(rnd(3, 2))),
    Case("getitem-empty-slice", "getitem", lambda x: x[1:1] * 2, inputs(rnd(3, 2))),
    Case("getitem-broadcast-arrays", "getitem", lambda x: x[[[0], [2]], [1, 0, 1]], inputs(rnd(3, 2))),
    Case("getitem-tensor-and-slice", "getitem", lambda x: x[mg.tensor([2, 0, 2]), 1:], inputs(rnd(3, 4))),
    Case("getitem_grad", "getitem_grad", lambda g: mg.getitem_grad(g, (np.array([0, 2, 0]),), (3, 2)),
         inputs(rnd(3, 2))),
    # nn
    Case("softmax-last", "softmax", mg.softmax, inputs(rnd(3, 4))),
    Case("softmax-dim0", "softmax", lambda x: mg.softmax(x, dim=0), inputs(rnd(3, 4))),
    Case("log_softmax-last", "log_softmax", mg.log_softmax, inputs(rnd(3, 4))),
    Case("safe_softmax", "safe_softmax", lambda x: mg.OPS["safe_softmax"](x, -1), inputs(rnd(3, 4))),
    Case("scaled_dot_product_attention", "scaled_dot_product_attention",
         lambda q, k, v: mg.nn.functional.scaled_dot_product_attention(q, k, v),
         inputs(rnd(2, 2, 3, 4), rnd(2, 2, 5, 4), rnd(2, 2, 5, 4))),
    Case("scaled_dot_product_attention-causal-scale", "scaled_dot_product_attention",
         lambda q, k, v: mg.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.7),
         inputs(rnd(1, 2, 4, 3), rnd(1, 2, 4, 3), rnd(1, 2, 4, 3))),
    Case("scaled_dot_product_attention-bool-mask", "scaled_dot_product_attention",
         lambda q, k, v: mg.nn.functional.scaled_dot_product_attention(
             q, k, v, attn_mask=mg.tensor([[True, False, True], [False, False, False]])),
         inputs(rnd(1, 2, 2, 3), rnd(1, 2, 3, 3), rnd(1, 2, 3, 3))),
    Case("attention_weights", "attention_weights", lambda q, k: mg.OPS["attention_weights"](q, k, None, True, 0.5),
         inputs(rnd(1, 2, 3, 4), rnd(1, 2, 3, 4))),
    Case("log_softmax-dim1-3d", "log_softmax", lambda x: mg.log_softmax(x, dim=1), inputs(rnd(2, 3, 4))),
    Case("nll_loss-mean", "nll_loss", mg.nn.functional.nll_loss, inputs(rnd(4, 3), cls_target(4, 3))),
    Case("nll_loss-sum", "nll_loss", lambda x, t: mg.nn.functional.nll_loss(x, t, reduction="sum"),
         inputs(rnd(4, 3), cls_target(4, 3))),
    Case("nll_loss-none", "nll_loss", lambda x, t: mg.nn.functional.nll_loss(x, t, reduction="none"),
         inputs(rnd(4, 3), cls_target(4, 3))),
    Case("nll_loss-one-sample", "nll_loss", mg.nn.functional.nll_loss,
         inputs(rnd(3), lambda rng: mg.tensor(int(rng.integers(0, 3)), dtype=mg.int64))),
    Case("nll_loss_backward-one-sample", "nll_loss_backward",
         lambda g, x, t: mg.OPS["nll_loss_backward"](g, x, t, reduction="none"),
         inputs(rnd(), rnd(3), lambda rng: mg.tensor(int(rng.integers(0, 3)), dtype=mg.int64))),
    Case("nll_loss-weighted", "nll_loss",
         lambda x, t: mg.nn.functional.nll_loss(x, t, weight=mg.tensor([0.5, 2.0, 1.5], dtype=x.dtype)),
         inputs(rnd(4, 3), cls_target(4, 3))),
    Case("nll_loss2d-mean", "nll_loss2d", mg.nn.functional.nll_loss,
         inputs(rnd(2, 3, 2, 2), lambda rng: mg.tensor(rng.integers(0, 3, size=(2, 2, 2)), dtype=mg.int64))),
    Case("nll_loss2d-none-weighted", "nll_loss2d",
         lambda x, t: mg.nn.functional.nll_loss(x, t, weight=mg.tensor([0.5, 2.0, 1.5], dtype=x.dtype),
                                                reduction="none"),
         inputs(rnd(2, 3, 3), lambda rng: mg.tensor(rng.integers(0, 3, size=(2, 3)), dtype=mg.int64))),
    Case("nll_loss2d_backward", "nll_loss2d_backward",
         lambda g, x, t: mg.OPS["nll_loss2d_backward"](g, x, t, reduction="none"),
         inputs(rnd(2, 2, 2), rnd(2, 3, 2, 2), lambda rng: mg.tensor(rng.integers(0, 3, size=(2, 2, 2)), dtype=mg.int64))),
    Case("add_alpha", "add_alpha", lambda x, y: mg.add(x, y, alpha=-2.5), inputs(rnd(3, 2), rnd(2))),
    Case("sub_alpha", "sub_alpha", lambda x, y: x.sub(y, alpha=0.75), inputs(rnd(3, 1), rnd(3, 2))),
    Case("rsub", "rsub", lambda x, y: mg.rsub(x, y, alpha=1.5), inputs(rnd(3, 1), rnd(3, 2))),
    Case("rsub-1", "rsub", mg.rsub, inputs(rnd(2), rnd(3, 2))),
    Case("mul_scalar", "mul_scalar", lambda x: mg.OPS["mul_scalar"](x, other=-1.5), inputs(rnd(3, 2))),
    Case("div_scalar", "div_scalar", lambda x: mg.OPS["div_scalar"](x, other=0.75), inputs(rnd(3, 2))),
    Case("nll_loss_backward", "nll_loss_backward",  # (x gives the shape: its gradient is zeros, as PyTorch's)
         lambda g, x, t: mg.OPS["nll_loss_backward"](g, x, t, reduction="none"),
         inputs(rnd(4), rnd(4, 3), cls_target(4, 3))),
    Case("cross_entropy-mean", "cross_entropy", mg.cross_entropy, inputs(rnd(4, 3), cls_target(4, 3))),
    Case("cross_entropy-sum", "cross_entropy", lambda x, t: mg.cross_entropy(x, t, reduction="sum"),
         inputs(rnd(4, 3), cls_target(4, 3))),
    Case("cross_entropy-none", "cross_entropy", lambda x, t: mg.cross_entropy(x, t, reduction="none"),
         inputs(rnd(4, 3), cls_target(4, 3))),
    Case("mse_loss-mean", "mse_loss", mg.mse_loss, inputs(rnd(3, 4), rnd(3, 4))),
    Case("mse_loss-sum", "mse_loss", lambda x, t: mg.mse_loss(x, t, reduction="sum"), inputs(rnd(3, 4), rnd(3, 4))),
    Case("mse_loss-none", "mse_loss", lambda x, t: mg.mse_loss(x, t, reduction="none"), inputs(rnd(3, 4), rnd(3, 4))),
    Case("conv2d", "conv2d", mg.conv2d, inputs(rnd(2, 3, 5, 5), rnd(4, 3, 3, 3))),
    Case("conv2d-bias", "conv2d", lambda x, w, b: mg.conv2d(x, w, b), inputs(rnd(1, 2, 4, 4), rnd(3, 2, 2, 2), rnd(3))),
    Case("conv2d-stride2", "conv2d", lambda x, w: mg.conv2d(x, w, stride=2), inputs(rnd(1, 2, 5, 6), rnd(3, 2, 3, 2))),
    Case("conv2d-padding", "conv2d", lambda x, w, b: mg.conv2d(x, w, b, padding=1),
         inputs(rnd(2, 1, 3, 4), rnd(2, 1, 3, 3), rnd(2))),
    Case("conv2d-stride-padding-rect", "conv2d", lambda x, w, b: mg.conv2d(x, w, b, stride=(2, 1), padding=(1, 2)),
         inputs(rnd(1, 2, 5, 4), rnd(2, 2, 3, 2), rnd(2))),
    Case("conv2d-dilation-groups", "conv2d", lambda x, w, b: mg.conv2d(x, w, b, stride=(1, 2), padding=1,
                                                                       dilation=(2, 1), groups=2),
         inputs(rnd(2, 4, 5, 6), rnd(4, 2, 2, 3), rnd(4))),
    Case("conv1d", "conv2d", lambda x, w, b: mg.nn.functional.conv1d(x, w, b, stride=2, padding=1, dilation=2, groups=3),
         inputs(rnd(2, 3, 7), rnd(6, 1, 2), rnd(6))),
    Case("conv_transpose2d", "conv_transpose2d",
         lambda x, w, b: mg.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=(1, 0), output_padding=1,
                                                           groups=2, dilation=(1, 2)),
         inputs(rnd(2, 4, 3, 3), rnd(4, 1, 2, 3), rnd(2))),
    Case("conv_transpose1d-output-padding-past-stride", "conv_transpose2d",
         lambda x, w: mg.nn.functional.conv_transpose1d(x, w, output_padding=1, dilation=2),
         inputs(rnd(2, 2, 4), rnd(2, 3, 3))),
    Case("conv2d_input_grad", "conv2d_input_grad",
         lambda g, w: mg.conv2d_input_grad(g, w, (2, 2, 5, 5), (2, 2), (1, 1)),
         inputs(rnd(2, 3, 3, 3), rnd(3, 2, 3, 3))),
    Case("conv2d_weight_grad", "conv2d_weight_grad",
         lambda x, g: mg.conv2d_weight_grad(x, g, (3, 2, 3, 3), (2, 2), (1, 1)),
         inputs(rnd(2, 2, 5, 5), rnd(2, 3, 3, 3))),
    Case("max_pool2d", "max_pool2d", lambda x: mg.max_pool2d(x, 2), inputs(pool_input(2, 2, 4, 4))),
    Case("max_pool2d-overlap", "max_pool2d", lambda x: mg.max_pool2d(x, 3, stride=1), inputs(pool_input(1, 2, 5, 4))),
    Case("max_pool2d-stride-neq-kernel", "max_pool2d", lambda x: mg.max_pool2d(x, (3, 2), stride=(2, 1)),
         inputs(pool_input(1, 1, 7, 5))),
    Case("max_pool2d-padding", "max_pool2d", lambda x: mg.max_pool2d(x, 2, stride=2, padding=1),
         inputs(pool_input(1, 2, 5, 5))),
    Case("max_pool2d-dilation-ceil_mode", "max_pool2d",
         lambda x: mg.max_pool2d(x, 3, stride=2, padding=1, dilation=2, ceil_mode=True), inputs(pool_input(1, 2, 7, 6))),
    Case("max_pool2d-ceil_mode-unbatched", "max_pool2d", lambda x: mg.max_pool2d(x, (2, 3), stride=2, ceil_mode=True),
         inputs(pool_input(2, 5, 7))),
    Case("max_pool2d_grad", "max_pool2d_grad", lambda g, x: mg.max_pool2d_grad(g, x, (2, 2), (1, 1), (1, 1)),
         inputs(rnd(1, 2, 5, 5), distinct(1, 2, 4, 4, rg=False))),
    Case("max_pool2d_select", "max_pool2d_select", lambda h, x: mg.max_pool2d_select(h, x, (2, 2), (1, 1), (1, 1)),
         inputs(rnd(1, 2, 4, 4), distinct(1, 2, 4, 4, rg=False))),
    Case("max_pool2d_grad-dilation-ceil_mode", "max_pool2d_grad",
         lambda g, x: mg.max_pool2d_grad(g, x, (2, 2), (2, 2), (1, 1), (2, 1), True),
         inputs(rnd(1, 2, 3, 4), distinct(1, 2, 5, 6, rg=False))),
    Case("max_pool2d_select-dilation-ceil_mode", "max_pool2d_select",
         lambda h, x: mg.max_pool2d_select(h, x, (2, 2), (2, 2), (1, 1), (2, 1), True),
         inputs(rnd(1, 2, 5, 6), distinct(1, 2, 5, 6, rg=False))),
    # adaptive max pooling and max unpooling (ops/index_pooling.py): positions within each plane
    Case("adaptive_max_pool2d", "adaptive_max_pool2d", lambda x: mg.nn.functional.adaptive_max_pool2d(x, (3, 2)),
         inputs(distinct(2, 2, 7, 5))),
    Case("adaptive_max_pool2d-larger-unbatched", "adaptive_max_pool2d",
         lambda x: mg.nn.functional.adaptive_max_pool2d(x, (4, 5)), inputs(distinct(2, 3, 3))),
    Case("adaptive_max_pool1d", "adaptive_max_pool2d", lambda x: mg.nn.functional.adaptive_max_pool1d(x, 3),
         inputs(distinct(2, 7))),
    Case("adaptive_max_pool3d", "adaptive_max_pool3d", lambda x: mg.nn.functional.adaptive_max_pool3d(x, (2, 3, 2)),
         inputs(distinct(1, 2, 4, 5, 3))),
    Case("adaptive_max_pool2d_backward", "adaptive_max_pool2d_backward",
         lambda g, x: mg.OPS["adaptive_max_pool2d_backward"](g, x, mg.tensor([[[[0, 4], [4, 8]], [[2, 2], [7, 3]]]])),
         inputs(rnd(1, 2, 2, 2), rnd(1, 2, 3, 3))),
    Case("adaptive_max_pool3d_backward", "adaptive_max_pool3d_backward",
         lambda g, x: mg.OPS["adaptive_max_pool3d_backward"](g, x, mg.tensor([[[[[0, 4]], [[4, 7]]]]])),
         inputs(rnd(1, 1, 2, 1, 2), rnd(1, 1, 2, 2, 2))),
    # fractional max pooling (ops/fractional_pooling.py): windows placed by given samples
    Case("fractional_max_pool2d", "fractional_max_pool2d",
         lambda x: mg.nn.functional.fractional_max_pool2d(x, 2, output_size=(3, 4), _random_samples=mg.tensor(
             [[[0.1, 0.7], [0.5, 0.2]], [[0.9, 0.4], [0.3, 0.6]]], dtype=mg.float64)),
         inputs(distinct(2, 2, 6, 7))),
    Case("fractional_max_pool3d-unbatched", "fractional_max_pool3d",
         lambda x: mg.nn.functional.fractional_max_pool3d(x, (2, 1, 2), output_size=(2, 3, 3), _random_samples=mg.tensor(
             [[[0.1, 0.7, 0.3], [0.5, 0.2, 0.8]]], dtype=mg.float64)),
         inputs(distinct(2, 4, 5, 5))),
    Case("fractional_max_pool2d_backward", "fractional_max_pool2d_backward",
         lambda g, x: mg.OPS["fractional_max_pool2d_backward"](g, x, mg.tensor([[[[0, 4], [4, 8]], [[2, 2], [7, 3]]]])),
         inputs(rnd(1, 2, 2, 2), rnd(1, 2, 3, 3))),
    Case("fractional_max_pool3d_backward", "fractional_max_pool3d_backward",
         lambda g, x: mg.OPS["fractional_max_pool3d_backward"](g, x, mg.tensor([[[[[0, 4]], [[4, 7]]]]])),
         inputs(rnd(1, 1, 2, 1, 2), rnd(1, 1, 2, 2, 2))),
    # the LU factorization with its permutation (PyTorch's LinalgLuBackward0: the gradient of L and U)
    Case("linalg.lu", "linalg_lu", lambda a: tuple(mg.linalg.lu(a)[1:]), inputs(rnd(3, 3))),
    Case("linalg.lu-wide-batched", "linalg_lu", lambda a: tuple(mg.linalg.lu(a)[1:]), inputs(rnd(2, 3, 4))),
    # CTC (ops/ctc_loss.py): PyTorch's gradient is the logits' one, so checked through log_softmax
    Case("ctc_loss", "ctc_loss",
         lambda x: mg.nn.functional.ctc_loss(x.log_softmax(2), mg.tensor([[1, 2, 2], [3, 1, 0]]), (6, 5), (3, 2),
                                             reduction="sum"),
         inputs(rnd(6, 2, 4)), second_order=False),
    Case("ctc_loss-concatenated-mean-blank", "ctc_loss",
         lambda x: mg.nn.functional.ctc_loss(x.log_softmax(2), mg.tensor([1, 1, 0, 2]), mg.tensor([5, 3]),
                                             mg.tensor([2, 2]), blank=3),
         inputs(rnd(5, 2, 4)), second_order=False),
    Case("lp_pool2d", "avg_pool2d", lambda x: mg.nn.functional.lp_pool2d(x, 2, 2), inputs(away(2, 2, 4, 4))),
    Case("lp_pool1d-p3-unbatched", "avg_pool2d", lambda x: mg.nn.functional.lp_pool1d(x, 3.0, 2, 1),
         inputs(rnd(2, 5, low=0.3, high=2.0))),
    Case("max_unpool2d", "max_unpool2d",
         lambda x: mg.nn.functional.max_unpool2d(x, mg.tensor([[[[0, 3], [9, 14]], [[5, 2], [12, 11]]]]), 2),
         inputs(rnd(1, 2, 2, 2))),
    Case("max_unpool1d-output-size", "max_unpool2d",
         lambda x: mg.nn.functional.max_unpool1d(x, mg.tensor([[1, 2, 6], [0, 3, 4]]), 2, output_size=(7,)),
         inputs(rnd(2, 3))),
    Case("max_unpool3d", "max_unpool3d",
         lambda x: mg.nn.functional.max_unpool3d(x, mg.tensor([[[[[0, 13]], [[30, 31]]]]]), 2),
         inputs(rnd(1, 1, 2, 1, 2))),
    # clamp with tensor bounds (ops/clamp.py): x inside, below and above [lo, hi], away from the bounds
    Case("clamp-tensor-both", "clamp", lambda x, lo, hi: mg.clamp(x, lo, hi),
         inputs(lambda rng: T([-2.0, -0.3, 0.4, 1.9, 0.1]), lambda rng: T([-1.0, -1.0, -0.5, 0.0, 0.5]),
                lambda rng: T([1.0, 0.5, 1.0, 1.0, 0.2]))),
    Case("clamp-tensor-min-broadcast", "clamp", lambda x, lo: mg.clamp(x, min=lo),
         inputs(lambda rng: T([[-2.0, 0.7], [1.5, -0.6]]), lambda rng: T([0.0, 0.1]))),
    Case("clamp-tensor-max", "clamp", lambda x, hi: mg.clamp(x, max=hi),
         inputs(lambda rng: T([-2.0, 0.7, 1.5]), lambda rng: T([0.0, 0.1, 0.3]))),
    # division with a rounding mode: a step function, derivative 0 (checked away from the steps)
    Case("div-floor", "div_rounded", lambda x, y: mg.div(x, y, rounding_mode="floor") * x + y,
         inputs(lambda rng: T([1.3, -2.6, 3.7]), lambda rng: T([0.5, 0.7, -1.1]))),
    Case("div-trunc", "div_rounded", lambda x, y: mg.div(x, y, rounding_mode="trunc") * y,
         inputs(lambda rng: T([1.3, -2.6, 3.7]), lambda rng: T([0.5, 0.7, -1.1]))),
    # indexed reads and writes, ordering, cumulative ops, flips, norms
    Case("gather-dim1-repeats", "gather", lambda x: mg.gather(x, 1, mg.tensor([[0, 0, 2], [1, 0, 1]])), inputs(rnd(2, 3))),
    Case("gather-dim0-smaller-index", "gather", lambda x: mg.gather(x, 0, mg.tensor([[2, 0]])), inputs(rnd(3, 4))),
    Case("scatter_add", "scatter_add", lambda x, s: mg.scatter_add(x, 1, mg.tensor([[0, 0, 2], [1, 1, 1]]), s),
         inputs(rnd(2, 3), rnd(2, 3))),
    Case("scatter_add-larger-src", "scatter_add", lambda x, s: mg.scatter_add(x, 0, mg.tensor([[1, 0]]), s),
         inputs(rnd(2, 3), rnd(2, 3))),
    Case("scatter", "scatter", lambda x, s: mg.scatter(x, 1, mg.tensor([[2, 0], [1, 2]]), s), inputs(rnd(2, 3), rnd(2, 2))),
    # scatter_reduce: each reduction with and without self; a product with one zero and two zeros at a position,
    # extremes on values apart (x and src interleaved 0.05 apart: no tie within reach of eps)
    *[Case(f"scatter_reduce-{r}-{'self' if inc else 'noself'}", "scatter_reduce",
           lambda x, s, r=r, inc=inc: mg.scatter_reduce(x, 1, mg.tensor([[0, 0, 2, 0], [1, 1, 1, 2]]), s, r,
                                                         include_self=inc),
           inputs(distinct(2, 3), lambda rng: T(distinct(2, 4, rg=False)(rng).numpy() + 0.05)))
      for r in ("sum", "mean", "amax", "amin", "prod") for inc in (True, False)],
    Case("scatter_reduce-prod-zeros", "scatter_reduce",
         lambda x, s: x.scatter_reduce(0, mg.tensor([0, 0, 1, 1, 1, 2, 2]), s, "prod"),
         inputs(lambda rng: T([1.5, 0.0, -2.0]), lambda rng: T([0.0, 2.0, 0.0, 0.0, 3.0, 0.7, -1.2]))),
    Case("scatter_reduce-larger-src", "scatter_reduce", lambda x, s: x.scatter_reduce(0, mg.tensor([[1, 0]]), s, "mean"),
         inputs(rnd(2, 3), rnd(2, 3))),
    Case("scatter-value", "scatter_value", lambda x: mg.scatter(x, 0, mg.tensor([[1, 0, 1]]), value=2.0), inputs(rnd(2, 3))),
    # (values apart: a tie would break under the finite difference; then the mode is the smallest value)
    Case("mode", "mode_values", lambda x: mg.mode(x, 0).values, inputs(distinct(3, 4))),
    Case("mode-keepdim", "mode_values", lambda x: x.mode(keepdim=True).values, inputs(distinct(2, 5))),
    Case("sort-desc", "sort_values", lambda x: mg.sort(x, dim=0, descending=True), inputs(distinct(3, 4))),
    Case("sort-transposed", "sort_values", lambda x: mg.sort(x.t(), dim=1), inputs(distinct(3, 4))),
    Case("topk", "topk_values", lambda x: mg.topk(x, 2), inputs(distinct(3, 5))),
    Case("kthvalue-keepdim", "kthvalue_values", lambda x: mg.kthvalue(x, 2, 0, keepdim=True), inputs(distinct(3, 4))),
    Case("median-dim", "median_values", lambda x: mg.median(x, 1), inputs(distinct(3, 5))),
    Case("median-all", "median_all", lambda x: mg.median(x), inputs(distinct(3, 4))),
    Case("cumsum-dim1", "cumsum", lambda x: mg.cumsum(x, 1), inputs(rnd(3, 4))),
    Case("cumsum-dim0-3d", "cumsum", lambda x: mg.cumsum(x, 0), inputs(rnd(3, 2, 2))),
    Case("cumprod", "cumprod", lambda x: mg.cumprod(x, -1), inputs(rnd(3, 4))),
    Case("cumprod-with-zeros", "cumprod", lambda x: mg.cumprod(x * mg.tensor([[1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0]], dtype=F64), 1),
         inputs(rnd(2, 4))),
    Case("logcumsumexp", "logcumsumexp", lambda x: mg.logcumsumexp(x, 1), inputs(rnd(3, 4))),
    # reductions, scans and products that are one node, as PyTorch's
    Case("prod", "prod", lambda x: x.prod(), inputs(rnd(3, 4, low=0.5, high=1.5))),
    Case("prod-dim", "prod", lambda x: mg.prod(x, 1), inputs(away(3, 4))),
    Case("prod-dim-keepdim-with-a-zero", "prod", lambda x: mg.prod(x * mg.tensor([1.0, 0.0, 1.0], dtype=F64), 0, True),
         inputs(away(4, 3))),
    Case("prod-with-a-zero", "prod", lambda x: (x * mg.tensor([[1.0, 0.0], [1.0, 1.0]], dtype=F64)).prod(),
         inputs(away(2, 2))),
    Case("prod-0d", "prod", lambda x: x.prod(0), inputs(rnd())),
    # zeros in the input itself (not a mask's): the second derivative where two or three of a product are 0
    Case("prod-two-zeros", "prod", lambda x: x.prod(), inputs(const(T([[1.5, 0.0, -0.7], [0.0, 1.2, 0.8]])))),
    Case("prod-dim-zeros", "prod", lambda x: x.prod(1),
         inputs(const(T([[1.5, 0.0, -0.7, 0.0], [0.0, 1.2, 0.0, 0.0], [0.9, 1.1, -1.3, 0.0]])))),
    Case("prod-dim0-keepdim-zeros", "prod", lambda x: x.prod(0, keepdim=True),
         inputs(const(T([[1.5, 0.0, -0.7], [0.0, 0.0, 0.8], [0.4, 0.0, 0.0]])))),
    Case("nansum", "nansum", lambda x: mg.nansum(mg.where(mg.tensor([[True, False, False]]), float("nan"), x), 1),
         inputs(rnd(2, 3))),
    Case("nansum-all", "nansum", lambda x: x.nansum(), inputs(rnd(2, 3))),
    Case("trace", "trace", lambda x: x.trace(), inputs(rnd(3, 4))),
    Case("var_mean", "var_mean", lambda x: mg.var_mean(x, 1), inputs(rnd(3, 4))),
    Case("var_mean-all", "var_mean", lambda x: mg.var_mean(x, correction=0), inputs(rnd(3, 4))),
    Case("std_mean", "std_mean", lambda x: mg.std_mean(x, 0, keepdim=True), inputs(rnd(3, 4))),
    Case("std_mean-std-only", "std_mean", lambda x: mg.std_mean(x)[0], inputs(rnd(3, 4))),
    Case("aminmax", "aminmax", lambda x: mg.aminmax(x), inputs(distinct(3, 4))),
    Case("aminmax-dim", "aminmax", lambda x: mg.aminmax(x, dim=1, keepdim=True), inputs(distinct(3, 4))),
    Case("cummax", "cummax_values", lambda x: x.cummax(1).values, inputs(distinct(3, 4))),
    Case("cummin", "cummin_values", lambda x: mg.cummin(x, 0).values, inputs(distinct(3, 4))),
    Case("rot90", "rot90", lambda x: x.rot90(), inputs(rnd(3, 4))),
    Case("rot90-back-twice", "rot90", lambda x: mg.rot90(x, -2, (2, 0)), inputs(rnd(2, 3, 4))),
    # addmm's siblings
    Case("addmv", "addmv", lambda i, a, b: mg.addmv(i, a, b, beta=0.5, alpha=-2.0), inputs(rnd(3), rnd(3, 4), rnd(4))),
    Case("addr", "addr", lambda i, a, b: mg.addr(i, a, b, alpha=2.0), inputs(rnd(1, 4), rnd(3), rnd(4))),
    # oneDNN's fused LSTM layer (a float32 nn.LSTM on PyTorch's CPU): backpropagation through time with ops
    Case("mkldnn_rnn_layer", "mkldnn_rnn_layer", lambda x, wi, wh, bi, bh, h, c: mg.OPS["mkldnn_rnn_layer"](
        x, wi, wh, bi, bh, h, c), inputs(rnd(3, 2, 3), rnd(8, 3), rnd(8, 2), rnd(8), rnd(8), rnd(2, 2), rnd(2, 2))),
    Case("mkldnn_rnn_layer-reverse-no-bias", "mkldnn_rnn_layer", lambda x, wi, wh, h, c: mg.OPS["mkldnn_rnn_layer"](
        x, wi, wh, None, None, h, c, reverse=True)[0], inputs(rnd(2, 1, 2), rnd(4, 2), rnd(4, 1), rnd(1, 1), rnd(1, 1))),
    # packing padded sequences (nn.utils.rnn) and its adjoint; a length past the input's steps takes what there is
    Case("_pack_padded_sequence", "_pack_padded_sequence", lambda x: mg.OPS["_pack_padded_sequence"](
        x, lengths=(4, 2, 2, 1)), inputs(rnd(4, 4, 3))),
    Case("_pack_padded_sequence-batch-first-longer", "_pack_padded_sequence", lambda x: mg.OPS["_pack_padded_sequence"](
        x, lengths=(3, 1), batch_first=True), inputs(rnd(2, 5))),
    Case("_pack_padded_sequence_backward", "_pack_padded_sequence_backward",
         lambda g: mg.OPS["_pack_padded_sequence_backward"](g, input_size=(3, 2, 2), lengths=(3, 2)), inputs(rnd(5, 2))),
    Case("_pack_padded_sequence_backward-batch-first", "_pack_padded_sequence_backward",
         lambda g: mg.OPS["_pack_padded_sequence_backward"](g, input_size=(3, 4), lengths=(4, 2, 1), batch_first=True),
         inputs(rnd(7))),
    # bilinear's one product: each input unsqueezed at its expand dims, the three multiplied, summed over sumdim
    Case("_trilinear-bilinear", "_trilinear", lambda a, w, b: mg.OPS["_trilinear"](a, w, b, [1, 3], [0], [1, 2], [2, 3]),
         inputs(rnd(2, 3), rnd(4, 3, 2), rnd(2, 2))),
    Case("_trilinear-kept-dims", "_trilinear", lambda a, b, c: mg.OPS["_trilinear"](a, b, c, [0], [1], [], [2]),
         inputs(rnd(2, 3), rnd(4, 3), rnd(4, 2, 3))),
    Case("bilinear-batched", "_trilinear", lambda a, b, w, bias: mg.nn.functional.bilinear(a, b, w, bias),
         inputs(rnd(2, 2, 3), rnd(2, 2, 2), rnd(4, 3, 2), rnd(4))),
    Case("baddbmm", "baddbmm", lambda i, a, b: mg.baddbmm(i, a, b, beta=-1.0, alpha=0.5),
         inputs(rnd(3, 5), rnd(2, 3, 4), rnd(2, 4, 5))),
    Case("addbmm", "addbmm", lambda i, a, b: mg.addbmm(i, a, b, beta=2.0), inputs(rnd(3, 5), rnd(2, 3, 4), rnd(2, 4, 5))),
    Case("scatter-a-number", "scatter_value", lambda x: x.scatter(1, mg.tensor([[0, 1], [2, 2], [3, 0]]), 0.5),
         inputs(rnd(3, 4))),
    Case("diag_embed", "diag_embed", lambda x: mg.diag_embed(x, 1, 0, 2), inputs(rnd(2, 3))),
    Case("diag-of-a-vector", "diag_embed", lambda x: mg.diag(x, -1), inputs(rnd(3))),
    Case("diag-of-a-matrix", "diagonal_copy", lambda x: mg.diag(x, 1), inputs(rnd(3, 4))),
    Case("take", "take", lambda x: mg.take(x, mg.tensor([[0, 5], [-1, 5]])), inputs(rnd(3, 4))),
    # writing a source into a copy: the view scatters, masked_scatter, put (tests/test_ops_batch_b.py against PyTorch)
    Case("slice_scatter", "slice_scatter", lambda x, s: mg.slice_scatter(x, s, 1, 1, None, 2), inputs(rnd(3, 5), rnd(3, 2))),
    Case("select_scatter", "select_scatter", lambda x, s: mg.select_scatter(x, s, 0, -1), inputs(rnd(3, 4), rnd(4))),
    Case("diagonal_scatter", "diagonal_scatter", lambda x, s: mg.diagonal_scatter(x, s, -1, 1, 0),
         inputs(rnd(2, 3, 4), rnd(4, 2))),
    Case("masked_scatter", "masked_scatter",
         lambda x, s: x.masked_scatter(mg.tensor([[True, False, True, True], [False] * 4, [True, True, False, True]]), s),
         inputs(rnd(3, 4), rnd(2, 5))),
    Case("masked_scatter-broadcast", "masked_scatter",
         lambda x, s: mg.masked_scatter(x, mg.tensor([[True, False, True, True], [False, True, False, True]]), s),
         inputs(rnd(4), rnd(7))),
    Case("masked_scatter_backward", "masked_scatter_backward",
         lambda g: mg.OPS["masked_scatter_backward"](g, mg.tensor([[True, False, True], [False, True, True]]), sizes=(2, 3)),
         inputs(rnd(2, 3))),
    Case("put", "put", lambda x, s: x.put(mg.tensor([[0, 5], [-1, 6]]), s), inputs(rnd(3, 4), rnd(2, 2))),
    Case("put-accumulate", "put", lambda x, s: mg.put(x, mg.tensor([1, 1, 7]), s, accumulate=True),
         inputs(rnd(3, 4), rnd(3))),
    Case("nanmedian-dim", "nanmedian_values", lambda x: mg.nanmedian(x, 1), inputs(distinct(3, 5))),
    Case("nanmedian-all", "nanmedian_all", lambda x: mg.nanmedian(x), inputs(distinct(3, 4))),
    Case("nanquantile", "sort_values", lambda x, q: mg.nanquantile(x, q, 1), inputs(distinct(3, 5), const(
        mg.tensor([0.3, 0.8], dtype=F64)))),
    Case("renorm", "renorm", lambda x: mg.renorm(x, 2, 0, 1.0), inputs(away(3, 4, lo=0.6))),
    Case("renorm-p3-dim1", "renorm", lambda x: x.renorm(3, 1, 0.5), inputs(away(3, 4, lo=0.6))),
    # (pdist's gradient has no derivative in PyTorch: its node PdistBackwardBackward0 raises)
    Case("pdist", "pdist", lambda x: mg.pdist(x), inputs(rnd(5, 3)), second_order=False),
    Case("pdist-p1.5", "pdist", lambda x: mg.pdist(x, 1.5), inputs(rnd(4, 3)), second_order=False),
    Case("channel_shuffle", "channel_shuffle", lambda x: mg.channel_shuffle(x, 2), inputs(rnd(2, 4, 3))),
    Case("block_diag", "block_diag", lambda x, v, s: mg.block_diag(x, v, s), inputs(rnd(2, 3), rnd(4), rnd())),
    Case("cross", "cross", lambda a, b: mg.cross(a, b, dim=1), inputs(rnd(4, 3), rnd(1, 3))),
    Case("linalg.cross", "cross", lambda a, b: mg.linalg.cross(a, b), inputs(rnd(2, 3), rnd(2, 3))),
    # distances
    Case("dist", "dist", lambda x, y: mg.dist(x, y), inputs(rnd(3, 4), rnd(4))),
    Case("vdot", "vdot", lambda x, y: mg.vdot(x, y), inputs(rnd(5), rnd(5))),
    # a float's parts and neighbours, Bessel functions (ops/floating.py, ops/bessel.py); frexp's mantissa and
    # nextafter have PyTorch's gradients (1 / 2^exponent; 1 and 0)
    Case("ldexp", "ldexp", lambda x, e: mg.ldexp(x, e), inputs(rnd(3, 4), rnd(4))),
    # (non-negative: PyTorch's gradient computes an integer 2 ** e, 0 for e < 0 - tests/test_ops_batch_a.py)
    Case("ldexp-int-exponent", "ldexp", lambda x: mg.ldexp(x, mg.tensor([1, 2, 3, 0])), inputs(rnd(3, 4))),
    Case("nextafter", "nextafter", lambda x, y: mg.nextafter(x, y), inputs(rnd(3, 4), rnd(4))),
    Case("frexp", "frexp", lambda x: mg.frexp(x).mantissa, inputs(rnd(3, 4, low=-5.0, high=5.0))),
    Case("i0", "i0", mg.i0, inputs(rnd(3, 4, low=-4.0, high=4.0))),
    Case("special.i1", "special_i1", lambda x: mg.special.i1(x), inputs(rnd(3, 4, low=-4.0, high=4.0))),
    # weight normalization: the fused op along the first and the last dim, a 1-D weight (ops/weight_norm.py)
    Case("weight_norm_interface", "weight_norm_interface", lambda v, g: mg._weight_norm(v, g, 0),
         inputs(rnd(3, 4), rnd(3, 1))),
    Case("weight_norm_interface-last", "weight_norm_interface", lambda v, g: mg._weight_norm(v, g, 2),
         inputs(rnd(2, 3, 4), rnd(1, 1, 4))),
    Case("weight_norm_interface-1d", "weight_norm_interface", lambda v, g: mg._weight_norm(v, g, 0),
         inputs(rnd(5), rnd(5))),
    Case("dist-p3", "dist", lambda x, y: x.dist(y, 3), inputs(rnd(3, 4), rnd(3, 4))),
    Case("dist-p1", "dist", lambda x, y: mg.dist(x, y, 1), pair_apart((3, 4), (3, 4))),
    Case("cdist", "cdist", lambda x, y: mg.cdist(x, y), inputs(rnd(3, 4), rnd(5, 4))),
    Case("cdist-p1-batch", "cdist", lambda x, y: mg.cdist(x, y, 1.0), pair_apart((2, 3, 1, 4), (2, 1, 5, 4))),
    Case("cdist-p1.5", "cdist", lambda x, y: mg.cdist(x, y, 1.5), inputs(rnd(2, 3, 4), rnd(2, 5, 4))),
    Case("cdist-mm", "euclidean_dist", lambda x, y: mg.cdist(x, y, compute_mode="use_mm_for_euclid_dist"),
         inputs(rnd(3, 4), rnd(5, 4))),
    Case("cdist-many-rows", "euclidean_dist", lambda x, y: mg.cdist(x, y), inputs(rnd(2, 26, 3), rnd(2, 4, 3))),
    # writes of whole slices along a dim (index given as an attribute, as index_select's)
    Case("index_add", "index_add", lambda x, s: x.index_add(1, mg.tensor([2, 0, 2]), s, alpha=-1.5),
         inputs(rnd(3, 4), rnd(3, 3))),
    Case("index_add-0d", "index_add", lambda x, s: x.index_add(0, mg.tensor([0]), s), inputs(rnd(), rnd())),
    Case("index_copy", "index_copy", lambda x, s: mg.index_copy(x, 0, mg.tensor([2, 0]), s), inputs(rnd(3, 4), rnd(2, 4))),
    # index_reduce: each reduction with and without self (values apart for the extremes); a product with zeros
    *[Case(f"index_reduce-{r}-{'self' if inc else 'noself'}", "index_reduce",
           lambda x, s, r=r, inc=inc: x.index_reduce(1, mg.tensor([2, 0, 2, 0]), s, r, include_self=inc),
           inputs(distinct(2, 3), lambda rng: T(distinct(2, 4, rg=False)(rng).numpy() + 0.05)))
      for r in ("mean", "amax", "amin", "prod") for inc in (True, False)],
    # (where two zeros of source meet with a nonzero value, PyTorch's double backward refuses, after reading the
    # count on the host; minigrad reads nothing back and its second derivative misses those zeros' cross term:
    # here the zeros meet a zero of x, whose cross terms are 0)
    Case("index_reduce-prod-zeros", "index_reduce", lambda x, s: x.index_reduce(0, mg.tensor([0, 0, 1, 1, 1, 2]), s, "prod"),
         inputs(lambda rng: T([[1.5, 0.0], [0.0, 0.0], [0.5, 1.0]]),
                lambda rng: T([[0.0, 2.0], [1.5, 0.0], [0.0, 0.0], [2.0, 0.5], [3.0, 0.0], [0.7, -1.2]]))),
    Case("index_fill", "index_fill", lambda x: x.index_fill(1, mg.tensor([1, -1]), 2.0), inputs(rnd(3, 4))),
    Case("index_fill-tensor", "index_fill_tensor", lambda x, v: x.index_fill(0, mg.tensor([1, 1]), v),
         inputs(rnd(3, 4), rnd())),
    Case("flip", "flip", lambda x: mg.flip(x, (0, 2)), inputs(rnd(2, 3, 2))),
    Case("roll-dims", "roll", lambda x: mg.roll(x, (1, -2), (0, 1)), inputs(rnd(3, 4))),
    Case("roll-flat", "roll", lambda x: mg.roll(x, 5), inputs(rnd(3, 4))),
    Case("repeat", "repeat", lambda x: x.repeat(2, 1, 3), inputs(rnd(2, 3))),
    Case("repeat-0d", "repeat", lambda x: x.repeat((2, 2)), inputs(rnd())),
    Case("log2", "log2", mg.log2, inputs(rnd(2, 3, low=0.2, high=3.0))),
    Case("log10", "log10", lambda x: x.log10(), inputs(rnd(2, 3, low=0.2, high=3.0))),
    Case("vector_norm-2", "vector_norm", lambda x: mg.linalg.vector_norm(x, dim=1), inputs(rnd(3, 4))),
    Case("vector_norm-1", "vector_norm", lambda x: mg.linalg.vector_norm(x, 1, dim=0, keepdim=True), inputs(away(3, 4))),
    Case("vector_norm-inf", "vector_norm", lambda x: mg.linalg.vector_norm(x, float("inf"), dim=1), inputs(distinct(3, 4))),
    Case("vector_norm-neg-inf", "vector_norm", lambda x: mg.linalg.vector_norm(x, -float("inf")), inputs(distinct(3, 4))),
    Case("vector_norm-3", "vector_norm", lambda x: mg.norm(x, p=3), inputs(away(3, 4))),
    Case("vector_norm-half", "vector_norm", lambda x: mg.norm(x, p=0.5, dim=1), inputs(away(3, 4))),
    Case("matrix_norm-inf", "max", lambda x: mg.linalg.matrix_norm(x, float("inf")), inputs(away(2, 3, 4))),
    Case("matrix_norm-fro", "vector_norm", lambda x: mg.linalg.norm(x, "fro"), inputs(rnd(3, 4))),
    # the factorizations (ops/factorization.py), of a positive-definite (or symmetric) matrix made of the input
    Case("cholesky", "linalg_cholesky_ex", lambda a: mg.linalg.cholesky(_spd(a)), inputs(rnd(3, 3))),
    Case("cholesky-upper-batched", "linalg_cholesky_ex", lambda a: mg.linalg.cholesky_ex(_spd(a), upper=True).L,
         inputs(rnd(2, 3, 3))),
    Case("torch.cholesky", "cholesky", lambda a: mg.cholesky(_spd(a), upper=True), inputs(rnd(3, 3))),
    # cholesky_inverse reads only the factor's triangle: the input made triangular with a diagonal away from 0
    Case("cholesky_inverse", "cholesky_inverse", lambda a: mg.cholesky_inverse(a.tril() + 3 * mg.eye(3, dtype=a.dtype)),
         inputs(rnd(3, 3))),
    Case("cholesky_inverse-upper-batched", "cholesky_inverse",
         lambda a: mg.cholesky_inverse(a.triu() + 3 * mg.eye(3, dtype=a.dtype), upper=True), inputs(rnd(2, 3, 3))),
    Case("slogdet", "linalg_slogdet", lambda a: mg.linalg.slogdet(a).logabsdet,
         inputs(lambda rng: T(rng.uniform(-1, 1, size=(2, 3, 3)) + 2 * np.eye(3)))),
    Case("logdet", "linalg_slogdet", mg.logdet, inputs(lambda rng: T(rng.uniform(-1, 1, size=(3, 3)) + 2 * np.eye(3)))),
    Case("qr-tall", "linalg_qr", lambda a: tuple(mg.linalg.qr(a)), inputs(rnd(4, 3))),
    Case("qr-wide-batched", "linalg_qr", lambda a: tuple(mg.linalg.qr(a)), inputs(rnd(2, 2, 4))),
    Case("qr-complete-wide", "linalg_qr", lambda a: tuple(mg.linalg.qr(a, mode="complete")), inputs(rnd(3, 4))),
    Case("qr-R-only", "linalg_qr", lambda a: mg.linalg.qr(a).R, inputs(rnd(3, 3))),
    # eigh and svd: functions of the factors that do not depend on the signs the solver picks (the eigenvectors'
    # outer products, U diag(S) Vh); eigh of a symmetric matrix made of the input, as PyTorch's gradcheck does
    Case("eigh", "linalg_eigh", lambda a: (lambda w, v: (w, v * v, v @ w.exp().diag_embed() @ v.mT))(*mg.linalg.eigh(a + a.mT)),
         inputs(rnd(3, 3))),
    Case("eigvalsh-batched", "linalg_eigh", lambda a: mg.linalg.eigvalsh(a + a.mT, UPLO="U"), inputs(rnd(2, 3, 3))),
    *[Case(f"svd-{name}-{full}", "linalg_svd", lambda a, full=full: (lambda u, s, vh: (
        s, u[..., :s.shape[-1]] @ s.diag_embed() @ vh[..., :s.shape[-1], :], u[..., :s.shape[-1]] ** 2))(
        *mg.linalg.svd(a, full_matrices=full)), inputs(rnd(*shape)))
      for name, shape in (("tall", (4, 3)), ("wide-batched", (2, 2, 3))) for full in (False, True)],
    Case("svdvals", "linalg_svd", mg.linalg.svdvals, inputs(rnd(3, 4))),
    Case("matrix_norm-nuc", "linalg_svd", lambda a: mg.linalg.matrix_norm(a, "nuc", dim=(0, 2)), inputs(rnd(3, 2, 4))),
    Case("matrix_norm-2", "linalg_svd", lambda a: mg.linalg.matrix_norm(a, 2, keepdim=True), inputs(rnd(3, 4))),
    Case("solve_triangular", "linalg_solve_triangular", lambda a, b: mg.linalg.solve_triangular(a, b, upper=True),
         inputs(lambda rng: T(rng.uniform(-1, 1, size=(3, 3)) + 3 * np.eye(3)), rnd(3, 2))),
    Case("solve_triangular-right-unit-broadcast", "linalg_solve_triangular",
         lambda a, b: mg.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
         inputs(rnd(3, 3), rnd(2, 4, 3))),
    # Householder reflectors (ops/householder.py): any tau, not only an orthogonal reflector's
    Case("householder_product", "linalg_householder_product", mg.linalg.householder_product, inputs(rnd(4, 3), rnd(3))),
    Case("orgqr-batched-short-tau", "linalg_householder_product", mg.orgqr, inputs(rnd(2, 4, 3), rnd(2, 2))),
    Case("ormqr", "ormqr", mg.ormqr, inputs(rnd(4, 3), rnd(3), rnd(4, 2))),
    Case("ormqr-right-transpose-batched", "ormqr", lambda a, t, c: mg.ormqr(a, t, c, left=False, transpose=True),
         inputs(rnd(2, 4, 3), rnd(2, 3), rnd(2, 5, 4))),
    # the solves from a factor (ops/inverse.py, ops/lu.py): diagonals away from 0; cholesky_solve's PyTorch gradient
    # is of the whole factor, though only its triangle is read: the row makes the factor triangular first
    Case("triangular_solve", "triangular_solve", lambda b, a: tuple(mg.triangular_solve(b, a + 3 * mg.eye(3, dtype=a.dtype))),
         inputs(rnd(3, 2), rnd(3, 3))),
    Case("triangular_solve-lower-transpose-unit-broadcast", "triangular_solve",
         lambda b, a: tuple(mg.triangular_solve(b, a, upper=False, transpose=True, unitriangular=True)),
         inputs(rnd(2, 1, 3, 2), rnd(4, 3, 3))),
    Case("cholesky_solve", "cholesky_solve", lambda b, f: mg.cholesky_solve(b, f.tril() + 3 * mg.eye(3, dtype=f.dtype)),
         inputs(rnd(3, 2), rnd(3, 3))),
    Case("cholesky_solve-upper-broadcast", "cholesky_solve",
         lambda b, f: mg.cholesky_solve(b, f.triu() + 3 * mg.eye(3, dtype=f.dtype), upper=True),
         inputs(rnd(2, 1, 3, 2), rnd(4, 3, 3))),
    Case("linalg.lu_solve", "linalg_lu_solve",
         lambda lu, b: mg.linalg.lu_solve(lu + 3 * mg.eye(3, dtype=lu.dtype), mg.tensor([2, 2, 3], dtype=mg.int32), b),
         inputs(rnd(3, 3), rnd(3, 2))),
    Case("linalg.lu_solve-right-adjoint-broadcast", "linalg_lu_solve",
         lambda lu, b: mg.linalg.lu_solve(lu + 3 * mg.eye(3, dtype=lu.dtype), mg.tensor([[2, 2, 3], [3, 3, 3]], dtype=mg.int32),
                                          b, left=False, adjoint=True), inputs(rnd(2, 3, 3), rnd(4, 1, 2, 3))),
    Case("lu_solve", "linalg_lu_solve",
         lambda b, lu: mg.lu_solve(b, lu + 3 * mg.eye(3, dtype=lu.dtype), mg.tensor([3, 3, 3], dtype=mg.int32)),
         inputs(rnd(3, 2), rnd(3, 3))),
    Case("lu_unpack", "lu_unpack", lambda lu: tuple(mg.lu_unpack(lu, mg.tensor([2, 2, 3], dtype=mg.int32)))[1:],
         inputs(rnd(3, 3))),
    Case("lu_unpack-wide-batched", "lu_unpack",
         lambda lu: tuple(mg.lu_unpack(lu, mg.tensor([[1, 2], [2, 2]], dtype=mg.int32)))[1:], inputs(rnd(2, 2, 4))),
    Case("lu_unpack-tall", "lu_unpack", lambda lu: tuple(mg.lu_unpack(lu, mg.tensor([3, 4], dtype=mg.int32)))[1:],
         inputs(rnd(4, 2))),
    Case("nuclear_norm", "linalg_svd", mg.nuclear_norm, inputs(rnd(3, 4))),
    # getrf's LU (ops/lu.py): the pivots' choice is constant near the random inputs
    Case("linalg.lu_factor", "linalg_lu_factor_ex", lambda a: mg.linalg.lu_factor(a).LU, inputs(rnd(3, 3))),
    Case("linalg.lu_factor_ex-tall-batched", "linalg_lu_factor_ex", lambda a: mg.linalg.lu_factor_ex(a).LU,
         inputs(rnd(2, 4, 3))),
    Case("lu-wide", "linalg_lu_factor_ex", lambda a: mg.lu(a)[0], inputs(rnd(3, 5))),
    Case("matrix_exp", "linalg_matrix_exp", mg.linalg.matrix_exp, inputs(rnd(3, 3))),
    Case("matrix_exp-batched-scaled", "linalg_matrix_exp", lambda a: mg.matrix_exp(a * 4), inputs(rnd(2, 3, 3))),
    Case("pinv-tall", "linalg_pinv", mg.linalg.pinv, inputs(rnd(4, 3))),
    Case("pinv-wide-batched", "linalg_pinv", mg.linalg.pinv, inputs(rnd(2, 2, 3))),
    Case("pinv-hermitian", "linalg_pinv", lambda a: mg.linalg.pinv(a + a.mT, hermitian=True), inputs(rnd(3, 3))),
    Case("lstsq-gelsd", "linalg_lstsq", lambda a, b: tuple(mg.linalg.lstsq(a, b, driver="gelsd"))[:2],
         inputs(rnd(4, 3), rnd(4, 2))),
    Case("lstsq-vector-broadcast", "linalg_lstsq", lambda a, b: mg.linalg.lstsq(a, b).solution,
         inputs(rnd(2, 4, 3), rnd(2, 4))),
    Case("inv", "inv", mg.linalg.inv, inputs(lambda rng: T(rng.uniform(-1, 1, size=(2, 3, 3)) + 3 * np.eye(3)))),
    Case("det", "det", mg.linalg.det, inputs(lambda rng: T(rng.uniform(-1, 1, size=(2, 3, 3)) + 2 * np.eye(3)))),
    Case("solve-matrix-broadcast", "solve", mg.linalg.solve,
         inputs(lambda rng: T(rng.uniform(-1, 1, size=(3, 3)) + 3 * np.eye(3)), rnd(2, 3, 2))),
    Case("floor_divide", "floor_divide", lambda x, y: (x // y) * x, pair_apart((2, 3), (3,))),
    Case("remainder", "remainder", lambda x, y: x % y, inputs(rnd(2, 3, low=0.1, high=0.9), rnd(3, low=1.5, high=2.5))),
    Case("remainder-scalar-left", "remainder", lambda y: 7.3 % y, inputs(rnd(3, low=1.3, high=1.45))),
    Case("fmod", "fmod", lambda x, y: mg.fmod(x, y), inputs(rnd(2, 3, low=-0.9, high=0.9), away(3, lo=1.5, hi=2.5))),
    Case("tan", "tan", mg.tan, inputs(rnd(2, 3, low=-1.2, high=1.2))),
    Case("asin", "asin", mg.asin, inputs(rnd(2, 3, low=-0.9, high=0.9))),
    Case("acos", "acos", mg.acos, inputs(rnd(2, 3, low=-0.9, high=0.9))),
    Case("atan", "atan", mg.atan, inputs(rnd(2, 3))),
    Case("sinh", "sinh", mg.sinh, inputs(rnd(2, 3))),
    Case("cosh", "cosh", mg.cosh, inputs(rnd(2, 3))),
    Case("asinh", "asinh", mg.asinh, inputs(rnd(2, 3))),
    Case("acosh", "acosh", mg.acosh, inputs(rnd(2, 3, low=1.2, high=3.0))),
    Case("atanh", "atanh", mg.atanh, inputs(rnd(2, 3, low=-0.9, high=0.9))),
    Case("atan2-broadcast", "atan2", mg.atan2, inputs(rnd(2, 3), away(3))),
    Case("exp2", "exp2", mg.exp2, inputs(rnd(2, 3))),
    Case("sinc", "sinc", mg.sinc, inputs(rnd(2, 3))),
    # the gamma family (ops/gamma.py): lgamma's gradient is digamma, digamma's polygamma(1), polygamma(n)'s polygamma(n + 1)
    Case("lgamma", "lgamma", mg.lgamma, inputs(rnd(2, 3, low=0.2, high=4.0))),
    Case("lgamma-negative", "lgamma", lambda x: x.lgamma(), inputs(rnd(2, 3, low=-2.9, high=-2.1))),
    Case("digamma", "digamma", mg.digamma, inputs(rnd(2, 3, low=0.2, high=12.0))),
    Case("digamma-negative", "digamma", mg.digamma, inputs(rnd(2, 3, low=-1.8, high=-1.2))),
    *(Case(f"polygamma-{n}", "polygamma", (lambda n: lambda x: mg.polygamma(n, x))(n), inputs(rnd(2, 3, low=0.3, high=4.0)))
      for n in range(4)),
    Case("polygamma_", "polygamma_", lambda x: (x * 1).polygamma_(2), inputs(rnd(2, 3, low=0.3, high=4.0))),
    Case("mvlgamma", "mvlgamma", lambda x: mg.mvlgamma(x, 3), inputs(rnd(2, 3, low=1.2, high=4.0))),
    Case("mvlgamma-p1", "mvlgamma", lambda x: x.mvlgamma(1), inputs(rnd(2, 3, low=0.3, high=4.0))),
    Case("xlogy", "xlogy", mg.xlogy, inputs(rnd(2, 3), rnd(3, low=0.3, high=2.0))),
    Case("logit", "logit", mg.logit, inputs(rnd(2, 3, low=0.1, high=0.9))),
    Case("logaddexp-broadcast", "logaddexp", mg.logaddexp, inputs(rnd(2, 3), rnd(3))),
    Case("copysign", "copysign", mg.copysign, inputs(away(2, 3), away(3))),
    Case("logit-eps", "logit", lambda p: mg.logit(p, eps=0.05), inputs(rnd(2, 3, low=0.1, high=0.9))),
    # pointwise.py's ops, each PyTorch's one node
    Case("lerp-number", "lerp", lambda x, e: mg.lerp(x, e, 0.3), inputs(rnd(2, 3), rnd(3))),
    Case("lerp-number-far", "lerp", lambda x, e: mg.lerp(x, e, 0.8), inputs(rnd(3), rnd(2, 3))),
    Case("lerp-tensor", "lerp_tensor", mg.lerp, inputs(rnd(2, 3), rnd(3), rnd(2, 1, low=-1.0, high=1.5))),
    Case("addcmul", "addcmul", lambda x, a, b: mg.addcmul(x, a, b, value=-0.7), inputs(rnd(2, 3), rnd(3), rnd(2, 1))),
    Case("addcdiv", "addcdiv", lambda x, a, b: mg.addcdiv(x, a, b, value=1.5), inputs(rnd(3), rnd(2, 3), away(2, 1))),
    Case("sgn", "sgn", mg.sgn, inputs(away(2, 3))),
    Case("rsqrt", "rsqrt", mg.rsqrt, inputs(rnd(2, 3, low=0.3, high=2.0))),
    Case("frac", "frac", mg.frac, inputs(lambda rng: T(rng.uniform(0.1, 0.9, size=(2, 3)) + rng.integers(-3, 3, size=(2, 3))))),
    Case("hypot-broadcast", "hypot", mg.hypot, inputs(away(2, 3), away(3))),
    Case("fmax", "fmax", mg.fmax, pair_apart((2, 3), (3,))),
    Case("fmin", "fmin", mg.fmin, pair_apart((3,), (2, 3))),
    Case("nan_to_num", "nan_to_num", lambda x: mg.nan_to_num(x, posinf=2.0), inputs(rnd(2, 3))),
    Case("erfinv", "erfinv", mg.erfinv, inputs(rnd(2, 3, low=-0.95, high=0.95))),
    Case("erfc", "erfc", mg.erfc, inputs(rnd(2, 3))),
    Case("logaddexp2-broadcast", "logaddexp2", mg.logaddexp2, inputs(rnd(2, 3), rnd(3))),
    Case("deg2rad", "deg2rad", mg.deg2rad, inputs(rnd(2, 3))),
    Case("rad2deg", "rad2deg", mg.rad2deg, inputs(rnd(2, 3))),
    Case("solve-vector", "solve", mg.linalg.solve, inputs(lambda rng: T(rng.uniform(-1, 1, size=(2, 3, 3)) + 3 * np.eye(3)), rnd(2, 3))),
]

# torch.nn.functional: activations, padding, pooling (inputs away from the kinks)
CASES += [
    Case("silu", "silu", mg.silu, inputs(rnd(3, 4, low=-4, high=4))),
    Case("leaky_relu", "leaky_relu", lambda x: mg.leaky_relu(x, 0.2), inputs(away(3, 4))),
    Case("elu", "elu", lambda x: mg.elu(x, 0.7), inputs(away(3, 4))),
    Case("elu-selu", "elu", mg.nn.functional.selu, inputs(away(3, 4))),
    Case("elu-scales", "elu", lambda x: mg.elu(x, 0.7, 1.5, 0.5), inputs(away(3, 4))),
    Case("celu", "celu", lambda x: mg.nn.functional.celu(x, 2.0), inputs(away(3, 4))),
    Case("threshold", "threshold", lambda x: mg.nn.functional.threshold(x, 0.1, 2.0),
         inputs(const(T([-1.5, -0.8, -0.2, 0.3, 0.7, 1.6])))),
    # the in-place overloads (inplace=True): their nodes save the result (threshold_'s the input as it was)
    Case("leaky_relu_", "leaky_relu_", lambda x: mg.nn.functional.leaky_relu(x * 1, 0.2, inplace=True),
         inputs(away(3, 4))),
    Case("elu_", "elu_", lambda x: mg.nn.functional.elu(x * 1, 0.7, inplace=True), inputs(away(3, 4))),
    Case("elu_-selu_", "elu_", lambda x: mg.nn.functional.selu(x * 1, inplace=True), inputs(away(3, 4))),
    Case("celu_", "celu_", lambda x: mg.nn.functional.celu(x * 1, 2.0, inplace=True), inputs(away(3, 4))),
    Case("threshold_", "threshold_", lambda x: mg.nn.functional.threshold(x * 1, 0.1, 2.0, inplace=True),
         inputs(const(T([-1.5, -0.8, -0.2, 0.3, 0.7, 1.6])))),
    Case("hardshrink", "hardshrink", lambda x: mg.nn.functional.hardshrink(x, 0.5),
         inputs(const(T([-1.5, -0.8, -0.2, 0.3, 0.7, 1.6])))),
    Case("softshrink", "softshrink", lambda x: mg.nn.functional.softshrink(x, 0.5),
         inputs(const(T([-1.5, -0.8, -0.2, 0.3, 0.7, 1.6])))),
    Case("prelu_kernel", "prelu_kernel", mg.nn.functional.prelu, inputs(away(2, 3, 4), rnd(3, low=0.1, high=0.9))),
    Case("prelu_kernel-one", "prelu_kernel", mg.nn.functional.prelu, inputs(away(3, 4), rnd(1, low=0.1, high=0.9))),
    Case("glu", "glu", mg.nn.functional.glu, inputs(rnd(3, 4))),
    Case("add_scalar", "add_scalar", lambda x: mg.OPS["add_scalar"](x, 0.25), inputs(rnd(3, 4))),
    Case("sub_scalar", "sub_scalar", lambda x: mg.OPS["sub_scalar"](x, 0.25), inputs(rnd(3, 4))),
    Case("norm", "norm", lambda x: mg.OPS["norm"](x, 3.0, (1,), False), inputs(away(3, 4))),
    Case("norm-all", "norm", lambda x: mg.OPS["norm"](x, 2.0), inputs(away(3, 4))),
    Case("glu-dim0", "glu", lambda x: mg.nn.functional.glu(x, 0), inputs(rnd(4, 3, 2))),
    Case("hardtanh", "hardtanh", lambda x: mg.hardtanh(x, -0.5, 1.0),
         inputs(const(T([-1.5, -0.8, -0.2, 0.3, 0.7, 1.6])))),
    Case("hardswish", "hardswish", mg.hardswish, inputs(const(T([-4.0, -2.5, -0.4, 0.9, 2.6, 3.8])))),
    Case("hardsigmoid", "hardsigmoid", mg.hardsigmoid, inputs(const(T([-4.0, -2.5, -0.4, 0.9, 2.6, 3.8])))),
    Case("binary_cross_entropy", "binary_cross_entropy", mg.OPS["binary_cross_entropy"],
         inputs(rnd(3, 4, low=0.1, high=0.9), rnd(3, 4, low=0.0, high=1.0))),
    Case("binary_cross_entropy-weighted-none", "binary_cross_entropy", lambda x, t: mg.nn.functional.binary_cross_entropy(
        x, t, weight=mg.tensor([0.5, 2.0, 1.0, 3.0], dtype=x.dtype), reduction="none"),
         inputs(rnd(3, 4, low=0.1, high=0.9), rnd(3, 4, low=0.0, high=1.0))),
    Case("binary_cross_entropy-weighted-sum", "binary_cross_entropy", lambda x, t: mg.nn.functional.binary_cross_entropy(
        x, t, weight=mg.tensor([[0.5], [2.0], [1.5]], dtype=x.dtype), reduction="sum"),
         inputs(rnd(3, 4, low=0.1, high=0.9), rnd(3, 4, low=0.0, high=1.0))),
    Case("clamp_min", "clamp_min", lambda x: mg.clamp_min(x, 0.1), inputs(const(T([-1.5, -0.8, 0.3, 0.7, 1.6])))),
    Case("clamp_max", "clamp_max", lambda x: x.clamp_max(0.1), inputs(const(T([-1.5, -0.8, 0.3, 0.7, 1.6])))),
    Case("clamp_min_tensor", "clamp_min_tensor", lambda x, b: x.clamp_min(b), pair_apart((3, 4), (4,))),
    Case("clamp_max_tensor", "clamp_max_tensor", lambda x, b: mg.clamp_max(x, b), pair_apart((3, 4), (3, 4))),
    Case("log_sigmoid", "log_sigmoid", mg.nn.functional.logsigmoid, inputs(rnd(3, 4, low=-5, high=5))),
    Case("mish", "mish", mg.nn.functional.mish, inputs(rnd(3, 4, low=-4, high=4))),
    Case("binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits",
         lambda x, t: mg.nn.functional.binary_cross_entropy_with_logits(x, t, reduction="none"),
         inputs(rnd(3, 4, low=-4, high=4), rnd(3, 4, low=0.0, high=1.0))),
    Case("binary_cross_entropy_with_logits-weights", "binary_cross_entropy_with_logits",
         lambda x, t: mg.nn.functional.binary_cross_entropy_with_logits(
             x, t, weight=mg.tensor([0.5, 2.0, 1.0, 3.0], dtype=F64), pos_weight=mg.tensor([2.0, 0.5, 1.5, 1.0], dtype=F64)),
         inputs(rnd(3, 4, low=-4, high=4), rnd(3, 4, low=0.0, high=1.0))),
    Case("soft_margin_loss", "soft_margin_loss", lambda x: mg.nn.functional.soft_margin_loss(
        x, mg.tensor([[1.0, -1.0, 1.0, -1.0]] * 3, dtype=F64), reduction="none"), inputs(rnd(3, 4, low=-3, high=3))),
    Case("soft_margin_loss-mean", "soft_margin_loss", lambda x: mg.nn.functional.soft_margin_loss(
        x, mg.tensor([[1.0, -1.0, 1.0, -1.0]] * 3, dtype=F64)), inputs(rnd(3, 4, low=-3, high=3))),
    Case("multi_margin_loss", "multi_margin_loss", lambda x: mg.nn.functional.multi_margin_loss(
        x, mg.tensor([0, 2, 3]), margin=0.3), inputs(lambda rng: T(rng.uniform(-1, 1, size=(3, 4)).round(1) + 0.05)),
         second_order=False),
    # (p=2 and the weight: tests/test_nn_loss.py against PyTorch; its gradient op has no derivative, as PyTorch's)
    Case("multi_margin_loss-weighted-none", "multi_margin_loss", lambda x: mg.nn.functional.multi_margin_loss(
        x, mg.tensor([1, 0, 3]), weight=mg.tensor([0.5, 2.0, 1.0, 1.5], dtype=x.dtype), reduction="none"),
         inputs(lambda rng: T(rng.uniform(-1, 1, size=(3, 4)).round(1) + 0.05)), second_order=False),
    # rrelu (ops/rrelu.py): evaluation's mean slope, and training's drawn slopes held fixed as the noise input
    Case("rrelu-eval", "rrelu_with_noise", lambda x: mg.nn.functional.rrelu(x, 0.1, 0.3), inputs(away(3, 4))),
    Case("rrelu_with_noise-training", "rrelu_with_noise",
         lambda x, n: mg.OPS["rrelu_with_noise"](x, n, 0.1, 0.3, True), inputs(away(3, 4), rnd(3, 4, rg=False))),
    Case("rrelu_with_noise_", "rrelu_with_noise_",
         lambda x, n: mg.OPS["rrelu_with_noise_"](x, n, 0.1, 0.3, True), inputs(away(3, 4), rnd(3, 4, rg=False))),
    Case("rrelu_with_noise_backward", "rrelu_with_noise_backward",
         lambda g, x, n: mg.OPS["rrelu_with_noise_backward"](g, x, n, 0.1, 0.3, True),
         inputs(rnd(3, 4), away(3, 4), rnd(3, 4, rg=False))),
    # the gamma sampler (ops/distributions.py): its reparameterized gradient against the inverse CDF's derivative at
    # the draw's CDF value (PyTorch's is an approximation: to 1e-3); its own gradient has no derivative, as PyTorch's
    Case("_standard_gamma", "_standard_gamma", gamma_at_fixed_cdf, gamma_cdf_inputs, atol=1e-4, rtol=2e-3,
         second_order=False),
    # poisson: a count does not move with its rate (the seeded draws are the same counts on either side of eps)
    Case("poisson", "poisson", lambda r: mg.poisson(r, generator=mg.Generator().manual_seed(0)),
         inputs(rnd(2, 3, low=0.5, high=30.0))),
    Case("multilabel_margin_loss", "multilabel_margin_loss", lambda x: mg.nn.functional.multilabel_margin_loss(
        x, mg.tensor([[3, 0, -1, 1], [1, 1, 2, -1], [-1, 0, 1, 2]])),
         inputs(lambda rng: T(rng.uniform(-1, 1, size=(3, 4)).round(1) + 0.03)), second_order=False),
    Case("multilabel_margin_loss-none-one-sample", "multilabel_margin_loss",
         lambda x: mg.nn.functional.multilabel_margin_loss(x, mg.tensor([2, 0, -1, 3]), reduction="none"),
         inputs(lambda rng: T(rng.uniform(-1, 1, size=(4,)).round(1) + 0.03)), second_order=False),
    Case("smooth_l1_loss", "smooth_l1_loss", lambda x, t: mg.nn.functional.smooth_l1_loss(x, t, beta=0.5),
         pair_apart((3, 4), (3, 4))),
    Case("smooth_l1_loss-none", "smooth_l1_loss", lambda x, t: mg.nn.functional.smooth_l1_loss(
        x, t, reduction="none", beta=1.5), pair_apart((3, 4), (4,))),
    Case("huber_loss", "huber_loss", lambda x, t: mg.nn.functional.huber_loss(x, t, reduction="sum", delta=0.5),
         pair_apart((3, 4), (3, 4))),
    Case("huber_loss-none", "huber_loss", lambda x, t: mg.nn.functional.huber_loss(x, t, reduction="none", delta=1.5),
         pair_apart((3, 4), (3, 4))),
    Case("constant_pad_nd", "constant_pad_nd", lambda x: mg.constant_pad_nd(x, (2, -1, 0, 3), 1.5), inputs(rnd(2, 3, 4))),
    Case("reflection_pad", "reflection_pad", lambda x: mg.nn.functional.pad(x, (2, -1, 1, 1), mode="reflect"),
         inputs(rnd(2, 3, 4))),
    Case("replication_pad", "replication_pad", lambda x: mg.nn.functional.pad(x, (3, 1), mode="replicate"),
         inputs(rnd(2, 3, 4))),
    Case("reflection_pad_backward", "reflection_pad_backward",
         lambda g, x: mg.OPS["reflection_pad_backward"](g, x, (1, 2)), inputs(rnd(2, 7), rnd(2, 4))),
    Case("replication_pad_backward", "replication_pad_backward",
         lambda g, x: mg.OPS["replication_pad_backward"](g, x, (2, 0, 1, 1)), inputs(rnd(1, 4, 5), rnd(1, 2, 3))),
    Case("avg_pool2d", "avg_pool2d", lambda x: mg.OPS["avg_pool2d"](x, (3, 2), (2, 1), (1, 1), True, False, None),
         inputs(rnd(1, 2, 5, 4))),
    Case("avg_pool2d_backward", "avg_pool2d_backward",
         lambda g: mg.OPS["avg_pool2d_backward"](g, (5, 4), (3, 2), (2, 1), (1, 0), False, True, 5),
         inputs(rnd(1, 2, 3, 3))),
    Case("avg_pool3d", "avg_pool3d", lambda x: mg.OPS["avg_pool3d"](x, (3, 2, 2), (2, 1, 2), (1, 1, 0), True, False, None),
         inputs(rnd(2, 1, 5, 4, 5))),
    Case("avg_pool3d-unbatched-divisor", "avg_pool3d", lambda x: mg.nn.functional.avg_pool3d(x, 2, 1, divisor_override=3),
         inputs(rnd(2, 3, 3, 4))),
    Case("avg_pool3d_backward", "avg_pool3d_backward",
         lambda g: mg.OPS["avg_pool3d_backward"](g, (4, 5, 4), (2, 3, 2), (2, 2, 1), (1, 1, 0), False, True, None),
         inputs(rnd(1, 2, 3, 3, 3))),
    Case("adaptive_avg_pool2d", "adaptive_avg_pool2d", lambda x: mg.OPS["adaptive_avg_pool2d"](x, (3, 2)),
         inputs(rnd(2, 1, 5, 7))),
    Case("adaptive_avg_pool2d_backward", "adaptive_avg_pool2d_backward",
         lambda g: mg.OPS["adaptive_avg_pool2d_backward"](g, (5, 7)), inputs(rnd(2, 1, 3, 2))),
    # the 3-D convolutions and pools (ops/convolution3d.py, ops/pooling3d.py)
    Case("conv3d", "conv3d", lambda x, w, b: mg.conv3d(x, w, b, stride=(1, 2, 1), padding=1, dilation=(2, 1, 1), groups=2),
         inputs(rnd(2, 4, 4, 4, 3), rnd(4, 2, 2, 2, 2), rnd(4))),
    Case("conv3d-same-unbatched", "conv3d", lambda x, w: mg.conv3d(x, w, padding="same"),
         inputs(rnd(2, 3, 4, 3), rnd(3, 2, 2, 3, 2))),
    Case("conv3d_input_grad", "conv3d_input_grad",
         lambda g, w: mg.conv3d_input_grad(g, w, (2, 2, 4, 5, 4), (2, 2, 1), (1, 1, 0)),
         inputs(rnd(2, 3, 2, 3, 3), rnd(3, 2, 2, 2, 2))),
    Case("conv3d_weight_grad", "conv3d_weight_grad",
         lambda x, g: mg.conv3d_weight_grad(x, g, (3, 2, 2, 2, 2), (2, 2, 1), (1, 1, 0)),
         inputs(rnd(2, 2, 4, 5, 4), rnd(2, 3, 3, 3, 3))),
    Case("conv_transpose3d", "conv_transpose3d",
         lambda x, w, b: mg.conv_transpose3d(x, w, b, stride=2, padding=(1, 0, 1), output_padding=(1, 0, 0), groups=2,
                                             dilation=(1, 2, 1)),
         inputs(rnd(2, 4, 2, 3, 2), rnd(4, 1, 2, 2, 3), rnd(2))),
    Case("conv_transpose3d-output-padding-past-stride", "conv_transpose3d",
         lambda x, w: mg.conv_transpose3d(x[0], w, output_padding=1, dilation=2), inputs(rnd(1, 2, 2, 3, 2), rnd(2, 2, 2, 2, 2))),
    Case("max_pool3d", "max_pool3d", lambda x: mg.max_pool3d(x, 2), inputs(pool_input(2, 2, 4, 4, 4))),
    Case("max_pool3d-padding-dilation-ceil_mode", "max_pool3d",
         lambda x: mg.max_pool3d(x, (3, 2, 2), stride=2, padding=1, dilation=(1, 2, 1), ceil_mode=True),
         inputs(pool_input(1, 2, 5, 6, 4))),
    Case("max_pool3d-unbatched", "max_pool3d", lambda x: mg.max_pool3d(x, 2, stride=1), inputs(pool_input(2, 3, 3, 4))),
    Case("max_pool3d_grad", "max_pool3d_grad", lambda g, x: mg.max_pool3d_grad(g, x, (2, 2, 2), (1, 1, 1), (1, 1, 1)),
         inputs(rnd(1, 2, 4, 5, 4), distinct(1, 2, 3, 4, 3, rg=False))),
    Case("max_pool3d_select", "max_pool3d_select",
         lambda h, x: mg.max_pool3d_select(h, x, (2, 2, 2), (1, 1, 1), (1, 1, 1)),
         inputs(rnd(1, 2, 3, 4, 3), distinct(1, 2, 3, 4, 3, rg=False))),
    Case("adaptive_avg_pool3d", "adaptive_avg_pool3d", lambda x: mg.nn.functional.adaptive_avg_pool3d(x, (2, 3, 2)),
         inputs(rnd(2, 1, 5, 4, 3))),
    Case("adaptive_avg_pool3d-unbatched", "adaptive_avg_pool3d",
         lambda x: mg.nn.functional.adaptive_avg_pool3d(x, (3, None, 2)), inputs(rnd(2, 4, 3, 5))),
    Case("adaptive_avg_pool3d_backward", "adaptive_avg_pool3d_backward",
         lambda g: mg.OPS["adaptive_avg_pool3d_backward"](g, (5, 4, 3)), inputs(rnd(2, 1, 2, 3, 2))),
    # resampling (ops/upsampling.py, ops/convolution.py)
    Case("pixel_shuffle", "pixel_shuffle", lambda x: mg.nn.functional.pixel_shuffle(x, 2), inputs(rnd(2, 8, 2, 3))),
    Case("pixel_shuffle-unbatched", "pixel_shuffle", lambda x: mg.pixel_shuffle(x, 3), inputs(rnd(9, 1, 2))),
    Case("pixel_unshuffle", "pixel_unshuffle", lambda x: mg.nn.functional.pixel_unshuffle(x, 2), inputs(rnd(1, 2, 4, 6))),
    Case("im2col", "im2col", lambda x: mg.nn.functional.unfold(x, (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
         inputs(rnd(2, 2, 4, 5))),
    Case("im2col-unbatched", "im2col", lambda x: mg.nn.functional.unfold(x, 2), inputs(rnd(2, 3, 3))),
    Case("col2im", "col2im", lambda x: mg.nn.functional.fold(x, (4, 5), (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
         inputs(rnd(2, 12, 12))),
    Case("col2im-unbatched", "col2im", lambda x: mg.nn.functional.fold(x, (3, 3), 2), inputs(rnd(8, 4))),
    # interpolate's upsample ops (a size or a scale that is not one over an integer: uneven taps) and their gradients
    *[Case(f"interpolate-{mode}-{k}d", op, lambda x, mode=mode, kw=kw: mg.nn.functional.interpolate(x, mode=mode, **kw),
           inputs(rnd(1, 2, *(4, 3, 5)[:k])))
      for op, mode, k, kw in (
          ("upsample_nearest1d", "nearest", 1, {"size": 7}), ("upsample_nearest2d", "nearest", 2, {"scale_factor": 1.7}),
          ("upsample_nearest3d", "nearest", 3, {"size": (3, 5, 4)}),
          ("upsample_nearest_exact1d", "nearest-exact", 1, {"scale_factor": 2.3}),
          ("upsample_nearest_exact2d", "nearest-exact", 2, {"size": (3, 5)}),
          ("upsample_nearest_exact3d", "nearest-exact", 3, {"scale_factor": (1.5, 0.7, 1.3)}),
          ("upsample_linear1d", "linear", 1, {"scale_factor": 1.7}),
          ("upsample_bilinear2d", "bilinear", 2, {"size": (3, 5), "align_corners": True}),
          ("upsample_trilinear3d", "trilinear", 3, {"scale_factor": (1.5, 0.7, 1.3)}),
          ("upsample_bicubic2d", "bicubic", 2, {"size": (6, 5)}))],
    Case("interpolate-bilinear-antialias", "upsample_bilinear2d_aa", lambda x: mg.nn.functional.interpolate(
        x, scale_factor=0.6, mode="bilinear", antialias=True), inputs(rnd(1, 2, 5, 7))),
    Case("interpolate-bicubic-antialias", "upsample_bicubic2d_aa", lambda x: mg.nn.functional.interpolate(
        x, size=(3, 9), mode="bicubic", antialias=True, align_corners=True), inputs(rnd(1, 2, 7, 5))),
    *[Case(f"{op}_backward", f"{op}_backward", lambda g, op=op, args=args: mg.OPS[f"{op}_backward"](g, *args),
           inputs(rnd(1, 2, *out)))
      for op, out, args in (
          ("upsample_nearest1d", (7,), ((4,), None)), ("upsample_nearest2d", (6, 5), ((4, 3), (1.7, 1.7))),
          ("upsample_nearest3d", (3, 5, 4), ((4, 3, 5), None)),
          ("upsample_nearest_exact1d", (9,), ((4,), (2.3,))), ("upsample_nearest_exact2d", (3, 5), ((4, 3), None)),
          ("upsample_nearest_exact3d", (6, 2, 6), ((4, 3, 5), (1.5, 0.7, 1.3))),
          ("upsample_linear1d", (6,), ((4,), False, (1.7,))), ("upsample_bilinear2d", (3, 5), ((4, 3), True, None)),
          ("upsample_trilinear3d", (6, 2, 6), ((4, 3, 5), False, (1.5, 0.7, 1.3))),
          ("upsample_bicubic2d", (6, 5), ((4, 3), False, None)),
          ("upsample_bilinear2d_aa", (3, 4), ((5, 7), False, (0.6, 0.6))),
          ("upsample_bicubic2d_aa", (3, 9), ((7, 5), True, None)))],
    # spatial transformers (ops/grid_sample.py): bilinear 0, nearest 1, bicubic 2; zeros 0, border 1, reflection 2
    Case("affine_grid_generator", "affine_grid_generator",
         lambda t: mg.OPS["affine_grid_generator"](t, (2, 1, 3, 4), False), inputs(rnd(2, 2, 3))),
    Case("affine_grid_generator-3d-align", "affine_grid_generator",
         lambda t: mg.OPS["affine_grid_generator"](t, (1, 2, 2, 3, 2), True), inputs(rnd(1, 3, 4))),
    Case("grid_sampler_2d-bilinear-zeros", "grid_sampler_2d", _sampler(2, 0, 0, False),
         inputs(rnd(2, 2, 3, 4), sample_grid(2, (3, 2), (3, 4)))),
    Case("grid_sampler_2d-bilinear-reflection-align", "grid_sampler_2d", _sampler(2, 0, 2, True),
         inputs(rnd(1, 2, 3, 4), sample_grid(1, (3, 3), (3, 4), align=True, outside=3))),
    Case("grid_sampler_2d-bicubic-border", "grid_sampler_2d", _sampler(2, 2, 1, False),
         inputs(rnd(1, 2, 4, 4), sample_grid(1, (2, 3), (4, 4), outside=2))),
    Case("grid_sampler_2d-bicubic-reflection", "grid_sampler_2d", _sampler(2, 2, 2, False),
         inputs(rnd(1, 1, 3, 4), sample_grid(1, (2, 3), (3, 4), outside=3))),
    Case("grid_sampler_2d-nearest-zeros", "grid_sampler_2d", _sampler(2, 1, 0, False),
         inputs(rnd(1, 2, 3, 4), sample_grid(1, (2, 3), (3, 4)))),
    Case("grid_sampler_3d-bilinear-border", "grid_sampler_3d", _sampler(3, 0, 1, False),
         inputs(rnd(1, 2, 2, 3, 3), sample_grid(1, (2, 2, 1), (2, 3, 3)))),
    Case("grid_sampler_3d-bilinear-reflection", "grid_sampler_3d", _sampler(3, 0, 2, True),
         inputs(rnd(1, 1, 2, 2, 3), sample_grid(1, (1, 2, 2), (2, 2, 3), align=True, outside=2))),
    Case("grid_sampler_2d_backward-bilinear", "grid_sampler_2d_backward", _sampler_backward(2, 0, 0, False),
         inputs(rnd(1, 2, 2, 3), rnd(1, 2, 3, 4), sample_grid(1, (2, 3), (3, 4)))),
    Case("grid_sampler_2d_backward-bicubic-reflection", "grid_sampler_2d_backward", _sampler_backward(2, 2, 2, True),
         inputs(rnd(1, 1, 2, 2), rnd(1, 1, 3, 4), sample_grid(1, (2, 2), (3, 4), align=True, outside=2))),
    Case("grid_sampler_3d_backward", "grid_sampler_3d_backward", _sampler_backward(3, 0, 1, False),
         inputs(rnd(1, 1, 2, 1, 2), rnd(1, 1, 2, 3, 3), sample_grid(1, (2, 1, 2), (2, 3, 3)))),
    Case("grid_sampler_derivative-bilinear", "grid_sampler_derivative",
         lambda x, g: mg.OPS["grid_sampler_derivative"](x, g, (1, 0), 0, 0, False),
         inputs(rnd(1, 2, 3, 4), sample_grid(1, (2, 3), (3, 4)))),
    Case("grid_sampler_derivative-bicubic", "grid_sampler_derivative",
         lambda x, g: mg.OPS["grid_sampler_derivative"](x, g, (1, 1), 2, 1, True),
         inputs(rnd(1, 1, 4, 4), sample_grid(1, (2, 2), (4, 4), align=True))),
    Case("grid_sampler_derivative_backward", "grid_sampler_derivative_backward",
         lambda h, g: mg.OPS["grid_sampler_derivative_backward"](h, g, (1, 2, 3, 4), (0, 1), 2, 2, False),
         inputs(rnd(1, 2, 2, 3), sample_grid(1, (2, 3), (3, 4), outside=2))),
    # The fused backward ops (relu's and cross_entropy's), differentiable in turn.
    Case("threshold_backward", "threshold_backward", mg.threshold_backward,
         inputs(rnd(2, 3), lambda rng: T(rng.uniform(0.3, 2.0, size=(2, 3)) * rng.choice([-1.0, 1.0], size=(2, 3)), False))),
    Case("gelu_backward", "gelu_backward", mg.gelu_backward, inputs(rnd(2, 3), rnd(2, 3, low=-3, high=3))),
    Case("gelu_tanh_backward", "gelu_tanh_backward", lambda g, x: mg.OPS["gelu_tanh_backward"](g, x),
         inputs(rnd(2, 3), rnd(2, 3, low=-3, high=3))),
    Case("softmax_backward_data", "softmax_backward_data", lambda g, y: mg.softmax_backward_data(g, y, 1),
         inputs(rnd(2, 3), rnd(2, 3, low=0.1, high=0.9))),
    Case("softmax_backward_data-dim0", "softmax_backward_data", lambda g, y: mg.softmax_backward_data(g, y, 0),
         inputs(rnd(3, 2, 2), rnd(3, 2, 2, low=0.1, high=0.9))),
    Case("log_softmax_backward_data", "log_softmax_backward_data",
         lambda g, y: mg.log_softmax_backward_data(g, y, -1), inputs(rnd(2, 3), rnd(2, 3, low=-3, high=-0.1))),
    Case("layer_norm", "layer_norm", lambda x, w, b: mg.nn.functional.layer_norm(x, (4,), w, b),
         inputs(rnd(2, 3, 4), rnd(4), rnd(4))),
    Case("layer_norm-2d-no-affine", "layer_norm", lambda x: mg.nn.functional.layer_norm(x, (3, 4)), inputs(rnd(2, 3, 4))),
    Case("layer_norm_backward", "layer_norm_backward", lambda g, x, w: mg.OPS["layer_norm_backward"](g, x, w, 1, 1e-5),
         inputs(rnd(2, 3, 4), rnd(2, 3, 4), rnd(4))),
    Case("layer_norm_backward-2d", "layer_norm_backward", lambda g, x, w: mg.OPS["layer_norm_backward"](g, x, w, 2, 0.1),
         inputs(rnd(2, 3, 4), rnd(2, 3, 4), rnd(3, 4))),
    Case("layer_norm_weight_grad", "layer_norm_weight_grad", lambda g, x: mg.OPS["layer_norm_weight_grad"](g, x, 1, 1e-5),
         inputs(rnd(2, 3, 4), rnd(2, 3, 4))),
    Case("layer_norm_weight_grad-2d", "layer_norm_weight_grad",
         lambda g, x: mg.OPS["layer_norm_weight_grad"](g, x, 2, 0.1), inputs(rnd(2, 3, 4), rnd(2, 3, 4))),
    Case("group_norm", "group_norm", lambda x, w, b: mg.nn.functional.group_norm(x, 2, w, b),
         inputs(rnd(2, 4, 3), rnd(4), rnd(4))),
    Case("group_norm-4d-no-affine", "group_norm", lambda x: mg.nn.functional.group_norm(x, 3, eps=0.1),
         inputs(rnd(2, 6, 2, 2))),
    Case("group_norm-weight-only", "group_norm", lambda x, w: mg.nn.functional.group_norm(x, 1, w),
         inputs(rnd(3, 2, 4), rnd(2))),
    Case("embedding-repeats", "embedding", lambda w: mg.nn.functional.embedding(mg.tensor([[0, 3], [3, 1]]), w),
         inputs(rnd(4, 3))),
    # embedding_bag: one node for the bags' lookups and their sum (per-sample weights), mean or max
    Case("embedding_bag-sum-weighted", "embedding_bag",
         lambda w, p: mg.nn.functional.embedding_bag(mg.tensor([0, 3, 3, 1, 4]), w, mg.tensor([0, 2, 2]), mode="sum",
                                                     per_sample_weights=p, padding_idx=1), inputs(rnd(5, 3), rnd(5))),
    Case("embedding_bag-mean-2d", "embedding_bag",
         lambda w: mg.nn.functional.embedding_bag(mg.tensor([[0, 3], [3, 3], [2, 4]]), w), inputs(rnd(5, 3))),
    Case("embedding_bag-max", "embedding_bag",
         lambda w: mg.nn.functional.embedding_bag(mg.tensor([0, 3, 2, 1, 4, 4]), w, mg.tensor([0, 3, 3, 5]), mode="max",
                                                  include_last_offset=True), inputs(distinct(5, 3))),
    Case("embedding_dense_backward", "embedding_dense_backward",
         lambda g: mg.OPS["embedding_dense_backward"](g, mg.tensor([[0, 3], [3, 1]]), num_weights=5), inputs(rnd(2, 2, 3))),
    Case("embedding_dense_backward-padding", "embedding_dense_backward",
         lambda g: mg.OPS["embedding_dense_backward"](g, mg.tensor([2, 0, 2]), num_weights=4, padding_idx=2),
         inputs(rnd(3, 2))),
    Case("batch_norm-training", "batch_norm",
         lambda x, w, b: mg.nn.functional.batch_norm(x, None, None, w, b, training=True), inputs(rnd(4, 3, 2), rnd(3), rnd(3))),
    Case("batch_norm-eval", "batch_norm",
         lambda x, w, b: mg.nn.functional.batch_norm(x, mg.tensor([0.1, -0.2, 0.3], dtype=x.dtype),
                                                      mg.tensor([1.5, 0.5, 2.0], dtype=x.dtype), w, b),
         inputs(rnd(4, 3), rnd(3), rnd(3))),
    # batch_norm's fused backward ops (PyTorch's native_batch_norm_backward, one output each): their formulas
    # are checked against finite differences like every op's, training (the batch's statistics) and evaluating
    Case("batch_norm_backward-training", "batch_norm_backward",
         lambda g, x, w: mg.OPS["batch_norm_backward"](g, x, w, None, None, True, 1e-5),
         inputs(rnd(4, 3, 2), rnd(4, 3, 2), rnd(3))),
    Case("batch_norm_backward-eval-4d", "batch_norm_backward",
         lambda g, x, w: mg.OPS["batch_norm_backward"](g, x, w, mg.tensor([0.1, -0.2], dtype=x.dtype),
                                                      mg.tensor([1.5, 0.5], dtype=x.dtype), False, 0.1),
         inputs(rnd(3, 2, 2, 2), rnd(3, 2, 2, 2), rnd(2))),
    Case("batch_norm_weight_grad-training", "batch_norm_weight_grad",
         lambda g, x: mg.OPS["batch_norm_weight_grad"](g, x, None, None, True, 1e-5), inputs(rnd(4, 3), rnd(4, 3))),
    Case("batch_norm_weight_grad-eval", "batch_norm_weight_grad",
         lambda g, x: mg.OPS["batch_norm_weight_grad"](g, x, mg.tensor([0.1, -0.2, 0.3], dtype=x.dtype),
                                                      mg.tensor([1.5, 0.5, 2.0], dtype=x.dtype), False, 1e-5),
         inputs(rnd(4, 3, 2), rnd(4, 3, 2))),
    Case("cross_entropy_backward-mean", "cross_entropy_backward", mg.cross_entropy_backward,
         inputs(rnd(), rnd(4, 3), cls_target(4, 3))),
    Case("cross_entropy_backward-sum", "cross_entropy_backward",
         lambda g, x, t: mg.cross_entropy_backward(g, x, t, reduction="sum"), inputs(rnd(), rnd(4, 3), cls_target(4, 3))),
    Case("cross_entropy_backward-none", "cross_entropy_backward",
         lambda g, x, t: mg.cross_entropy_backward(g, x, t, reduction="none"), inputs(rnd(4), rnd(4, 3), cls_target(4, 3))),
    # the torch.special functions with nodes of their own (ops/special_functions.py): entropy, the normal
    # distribution's CDF (log) and inverse, the scaled erfc, xlog1py (both operands, and a number y), scaled Bessel
    # functions (away from 0, where i1e's formula takes its limit)
    Case("special.entr", "special_entr", lambda x: mg.special.entr(x), inputs(rnd(3, 4, low=0.2, high=3.0))),
    Case("special.ndtri", "special_ndtri", lambda x: mg.special.ndtri(x), inputs(rnd(3, 4, low=0.05, high=0.95))),
    Case("special.log_ndtr", "special_log_ndtr", lambda x: mg.special.log_ndtr(x), inputs(rnd(3, 4, low=-5.0, high=3.0))),
    Case("special.erfcx", "special_erfcx", lambda x: mg.special.erfcx(x), inputs(rnd(3, 4, low=-2.0, high=4.0))),
    Case("special.xlog1py", "special_xlog1py", lambda x, y: mg.special.xlog1py(x, y),
         inputs(rnd(2, 3), rnd(3, low=-0.5, high=2.0))),
    Case("special.xlog1py-number", "special_xlog1py", lambda x: mg.special.xlog1py(x, 1.5), inputs(rnd(2, 3))),
    Case("special.i0e", "special_i0e", lambda x: mg.special.i0e(x), inputs(away(3, 4, lo=0.2, hi=4.0))),
    Case("special.i1e", "special_i1e", lambda x: mg.special.i1e(x), inputs(away(3, 4, lo=0.2, hi=4.0))),
    # zeta and the incomplete gamma functions (ops/incomplete_gamma.py): derivatives wrt the second argument only, as
    # PyTorch's (wrt the first their nodes refuse: tests/test_special_more2.py)
    Case("special.zeta", "special_zeta", lambda x, q: mg.special.zeta(x, q),
         inputs(rnd(3, 4, low=1.5, high=4.0, rg=False), rnd(3, 4, low=0.3, high=3.0))),
    Case("special.zeta-number-x", "special_zeta", lambda q: mg.special.zeta(2.5, q), inputs(rnd(2, 3, low=0.3, high=3.0))),
    Case("igamma", "igamma", lambda a, x: mg.igamma(a, x),
         inputs(rnd(3, 4, low=0.5, high=4.0, rg=False), rnd(3, 4, low=0.2, high=5.0))),
    Case("special.gammaincc", "igammac", lambda a, x: mg.special.gammaincc(a, x),
         inputs(rnd(4, low=0.5, high=4.0, rg=False), rnd(3, 4, low=0.2, high=5.0))),
]


def _set(x: Any, index: Any, value: Any) -> Any:
    x[index] = value
    return x


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_gradient_matches_finite_differences(case: Case) -> None:
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    args = case.make(rng)
    assert gradcheck(case.fn, args, eps=case.eps, atol=case.atol, rtol=case.rtol)


def test_every_op_has_a_gradient_case() -> None:
    """An op with a backward formula but no row above would go untested."""
    covered = {c.op for c in CASES}
    with_backward = {name for name, op in mg.OPS.items() if op.backward is not None}
    # to_device spans two backends; its gradient is checked in test_device_grad.py. multi_margin_loss_backward's and
    # multilabel_margin_loss_backward's
    # formula only raises, as PyTorch has no derivative for it (the second-order rows above and test_nn_loss.py); so do
    # acosh_'s, asinh_'s and atanh_'s, the in-place forms (tests/test_inplace_forms.py), unique_consecutive's and
    # histogram's (tests/test_ops_batch_a.py), and geqrf's
    # (tests/test_ops_linalg_more.py); so do the gamma and Dirichlet gradients' and the Dirichlet sampler's
    # (tests/test_distributions_gamma.py), ctc_loss_backward's (tests/test_nn_ctc_fractional.py), binomial's
    # (tests/test_distributions_binomial_wishart.py) and the LDL factorization's and solve's (tests/test_linalg_lu_ldl.py).
    assert with_backward - covered - {"to_device", "multi_margin_loss_backward", "multilabel_margin_loss_backward",
                                      "acosh_", "asinh_", "atanh_", "geqrf", "unique_consecutive",
                                      "histogram", "pdist_backward", "_standard_gamma_grad", "_sample_dirichlet",
                                      "_dirichlet_grad", "ctc_loss_backward", "binomial", "linalg_ldl_factor_ex",
                                      "linalg_ldl_solve"} == set()


def test_every_design_op_is_covered() -> None:
    """The docs/pytorch-coverage.md op list, spelled out, so a renamed or dropped op is noticed."""
    design = (
        "add sub mul div pow neg exp log sqrt abs sin cos tanh sigmoid relu gelu maximum minimum where clip "
        "sum mean max min logsumexp matmul reshape transpose permute expand squeeze unsqueeze concat stack "
        "getitem softmax log_softmax cross_entropy mse_loss conv2d max_pool2d"
    ).split()
    assert set(design) <= {c.op for c in CASES} | {"transpose"}
    assert set(design) <= set(mg.OPS)


# --- the checker itself must be able to fail ---------------------------------------------


def test_gradcheck_catches_a_wrong_gradient() -> None:
    """A hook doubles the gradient flowing through y = x * 1: gradcheck must notice."""

    def doubled(x: mg.Tensor) -> mg.Tensor:
        y = x * 1.0
        y.register_hook(lambda g: g * 2)
        return y

    with pytest.raises(GradcheckError, match=r"input 0 .* is wrong"):
        gradcheck(doubled, [T([1.0, 2.0])])


def test_gradcheck_catches_a_missing_gradient() -> None:
    """Detaching inside fn cuts the gradient: .grad stays None but the numeric gradient is not 0."""
    with pytest.raises(GradcheckError, match="no gradient"):
        gradcheck(lambda x, y: x.detach() * 3 + y, [T([1.0, 2.0]), T([0.5, 0.5])])


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable() -> None:
    """A hook replaces the gradient by a detached copy: first derivatives stay right,
    second derivatives are lost, and gradgradcheck must notice."""

    def cut(x: mg.Tensor) -> mg.Tensor:
        y = x * x
        y.register_hook(lambda g: mg.tensor(g.detach().numpy(), dtype=g.dtype))
        return y * x

    args = [T([0.5, -1.0])]
    assert gradcheck(cut, args)
    with pytest.raises(GradcheckError):
        gradgradcheck(cut, args)


def test_gradcheck_rejects_float32_inputs() -> None:
    with pytest.raises(GradcheckError, match="float64"):
        gradcheck(mg.exp, [mg.tensor([1.0], requires_grad=True)])


# --- second order: backward formulas are differentiable and right --------------------------

@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_second_derivative_matches_finite_differences(case: Case) -> None:
    """Every backward formula is itself differentiable (create_graph=True) and right; where PyTorch's is not,
    a backward through it raises PyTorch's error."""
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    args = case.make(rng)
    if not case.second_order:
        # (PyTorch's two wordings: "derivative for aten::<op> is not implemented", and NotImplementedError's
        # "the derivative for '<op>' is not implemented." of a formula marked not_implemented, pdist's)
        with pytest.raises(RuntimeError, match="derivative for (aten::.*|'.*') is not implemented"):
            gradgradcheck(case.fn, args, eps=case.eps)
        return
    assert gradgradcheck(case.fn, args, eps=case.eps, atol=max(case.atol, 1e-4), rtol=max(case.rtol, 1e-3))


def test_third_derivative_of_cube() -> None:
    """docs/architecture.md, Engine rules, rule 10: d/dx x**3 = 3x^2, d2 = 6x, d3 = 6."""
    x = T([0.5, -1.5, 2.0])
    (g1,) = _grads(x ** 3, x)
    (g2,) = _grads(g1.sum(), x)
    (g3,) = _grads(g2.sum(), x)
    v = np.array([0.5, -1.5, 2.0])
    np.testing.assert_allclose(g1.detach().numpy(), 3 * v**2)
    np.testing.assert_allclose(g2.detach().numpy(), 6 * v)
    np.testing.assert_allclose(g3.detach().numpy(), [6.0, 6.0, 6.0])


def _grads(y: mg.Tensor, x: mg.Tensor) -> tuple[mg.Tensor]:
    from minigrad.autograd.engine import run_backward

    seed = None if y.numel() == 1 else mg.ones(y.shape, dtype=y.dtype)
    run_backward([y], [seed], retain_graph=True, create_graph=True)
    g = x.grad
    x.grad = None
    return (g,)


# --- gradient dtypes ------------------------------------------------------------------------

MIXED_DTYPE_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b,
    "maximum": mg.maximum,
    "minimum": mg.minimum,
    "where": lambda a, b: mg.where(a > 1.5, a, b),
    "concat": lambda a, b: mg.concat([a, b]),
    "stack": lambda a, b: mg.stack([a, b]),
}


@pytest.mark.parametrize("low,high", [("float32", "float64"), ("float16", "float32"), ("float16", "float64")])
@pytest.mark.parametrize("name", list(MIXED_DTYPE_OPS))
def test_gradient_has_the_dtype_of_its_input(name: str, low: str, high: str) -> None:
    """Regression: with promoted inputs (f32 * f64) the f32 input got a float64 .grad."""
    a = mg.tensor([1.0, 2.0, 3.0], dtype=getattr(mg, low), requires_grad=True)
    b = mg.tensor([0.5, 2.5, 1.0], dtype=getattr(mg, high), requires_grad=True)
    out = MIXED_DTYPE_OPS[name](a, b)
    assert out.dtype is getattr(mg, high)
    out.sum().backward()
    assert a.grad.dtype is a.dtype and b.grad.dtype is b.dtype
    ref_a, ref_b = T(a.detach().numpy()), T(b.detach().numpy())
    MIXED_DTYPE_OPS[name](ref_a, ref_b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ref_a.grad.numpy(), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(b.grad.numpy(), ref_b.grad.numpy(), rtol=2e-3, atol=2e-3)


def test_pow_gradient_is_zero_where_the_exponent_is_zero() -> None:
    """Regression: d/dx x**0 at x = 0 was 0 * 0**-1 = nan (PyTorch gives 0)."""
    x = T([0.0, 0.0, 2.0])
    y = T([0.0, 2.0, 0.0])
    (x ** y).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    z = T([0.0, 3.0])
    (z ** 0).sum().backward()
    assert z.grad.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("op", ["sign", "floor", "ceil", "trunc", "round", "zero_"])
def test_a_zero_derivative_is_zeros_whatever_the_gradient_as_torch(op: str) -> None:
    """PyTorch's ``zeros_like(grad)``: +0 where the gradient is negative (``grad * 0`` gives -0, and
    ``1 / -0`` is -inf) and 0 where it is infinite or NaN (``grad * 0`` gives NaN)."""
    torch = pytest.importorskip("torch")
    seed = [-1.5, float("inf"), float("nan"), 2.0]
    got = []
    for lib in (torch, mg):
        x = lib.tensor([0.3, -1.7, 2.5, -0.2], dtype=lib.float64, requires_grad=True)
        y = x * 1
        out = y.zero_() if op == "zero_" else getattr(y, op)()
        (g,) = lib.autograd.grad(out, [x], lib.tensor(seed, dtype=lib.float64), create_graph=True)
        got.append((1 / g.detach()).tolist())
    assert got[0] == got[1] == [float("inf")] * 4
