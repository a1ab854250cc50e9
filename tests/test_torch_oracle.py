"""PyTorch as an oracle: forward values and gradients of every op equal PyTorch's.

Skipped when PyTorch is not installed (it is an optional dev dependency,
``make setup`` installs the CPU build). Inputs are random float64 arrays;
both frameworks get the same values, the same output weights ``w`` for the
backward pass (``sum(w * out)``), and must agree to 1e-10.

Name mapping: clip -> clamp, concat -> cat, getitem -> ``t[index]``,
cross_entropy -> F.cross_entropy, conv2d -> F.conv2d, max_pool2d ->
F.max_pool2d, gelu -> F.gelu (exact, erf-based), mse_loss -> F.mse_loss.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
F = torch.nn.functional
torch.set_num_threads(1)

pytestmark = pytest.mark.torch


@dataclass
class OCase:
    id: str
    mg_fn: Callable[..., Any]
    torch_fn: Callable[..., Any]
    make: Callable[[np.random.Generator], list[np.ndarray]]
    #: indices of the inputs that are differentiable (float); others are passed as-is
    diff: tuple[int, ...] = (0,)
    extra: dict[str, Any] = field(default_factory=dict)


def U(*shape: int, low: float = -2.0, high: float = 2.0) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.uniform(low, high, size=shape)


def AWAY(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.uniform(0.3, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)


def DISTINCT(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    def make(rng: np.random.Generator) -> np.ndarray:
        n = int(np.prod(shape))
        return ((rng.permutation(n) - n / 2) * 0.1 + rng.uniform(-0.02, 0.02, size=n)).reshape(shape)

    return make


def args(*makers: Callable[[np.random.Generator], Any]) -> Callable[[np.random.Generator], list[Any]]:
    return lambda rng: [m(rng) for m in makers]


def FIXED(value: Any) -> Callable[[np.random.Generator], Any]:
    return lambda rng: value


CASES = [
    OCase("add", mg.add, torch.add, args(U(2, 3), U(3)), (0, 1)),
    OCase("sub", mg.sub, torch.sub, args(U(2, 1), U(1, 3)), (0, 1)),
    OCase("mul", mg.mul, torch.mul, args(U(2, 3), U(2, 3)), (0, 1)),
    OCase("div", mg.div, torch.div, args(U(2, 3), AWAY(3)), (0, 1)),
    OCase("pow", mg.pow, torch.pow, args(U(2, 3, low=0.3), U(2, 3)), (0, 1)),
    OCase("pow-zero-base-and-exponent", mg.pow, torch.pow,
          args(FIXED(np.array([0.0, 0.0, 2.0, 0.5])), FIXED(np.array([0.0, 2.0, 0.0, -1.0]))), (0, 1)),
    OCase("pow-scalar", lambda x: x ** 2.5, lambda x: x ** 2.5, args(U(4, low=0.3))),
    OCase("rpow-scalar", lambda x: 3.0 ** x, lambda x: 3.0 ** x, args(U(4))),
    OCase("neg", mg.neg, torch.neg, args(U(5))),
    OCase("exp", mg.exp, torch.exp, args(U(5))),
    OCase("log", mg.log, torch.log, args(U(5, low=0.1))),
    OCase("sqrt", mg.sqrt, torch.sqrt, args(U(5, low=0.1))),
    OCase("abs", mg.abs, torch.abs, args(AWAY(5))),
    OCase("sign", mg.sign, torch.sign, args(AWAY(5))),
    OCase("sin", mg.sin, torch.sin, args(U(5))),
    OCase("cos", mg.cos, torch.cos, args(U(5))),
    OCase("tanh", mg.tanh, torch.tanh, args(U(5))),
    OCase("sigmoid", mg.sigmoid, torch.sigmoid, args(U(5, low=-8, high=8))),
    OCase("relu", mg.relu, torch.relu, args(AWAY(5))),
    OCase("gelu", mg.gelu, lambda x: F.gelu(x, approximate="none"), args(U(7, low=-4, high=4))),
    OCase("erf", mg.erf, torch.erf, args(U(5))),
    OCase("log1p", mg.log1p, torch.log1p, args(U(5, low=-0.9, high=3.0))),
    OCase("expm1", mg.expm1, torch.expm1, args(U(5))),
    OCase("floor", lambda x: mg.floor(x) * x, lambda x: torch.floor(x) * x, args(U(5))),
    OCase("ceil", lambda x: mg.ceil(x) * x, lambda x: torch.ceil(x) * x, args(U(5))),
    OCase("trunc", lambda x: mg.trunc(x) * x, lambda x: torch.trunc(x) * x, args(U(5))),
    OCase("round", lambda x: mg.round(x) * x, lambda x: torch.round(x) * x, args(FIXED(np.array([-1.5, -0.4, 0.5, 1.5, 2.6])))),
    OCase("round-decimals", lambda x: mg.round(x, decimals=2) * x, lambda x: torch.round(x, decimals=2) * x,
          args(FIXED(np.array([-1.005, 0.125, 2.675, 1e300, 3.14159])))),
    OCase("maximum", mg.maximum, torch.maximum, args(DISTINCT(2, 3), DISTINCT(3)), (0, 1)),
    OCase("maximum-ties", mg.maximum, torch.maximum, args(FIXED(np.array([1.0, 2.0, 3.0])), FIXED(np.array([1.0, 0.0, 3.0]))),
          (0, 1)),
    OCase("minimum", mg.minimum, torch.minimum, args(DISTINCT(2, 3), DISTINCT(2, 1)), (0, 1)),
    OCase("where", lambda c, x, y: mg.where(c, x, y), lambda c, x, y: torch.where(c, x, y),
          args(lambda rng: rng.random((2, 3)) > 0.5, U(2, 3), U(3)), (1, 2)),
    OCase("clip", lambda x: mg.clip(x, -0.5, 0.7), lambda x: torch.clamp(x, -0.5, 0.7),
          args(FIXED(np.array([-1.0, -0.6, -0.2, 0.3, 0.69, 0.8, 2.0])))),
    OCase("clip-min", lambda x: mg.clip(x, min=0.0), lambda x: torch.clamp(x, min=0.0), args(AWAY(6))),
    OCase("cast", lambda x: mg.cast(x, mg.float32), lambda x: x.to(torch.float32), args(U(4))),
    OCase("clone", mg.clone, torch.clone, args(U(4))),
    OCase("sum", mg.sum, torch.sum, args(U(2, 3, 4))),
    OCase("sum-dim", lambda x: mg.sum(x, dim=(0, 2), keepdim=True), lambda x: torch.sum(x, dim=(0, 2), keepdim=True),
          args(U(2, 3, 4))),
    OCase("mean", lambda x: mg.mean(x, dim=-1), lambda x: torch.mean(x, dim=-1), args(U(2, 3, 4))),
    OCase("max-all", mg.max, torch.max, args(DISTINCT(3, 4))),
    OCase("max-all-ties", mg.max, torch.max, args(FIXED(np.array([[1.0, 3.0], [3.0, 0.0]])))),
    OCase("max-dim", lambda x: mg.amax(x, dim=1), lambda x: torch.amax(x, dim=1), args(DISTINCT(3, 4))),
    OCase("max-dim-ties", lambda x: mg.amax(x, dim=1), lambda x: torch.amax(x, dim=1),
          args(FIXED(np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])))),
    OCase("min-dim-keepdim", lambda x: mg.amin(x, dim=0, keepdim=True), lambda x: torch.amin(x, dim=0, keepdim=True),
          args(DISTINCT(3, 4))),
    OCase("logsumexp", lambda x: mg.logsumexp(x, dim=1), lambda x: torch.logsumexp(x, dim=1), args(U(3, 4))),
    OCase("logsumexp-all", mg.logsumexp, lambda x: torch.logsumexp(x, dim=tuple(range(x.ndim))), args(U(3, 4))),
    OCase("matmul-1d-1d", mg.matmul, torch.matmul, args(U(3), U(3)), (0, 1)),
    OCase("matmul-2d-1d", mg.matmul, torch.matmul, args(U(2, 3), U(3)), (0, 1)),
    OCase("matmul-1d-batched", mg.matmul, torch.matmul, args(U(3), U(2, 3, 4)), (0, 1)),
    OCase("matmul-batched-broadcast", mg.matmul, torch.matmul, args(U(2, 1, 3, 4), U(3, 4, 2)), (0, 1)),
    OCase("matmul-transposes", lambda x, y: mg.matmul(x, y, transpose_x=True, transpose_y=True),
          lambda x, y: torch.matmul(x.transpose(-1, -2), y.transpose(-1, -2)), args(U(2, 3, 2), U(4, 3)), (0, 1)),
    OCase("reshape", lambda x: x.reshape(3, -1), lambda x: x.reshape(3, -1), args(U(2, 3, 2))),
    OCase("transpose", lambda x: mg.transpose(x, 0, 2), lambda x: x.transpose(0, 2), args(U(2, 3, 4))),
    OCase("permute", lambda x: x.permute(2, 0, 1), lambda x: x.permute(2, 0, 1), args(U(2, 3, 4))),
    OCase("expand", lambda x: x.expand(2, 3, 4), lambda x: x.expand(2, 3, 4), args(U(3, 1))),
    OCase("squeeze", mg.squeeze, torch.squeeze, args(U(1, 3, 1))),
    OCase("unsqueeze", lambda x: mg.unsqueeze(x, -1), lambda x: x.unsqueeze(-1), args(U(2, 3))),
    OCase("concat", lambda a, b: mg.concat([a, b], dim=-1), lambda a, b: torch.cat([a, b], dim=-1),
          args(U(2, 1), U(2, 3)), (0, 1)),
    OCase("stack", lambda a, b: mg.stack([a, b], dim=1), lambda a, b: torch.stack([a, b], dim=1),
          args(U(2, 3), U(2, 3)), (0, 1)),
    OCase("getitem-basic", lambda x: x[1:, None, ..., 1::2], lambda x: x[1:, None, ..., 1::2],
          args(U(3, 2, 5))),
    OCase("getitem-int-array-repeated", lambda x: x[[0, 2, 0, 0], 1:], lambda x: x[[0, 2, 0, 0], 1:], args(U(3, 4))),
    OCase("getitem-two-arrays", lambda x: x[[0, 1, 1], [2, 0, 2]], lambda x: x[[0, 1, 1], [2, 0, 2]], args(U(3, 4))),
    OCase("getitem-bool-mask", lambda x: x[mg.tensor([[True, False], [True, True]])],
          lambda x: x[torch.tensor([[True, False], [True, True]])], args(U(2, 2))),
    OCase("softmax", lambda x: mg.softmax(x, dim=0), lambda x: torch.softmax(x, dim=0), args(U(3, 4))),
    OCase("log_softmax", mg.log_softmax, lambda x: torch.log_softmax(x, dim=-1), args(U(3, 4))),
    OCase("cross_entropy-mean", mg.cross_entropy, F.cross_entropy,
          args(U(5, 4), lambda rng: rng.integers(0, 4, size=5))),
    OCase("cross_entropy-sum", lambda x, t: mg.cross_entropy(x, t, reduction="sum"),
          lambda x, t: F.cross_entropy(x, t, reduction="sum"), args(U(5, 4), lambda rng: rng.integers(0, 4, size=5))),
    OCase("cross_entropy-none", lambda x, t: mg.cross_entropy(x, t, reduction="none"),
          lambda x, t: F.cross_entropy(x, t, reduction="none"), args(U(5, 4), lambda rng: rng.integers(0, 4, size=5))),
    OCase("mse_loss", mg.mse_loss, F.mse_loss, args(U(3, 4), U(3, 4)), (0, 1)),
    OCase("mse_loss-sum", lambda a, b: mg.mse_loss(a, b, reduction="sum"), lambda a, b: F.mse_loss(a, b, reduction="sum"),
          args(U(3, 4), U(3, 4)), (0, 1)),
    OCase("conv2d", mg.conv2d, F.conv2d, args(U(2, 3, 5, 5), U(4, 3, 3, 3)), (0, 1)),
    OCase("conv2d-bias-stride-padding", lambda x, w, b: mg.conv2d(x, w, b, stride=(2, 1), padding=(1, 2)),
          lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2)),
          args(U(2, 2, 6, 5), U(3, 2, 3, 2), U(3)), (0, 1, 2)),
    OCase("max_pool2d", lambda x: mg.max_pool2d(x, 2), lambda x: F.max_pool2d(x, 2), args(DISTINCT(2, 2, 4, 6))),
    OCase("max_pool2d-stride-padding", lambda x: mg.max_pool2d(x, 3, stride=2, padding=1),
          lambda x: F.max_pool2d(x, 3, stride=2, padding=1), args(DISTINCT(1, 2, 7, 6))),
    OCase("max_pool2d-rect", lambda x: mg.max_pool2d(x, (3, 2), stride=(1, 2)),
          lambda x: F.max_pool2d(x, (3, 2), stride=(1, 2)), args(DISTINCT(1, 1, 5, 6))),
]


def _to_mg(a: Any, grad: bool) -> Any:
    if isinstance(a, np.ndarray):
        return mg.tensor(a, requires_grad=grad)
    return a


def _to_torch(a: Any, grad: bool) -> Any:
    if isinstance(a, np.ndarray):
        return torch.tensor(a, requires_grad=grad)
    return a


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_forward_and_gradients_equal_pytorch(case: OCase) -> None:
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    arrays = case.make(rng)
    m_in = [_to_mg(a, i in case.diff) for i, a in enumerate(arrays)]
    t_in = [_to_torch(a, i in case.diff) for i, a in enumerate(arrays)]
    m_out = case.mg_fn(*m_in)
    t_out = case.torch_fn(*t_in)
    assert tuple(m_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(m_out.detach().numpy().astype(np.float64), t_out.detach().double().detach().numpy(), rtol=1e-10, atol=1e-10)

    w = rng.uniform(-1.5, 1.5, size=tuple(t_out.shape))
    m_out.backward(mg.tensor(w, dtype=m_out.dtype))
    (t_out * torch.tensor(w, dtype=t_out.dtype)).sum().backward()
    for i in case.diff:
        np.testing.assert_allclose(
            m_in[i].grad.numpy(), t_in[i].grad.numpy(), rtol=1e-10, atol=1e-10, err_msg=f"gradient of input {i}"
        )


def test_setitem_gradients_equal_pytorch() -> None:
    rng = np.random.default_rng(7)
    a, v = rng.normal(size=(3, 4)), rng.normal(size=(2,))
    ma, mv = mg.tensor(a, requires_grad=True), mg.tensor(v, requires_grad=True)
    ta, tv = torch.tensor(a, requires_grad=True), torch.tensor(v, requires_grad=True)
    my, ty = ma * 2, ta * 2
    my[1, [0, 3]] = mv * 3
    ty[1, [0, 3]] = tv * 3
    np.testing.assert_allclose(my.detach().numpy(), ty.detach().numpy())
    w = rng.normal(size=(3, 4))
    my.backward(mg.tensor(w))
    ty.backward(torch.tensor(w))
    np.testing.assert_allclose(ma.grad.numpy(), ta.grad.numpy())
    np.testing.assert_allclose(mv.grad.numpy(), tv.grad.numpy())


def test_clip_of_integers_with_float_bounds_equals_pytorch() -> None:
    m = mg.clip(mg.tensor([0, 1, 5]), 0.5, 2.5)
    t = torch.clamp(torch.tensor([0, 1, 5]), 0.5, 2.5)
    assert str(m.dtype).replace("minigrad.", "torch.") == str(t.dtype) and m.tolist() == t.tolist()


@pytest.mark.parametrize("call", ["min(-1)", "max(0)", "amin(0)", "min()", "max(1, keepdim=True)", "argmin(1)", "argmax()"])
def test_max_and_min_of_a_bool_tensor_equal_pytorch(call: str) -> None:
    """``max``/``min``/``amax``/``amin`` take a bool tensor (False < True), ``argmax``/``argmin`` refuse it, as
    PyTorch (a distribution's ``lower_cholesky`` check takes ``min(-1)`` of bools)."""
    values = [[True, False, True], [True, True, True]]

    def run(lib: Any) -> Any:
        b = lib.tensor(values)
        try:
            out = eval(f"b.{call}")
        except RuntimeError as e:
            return str(e)
        return [o.tolist() for o in out] if isinstance(out, tuple) else out.tolist()

    assert run(mg) == run(torch)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int64"])
@pytest.mark.parametrize("decimals", [None, 0, 1, 2, 3, -1, -2, 10, -40])
def test_round_to_decimals_equals_pytorch_bit_for_bit(dtype: str, decimals: Any) -> None:
    """``round(x, decimals=d)`` (the tutorials' way to print a few digits): PyTorch's ``rint(x * 10**d) / 10**d``
    in the math type, so float32's 2.675 rounds up to 2.68 (float64's down to 2.67); an overflowing power gives
    inf or NaN as PyTorch's; an integer tensor with decimals is refused in PyTorch's words."""
    values = [2.675, -1.005, 0.125, 0.375, 1234.5678, -0.04, 1e30, 65504.0, 0.0]
    t = torch.tensor(values if dtype != "int64" else [3, -25, 35, 0], dtype=getattr(torch, dtype))
    m = mg.tensor(t.tolist(), dtype=getattr(mg, dtype))
    try:
        expected = torch.round(t) if decimals is None else torch.round(t, decimals=decimals)
    except NotImplementedError as e:
        with pytest.raises(NotImplementedError, match=re.escape(str(e))):
            mg.round(m, decimals=decimals)
        return
    got = mg.round(m) if decimals is None else mg.round(m, decimals=decimals)
    assert str(got.dtype).replace("minigrad.", "") == str(expected.dtype).replace("torch.", "")
    np.testing.assert_array_equal(got.float().numpy(), expected.float().numpy())


@pytest.mark.parametrize("pair", ["bool-int32", "int32-int64", "int64-float16", "float16-float32", "int32-float64"])
def test_promotion_equals_pytorch(pair: str) -> None:
    a, b = pair.split("-")
    td = {"bool": torch.bool, "int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
          "float32": torch.float32, "float64": torch.float64}
    out_m = mg.tensor(np.ones(2, dtype=a)) + mg.tensor(np.ones(2, dtype=b))
    out_t = torch.ones(2, dtype=td[a]) + torch.ones(2, dtype=td[b])
    assert str(out_m.dtype).replace("minigrad.", "") == str(out_t.dtype).replace("torch.", "")


@pytest.mark.parametrize("values", [[1.0, 2.0], [1.5, 2.0], [1e-5, 1.0], [0.1, 100.0], [float("nan"), 1.0, float("inf")],
                                    [[1.0, 1.41421356], [1.7320508, 2.0]], list(range(30)), [True, False], [3, -10, 200]])
def test_repr_values_equal_pytorch(values: Any) -> None:
    assert repr(mg.tensor(values)) == repr(torch.tensor(values))
