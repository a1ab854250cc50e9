"""Backends: the public ``mg.register_backend`` API, array movers, and the lazy GPU backend."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import minigrad as mg
from minigrad.kernels import backends
from minigrad.kernels.key import Layout
from minigrad.kernels.registry import kernels_for

from _toy import TOY, ToyArray, events, on_toy, toy_backend


def test_register_backend_with_kernels_and_unregister_removes_them():
    calls = []

    def toy_neg(x):
        calls.append(type(x))
        return np.negative(x)

    info = mg.register_backend(
        "TOY2", to_device=lambda a: np.array(a).view(ToyArray), to_host=lambda a: np.array(a).view(np.ndarray),
        array_types=(ToyArray,), kernels={"neg": [(Layout.ALL_LAYOUT, [mg.float32], toy_neg)]},
    )
    try:
        assert info.device == "toy2" and "toy2" in backends.devices()
        x = mg.tensor([1.0, -2.0]).to("toy2")
        assert on_toy(x._data) and x.device == "toy2"
        y = -x
        assert calls == [ToyArray] and y.device == "toy2"
        np.testing.assert_allclose(y.numpy(), [-1.0, 2.0])
        assert any(k.backend == "TOY2" for k in kernels_for("neg"))
    finally:
        mg.unregister_backend("TOY2")
    assert not any(k.backend == "TOY2" for k in kernels_for("neg"))
    with pytest.raises(ValueError, match="unknown device 'toy2'"):
        mg.tensor([1.0]).to("toy2")


def test_register_backend_checks_its_arguments():
    with pytest.raises(TypeError, match="'name' must be a non-empty str"):
        mg.register_backend("")
    with pytest.raises(TypeError, match="'to_device' must be callable"):
        mg.register_backend("BAD", to_device=3)
    with pytest.raises(ValueError, match="cannot be replaced"):
        mg.register_backend("CPU")
    with pytest.raises(ValueError, match="cannot be unregistered"):
        mg.unregister_backend("CPU")


def test_to_and_back_emits_transforms_and_keeps_values():
    with toy_backend():
        x = mg.tensor([[1.0, 2.0]], requires_grad=True)
        with mg.trace() as tr:
            y = x.to("toy")
            z = y.to("cpu")
        assert [(e["from"], e["to"]) for e in events(tr, "data.transform")] == [("CPU", TOY), ("TOY", "CPU")]
        assert isinstance(y._data, ToyArray) and not isinstance(z._data, ToyArray)
        (z * 3).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [[3.0, 3.0]])


def test_device_and_base_backend_of_dnn_variant():
    with toy_backend():
        assert backends.device_of_backend("TOYDNN") == "toy"
        assert backends.base_backend("TOYDNN") == TOY
        assert backends.dnn_of(TOY) == "TOYDNN"
    assert backends.device_of_backend("GPUDNN") == "gpu"
    assert backends.base_backend("GPUDNN") == "GPU"
    assert backends.dnn_of("CPU") is None
    with pytest.raises(ValueError, match="unknown backend"):
        backends.device_of_backend("NOPE")


def test_move_array_through_host():
    with toy_backend():
        a = np.arange(3.0)
        t = backends.move_array(a, "cpu", "toy")
        assert isinstance(t, ToyArray)
        back = backends.move_array(t, "toy", "cpu")
        assert type(back) is np.ndarray and np.array_equal(back, a)
        assert backends.move_array(a, "cpu", "cpu") is a


def test_is_gpu_available_never_raises():
    assert isinstance(mg.is_gpu_available(), bool)


def test_import_minigrad_does_not_import_cupy():
    code = (
        "import sys, minigrad as mg; mg.is_gpu_available(); "
        "import minigrad.dispatch.amp; "
        "bad = [m for m in ('cupy', 'textual', 'rich', 'graphviz') if m in sys.modules]; "
        "print(bad)"
    )
    # is_gpu_available() may import cupy when it is installed; check the plain import separately.
    plain = subprocess.run([sys.executable, "-c", "import sys, minigrad; print([m for m in ('cupy', 'textual', "
                            "'rich', 'graphviz') if m in sys.modules])"], capture_output=True, text=True, check=True)
    assert plain.stdout.strip() == "[]"
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)


@pytest.mark.skipif(mg.is_gpu_available(), reason="a GPU is available here")
def test_asking_for_the_gpu_without_it_says_how_to_install():
    try:
        import cupy  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match=r'pip install -e "\.\[gpu\]"'):
            mg.tensor([1.0]).to("gpu")
    else:  # CuPy present but no device
        with pytest.raises(RuntimeError, match="CUDA device"):
            mg.tensor([1.0]).to("gpu")
    # The error is raised again on the next try (the loader is not consumed by a failure).
    with pytest.raises(RuntimeError):
        mg.tensor([1.0]).to("gpu")


def test_docstring_examples_run():
    import doctest

    import minigrad.dispatch.amp as amp

    for mod in (backends, amp):
        result = doctest.testmod(mod)
        assert result.attempted > 0 and result.failed == 0, mod.__name__
