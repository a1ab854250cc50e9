"""Channel-wise and alpha dropout (``ops/dropout.py``, ``nn/dropout.py``) against PyTorch: the same masks for
the same seed (NOTE [ The same masks as PyTorch ]), equal outputs and gradients, PyTorch's errors and warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

# (name, input shape, p): batched and unbatched inputs of each form
CASES = [
    ("dropout1d", (4, 5, 3), 0.3), ("dropout1d", (5, 7), 0.5),
    ("dropout2d", (3, 6, 2, 2), 0.4), ("dropout2d", (2, 20, 5, 5), 0.5),
    ("dropout3d", (2, 4, 2, 2, 2), 0.25), ("dropout3d", (4, 2, 3, 3), 0.6),
    ("alpha_dropout", (6, 9), 0.2), ("alpha_dropout", (40,), 0.5),
    ("feature_alpha_dropout", (3, 5, 4), 0.3),
]


def _pair(name, shape, p, seed, dtype=np.float64, **kwargs):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    mg.manual_seed(seed)
    torch.manual_seed(seed)
    out_m = getattr(mg.nn.functional, name)(mx, p, training=True, **kwargs)
    out_t = getattr(torch.nn.functional, name)(tx, p, training=True, **kwargs)
    return (mx, out_m), (tx, out_t)


@pytest.mark.parametrize("seed", [0, 7, 1234])
@pytest.mark.parametrize("name,shape,p", CASES)
def test_values_and_gradients_match_pytorch(name, shape, p, seed) -> None:
    (mx, out_m), (tx, out_t) = _pair(name, shape, p, seed)
    np.testing.assert_array_equal(out_m.detach().numpy(), out_t.detach().numpy())
    w = np.random.default_rng(1).standard_normal(shape)
    (out_m * mg.tensor(w)).sum().backward()
    (out_t * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(mx.grad.numpy(), tx.grad.numpy())
    # the generators are left in the same state: the next draw agrees too
    assert mg.rand(3).tolist() == torch.rand(3).tolist()


@pytest.mark.parametrize("name,shape,p", [c for c in CASES if c[0].startswith("dropout")])
def test_float32_masks_match_and_whole_channels_drop(name, shape, p) -> None:
    (_, out_m), (_, out_t) = _pair(name, shape, p, 3, dtype=np.float32)
    out = out_m.detach().numpy()
    np.testing.assert_array_equal(out, out_t.detach().numpy())
    lead = 1 if len(shape) in (2, 4) and name != "dropout2d" else 2  # unbatched dropout1d/3d: channels first
    per_channel = (out == 0).reshape(shape[:lead] + (-1,))
    assert np.all(per_channel.all(-1) | ~per_channel.any(-1))  # a channel is dropped whole or not at all


def test_alpha_dropout_keeps_mean_and_variance() -> None:
    mg.manual_seed(0)
    x = mg.randn(200_000, dtype=mg.float64)
    y = mg.nn.functional.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.var() - 1) < 0.01


def test_modules_match_pytorch_and_are_identity_in_eval() -> None:
    x = np.random.default_rng(0).standard_normal((2, 6, 3, 3))
    for m_cls, t_cls in ((mg.nn.Dropout1d, torch.nn.Dropout1d), (mg.nn.Dropout2d, torch.nn.Dropout2d),
                         (mg.nn.Dropout3d, torch.nn.Dropout3d), (mg.nn.AlphaDropout, torch.nn.AlphaDropout),
                         (mg.nn.FeatureAlphaDropout, torch.nn.FeatureAlphaDropout)):
        m, t = m_cls(0.3), t_cls(0.3)
        assert repr(m) == repr(t)
        xin = x[0] if m_cls is mg.nn.Dropout1d else x  # Dropout1d takes (C, L) / (N, C, L)
        mg.manual_seed(5)
        torch.manual_seed(5)
        np.testing.assert_array_equal(m(mg.tensor(xin)).numpy(), t(torch.tensor(xin)).numpy())
        assert m.eval()(mg.tensor(xin)).tolist() == xin.tolist()
    assert mg.nn.functional.alpha_dropout(mg.tensor(x), 0.5).tolist() == x.tolist()  # training=False default


def test_p_zero_one_and_inplace_match_pytorch() -> None:
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    for p in (0.0, 1.0):
        np.testing.assert_array_equal(mg.nn.functional.dropout1d(mg.tensor(x), p).numpy(),
                                      torch.nn.functional.dropout1d(torch.tensor(x), p).numpy())
    mx, tx = mg.tensor(x.copy()), torch.tensor(x.copy())
    mg.manual_seed(2)
    torch.manual_seed(2)
    out_m = mg.nn.functional.dropout1d(mx, 0.5, inplace=True)
    torch.nn.functional.dropout1d(tx, 0.5, inplace=True)
    np.testing.assert_array_equal(mx.numpy(), tx.numpy())
    assert out_m is mx


def test_errors_and_warnings_as_pytorch() -> None:
    F = mg.nn.functional
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        F.dropout2d(mg.ones(1, 2, 2, 2), 1.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        mg.nn.Dropout1d(-0.1)
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(mg.ones(1, 2, 2, 2))
    with pytest.raises(TypeError, match="argument 'input'"):
        F.dropout2d([1.0, 2.0])
    with pytest.warns(UserWarning, match="assuming that channel-wise 1D dropout"):
        F.dropout2d(mg.ones(2, 3, 4))
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout3d"):
        F.dropout3d(mg.ones(2, 3))
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
        F.feature_alpha_dropout(mg.ones(3), 0.5, training=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.dropout2d(mg.ones(2, 3, 4, 4))  # 4-D: no warning


def test_a_refused_call_draws_nothing() -> None:
    mg.manual_seed(0)
    with pytest.raises(RuntimeError):
        mg.nn.functional.dropout1d(mg.ones(2, 2, 2, 2), 0.5)
    torch.manual_seed(0)
    assert mg.rand(2).tolist() == torch.rand(2).tolist()


@pytest.mark.parametrize("path", ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"])
def test_functional_signatures_match_torch(path: str) -> None:
    import inspect

    ours = inspect.signature(getattr(mg.nn.functional, path)).parameters
    theirs = inspect.signature(getattr(torch.nn.functional, path)).parameters
    assert [(n, p.default) for n, p in ours.items()] == [(n, p.default) for n, p in theirs.items()]
