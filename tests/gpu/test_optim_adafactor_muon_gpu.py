"""Adafactor and Muon on GPU tensors: the CPU's values (closely: the device adds its norms in its own order and
keeps Adafactor's step size a 0-d device tensor), and Adafactor's steady step makes no copy and no sync.

Run on the stand-in CuPy: ``MINIGRAD_FAKE_CUPY=1 .venv/bin/python -m pytest -q -p no:cacheprovider
tests/gpu/test_optim_adafactor_muon_gpu.py`` (or on a device as it is). PyTorch's Adafactor reads two norms per
parameter with ``.item()`` - two waits for the device; minigrad's keeps them on the device.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg

pytestmark = pytest.mark.gpu

SHAPES = {"Adafactor": [(5,), (4, 3), (2, 4, 5), (9, 20)], "Muon": [(4, 3), (3, 7), (16, 16)]}


def _train(name: str, kwargs: dict[str, Any], device: str, steps: int = 4) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    shapes = SHAPES[name]
    params = [mg.nn.Parameter(mg.tensor(rng.standard_normal(s)).to(device)) for s in shapes]
    grads = [[mg.tensor(rng.standard_normal(s)).to(device) for s in shapes] for _ in range(steps)]
    opt = getattr(mg.optim, name)(params, **kwargs)
    for k in range(steps):
        for p, g in zip(params, grads[k]):
            p.grad = g
        opt.step()
    return [p.detach().cpu().numpy() for p in params]


@pytest.mark.parametrize("name, kwargs", [
    ("Adafactor", {}), ("Adafactor", {"foreach": True, "weight_decay": 0.1, "maximize": True}),
    ("Muon", {}), ("Muon", {"nesterov": False, "adjust_lr_fn": "match_rms_adamw"}),
])
def test_the_gpu_step_gives_the_cpu_s_values(name: str, kwargs: dict[str, Any]) -> None:
    # Muon's Newton-Schulz runs in bfloat16: a last-bit difference there is 2**-8 of an update element
    atol = 1e-12 if name == "Adafactor" else 1e-3 * 4 * 2 ** -7
    for got, want in zip(_train(name, kwargs, "gpu"), _train(name, kwargs, "cpu")):
        np.testing.assert_allclose(got, want, rtol=1e-12 if name == "Adafactor" else 0, atol=atol)


@pytest.mark.parametrize("kwargs", [{}, {"foreach": True}], ids=["for-loop", "foreach"])
def test_adafactor_s_steady_step_makes_no_copy_and_no_sync(kwargs: dict[str, Any]) -> None:
    fake = pytest.importorskip("fake_cupy")
    if fake.installed() is None:
        pytest.skip("copies and syncs are counted by the stand-in CuPy")
    rng = np.random.default_rng(0)
    params = [mg.nn.Parameter(mg.tensor(rng.standard_normal(s)).to("gpu")) for s in SHAPES["Adafactor"]]
    grads = [mg.tensor(rng.standard_normal(s)).to("gpu") for s in SHAPES["Adafactor"]]
    opt = mg.optim.Adafactor(params, weight_decay=0.1, **kwargs)

    def step() -> None:
        for p, g in zip(params, grads):
            p.grad = g
        opt.step()

    step()  # (the first step makes the state)
    fake.reset_counts()
    step()
    step()
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), list(fake.COUNTS.log)
    assert opt.state[params[0]]["step"].device.type == "cpu"  # the count stays on the host, as PyTorch's
