"""Lesson 6 tests: a training step, the loop with its progress bar, and the recorded step."""

from __future__ import annotations

import io

import numpy as np
import pytest

import minigrad as mg


@pytest.fixture
def lesson(student):
    return student.train


@pytest.mark.lesson6_task1
def test_train_step_updates_every_parameter(lesson):
    mg.manual_seed(0)
    x_train, _, y_train, _ = lesson.load_data()
    model = lesson.make_model(hidden=8)
    opt = mg.optim.SGD(model.parameters(), lr=0.5)
    before = [p.detach().numpy().copy() for p in model.parameters()]
    xb, yb = mg.tensor(x_train[:32]), mg.tensor(y_train[:32])
    loss0 = lesson.train_step(model, opt, xb, yb)
    assert isinstance(loss0, float) and np.isfinite(loss0)
    assert all(not np.allclose(b, p.detach().numpy()) for b, p in zip(before, model.parameters()))
    losses = [lesson.train_step(model, opt, xb, yb) for _ in range(20)]
    assert losses[-1] < loss0, "repeating the step on one batch must lower its loss"


@pytest.mark.lesson6_task1
def test_train_step_clears_old_gradients(lesson):
    mg.manual_seed(0)
    x_train, _, y_train, _ = lesson.load_data()
    model = lesson.make_model(hidden=8)
    opt = mg.optim.SGD(model.parameters(), lr=0.0)  # lr 0: parameters stay, gradients are inspected
    xb, yb = mg.tensor(x_train[:8]), mg.tensor(y_train[:8])
    lesson.train_step(model, opt, xb, yb)
    first = [p.grad.numpy().copy() for p in model.parameters()]
    lesson.train_step(model, opt, xb, yb)
    for g, p in zip(first, model.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-6, err_msg="zero the gradients before backward")


@pytest.mark.lesson6_task2
def test_training_reaches_90_percent_with_a_progress_bar(lesson):
    from rich.console import Console

    buf = io.StringIO()
    acc = lesson.train(epochs=4, console=Console(file=buf, force_terminal=True, width=100))
    assert acc >= 0.9, f"test accuracy {acc:.3f} after 4 epochs"
    out = buf.getvalue()
    assert "epoch 4/4" in out and "loss" in out, "the bar's description shows the epoch and the loss"


@pytest.mark.lesson6_task3
def test_recorded_step_loads_and_replays(lesson, tmp_path):
    path = lesson.record_step(tmp_path / "step.jsonl")
    events = mg.trace.load(path).events
    kinds = [e.kind for e in events]
    assert kinds.count("backward.begin") == 1 and kinds.count("backward.end") == 1
    created = {e.node: e for e in events if e.kind == "node.create"}
    ran = [e.node for e in events if e.kind == "node.run"]
    assert sorted(ran) == sorted(created), "every grad node of the step runs once"
    ops = {e.op for e in created.values()}
    assert {"addmm", "t", "relu", "log_softmax", "nll_loss"} <= ops  # nn.Linear and cross_entropy, as PyTorch builds them
    assert sum(e.is_accumulation for e in created.values()) == 4, "one AccumulateGrad node per parameter"
    assert any(e.kind == "grad.accumulate" for e in events)
    states = mg.trace.replay(events)
    assert len(states) > 0
