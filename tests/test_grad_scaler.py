"""``mg.amp``: ``GradScaler`` against PyTorch's CPU scaler, and ``autocast`` in PyTorch's spelling.

The scaler tests run the same iterations under both frameworks - injecting inf or NaN into a gradient at
chosen steps - and compare the scale sequence, the growth tracker, which steps were skipped and the
parameters after each step.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _run(fw, steps: int, bad: dict[int, float], **kwargs) -> tuple[list, list, np.ndarray]:
    """``steps`` scaled SGD iterations; at step i in ``bad`` one gradient entry becomes ``bad[i]``."""
    w = fw.nn.Parameter(fw.tensor(np.linspace(-1.0, 1.0, 4)))
    opt = fw.optim.SGD([w], lr=0.1)
    scaler = fw.amp.GradScaler("cpu", **kwargs)
    scales, trackers, weights = [], [], []
    for i in range(steps):
        loss = (w * w).sum()
        scaler.scale(loss).backward()
        if i in bad:
            with fw.no_grad():
                w.grad[1] = bad[i]
        scaler.unscale_(opt) if i % 2 else None  # every other step unscales by hand first
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        scales.append(scaler.get_scale())
        trackers.append(scaler.state_dict()["_growth_tracker"])
        weights.append(w.detach().numpy().copy())
    return scales, trackers, np.array(weights)


@pytest.mark.parametrize("bad", [{}, {1: float("inf")}, {0: float("nan"), 2: float("-inf"), 3: float("inf")},
                                 {4: float("inf"), 7: float("nan")}])
def test_scale_sequence_and_skipped_steps_match_pytorch(bad) -> None:
    kwargs = dict(init_scale=1024.0, growth_interval=3)
    m = _run(mg, 10, bad, **kwargs)
    t = _run(torch, 10, bad, **kwargs)
    assert m[0] == t[0]
    assert m[1] == t[1]
    # a skipped step leaves the weights as they were; SGD's own rounding may differ in the last bit
    np.testing.assert_allclose(m[2], t[2], rtol=1e-14, atol=0)


def test_defaults_and_state_dict_match_pytorch() -> None:
    m, t = mg.amp.GradScaler("cpu"), torch.amp.GradScaler("cpu")
    assert m.get_scale() == t.get_scale() == 65536.0
    assert m.state_dict() == t.state_dict()
    for s in (m, t):
        s.load_state_dict({"scale": 8.0, "growth_factor": 4.0, "backoff_factor": 0.25, "growth_interval": 1,
                           "_growth_tracker": 0})
    assert m.state_dict() == t.state_dict()
    assert (m.get_growth_factor(), m.get_backoff_factor(), m.get_growth_interval()) == (4.0, 0.25, 1)


def test_growth_stops_before_float32_overflows() -> None:
    m, t = mg.amp.GradScaler("cpu", init_scale=2.0**127, growth_interval=1), \
        torch.amp.GradScaler("cpu", init_scale=2.0**127, growth_interval=1)
    for fw, s in ((mg, m), (torch, t)):
        w = fw.nn.Parameter(fw.ones(2))
        opt = fw.optim.SGD([w], lr=0.1)
        s.scale(w.sum()).backward()
        s.step(opt)
        s.update()
    assert m.get_scale() == t.get_scale() == 2.0**127


def test_scale_keeps_a_float16_loss_in_range_and_maps_over_iterables() -> None:
    s = mg.amp.GradScaler("cpu")
    loss = mg.tensor(2.0, dtype=mg.float16)
    scaled = s.scale(loss)
    assert scaled.dtype == mg.float32 and scaled.item() == 131072.0  # float16 would be inf
    a, b = s.scale((mg.tensor(1.0), mg.tensor(2.0)))
    assert [a.item(), b.item()] == [65536.0, 131072.0]
    assert [v.item() for v in s.scale([mg.tensor(1.0)])] == [65536.0]
    with pytest.raises(ValueError, match="iterable of Tensors"):
        s.scale(3.0)


def test_update_with_a_new_scale() -> None:
    s = mg.amp.GradScaler("cpu")
    s.scale(mg.tensor(1.0))
    s.update(new_scale=4.0)
    assert s.get_scale() == 4.0
    s.update(new_scale=mg.tensor(2.0))
    assert s.get_scale() == 2.0


def test_disabled_scaler_is_a_pass_through() -> None:
    w = mg.nn.Parameter(mg.ones(2))
    opt = mg.optim.SGD([w], lr=0.5)
    s = mg.amp.GradScaler(enabled=False)
    loss = w.sum()
    assert s.scale(loss) is loss
    loss.backward()
    s.unscale_(opt)
    s.step(opt)
    s.update()
    assert w.tolist() == [0.5, 0.5]
    assert s.get_scale() == 1.0 and s.state_dict() == {} and not s.is_enabled()
    s.load_state_dict({})  # no error: nothing to load


def test_cuda_without_a_gpu_warns_and_disables() -> None:
    if mg.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.warns(UserWarning, match="CUDA is not available"):
        assert not mg.amp.GradScaler().is_enabled()
    with pytest.warns(UserWarning, match="CUDA is not available"), \
            pytest.warns(FutureWarning, match=r"torch\.cuda\.amp\.GradScaler\(args\.\.\.\)` is deprecated"):
        assert not mg.cuda.amp.GradScaler().is_enabled()
    from minigrad.cuda.amp import GradScaler  # importable, as torch.cuda.amp is

    assert GradScaler is mg.cuda.amp.GradScaler


def test_misuse_raises_pytorchs_messages() -> None:
    w = mg.nn.Parameter(mg.ones(2))
    opt = mg.optim.SGD([w], lr=0.5)
    s = mg.amp.GradScaler("cpu")
    with pytest.raises(RuntimeError, match="Attempted step but _scale is None"):
        s.step(opt)
    s.scale(w.sum()).backward()
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match="already been called on this optimizer"):
        s.unscale_(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        s.step(opt, closure=lambda: None)
    s.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        s.step(opt)
    with pytest.raises(RuntimeError, match="after step"):
        s.unscale_(opt)
    s.update()
    with pytest.raises(RuntimeError, match="No inf checks"):
        s.update()
    with pytest.raises(RuntimeError, match="source state dict is empty"):
        s.load_state_dict({})
    h = mg.nn.Parameter(mg.ones(2, dtype=mg.float16))
    opt16 = mg.optim.SGD([h], lr=0.5)
    s.scale(h.sum().float()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        s.unscale_(opt16)


# -- autocast in PyTorch's spelling ----------------------------------------------------------------

def test_autocast_pytorch_spelling_casts_by_pytorchs_cpu_lists() -> None:
    w = mg.randn(4, 3, requires_grad=True)
    # PyTorch's CPU lists leave sum alone; minigrad's level O1 (Paddle's lists) runs it in float32
    for ctx, summed in ((mg.autocast(device_type="cpu", dtype=mg.float16), mg.float16), (mg.autocast("O1"), mg.float32)):
        with ctx:
            y = mg.randn(2, 4) @ w
            loss = y.sum()
        assert (y.dtype, loss.dtype) == (mg.float16, summed)
    for ctx in (mg.autocast("cpu"), mg.amp.autocast("cpu")):  # PyTorch's CPU default: bfloat16
        with ctx:
            y = mg.randn(2, 4) @ w
            loss = y.sum()
        assert (y.dtype, loss.dtype) == (mg.bfloat16, mg.bfloat16)
    with mg.autocast(device_type="cpu", enabled=False):
        assert (mg.randn(2, 4) @ w).dtype == mg.float32


def test_autocast_disables_itself_for_an_unsupported_dtype_or_missing_gpu() -> None:
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        ctx = mg.autocast("cpu", dtype=mg.float64)
    with ctx:
        assert (mg.randn(2, 4) @ mg.randn(4, 3)).dtype == mg.float32
    if not mg.cuda.is_available():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ctx = mg.amp.autocast(device_type="cuda")
        assert any("CUDA is not available" in str(c.message) for c in caught)
        assert not ctx.enabled
    with pytest.raises(ValueError, match="'cpu' or 'cuda' or a level"):
        mg.autocast("xyz")
    with pytest.raises(ValueError, match="'cpu' or 'cuda', but got 'tpu'"):
        mg.amp.GradScaler("tpu")
    with pytest.raises(TypeError, match="device_type"):
        mg.autocast(device_type=0)
    with pytest.raises(ValueError, match="level"):
        mg.autocast(level="O7")


def test_is_autocast_enabled_and_get_autocast_dtype() -> None:
    assert not mg.is_autocast_enabled()
    with mg.autocast("cpu"):  # PyTorch's: the form without an argument asks about CUDA
        assert not mg.is_autocast_enabled() and mg.is_autocast_enabled("cpu")
    assert mg.get_autocast_dtype("cpu") == mg.bfloat16 and mg.get_autocast_dtype("cuda") == mg.float16
    assert mg.GradScaler is mg.amp.GradScaler  # torch.GradScaler, as torch.amp.GradScaler
    assert mg.amp.is_autocast_available("cpu")
    assert mg.amp.is_autocast_available("cuda") == mg.cuda.is_available()


def test_docstring_examples_run() -> None:
    import doctest

    import minigrad.amp

    result = doctest.testmod(minigrad.amp)
    assert result.attempted > 0 and result.failed == 0


def _train(fw, bad_steps: set[int]) -> tuple[list[float], list[float], np.ndarray]:
    """A train.py iteration with the scaler on: scale, backward, unscale_, clip, step, update (AdamW)."""
    rng = np.random.default_rng(0)
    x, y = fw.tensor(rng.standard_normal((8, 3))), fw.tensor(rng.standard_normal((8, 1)))
    fw.manual_seed(0)  # the same seed builds PyTorch's initial weights
    model = fw.nn.Sequential(fw.nn.Linear(3, 5), fw.nn.Tanh(), fw.nn.Linear(5, 1)).double()
    opt = fw.optim.AdamW(model.parameters(), lr=0.05)
    scaler = fw.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2)
    losses, scales = [], []
    for step in range(6):
        loss = fw.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        if step in bad_steps:
            with fw.no_grad():
                next(model.parameters()).grad[0, 0] = float("nan")
        scaler.unscale_(opt)
        fw.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())
        scales.append(scaler.get_scale())
    return losses, scales, np.concatenate([p.detach().numpy().ravel() for p in model.parameters()])


@pytest.mark.parametrize("bad_steps", [set(), {2}, {0, 1}])
def test_training_loop_with_clipping_and_adamw_matches_pytorch(bad_steps) -> None:
    m_losses, m_scales, m_params = _train(mg, bad_steps)
    t_losses, t_scales, t_params = _train(torch, bad_steps)
    assert m_scales == t_scales
    np.testing.assert_allclose(m_losses, t_losses, rtol=1e-12)
    np.testing.assert_allclose(m_params, t_params, rtol=1e-12)


def _params(fn) -> list[tuple[str, object]]:
    import inspect

    return [(n, p.default) for n, p in inspect.signature(fn).parameters.items()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY)]


@pytest.mark.parametrize("path", ["GradScaler", "GradScaler.scale", "GradScaler.unscale_", "GradScaler.step",
                                  "GradScaler.update", "GradScaler.state_dict", "GradScaler.load_state_dict",
                                  "GradScaler.get_scale", "autocast", "is_autocast_available"])
def test_signatures_match_torch_amp(path: str) -> None:
    """PyTorch's parameter names, order and defaults. minigrad's autocast adds the keyword ``level``, and its
    ``device_type`` defaults to None (``mg.autocast()`` is level O1) where PyTorch's is required."""
    m, t = mg.amp, torch.amp
    for part in path.split("."):
        m, t = getattr(m, part), getattr(t, part)
    ours, theirs = _params(m), _params(t)
    if path == "autocast":
        assert ours[0] == ("device_type", None)
        ours, theirs = ours[1:], theirs[1:]
    assert ours == theirs
