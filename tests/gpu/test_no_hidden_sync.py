"""A steady training step on the GPU makes no host/device copy and no sync; the ones a program asks for are visible.

Counted with the stand-in CuPy (``fake_cupy.counts()``: host -> device and
device -> host copies, syncs, kernel launches), so every machine checks it;
``tests/gpu/test_emulated_gpu.py`` runs this file with the stand-in installed.
On a real GPU the counters do not exist and the counting tests skip (the
events and the sync debug mode are checked on either).

The launch budgets are the stand-in's count of a step's kernels (every CuPy
ufunc, reduction, copy, fill and hand-written kernel is one), measured and
rounded up a little; a change that adds launches to a step fails here and
says by how much. The optimizers run in their default GPU form (``foreach``:
a few launches for all parameters, where the for-loop form takes about a
dozen per parameter for AdamW).
"""

from __future__ import annotations

import importlib.util
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import fake_cupy
import minigrad as mg

ROOT = Path(__file__).resolve().parents[2]
F = mg.nn.functional


_fake = fake_cupy.installed  # the stand-in, where it counts copies, syncs and launches


#: a GPU or the stand-in CuPy (conftest skips it elsewhere); `-m gpu` selects it on a device (scripts/gpu_device_check.sh)
needs_gpu = pytest.mark.gpu
counted = pytest.mark.skipif(_fake() is None, reason="copies, syncs and launches are counted by the stand-in CuPy")


def _char_gpt():
    spec = importlib.util.spec_from_file_location("char_gpt_example", ROOT / "examples" / "char_gpt.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def gpt_step(n_layer=2, n_embd=64, n_head=4, batch=16, block=32, vocab=40):
    """One AdamW step of ``examples/char_gpt.py``'s model on the GPU, as its training loop writes it."""
    mg.manual_seed(0)
    model = _char_gpt().CharGPT(vocab, n_embd, n_head, n_layer, block).to("gpu")
    opt = mg.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    x = mg.randint(0, vocab, (batch, block)).to("gpu")
    y = mg.randint(0, vocab, (batch, block)).to("gpu")

    def step():
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, vocab), y.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def mlp_step():
    """An SGD-with-momentum step with gradient clipping (``clip_grad_norm_`` reads no norm on the host)."""
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(64, 128), mg.nn.ReLU(), mg.nn.Linear(128, 10)).to("gpu")
    opt = mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = mg.randn(32, 64).to("gpu"), mg.randint(0, 10, (32,)).to("gpu")

    def step():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        mg.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss

    return step


def cnn_step():
    mg.manual_seed(0)
    nn = mg.nn
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(16 * 7 * 7, 10)).to("gpu")
    opt = mg.optim.Adam(model.parameters(), lr=1e-3)
    x, y = mg.randn(8, 1, 28, 28).to("gpu"), mg.randint(0, 10, (8,)).to("gpu")

    def step():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def makemore_step():
    """makemore's character MLP as its lecture writes it (``bench/gpu_kernels.py``'s ``makemore_step``): raw
    parameters, ``C[X[ix]]`` with a minibatch index drawn on the device, ``tanh``, ``cross_entropy``,
    ``p.grad = None`` and ``p.data += -lr * p.grad``. Its embedding's backward scatters at the device index it
    was given (it was read back to the host), and tanh's backward takes its ``1`` as a kept constant (it was
    copied to the device at every step)."""
    return _bench().makemore_step(mg, "gpu")


def small_resnet_step():
    """A CIFAR-style CNN as course programs write it (``bench/gpu_kernels.py``'s ``small_resnet_step``): convs
    without bias, BatchNorm2d, LeakyReLU, a strided conv, ``AdaptiveAvgPool2d((1, 1))``, SGD with momentum and
    weight decay. LeakyReLU and the adaptive pool (and its backward) fell back to the CPU before the ninth
    session: copies and syncs at every step."""
    return _bench().small_resnet_step(mg, "gpu")


def nano_gpt_step():
    """A step of ``examples/gpt.py``'s nanoGPT-style model as its loop writes it (``bench/gpu_kernels.py``'s
    ``nanogpt_step``, 2 layers x 64, batch 8 x 32): positions from ``arange(..., device=idx.device)``, dropout
    0.1 (its masks drawn on the device), causal SDPA, clipping, the fused AdamW with weight-decay groups."""
    return _bench().nanogpt_step(mg, "cuda", (2, 64, 4, 8, 32, 0.1))


def _bench():
    """``bench/gpu_kernels.py`` as a module: its training steps are written once for both frameworks."""
    spec = importlib.util.spec_from_file_location("gpu_kernels_bench", ROOT / "bench" / "gpu_kernels.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def steady_counts(step, steps=3):
    """Counts per step over ``steps`` steps after a warm-up step (which compiles the kernels and uploads
    each stride table and number constant once)."""
    fake = _fake()
    step()
    fake.reset_counts()
    for _ in range(steps):
        step()
    c = fake.counts()
    log = list(fake.COUNTS.log)
    return {k: v / steps for k, v in c.items()}, log


#: Stand-in launches per steady step, the optimizers in their default form on the GPU (``foreach``), each
#: budget the measurement plus about 2%: char GPT 149, MLP 34 with clip_grad_norm_, CNN 57, the nanoGPT-style
#: step 193 (its dropout masks are drawn on the device: one launch each, no copy). At the start of the sixth
#: session they were 448, 89, 88 and 712: the pieces of ``qkv.split`` became one node, layer norm one launch a
#: row, clipping its foreach form, nll_loss one launch, a bias's gradient one matrix-vector product, and .grad
#: takes a fresh gradient (and nn.Linear's, made row-major for it) without a copy; in the seventh, softmax's
#: backward became one launch (PyTorch's ``_softmax_backward_data``) where it took four; in the eighth, an
#: embedding one range check and one gather (PyTorch's ``embedding`` op) where a getitem checked the range
#: again, and the stand-in stopped counting a copy of its own after a gather (bench/RESULTS.md). In the ninth,
#: makemore's MLP joined, 45 launches: before, its step made two copies and two syncs (``C[X[ix]]``'s backward
#: read its GPU index back, and tanh's backward copied its ``1`` to the device); and a small ResNet-style CNN,
#: 146 launches (LeakyReLU and the adaptive average pool ran on the CPU, with copies and syncs, before).
#: In the thirteenth, the char GPT's step became 153: ``matmul`` runs PyTorch's decomposition, whose batched
#: path reshapes each operand to 3-D, and q, k and v (transposed views of one ``qkv`` output) cannot be seen
#: as (B * heads, T, hs) without a copy: a ``clone`` each, as PyTorch CUDA makes them (NOTE [ An op that
#: decomposes ] in ops/registry.py). In the fourteenth, the nanoGPT-style step became 199: its attention is
#: PyTorch's one fused node (ops/attention.py), which keeps no (T x T) weights for the backward and recomputes
#: them there (a product, the scale, the mask, a softmax: four launches a layer), as PyTorch's fused kernels do.
#: In the twenty-first, 152 / 33 / 50 / 199 / 39 / 129 (from 153 / 34 / 55 / 199 / 40 / 134): the backward
#: seed is a device copy from the kept constant of 1 (no fill kernel), and the im2col weight gradient of one
#: slice of images one GEMM (no zero fill and sum around it). In the twenty-second, the ResNet-style step 59
#: (from 129, both as the stand-in counted then): batch norm is two launches forward and its input's gradient two backward (NOTE [ Batch norm: one
#: block a channel ] in cuda_src.py), where the composite took about 10 and 22, and the running statistics'
#: update four (the batch's moments, three multi-tensor steps) where its ops took eleven and four copies.
#: Then the stand-in learned to count the copy CuPy's reshape makes of an array it can't view (its copy
#: kernel), which it had not: 158 / 33 / 53 / 205 / 39 / 62 - the char GPT's view backwards reshaping a
#: transposed gradient (PyTorch's ViewBackward0 copies there too), a convolution's backward transposing
#: the output's gradient for its GEMMs (cuDNN's needs no copy).
#: In the twenty-fourth, 152 / 32 / 47 / 193 / 39 / 60: the optimizers' rules are PyTorch's ops (NOTE [ An
#: optimizer's step is PyTorch's, bit for bit ] in optim/update.py), so AdamW's foreach step is PyTorch's
#: eight multi-tensor steps (``lerp_``, ``addcmul_``, ``addcdiv_`` ...) where it was fourteen, and SGD's
#: ``add_(grad, alpha=-lr)`` one where ``sub_(grad * lr)`` was two. In the twenty-sixth, the nanoGPT-style step
#: 192: a column-major operand of ``mm`` gets a column-major gradient, as PyTorch's ``mm_mat2_backward`` makes
#: it, so the tied ``lm_head``'s ``weight.t()`` hands the embedding a row-major gradient and its ``.grad`` needs
#: no layout copy (``operand_layout`` in autograd/formula.py). In the thirty-third, the nanoGPT-style step 181:
#: its ``configure_optimizers`` takes the fused AdamW on a GPU, as nanoGPT's does (two launches a group where
#: foreach took eight).
BUDGETS = {"char GPT 2x64, batch 16x32, AdamW": (gpt_step, 155),
           "MLP 64-128-10, SGD momentum, clipped": (mlp_step, 33),
           "CNN conv8-pool-conv16-pool-linear, Adam": (cnn_step, 48),
           "nanoGPT-style 2x64, dropout 0.1, causal SDPA, fused AdamW": (nano_gpt_step, 185),
           "makemore MLP, C[X[ix]], tanh, p.data += -lr * p.grad": (makemore_step, 40),
           "small ResNet-style CNN, BatchNorm2d, LeakyReLU, adaptive avg pool, SGD": (small_resnet_step, 62)}


@counted
@pytest.mark.parametrize("name", sorted(BUDGETS))
def test_a_steady_training_step_copies_nothing_and_waits_for_nothing(name):
    make, budget = BUDGETS[name]
    per_step, log = steady_counts(make())
    assert per_step["h2d"] == 0 and per_step["d2h"] == 0, log
    assert per_step["syncs"] == 0, log
    assert per_step["launches"] <= budget, f"{name}: {per_step['launches']:.0f} launches a step, budget {budget}"


#: The scatters with a reduction, mode and the trapezoidal rule, forward and backward on device leaves: their
#: results' sizes come from the shapes, their index ranges are checked on the device, a product is scanned there
REDUCTIONS_ON_DEVICE = {
    **{f"scatter_reduce {r}": (lambda r: lambda x, s, i, idx: x.scatter_reduce(1, i, s, r, include_self=False))(r)
       for r in ("sum", "prod", "mean", "amax", "amin")},
    **{f"index_reduce {r}": (lambda r: lambda x, s, i, idx: x.index_reduce(1, idx, s, r))(r)
       for r in ("prod", "mean", "amax", "amin")},
    "mode": lambda x, s, i, idx: x.mode(1).values,
    "cumulative_trapezoid": lambda x, s, i, idx: mg.cumulative_trapezoid(x, s),
}


@counted
@pytest.mark.parametrize("name", sorted(REDUCTIONS_ON_DEVICE))
def test_scatter_reduce_index_reduce_and_mode_copy_nothing_and_wait_for_nothing(name):
    fake = _fake()
    rng = np.random.default_rng(0)
    x, s = (mg.tensor(rng.standard_normal((4, 6))).to("gpu").requires_grad_() for _ in range(2))
    i, idx = mg.tensor(rng.integers(0, 6, (4, 6))).to("gpu"), mg.tensor([0, 2, 2, 5, 1, 0]).to("gpu")

    def step():
        REDUCTIONS_ON_DEVICE[name](x, s, i, idx).sum().backward()

    step()  # the first call uploads the index grids, once per shape
    fake.reset_counts()
    step()
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log


@counted
def test_isclose_stays_on_the_device_and_allclose_reads_one_bool():
    """``isclose`` is PyTorch's composite of device ops (it copied both tensors to the host and compared them
    there); ``allclose`` and ``equal`` read one bool back, as PyTorch's ``.item()`` does."""
    fake = _fake()
    x = mg.rand(5, 3, device="gpu")
    y = x * 1.5

    def step():
        mg.isclose(x, y, equal_nan=True).sum()

    step()  # the number constants' first upload
    fake.reset_counts()
    step()
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
    for read in (lambda: mg.allclose(x, y), lambda: mg.equal(x, y)):
        fake.reset_counts()
        assert read() is False
        c = fake.counts()
        assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 1, 1), fake.COUNTS.log


@counted
def test_the_stand_in_counts_what_a_program_asks_for():
    """The counters can fail: an ``.item()`` every step is one copy and one sync a step, a tensor made
    from host data every step one upload and one sync."""
    fake = _fake()
    step = mlp_step()
    step()
    fake.reset_counts()
    for _ in range(2):
        step().item()
        mg.tensor([1.0, 2.0]).to("gpu")
    c = fake.counts()
    # each .item(): the value, and the flags of the step's device-side checks (the embedding's, the
    # loss's targets'), read in the same wait; each upload: one copy, one sync
    assert (c["d2h"], c["h2d"], c["syncs"]) == (4, 2, 6), fake.COUNTS.log
    fake.reset_counts()
    mg.cuda.synchronize()
    assert fake.counts()["syncs"] == 1


@counted
def test_the_stand_in_counts_the_copy_a_reshape_or_ravel_makes():
    """CuPy's ``reshape`` of an array it can't view in the new shape (a transposed one) copies it with its
    elementwise copy kernel (``_reshape`` in cupy/_core/_routines_manipulation.pyx), and so does ``ravel`` or
    ``flatten``: a launch each. A reshape that is a view launches nothing. (The stand-in counted none, and
    a convolution's backward made two such copies unseen.)"""
    import cupy

    fake = _fake()
    a = cupy.arange(12, dtype=np.float32).reshape(3, 4).copy()  # (an array that owns its memory)
    fake.reset_counts()
    assert a.reshape(4, 3).base is a and a.ravel().base is a
    assert fake.counts()["launches"] == 0
    t = a.T
    for copy in (lambda: t.reshape(12), lambda: t.reshape(2, 6), lambda: t.ravel(), lambda: t.flatten(),
                 lambda: a.flatten()):
        fake.reset_counts()
        r = copy()
        assert r.base is None and fake.counts()["launches"] == 1, fake.counts()
    np.testing.assert_array_equal(t.reshape(12).get(), np.arange(12).reshape(3, 4).T.reshape(12))


@counted
def test_the_stand_in_refuses_numpy_memory_that_is_a_device_arrays():
    """CuPy refuses an implicit conversion of its arrays to NumPy's, in these words; the stand-in's arrays are
    NumPy's, so it refuses NumPy's converters called on them by the program, and a NumPy view of device memory
    when it is copied back to the device. (The second caught getitem's backward turning its saved GPU index
    into such a view: a TypeError on a device.)"""
    import cupy

    on_device = cupy.arange(3)
    for convert in (np.asarray, np.array, np.asanyarray, np.ascontiguousarray, np.asfortranarray):
        with pytest.raises(TypeError, match=r"^Implicit conversion to a NumPy array is not allowed"):
            convert(on_device)
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        np.array([on_device, on_device])
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        cupy.asarray(on_device.view(np.ndarray)[:2])
    assert cupy.asarray(np.arange(3)).sum() == 3  # host memory is uploaded as before
    assert np.asarray(on_device.get()).tolist() == [0, 1, 2]  # an explicit copy is the way


@counted
def test_the_stand_in_counts_the_reads_cupy_makes_for_a_result_of_unknown_size():
    """CuPy learns the size of ``a[mask]``, ``nonzero``, ``unique``, ``bincount``... by reading a count (or the
    maximum) back: a copy and a sync it makes unseen, in a write through a mask too. The stand-in computed them
    on the host and counted nothing."""
    import cupy

    fake = _fake()
    a = cupy.arange(6.0)
    mask = a > 2
    reads = {"a[mask]": lambda: a[mask], "a[mask] = 0": lambda: a.__setitem__(mask, 0.0),
             "a[:, mask]": lambda: a.reshape(1, 6)[:, mask], "nonzero": lambda: cupy.nonzero(mask),
             "argwhere": lambda: cupy.argwhere(mask), "flatnonzero": lambda: cupy.flatnonzero(mask),
             "unique": lambda: cupy.unique(a), "bincount": lambda: cupy.bincount(cupy.arange(3))}
    for name, fn in reads.items():
        fake.reset_counts()
        fn()
        assert (fake.counts()["d2h"], fake.counts()["syncs"]) == (1, 1), name
    fake.reset_counts()
    a[cupy.arange(2)], cupy.where(mask, a, 0.0), cupy.count_nonzero(mask)
    assert fake.counts()["syncs"] == 0  # a gather, a where, a count kept on the device: no read


@needs_gpu
def test_a_gpu_index_reaches_the_backward_of_getitem_on_the_device():
    """``C[idx].sum().backward()`` with ``idx`` on the GPU: the scatter of the backward gets the device index
    (and, like the forward, none of the index values is read on the host)."""
    x = mg.randn(5, 3).to("gpu").requires_grad_()
    idx = mg.tensor([[0, 4], [4, 1]]).to("gpu")
    x[idx].sum().backward()
    cpu = mg.randn(5, 3).requires_grad_()
    cpu[mg.tensor([[0, 4], [4, 1]])].sum().backward()
    assert x.grad.cpu().tolist() == cpu.grad.tolist()
    y = mg.randn(4, 5, 3).to("gpu").requires_grad_()
    (y[:, idx[0]] * 2).sum().backward()
    assert y.grad.cpu()[:, [0, 4]].eq(2).all() and y.grad.cpu()[:, 1:4].eq(0).all()


def _line(marker):
    return next(i for i, text in enumerate(Path(__file__).read_text().splitlines(), 1)
                if text.rstrip().endswith("# " + marker))


@needs_gpu
def test_sync_debug_mode_error_raises_at_a_planted_item_naming_its_line(sync_mode):
    step = mlp_step()
    step()
    mg.cuda.set_sync_debug_mode("error")
    assert mg.cuda.get_sync_debug_mode() == 2
    losses = []
    with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation") as info:
        for _ in range(3):
            loss = step()  # steps themselves never sync, so nothing raises before the planted line
            losses.append(loss.item())  # planted
    assert f"test_no_hidden_sync.py:{_line('planted')}" in str(info.value) and ".item()" in str(info.value)
    assert losses == []  # the first .item() raised, before its copy
    mg.cuda.set_sync_debug_mode(0)
    assert isinstance(loss.item(), float)


@needs_gpu
def test_sync_debug_mode_warn_names_each_sync_and_its_line(sync_mode):
    step = mlp_step()
    loss = step()
    mg.cuda.set_sync_debug_mode(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step()
        flag = bool(loss > 0)  # warned bool
        host = loss.cpu()  # warned copy
    mine = [w for w in caught if "synchronizing CUDA operation" in str(w.message)]
    assert [w.category for w in mine] == [UserWarning, UserWarning], [str(w.message) for w in caught]
    assert [(Path(w.filename).name, w.lineno) for w in mine] == [
        ("test_no_hidden_sync.py", _line("warned bool")), ("test_no_hidden_sync.py", _line("warned copy"))]
    assert "bool() of a tensor" in str(mine[0].message) and flag and host.device == "cpu"


@needs_gpu
def test_sync_debug_mode_takes_pytorchs_values(sync_mode):
    for value, mode in (("warn", 1), ("error", 2), ("default", 0), (2, 2), (0, 0)):
        mg.cuda.set_sync_debug_mode(value)
        assert mg.cuda.get_sync_debug_mode() == mode
    with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`"):
        mg.cuda.set_sync_debug_mode("loud")
    with pytest.raises(RuntimeError, match="expected one of 0,1,2"):
        mg.cuda.set_sync_debug_mode(3)
    assert mg.cuda.get_sync_debug_mode() == 0


@needs_gpu
@pytest.mark.parametrize("dtype", [mg.float16, mg.float32, mg.float64])
def test_a_number_operand_reaches_the_kernel_by_value(dtype):
    """``x * 0.1``, ``0.1 - x``, ``x < 0.1``: the number is the kernel's argument (``_scalar0``/``_scalar1``),
    rounded to x's dtype as PyTorch does, and the values are the CPU's, bit for bit; ``x / 3.0`` is ``x`` times
    the reciprocal of 3.0, as PyTorch CUDA computes it (NOTE [ Dividing by a number on the GPU ])."""
    from minigrad.kernels.gpu import _runtime

    x = mg.tensor(np.linspace(-1, 1, 37), dtype=dtype)
    g = x.to("gpu")
    with _runtime.record_launches() as launches:
        got = [g * 0.1, 0.1 - g, g < 0.1, g / 3.0]
    names = [kernel.name.rsplit("_", 1)[1] for kernel, *_ in launches]
    assert names == ["scalar1", "scalar0", "scalar1", "scalar1"], names
    acc = np.float64 if dtype is mg.float64 else np.float32
    want = [x * 0.1, 0.1 - x, x < 0.1, mg.tensor(x.numpy().astype(acc) * (acc(1) / acc(3.0)), dtype=dtype)]
    for a, b in zip(got, want):
        assert a.device == "gpu" and a.dtype == b.dtype
        if dtype is mg.float16:  # the device computes in float32 and rounds once; NumPy's float16 too
            np.testing.assert_allclose(a.cpu().numpy().astype(float), b.numpy().astype(float), rtol=1e-3)
        else:
            np.testing.assert_array_equal(a.cpu().numpy(), b.numpy())


@needs_gpu
def test_a_cpu_scalar_tensor_reaches_the_kernel_as_a_number():
    """``x / torch.tensor(3.0)`` with ``x`` on the GPU: PyTorch reads a 0-d CPU tensor's value on the host
    (a CPU scalar), so no copy and no wait; minigrad copied it to the device every call (NOTE [ A CPU scalar
    is a number ] in kernels/prepare_data.py). Now the number is the kernel's argument, as a Python number's
    is, the trace shows no device copy, and the values are the ones the Python number gives."""
    import cupy

    from minigrad.kernels.gpu import _runtime

    x = mg.tensor(np.linspace(-1, 1, 37), dtype=mg.float32).to("gpu")
    c, k, flag = mg.tensor(3.0), mg.tensor(2), mg.tensor(True)
    programs = {"x / c": (lambda: x / c, lambda: x / 3.0), "c - x": (lambda: c - x, lambda: 3.0 - x),
                "x * k": (lambda: x * k, lambda: x * 2), "x < c": (lambda: x < c, lambda: x < 3.0),
                "x * flag": (lambda: x * flag, lambda: x * True)}
    for name, (program, with_number) in programs.items():
        program()  # a first call may make the constant
        fake = getattr(cupy, "__fake__", False)
        if fake:
            import fake_cupy

            fake_cupy.reset_counts()
        with _runtime.record_launches() as launches:
            got = program()
        if fake:
            assert fake_cupy.counts()["h2d"] == 0 and fake_cupy.counts()["syncs"] == 0, name
        assert [kernel.name.rsplit("_", 1)[1] for kernel, *_ in launches][-1].startswith("scalar"), name
        with mg.trace(values=False) as tr:  # (a recording's value previews read the device: not this test's)
            program()
        assert not [e for e in tr.events if e.kind == "device.copy"], name
        want = with_number()
        assert got.device == want.device and got.dtype == want.dtype, name
        assert got.cpu().numpy().tobytes() == want.cpu().numpy().tobytes(), name


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dividing_by_a_number_is_pytorch_cudas_multiplication_by_its_reciprocal(dtype):
    """``x / 3.0`` on the GPU: PyTorch CUDA's ``x * (1 / 3.0)`` (its CPU divides: some elements differ in the
    last bit, which is why the two are compared with PyTorch CUDA where it is installed, else with the formula);
    ``div_`` and the optimizers' multi-tensor division by a number (Adam's bias correction) alike."""
    rng = np.random.default_rng(2)
    a = rng.standard_normal(4096).astype(dtype)
    acc = np.dtype(dtype).type
    try:
        import torch

        cuda = torch.cuda.is_available()
    except ImportError:
        cuda = False
    want = (torch.tensor(a, device="cuda") / 3.0).cpu().numpy() if cuda else a * (acc(1) / acc(3.0))
    g = mg.tensor(a).to("gpu")
    assert (g / 3.0).cpu().numpy().tobytes() == want.tobytes()
    assert g.clone().div_(3.0).cpu().numpy().tobytes() == want.tobytes()
    assert (want != a / acc(3.0)).any(), "the CPU's division rounds some element otherwise (else this proves nothing)"
    from minigrad.optim.update import list_path, TensorList

    k = list_path(g)
    assert (k.value(TensorList([g])) / 3.0).arrays[0].get().tobytes() == want.tobytes()


@needs_gpu
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_linears_bias_and_gradients_meeting_at_a_node_are_added_by_the_hand_written_kernel(dtype):
    """``F.linear``'s bias (addmm's sum) and two gradients meeting at a node (the engine's buffer) are added by
    the ``add`` kernel the op selects (``mg_ew_add_*``), not by CuPy's ``+`` (a ufunc: several times the host
    time a call); the values are the CPU's."""
    from minigrad.kernels.gpu import _runtime

    rng = np.random.default_rng(0)
    xs, ws, bs = (mg.tensor(rng.normal(size=s), dtype=dtype) for s in [(4, 3), (5, 3), (5,)])
    x, w, b = (t.to("gpu").requires_grad_() for t in (xs, ws, bs))
    with _runtime.record_launches() as launches:
        y = F.linear(x, w, b)
    assert [k.name.split("_")[2] for k, *_ in launches] == ["add"], [k.name for k, *_ in launches]
    h = y * 2
    loss = (h * h).sum()
    with _runtime.record_launches() as launches:
        loss.backward()
    assert any(k.name.startswith("mg_ew_add_") for k, *_ in launches), [k.name for k, *_ in launches]
    xc, wc, bc = (t.clone().requires_grad_() for t in (xs, ws, bs))
    hc = F.linear(xc, wc, bc) * 2
    (hc * hc).sum().backward()
    tol = 1e-5 if dtype is mg.float32 else 1e-12
    np.testing.assert_allclose(y.detach().cpu().numpy(), F.linear(xs, ws, bs).numpy(), rtol=tol, atol=tol)
    for got, want in ((x, xc), (w, wc), (b, bc)):
        np.testing.assert_allclose(got.grad.cpu().numpy(), want.grad.numpy(), rtol=tol, atol=tol)


@needs_gpu
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_group_norm_computes_its_groups_with_the_hand_written_kernels(dtype):
    """Group norm's ``(x - mean) * rstd * weight + bias``, with each group's ``rstd`` from ``sqrt(var + eps)``:
    every step one of the hand-written kernels (``eps`` by value), none a CuPy ufunc; the values are the CPU's."""
    from minigrad.kernels.gpu import _runtime

    rng = np.random.default_rng(1)
    xs = mg.tensor(rng.normal(size=(4, 6, 5, 5)), dtype=dtype)
    ws, bs = (mg.tensor(rng.normal(size=6), dtype=dtype) for _ in range(2))
    x, w, b = (t.to("gpu") for t in (xs, ws, bs))
    ops = lambda launches: [k.name.split("_")[2] for k, *_ in launches]  # noqa: E731  (mg_ew_<op>_...)
    with _runtime.record_launches() as launches:
        got_gn = F.group_norm(x, 3, w, b, eps=1e-3)
    assert ops(launches) == ["mean", "sq", "add", "sqrt", "reciprocal", "sub", "mul", "mul", "add"], \
        [k.name for k, *_ in launches]
    tol = 1e-5 if dtype is mg.float32 else 1e-12
    np.testing.assert_allclose(got_gn.cpu().numpy(), F.group_norm(xs, 3, ws, bs, eps=1e-3).numpy(), rtol=tol, atol=tol)


@needs_gpu
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64], ids=str)
@pytest.mark.parametrize("training", [True, False], ids=["training", "evaluating"])
def test_batch_norm_is_two_launches_forward_and_two_for_the_inputs_gradient(dtype, training):
    """Batch norm on the device (NOTE [ Batch norm: one block a channel ]): forward, each channel's statistics
    (one block a channel; the running variance's ``invstd`` when evaluating) then one elementwise launch;
    backward, the input's gradient is one reduction a channel and one elementwise launch, the weight's that
    reduction alone, the bias's a sum - about 22 launches of the composite's before. Values and gradients
    are the CPU's."""
    from minigrad.kernels.gpu import _runtime

    rng = np.random.default_rng(1)
    host = [mg.tensor(rng.normal(size=s), dtype=dtype) for s in ((4, 6, 5, 5), (6,), (6,), (6,), (4, 6, 5, 5))]
    host.insert(4, mg.tensor(rng.uniform(0.5, 2.0, size=6), dtype=dtype))
    results = []
    for device in ("cpu", "gpu"):
        x, w, b, rm, rv, g = (t.detach().to(device) for t in host)
        x.requires_grad_(), w.requires_grad_(), b.requires_grad_()
        with _runtime.record_launches() as forward:
            y = F.batch_norm(x, None if training else rm, None if training else rv, w, b, training=training, eps=1e-3)
        with _runtime.record_launches() as backward:
            y.backward(g)
        results.append([t.detach().cpu().numpy() for t in (y, x.grad, w.grad, b.grad)])
    names = lambda launches: [k.name.rsplit("_", 1)[0] for k, *_ in launches]  # noqa: E731  (mg_bn_<kind>_<dtype>)
    assert names(forward) == ["mg_bn_stats" if training else "mg_bn_invstd", "mg_bn_fwd"], names(forward)
    bn = [n for n in names(backward) if n.startswith("mg_bn")]
    assert bn == (["mg_bn_reduce", "mg_bn_bwd", "mg_bn_reduce"] if training else
                  ["mg_bn_invstd", "mg_bn_bwd", "mg_bn_invstd", "mg_bn_reduce"]), names(backward)
    assert len(backward) <= len(bn) + 3, names(backward)  # the bias's sum, and the gradients' seed
    tol = 1e-5 if dtype is mg.float32 else 1e-12
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    if not training:
        return
    # The running statistics' update: the batch's moments in one launch a channel's block, then three
    # multi-tensor launches over both statistics (mul_, mul, add_), no copy back.
    stats = []
    fake = _fake()
    for device in ("cpu", "gpu"):
        x, rm, rv = (t.detach().clone().to(device) for t in (host[0], host[3], host[4]))
        F.batch_norm(x, rm.clone(), rv.clone(), training=True, momentum=0.2, eps=1e-3)  # (momentum's numbers kept)
        if fake is not None:
            fake.reset_counts()
        with _runtime.record_launches() as forward:
            F.batch_norm(x, rm, rv, training=True, momentum=0.2, eps=1e-3)
        if fake is not None and device == "gpu":
            c = fake.counts()
            assert c["h2d"] == c["d2h"] == c["d2d"] == c["syncs"] == 0, (c, fake.COUNTS.log)
        stats.append((rm.cpu().numpy(), rv.cpu().numpy()))
    assert names(forward)[:3] == ["mg_bn_stats", "mg_bn_fwd", "mg_bn_moments"], names(forward)
    assert len(forward) == 6 and all(n.startswith("mg_mt_") for n in names(forward)[3:]), names(forward)
    for got, want in zip(stats[1], stats[0]):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@needs_gpu
@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (3,), (2, 5)])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.bool_, np.int64])
@pytest.mark.parametrize("value", [0, 0.0, -0.0, 1, 2.5, -3, 1e10, float("nan"), float("inf"), True])
def test_a_fill_on_the_device_holds_what_numpys_holds(shape, dtype, value):
    """``filled_array`` (``.backward()``'s seed, ``zeros``/``ones``/``full`` on the GPU, a missing gradient's
    zeros): the bits NumPy's ``full`` holds, whichever way the device makes them - a memset, a copy from a
    kept constant, a fill kernel - and never a host -> device copy."""
    from minigrad.devices import filled_array

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 1e10 overflows float16 (inf), nan to an int
        want = np.full(shape, value, dtype=dtype)
        got = filled_array(shape, value, dtype, "gpu").get()
    assert got.shape == want.shape and got.dtype == want.dtype
    if dtype is np.int64 and not math.isfinite(value):
        return  # nan/inf to an integer is undefined in C and NumPy alike
    assert got.tobytes() == want.tobytes()  # -0.0 keeps its sign bit, a NaN its bits


@counted
def test_backwards_seed_is_copied_on_the_device_without_a_kernel():
    """``loss.backward()``'s seed (a one-element 1) is copied on the device from the kept constant of 1: no
    launch of CuPy's ``full`` (tens of us of host time a call on an H200), no host -> device copy."""
    fake = _fake()
    x = mg.randn(3, 4).to("gpu").requires_grad_()
    for _ in range(2):  # the constant of 1 is made once; .grad's accumulation uploads its stride table once
        x.sum().backward()
    loss = x.sum()
    fake.reset_counts()
    loss.backward()
    c = fake.counts()
    assert c["h2d"] == 0 and c["syncs"] == 0 and c["d2d"] == 1, (c, fake.COUNTS.log)
    assert c["launches"] == 1, c  # the accumulation into .grad (sum's backward is a view), the seed none
    np.testing.assert_array_equal(x.grad.cpu().numpy(), 3 * np.ones((3, 4), np.float32))


@needs_gpu
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_cross_entropy_of_gpu_targets_matches_the_cpu_without_reading_them(reduction, ignore_index):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    t = np.array([0, 3, 2, 1, -100, 2]) if ignore_index == -100 else np.array([0, 3, 2, 1, 2, 2])
    out = {}
    for device in ("cpu", "gpu"):
        leaf = mg.tensor(x, requires_grad=True)
        loss = F.cross_entropy(leaf.to(device), mg.tensor(t).to(device), ignore_index=ignore_index,
                               reduction=reduction)
        (loss.sum() if reduction == "none" else loss).backward()
        out[device] = (loss.detach().cpu().numpy(), leaf.grad.numpy())
    np.testing.assert_allclose(out["gpu"][0], out["cpu"][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["gpu"][1], out["cpu"][1], rtol=1e-5, atol=1e-6)
    bad = F.cross_entropy(mg.tensor(x).to("gpu"), mg.tensor([0, 3, 4, 1, 2, 2]).to("gpu"))
    with pytest.raises(IndexError, match=r"Target 4 is out of bounds"):
        bad.item()


@needs_gpu
def test_copies_and_syncs_are_events_with_the_users_line(tmp_path):
    step = mlp_step()
    step()
    with mg.trace(values=False):  # recorded, clipping runs its for-loop form: its number constants and
        step()                    # stride tables are made on the device once, as the foreach form's were
    with mg.trace(values=False) as tr:
        step()
        quiet = len(tr.events)
        loss = step()
        value = loss.item()  # event item
        print(loss)  # event print
        mg.cuda.synchronize()  # event synchronize
        back = mg.tensor([1.0, 2.0]).to("gpu")  # event upload
    device = [e for e in tr.events if e.kind.startswith("device.")]
    assert not [e for e in tr.events[:quiet] if e.kind.startswith("device.")]  # a step: none
    name = "test_no_hidden_sync.py"
    got = [(e.kind, getattr(e, "direction", None), getattr(e, "reason", None), Path(e.source).name) for e in device]
    assert got == [
        ("device.copy", "d2h", None, f"{name}:{_line('event item')}"),
        ("device.sync", None, "item", f"{name}:{_line('event item')}"),
        ("device.copy", "d2h", None, f"{name}:{_line('event item')}"),  # the step's checks' flags, in that wait
        ("device.copy", "d2h", None, f"{name}:{_line('event print')}"),
        ("device.sync", None, "print", f"{name}:{_line('event print')}"),
        ("device.sync", None, "synchronize", f"{name}:{_line('event synchronize')}"),
        ("device.copy", "h2d", None, f"{name}:{_line('event upload')}"),
        ("device.sync", None, "host copy", f"{name}:{_line('event upload')}"),
    ]
    copies = [e for e in device if e.kind == "device.copy"]
    assert copies[0].tensor == loss._id and copies[0].bytes == 4 and copies[1].tensor is None and copies[3].bytes == 8
    assert isinstance(value, float) and back.device == "gpu"
    # the loader accepts them, and the describer gives each a line
    from minigrad.tracing.describe import describe

    tr.save(tmp_path / "run.jsonl")
    loaded = mg.trace.load(tmp_path / "run.jsonl")
    assert [e.to_dict() for e in loaded.events if e.kind.startswith("device.")] == [e.to_dict() for e in device]
    assert describe(copies[0]).startswith("copy of ") and "GPU → host, 4 bytes at " + name in describe(copies[0])


@needs_gpu
def test_a_tensor_copied_to_the_host_is_named_in_its_event():
    x = mg.randn(3).to("gpu")
    with mg.trace(values=False) as tr:
        x.cpu()
        x.tolist()
    copies = [e for e in tr.events if e.kind == "device.copy"]
    assert [(e.direction, e.tensor, e.bytes) for e in copies] == [("d2h", x._id, 12)] * 2
    assert [e.reason for e in tr.events if e.kind == "device.sync"] == ["host copy"] * 2


@counted
def test_a_pinned_tensor_copied_non_blocking_is_the_one_copy_the_host_does_not_wait_for():
    """nanoGPT's ``x.pin_memory().to(device, non_blocking=True)``: from page-locked memory on the stream, the
    host queues the copy and goes on. From ordinary memory, or without ``non_blocking``, it waits."""
    fake = _fake()
    x = mg.randint(0, 10, (16, 32))
    pinned = x.pin_memory()
    assert pinned.is_pinned() and not x.is_pinned() and pinned.pin_memory() is pinned
    for move, waits in ((lambda: pinned.to("cuda", non_blocking=True), 0), (lambda: pinned.cuda(non_blocking=True), 0),
                        (lambda: pinned.to("cuda"), 1), (lambda: x.to("cuda", non_blocking=True), 1)):
        fake.reset_counts()
        y = move()
        c = fake.counts()
        assert (c["h2d"], c["syncs"]) == (1, waits), fake.COUNTS.log
        assert y.device == "cuda" and y.cpu().tolist() == x.tolist()


@needs_gpu
def test_a_non_blocking_copy_is_a_device_copy_without_a_sync_and_passes_the_debug_mode(sync_mode):
    x = mg.randn(8, 4)
    pinned = x.pin_memory()
    with mg.trace() as tr:
        pinned.to("cuda", non_blocking=True)
    kinds = [e.kind for e in tr.events if e.kind.startswith("device.")]
    assert kinds == ["device.copy"]
    mg.cuda.set_sync_debug_mode("error")
    pinned.to("cuda", non_blocking=True)  # no wait, no error
    with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
        x.to("cuda", non_blocking=True)  # pageable memory: the host waits


@needs_gpu
def test_pin_memory_is_for_cpu_tensors_and_keeps_the_gradient_path():
    g = mg.ones(2).to("cuda")
    with pytest.raises(RuntimeError, match=r"^cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned$"):
        g.pin_memory()
    w = mg.ones(3, requires_grad=True)
    (w.pin_memory().to("cuda", non_blocking=True) * 2).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]


@counted
@pytest.mark.parametrize("form", ["class weights", "label smoothing", "segmentation (N, C, H, W)", "nll_loss weighted",
                                  "F.nll_loss(F.log_softmax(x))", "binary_cross_entropy", "bce with logits"])
def test_a_losss_forms_keep_their_targets_on_the_device(form):
    """The forms of the classification losses beside the common call: their class indices (and weights) are
    checked and picked on the device. Before, each read the targets back (a copy and a sync a call) and
    uploaded the per-row weights they made on the host."""
    fake = _fake()
    x = mg.randn(8, 5).to("gpu").requires_grad_()
    y = mg.randint(0, 5, (8,)).to("gpu")
    w = mg.rand(5).to("gpu")
    img, seg = mg.randn(2, 5, 4, 4).to("gpu").requires_grad_(), mg.randint(0, 5, (2, 4, 4)).to("gpu")
    probs = mg.rand(8, 5).to("gpu")
    run = {"class weights": lambda: F.cross_entropy(x, y, weight=w),
           "label smoothing": lambda: F.cross_entropy(x, y, label_smoothing=0.1),
           "segmentation (N, C, H, W)": lambda: F.cross_entropy(img, seg, ignore_index=0),
           "nll_loss weighted": lambda: F.nll_loss(F.log_softmax(x, dim=1), y, weight=w),
           "F.nll_loss(F.log_softmax(x))": lambda: F.nll_loss(F.log_softmax(x, dim=1), y),
           "binary_cross_entropy": lambda: F.binary_cross_entropy(x.sigmoid(), probs),
           "bce with logits": lambda: F.binary_cross_entropy_with_logits(x, probs, pos_weight=w)}[form]
    for _ in range(2):  # warm-up: the second backward accumulates into .grad, a geometry of its own
        run().backward()
    fake.reset_counts()
    for _ in range(2):
        run().backward()
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log


@counted
@pytest.mark.parametrize("form", ["interpolate bilinear", "interpolate bicubic", "max_pool2d ceil_mode",
                                  "conv2d padding='same'", "layer_norm without affine", "batch_norm without affine"])
def test_constants_a_composite_makes_from_shapes_are_made_once_on_the_device(form):
    """Interpolation weights, the padding blocks of ``ceil_mode`` and of an even kernel's ``'same'`` padding, the
    ones and zeros of a missing affine: each depends on shapes alone, and was a host array copied to the device
    at every call (a sync each)."""
    fake = _fake()
    x = mg.randn(2, 3, 6, 5).to("gpu").requires_grad_()
    w = mg.randn(4, 3, 2, 2).to("gpu")
    run = {"interpolate bilinear": lambda: F.interpolate(x, scale_factor=2, mode="bilinear"),
           "interpolate bicubic": lambda: F.interpolate(x, size=(7, 9), mode="bicubic", align_corners=True),
           "max_pool2d ceil_mode": lambda: F.max_pool2d(x, 2, ceil_mode=True),
           "conv2d padding='same'": lambda: F.conv2d(x, w, padding="same"),
           "layer_norm without affine": lambda: F.layer_norm(x, (5,)),
           "batch_norm without affine": lambda: F.batch_norm(x, None, None, training=True)}[form]
    for _ in range(2):
        run().sum().backward()
    fake.reset_counts()
    run().sum().backward()
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log


@counted
def test_index_select_and_take_keep_a_gpu_index_on_the_device():
    """Their index was read on the host to check its range (a copy and a sync a call); now the range is checked
    on the device and a bad index refused at the next sync, in the CPU's words (``index_select`` refuses a
    negative index, as PyTorch's; ``take`` takes one)."""
    fake = _fake()
    x = mg.randn(5, 4).to("gpu").requires_grad_()
    idx = mg.tensor([4, 0, -1, 2]).to("gpu")
    rows = mg.tensor([4, 0, 4, 2]).to("gpu")
    for _ in range(2):
        (x.index_select(0, rows).sum() + mg.take(x, idx.reshape(2, 2)).sum()).backward()
    fake.reset_counts()
    (x.index_select(0, rows).sum() + mg.take(x, idx.reshape(2, 2)).sum()).backward()
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
    cpu = x.detach().cpu().requires_grad_()
    (cpu.index_select(0, rows.cpu()).sum() + mg.take(cpu, idx.cpu().reshape(2, 2)).sum()).backward()
    x.grad = None
    (x.index_select(0, rows).sum() + mg.take(x, idx.reshape(2, 2)).sum()).backward()
    assert x.grad.cpu().tolist() == cpu.grad.tolist()
    out = x.index_select(1, mg.tensor([7]).to("gpu"))
    with pytest.raises(RuntimeError, match=r"^INDICES element is out of DATA bounds, id=7 axis_dim=4 "
                                           r"\(checked on the GPU"):
        out.sum().item()
    out = x.index_select(0, idx)
    with pytest.raises(IndexError, match=r"^index out of range in self \(index_select\(\): index -1 along "
                                         r"dimension 0 of size 5\) \(checked on the GPU"):
        out.sum().item()


@counted
def test_index_add_and_index_fill_keep_a_gpu_index_on_the_device():
    """``index_fill`` is the Annotated Transformer's label smoothing; both read their index on the host (a copy
    and a sync a call), and ``index_fill`` copied the mask it made there to the device. (``index_add`` refuses a
    negative index, as PyTorch's; ``index_fill`` counts it from the end.)"""
    fake = _fake()
    x = mg.randn(5, 4).to("gpu").requires_grad_()
    s = mg.randn(3, 4).to("gpu").requires_grad_()
    idx = mg.tensor([4, 0, -1]).to("gpu")

    def run():
        return (mg.index_add(x, 0, idx.abs(), s, alpha=2.0).sum() + x.index_fill(1, (idx % 4).abs(), 0.5).sum()
                + mg.index_fill(x, 0, idx, s.sum()).sum())

    for _ in range(2):
        run().backward()
    fake.reset_counts()
    run().backward()
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
    xc, sc = x.detach().cpu().requires_grad_(), s.detach().cpu().requires_grad_()
    ic = idx.cpu()
    ref = mg.index_add(xc, 0, ic.abs(), sc, alpha=2.0).sum() + xc.index_fill(1, (ic % 4).abs(), 0.5).sum() + mg.index_fill(
        xc, 0, ic, sc.sum()).sum()
    ref.backward()
    x.grad = s.grad = None
    out = run()
    out.backward()
    assert np.allclose(out.item(), ref.item()) and np.allclose(x.grad.cpu().numpy(), xc.grad.numpy())
    assert np.allclose(s.grad.cpu().numpy(), sc.grad.numpy())


@counted
@pytest.mark.parametrize("form", ["dlogits[range(n), y] -= 1", "x[idx] = v", "x[:, idx] = number", "x[idx, idx2] += v"])
def test_setitem_with_a_gpu_index_writes_on_the_device(form):
    """``x[idx] = v`` with an integer GPU index read the index on the host (a copy and a sync), built the
    written positions there and copied them back (two more): the manual backward of a cross-entropy
    (``dlogits[range(n), Yb] -= 1``, makemore's backprop exercise) waited for the device at every step."""
    fake = _fake()
    base = mg.randn(5, 4)
    src = mg.randn(3, 4)
    idx = mg.tensor([4, 0, -1])
    cols = mg.tensor([1, 3, 0])

    on = {d: (base.to(d).detach().requires_grad_(), src.to(d).detach().requires_grad_(), idx.to(d), cols.to(d))
          for d in ("cpu", "gpu")}

    def run(device):
        x, v, i, j = on[device]
        x.grad = v.grad = None
        h = x * 1.0
        if form.startswith("dlogits"):
            h[range(3), j] -= 1
        elif form == "x[idx] = v":
            h[i] = v
        elif form == "x[:, idx] = number":
            h[:, (j % 4).abs()] = 2.5
        else:
            h[i, j] += v[0, :3]
        (h * h).sum().backward()
        return h, x, v

    for _ in range(2):
        run("gpu")
    fake.reset_counts()
    run("gpu")
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
    h, x, v = run("gpu")
    hc, xc, vc = run("cpu")
    assert h.detach().cpu().tolist() == hc.detach().tolist()
    assert x.grad.cpu().tolist() == xc.grad.tolist()
    assert (v.grad is None) == (vc.grad is None)
    if vc.grad is not None:
        assert v.grad.cpu().tolist() == vc.grad.tolist()
    assert h.grad_fn.name() == hc.grad_fn.name()


@counted
def test_setitem_refuses_an_out_of_range_gpu_index_at_the_next_sync():
    x = mg.zeros(3, 4).to("gpu")
    x[mg.tensor([0, 5]).to("gpu")] = 1.0
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for dimension 0 with size 3"):
        x.sum().item()
    x = mg.zeros(3, 4).to("gpu")
    x[mg.tensor([0, -3]).to("gpu")] = 1.0
    assert x.sum().item() == 4.0


@counted
@pytest.mark.parametrize("form", ["max_pool2d", "max_pool2d padded dilated ceil", "adaptive_max_pool2d"])
def test_pooling_indices_are_found_on_the_device(form):
    """``return_indices`` read the input back to find each window's maximum on the host (a copy, and the indices
    copied up: two syncs a call, and a second look at the values); now an ``argmax`` over the gathered windows,
    read back through position tables kept on the device. The CPU's indices, PyTorch's (ties and NaN first)."""
    fake = _fake()
    F = mg.nn.functional
    x = mg.tensor(np.random.default_rng(3).integers(0, 4, (2, 3, 9, 8)).astype(np.float32))  # ties
    x[0, 1, 2, 3] = float("nan")

    def run(t):
        if form == "max_pool2d":
            return F.max_pool2d(t, 2, return_indices=True)
        if form == "adaptive_max_pool2d":
            return F.adaptive_max_pool2d(t, (4, 3), return_indices=True)
        return F.max_pool2d(t, 3, 2, 1, 2, True, return_indices=True)

    g = x.to("gpu")
    run(g)
    fake.reset_counts()
    values, indices = run(g)
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
    want_values, want_indices = run(x)
    assert indices.cpu().tolist() == want_indices.tolist()
    np.testing.assert_array_equal(values.cpu().numpy(), want_values.numpy())


@counted
def test_running_extremes_and_histograms_read_back_only_what_pytorch_reads():
    """``cummax``/``cummin``/``logcumsumexp`` and ``histc`` over a given range fell back to the CPU (a copy each
    way and a sync); now they run on the device and read nothing. ``histc`` over the data's own range reads its
    min and max (PyTorch CUDA's ``.item()`` there), ``bincount`` its min (to refuse a negative value) and its max
    (the number of bins), as PyTorch CUDA's two ``.item()``: each read a visible ``device.copy`` and ``device.sync``."""
    fake = _fake()
    x = mg.randn(8, 33).to("gpu")
    i = mg.randint(0, 9, (40,)).to("gpu")
    cases = {"cummax": (lambda: mg.cummax(x, 1), 0), "cummin": (lambda: mg.cummin(x, 0), 0),
             "logcumsumexp": (lambda: mg.logcumsumexp(x, 1), 0), "histc range": (lambda: mg.histc(x, 10, -1.0, 1.0), 0),
             "histc": (lambda: mg.histc(x, 10), 1), "bincount": (lambda: mg.bincount(i), 2)}
    for name, (fn, reads) in cases.items():
        fn()  # a geometry's stride table is uploaded once, at its first launch
        fake.reset_counts()
        fn()
        c = fake.counts()
        with mg.trace() as tr:
            fn()
        copies = [e for e in tr.events if e.kind == "device.copy"]
        syncs = [e for e in tr.events if e.kind == "device.sync"]
        assert (c["h2d"], c["d2h"]) == (0, reads), (name, fake.COUNTS.log)
        assert [e.direction for e in copies] == ["d2h"] * reads and len(syncs) == reads, name
        assert not [e for e in tr.events if e.kind == "kernel.select" and e.fallback_cpu], name


MASKED = {
    "x[m]": lambda x, m: x[m],
    "x[:, m[0]]": lambda x, m: x[:, m[0]],
    "x[m2d, 1] (3-D)": lambda x, m: x.reshape(3, 4, 1).expand(3, 4, 2)[m, 1],
    "masked_select": lambda x, m: mg.masked_select(x, m),
    "masked_select broadcast": lambda x, m: mg.masked_select(x, m[:1]),
    "nonzero": lambda x, m: mg.nonzero(m),
    "argwhere": lambda x, m: mg.argwhere(x * m),
    "where(m)": lambda x, m: mg.where(m)[1],
}


@needs_gpu
@pytest.mark.parametrize("form", sorted(MASKED))
def test_a_mask_is_read_once_for_its_count_and_its_positions_made_on_the_device(form):
    """``x[mask]``, ``masked_select``, ``nonzero``: the size of the result is the number of True elements,
    which PyTorch reads back too (a sync). minigrad copied the whole mask to the host and its positions back
    (two copies, two syncs, and CuPy's own unseen read of the count); now the count is read - one ``device.copy``
    of 8 bytes and a ``device.sync`` with the reason ``nonzero`` - and the positions are ranked on the device.
    The CPU's values and gradients."""
    rng = np.random.default_rng(8)
    x, m = mg.tensor(rng.normal(size=(3, 4))), mg.tensor(rng.normal(size=(3, 4)) > 0)
    fn = MASKED[form]
    leaf = x.clone().requires_grad_()
    want = fn(leaf, m)
    gx, gm = x.to("gpu").requires_grad_(), m.to("gpu")
    fn(gx, gm)  # a geometry's stride table is uploaded at its first launch
    with mg.trace(values=False) as tr:
        got = fn(gx, gm)
    device = [e for e in tr.events if e.kind.startswith("device.")]
    assert [(e.kind, getattr(e, "direction", None), getattr(e, "reason", None)) for e in device][:2] == [
        ("device.copy", "d2h", None), ("device.sync", None, "nonzero")], device
    assert device[0].bytes == 8 and Path(device[0].source).name.startswith("test_no_hidden_sync.py:")  # the form's line
    assert not [e for e in device if getattr(e, "direction", None) == "h2d"]
    assert not [e for e in device[2:] if e.kind == "device.sync"]  # (a checks' flags copy may join that wait)
    assert not [e for e in tr.events if e.kind == "kernel.select" and e.fallback_cpu]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.detach().cpu().numpy(), want.detach().numpy())
    if want.requires_grad:
        (want * mg.arange(want.numel()).reshape(want.shape)).sum().backward()
        (got * mg.arange(got.numel()).reshape(got.shape).to("gpu")).sum().backward()
        np.testing.assert_array_equal(gx.grad.cpu().numpy(), leaf.grad.numpy())


@needs_gpu
def test_a_number_written_through_a_mask_reads_nothing():
    """``x[mask] = 0.0`` is PyTorch's ``masked_fill``: no position is needed, so no count is read (it copied the
    mask to the host and the positions back); ``x[mask] = values`` reads the count once, as PyTorch's
    ``index_put_``. The CPU's values and gradients."""
    rng = np.random.default_rng(9)
    base, m = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)) > 0
    results = {}
    for device, run in (("cpu", 0), ("gpu", 0), ("gpu", 1)):  # the GPU twice: stride tables are uploaded at first
        leaf = mg.tensor(base, requires_grad=True)
        mask = mg.tensor(m).to(device)
        h = leaf.to(device) * 2
        with mg.trace(values=False) as tr:
            h[mask] = 0.0
            h[mask[:, 0]] = -1.0  # the leading dims only
        assert not run or not [e for e in tr.events if e.kind.startswith("device.")], device
        h2 = leaf.to(device) * 3
        v = mg.arange(float(m.sum()), dtype=mg.float64).to(device)
        with mg.trace(values=False) as tr:
            h2[mask] = v
        syncs = [e.reason for e in tr.events if e.kind == "device.sync"]
        assert not run or syncs == ([] if device == "cpu" else ["nonzero"]), syncs
        (h * h).sum().backward()
        (h2 * h2).sum().backward()
        results[device] = (h.detach().cpu().numpy(), h2.detach().cpu().numpy(), leaf.grad.numpy())
    for g, c in zip(results["gpu"], results["cpu"]):
        np.testing.assert_array_equal(g, c)


@needs_gpu
def test_the_sync_debug_mode_names_a_masks_count(sync_mode):
    x = mg.randn(5).to("gpu")
    x[x > 0], x.__setitem__(x > 0, 0.0)  # stride tables uploaded at their first launch
    mg.cuda.set_sync_debug_mode("error")
    with pytest.raises(RuntimeError, match=r"^called a synchronizing CUDA operation: the number of non-zero elements "
                                           r"read on the host \(nonzero, x\[mask\], masked_select\) at .*test_no_hidden_sync.py:\d+$"):
        x[x > 0]
    x[x > 0] = 0.0  # no sync: allowed
    mg.cuda.set_sync_debug_mode("default")


@counted
@pytest.mark.parametrize("idx", [[4, 0, 2], [1, 1, 3], [3, 3, 3]])
def test_index_copy_keeps_a_gpu_index_on_the_device(idx):
    """``index_copy`` read its index on the host to find which of repeated writes wins (a copy and a sync) and
    uploaded it again, unseen, for its mask; now each entry writes its number into a table on the device and
    reads back whether it stayed. PyTorch's values and gradients (an overwritten row still gets its gradient)."""
    torch = pytest.importorskip("torch")
    fake = _fake()
    rng = np.random.default_rng(10)
    x, s = rng.normal(size=(4, 5)), rng.normal(size=(4, 3))
    gx, gs = mg.tensor(x).to("gpu").requires_grad_(), mg.tensor(s).to("gpu").requires_grad_()
    gi = mg.tensor(idx).to("gpu")
    w = mg.arange(20.0, dtype=mg.float64).reshape(4, 5).to("gpu")
    (gx.index_copy(1, gi, gs) * w).sum().backward()  # stride tables are uploaded at a geometry's first launch
    gx.grad = gs.grad = None
    fake.reset_counts()
    out = gx.index_copy(1, gi, gs)
    (out * w).sum().backward()
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
    tx, ts = torch.tensor(x, requires_grad=True), torch.tensor(s, requires_grad=True)
    want = tx.index_copy(1, torch.tensor(idx), ts)
    (want * torch.arange(20.0, dtype=torch.float64).reshape(4, 5)).sum().backward()
    np.testing.assert_array_equal(out.detach().cpu().numpy(), want.detach().numpy())  # the stand-in: the last wins
    np.testing.assert_array_equal(gx.grad.cpu().numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(gs.grad.cpu().numpy(), ts.grad.numpy())


@counted
@pytest.mark.parametrize("form", ["rows", "rows added", "elements added", "an integer then an index"])
def test_index_put_keeps_a_gpu_index_on_the_device(form):
    """``x[idx] = v`` and ``index_put`` (``IndexPutBackward0``) with a GPU index: no copy, no sync, forward
    and backward; PyTorch's values and gradients, every written entry of the value getting its gradient
    (the stand-in keeps the last of repeated writes, as PyTorch's CPU)."""
    torch = pytest.importorskip("torch")
    fake = _fake()
    rng = np.random.default_rng(12)
    x, v = rng.normal(size=(4, 5)), rng.normal(size=(3, 5))
    programs = {
        "rows": lambda lib, x, v, i: _setitem(x * 1, i, v),
        "rows added": lambda lib, x, v, i: x.index_put((i,), v, accumulate=True),
        "elements added": lambda lib, x, v, i: lib.index_put(x, (i, i), v[0, :3], accumulate=True),
        "an integer then an index": lambda lib, x, v, i: _setitem(x * 1, (1, i), v[1, :3]),
    }
    results = []
    for run, (lib, dev) in enumerate(((mg, "gpu"), (mg, "gpu"), (torch, "cpu"))):  # twice: stride tables go up once
        tx, tv = lib.tensor(x).to(dev).requires_grad_(), lib.tensor(v).to(dev).requires_grad_()
        i, w = lib.tensor([2, 0, 2]).to(dev), lib.tensor(np.sin(np.arange(20.0)).reshape(4, 5)).to(dev)
        if lib is mg:
            fake.reset_counts()
        out = programs[form](lib, tx, tv, i)
        (out * w).sum().backward()
        if run == 1:
            c = fake.counts()
            assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
        results.append([t.detach().cpu().numpy() for t in (out, tx.grad, tv.grad)] + [type(out.grad_fn).__name__])
    for ours, theirs in zip(results[1], results[2]):
        np.testing.assert_array_equal(ours, theirs)


def _setitem(x, index, value):
    x[index] = value
    return x


@counted
@pytest.mark.parametrize("form", ["diagonal", "unfold", "a row", "a column"])
def test_an_inplace_change_through_a_view_uploads_its_positions_once(form):
    """CopySlices writes the view's elements at their positions in the base: host data of the view's geometry,
    which was copied to the device at every call, unseen (a sync each). Now once per value, as an index."""
    fake = _fake()
    change = {"diagonal": lambda h: h.diagonal().mul_(3), "unfold": lambda h: h.unfold(1, 2, 1).mul_(2),
              "a row": lambda h: h.__setitem__(1, 0.5), "a column": lambda h: h[:, 2].add_(1.0)}[form]
    x = mg.randn(3, 4, dtype=mg.float64).to("gpu").requires_grad_()
    for run in range(2):
        fake.reset_counts()
        h = x * 2
        change(h)
        (h * h).sum().backward()
        c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log


@needs_gpu
@pytest.mark.parametrize("form", ["floats with NaN", "ints 2-D", "bool", "empty", "0-d", "dim=0"])
def test_unique_reads_only_its_count_and_keeps_each_nan(form):
    """``unique`` fell back to the CPU (the input copied there, three results back). Now a stable sort and a mark
    where the value changes, on the device; the number of distinct values is read back (one ``device.sync``,
    reason ``unique``), as PyTorch CUDA reads it. Each NaN is a value of its own, as PyTorch's (NumPy's
    ``unique`` had folded them into one, on the CPU too). With ``dim`` the slices are compared on the host."""
    rng = np.random.default_rng(11)
    data = {"floats with NaN": np.array([2.0, np.nan, 1.0, np.nan, 2.0, -0.0, 0.0]),
            "ints 2-D": rng.integers(0, 4, (3, 5)), "bool": rng.normal(size=7) > 0, "empty": np.zeros(0, np.float32),
            "0-d": np.array(3.0), "dim=0": rng.integers(0, 2, (6, 2))}[form]
    kwargs = {"return_inverse": True, "return_counts": True, **({"dim": 0} if form == "dim=0" else {})}
    g = mg.tensor(data).to("gpu")
    with mg.trace(values=False) as tr:
        got = mg.unique(g, **kwargs)
    want = mg.unique(mg.tensor(data), **kwargs)
    if form != "dim=0":
        assert not [e for e in tr.events if e.kind == "kernel.select" and e.fallback_cpu]
        assert [e.reason for e in tr.events if e.kind == "device.sync"] == ["unique"]
        assert [e.bytes for e in tr.events if e.kind == "device.copy"][:1] == [8]
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.cpu().numpy(), b.numpy())
    torch = pytest.importorskip("torch")
    theirs = torch.unique(torch.tensor(data), **kwargs)
    for a, b in zip(got, theirs):
        np.testing.assert_array_equal(a.cpu().numpy(), b.numpy())


@counted
def test_a_masks_read_and_its_backward_copy_only_the_count():
    """``x[mask].sum().backward()`` in a loop: the count read back, once a step - its positions are made in range,
    so no range check of them waits for the next sync (a flag read with the next count, before)."""
    fake = _fake()
    x = mg.randn(6, 4).to("gpu").requires_grad_()
    m = x.detach() > 0

    def step():
        x.grad = None
        x[m].sum().backward()
        mg.masked_select(x, m).sum().backward()

    step()
    fake.reset_counts()
    step()
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 2, 2), fake.COUNTS.log


@needs_gpu
def test_anomaly_mode_finds_the_nan_on_the_device_and_says_each_check_is_a_sync():
    """``detect_anomaly`` tests every node's outputs for NaN: on a GPU each test reads a flag back, a
    ``device.sync`` event with reason ``"anomaly check"`` at the line that started backward; the NaN stops the
    pass as on the CPU."""
    x = mg.tensor([0.0, 1.0], requires_grad=True, device="cuda")
    y = x.sqrt()
    (y / y).sum().backward()  # warm: each geometry's stride table is uploaded once, on first use
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with mg.trace() as tr, mg.autograd.detect_anomaly():
            y = x.sqrt()
            out = (y / y).sum()
            with pytest.raises(RuntimeError, match=r"^Function 'DivBackward0' returned nan values in its 1th output\.$"):
                out.backward()  # anomaly backward
    assert any("Error detected in DivBackward0" in str(w.message) for w in caught)
    begin = next(i for i, e in enumerate(tr.events) if e.kind == "backward.begin")
    syncs = [e for e in tr.events[begin:] if e.kind == "device.sync"]
    assert {e.reason for e in syncs} == {"anomaly check"}
    assert all(e.source.endswith(f"test_no_hidden_sync.py:{_line('anomaly backward')}") for e in syncs)
    # one read per output, as PyTorch's: SumBackward0's output, then DivBackward0's two (the second is the NaN),
    # each a one-byte flag copied back (of no tensor of the program's)
    assert len(syncs) == 3
    copies = [e for e in tr.events[begin:] if e.kind == "device.copy"]
    assert [(e.direction, e.bytes, e.tensor) for e in copies] == [("d2h", 1, None)] * 3


@needs_gpu
def test_a_repeated_number_finds_its_device_constant_by_value_and_zero_keeps_its_sign():
    """``Tensor._scalar``: a Python number a program repeats (``x * 0.5`` each step) takes the same device
    array without building a host array again; 0.0 and -0.0 (equal keys) and NaN (unequal to itself) take
    the long way, so a zero keeps its sign; numbers of different dtypes are different constants."""
    from minigrad.tensor import Tensor

    def data(v, dt=mg.float32):
        return Tensor._scalar(v, dt, "gpu")._data

    assert data(0.5) is data(0.5) and data(0.5) is not data(0.5, mg.float64) and data(2) is data(2.0)
    x = mg.tensor([1.0, -2.0, 0.0], device="gpu")
    for v in (0.0, -0.0, 0.0, -0.0):
        got = (x * v).cpu().numpy()
        np.testing.assert_array_equal(np.signbit(got), np.signbit(np.array([1.0, -2.0, 0.0], np.float32) * v))
    assert np.isnan((x * math.nan).cpu().numpy()).all() and np.isnan((x * math.nan).cpu().numpy()).all()
    assert (mg.tensor([3], device="gpu") * 2.5).cpu().numpy().tolist() == [7.5]


@needs_gpu
def test_a_repeated_number_gets_its_kept_tensor_unless_a_recorder_listens():
    """NOTE [ A number's tensor is kept on a device ]: ``x * 0.5`` each step takes the same wrapped-number tensor
    (one per number, dtype and inference mode); while a recorder listens each op gets its own, announced, so a
    trace shows one tensor per number; a kept tensor gets no history from the ops that use it."""
    from minigrad.tensor import Tensor

    kept = Tensor._scalar(0.25, mg.float32, "gpu")
    assert Tensor._scalar(0.25, mg.float32, "gpu") is kept and Tensor._scalar(0.25, mg.float64, "gpu") is not kept
    with mg.inference_mode():
        inside = Tensor._scalar(0.25, mg.float32, "gpu")
    assert inside is not kept and inside.is_inference() and not kept.is_inference()
    x = mg.ones(3, device="gpu", requires_grad=True)
    (x * 0.25).sum().backward()
    assert kept.grad_fn is None and not kept.requires_grad and x.grad.cpu().numpy().tolist() == [0.25] * 3
    with mg.trace() as rec:
        y = x * 0.25
        z = x * 0.25
    made = [e for e in rec.events if e.kind == "tensor.create" and list(e.shape) == []]
    assert len({e.tensor for e in made}) == 2 and kept._id not in {e.tensor for e in made}
    assert y.grad_fn is not z.grad_fn


@counted
def test_an_in_place_op_on_a_0_d_gpu_tensor_stays_on_the_device():
    """A running total or a step count (``total += loss``, ``num_batches_tracked += 1``) is a 0-d tensor changed
    in place; its new value was written back through a host read (a copy and a sync each call)."""
    fake = _fake()
    total, loss = mg.zeros((), device="gpu"), mg.ones(3, device="gpu").sum()
    count = mg.zeros((), dtype=mg.int64, device="gpu")
    steps = [lambda: total.add_(loss), lambda: total.mul_(0.5), lambda: count.add_(1), lambda: total.copy_(loss)]
    for step in steps:
        step()
        fake.reset_counts()
        step()
        c = fake.counts()
        assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
    np.testing.assert_array_equal(total.cpu().numpy(), 3.0)
    assert count.item() == 2


@counted
def test_a_gpu_index_rewritten_after_the_forward_leaves_the_gradient_of_the_forward():
    """The node keeps a copy of its index on the device (NOTE [ A node keeps its own index ]): one device copy,
    no host copy, no sync; the gradient is the forward's, where the index's rewrite changed it before."""
    fake = _fake()
    w = mg.arange(4.0).to("gpu").requires_grad_()
    idx = mg.tensor([0, 0, 3]).to("gpu")
    fake.reset_counts()
    y = w[idx]
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
    idx.copy_(mg.tensor([1, 2, 2]).to("gpu"))
    (y * mg.tensor([1.0, 2.0, 3.0]).to("gpu")).sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy(), [3.0, 0.0, 0.0, 3.0])
