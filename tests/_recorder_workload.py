"""A program that makes the recorder emit every kind the CPU engine has, for ``test_recorder_cache.py``.

``tests/fixtures/recorder_golden.jsonl.gz`` holds its trace as recorded by the
engine before the recorder built its events with ``Event.new`` and cached the
kernel layer's (NOTE [ Kinds of call ] in ``kernels/api.py``):
the events must stay the same, field for field. ``normalise`` drops what
changes from run to run (``ts_ns``, ``wall_ns``) and the folder of ``source``.

The test runs this file in a fresh process (tensor and node ids count from 1
there), as the fixture was made. Regenerate it only when the engine's events
change on purpose (run with the engine those events come from)::

    python tests/_recorder_workload.py | gzip -9 -n > tests/fixtures/recorder_golden.jsonl.gz

Keep this file's lines where they are: ``source`` fields name them.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

import minigrad as mg
from minigrad.kernels import select as _select


def _fresh_state() -> None:
    """Selections as in a fresh process (``kernel.select``'s ``cached``), and the same random numbers."""
    _select.clear_cache()
    mg.manual_seed(0)


def program() -> None:
    """Forward ops of every shape of call, hooks, in-place, backward, grad(), a module, AMP, a dtype cast, checkpoint."""
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
    w = mg.randn(2, requires_grad=True)  # activation checkpointing: recompute.begin / recompute.end
    mg.utils.checkpoint.checkpoint(lambda t: (t * t).sin(), w, use_reentrant=False).sum().backward()
    hv = mg.randn(2, 3, requires_grad=True) * 2.0
    hv[1].mul_(3.0)  # through a view: tensor.version, history.rewrite (CopySlices)
    hv.sum().backward()
    try:
        mg.ones(2, 3) @ mg.ones(2, 3)  # an op call that fails: error
    except ValueError:
        pass
    m = mg.randn(2, 2, requires_grad=True)  # selective checkpointing: checkpoint.saved (keep, then reuse)
    keep = lambda: mg.utils.checkpoint.create_selective_checkpoint_contexts([mg.ops.aten.mm.default])  # noqa: E731
    mg.utils.checkpoint.checkpoint(lambda t: (t @ t).sin(), m, use_reentrant=False, context_fn=keep).sum().backward()


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


#: (values, max_elements) of each recording, in order. The third repeats the first: by then every
#: cache of the recorder is warm (ids go on counting, so the fixture records them as they come).
SETTINGS = ((True, 4), (False, 64), (True, 4))


def main() -> None:
    """Print every recording's normalised events as JSON Lines, each tagged with its run."""
    for run, (values, max_elements) in enumerate(SETTINGS):
        for ev in record(values, max_elements):
            print(json.dumps({"run": run, **ev}, separators=(",", ":")))


if __name__ == "__main__":
    main()
