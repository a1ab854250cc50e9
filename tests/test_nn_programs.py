"""Small networks of the kinds PyTorch's examples build, run in float64 under both frameworks with the same
weights: the new layers must agree inside a whole forward and backward, not only one by one.

- a DCGAN generator and discriminator step (``ConvTranspose2d``, ``BatchNorm2d``, ``LeakyReLU``, ``BCELoss``,
  ``BCEWithLogitsLoss``);
- a fast-neural-style block (``ReflectionPad2d``, ``InstanceNorm2d``, ``Upsample``) with a residual connection;
- a 1-D sequence classifier (``Conv1d``, ``GroupNorm``, ``SiLU``, ``AdaptiveAvgPool1d``, ``Unflatten``);
- a gradient penalty (WGAN-GP): the gradient of the discriminator's output with respect to its input, itself
  differentiated (``create_graph=True`` through pooling, padding and interpolation).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _pair(build):
    """The same network in both frameworks, minigrad's holding PyTorch's float64 weights."""
    torch.manual_seed(0)
    t = build(torch.nn).double()
    m = build(mg.nn)
    m.load_state_dict({k: mg.tensor(v.numpy(), dtype=mg.float64 if v.is_floating_point() else mg.int64)
                       for k, v in t.state_dict().items()})
    for p in m.parameters():  # the float32 parameters take PyTorch's float64 values exactly
        p._data = p._data.astype(np.float64)
        p._dtype = mg.float64
    for name, b in m.named_buffers():
        if b is not None and b.dtype.is_floating:
            b._data = b._data.astype(np.float64)
            b._dtype = mg.float64
    return m, t


def _check_grads(m, t, rtol: float = 1e-8) -> None:
    for (nm, pm), (nt, pt) in zip(m.named_parameters(), t.named_parameters()):
        assert nm == nt
        if pt.grad is None:  # a parameter the loss does not reach (the critic's last bias under a gradient penalty)
            assert pm.grad is None, nm
            continue
        np.testing.assert_allclose(pm.grad.numpy(), pt.grad.numpy(), rtol=rtol, atol=1e-10, err_msg=nm)


def generator(nn):
    return nn.Sequential(
        nn.ConvTranspose2d(8, 16, 4, 1, 0, bias=False), nn.BatchNorm2d(16), nn.ReLU(True),
        nn.ConvTranspose2d(16, 8, 4, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(True),
        nn.ConvTranspose2d(8, 1, 4, 2, 1, bias=False), nn.Tanh(),
    )


def discriminator(nn):
    return nn.Sequential(
        nn.Conv2d(1, 8, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(8, 16, 4, 2, 1, bias=False), nn.BatchNorm2d(16), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(16, 1, 4, 1, 0, bias=False), nn.Flatten(0), nn.Sigmoid(),
    )


def test_dcgan_step_matches_torch() -> None:
    g_m, g_t = _pair(generator)
    d_m, d_t = _pair(discriminator)
    z = np.random.default_rng(0).normal(size=(3, 8, 1, 1))
    fake_m, fake_t = g_m(mg.tensor(z, dtype=mg.float64)), g_t(torch.tensor(z))
    assert tuple(fake_m.shape) == tuple(fake_t.shape) == (3, 1, 16, 16)
    np.testing.assert_allclose(fake_m.detach().numpy(), fake_t.detach().numpy(), rtol=1e-8, atol=1e-10)
    ones_m, ones_t = mg.ones(3, dtype=mg.float64), torch.ones(3, dtype=torch.float64)
    loss_m = mg.nn.BCELoss()(d_m(fake_m), ones_m)
    loss_t = torch.nn.BCELoss()(d_t(fake_t), ones_t)
    np.testing.assert_allclose(loss_m.item(), loss_t.item(), rtol=1e-9)
    loss_m.backward()
    loss_t.backward()
    _check_grads(g_m, g_t)
    _check_grads(d_m, d_t)
    for (n, b_m), (_, b_t) in zip(g_m.named_buffers(), g_t.named_buffers()):
        np.testing.assert_allclose(b_m.numpy(), b_t.numpy(), rtol=1e-8, err_msg=n)


class _Residual:
    """A style-transfer residual block: reflection padding, conv, instance norm, ReLU, twice, plus the input."""

    @staticmethod
    def build(nn):
        class Block(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.pad = nn.ReflectionPad2d(1)
                self.conv1 = nn.Conv2d(4, 4, 3)
                self.in1 = nn.InstanceNorm2d(4, affine=True)
                self.relu = nn.ReLU()
                self.conv2 = nn.Conv2d(4, 4, 3)
                self.in2 = nn.InstanceNorm2d(4, affine=True)
                self.up = nn.Upsample(scale_factor=2, mode="nearest")

            def forward(self, x):
                y = self.relu(self.in1(self.conv1(self.pad(x))))
                y = self.in2(self.conv2(self.pad(y)))
                return self.up(y + x)

        return Block()


def test_style_transfer_block_matches_torch() -> None:
    m, t = _pair(_Residual.build)
    x = np.random.default_rng(1).normal(size=(2, 4, 5, 6))
    xm = mg.tensor(x, dtype=mg.float64, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    out_m, out_t = m(xm), t(xt)
    np.testing.assert_allclose(out_m.detach().numpy(), out_t.detach().numpy(), rtol=1e-8, atol=1e-10)
    (out_m * out_m).sum().backward()
    (out_t * out_t).sum().backward()
    _check_grads(m, t)
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-8, atol=1e-10)


def sequence_classifier(nn):
    return nn.Sequential(
        nn.Unflatten(1, (2, 12)), nn.Conv1d(2, 6, 3, padding=1), nn.GroupNorm(3, 6), nn.SiLU(),
        nn.Conv1d(6, 6, 3, stride=2, groups=2), nn.ELU(), nn.AdaptiveAvgPool1d(2), nn.Flatten(), nn.Linear(12, 3),
    )


def test_sequence_classifier_matches_torch() -> None:
    m, t = _pair(sequence_classifier)
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(5, 24)), rng.integers(0, 3, size=5)
    loss_m = mg.nn.functional.cross_entropy(m(mg.tensor(x, dtype=mg.float64)), mg.tensor(y))
    loss_t = torch.nn.functional.cross_entropy(t(torch.tensor(x)), torch.tensor(y))
    np.testing.assert_allclose(loss_m.item(), loss_t.item(), rtol=1e-9)
    loss_m.backward()
    loss_t.backward()
    _check_grads(m, t)


def critic(nn):
    return nn.Sequential(nn.ZeroPad2d((1, 0, 1, 0)), nn.Conv2d(1, 4, 3), nn.Softplus(), nn.AvgPool2d(2),
                         nn.Upsample(size=(5, 5), mode="bilinear"), nn.Conv2d(4, 2, 3), nn.Hardswish(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2, 1))


def test_gradient_penalty_matches_torch() -> None:
    """WGAN-GP: || d critic(x) / dx ||, squared distance to 1, differentiated with respect to the weights."""
    m, t = _pair(critic)
    x = np.random.default_rng(3).normal(size=(2, 1, 8, 8))
    xm = mg.tensor(x, dtype=mg.float64, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    (gm,) = mg.grad(m(xm).sum(), [xm], create_graph=True)
    (gt,) = torch.autograd.grad(t(xt).sum(), [xt], create_graph=True)
    np.testing.assert_allclose(gm.detach().numpy(), gt.detach().numpy(), rtol=1e-8, atol=1e-12)
    pen_m = ((gm.reshape(2, -1) * gm.reshape(2, -1)).sum(1).sqrt() - 1.0) ** 2
    pen_t = (gt.reshape(2, -1).norm(dim=1) - 1.0) ** 2
    pen_m.sum().backward()
    pen_t.sum().backward()
    _check_grads(m, t, rtol=1e-7)
