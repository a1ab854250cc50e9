"""Lesson 5, Task 5.3: a GPU training loop that never makes Python wait for the GPU.

A GPU runs the kernels Python queues while Python goes on queuing the next ones. A line that needs
a value back on the host (``.item()``, ``print(tensor)``, ``.tolist()``) or that moves host data to
the GPU (``mg.tensor(number, device="gpu")``) makes Python wait until the GPU's queue is empty: a
*sync*. Once a step, it keeps the GPU idle while Python catches up. Each copy and each sync is an
event (``device.copy``, ``device.sync``) with the line that asked for it; ``minigrad-tui`` shows them
in its Device tab (key 6), by source line.

``train_with_syncs`` is the loop as first written. ``train`` is the same loop without a copy or a
sync inside a step: the same losses, read back once, after the last step.
"""

from __future__ import annotations

from typing import Any

import minigrad as mg

F = mg.nn.functional


def make_problem(device: str = "gpu", seed: int = 0) -> tuple[Any, Any, Any]:
    """The model and the batch both loops train: a two-layer MLP and 64 examples of 4 classes."""
    mg.manual_seed(seed)
    model = mg.nn.Sequential(mg.nn.Linear(16, 32), mg.nn.ReLU(), mg.nn.Linear(32, 4)).to(device)
    x, y = mg.randn(64, 16).to(device), mg.randint(0, 4, (64,)).to(device)
    return model, x, y


def train_with_syncs(model: Any, x: Any, y: Any, steps: int, lr: float = 0.1) -> list[float]:
    """Plain SGD for ``steps`` steps; returns the loss of each step. Two lines make Python wait for the
    GPU every step: can you find them in the Device tab?"""
    losses = []
    for step in range(steps):
        loss = F.cross_entropy(model(x), y)
        model.zero_grad()
        loss.backward()
        lr_t = mg.tensor(lr, device=x.device)
        with mg.no_grad():
            for p in model.parameters():
                p.sub_(lr_t * p.grad)
        losses.append(loss.item())
        print(f"step {step}: loss {losses[-1]:.4f}")
    return losses


def train(model: Any, x: Any, y: Any, steps: int, lr: float = 0.1) -> list[float]:
    """``train_with_syncs`` without a host<->device copy or a sync inside a step: the same losses
    (returned as floats, and printed, after the last step)."""
    # BEGIN LESSON 5 TASK 5.3: a training loop without syncs
    losses = []
    for step in range(steps):
        loss = F.cross_entropy(model(x), y)
        model.zero_grad()
        loss.backward()
        with mg.no_grad():
            for p in model.parameters():
                p.sub_(lr * p.grad)  # a Python number reaches the kernel as its argument: no copy
        losses.append(loss.detach())  # stays on the GPU
    values = mg.stack(losses).tolist()  # one copy and one sync, after the loop
    for step, value in enumerate(values):
        print(f"step {step}: loss {value:.4f}")
    return values
    # END LESSON 5 TASK 5.3
