"""``nn.DataParallel`` with minigrad's one GPU: the module moved there, its CPU inputs moved there, as PyTorch's
with one device; a module moved back to the CPU is refused in PyTorch's words."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg


@pytest.mark.gpu
def test_data_parallel_runs_the_module_on_the_gpu() -> None:
    mg.manual_seed(0)
    model = mg.nn.Linear(3, 2)
    cpu_out = model(mg.ones(4, 3))
    wrapped = mg.nn.DataParallel(model)
    assert wrapped.device_ids == [0] and model.weight.device == "cuda"
    out = wrapped(mg.ones(4, 3))
    assert out.device == "cuda"
    np.testing.assert_allclose(out.cpu().detach().numpy(), cpu_out.detach().numpy(), rtol=1e-6)
    model.to("cpu")
    with pytest.raises(RuntimeError, match=r"module must have its parameters and buffers on device cuda:0"):
        wrapped(mg.ones(4, 3))
