"""On a real GPU: every hand-written kernel launch agrees with the CI stand-in (``fake_cupy``).

CPU-only CI runs the GPU suite against ``fake_cupy``, which emulates each
CUDA kernel in NumPy. That is only worth something if the emulation computes
what the CUDA C computes. Here, on a device, every launch a workload makes is
*shadowed*: the real kernel runs, then the emulated kernel runs on host
copies of the same arguments, and every array argument must come out equal
(to the accumulation type's rounding). A kernel the stand-in does not know,
or emulates differently, fails here.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

pytestmark = pytest.mark.gpu

#: (rtol, atol) by array dtype: both sides accumulate in float32 for float16/float32
TOL = {np.dtype(np.float16): (2e-3, 2e-3), np.dtype(np.float32): (2e-5, 1e-6), np.dtype(np.float64): (1e-11, 1e-13)}


def _host_like(args):
    """Host copies of a launch's device arrays with the same memory layout: each allocation behind them is
    copied once and every argument becomes a view into its copy (same strides, same offset).

    Kernels read operands through the data pointer and the strides the launcher passed, so the emulator
    must see the same bytes at the same places - not a compacted copy; and arguments that share memory must
    share it on the host too (an in-place multiply passes its output as its input: with a copy per
    argument, the emulated write missed the input it was compared on).
    """
    import cupy
    import fake_cupy

    copies: dict[int, np.ndarray] = {}
    out = []
    for a in args:
        if not isinstance(a, cupy.ndarray):
            out.append(a)
            continue
        mem = a.data.mem
        raw = copies.get(mem.ptr)
        if raw is None:
            whole = cupy.ndarray((mem.size,), dtype=np.uint8, memptr=cupy.cuda.MemoryPointer(mem, 0))
            raw = copies[mem.ptr] = cupy.asnumpy(whole)
        view = np.ndarray(a.shape, dtype=a.dtype, buffer=raw, offset=a.data.ptr - mem.ptr, strides=a.strides)
        out.append(view.view(fake_cupy.ndarray))
    return tuple(out)


class _Shadow:
    """A real CuPy kernel that also runs the emulated one and compares their effects."""

    def __init__(self, real, code: str, name: str, seen: dict[str, int]) -> None:
        import fake_cupy

        self.real, self.name, self.seen = real, name, seen
        self.fake = fake_cupy.RawModule(code=code).get_function(name)

    def __call__(self, grid, block, args) -> None:
        import cupy

        host = _host_like(args)
        self.real(grid, block, args)
        cupy.cuda.Device().synchronize()
        self.fake(grid, block, host)
        self.seen[self.name] = self.seen.get(self.name, 0) + 1
        for k, (a, h) in enumerate(zip(args, host)):
            if not isinstance(a, cupy.ndarray):
                continue
            got, want = cupy.asnumpy(a), np.asarray(h)
            if got.dtype.kind == "f":
                rtol, atol = TOL[got.dtype]
                np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                                           equal_nan=True, err_msg=f"{self.name} argument {k}")
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"{self.name} argument {k}")


@pytest.fixture
def shadowed(monkeypatch):
    """Route every kernel the launchers compile through ``_Shadow``; yields {kernel name: launches}."""
    import cupy

    from minigrad.kernels.gpu import _runtime

    seen: dict[str, int] = {}
    real_module = cupy.RawModule

    class Module:
        def __init__(self, code: str, **kw) -> None:
            self.code, self.mod = code, real_module(code=code, **kw)

        def get_function(self, name: str):
            return _Shadow(self.mod.get_function(name), self.code, name, seen)

    monkeypatch.setattr(cupy, "RawModule", Module)
    monkeypatch.setattr(_runtime, "_modules", {})
    yield seen


def _workload(dtype) -> None:
    rng = np.random.default_rng(0)

    def t(*shape, lo=-2.0, hi=2.0):
        return mg.tensor(rng.uniform(lo, hi, size=shape), dtype=dtype, requires_grad=True)

    x, y = t(33, 65), t(33, 65)
    g = lambda v: v.to("gpu")  # noqa: E731
    outs = [g(x).exp(), g(x).sigmoid(), g(x).gelu(), g(x).tanh(), g(x).relu(), g(x) * g(y), g(x) - g(y),
            mg.maximum(g(x), g(y)), g(x).transpose(0, 1) + g(y).transpose(0, 1), g(x) + g(t(65)),
            mg.clip(g(x), -0.5, 0.5), mg.where(g(x) > 0, g(x), g(y)), g(x) * 0.5, 0.25 - g(y),
            g(x).sum(), g(x).mean(dim=0), g(x).max(), mg.min(g(x)), g(t(70_000)).sum(), mg.logsumexp(g(x), dim=1),
            mg.logsumexp(g(t(50_000))), mg.softmax(g(x), dim=1), mg.log_softmax(g(x), dim=0)]
    logits = t(16, 11)
    outs.append(mg.cross_entropy(g(logits), mg.tensor(rng.integers(0, 11, 16)).to("gpu")))
    picks = rng.integers(0, 11, 16)
    picks[[1, 6]] = -100  # ignored
    for reduction in ("mean", "none"):  # nll_loss's kernels, through PyTorch's functional cross_entropy
        outs.append(mg.nn.functional.cross_entropy(g(logits), mg.tensor(picks).to("gpu"), reduction=reduction))
    outs.append(mg.mse_loss(g(x), g(y)))
    im = t(2, 3, 9, 8)
    outs.append(mg.max_pool2d(g(im), 3, 2, 1))
    rows = t(70, 33)  # layer norm: more rows than a chunk of the weight's gradient
    outs.append(mg.nn.functional.layer_norm(g(rows), (33,), g(t(33)), g(t(33))))
    mg.use_deterministic_algorithms(True)  # the scatters in the order of their writes (kernels/gpu/ordered.py)
    repeats = mg.tensor([3, 0, 3, 1, 3, 3]).to("gpu")
    outs.append(g(t(5, 4)).index_add(0, repeats, g(t(6, 4))))
    outs.append(g(t(5, 4)).index_copy(0, repeats, g(t(6, 4))))
    mg.use_deterministic_algorithms(False)
    loss = outs[0].sum()
    for o in outs[1:]:
        loss = loss + o.sum()
    loss.backward()
    # draws made on the device (Philox): the same words, the same uniforms, normals to libm's rounding
    mg.manual_seed(5)
    draws = [mg.rand(3000, dtype=dtype, device="gpu"), mg.randn(3000, dtype=dtype, device="gpu"),
             mg.normal(1.0, 2.0, size=(100,), dtype=dtype, device="gpu"), mg.randint(-5, 9, (999,), device="gpu"),
             mg.nn.functional.dropout(g(x).detach(), 0.3), mg.empty(77, dtype=dtype, device="gpu").uniform_(-3, 3)]
    assert all(d.device.type == "cuda" for d in draws)
    # clipping's foreach form: sums of squares per block, a multiply by a coefficient read on the device
    params = [mg.nn.Parameter(g(t(*s)).detach()) for s in ((300,), (7, 5), (0,), (2000,))]
    for p in params:
        p.grad = g(t(*p.shape)).detach()
    mg.nn.utils.clip_grad_norm_(params, 0.5)
    a, b, w = t(37, 19), t(19, 23), t(4, 3, 3, 3)
    for use_gpudnn in (True, False):  # cuBLAS / im2col (GPUDNN), then the hand-written kernels (GPU)
        mg.flags.use_gpudnn = use_gpudnn
        ((g(a) @ g(b)).sum() + mg.conv2d(g(im), g(w), padding=1, stride=(2, 1)).sum()).backward()


@pytest.mark.parametrize("dtype", [mg.float16, mg.float32, mg.float64], ids=str)
def test_every_launch_agrees_with_the_stand_in(shadowed, dtype, gpudnn_flag):
    _workload(dtype)
    families = {name.split("_")[1] for name in shadowed}
    # the workload reaches every family of hand-written kernel
    assert {"ew", "reduce", "lse", "softmax", "log", "cross", "matmul", "im2col", "col2im", "conv", "maxpool",
            "mse", "philox", "ln", "mt", "nll", "oadd", "oset"} <= families, sorted(shadowed)
    assert any("_sumsq_" in name for name in shadowed) and any(name.endswith("_tp") for name in shadowed)
    assert any(name.endswith("_vec") for name in shadowed) and any(name.endswith("_strided") for name in shadowed)
    assert any(name.endswith("_scalar0") for name in shadowed) and any(name.endswith("_scalar1") for name in shadowed)
