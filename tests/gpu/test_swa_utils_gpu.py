"""``optim.swa_utils.AveragedModel`` on the GPU: PyTorch's multi-tensor SWA and EMA there (its default where
foreach kernels run), the CPU's averages to rounding; an integer buffer under the multi-tensor SWA refused, as
PyTorch CUDA refuses it."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

pytestmark = pytest.mark.gpu


def _average(device: str, **kw):
    model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.BatchNorm1d(4)).to(device)
    avg = AveragedModel(model, **kw)
    for i in range(5):
        rng = np.random.default_rng(i)
        with mg.no_grad():
            for p in model.parameters():
                p.copy_(mg.tensor(rng.standard_normal(tuple(p.shape)), dtype=p.dtype, device=device))
        avg.update_parameters(model)
    return {k: v.cpu().numpy() for k, v in avg.state_dict().items()}


@pytest.mark.parametrize("kw", [{}, {"multi_avg_fn": get_ema_multi_avg_fn(0.9), "use_buffers": True}],
                         ids=["swa", "ema with buffers"])
def test_the_gpus_averages_are_the_cpus(kw):
    gpu, cpu = _average("cuda", **kw), _average("cpu", **kw)
    for k in cpu:
        np.testing.assert_allclose(gpu[k], cpu[k], rtol=1e-6, atol=1e-7, err_msg=k)


def test_the_multi_tensor_swa_of_an_integer_buffer_is_refused_as_pytorch_cuda_refuses_it():
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        _average("cuda", use_buffers=True)
