"""Lesson 6: train an MLP on scikit-learn's digits with mg.nn / mg.optim, then record one step.

Run it:  python train.py            (trains, prints the accuracy, writes step.jsonl)
         minigrad-tui step.jsonl    (step through the recorded backward pass)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import minigrad as mg


def load_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Digits (8x8 images as 64 features in [0, 1]), split 75/25: x_train, x_test, y_train, y_test."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    return train_test_split(x, y, test_size=0.25, random_state=seed, stratify=y)


def make_model(hidden: int = 64) -> mg.nn.Module:
    """64 -> hidden -> ReLU -> 10."""
    return mg.nn.Sequential(mg.nn.Linear(64, hidden), mg.nn.ReLU(), mg.nn.Linear(hidden, 10))


def accuracy(model: mg.nn.Module, x: np.ndarray, y: np.ndarray) -> float:
    """Share of correctly classified rows (no graph is built)."""
    with mg.no_grad():
        logits = model(mg.tensor(x))
    return float((logits.numpy().argmax(axis=1) == y).mean())


def train_step(model: mg.nn.Module, opt: Any, xb: mg.Tensor, yb: mg.Tensor) -> float:
    """One step: clear the gradients, forward, cross-entropy loss, backward, optimizer step.

    Returns:
        the loss before the step, as a Python float.
    """
    # BEGIN LESSON 6 TASK 6.1: one training step
    opt.zero_grad()
    loss = mg.nn.functional.cross_entropy(model(xb), yb)
    loss.backward()
    opt.step()
    return loss.item()
    # END LESSON 6 TASK 6.1


def train(epochs: int = 5, batch_size: int = 64, lr: float = 3e-3, seed: int = 0, console: Any = None) -> float:
    """Train ``make_model()`` with Adam for ``epochs``, showing a rich progress bar; return the test accuracy.

    The bar advances once per batch and its description shows the epoch and
    the running mean loss (``"epoch 2/5 loss 0.3141"``). ``console`` is a
    ``rich.console.Console`` to draw on (default: the terminal).
    """
    # BEGIN LESSON 6 TASK 6.2: the training loop with a progress bar
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    mg.manual_seed(seed)
    x_train, x_test, y_train, y_test = load_data(seed)
    model = make_model()
    opt = mg.optim.Adam(model.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    batches = (len(x_train) + batch_size - 1) // batch_size
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("training", total=epochs * batches)
        for epoch in range(epochs):
            order = rng.permutation(len(x_train))
            total = 0.0
            for b, start in enumerate(range(0, len(order), batch_size)):
                idx = order[start : start + batch_size]
                total += train_step(model, opt, mg.tensor(x_train[idx]), mg.tensor(y_train[idx]))
                progress.update(task, advance=1, description=f"epoch {epoch + 1}/{epochs} loss {total / (b + 1):.4f}")
    return accuracy(model, x_test, y_test)
    # END LESSON 6 TASK 6.2


def record_step(path: str | Path = "step.jsonl", batch_size: int = 16, seed: int = 0) -> Path:
    """Record one training step of a fresh model under ``mg.trace`` and save it as JSON Lines.

    Use ``values=True`` with ``max_elements=64`` so small gradients are
    previewed. Returns the path; open it with ``minigrad-tui <path>``.
    """
    # BEGIN LESSON 6 TASK 6.3: record one step
    mg.manual_seed(seed)
    x_train, _, y_train, _ = load_data(seed)
    model = make_model(hidden=16)
    opt = mg.optim.SGD(model.parameters(), lr=0.1)
    with mg.trace(values=True, max_elements=64) as tr:
        train_step(model, opt, mg.tensor(x_train[:batch_size]), mg.tensor(y_train[:batch_size]))
    path = Path(path)
    tr.save(path)
    return path
    # END LESSON 6 TASK 6.3


if __name__ == "__main__":
    print(f"test accuracy: {train():.3f}")
    print(f"recorded one step in {record_step()}; open it with: minigrad-tui step.jsonl")
