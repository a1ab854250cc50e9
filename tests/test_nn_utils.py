"""``mg.nn.utils`` against ``torch.nn.utils``: clipping (values, returned norm, errors) and vector conversion."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _pair(seed: int = 0, scale: float = 1.0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) * scale for s in [(3, 4), (4,), (2, 2, 2)]]
    mps = [mg.nn.Parameter(mg.tensor(a)) for a in arrays]
    tps = [torch.tensor(a, requires_grad=True) for a in arrays]
    grads = [rng.standard_normal(a.shape) * scale for a in arrays]
    for mp, tp, g in zip(mps, tps, grads):
        mp.grad, tp.grad = mg.tensor(g.copy()), torch.tensor(g.copy())
    return mps, tps


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, 0.5, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm: float) -> None:
    mps, tps = _pair()
    nt = float(norm_type)
    ours = mg.nn.utils.clip_grad_norm_(mps, max_norm, norm_type=nt)
    theirs = torch.nn.utils.clip_grad_norm_(tps, max_norm, norm_type=nt)
    assert isinstance(ours, mg.Tensor) and ours.shape == () and ours.dtype == mg.float64
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-12)
    for mp, tp in zip(mps, tps):
        np.testing.assert_allclose(mp.grad.numpy(), tp.grad.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("foreach", [None, False, True])
def test_clip_grad_norm_forms_match_torch(foreach, dtype) -> None:
    """``foreach=True`` runs the multi-tensor kernels on the CPU too (``_foreach_norm``, one multiply by the
    coefficient), as PyTorch 2.13 does; every form gives PyTorch's values."""
    mps, tps = _pair(3, scale=2.0)
    for mp, tp in zip(mps, tps):
        mp.data, tp.data = mp.data.to(getattr(mg, dtype)), tp.data.to(getattr(torch, dtype))
        mp.grad, tp.grad = mp.grad.to(getattr(mg, dtype)), tp.grad.to(getattr(torch, dtype))
    ours = mg.nn.utils.clip_grad_norm_(mps, 1.0, foreach=foreach)
    theirs = torch.nn.utils.clip_grad_norm_(tps, 1.0, foreach=foreach)
    rtol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=rtol)
    for mp, tp in zip(mps, tps):
        np.testing.assert_allclose(mp.grad.numpy(), tp.grad.numpy(), rtol=rtol, atol=1e-7)


def test_clip_grad_norm_of_float16_gradients_does_not_overflow() -> None:
    """The norm of float16 gradients is computed in float32 and rounded once, as PyTorch's ``vector_norm``:
    the squares of gradients near 100 overflow float16 (the total was ``inf``)."""
    g = np.random.default_rng(1).standard_normal(300) * 100
    norms = []
    for lib in (mg, torch):
        ps = [lib.nn.Parameter(lib.zeros(300, dtype=lib.float16)) for _ in range(2)]
        for p in ps:
            p.grad = lib.tensor(g, dtype=lib.float16)
        norms.append(lib.nn.utils.clip_grad_norm_(ps, 1.0).item())
    assert math.isfinite(norms[0]) and norms[0] == norms[1]


def test_clip_grad_norm_edge_cases_match_torch() -> None:
    # A single tensor, parameters without gradients, and an empty list.
    mps, tps = _pair()
    mps[1].grad = None
    tps[1].grad = None
    np.testing.assert_allclose(mg.nn.utils.clip_grad_norm_(mps, 1.0).item(),
                               torch.nn.utils.clip_grad_norm_(tps, 1.0).item(), rtol=1e-12)
    np.testing.assert_allclose(mg.nn.utils.clip_grad_norm_(mps[0], 1.0).item(),
                               torch.nn.utils.clip_grad_norm_(tps[0], 1.0).item(), rtol=1e-12)
    assert mg.nn.utils.clip_grad_norm_([], 1.0).item() == torch.nn.utils.clip_grad_norm_([], 1.0).item() == 0.0


def test_clip_grad_norm_non_finite() -> None:
    mps, tps = _pair()
    mps[0].grad = mg.tensor(np.full((3, 4), np.inf))
    tps[0].grad = torch.full((3, 4), math.inf, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        mg.nn.utils.clip_grad_norm_(mps, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        torch.nn.utils.clip_grad_norm_(tps, 1.0, error_if_nonfinite=True)
    before = mps[1].grad.numpy().copy()
    assert math.isinf(mg.nn.utils.clip_grad_norm_(mps, 1.0).item())
    assert math.isinf(torch.nn.utils.clip_grad_norm_(tps, 1.0).item())
    np.testing.assert_array_equal(mps[1].grad.numpy() * 0, before * 0)  # scaled by 0: zeros, as torch


def test_clip_grad_norm_changes_the_grad_in_place() -> None:
    mps, _ = _pair(scale=10)
    g = mps[0].grad
    v = g.version
    mg.nn.utils.clip_grad_norm_(mps, 1.0)
    assert mps[0].grad is g and g.version == v + 1


@pytest.mark.parametrize("clip", [0.1, 1.0, 5])
def test_clip_grad_value_matches_torch(clip: float) -> None:
    mps, tps = _pair()
    g = mps[0].grad
    assert mg.nn.utils.clip_grad_value_(mps, clip) is None
    torch.nn.utils.clip_grad_value_(tps, clip)
    assert mps[0].grad is g
    for mp, tp in zip(mps, tps):
        np.testing.assert_array_equal(mp.grad.numpy(), tp.grad.numpy())


def test_parameters_to_vector_and_back_match_torch() -> None:
    mps, tps = _pair()
    mv = mg.nn.utils.parameters_to_vector(mps)
    tv = torch.nn.utils.parameters_to_vector(tps)
    np.testing.assert_array_equal(mv.detach().numpy(), tv.detach().numpy())
    # It is differentiable: the gradient flows back to each parameter.
    w = np.arange(mv.shape[0], dtype=np.float64)
    (mv * mg.tensor(w)).sum().backward()
    (tv * torch.tensor(w)).sum().backward()
    for mp, tp in zip(mps, tps):
        np.testing.assert_array_equal(mp.grad.numpy(), tp.grad.numpy())
    new = np.linspace(-1, 1, mv.shape[0])
    mg.nn.utils.vector_to_parameters(mg.tensor(new), mps)
    with torch.no_grad():
        torch.nn.utils.vector_to_parameters(torch.tensor(new), tps)
    for mp, tp in zip(mps, tps):
        np.testing.assert_array_equal(mp.detach().numpy(), tp.detach().numpy())
    with pytest.raises(TypeError, match="expected .*Tensor, but got: list"):
        mg.nn.utils.vector_to_parameters([1.0], mps)
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        torch.nn.utils.vector_to_parameters([1.0], tps)


def test_clip_grads_with_norm_and_the_deprecated_name_match_torch() -> None:
    mps, tps = _pair(scale=3)
    mn = mg.nn.utils.get_total_norm([p.grad for p in mps])
    tn = torch.nn.utils.get_total_norm([p.grad for p in tps])
    np.testing.assert_allclose(mn.item(), tn.item(), rtol=1e-12)
    mg.nn.utils.clip_grads_with_norm_(mps, 2.0, mn)
    torch.nn.utils.clip_grads_with_norm_(tps, 2.0, tn)
    for mp, tp in zip(mps, tps):
        np.testing.assert_allclose(mp.grad.numpy(), tp.grad.numpy(), rtol=1e-12)
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        mg.nn.utils.clip_grad_norm(mps, 1.0)
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        torch.nn.utils.clip_grad_norm(tps, 1.0)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("value", [0.0, -1.5])
def test_pad_and_unpad_sequence_match_torch(batch_first: bool, side: str, value: float) -> None:
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((n, 2)) for n in (3, 1, 4)]
    ms = [mg.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    mp = mg.nn.utils.rnn.pad_sequence(ms, batch_first=batch_first, padding_value=value, padding_side=side)
    tp = torch.nn.utils.rnn.pad_sequence(ts, batch_first=batch_first, padding_value=value, padding_side=side)
    np.testing.assert_array_equal(mp.detach().numpy(), tp.detach().numpy())
    w = rng.standard_normal(tuple(tp.shape))
    (mp * mg.tensor(w)).sum().backward()
    (tp * torch.tensor(w)).sum().backward()
    for m, t in zip(ms, ts):
        np.testing.assert_array_equal(m.grad.numpy(), t.grad.numpy())
    if side == "right":
        mu = mg.nn.utils.rnn.unpad_sequence(mp, mg.tensor([3, 1, 4]), batch_first=batch_first)
        tu = torch.nn.utils.rnn.unpad_sequence(tp, torch.tensor([3, 1, 4]), batch_first=batch_first)
        for a, b in zip(mu, tu):
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    with pytest.raises(ValueError, match="Expected padding_side to be one of left or right"):
        mg.nn.utils.rnn.pad_sequence(ms, padding_side="middle")
