"""Optimizers update CPU parameters on their arrays when no recorder listens.

The array path must give the same bits, the same state and the same version
counts as the op path (which a recorder still sees, event by event).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import optim
from minigrad.optim import update


def _run(make_opt: Callable[[list[mg.Tensor]], Any], dtype: str, steps: int = 4) -> tuple[list, list, list]:
    rng = np.random.default_rng(0)
    w = mg.nn.Parameter(mg.tensor(rng.standard_normal((3, 4)), dtype=dtype))
    b = mg.nn.Parameter(mg.tensor(rng.standard_normal(4), dtype=dtype))
    x = mg.tensor(rng.standard_normal((5, 3)), dtype=dtype)
    opt = make_opt([w, b])
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w + b).tanh() ** 2).sum().backward()
        opt.step()
    state = [{k: (v.numpy().copy() if isinstance(v, mg.Tensor) else v) for k, v in st.items()}
             for st in opt.state.values()]
    return [w.detach().numpy().copy(), b.detach().numpy().copy()], state, [w.version, b.version]


OPTIMIZERS = {
    "sgd": lambda ps: optim.SGD(ps, lr=0.1),
    "sgd-momentum-wd": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
    "sgd-nesterov": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
    "sgd-dampening-maximize": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.3, maximize=True),
    "adam": lambda ps: optim.Adam(ps, lr=0.01),
    "adam-wd": lambda ps: optim.Adam(ps, lr=0.01, weight_decay=0.1),
    "adamw": lambda ps: optim.AdamW(ps, lr=0.01),
    "adam-amsgrad-maximize": lambda ps: optim.Adam(ps, lr=0.01, amsgrad=True, maximize=True),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_array_updates_match_the_op_path_bit_for_bit(name: str, dtype: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _run(OPTIMIZERS[name], dtype)
    monkeypatch.setattr(update, "array_path_ok", lambda p, g: False)
    slow = _run(OPTIMIZERS[name], dtype)
    for a, b in zip(fast[0], slow[0]):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    assert len(fast[1]) == len(slow[1])
    for sa, sb in zip(fast[1], slow[1]):
        assert sa.keys() == sb.keys()
        for k in sa:
            if isinstance(sa[k], np.ndarray):
                assert sa[k].dtype == sb[k].dtype and sa[k].tobytes() == sb[k].tobytes(), k
            else:
                assert sa[k] == sb[k], k
    assert fast[2] == slow[2]


def test_the_array_path_is_taken_only_without_a_recorder() -> None:
    w = mg.nn.Parameter(mg.tensor([1.0, -1.0]))
    w.grad = mg.tensor([0.5, 0.5])
    assert update.array_path_ok(w, w.grad)
    with mg.trace():
        assert not update.array_path_ok(w, w.grad)
    half = mg.tensor([0.5, 0.5], dtype="float16")
    assert not update.array_path_ok(w, half)


def test_a_recorded_step_still_emits_the_update_ops() -> None:
    w = mg.nn.Parameter(mg.tensor([1.0, -1.0]))
    opt = optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    with mg.trace() as tr:
        opt.step()
    kinds = [e.kind for e in tr.events]
    assert "tensor.update" in kinds
    np.testing.assert_allclose(w.detach().numpy(), [0.8, -0.8])
    assert w.version == 1
