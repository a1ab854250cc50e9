"""Lesson 10 tests: your numbers against ``mg.trace.memory`` of real runs, and the events of your
checkpoint and your hooks.

Run one task with ``pytest -m lesson10_task1`` (``lesson10_task2``, ``lesson10_task3``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg


def saved_when_backward_begins(events) -> int:
    """The bytes alive in the ``saved`` category at the first ``backward.begin``."""
    begin = [e.kind for e in events].index("backward.begin")
    return mg.trace.memory(events).at(begin).saved


def three_blocks(p: float = 0.2) -> mg.nn.Sequential:
    mg.manual_seed(0)
    nn = mg.nn
    return nn.Sequential(nn.Sequential(nn.Linear(12, 24), nn.Tanh()),
                         nn.Sequential(nn.Linear(24, 24), nn.Tanh(), nn.Dropout(p), nn.Linear(24, 24)),
                         nn.Linear(24, 5)).double()


def step(model, forward, seed: int = 3):
    """One loss and its gradients (x gets one too), recorded."""
    mg.manual_seed(seed)
    x = mg.randn(8, 12, dtype=mg.float64, requires_grad=True)
    y = mg.randint(0, 5, (8,))
    with mg.trace(values=False) as tr:
        loss = mg.nn.functional.cross_entropy(forward(model, x), y)
        loss.backward()
    return loss.item(), [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()], tr.events


# -- Task 10.1: predict the saved bytes ------------------------------------------------------------


@pytest.mark.lesson10_task1
@pytest.mark.parametrize("widths, batch", [([8, 16, 4], 5), ([3, 7, 7, 2], 11), ([10, 3], 4), ([6, 32, 32, 32, 10], 64)])
def test_prediction_equals_the_recording(student, compare, widths, batch):
    mg.manual_seed(0)
    model = student.memory_lesson.mlp(widths)
    x, y = mg.randn(batch, widths[0]), mg.randint(0, widths[-1], (batch,))
    with mg.trace(values=False) as tr:
        mg.nn.functional.cross_entropy(model(x), y).backward()
    compare(student.memory_lesson.predict_saved_bytes(widths, batch), saved_when_backward_begins(tr.events),
            f"bytes saved for backward, widths {widths}, batch {batch}", expected_from="the recording")


@pytest.mark.lesson10_task1
def test_prediction_scales_with_the_item_size(student, compare):
    mg.manual_seed(0)
    model = student.memory_lesson.mlp([5, 9, 3]).double()
    x, y = mg.randn(7, 5, dtype=mg.float64), mg.randint(0, 3, (7,))
    with mg.trace(values=False) as tr:
        mg.nn.functional.cross_entropy(model(x), y).backward()
    compare(student.memory_lesson.predict_saved_bytes([5, 9, 3], 7, itemsize=8), saved_when_backward_begins(tr.events),
            "bytes saved for backward in float64, widths [5, 9, 3], batch 7", expected_from="the recording")


# -- Task 10.2: checkpoint the middle block --------------------------------------------------------


@pytest.mark.lesson10_task2
def test_checkpointed_step_equals_the_plain_one(student, compare):
    plain_loss, plain_grads, _ = step(three_blocks(), lambda m, x: m(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # leaving out use_reentrant warns
        loss, grads, _ = step(three_blocks(), student.memory_lesson.checkpoint_middle)
    compare(loss, plain_loss, "the loss of the step", expected_from="the step without a checkpoint")
    for a, b in zip(grads, plain_grads):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)  # the dropout mask was drawn again, the same


@pytest.mark.lesson10_task2
def test_the_block_runs_again_inside_backward_and_saves_less(student, compare):
    _, _, plain = step(three_blocks(), lambda m, x: m(x))
    _, _, events = step(three_blocks(), student.memory_lesson.checkpoint_middle)
    kinds = [e.kind for e in events]
    assert "recompute.begin" in kinds, "no recomputation: is model[1] run through mg.utils.checkpoint?"
    assert kinds.index("backward.begin") < kinds.index("recompute.begin") < kinds.index("recompute.end")
    assert next(e.mode for e in events if e.kind == "recompute.begin") == "non_reentrant"
    expected = mg.trace.memory(plain).what_if_checkpoint("Sequential.1")["saved_bytes_if_checkpointed"]
    assert expected < saved_when_backward_begins(plain)
    compare(saved_when_backward_begins(events), expected, "bytes saved when backward begins",
            expected_from="what_if_checkpoint of the plain step")


# -- Task 10.3: float16 saved tensors ---------------------------------------------------------------


@pytest.mark.lesson10_task3
def test_every_float_save_is_packed_as_float16_and_comes_back_in_its_dtype(student):
    x = mg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    hooks = student.memory_lesson.float16_saved_tensors()
    with mg.trace(values=False) as tr:
        with hooks:
            y = (x.exp() * x).sin().sum()
        y.backward()
    packs = [e for e in tr.events if e.kind == "saved.pack"]
    saves = [t for e in tr.events if e.kind == "node.create" for t in e.saved]
    assert packs and len(packs) == len(saves), "every tensor an op saved inside the context goes through pack"
    kept = hooks.pack_hook(x)
    back = hooks.unpack_hook(kept)
    assert isinstance(back, mg.Tensor) and back.dtype == mg.float32 and tuple(back.shape) == (3,)
    assert any(isinstance(v, mg.Tensor) and v.dtype == mg.float16 for v in _flatten(kept)), \
        "the node should keep a float16 copy"
    xs = np.array([0.5, -1.0, 2.0])
    grad = np.cos(np.exp(xs) * xs) * (np.exp(xs) * xs + np.exp(xs))
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=5e-3)  # float16 copies: about three digits


@pytest.mark.lesson10_task3
def test_integer_tensors_are_kept_as_they_are(student):
    hooks = student.memory_lesson.float16_saved_tensors()
    target = mg.tensor([1, 0, 2])
    back = hooks.unpack_hook(hooks.pack_hook(target))
    assert back.dtype == mg.int64 and back.tolist() == [1, 0, 2]
    logits = mg.randn(3, 4, requires_grad=True)
    with hooks:
        loss = mg.nn.functional.cross_entropy(logits, target)  # saves the int64 targets
    loss.backward()
    assert logits.grad is not None and tuple(logits.grad.shape) == (3, 4)


def _flatten(value):
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _flatten(v)
    else:
        yield value
