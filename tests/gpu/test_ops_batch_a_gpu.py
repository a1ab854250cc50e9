"""gcd, lcm, nextafter, frexp, ldexp, i0 and isin on the GPU (``kernels/gpu/numbers.py``): each op selects its GPU
kernel, and its values (and gradients, where it has one) equal the CPU's (run on a device, or with the stand-in
CuPy: ``MINIGRAD_FAKE_CUPY=1``). The ops without a GPU kernel fall back to their CPU one, visibly, and still
return their results on the device."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(7)
X, Y = RNG.uniform(-4, 4, (3, 4)), RNG.uniform(-4, 4, 4)
I, J = RNG.integers(-60, 60, (3, 4)), RNG.integers(-60, 60, 4)

EXACT = 1e-13  # float64 results: the CPU's bits but for the last (frexp, ldexp and the integers are exact)

# (op whose GPU kernel runs, call, arrays, rtol)
CALLS: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...], float]] = [
    ("gcd", lambda a, b: mg.gcd(a, b), (I, J), EXACT),
    ("lcm", lambda a, b: mg.lcm(a, b), (I, J), EXACT),
    ("lcm", lambda a, b: mg.lcm(a.to(mg.int8), b.to(mg.int8)), (I, J), EXACT),
    ("nextafter", lambda x, y: mg.nextafter(x, y), (X, Y), EXACT),
    ("nextafter", lambda x, y: mg.nextafter(x.half(), y.half()).double(), (X, Y), EXACT),
    ("frexp", lambda x: mg.frexp(x).mantissa, (X,), EXACT),
    ("frexp_exponent", lambda x: mg.frexp(x).exponent, (X,), EXACT),
    ("ldexp", lambda x, e: mg.ldexp(x, e), (X, J), EXACT),
    ("ldexp", lambda x, e: mg.ldexp(x, e), (X, Y), EXACT),
    ("ldexp", lambda x, e: mg.ldexp(x.half(), e).double(), (X, J), EXACT),
    ("i0", lambda x: mg.i0(x), (X,), EXACT),
    ("i0", lambda x: mg.i0(x.float()).double(), (X,), 1e-6),  # (CuPy's float32 i0 may round its last bit otherwise)
    ("isin", lambda a, b: mg.isin(a, b), (I, J), EXACT),
    ("isin", lambda a, b: mg.isin(a, b, invert=True), (I, J), EXACT),
]


def _run(fn: Callable[..., Any], arrays: tuple[np.ndarray, ...], device: str) -> tuple[Any, list[Any]]:
    leaves = [mg.tensor(a).to(device) for a in arrays]
    leaves = [t.detach().requires_grad_(t.dtype.is_floating) for t in leaves]
    out = fn(*leaves)
    if out.requires_grad:
        (out * mg.arange(out.numel(), dtype=out.dtype).reshape(out.shape).to(device)).sum().backward()
    return out, [t.grad for t in leaves]


@pytest.mark.parametrize("op, fn, arrays, rtol", CALLS, ids=[f"{c[0]}-{k}" for k, c in enumerate(CALLS)])
def test_runs_on_the_device_as_on_the_cpu(op: str, fn: Callable[..., Any], arrays: tuple[np.ndarray, ...],
                                          rtol: float) -> None:
    with mg.trace() as tr:
        got, got_grads = _run(fn, arrays, "gpu")
    assert (op, "GPU") in {(e.op, e.backend) for e in tr.events if e.kind == "kernel.select"}
    want, want_grads = _run(fn, arrays, "cpu")
    assert got.device.type != "cpu" and tuple(got.shape) == tuple(want.shape) and got.dtype == want.dtype
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=rtol, atol=0)
    for g, w in zip(got_grads, want_grads):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=EXACT, atol=0)


# (op that falls back to its CPU kernel, call, arrays)
FALLBACKS: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]] = [
    ("special_i1", lambda x: mg.special.i1(x), (X,)),
    ("histogram", lambda x: mg.histogram(x, 5).hist, (X,)),
    ("unique_consecutive", lambda a: mg.unique_consecutive(a.flatten().sort().values), (I,)),
]


@pytest.mark.parametrize("op, fn, arrays", FALLBACKS, ids=[c[0] for c in FALLBACKS])
def test_the_others_fall_back_visibly(op: str, fn: Callable[..., Any], arrays: tuple[np.ndarray, ...]) -> None:
    with mg.trace() as tr:
        got = fn(*[mg.tensor(a).to("gpu") for a in arrays])
    selects = [e for e in tr.events if e.kind == "kernel.select" and e.op == op]
    assert selects and all(e.backend == "CPU" for e in selects)
    want = fn(*[mg.tensor(a) for a in arrays])
    assert got.device.type != "cpu"
    np.testing.assert_array_equal(got.detach().cpu().numpy(), want.detach().numpy())
