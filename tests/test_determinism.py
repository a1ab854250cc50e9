"""``mg.use_deterministic_algorithms`` and its readers, and the memory ``empty`` hands out under it, as PyTorch's
(``minigrad/determinism.py``; the GPU's ordered scatters: ``tests/gpu/test_deterministic_gpu.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _torch_left_as_found():
    yield
    torch.use_deterministic_algorithms(False)
    torch.utils.deterministic.fill_uninitialized_memory = True


def _both(fn):
    """``fn(lib)`` under each library, or the exception it raised (class and words)."""
    out = []
    for lib in (mg, torch):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001 - compared across the libraries
            out.append((type(e).__name__, str(e)))
    return out


SWITCHES = {
    "on": lambda L: (L.use_deterministic_algorithms(True), L.are_deterministic_algorithms_enabled(),
                     L.is_deterministic_algorithms_warn_only_enabled(), L.get_deterministic_debug_mode())[1:],
    "warn only": lambda L: (L.use_deterministic_algorithms(True, warn_only=True), L.get_deterministic_debug_mode(),
                            L.is_deterministic_algorithms_warn_only_enabled())[1:],
    "off": lambda L: (L.use_deterministic_algorithms(True), L.use_deterministic_algorithms(False),
                      L.are_deterministic_algorithms_enabled(), L.get_deterministic_debug_mode())[2:],
    **{f"debug mode {m!r}": (lambda m: lambda L: (L.set_deterministic_debug_mode(m), L.get_deterministic_debug_mode(),
                                                  L.are_deterministic_algorithms_enabled(),
                                                  L.is_deterministic_algorithms_warn_only_enabled())[1:])(m)
       for m in ("default", "warn", "error", 0, 1, 2, True)},
    "debug mode 'x'": lambda L: L.set_deterministic_debug_mode("x"),
    "debug mode 3": lambda L: L.set_deterministic_debug_mode(3),
    "debug mode 1.0": lambda L: L.set_deterministic_debug_mode(1.0),
    "mode 'a'": lambda L: L.use_deterministic_algorithms("a"),
    "mode 1": lambda L: L.use_deterministic_algorithms(1),
    "warn_only 1": lambda L: L.use_deterministic_algorithms(True, warn_only=1),
    "fill switch": lambda L: (L.utils.deterministic.fill_uninitialized_memory,
                              setattr(L.utils.deterministic, "fill_uninitialized_memory", False),
                              L.utils.deterministic.fill_uninitialized_memory)[::2],
    "fill switch 1": lambda L: setattr(L.utils.deterministic, "fill_uninitialized_memory", 1),
}


@pytest.mark.parametrize("name", sorted(SWITCHES))
def test_the_switches_read_back_and_refuse_as_torch(name):
    got, want = _both(SWITCHES[name])
    assert got == want


EMPTIES = {
    "empty": lambda L, dt: L.empty(2, 3, dtype=dt),
    "empty_like": lambda L, dt: L.empty_like(L.zeros(3, dtype=dt)),
    "empty_strided": lambda L, dt: L.empty_strided((2, 2), (1, 2), dtype=dt),
    "new_empty": lambda L, dt: L.zeros(1, dtype=dt).new_empty(4),
    "new_empty_strided": lambda L, dt: L.zeros(1, dtype=dt).new_empty_strided((3,), (2,)),
    "empty channels_last": lambda L, dt: L.empty(1, 2, 2, 2, dtype=dt, memory_format=L.channels_last),
}
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(EMPTIES))
def test_empty_memory_is_filled_as_torch_s_under_the_deterministic_mode(name, dtype):
    """NaN for floats, an integer type's largest value, True; unset (minigrad: zeros) with the fill switched off."""
    for fill in (True, False):
        for lib in (mg, torch):
            lib.use_deterministic_algorithms(True)
            lib.utils.deterministic.fill_uninitialized_memory = fill
        got = EMPTIES[name](mg, getattr(mg, dtype))
        want = EMPTIES[name](torch, getattr(torch, dtype))
        assert got.stride() == want.stride()
        if fill:
            np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
        else:
            assert not got.float().numpy().any()  # minigrad's unset memory: zeros


def test_the_fill_leaves_empty_alone_without_the_mode():
    assert mg.empty(3).tolist() == [0.0, 0.0, 0.0]
    assert mg.empty_like(mg.ones(2, dtype=mg.int64)).tolist() == [0, 0]


def test_a_program_asking_for_deterministic_algorithms_runs_as_torch():
    """The DCGAN tutorial's first lines: seeds, then the mode; its draws are PyTorch's."""
    for lib in (mg, torch):
        lib.manual_seed(999)
        lib.use_deterministic_algorithms(True)
    assert mg.randn(3).tolist() == torch.randn(3).tolist()
    assert mg.are_deterministic_algorithms_enabled() and torch.are_deterministic_algorithms_enabled()
