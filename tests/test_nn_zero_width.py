"""A layer of no units, as PyTorch allows it: ``nn.Linear(3, 0)`` and ``nn.Linear(0, 2)`` (the same draws after
them), and the adaptive softmax whose tail clusters shrink to zero width; negative sizes refused in PyTorch's words."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _run(T: Any) -> list[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Initializing zero-element tensors is a no-op", in both
        T.manual_seed(0)
        none_out = T.nn.Linear(3, 0)
        none_in = T.nn.Linear(0, 2)
        after = T.rand(3)
        asm = T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4], div_value=16.0)
    x = T.ones(2, 3)
    out = asm(T.linspace(-1, 1, 16).reshape(2, 8), T.tensor([1, 7]))
    return [tuple(none_out.weight.shape), tuple(none_out(x).shape), none_in(T.ones(2, 0)).detach().numpy(), after.numpy(),
            out.output.detach().numpy(), out.loss.item()]


def test_zero_width_layers_as_pytorch() -> None:
    got, want = _run(mg), _run(torch)
    assert got[:2] == want[:2]
    for g, w in zip(got[2:], want[2:]):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_a_negative_width_is_refused_as_pytorch() -> None:
    for T in (torch, mg):
        with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[2, -1\]$"):
            T.nn.Linear(-1, 2)
