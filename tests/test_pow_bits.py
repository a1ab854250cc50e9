"""``x ** scalar`` gives PyTorch's bits: minigrad follows the paths PyTorch's CPU kernel takes for particular
exponents (NOTE [ pow by a scalar takes PyTorch's paths ] in ``minigrad/ops/math.py``), in every floating
dtype, and the gradients still pass the finite-difference check.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from gradcheck import gradcheck

pytestmark = pytest.mark.torch

EXPONENTS = (0.5, 2, 3, 4, -0.5, -1, -2, 1.5, 0, 1, -3)
DTYPES = ("float32", "float64", "float16", "bfloat16")
_BITS = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32, "float64": np.uint64}

#: (dtype, exponent) pairs whose bits may differ in the last place, with the reason; they are held to 1 ulp.
WITHIN_ONE_ULP = {
    ("float32", 0.5): "PyTorch's float32 sqrt (which x ** 0.5 calls) is MKL's vsSqrt, within 1 ulp of the rounded "
                      "root; minigrad's is NumPy's, correctly rounded. x ** 0.5 == x.sqrt() bit for bit in both.",
    ("float64", 1.5): "PyTorch's vectorised pow is SLEEF's (within 1 ulp); minigrad's is the C library's pow",
    ("float64", -3): "PyTorch's vectorised pow is SLEEF's (within 1 ulp); minigrad's is the C library's pow",
    ("bfloat16", -0.5): "PyTorch's elements past its last full vector take a scalar rsqrt that rounds to bfloat16 "
                        "twice (sqrt, then 1 / it); minigrad rounds once, as PyTorch's vector lanes do",
}


def _inputs(dtype: str) -> tuple[object, mg.Tensor]:
    torch = pytest.importorskip("torch")
    t = torch.linspace(-3, 3, 97, dtype=torch.float64).to(getattr(torch, dtype))
    return t, mg.tensor(t.double().numpy(), dtype=mg.float64).to(getattr(mg, dtype))


def _bits(values: np.ndarray, dtype: str) -> np.ndarray:
    return np.ascontiguousarray(values).view(_BITS[dtype]).astype(np.int64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("exponent", EXPONENTS)
def test_pow_by_a_scalar_has_pytorchs_bits(dtype: str, exponent: float) -> None:
    torch = pytest.importorskip("torch")
    t, m = _inputs(dtype)
    want = (t ** exponent).view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]).numpy()
    want = want.view(_BITS[dtype]).astype(np.int64)
    got_values = (m ** exponent).numpy()
    got = _bits(got_values, dtype)
    # NaN: the same places; its sign bit is the library's choice (MKL's sqrt and NumPy's differ), not compared.
    want_nan = torch.isnan(t ** exponent).numpy()
    assert (np.isnan(got_values.astype(np.float64)) == want_nan).all()
    ulps = np.abs(got - want)[~want_nan]
    if (dtype, exponent) in WITHIN_ONE_ULP:
        assert ulps.max() <= 1, WITHIN_ONE_ULP[(dtype, exponent)]
    else:
        assert ulps.max() == 0, f"{int((ulps > 0).sum())} of {ulps.size} values differ from PyTorch's bits"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pow_one_half_is_sqrt_bit_for_bit(dtype: str) -> None:
    """As in PyTorch, ``x ** 0.5`` is ``x.sqrt()``, not a general pow rounded differently."""
    _, m = _inputs(dtype)
    got = m ** 0.5
    assert (_bits(got.numpy(), dtype) == _bits(m.sqrt().numpy(), dtype)).all()
    assert (_bits((m ** -0.5).numpy(), dtype) == _bits((1 / m.sqrt()).numpy(), dtype)).all()


@pytest.mark.parametrize("exponent", EXPONENTS)
def test_pow_by_a_scalar_gradient(exponent: float) -> None:
    x = mg.tensor([0.3, 0.7, 1.1, 1.9, 2.6], dtype=mg.float64, requires_grad=True)
    assert gradcheck(lambda t: t ** exponent, [x])
    assert gradcheck(lambda t: t.pow(exponent) * 2.0, [x])


def test_pow_by_a_tensor_keeps_the_general_path() -> None:
    """A tensor exponent is elementwise pow, as PyTorch's pow_tensor_tensor: 2 there is pow(x, 2), not x * x."""
    x = mg.tensor([1.5, -2.25, 3.0], dtype=mg.float64)
    e = mg.tensor([2.0, 3.0, 0.5], dtype=mg.float64)
    np.testing.assert_array_equal((x ** e).numpy(), np.power(x.numpy(), e.numpy()))
