"""Lesson 4 tests: the search order (graded on ``kernel.lookup`` events) and a toy backend.

The fallback test records ``exp`` with your search order and with minigrad's and
compares the kernel-selection events with ``mg.trace.diff`` (the ``same_events``
fixture): a failure names the first probe where yours went elsewhere.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import dtypes
from minigrad.kernels import select
from minigrad.kernels.backends import register_backend, unregister_backend
from minigrad.kernels.key import Backend, KernelKey, Layout

F32 = dtypes.float32


def lookups(tr, op):
    return [(e.step, e.backend, e.layout, e.found) for e in tr.events if e.kind == "kernel.lookup" and e.op == op]


@pytest.fixture
def toy_device():
    """A bare TOY backend with no kernels (made here, independent of Task 4.2)."""
    register_backend("TOY", "toy", to_device=lambda a: np.array(a, copy=True), to_host=lambda a: np.array(a, copy=True))
    yield "toy"
    unregister_backend("TOY")


@pytest.fixture
def fallback_flags():
    saved = (mg.flags.enable_api_kernel_fallback, mg.flags.use_gpudnn)
    yield
    mg.flags.enable_api_kernel_fallback, mg.flags.use_gpudnn = saved
    select.clear_cache()


# -- Task 4.1: the search order ---------------------------------------------------


@pytest.mark.lesson4_task1
def test_order_for_a_gpu_key_with_gpudnn():
    steps = select.search_order(KernelKey(Backend.GPU, Layout.NCHW, F32), fallback=True, use_gpudnn=True)
    assert [(k.backend, k.layout, name, fb) for k, name, fb in steps] == [
        ("GPUDNN", "NCHW", "GPUDNN", False),
        ("GPUDNN", "ALL_LAYOUT", "GPUDNN/ALL_LAYOUT", False),
        ("GPU", "NCHW", "backend", False),
        ("GPU", "ALL_LAYOUT", "backend/ALL_LAYOUT", False),
        ("CPU", "NCHW", "CPU", True),
        ("CPU", "ALL_LAYOUT", "CPU/ALL_LAYOUT", True),
    ]
    assert all(k.dtype is F32 for k, _, _ in steps)


@pytest.mark.lesson4_task1
def test_order_without_gpudnn_or_fallback():
    key = KernelKey(Backend.GPU, Layout.NCHW, F32)
    assert [name for _, name, _ in select.search_order(key, fallback=True, use_gpudnn=False)] == [
        "backend", "backend/ALL_LAYOUT", "CPU", "CPU/ALL_LAYOUT"]
    assert [name for _, name, _ in select.search_order(key, fallback=False, use_gpudnn=True)] == [
        "GPUDNN", "GPUDNN/ALL_LAYOUT", "backend", "backend/ALL_LAYOUT"]


@pytest.mark.lesson4_task1
def test_no_repeated_probe_for_all_layout_keys_and_no_cpu_fallback_for_cpu():
    gpu = select.search_order(KernelKey(Backend.GPU, Layout.ALL_LAYOUT, F32), fallback=True, use_gpudnn=True)
    assert [name for _, name, _ in gpu] == ["GPUDNN", "backend", "CPU"]
    cpu = select.search_order(KernelKey(Backend.CPU, Layout.NCHW, F32), fallback=True, use_gpudnn=True)
    assert [name for _, name, _ in cpu] == ["backend", "backend/ALL_LAYOUT"], "GPUDNN is for GPU keys; CPU keys need no fallback"


@pytest.mark.lesson4_task1
def test_lookup_events_on_the_cpu():
    x = mg.tensor([1.0, 2.0])
    with mg.trace() as tr:
        x.exp()
    assert lookups(tr, "exp") == [("backend", "CPU", "NCHW", False), ("backend/ALL_LAYOUT", "CPU", "ALL_LAYOUT", True)]


def record_exp(device):
    """Record ``exp`` on ``device`` with a cold selection cache (the probes are the events)."""
    select.clear_cache()
    with mg.trace() as tr:
        x = mg.tensor([0.0, 1.0]).to(device)
        y = x.exp()
    return tr, y


@pytest.mark.lesson4_task1
def test_lookup_events_fall_back_to_the_cpu(toy_device, reference, same_events):
    # The reference's recording first: the same program with minigrad's own search_order.
    yours = select.search_order
    select.search_order = reference("minigrad.kernels.select", "search_order")
    try:
        want, _ = record_exp(toy_device)
    finally:
        select.search_order = yours
    tr, y = record_exp(toy_device)
    same_events(tr, want, kinds=["kernel.*", "data.transform"])
    assert lookups(tr, "exp") == [
        ("backend", "TOY", "NCHW", False),
        ("backend/ALL_LAYOUT", "TOY", "ALL_LAYOUT", False),
        ("CPU", "CPU", "NCHW", False),
        ("CPU/ALL_LAYOUT", "CPU", "ALL_LAYOUT", True),
    ]
    (sel,) = [e for e in tr.events if e.kind == "kernel.select"]
    assert sel.fallback_cpu and sel.backend == "CPU"
    assert y.device == toy_device, "after a CPU fallback the output goes back to the requested device"
    np.testing.assert_allclose(y.cpu().numpy(), np.exp([0.0, 1.0]), rtol=1e-6)


@pytest.mark.lesson4_task1
def test_fallback_off_is_a_clear_error(toy_device, fallback_flags):
    mg.flags.enable_api_kernel_fallback = False
    select.clear_cache()
    x = mg.tensor([0.0, 1.0]).to(toy_device)
    with pytest.raises(RuntimeError, match=r"backend -> backend/ALL_LAYOUT\)"):
        x.exp()


# -- Task 4.2: a toy backend -----------------------------------------------------


@pytest.fixture
def toy(student):
    mod = student.toy_backend
    mod.CALLS["add"] = 0
    mod.register_toy_backend()
    yield mod
    mod.unregister_toy_backend()


@pytest.mark.lesson4_task2
def test_toy_tensors_move_there_and_back(toy):
    x = mg.tensor([1.0, 2.0]).to("toy")
    assert x.device == "toy"
    np.testing.assert_array_equal(x.cpu().numpy(), [1.0, 2.0])


@pytest.mark.lesson4_task2
def test_toy_add_kernel_is_selected(toy):
    x = mg.tensor([1.0, 2.0]).to("toy")
    y = mg.tensor([10.0, 20.0]).to("toy")
    with mg.trace() as tr:
        z = x + y
    assert lookups(tr, "add")[-1] == ("backend/ALL_LAYOUT", "TOY", "ALL_LAYOUT", True)
    (sel,) = [e for e in tr.events if e.kind == "kernel.select"]
    assert (sel.kernel, sel.backend, sel.fallback_cpu) == ("toy/toy_add", "TOY", False)
    assert toy.CALLS["add"] == 1
    assert z.device == "toy"
    np.testing.assert_array_equal(z.cpu().numpy(), [11.0, 22.0])


@pytest.mark.lesson4_task2
def test_other_ops_fall_back_and_gradients_flow(toy):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.trace() as tr:
        loss = (x.to("toy").exp() + 1).sum()
    assert ("CPU/ALL_LAYOUT", "CPU", "ALL_LAYOUT", True) in lookups(tr, "exp")
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]), rtol=1e-6)
