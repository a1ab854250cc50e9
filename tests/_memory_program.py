"""The program of the docs' memory pictures (web page and TUI): an MLP with a checkpointed block."""

from __future__ import annotations

import minigrad as mg


def checkpointed_mlp_events():
    """The program of the docs' pictures: an MLP whose middle block is checkpointed (non-reentrant)."""
    nn = mg.nn
    mg.manual_seed(0)
    model = nn.Sequential(nn.Sequential(nn.Linear(32, 64), nn.Tanh()),
                          nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 64), nn.Tanh()),
                          nn.Linear(64, 10))
    x, y = mg.randn(64, 32), mg.randint(0, 10, (64,))
    with mg.trace(values=False) as tr:
        h = model[0](x)
        h = mg.utils.checkpoint.checkpoint(model[1], h, use_reentrant=False)
        mg.nn.functional.cross_entropy(model[2](h), y).backward()
    return tr.events


def two_steps_then_sampling_events():
    """Two training steps of a small MLP (two backward passes), then a long forward-only tail (as text
    sampling is after training): the memory chart zooms to the span of the event shown."""
    nn = mg.nn
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
    x, y = mg.randn(8, 8), mg.randint(0, 4, (8,))
    with mg.trace(values=False) as tr:
        for _ in range(2):
            model.zero_grad()
            mg.nn.functional.cross_entropy(model(x), y).backward()
        with mg.no_grad():
            for _ in range(30):
                model(x)
    return tr.events
