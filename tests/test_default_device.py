"""``mg.set_default_device`` / ``mg.get_default_device``, as PyTorch's: factory functions given no ``device=``
use the default; a call that names a device, and ``*_like``, do not. (The GPU half of this runs in
``tests/gpu/test_gpu_kernels.py``, on the emulated CuPy where no GPU exists.)"""

from __future__ import annotations

import inspect

import pytest

import minigrad as mg


@pytest.fixture(autouse=True)
def _restore_default_device():
    yield
    mg.set_default_device(None)


def test_default_device_is_the_cpu_and_reads_as_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    assert repr(mg.get_default_device()) == repr(torch.get_default_device())
    mg.set_default_device("cpu")
    torch.set_default_device("cpu")
    try:
        assert repr(mg.get_default_device()) == repr(torch.get_default_device())
        assert mg.zeros(2).device == "cpu" and mg.tensor([1.0]).device == "cpu"
    finally:
        torch.set_default_device(None)


def test_factories_take_the_default_when_given_no_device() -> None:
    """Every factory's ``device`` defaults to None (the default device), as PyTorch's signatures."""
    for name in ("tensor", "zeros", "ones", "full", "arange", "randn", "rand", "eye", "linspace", "randint", "randperm",
                 "empty", "normal"):
        assert inspect.signature(getattr(mg, name)).parameters["device"].default is None, name


def test_an_unknown_default_device_is_refused_and_changes_nothing() -> None:
    with pytest.raises(ValueError, match="set_default_device\\(\\): argument 'device': unknown device 'tpu'"):
        mg.set_default_device("tpu")
    with pytest.raises(TypeError, match="must be str"):
        mg.set_default_device(1.5)
    assert mg.get_default_device() == "cpu" and mg.ones(1).device == "cpu"
