"""``F.linear_cross_entropy`` on minigrad's GPU: the main cases of ``tests/test_linear_cross_entropy.py`` with the
tensors on the device, against PyTorch on the CPU (float64 to 1e-12), the chunked buffers and gradients staying
on the device."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as MF

torch = pytest.importorskip("torch")

from test_linear_cross_entropy import OPTIONS, _np, _run  # noqa: E402  (tests/ is on the path: the CPU cases)

pytestmark = [pytest.mark.gpu, pytest.mark.torch]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("bias,weighted", [(False, False), (True, True)])
def test_values_and_gradients_on_the_gpu_equal_pytorchs(options, reduction, bias, weighted) -> None:
    pairs = _run(7, 4, 10, bias=bias, weighted=weighted, options=options, reduction=reduction, device="gpu")
    for t, m in pairs:
        assert m.device == "gpu"
        np.testing.assert_allclose(_np(m), _np(t), rtol=0, atol=1e-12)


def test_the_module_on_the_gpu() -> None:
    mg.manual_seed(0)
    loss = mg.nn.LinearCrossEntropyLoss(4, 6, bias=True, device="gpu",
                                        options=mg.nn.LinearCrossEntropyOptions(batch_chunk_size=2))
    cpu = mg.nn.LinearCrossEntropyLoss(4, 6, bias=True, options=mg.nn.LinearCrossEntropyOptions(batch_chunk_size=2))
    cpu.load_state_dict({k: v.cpu() for k, v in loss.state_dict().items()})
    x, t = mg.randn(5, 4), mg.tensor([0, 5, 2, 2, 1])
    got, want = loss(x.to("gpu"), t.to("gpu")), cpu(x, t)
    got.backward()
    want.backward()
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-6)
    assert loss.linear.weight.grad.device == "gpu"
    np.testing.assert_allclose(loss.linear.weight.grad.cpu().numpy(), cpu.linear.weight.grad.numpy(), rtol=1e-5,
                               atol=1e-7)
