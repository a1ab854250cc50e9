"""``mg.cpu``, PyTorch's ``torch.cpu``: the CPU as a device module for device-agnostic code, and the older
spelling of CPU mixed precision (``torch.cpu.amp``) with PyTorch's deprecation warnings."""

from __future__ import annotations

import warnings

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("fw", [mg, torch], ids=["minigrad", "torch"])
def test_the_device_module_answers_as_pytorchs(fw):
    cpu = fw.get_device_module("cpu")
    assert cpu is fw.cpu
    assert (cpu.is_available(), cpu.is_initialized(), cpu.device_count(), cpu.current_device()) == (True, True, 1,
                                                                                                      "cpu")
    assert cpu.synchronize() is None and cpu.synchronize("cpu") is None and cpu.set_device("cpu") is None
    s = cpu.Stream()
    default = cpu.current_stream()
    with cpu.stream(s):
        assert cpu.current_stream() is s
    assert cpu.current_stream() is default
    e = cpu.Event()
    e.record()
    assert e.query() is True and e.synchronize() is None and e.wait() is None
    assert s.wait_stream(default) is None and s.wait_event(e) is None and s.record_event() is None


def _warned(make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        obj = make()
    return obj, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("name", ["autocast", "GradScaler"])
def test_the_older_amp_spelling_warns_as_pytorchs_and_works(name):
    ours, our_words = _warned(lambda: getattr(mg.cpu.amp, name)())
    _, their_words = _warned(lambda: getattr(torch.cpu.amp, name)())
    assert our_words == their_words
    if name == "autocast":
        with ours:
            assert (mg.ones(2, 2) @ mg.ones(2, 2)).dtype is mg.bfloat16


@pytest.mark.parametrize("name", ["autocast", "GradScaler"])
def test_the_cuda_amp_spelling_warns_as_pytorchs(name):
    if mg.cuda.is_available() != torch.cuda.is_available():
        pytest.skip("the words after the deprecation depend on whether a GPU is there")
    _, our_words = _warned(lambda: getattr(mg.cuda.amp, name)())
    _, their_words = _warned(lambda: getattr(torch.cuda.amp, name)())
    assert our_words == their_words


def test_importable_as_pytorchs():
    import minigrad.cpu.amp as amp  # noqa: PLC0415  (the import is what is tested)

    assert amp is mg.cpu.amp and "cpu" in dir(mg)
