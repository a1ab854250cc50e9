"""Random draws and factories on the GPU are made there: no host -> device copy, no sync.

PyTorch's CUDA factories (``zeros``, ``arange``, ``eye``...) fill memory with a kernel, and its CUDA
generator draws on the device. Here too: a fill kernel for the factories, and Philox4x32-10 kernels
(``kernels/gpu/cuda_src.py``, NOTE [ Draws made on the GPU: Philox4x32-10 ]) for ``rand``, ``randn``,
``randint``, ``normal``, ``bernoulli``, the in-place samplers and every dropout. The draws are minigrad's
own stream (PyTorch's CUDA stream depends on the launch grid; the CPU's stays PyTorch's, bit for bit), so
they are checked by what they must be: the distribution, the seed's reproducibility, dropout's gradient.

Runs on a device and on the stand-in (``test_emulated_gpu.py``); the copy counts need the stand-in. The
stand-in's Philox is checked against Random123's known-answer vectors on every machine.
"""

from __future__ import annotations

import numpy as np
import pytest

import fake_cupy
import minigrad as mg

F = mg.nn.functional
#: a GPU or the stand-in CuPy (conftest skips it elsewhere); `-m gpu` selects it on a device (scripts/gpu_device_check.sh)
needs_gpu = pytest.mark.gpu


_fake = fake_cupy.installed  # the stand-in, where it counts copies, syncs and launches


counted = pytest.mark.skipif(_fake() is None, reason="copies, syncs and launches are counted by the stand-in CuPy")


# Random123's known-answer vectors for philox4x32-10 (kat_vectors): counter, key -> the four words.
KAT = [((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
       ((0xFFFFFFFF,) * 4, (0xFFFFFFFF, 0xFFFFFFFF), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
       ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]


@pytest.mark.parametrize("counter, key, words", KAT)
def test_the_stand_ins_philox_gives_random123s_known_answers(counter, key, words):
    got = fake_cupy.philox4x32_10(np.array([counter], np.uint32), key)[0]
    assert tuple(int(w) for w in got) == words


def _host(t):
    return t.cpu().numpy()


# -- what a draw is made of ------------------------------------------------------------------------

DRAWS = {
    "rand": lambda: mg.rand(4096, device="cuda"),
    "randn": lambda: mg.randn(64, 64, device="cuda"),
    "randn float64": lambda: mg.randn(4096, dtype=mg.float64, device="cuda"),
    "randn float16": lambda: mg.randn(4096, dtype=mg.float16, device="cuda"),
    "randint": lambda: mg.randint(3, 10, (4096,), device="cuda"),
    "normal": lambda: mg.normal(2.0, 3.0, size=(4096,), device="cuda"),
    "bernoulli": lambda: mg.bernoulli(mg.zeros(4096, device="cuda"), 0.25),
    "rand_like": lambda: mg.rand_like(mg.zeros(4096, device="cuda")),
    "uniform_": lambda: mg.empty(4096, device="cuda").uniform_(-2, 2),
    "normal_": lambda: mg.empty(4096, device="cuda").normal_(1.0, 0.5),
    "random_": lambda: mg.empty(4096, dtype=mg.int32, device="cuda").random_(0, 7),
    "bernoulli_": lambda: mg.empty(4096, device="cuda").bernoulli_(0.75),
    # drawn on the device since the twenty-ninth session (they were drawn on the host and copied, a sync a call)
    "exponential_": lambda: mg.empty(8192, device="cuda").exponential_(2.0),
    "exponential_ float16": lambda: mg.empty(8192, dtype=mg.float16, device="cuda").exponential_(2.0),
    "cauchy_": lambda: mg.empty(8192, device="cuda").cauchy_(1.0, 0.5),
    "log_normal_": lambda: mg.empty(8192, dtype=mg.float64, device="cuda").log_normal_(0.5, 0.25),
    "geometric_": lambda: mg.empty(8192, dtype=mg.int64, device="cuda").geometric_(0.25),
}


@needs_gpu
@pytest.mark.parametrize("name", sorted(DRAWS))
def test_draws_have_their_distribution(name):
    mg.manual_seed(0)
    t = DRAWS[name]()
    v = _host(t).astype(np.float64).reshape(-1)
    assert t.device.type == "cuda"
    kind = name.split()[0]
    if kind in ("rand", "rand_like"):
        assert v.min() >= 0 and v.max() < 1 and abs(v.mean() - 0.5) < 0.02
    elif kind == "randn":
        assert t.dtype == {"randn": mg.float32, "float64": mg.float64, "float16": mg.float16}[name.split()[-1]]
        assert abs(v.mean()) < 0.05 and abs(v.std() - 1) < 0.05 and np.isfinite(v).all()
    elif kind == "normal":
        assert abs(v.mean() - 2.0) < 0.15 and abs(v.std() - 3.0) < 0.15
    elif kind == "normal_":
        assert abs(v.mean() - 1.0) < 0.05 and abs(v.std() - 0.5) < 0.05
    elif kind == "uniform_":
        assert v.min() >= -2 and v.max() < 2 and abs(v.mean()) < 0.1
    elif kind == "randint":
        assert t.dtype == mg.int64 and set(np.unique(v)) == set(range(3, 10))
    elif kind == "random_":
        assert t.dtype == mg.int32 and set(np.unique(v)) == set(range(7))
    elif kind == "bernoulli":
        assert set(np.unique(v)) == {0.0, 1.0} and abs(v.mean() - 0.25) < 0.03
    elif kind == "bernoulli_":
        assert set(np.unique(v)) == {0.0, 1.0} and abs(v.mean() - 0.75) < 0.03
    elif kind == "exponential_":  # mean and standard deviation 1 / lambda, never negative
        assert v.min() >= 0 and abs(v.mean() - 0.5) < 0.03 and abs(v.std() - 0.5) < 0.03
    elif kind == "cauchy_":  # median 1, quartiles at 1 -+ sigma
        assert abs(np.median(v) - 1.0) < 0.04 and abs(np.percentile(v, 75) - np.percentile(v, 25) - 1.0) < 0.08
    elif kind == "log_normal_":
        assert t.dtype == mg.float64 and v.min() > 0
        assert abs(np.log(v).mean() - 0.5) < 0.02 and abs(np.log(v).std() - 0.25) < 0.02
    else:  # geometric_: trials to the first success, 1, 2, ...; mean 1 / p
        assert t.dtype == mg.int64 and v.min() >= 1 and (v == np.round(v)).all() and abs(v.mean() - 4.0) < 0.2


@needs_gpu
def test_a_seed_repeats_the_draws_and_each_call_draws_anew():
    mg.manual_seed(7)
    a, b = mg.randn(256, device="cuda"), mg.randn(256, device="cuda")
    mg.manual_seed(7)
    a2 = mg.randn(256, device="cuda")
    assert np.array_equal(_host(a), _host(a2))
    assert not np.array_equal(_host(a), _host(b))
    mg.cuda.manual_seed(7)  # the GPU's generator alone
    assert np.array_equal(_host(mg.randn(256, device="cuda")), _host(a))
    state = mg.cuda.get_rng_state()
    c = mg.rand(100, device="cuda")
    mg.cuda.set_rng_state(state)
    assert np.array_equal(_host(mg.rand(100, device="cuda")), _host(c))
    assert mg.cuda.initial_seed() == 7 and state.numel() == 16


@needs_gpu
def test_a_cpu_generator_given_draws_its_own_numbers_and_the_cpu_stream_is_untouched():
    g = mg.Generator().manual_seed(3)
    on_gpu = mg.randn(50, generator=g, device="cuda")
    assert np.array_equal(_host(on_gpu), mg.randn(50, generator=mg.Generator().manual_seed(3)).numpy())
    mg.manual_seed(11)
    cpu_first = mg.randn(5).numpy()
    mg.manual_seed(11)
    mg.randn(1000, device="cuda")  # drawn by the device generator: the CPU stream does not move
    assert np.array_equal(mg.randn(5).numpy(), cpu_first)


@needs_gpu
@pytest.mark.parametrize("p", [0.1, 0.5])
def test_dropout_on_the_gpu_zeros_p_scales_the_rest_and_its_gradient_is_the_mask(p):
    mg.manual_seed(0)
    x = (mg.rand(64, 256, device="cuda") + 1.0).requires_grad_()
    y = F.dropout(x, p, training=True)
    y.sum().backward()
    xv, yv, g = _host(x.detach()), _host(y.detach()), _host(x.grad)
    kept = yv != 0
    assert abs((~kept).mean() - p) < 0.02
    np.testing.assert_allclose(yv[kept], xv[kept] / (1 - p), rtol=1e-6)
    np.testing.assert_allclose(g, np.where(kept, 1 / (1 - p), 0.0), rtol=1e-6)


@needs_gpu
@pytest.mark.parametrize("name", ["dropout2d", "alpha_dropout", "sdpa"])
def test_the_other_dropouts_draw_on_the_gpu(name):
    mg.manual_seed(0)
    x = mg.rand(8, 16, 4, 4, device="cuda") + 1.0
    if name == "dropout2d":
        y = _host(F.dropout2d(x, 0.5))
        per_channel = y.reshape(8, 16, -1)
        assert ((per_channel == 0).all(-1) | (per_channel != 0).all(-1)).all()  # whole channels
        assert 0.3 < (per_channel == 0).all(-1).mean() < 0.7
    elif name == "alpha_dropout":
        y = _host(F.alpha_dropout(mg.randn(100_000, device="cuda"), 0.2, training=True))
        assert abs(y.mean()) < 0.05 and abs(y.std() - 1) < 0.05
    else:
        q = mg.randn(2, 2, 16, 8, device="cuda")
        out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5, is_causal=True)
        assert out.shape == (2, 2, 16, 8) and np.isfinite(_host(out)).all()


# -- factories -------------------------------------------------------------------------------------

FACTORIES = {
    "zeros": lambda d: mg.zeros(3, 5, device=d),
    "ones int32": lambda d: mg.ones(3, 5, dtype=mg.int32, device=d),
    "full": lambda d: mg.full((2, 3), 2.5, device=d),
    "full bool": lambda d: mg.full((4,), True, device=d),
    "empty": lambda d: mg.empty(4, device=d),
    "arange": lambda d: mg.arange(3, 40, 3, device=d),
    "arange float": lambda d: mg.arange(0, 1, 0.1, device=d),
    "eye": lambda d: mg.eye(3, 5, device=d),
    "zeros_like": lambda d: mg.zeros_like(mg.ones(2, 2, device=d)),
    "new_full": lambda d: mg.ones(2, device=d).new_full((3,), 7.0),
    "tril": lambda d: mg.tril(mg.ones(4, 6, device=d), 1),
}


@needs_gpu
@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_on_the_gpu_equal_the_cpus(name):
    gpu, cpu = FACTORIES[name]("cuda"), FACTORIES[name]("cpu")
    assert gpu.device.type == "cuda" and gpu.dtype == cpu.dtype and gpu.shape == cpu.shape
    assert np.array_equal(_host(gpu), cpu.numpy())


@counted
@pytest.mark.parametrize("name", sorted(set(FACTORIES) - {"arange float"}) + sorted(DRAWS) + ["dropout", "causal sdpa"])
def test_a_factory_or_a_draw_on_the_gpu_copies_nothing(name):
    """Made by a kernel on the device, the numbers as its arguments: no copy, no sync. (A float ``arange``
    is computed on the host, PyTorch's values bit for bit, and copied: a visible ``device.copy``. A
    causal mask is copied once and kept.)"""
    fake = _fake()
    x = mg.randn(4, 8, 8, device="cuda")
    calls = {**{k: (lambda f=f: f("cuda")) for k, f in FACTORIES.items()}, **DRAWS,
             "dropout": lambda: F.dropout(x, 0.2),
             "causal sdpa": lambda: F.scaled_dot_product_attention(x, x, x, is_causal=True)}
    calls[name]()  # compiles; a kept mask is copied here, once
    fake.reset_counts()
    calls[name]()
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log


@needs_gpu
def test_a_generator_made_for_the_gpu_draws_its_own_stream_there():
    """``mg.Generator(device="cuda")``, as PyTorch programs seed one: its seed repeats its draws, it leaves the
    default generators alone, and a draw made on the host (or for a CPU tensor) refuses it in PyTorch's words."""
    g = mg.Generator(device="cuda").manual_seed(5)
    assert isinstance(g, mg.Generator) and repr(g.device) == "device(type='cuda', index=0)"
    mg.manual_seed(0)
    default_next = _host(mg.randn(8, device="cuda"))
    mg.manual_seed(0)
    a = _host(mg.randn(8, device="cuda", generator=g))
    b = _host(mg.empty(8, device="cuda").uniform_(generator=g))
    assert np.array_equal(_host(mg.randn(8, device="cuda")), default_next)  # the default stream did not move
    g.manual_seed(5)
    assert np.array_equal(_host(mg.randn(8, device="cuda", generator=g)), a)
    assert not np.array_equal(a, b) and g.initial_seed() == 5
    state = g.get_state()
    c = _host(mg.rand(4, device="cuda", generator=g))
    assert np.array_equal(_host(mg.rand(4, device="cuda", generator=g.set_state(state))), c)
    for host_draw in (lambda: mg.randn(2, generator=g), lambda: mg.randperm(4, device="cuda", generator=g)):
        with pytest.raises(RuntimeError, match=r"^Expected a 'cpu' device type for generator but found 'cuda'$"):
            host_draw()
