"""Kernel selection (Paddle's paddle/phi/core/kernel_factory.cc): every step of the search order, the CPU fallback and its events.

The TOY backend (``tests/_toy.py``) stands in for a device, and its
``TOYDNN`` variant for GPUDNN, so each branch runs on CPU-only CI. Tensors
are NCHW by default, so the request key is ``(TOY, NCHW, float32)`` and the
six probes are TOYDNN, TOYDNN/ALL_LAYOUT, backend, backend/ALL_LAYOUT, CPU,
CPU/ALL_LAYOUT.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.kernels.key import Backend, KernelKey, Layout
from minigrad.kernels.select import search_order, select_kernel

from _toy import TOY, TOYDNN, ToyArray, events, on_toy, toy_backend, toy_kernel

F32 = mg.float32


@pytest.fixture
def toy():
    with toy_backend() as info:
        yield info


def _pair():
    a = mg.tensor([[1.0, -2.0], [3.0, 4.0]]).to("toy")
    b = mg.tensor([[0.5, 0.5], [2.0, -1.0]]).to("toy")
    return a, b


def _lookups(tr, op):
    return [(e["step"], e["backend"], e["layout"], e["found"]) for e in events(tr, "kernel.lookup") if e["op"] == op]


def _select(tr, op):
    return [e for e in events(tr, "kernel.select") if e["op"] == op]


# -- the search order as data ---------------------------------------------------


def test_gpu_search_order_names_the_six_steps():
    key = KernelKey(Backend.GPU, Layout.NCHW, F32)
    steps = [(k.backend, k.layout, step, fb) for k, step, fb in search_order(key, fallback=True, use_gpudnn=True)]
    assert steps == [
        ("GPUDNN", "NCHW", "GPUDNN", False),
        ("GPUDNN", "ALL_LAYOUT", "GPUDNN/ALL_LAYOUT", False),
        ("GPU", "NCHW", "backend", False),
        ("GPU", "ALL_LAYOUT", "backend/ALL_LAYOUT", False),
        ("CPU", "NCHW", "CPU", True),
        ("CPU", "ALL_LAYOUT", "CPU/ALL_LAYOUT", True),
    ]


def test_search_order_flags_and_all_layout_keys():
    key = KernelKey(Backend.GPU, Layout.ALL_LAYOUT, F32)
    assert [s for _, s, _ in search_order(key, True, True)] == ["GPUDNN", "backend", "CPU"]
    nchw = KernelKey(Backend.GPU, Layout.NCHW, F32)
    assert [s for _, s, _ in search_order(nchw, fallback=False, use_gpudnn=False)] == ["backend", "backend/ALL_LAYOUT"]
    cpu = KernelKey(Backend.CPU, Layout.NCHW, F32)
    # A CPU request has no fallback steps (it *is* the CPU) and no dnn variant.
    assert [s for _, s, _ in search_order(cpu, True, True)] == ["backend", "backend/ALL_LAYOUT"]


# -- each step hit, end to end ----------------------------------------------------


def test_dnn_variant_hit_first(toy):
    toy_kernel("add", TOYDNN, Layout.NCHW)
    toy_kernel("add", TOY, Layout.NCHW)  # must not be chosen: the dnn variant outranks it
    a, b = _pair()
    with mg.trace() as tr:
        out = a + b
    assert _lookups(tr, "add") == [(TOYDNN, TOYDNN, "NCHW", True)]
    (sel,) = _select(tr, "add")
    assert (sel["kernel"], sel["backend"], sel["fallback_cpu"]) == ("toydnn/add_toydnn_nchw", TOYDNN, False)
    assert out.device == "toy" and on_toy(out._data)
    np.testing.assert_allclose(out.numpy(), [[1.5, -1.5], [5.0, 3.0]])
    # The dnn kernel runs on its base backend's device: no data.transform.
    assert events(tr, "data.transform") == []


def test_dnn_all_layout_hit(toy):
    toy_kernel("add", TOYDNN, Layout.ALL_LAYOUT)
    a, b = _pair()
    with mg.trace() as tr:
        a + b
    assert _lookups(tr, "add") == [(TOYDNN, TOYDNN, "NCHW", False), (f"{TOYDNN}/ALL_LAYOUT", TOYDNN, "ALL_LAYOUT", True)]
    assert _select(tr, "add")[0]["backend"] == TOYDNN


def test_use_gpudnn_off_skips_the_dnn_steps(toy):
    toy_kernel("add", TOYDNN, Layout.ALL_LAYOUT)
    toy_kernel("add", TOY, Layout.ALL_LAYOUT)
    mg.flags.use_gpudnn = False
    a, b = _pair()
    with mg.trace() as tr:
        a + b
    assert [s for s, *_ in _lookups(tr, "add")] == ["backend", "backend/ALL_LAYOUT"]
    assert _select(tr, "add")[0]["backend"] == TOY


def test_backend_hit(toy):
    seen = toy_kernel("mul", TOY, Layout.NCHW)
    a, b = _pair()
    with mg.trace() as tr:
        out = a * b
    assert _lookups(tr, "mul") == [
        (TOYDNN, TOYDNN, "NCHW", False),
        (f"{TOYDNN}/ALL_LAYOUT", TOYDNN, "ALL_LAYOUT", False),
        ("backend", TOY, "NCHW", True),
    ]
    assert all(on_toy(x) for x in seen[0])
    np.testing.assert_allclose(out.numpy(), [[0.5, -1.0], [6.0, -4.0]])


def test_backend_all_layout_hit(toy):
    toy_kernel("sub", TOY, Layout.ALL_LAYOUT)
    a, b = _pair()
    with mg.trace() as tr:
        out = a - b
    assert [s for s, *_, f in _lookups(tr, "sub")] == [TOYDNN, f"{TOYDNN}/ALL_LAYOUT", "backend", "backend/ALL_LAYOUT"]
    assert _lookups(tr, "sub")[-1] == ("backend/ALL_LAYOUT", TOY, "ALL_LAYOUT", True)
    assert _select(tr, "sub")[0]["fallback_cpu"] is False
    np.testing.assert_allclose(out.numpy(), [[0.5, -2.5], [1.0, 5.0]])


def test_cpu_fallback_moves_inputs_and_output_back(toy):
    # conv2d has a CPU kernel registered for NCHW: the "CPU" step finds it.
    x = mg.randn(1, 2, 5, 5).to("toy")
    w = mg.randn(3, 2, 3, 3).to("toy")
    with mg.trace() as tr:
        out = mg.conv2d(x, w)
    assert [(s, f) for s, _, _, f in _lookups(tr, "conv2d")] == [
        (TOYDNN, False), (f"{TOYDNN}/ALL_LAYOUT", False), ("backend", False), ("backend/ALL_LAYOUT", False), ("CPU", True)
    ]
    (sel,) = _select(tr, "conv2d")
    assert (sel["backend"], sel["layout"], sel["fallback_cpu"]) == ("CPU", "NCHW", True)
    moves = [(e["arg"], e["what"], e["from"], e["to"]) for e in events(tr, "data.transform") if e["op"] == "conv2d"]
    assert moves == [("x", "backend", TOY, "CPU"), ("weight", "backend", TOY, "CPU"), ("out", "backend", "CPU", TOY)]
    # The output is back on the requested device, as a TOY array.
    assert out.device == "toy" and isinstance(out._data, ToyArray)
    ref = mg.conv2d(x.to("cpu"), w.to("cpu"))
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6)
    # transform order: backend moves happen after selection, the move back after the launch
    kinds = [e.kind for e in tr.events if getattr(e, "op", None) == "conv2d"]
    assert kinds.index("kernel.select") < kinds.index("data.transform") < kinds.index("kernel.launch")
    assert kinds[-1] == "data.transform"


def test_cpu_all_layout_fallback(toy):
    x = mg.tensor([0.0, 1.0]).to("toy")
    with mg.trace() as tr:
        out = x.exp()
    steps = _lookups(tr, "exp")
    # A 1-D tensor still carries the default NCHW tag, so all six steps run.
    assert [s for s, *_ in steps] == [TOYDNN, f"{TOYDNN}/ALL_LAYOUT", "backend", "backend/ALL_LAYOUT", "CPU", "CPU/ALL_LAYOUT"]
    assert [f for *_, f in steps] == [False] * 5 + [True]
    assert _select(tr, "exp")[0]["fallback_cpu"] is True
    assert out.device == "toy"
    np.testing.assert_allclose(out.numpy(), np.exp([0.0, 1.0]), rtol=1e-6)


def test_fallback_gradients_return_to_the_device(toy):
    x = mg.tensor([0.5, 1.5], requires_grad=True)
    y = x.to("toy")
    (y.exp() * y).sum().backward()
    assert x.grad.device == "cpu"
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, 1.5]) * (1 + np.array([0.5, 1.5])), rtol=1e-5)


def test_fallback_off_raises_naming_op_key_and_flag(toy):
    mg.flags.enable_api_kernel_fallback = False
    x = mg.tensor([0.0, 1.0]).to("toy")
    with pytest.raises(RuntimeError) as e:
        x.exp()
    msg = str(e.value)
    assert msg.startswith("exp(): no kernel registered for key (TOY, NCHW, float32)")
    assert "enable_api_kernel_fallback" in msg and "backend -> backend/ALL_LAYOUT" in msg


def test_fallback_off_still_finds_the_backend_kernel(toy):
    mg.flags.enable_api_kernel_fallback = False
    toy_kernel("add", TOY)
    a, b = _pair()
    assert (a + b).device == "toy"


def test_nothing_registered_raises_naming_op_and_key():
    x = mg.tensor([True, False])
    with pytest.raises(RuntimeError, match=r"abs\(\): no kernel registered for key \(CPU, NCHW, bool\)"):
        x.abs()


def test_unknown_op_in_registry_raises():
    with pytest.raises(RuntimeError, match="no kernel is registered for this op at all"):
        select_kernel("no_such_op", KernelKey(Backend.CPU, Layout.NCHW, F32))


def test_cache_hit_reemits_probes(toy):
    toy_kernel("sub", TOY, Layout.ALL_LAYOUT)
    a, b = _pair()
    with mg.trace() as tr1:
        a - b
    with mg.trace() as tr2:
        a - b
    assert _lookups(tr1, "sub") == _lookups(tr2, "sub")
    assert _select(tr1, "sub")[0]["cached"] is False
    assert _select(tr2, "sub")[0]["cached"] is True
    # The cache is keyed on the flags: turning fallback off is a fresh search.
    sel1, cached1 = select_kernel("sub", KernelKey(TOY, Layout.NCHW, F32))
    assert cached1
    mg.flags.enable_api_kernel_fallback = False
    _, cached2 = select_kernel("sub", KernelKey(TOY, Layout.NCHW, F32))
    assert not cached2


def test_registering_a_kernel_invalidates_the_cache(toy):
    a, b = _pair()
    with mg.trace() as tr1:
        a - b
    assert _select(tr1, "sub")[0]["fallback_cpu"] is True
    toy_kernel("sub", TOY)
    with mg.trace() as tr2:
        a - b
    (sel,) = _select(tr2, "sub")
    assert (sel["backend"], sel["cached"], sel["fallback_cpu"]) == (TOY, False, False)


def test_kernel_key_event_precedes_lookups_and_has_promoted_dtype(toy):
    toy_kernel("add", TOY)
    a = mg.tensor([1.0, 2.0], dtype=mg.float16).to("toy")
    b = mg.tensor([1.0, 2.0]).to("toy")
    with mg.trace() as tr:
        out = a + b
    (key,) = events(tr, "kernel.key")
    assert key == {"kind": "kernel.key", "op": "add", "backend": TOY, "layout": "NCHW", "dtype": "float32"}
    assert out.dtype == mg.float32


def test_cpu_and_device_inputs_give_the_device_key(toy):
    """A 0-d CPU tensor with a device's tensor: the device's key, the CPU operand moved (a 1-d one is refused,
    as PyTorch refuses it: tests/test_prepare_data.py)."""
    toy_kernel("add", TOY)
    a = mg.tensor([1.0, 2.0]).to("toy")
    b = mg.tensor(3.0)
    with mg.trace() as tr:
        out = a + b
    assert events(tr, "kernel.key")[0]["backend"] == TOY
    # the CPU operand is moved to TOY (backend transform on by default)
    assert [(e["arg"], e["from"], e["to"]) for e in events(tr, "data.transform")] == [("y", "CPU", TOY)]
    assert out.device == "toy"


def test_no_events_and_no_allocation_of_events_without_recorder(toy, monkeypatch):
    from minigrad.tracing import events as ev

    toy_kernel("add", TOY)
    a, b = _pair()
    created = []
    for cls in (ev.KernelLookup, ev.KernelSelect, ev.DataTransform, ev.KernelKeyEvent):
        orig = cls.__init__

        def init(self, *args, __orig=orig, **kw):
            created.append(type(self).__name__)
            __orig(self, *args, **kw)

        monkeypatch.setattr(cls, "__init__", init)
    a + b
    a.exp()
    assert created == []
