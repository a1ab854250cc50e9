"""A program that makes the recorder emit every kind the CPU engine has, for ``test_recorder_cache.py``.

``tests/fixtures/recorder_golden.jsonl.gz`` holds its trace as recorded by the
engine before the recorder built its events with ``Event.new`` and cached the
kernel layer's (NOTE [ Kernel-layer events are cached ] in ``kernels/api.py``):
the events must stay the same, field for field. ``normalise`` drops what
changes from run to run (``ts_ns``, ``wall_ns``) and the folder of ``source``.

Regenerate (only when the event contract itself changes, on purpose)::

    python tests/_recorder_workload.py | gzip -9 -n > tests/fixtures/recorder_golden.jsonl.gz

Keep this file's lines where they are: ``source`` fields name them.
"""

from __future__ import annotations

import importlib
import itertools
import json
import os
from typing import Any

import numpy as np

import minigrad as mg
from minigrad.autograd import grad_node as _grad_node_mod
from minigrad.kernels import select as _select

_tensor_mod = importlib.import_module("minigrad.tensor")  # ``minigrad.tensor`` the attribute is the function


def _fresh_state() -> None:
    """Ids and caches as in a fresh process, so two runs give the same ids and ``cached`` flags."""
    _tensor_mod._tensor_ids = itertools.count(1)
    _grad_node_mod._node_ids = itertools.count(1)
    _grad_node_mod._seq_nrs = itertools.count(0)
    _select.clear_cache()
    mg.manual_seed(0)


def program() -> None:
    """Forward ops of every shape of call, hooks, in-place, backward, grad(), a module, AMP, a dtype transform."""
    a = mg.randn(2, 3, requires_grad=True)
    b = mg.randn(2, 3, requires_grad=True)
    c = (a * b + a) * 2.0  # a scalar operand: a 0-d tensor is announced
    c.register_hook(lambda g: g * 1.0)
    d = c.relu().sum(dim=1, keepdim=True)  # attrs: ints and bools
    d.retain_grad()
    e = mg.concat([a, b, c], axis=0)  # a list input
    f = e.reshape((3, 6))[1:, ::2]  # tuple and slice attributes
    parts = mg.split(f, 1, dim=0)  # several outputs
    g = (parts[0] * parts[1]).sum() + d.sum()
    h = g * 1.0
    h.add_(1.0)  # in place: tensor.update, a new grad node
    h.backward(retain_graph=True)
    h.backward()  # gradients accumulate: grad.accumulate adds
    p = (a * 2.0).sum()
    mg.autograd.backward([p, p * 3.0])  # p's node starts first but waits for the other: queue.skip
    x = mg.randn(3, requires_grad=True)
    y = mg.randn(3, requires_grad=True)
    z = (x * y).exp()
    w = (z * x).sum()
    mg.grad([w], [x, y], create_graph=True)  # GeneralGrad: copy, targets, update, result
    mg.grad([w.detach().requires_grad_() * 1.0 + (z * y).sum()], [x], no_grad_vars=[z], allow_unused=True)
    model = mg.nn.Sequential(mg.nn.Linear(4, 3), mg.nn.ReLU(), mg.nn.Linear(3, 2))
    opt = mg.optim.SGD(list(model.parameters()), lr=0.1, momentum=0.9)
    xb = mg.tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 8)
    yb = mg.tensor(np.array([0, 1]))
    for _ in range(2):
        opt.zero_grad()
        mg.nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()
    with mg.autocast(level="O1"):
        (mg.randn(2, 2, requires_grad=True) @ mg.randn(2, 2)).sum().backward()
    (mg.tensor([1.0, 2.0], dtype=mg.float16) + mg.tensor([0.5, 0.25])).sum()  # data.transform (dtype)


def record(values: bool, max_elements: int) -> list[dict[str, Any]]:
    """The normalised events of ``program()`` recorded with these settings."""
    _fresh_state()
    with mg.trace(values=values, max_elements=max_elements) as tr:
        program()
    return [normalise(json.loads(line)) for line in tr.to_jsonl().splitlines()[1:]]


def normalise(ev: dict[str, Any]) -> dict[str, Any]:
    """``ev`` without its timing fields, and with ``source`` reduced to ``file name:line``."""
    ev = {k: v for k, v in ev.items() if k not in ("ts_ns", "wall_ns")}
    if isinstance(ev.get("source"), str):
        ev["source"] = os.path.basename(ev["source"])
    return ev


SETTINGS = ((True, 4), (False, 64))


if __name__ == "__main__":
    for values, max_elements in SETTINGS:
        for ev in record(values, max_elements):
            print(json.dumps({"settings": [values, max_elements], **ev}, separators=(",", ":")))
