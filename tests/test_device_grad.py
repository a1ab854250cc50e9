"""``Tensor.to``: a differentiable copy between devices (checked on the TOY backend)."""

from __future__ import annotations

import numpy as np

import minigrad as mg

from _toy import on_toy, toy_backend


def test_to_device_is_differentiable_and_moves_the_gradient_back():
    with toy_backend():
        x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
        with mg.trace() as tr:
            y = x.to("toy")
            z = y.to("cpu") * y.to("cpu")
        assert on_toy(y._data) and y.grad_fn.name() == "ToCopyBackward0"
        z.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [2.0, -4.0, 6.0])
        assert type(x.grad._data) is np.ndarray and x.grad.device == "cpu"
        moves = [(e.from_, e.to) for e in tr.events if e.kind == "data.transform" and e.op == "to_device"]
        assert moves[:2] == [("CPU", "TOY"), ("TOY", "CPU")]
