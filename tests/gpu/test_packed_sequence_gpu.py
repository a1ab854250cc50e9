"""Packed sequences on the GPU: ``pack_padded_sequence`` and its adjoint run on the device (no CPU fallback),
a packed LSTM or GRU gives the CPU's values and gradients, and a training step over a packed batch makes no
copy between host and device and no sync (the lengths and ``batch_sizes`` are host numbers)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

pytestmark = pytest.mark.gpu


def _run(device: str, mode: str):
    mg.manual_seed(0)
    m = getattr(mg.nn, mode)(3, 4, num_layers=2, bidirectional=True).double().to(device)
    x = mg.randn(5, 3, 3, dtype=mg.float64).to(device).requires_grad_()
    out, h = m(pack_padded_sequence(x, [5, 3, 2]))
    y, _ = pad_packed_sequence(out)
    hs = h if isinstance(h, tuple) else (h,)
    ((y * y).sum() + sum((t * t).sum() for t in hs)).backward()
    return [t.detach().cpu().numpy() for t in (y, *hs, x.grad, *(p.grad for p in m.parameters()))]


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_a_packed_layer_on_the_gpu_gives_the_cpus_values_and_gradients(mode: str) -> None:
    for ours, cpu in zip(_run("cuda", mode), _run("cpu", mode)):
        np.testing.assert_allclose(ours, cpu, rtol=1e-10, atol=1e-12)


def test_a_packed_training_step_makes_no_copy_and_no_sync() -> None:
    mg.manual_seed(0)
    lstm = mg.nn.LSTM(6, 8, batch_first=True).cuda()
    head = mg.nn.Linear(8, 3).cuda()
    opt = mg.optim.SGD([*lstm.parameters(), *head.parameters()], lr=0.1)
    x, labels = mg.randn(4, 7, 6, device="cuda"), mg.tensor([0, 2, 1, 2], device="cuda")

    def step() -> None:
        _, (h, _) = lstm(pack_padded_sequence(x, [7, 5, 3, 2], batch_first=True))
        loss = mg.nn.functional.cross_entropy(head(h[-1]), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()

    step()
    step()
    with mg.trace(values=False) as tr:
        step()
    with mg.trace(values=False) as tr:
        step()
    kinds = [e.kind for e in tr.events]
    assert kinds.count("device.copy") == 0 and kinds.count("device.sync") == 0
    fallbacks = {e.op for e in tr.events if e.kind == "kernel.select" and e.fallback_cpu}
    assert not fallbacks
