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
