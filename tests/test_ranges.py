"""``linspace`` and ``arange`` give PyTorch's values bit for bit (``minigrad/ranges.py``), and refuse
what PyTorch refuses with its class and words."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16"]


def _values(t) -> np.ndarray:
    return (t.float() if str(t.dtype) == "torch.bfloat16" else t).numpy().astype(np.float64)


def _mine(t) -> np.ndarray:
    return t.float().numpy().astype(np.float64) if t.dtype == mg.bfloat16 else t.numpy().astype(np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
def test_linspace_is_pytorch_s_bit_for_bit(dtype: str) -> None:
    rng = np.random.default_rng(11)
    for _ in range(300):
        start, end = float(rng.normal() * 20), float(rng.normal() * 20)
        steps = int(rng.integers(0, 70))
        ref = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
        got = mg.linspace(start, end, steps, dtype=getattr(mg, dtype))
        assert got.dtype == getattr(mg, dtype)
        np.testing.assert_array_equal(_mine(got), _values(ref), err_msg=f"linspace({start}, {end}, {steps})")


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_logspace_is_pytorch_s_bit_for_bit(dtype: str) -> None:
    rng = np.random.default_rng(13)
    for _ in range(300):
        start, end = float(rng.normal() * 3), float(rng.normal() * 3)
        steps, base = int(rng.integers(0, 40)), float(rng.choice([10.0, 2.0, np.e, 0.5, 3.3]))
        ref = torch.logspace(start, end, steps, base, dtype=getattr(torch, dtype))
        got = mg.logspace(start, end, steps, base, dtype=getattr(mg, dtype))
        assert got.dtype == getattr(mg, dtype) and not got.requires_grad
        np.testing.assert_array_equal(_mine(got), _values(ref), err_msg=f"logspace({start}, {end}, {steps}, {base})")


def test_logspace_forms_as_pytorch() -> None:
    for args, kwargs in [((0, 2, 3), {}), ((0, 1, 1), {}), ((0, 1, 0), {}), ((-1, 1, 3), {"base": 2}),
                         ((0, 3, 4), {"dtype": "int64"}), ((1, 4, 4), {"base": 2, "dtype": "int32"}),
                         ((2.0, 0.0, 5), {"dtype": "float64"})]:
        kw = {k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()}
        ref = torch.logspace(*args, **kw)
        got = mg.logspace(*args, **{k: getattr(mg, v) if k == "dtype" else v for k, v in kwargs.items()})
        assert str(got) == str(ref).replace("torch", "minigrad")
    with pytest.raises(RuntimeError, match="steps"):
        mg.logspace(0, 1, -1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32"])
def test_arange_is_pytorch_s_bit_for_bit(dtype: str) -> None:
    rng = np.random.default_rng(12)
    checked = 0
    for _ in range(300):
        start = float(np.round(rng.normal() * 5, 2))
        step = float(np.round(abs(rng.normal()) * 2 + 0.01, 3)) * (1 if rng.random() < 0.8 else -1)
        end = start + step * int(rng.integers(1, 90)) + 0.001 * np.sign(step)
        try:
            ref = torch.arange(start, end, step, dtype=getattr(torch, dtype))
        except (RuntimeError, ValueError) as e:  # a step truncated to 0 for an integer output
            with pytest.raises(type(e), match=str(e)):
                mg.arange(start, end, step, dtype=getattr(mg, dtype))
            continue
        got = mg.arange(start, end, step, dtype=getattr(mg, dtype))
        np.testing.assert_array_equal(_mine(got), _values(ref), err_msg=f"arange({start}, {end}, {step})")
        checked += 1
    assert checked > 100


def test_the_default_forms_as_pytorch() -> None:
    for args in [(10,), (2, 9), (-5, 5, 0.25), (0, 1, 0.1), (5.0,), (1, -3, -0.7)]:
        ref, got = torch.arange(*args), mg.arange(*args)
        assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
        np.testing.assert_array_equal(got.numpy(), ref.numpy())
    np.testing.assert_array_equal(mg.linspace(-3.7, 2.9, 7).numpy(), torch.linspace(-3.7, 2.9, 7).numpy())


@pytest.mark.parametrize("args,kwargs", [
    ((5, 0, 1), {}), ((0, 5, 0), {}), ((0.0, 5.0, 0.5), {"dtype": "int64"}), ((0, 5.5, -1), {}),
    ((float("inf"), 1, -1), {}),
])
def test_arange_refuses_what_pytorch_refuses(args, kwargs) -> None:
    with pytest.raises((RuntimeError, ValueError)) as ref:
        torch.arange(*args, **{k: getattr(torch, v) for k, v in kwargs.items()})
    with pytest.raises(type(ref.value)) as got:
        mg.arange(*args, **{k: getattr(mg, v) for k, v in kwargs.items()})
    assert str(got.value) == str(ref.value)
