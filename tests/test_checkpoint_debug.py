"""``checkpoint(debug=True)`` and ``set_checkpoint_debug_enabled`` against PyTorch: a recomputation that saves
other tensors than the forward is refused with both runs' operators listed (PyTorch's layout; minigrad's lines
name the program's line of each); the device-state helpers of ``torch.utils.checkpoint``."""

from __future__ import annotations

import re

import pytest

import minigrad as mg
import minigrad.utils.checkpoint  # noqa: F401

torch = pytest.importorskip("torch")
import torch.utils.checkpoint  # noqa: E402,F401


def _nondeterministic(lib):
    calls = [0]

    def block(t):
        calls[0] += 1
        return t.exp() if calls[0] == 1 else t.double().exp().float()  # the recomputation casts first

    return block


def _error(lib, **kwargs):
    x = lib.ones(3, requires_grad=True)
    y = lib.utils.checkpoint.checkpoint(_nondeterministic(lib), x, use_reentrant=False, **kwargs)
    with pytest.raises(lib.utils.checkpoint.CheckpointError) as info:
        y.sum().backward()
    return str(info.value)


def _ops(message, section):
    start = message.index(section) + len(section)
    block = message[start:].strip().split("\n\n")[0]
    lines = [re.sub(r"torch\._ops\.|minigrad\.|torch\.", "", line) for line in block.splitlines()]
    return [line for line in lines if "aten.detach" not in line]  # (checkpointing's own detaches: PyTorch's note)


def test_debug_lists_both_runs_operators_as_pytorchs():
    mine, theirs = _error(mg, debug=True), _error(torch, debug=True)
    for section in ("Operations executed during the original forward:", "Operations executed during recomputation:"):
        assert _ops(mine, section) == _ops(theirs, section)
    for header in ("1. Stack traces of the operators that ran in the original forward",
                   "2. Stack traces of the operators that ran during recomputation",
                   "ERROR: Detected non-determinism while running activation checkpointing"):
        assert header in mine and header in theirs
    assert "test_checkpoint_debug.py:" in mine  # each operator's line in the program


def test_the_switch_overrides_the_argument():
    with mg.utils.checkpoint.set_checkpoint_debug_enabled(True):
        assert "Operations executed during recomputation" in _error(mg)
    with mg.utils.checkpoint.set_checkpoint_debug_enabled(False):
        assert "Operations executed" not in _error(mg, debug=True)
    assert "Operations executed" not in _error(mg)


def test_debug_with_a_context_fn_is_refused_as_pytorchs():
    for lib in (mg, torch):
        cp = lib.utils.checkpoint
        with pytest.raises(ValueError, match="^debug=True is incompatible with non-default context_fn$"):
            cp.checkpoint(lambda t: t.exp(), lib.ones(2, requires_grad=True), use_reentrant=False, debug=True,
                          context_fn=lambda: cp.noop_context_fn())


def test_device_state_helpers_answer_as_pytorchs_on_the_cpu():
    for lib in (mg, torch):
        cp = lib.utils.checkpoint
        x = lib.ones(2)
        assert cp.get_device_states(x, [x, {"a": x}], 3) == ([], [])
        cp.set_device_states([], [])
        assert cp.DefaultDeviceType.get_device_type() == "cpu"
        cp.DefaultDeviceType.set_device_type("cuda")
        assert cp.DefaultDeviceType.get_device_type() == "cuda"
        cp.DefaultDeviceType.set_device_type("cpu")
