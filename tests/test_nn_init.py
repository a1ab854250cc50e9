"""``mg.nn.init``: PyTorch's functions, the same numbers for the same seed, and the layers' defaults.

Each random initialiser is run after ``manual_seed`` in both frameworks on a
Parameter (a leaf that requires grad: the fill must happen under ``no_grad``)
and compared bit for bit; ``orthogonal_`` (a LAPACK QR) to rounding.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

SHAPES = [(4, 3), (16, 1), (5, 17), (8, 3, 3, 3), (6, 4, 5)]


def _params(shape, dtype=(mg.float32, torch.float32)):
    return (mg.nn.Parameter(mg.zeros(shape, dtype=dtype[0])),
            torch.nn.Parameter(torch.zeros(shape, dtype=dtype[1])))


CASES = {
    "uniform_": ((), {"a": -0.5, "b": 2.0}),
    "normal_": ((), {"mean": 0.5, "std": 0.02}),
    "xavier_uniform_": ((), {"gain": 1.3}),
    "xavier_normal_": ((), {}),
    "kaiming_uniform_": ((), {"a": math.sqrt(5)}),
    "kaiming_normal_": ((), {"mode": "fan_out", "nonlinearity": "relu"}),
    "trunc_normal_": ((), {"std": 0.02}),
    "trunc_normal_narrow": ((), {"mean": 0.0, "std": 1.0, "a": 1.5, "b": 2.0}),
}


@pytest.mark.parametrize("seed", [0, 1, 1234])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("dt", [(mg.float32, torch.float32), (mg.float64, torch.float64)], ids=["f32", "f64"])
def test_random_initialisers_match_pytorch_bit_for_bit(seed, shape, case, dt) -> None:
    name = case.replace("narrow", "").rstrip("_") + "_"
    args, kwargs = CASES[case]
    p, tp = _params(shape, dt)
    mg.manual_seed(seed)
    torch.manual_seed(seed)
    out = getattr(mg.nn.init, name)(p, *args, **kwargs)
    getattr(torch.nn.init, name)(tp, *args, **kwargs)
    assert out is p and p.is_leaf and p.requires_grad and p.grad_fn is None
    if case == "trunc_normal_narrow":
        # the uniform-proposal branch compares logs computed by two libraries: nearly always equal
        assert np.mean(p.detach().numpy() == tp.detach().numpy()) > 0.99
        return
    np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())
    np.testing.assert_array_equal(mg.rand(3).numpy(), torch.rand(3).numpy())  # same stream afterwards


def test_deterministic_initialisers() -> None:
    for name, args in (("constant_", (0.25,)), ("ones_", ()), ("zeros_", ())):
        p, tp = _params((3, 4))
        getattr(mg.nn.init, name)(p, *args)
        getattr(torch.nn.init, name)(tp, *args)
        np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())
    p, tp = _params((3, 5))
    mg.nn.init.eye_(p)
    torch.nn.init.eye_(tp)
    np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())
    for shape, groups in (((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((4, 4, 3, 3, 3), 1)):
        p, tp = _params(shape)
        mg.nn.init.dirac_(p, groups)
        torch.nn.init.dirac_(tp, groups)
        np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3)], ids=str)
def test_orthogonal_matches_pytorch_to_rounding(shape) -> None:
    p, tp = _params(shape)
    mg.manual_seed(0)
    torch.manual_seed(0)
    mg.nn.init.orthogonal_(p, gain=2.0)
    torch.nn.init.orthogonal_(tp, gain=2.0)
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), atol=1e-5)


def test_sparse_matches_pytorch() -> None:
    p, tp = _params((10, 4))
    mg.manual_seed(3)
    torch.manual_seed(3)
    mg.nn.init.sparse_(p, 0.3)
    torch.nn.init.sparse_(tp, 0.3)
    np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())


def test_calculate_gain_and_errors_as_pytorch() -> None:
    for nl, param in (("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                      ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu", None)):
        assert mg.nn.init.calculate_gain(nl, param) == torch.nn.init.calculate_gain(nl, param)
    bad = [
        lambda m: m.nn.init.calculate_gain("swish"),
        lambda m: m.nn.init.calculate_gain("leaky_relu", True),
        lambda m: m.nn.init.xavier_uniform_(m.zeros(3)),
        lambda m: m.nn.init.kaiming_uniform_(m.zeros(3, 4), mode="fan_avg"),
        lambda m: m.nn.init.eye_(m.zeros(2, 2, 2)),
        lambda m: m.nn.init.dirac_(m.zeros(2, 2)),
        lambda m: m.nn.init.dirac_(m.zeros(3, 2, 3), groups=2),
        lambda m: m.nn.init.orthogonal_(m.zeros(3)),
    ]
    for call in bad:
        with pytest.raises(ValueError) as ours:
            call(mg)
        with pytest.raises(ValueError) as theirs:
            call(torch)
        assert str(ours.value) == str(theirs.value)


def test_old_uniform_spelling_still_works() -> None:
    mg.manual_seed(0)
    t = mg.nn.init.uniform((3, 4), 0.5)
    assert t.shape == (3, 4) and np.all(np.abs(t.numpy()) <= 0.5)
    p, tp = _params((2, 3))
    mg.manual_seed(1)
    torch.manual_seed(1)
    mg.nn.init.uniform_(p)
    torch.nn.init.uniform_(tp)
    np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())


@pytest.mark.parametrize("seed", [0, 1, 42])
def test_layers_hold_pytorchs_initial_weights(seed) -> None:
    mg.manual_seed(seed)
    torch.manual_seed(seed)
    ours = [mg.nn.Linear(3, 4), mg.nn.Linear(20, 7, bias=False), mg.nn.Embedding(10, 5, padding_idx=2),
            mg.nn.Conv2d(3, 8, 3), mg.nn.Conv2d(4, 4, (2, 3), groups=2), mg.nn.LayerNorm(6), mg.nn.Linear(64, 64)]
    theirs = [torch.nn.Linear(3, 4), torch.nn.Linear(20, 7, bias=False), torch.nn.Embedding(10, 5, padding_idx=2),
              torch.nn.Conv2d(3, 8, 3), torch.nn.Conv2d(4, 4, (2, 3), groups=2), torch.nn.LayerNorm(6),
              torch.nn.Linear(64, 64)]
    for m, tm in zip(ours, theirs):
        sd, tsd = m.state_dict(), tm.state_dict()
        assert list(sd) == list(tsd)
        for k in sd:
            np.testing.assert_array_equal(sd[k].numpy(), tsd[k].numpy(), err_msg=f"{type(m).__name__}.{k}")
    np.testing.assert_array_equal(mg.randn(5).numpy(), torch.randn(5).numpy())


@pytest.mark.parametrize("name", [n for n in mg.nn.init.__all__ if n != "uniform"])
def test_signatures_are_pytorchs(name) -> None:
    import inspect

    ours = inspect.signature(getattr(mg.nn.init, name))
    theirs = inspect.signature(getattr(torch.nn.init, name))
    assert list(ours.parameters) == list(theirs.parameters)
    for p in ours.parameters.values():
        assert p.default == theirs.parameters[p.name].default, p.name
