"""Adafactor and Muon as PyTorch's: the same parameters after several steps (bit for bit, in float64 and float32),
the same state and state dict, PyTorch's refusals in its words,
both forms of Adafactor (``foreach`` rounds once more than the for-loop, in PyTorch as here) and the norms added in
PyTorch's order."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad.optim.adafactor import norm2_array

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _train(lib: Any, name: str, shapes: list[tuple[int, ...]], kwargs: dict[str, Any], dtype: str,
           steps: int = 5, seed: int = 0) -> tuple[list[Any], Any]:
    """``steps`` steps of ``lib.optim.<name>`` from the same start and gradients (drawn from ``seed``)."""
    rng = np.random.default_rng(seed)
    start = [rng.standard_normal(s) for s in shapes]
    grads = [[rng.standard_normal(s) for s in shapes] for _ in range(steps)]
    params = [lib.nn.Parameter(lib.tensor(a, dtype=getattr(lib, dtype))) for a in start]
    opt = getattr(lib.optim, name)(params, **kwargs)
    for k in range(steps):
        for p, g in zip(params, grads[k]):
            p.grad = lib.tensor(g, dtype=getattr(lib, dtype))
        opt.step()
    return params, opt


def _same_as_torch(name: str, shapes: list[tuple[int, ...]], kwargs: dict[str, Any], dtype: str = "float64",
                   seed: int = 0, atol: float = 0.0) -> None:
    tp, topt = _train(torch, name, shapes, kwargs, dtype, seed=seed)
    mp, mopt = _train(mg, name, shapes, kwargs, dtype, seed=seed)
    for t, m in zip(tp, mp):
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=0, atol=atol,
                                   err_msg=f"{name} {kwargs} {t.shape}")
        assert list(mopt.state[m]) == list(topt.state[t])
        for key, value in topt.state[t].items():
            np.testing.assert_allclose(mopt.state[m][key].numpy(), value.numpy(), rtol=0, atol=atol, err_msg=key)
    assert str(mopt.state_dict()).replace("minigrad", "torch") == str(topt.state_dict())
    assert repr(mopt).replace("minigrad", "torch") == repr(topt)


ADAFACTOR = [
    {},
    {"foreach": True},
    {"weight_decay": 0.1, "maximize": True, "lr": 0.05, "d": 1.5, "eps": (1e-20, 1e-3), "beta2_decay": -0.5},
    {"weight_decay": 0.1, "foreach": True, "maximize": True},
    {"lr": 0.5, "eps": (1e-3, 1e-2)},  # rho = 1 / sqrt(step) while lr > it; a large eps1 clamps
]
SHAPES = [(5,), (4, 3), (3, 7), (2, 4, 5), (33, 17), (100,), (1, 6), (6, 1), ()]


@pytest.mark.parametrize("kwargs", ADAFACTOR, ids=[str(k) for k in ADAFACTOR])
def test_adafactor_is_pytorch_s_bit_for_bit_in_float64(kwargs: dict[str, Any]) -> None:
    _same_as_torch("Adafactor", SHAPES, kwargs)


@pytest.mark.parametrize("kwargs", ADAFACTOR, ids=[str(k) for k in ADAFACTOR])
def test_adafactor_in_float32_is_pytorch_s_bit_for_bit_too(kwargs: dict[str, Any]) -> None:
    _same_as_torch("Adafactor", SHAPES + [(9, 20), (2, 3, 12)], kwargs, "float32")


def test_adafactor_s_two_forms_differ_as_pytorch_s_do() -> None:
    """The foreach form scales the update, then adds it: a different last bit somewhere, in PyTorch and here."""
    t_loop, _ = _train(torch, "Adafactor", [(33, 17)], {}, "float64")
    t_each, _ = _train(torch, "Adafactor", [(33, 17)], {"foreach": True}, "float64")
    m_loop, _ = _train(mg, "Adafactor", [(33, 17)], {}, "float64")
    m_each, _ = _train(mg, "Adafactor", [(33, 17)], {"foreach": True}, "float64")
    assert not np.array_equal(t_loop[0].detach().numpy(), t_each[0].detach().numpy())
    np.testing.assert_array_equal(m_loop[0].detach().numpy(), t_loop[0].detach().numpy())
    np.testing.assert_array_equal(m_each[0].detach().numpy(), t_each[0].detach().numpy())


def test_adafactor_factors_the_last_two_dims() -> None:
    w = mg.nn.Parameter(mg.ones(2, 3, 4))
    v = mg.nn.Parameter(mg.ones(4))
    opt = mg.optim.Adafactor([w, v])
    w.grad, v.grad = mg.ones(2, 3, 4), mg.ones(4)
    opt.step()
    assert opt.state[w]["row_var"].shape == (2, 3, 1) and opt.state[w]["col_var"].shape == (2, 1, 4)
    assert list(opt.state[v]) == ["step", "variance"] and opt.state[v]["step"].dtype == mg.float32
    assert opt.param_groups[0]["eps"] == (None, 1e-3)


@pytest.mark.parametrize("dim", [None, -1, -2, 0])
@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
def test_the_norms_are_added_in_pytorch_s_order(dim: Any, dtype: str) -> None:
    """Every row length from 1 to 40 (each vector tail), strided and contiguous dims, size-1 dims dropped."""
    rng = np.random.default_rng(1)
    for shape in [(3, n) for n in range(1, 41)] + [(2, 4, 40), (3, 1), (64, 1), (100, 129)]:
        x = mg.tensor(rng.standard_normal(shape)).to(getattr(mg, dtype))._data
        t = torch.tensor(x.astype(np.float64)).to(getattr(torch, dtype))
        want = t.norm() if dim is None else torch.norm(t, dim=dim, keepdim=True)
        np.testing.assert_array_equal(norm2_array(x, dim).astype(np.float64), want.double().numpy(), err_msg=str(shape))


MUON = [
    {},
    {"nesterov": False, "adjust_lr_fn": "match_rms_adamw", "lr": 0.02},
    {"adjust_lr_fn": "original", "weight_decay": 0.0, "momentum": 0.9},
    {"ns_steps": 3, "ns_coefficients": (2.0, -1.5, 0.5), "eps": 1e-5, "weight_decay": 0.2},
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kwargs", MUON, ids=[str(k) for k in MUON])
def test_muon_steps_as_pytorch(kwargs: dict[str, Any], dtype: str) -> None:
    """Wide and tall matrices (a tall one is orthogonalised transposed); the Newton-Schulz steps run in bfloat16.
    Bit for bit in a process of its own; in a full run one configuration once differed from PyTorch's by a
    bfloat16 step in one product (PyTorch's CPU bfloat16 matmul does not always round the same way), so the
    bound is the larger matrices' one below."""
    _same_as_torch("Muon", [(4, 3), (3, 7), (5, 5), (8, 3), (2, 6)], kwargs, dtype, atol=1e-3)


@pytest.mark.parametrize("kwargs", MUON[:2], ids=["nesterov", "plain"])
def test_muon_on_larger_matrices_stays_within_a_bfloat16_step_of_pytorch(kwargs: dict[str, Any]) -> None:
    """Bigger Gram matrices: bfloat16 ``addmm`` agrees with PyTorch's but for a rare last bit (PyTorch's CPU
    kernel adds its float32 products in another order and folds ``beta * input`` in with a fused multiply-add),
    which later iterations spread: well under a bfloat16 step (2**-7) of the five updates (each about 0.03)."""
    shapes = [(16, 16), (16, 40), (64, 33)]
    tp, _ = _train(torch, "Muon", shapes, {"lr": 0.02, **kwargs}, "float64", seed=1)
    mp, _ = _train(mg, "Muon", shapes, {"lr": 0.02, **kwargs}, "float64", seed=1)
    for t, m in zip(tp, mp):
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=0, atol=1e-3)


@pytest.mark.parametrize("name, args, kwargs, error, words", [
    ("Adafactor", [(3,)], {"lr": -1.0}, ValueError, "Learning rate should be >= 0 but is: -1.0"),
    ("Adafactor", [(3,)], {"beta2_decay": 0.5}, ValueError, "beta2_decay should be <= 0 but is: 0.5"),
    ("Adafactor", [(3,)], {"eps": (-1.0, 1e-3)}, ValueError, "epsilon1 should be >= 0 but is: -1.0"),
    ("Adafactor", [(3,)], {"eps": (None, -1.0)}, ValueError, "epsilon2 should be >= 0 but is: -1.0"),
    ("Adafactor", [(3,)], {"d": 0.5}, ValueError, "Clipping threshold d should be >= 1 but is: 0.5"),
    ("Adafactor", [(3,)], {"weight_decay": -0.1}, ValueError, "weight_decay should be >= 0 but is: -0.1"),
    ("Muon", [(3,)], {}, ValueError, r"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     r"torch.Size\(\[3\]\)"),
    ("Muon", [(2, 3, 4)], {}, ValueError, "Muon only supports 2D parameters"),
    ("Muon", [(3, 3)], {"lr": -1.0}, ValueError, "Learning rate should be >= 0 but is: -1.0"),
    ("Muon", [(3, 3)], {"momentum": -1.0}, ValueError, "momentum should be >= 0 but is: -1.0"),
    ("Muon", [(3, 3)], {"weight_decay": -1.0}, ValueError, "weight decay should be >= 0 but is: -1.0"),
    ("Muon", [(3, 3)], {"adjust_lr_fn": "x"}, ValueError, "Adjust learning rate function x is not supported"),
])
def test_refusals_in_pytorch_s_words(name: str, args: Any, kwargs: dict[str, Any], error: type, words: str) -> None:
    for lib in (torch, mg):
        params = [lib.nn.Parameter(lib.zeros(*s)) for s in args]
        with pytest.raises(error, match=words):
            getattr(lib.optim, name)(params, **kwargs)


@pytest.mark.parametrize("kwargs, words", [
    ({"ns_steps": 100}, "Number of steps must be less than 100 for computational efficiency"),
    ({"ns_coefficients": (1.0, 2.0)}, "Coefficients must be a tuple of exactly 3 values"),
])
def test_muon_s_newton_schulz_refuses_at_the_step_as_pytorch(kwargs: dict[str, Any], words: str) -> None:
    for lib in (torch, mg):
        w = lib.nn.Parameter(lib.ones(2, 3))
        opt = lib.optim.Muon([w], **kwargs)
        w.grad = lib.ones(2, 3)
        with pytest.raises(ValueError, match=words):
            opt.step()


def test_state_dict_round_trip_continues_as_pytorch() -> None:
    """Save after two steps, load into a fresh optimizer, step on: the same as never stopping."""
    for name, shapes in (("Adafactor", [(4, 3), (5,)]), ("Muon", [(4, 3)])):
        full, _ = _train(mg, name, shapes, {}, "float64", steps=4)
        part, opt = _train(mg, name, shapes, {}, "float64", steps=2)
        saved = opt.state_dict()
        fresh = getattr(mg.optim, name)(part)
        fresh.load_state_dict(saved)
        rng = np.random.default_rng(0)
        [rng.standard_normal(s) for s in shapes]
        grads = [[rng.standard_normal(s) for s in shapes] for _ in range(4)]
        for k in (2, 3):
            for p, g in zip(part, grads[k]):
                p.grad = mg.tensor(g, dtype=mg.float64)
            fresh.step()
        for a, b in zip(full, part):
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_step_with_a_closure_returns_its_loss() -> None:
    for name in ("Adafactor", "Muon"):
        w = mg.nn.Parameter(mg.tensor([[1.0, -2.0], [0.5, 3.0]]))
        opt = getattr(mg.optim, name)([w])

        def closure() -> Any:
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        assert opt.step(closure).item() == pytest.approx(14.25)
        assert w.grad is not None and w.is_leaf
