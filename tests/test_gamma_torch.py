"""lgamma, digamma, polygamma and mvlgamma against PyTorch's CPU kernels: values over a wide range (the poles,
0 and -0, the infinities and NaN included) in float64 and float32, the int inputs' dtype and the refusals.

minigrad computes in float64 and rounds: in float64 the values agree to a few ulp (lgamma within 1e-11
relative near its zeros at 1 and 2, where C's lgamma and Python's differ in the last bits of a tiny value);
in float32 to a few float32 ulp, PyTorch's float kernels rounding at every step (digamma near its zero at
1.4616 agrees to 2e-7 absolute; near the poles of polygamma at the negative integers PyTorch's float32
``pi * x`` loses up to 1e-2 relative, which minigrad's float64 keeps: those are left out)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(5)
VALUES = np.concatenate([RNG.uniform(-20, 20, 400), RNG.uniform(0, 3, 200), RNG.uniform(1e-4, 0.5, 50),
                         [0.0, -0.0, -1.0, -2.0, -2.5, np.inf, -np.inf, np.nan, 1e30, 10.0, 1e-300, 1e17, 3e17, 0.5]])

FUNCTIONS = {
    "lgamma": lambda lib, x: lib.lgamma(x),
    "digamma": lambda lib, x: lib.digamma(x),
    **{f"polygamma {n}": (lambda n: lambda lib, x: lib.polygamma(n, x))(n) for n in range(6)},
    "mvlgamma 1": lambda lib, x: lib.mvlgamma(x, 1),
    "mvlgamma 4": lambda lib, x: lib.mvlgamma(x, 4),
}


def _agree(ours: np.ndarray, theirs: np.ndarray, rtol: float, atol: float) -> None:
    ours, theirs = ours.astype(np.float64), theirs.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    infinite = np.isinf(ours) | np.isinf(theirs)
    np.testing.assert_array_equal(ours[infinite], theirs[infinite])
    np.testing.assert_allclose(ours[~infinite], theirs[~infinite], rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float64_values_are_pytorchs(name):
    x = VALUES
    if name.startswith("polygamma 1"):
        x = x[~((x < 0) & (x == np.trunc(x)))]  # trigamma at a negative integer: 1 / sin(pi x)^2 of a rounding error
    ours = FUNCTIONS[name](mg, mg.tensor(x)).numpy()
    theirs = FUNCTIONS[name](torch, torch.tensor(x)).numpy()
    _agree(ours, theirs, rtol=1e-11 if name == "lgamma" else 1e-13, atol=1e-14)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float32_values_are_pytorchs(name):
    x = VALUES.astype(np.float32)
    finite = np.abs(x) < 1e15  # (float32 rounds 1e17 and 1e30 alike in both)
    if name.startswith("polygamma") and name != "polygamma 0":
        finite &= ~(x < 0)  # near its poles PyTorch's float32 pi * x loses what minigrad's float64 keeps
    x = x[finite]
    ours = FUNCTIONS[name](mg, mg.tensor(x)).numpy()
    theirs = FUNCTIONS[name](torch, torch.tensor(x)).numpy()
    assert ours.dtype == np.float32
    _agree(ours, theirs, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["lgamma", "digamma", "polygamma 2", "mvlgamma 1"])
def test_an_integer_tensor_is_computed_in_the_default_float_dtype(name):
    ours = FUNCTIONS[name](mg, mg.tensor([1, 2, 3]))
    theirs = FUNCTIONS[name](torch, torch.tensor([1, 2, 3]))
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("call, error, words", [
    (lambda lib, x: lib.polygamma(-1, x), RuntimeError, r"polygamma\(n, x\) does not support negative n\."),
    (lambda lib, x: lib.polygamma(1.5, x), TypeError, r"polygamma\(\): argument 'n' \(position 1\) must be int, not float"),
    (lambda lib, x: lib.mvlgamma(x, 0), RuntimeError, "p has to be greater than or equal to 1"),
    (lambda lib, x: x.long().lgamma_(), RuntimeError, "result type .* can't be cast to the desired output type"),
])
def test_the_gamma_functions_refuse_as_pytorch(call, error, words):
    for lib in (mg, torch):
        with pytest.raises(error, match=words):
            call(lib, lib.tensor([1.0, 2.0]))
