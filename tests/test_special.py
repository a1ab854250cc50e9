"""The vectorised erf (``minigrad/kernels/special.py``) against ``math.erf``, and its tables' provenance."""

from __future__ import annotations

import importlib.util
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from minigrad.kernels import erf_tables
from minigrad.kernels.special import erf

ROOT = Path(__file__).resolve().parent.parent


def _ulps(got: np.ndarray, ref: np.ndarray) -> float:
    return float((np.abs(got.astype(np.float64) - ref.astype(np.float64)) / np.spacing(np.abs(ref))).max())


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_erf_is_within_two_ulp_of_math_erf(dtype: type) -> None:
    xs = np.concatenate([np.linspace(-8, 8, 200_001), np.geomspace(1e-30, 0.6, 2_000), -np.geomspace(1e-30, 0.6, 2_000)])
    x = xs.astype(dtype)
    ref = np.array([math.erf(float(v)) for v in x]).astype(dtype)
    got = erf(x)
    assert got.dtype == dtype and got.shape == x.shape
    assert _ulps(got, ref) <= 2.0


def test_erf_edge_values_and_shapes() -> None:
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 5.999, 6.0, 1e300, -1e-310])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no invalid-value warning from inf or NaN
        got = erf(x)
    ref = np.array([math.erf(v) for v in x])
    np.testing.assert_array_equal(np.signbit(got[:7]), np.signbit(ref[:7]))
    np.testing.assert_allclose(got, ref, rtol=1e-15, atol=0, equal_nan=True)
    zero_d = erf(np.array(0.25))
    assert isinstance(zero_d, np.ndarray) and zero_d.shape == () and float(zero_d) == pytest.approx(math.erf(0.25), abs=0)
    assert erf(np.zeros((0, 3))).shape == (0, 3)
    assert erf(np.ones((2, 3, 4), dtype=np.float32)).shape == (2, 3, 4)


def test_tables_are_what_the_script_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mpmath")
    spec = importlib.util.spec_from_file_location("erf_tables_script", ROOT / "scripts" / "erf_tables.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)  # type: ignore[union-attr]
    monkeypatch.setattr(script, "OUT", tmp_path / "erf_tables.py")
    script.main()
    assert (tmp_path / "erf_tables.py").read_text() == Path(erf_tables.__file__).read_text()


def _phi(x: np.ndarray) -> np.ndarray:
    """The normal CDF in float64 from math.erfc (no cancellation for negative x)."""
    return np.array([0.5 * math.erfc(-float(v) / math.sqrt(2)) for v in x])


def test_float32_normal_cdf_keeps_its_digits_for_every_x() -> None:
    from minigrad.kernels.special import normal_cdf_float32

    rng = np.random.default_rng(3)
    x = np.concatenate([np.linspace(-14, 8, 220_001), rng.standard_normal(100_000) * 3,
                        np.geomspace(1e-30, 1, 500), -np.geomspace(1e-30, 1, 500)]).astype(np.float32)
    cdf, gauss = normal_cdf_float32(x)
    assert cdf.dtype == gauss.dtype == np.float32 and cdf.shape == x.shape
    ref = _phi(x)
    err = np.abs(cdf.astype(np.float64) - ref) / np.spacing(ref.astype(np.float32)).astype(np.float64)
    assert err[x >= 0].max() <= 2.5  # float32 ulp of Phi(x)
    # Below 0 Phi(x) is small and keeps its own relative precision (exp of a rounded x**2 costs a few ulp
    # more the further out), where 0.5 * (1 + erf(x / sqrt(2))) keeps only the digits above 2**-24.
    normal = ref > np.finfo(np.float32).tiny  # subnormal results have fewer digits to keep
    rel = np.abs(cdf.astype(np.float64) - ref) / ref
    assert rel[(x < 0) & (x >= -4)].max() < 6e-7 and rel[(x < -4) & normal].max() < 5e-6
    assert np.abs(cdf[~normal].astype(np.float64) - ref[~normal]).max() < 1e-43  # where exp() is subnormal too
    np.testing.assert_array_equal(gauss, np.exp((x * x) * np.float32(-0.5)))  # GELU's backward takes it as it is


def test_float32_normal_cdf_edge_values() -> None:
    from minigrad.kernels.special import normal_cdf_float32

    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 30.0, -30.0, 1e-45], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no invalid-value warning from inf or NaN
        cdf, _ = normal_cdf_float32(x)
    np.testing.assert_array_equal(cdf, np.array([1, 0, np.nan, 0.5, 0.5, 1, 0, 0.5], dtype=np.float32))


def test_float32_gelu_and_its_backward_are_pytorchs_within_its_own_rounding() -> None:
    torch = pytest.importorskip("torch")
    from minigrad.ops.activation import gelu_backward_cpu, gelu_cpu

    rng = np.random.default_rng(4)
    x = np.concatenate([rng.standard_normal(50_000) * 3, np.linspace(-10, 10, 2001)]).astype(np.float32)
    g = rng.standard_normal(x.size).astype(np.float32)
    tx = torch.from_numpy(x).requires_grad_()
    out = torch.nn.functional.gelu(tx)
    out.backward(torch.from_numpy(g))
    # PyTorch's 1 + erf(x / sqrt(2)) is exact to a few 2**-24 (its erf's ulp near -1): the two differ
    # by that, times |x|, where Phi(x) is small.
    got, want = gelu_cpu(x), out.detach().numpy()
    assert (np.abs(got - want) <= np.abs(x) * 2.0**-21 + 2e-6 * np.abs(want)).all()
    got, want = gelu_backward_cpu(g, x), tx.grad.numpy()
    assert (np.abs(got - want) <= np.abs(g) * (np.abs(x) + 1) * 2.0**-21 + 2e-6 * np.abs(want)).all()
    # Against the truth (x * Phi(x) in float64), where PyTorch's cancellation shows and minigrad's does not.
    ref = x.astype(np.float64) * _phi(x)

    def rel(v: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):  # 0 / 0 at x = 0, outside both selections
            return np.abs(v.astype(np.float64) - ref) / np.abs(ref)

    tail = x < -3
    assert rel(gelu_cpu(x))[tail].max() < 1e-5 < rel(out.detach().numpy())[tail].max()
    assert rel(gelu_cpu(x))[x > 0].max() < 2.0**-21
