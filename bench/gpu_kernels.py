"""Benchmark minigrad's hand-written CUDA kernels against CuPy's built-ins (and PyTorch CUDA when present).

For each kernel and size (1M-64M elements by default) it measures, in the
same run and on the same arrays:

- minigrad's kernel (the registered GPU kernel function, called on CuPy arrays);
- CuPy's own implementation of the op, and ``torch`` on CUDA if installed;
- the ratio minigrad / CuPy in throughput (> 1 is faster than CuPy);
- the achieved memory bandwidth (bytes read + written / time) as a
  fraction of the device's peak.

The issue's targets for the elementwise and reduction kernels: at least
0.8x CuPy's throughput at 16M elements and at least 70% of peak bandwidth.
Matmul is compute-bound and reported in TFLOP/s instead (tiled kernel vs
cuBLAS, the GPUDNN variant).

Usage::

    python bench/gpu_kernels.py                      # full run, updates bench/RESULTS.md
    python bench/gpu_kernels.py --sizes 1M,16M --no-write
    python bench/gpu_kernels.py --peak-gbs 3350      # when the driver does not report the memory clock
    python bench/gpu_kernels.py --quick              # tiny sizes, prints only: proves it works
    python bench/gpu_kernels.py --stand-in           # no GPU: copies, syncs and launches per training step,
                                                     # counted by the stand-in CuPy (tests/gpu/fake_cupy.py),
                                                     # and the per-op host time of minigrad's own Python

It installs nothing: CuPy comes with ``pip install -e ".[gpu]"``.

The results section of ``bench/RESULTS.md`` (between the GPU markers) is
replaced on each full run; the rest of the file is kept.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"
BEGIN = "<!-- gpu_kernels:begin -->"
END = "<!-- gpu_kernels:end -->"

#: Known peak memory bandwidths (GB/s), for drivers that report no memory clock.
PEAK_GBS = {"H100 80GB HBM3": 3350.0, "H100 PCIe": 2000.0, "H100 NVL": 3900.0, "H200": 4800.0,
            "A100-SXM4-80GB": 2039.0, "A100-SXM4-40GB": 1555.0, "A100-PCIE-40GB": 1555.0, "A100 80GB PCIe": 1935.0,
            "L4": 300.0, "A10G": 600.0, "T4": 320.0, "V100": 900.0, "RTX 4090": 1008.0}


def parse_size(s: str) -> int:
    s = s.strip().upper()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1], 1)
    return int(float(s[:-1] if s[-1] in "KMG" else s) * mult)


def device_info(cupy: Any, override: float | None) -> tuple[str, float]:
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    if override:
        return name, override
    clock_khz = props.get("memoryClockRate", 0) or 0
    bus_bits = props.get("memoryBusWidth", 0) or 0
    if clock_khz and bus_bits:
        return name, 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9
    for key, gbs in PEAK_GBS.items():
        if key in name:
            return name, gbs
    return name, float("nan")


#: calls queued back to back per timed sample
INNER = 10


def time_fn(cupy: Any, fn: Callable[[], Any], repeat: int, inner: int = INNER) -> float:
    """Median device seconds per call of ``fn``, over ``repeat`` samples of ``inner`` calls queued back to back.

    CUDA events bracket ``inner`` calls: while one kernel runs, the host queues
    the next, so the time is the device's - as in a training loop - and the
    host's launch overhead (Python, argument marshalling, ~10 us) only shows
    where it exceeds the kernel's time. Every implementation is timed the same way.
    """
    for _ in range(2):
        fn()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(repeat):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        for _ in range(inner):
            fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3 / inner)
    times.sort()
    return times[len(times) // 2]


def kernel_time(cupy: Any, fn: Callable[[], Any], repeat: int, inner: int = INNER) -> float:
    """Median device seconds of the kernels one call of ``fn`` launches, without minigrad's Python launcher.

    One call is made with launch recording on (``_runtime.record_launches``); then
    the recorded launches - same kernels, grids and arguments - are replayed
    back to back and timed like ``time_fn``. The difference to ``time_fn``
    is what the Python side (allocation, argument marshalling) costs.
    """
    from minigrad.kernels.gpu import _runtime

    with _runtime.record_launches() as launches:
        fn()

    def replay() -> None:
        for kernel, grid, block, args in launches:
            kernel(grid, block, args)

    return time_fn(cupy, replay, repeat, inner)


def cases(cupy: Any, torch: Any) -> list[tuple[str, str, Callable[[int, Any], tuple[Any, Any, Any, int]]]]:
    """(name, kind, make(n, dtype) -> (ours, CuPy's, torch's or None, bytes moved)) per hand-written kernel."""
    from minigrad.kernels.gpu import elementwise as ew
    from minigrad.kernels.gpu import nn as gnn
    from minigrad.kernels.gpu import reduce as gred

    rng = cupy.random.default_rng(0)

    def arr(n: int, dt: Any) -> Any:
        return rng.standard_normal(n, dtype=cupy.float32).astype(dt)

    def tt(a: Any) -> Any:
        return None if torch is None else torch.as_tensor(a, device="cuda")

    def unary(op: str, theirs: Callable, tfn: Callable | None) -> Callable:
        def make(n: int, dt: Any):
            x = arr(n, dt)
            tx = tt(x)
            tcall = (lambda: tfn(tx)) if tx is not None and tfn is not None else None
            return (lambda: ew.run_elementwise(op, "unary", (x,), x.dtype)), (lambda: theirs(x)), tcall, 2 * x.nbytes
        return make

    def binary(op: str, theirs: Callable, tfn: Callable | None) -> Callable:
        def make(n: int, dt: Any):
            x, y = arr(n, dt), arr(n, dt)
            tx, ty = tt(x), tt(y)
            tcall = (lambda: tfn(tx, ty)) if tx is not None and tfn is not None else None
            return (lambda: ew.run_elementwise(op, "binary", (x, y), x.dtype)), (lambda: theirs(x, y)), tcall, 3 * x.nbytes
        return make

    def reduction(ours: Callable, theirs: Callable, tfn: Callable | None) -> Callable:
        def make(n: int, dt: Any):
            x = arr(n, dt)
            tx = tt(x)
            tcall = (lambda: tfn(tx)) if tx is not None and tfn is not None else None
            return (lambda: ours(x)), (lambda: theirs(x)), tcall, x.nbytes
        return make

    def rowwise(op: str, ours: Callable, cols: int) -> Callable:
        def make(n: int, dt: Any):
            x = arr(n, dt).reshape(-1, cols)
            tx = tt(x)

            def theirs() -> Any:  # CuPy has no softmax: the idiomatic three-kernel version
                m = x.max(axis=1, keepdims=True)
                e = cupy.exp(x - m)
                if op == "softmax":
                    return e / e.sum(axis=1, keepdims=True)
                return (x - m) - cupy.log(e.sum(axis=1, keepdims=True))

            tcall = (lambda: getattr(torch, op)(tx, dim=1)) if tx is not None else None
            return (lambda: ours(x, 1)), theirs, tcall, 2 * x.nbytes
        return make

    def lse_cupy(x: Any) -> Any:
        m = x.max()
        return cupy.log(cupy.exp(x - m).sum()) + m

    def gelu_cupy(x: Any) -> Any:  # CuPy has no gelu: the same formula with its ufuncs
        import cupyx.scipy.special as sp

        return 0.5 * x * (1 + sp.erf(x * 0.7071067811865476))

    T = torch
    return [
        ("exp", "elementwise", unary("exp", cupy.exp, T and T.exp)),
        ("sigmoid", "elementwise", unary("sigmoid", lambda x: 1 / (1 + cupy.exp(-x)), T and T.sigmoid)),
        ("relu", "elementwise", unary("relu", lambda x: cupy.maximum(x, 0), T and T.relu)),
        ("gelu", "elementwise", unary("gelu", gelu_cupy, T and T.nn.functional.gelu)),
        ("add", "elementwise", binary("add", cupy.add, T and T.add)),
        ("mul", "elementwise", binary("mul", cupy.multiply, T and T.mul)),
        ("maximum", "elementwise", binary("maximum", cupy.maximum, T and T.maximum)),
        ("sum", "reduction", reduction(gred.sum_, cupy.sum, T and T.sum)),
        ("max", "reduction", reduction(gred.max_, cupy.max, T and T.max)),
        ("mean", "reduction", reduction(gred.mean, cupy.mean, T and T.mean)),
        ("logsumexp", "reduction", reduction(gred.logsumexp, lse_cupy, T and (lambda t: T.logsumexp(t, 0)))),
        ("softmax (rows of 1024)", "softmax", rowwise("softmax", gnn.softmax, 1024)),
        ("log_softmax (rows of 1024)", "softmax", rowwise("log_softmax", gnn.log_softmax, 1024)),
    ]


def bench_matmul(cupy: Any, torch: Any, repeat: int, sizes: list[int]) -> list[dict[str, Any]]:
    from minigrad.kernels.gpu.linalg import matmul_tiled

    rows = []
    for n in sizes:
        a = cupy.random.default_rng(1).standard_normal((n, n), dtype=cupy.float32)
        b = cupy.random.default_rng(2).standard_normal((n, n), dtype=cupy.float32)
        flops = 2.0 * n ** 3
        t_ours = time_fn(cupy, lambda: matmul_tiled(a, b), repeat)
        t_cublas = time_fn(cupy, lambda: cupy.matmul(a, b), repeat)
        row = {"n": n, "tiled_tflops": flops / t_ours / 1e12, "cublas_tflops": flops / t_cublas / 1e12,
               "ratio": t_cublas / t_ours}
        if torch is not None:
            ta, tb = torch.as_tensor(a, device="cuda"), torch.as_tensor(b, device="cuda")
            torch.backends.cuda.matmul.allow_tf32 = False
            row["torch_tflops"] = flops / time_fn(cupy, lambda: ta @ tb, repeat) / 1e12
        rows.append(row)
    return rows


def bench_conv(cupy: Any, torch: Any, repeat: int, quick: bool) -> list[dict[str, Any]]:
    """conv2d forward, float32: im2col + cuBLAS (GPUDNN) and the direct kernel (GPU) vs cuDNN through PyTorch."""
    from minigrad.kernels.gpu import conv

    shapes = [(8, 16, 32, 32, 32, 3)] if quick else [(32, 3, 64, 64, 32, 3), (32, 64, 32, 32, 64, 3), (64, 128, 16, 16, 128, 3)]
    rows = []
    for n, c, h, w, o, k in shapes:
        rng = cupy.random.default_rng(3)
        x = rng.standard_normal((n, c, h, w), dtype=cupy.float32)
        wt = rng.standard_normal((o, c, k, k), dtype=cupy.float32)
        flops = 2.0 * n * o * h * w * c * k * k  # padding 1: output H x W
        row = {"shape": f"{n}x{c}x{h}x{w}, {o}x{c}x{k}x{k}",
               "gemm_ms": time_fn(cupy, lambda: conv.conv2d_gemm(x, wt, None, (1, 1), (1, 1)), repeat) * 1e3,
               "direct_ms": time_fn(cupy, lambda: conv.conv2d_direct(x, wt, None, (1, 1), (1, 1)), repeat) * 1e3}
        row["gemm_tflops"] = flops / row["gemm_ms"] / 1e9
        if torch is not None:
            tx, tw = torch.as_tensor(x, device="cuda"), torch.as_tensor(wt, device="cuda")
            torch.backends.cudnn.allow_tf32 = False
            row["torch_ms"] = time_fn(cupy, lambda: torch.nn.functional.conv2d(tx, tw, padding=1), repeat) * 1e3
        rows.append(row)
    return rows


def _train_steps(quick: bool) -> list[tuple[str, Callable[[Any, str], Callable[[], Any]]]]:
    """(name, build(framework module, device) -> one training step) for the same model in minigrad and PyTorch."""

    def mlp(F: Any, dev: str) -> Callable[[], Any]:
        batch, d_in, hidden, d_out = (64, 64, 128, 10) if quick else (256, 784, 512, 10)
        return _step(F, dev, [(d_in, hidden), (hidden, d_out)], (batch, d_in), d_out, conv=False)

    def cnn(F: Any, dev: str) -> Callable[[], Any]:
        return _step(F, dev, [(8, 1, 3, 3), (16, 8, 3, 3), (16 * 7 * 7, 10)], (32 if quick else 128, 1, 28, 28), 10,
                     conv=True)

    return [("MLP " + ("64-128-10, batch 64" if quick else "784-512-10, batch 256") + ", SGD", mlp),
            ("CNN conv8-pool-conv16-pool-linear, " + ("batch 32" if quick else "batch 128") + " 28x28, SGD", cnn),
            ("makemore MLP, batch 32, C[X[ix]], tanh, manual SGD", makemore_step),
            ("small ResNet-style CNN, batch 32 3x32x32, BatchNorm2d, adaptive pool, SGD", small_resnet_step)]


def makemore_step(F: Any, dev: str) -> Callable[[], Any]:
    """makemore's character MLP as its lecture writes it: raw parameters, a minibatch index drawn on the device,
    ``C[X[ix]]``, ``tanh``, ``cross_entropy``, ``p.grad = None`` and ``p.data += -lr * p.grad``."""
    g = F.Generator().manual_seed(2147483647)
    params = [F.randn(shape, generator=g).to(dev) for shape in ((27, 10), (30, 200), (200,), (200, 27), (27,))]
    for p in params:
        p.requires_grad = True
    C, W1, b1, W2, b2 = params
    X = F.randint(0, 27, (32000, 3), generator=g).to(dev)
    Y = F.randint(0, 27, (32000,), generator=g).to(dev)
    fn = F.nn.functional

    def step() -> Any:
        ix = F.randint(0, X.shape[0], (32,), device=dev)
        h = F.tanh(C[X[ix]].view(-1, 30) @ W1 + b1)
        loss = fn.cross_entropy(h @ W2 + b2, Y[ix])
        for p in params:
            p.grad = None
        loss.backward()
        for p in params:
            p.data += -0.1 * p.grad
        return loss

    return step


def small_resnet_step(F: Any, dev: str) -> Callable[[], Any]:
    """A CIFAR-style CNN as course programs write it: convs without bias, BatchNorm2d, LeakyReLU, a strided conv,
    ``AdaptiveAvgPool2d((1, 1))``, SGD with momentum and weight decay."""
    F.manual_seed(0)
    nn = F.nn
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.LeakyReLU(0.1),
                          nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                          nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(32, 10)).to(dev)
    opt = F.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    x, y = F.randn(32, 3, 32, 32).to(dev), F.randint(0, 10, (32,)).to(dev)

    def step() -> Any:
        loss = F.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def _step(F: Any, dev: str, shapes: list[tuple[int, ...]], x_shape: tuple[int, ...], classes: int,
          conv: bool) -> Callable[[], Any]:
    """One SGD step of a small model, written once for both frameworks (``F`` is ``minigrad`` or ``torch``)."""
    import numpy as np

    rng = np.random.default_rng(0)
    is_torch = F.__name__ == "torch"

    def param(shape: tuple[int, ...]) -> Any:
        fan_in = shape[0] if len(shape) == 2 else np.prod(shape[1:])  # (in, out) matrices, (O, C, kH, kW) filters
        a = (rng.standard_normal(shape) * (2.0 / fan_in) ** 0.5).astype(np.float32)
        if is_torch:
            return F.tensor(a, device=dev, requires_grad=True)
        return F.tensor(a, requires_grad=True).to(dev).detach().requires_grad_()

    params = [param(s) for s in shapes]
    x_np = rng.standard_normal(x_shape).astype(np.float32)
    y_np = rng.integers(0, classes, x_shape[0])
    x = F.tensor(x_np, device=dev) if is_torch else F.tensor(x_np).to(dev)
    y = F.tensor(y_np, device=dev) if is_torch else F.tensor(y_np).to(dev)
    fn = F.nn.functional if is_torch else F

    def forward() -> Any:
        if conv:
            h = fn.max_pool2d(fn.conv2d(x, params[0], None, 1, 1).relu(), 2)
            h = fn.max_pool2d(fn.conv2d(h, params[1], None, 1, 1).relu(), 2)
            return h.reshape(x_shape[0], -1) @ params[2]
        return (x @ params[0]).relu() @ params[1]

    def step() -> Any:
        loss = fn.cross_entropy(forward(), y)
        loss.backward()
        with F.no_grad():
            for p in params:
                p.sub_(p.grad * 0.01)
                p.grad = None
        return loss

    return step


#: the char GPT of ``examples/char_gpt.py`` at the issue's two sizes (layers, width, heads, batch, block)
GPT_SIZES = [("char GPT 2x64, batch 16x32, AdamW", (2, 64, 4, 16, 32)),
             ("char GPT 6x384, 6 heads, batch 64x256, AdamW", (6, 384, 6, 64, 256))]
GPT_VOCAB = 65  # Shakespeare-char's


def _char_gpt_module(F: Any) -> Any:
    """``examples/char_gpt.py``, imported for ``F`` (minigrad, or torch: the source uses PyTorch's spelling)."""
    return _example("char_gpt", F)


def _example(name: str, F: Any) -> Any:
    """``examples/<name>.py`` as a module for ``F``: as written for minigrad, or with its import lines pointed
    at torch (the examples use only PyTorch's spelling)."""
    import types

    path = HERE.parent / "examples" / f"{name}.py"
    src = path.read_text()
    if F.__name__ == "torch":  # each import line of minigrad names torch instead (``import minigrad as torch``...)
        src = "\n".join(line.replace("minigrad", "torch", 1) if line.startswith(("import minigrad", "from minigrad"))
                        else line for line in src.split("\n"))
    mod = types.ModuleType(f"{name}_{F.__name__}")
    mod.__file__ = str(path)
    sys.modules[mod.__name__] = mod  # a dataclass looks its module up there
    exec(compile(src, mod.__file__, "exec"), mod.__dict__)  # noqa: S102 - the repository's own example
    return mod


def gpt_step(F: Any, dev: str, size: tuple[int, ...]) -> Callable[[], Any]:
    """One AdamW step (forward, backward, update) of the char GPT, written as its training loop writes it."""
    n_layer, n_embd, n_head, batch, block = size
    F.manual_seed(0)
    model = _char_gpt_module(F).CharGPT(GPT_VOCAB, n_embd, n_head, n_layer, block).to(dev)
    opt = F.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    if F.__name__ == "torch":
        x, y = (F.randint(0, GPT_VOCAB, (batch, block), device=dev) for _ in range(2))
    else:
        x, y = (F.randint(0, GPT_VOCAB, (batch, block)).to(dev) for _ in range(2))

    def step() -> Any:
        logits = model(x)
        loss = F.nn.functional.cross_entropy(logits.view(-1, GPT_VOCAB), y.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


#: ``examples/gpt.py``, nanoGPT-style (layers, width, heads, batch, block, dropout): a small size and nanoGPT's
#: Shakespeare-char configuration, dropout included
NANOGPT_SIZES = [("nanoGPT-style 2x64, dropout 0.1, batch 16x64, fused AdamW", (2, 64, 4, 16, 64, 0.1)),
                 ("nanoGPT-style 6x384, 6 heads, dropout 0.2, batch 64x256, fused AdamW", (6, 384, 6, 64, 256, 0.2))]


def _nanogpt(F: Any, dev: str, size: tuple[Any, ...]) -> tuple[Any, Any, Any, Any]:
    """``examples/gpt.py``'s model of ``size`` (layers, width, heads, batch, block, dropout) on ``dev``, its
    AdamW with weight-decay groups (fused on a GPU, as nanoGPT's), and a batch of inputs and targets made there."""
    n_layer, n_embd, n_head, batch, block, dropout = size
    F.manual_seed(0)
    ex = _example("gpt", F)
    model = ex.GPT(ex.GPTConfig(block_size=block, vocab_size=GPT_VOCAB, n_layer=n_layer, n_head=n_head,
                                n_embd=n_embd, dropout=dropout)).to(dev)
    opt = model.configure_optimizers(0.1, 1e-3, (0.9, 0.95), F.device(dev).type)
    x, y = (F.randint(0, GPT_VOCAB, (batch, block), device=dev) for _ in range(2))
    return model, opt, x, y


def nanogpt_step(F: Any, dev: str, size: tuple[Any, ...]) -> Callable[[], Any]:
    """One step of ``examples/gpt.py``'s nanoGPT-style model as its training loop writes it: dropout masks
    drawn on the device, causal SDPA, positions made on the device, clipping, AdamW with weight-decay groups."""
    model, opt, x, y = _nanogpt(F, dev, size)

    def step() -> Any:
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        F.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss

    return step


#: nanoGPT's train.py on a GPU without bfloat16: float16 autocast around the forward, a GradScaler around the
#: backward and the step (layers, width, heads, batch, block, dropout)
AMP_SIZES = [("nanoGPT-style 2x64, float16 autocast + GradScaler, fused AdamW", (2, 64, 4, 16, 64, 0.1))]


def nanogpt_amp_step(F: Any, dev: str, size: tuple[Any, ...]) -> Callable[[], Any]:
    """``nanogpt_step``'s model under mixed precision, as nanoGPT's loop writes it: the forward in
    ``autocast(dtype=float16)``, ``scaler.scale(loss).backward()``, ``unscale_`` before clipping, then
    ``scaler.step`` (which hands the inf flag to the fused AdamW's kernel: no sync, in PyTorch too) and ``update``."""
    model, opt, x, y = _nanogpt(F, dev, size)
    scaler = F.amp.GradScaler("cuda")

    def step() -> Any:
        with F.autocast(device_type="cuda", dtype=F.float16):
            _, loss = model(x, y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        F.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        return loss

    return step


def training_models(quick: bool) -> list[tuple[str, Callable[[Any, str], Callable[[], Any]]]]:
    """Every timed training step: the MLP, the CNN, the char GPT sizes, the nanoGPT-style sizes (the small
    ones only when quick) and the nanoGPT-style step in mixed precision."""
    gpts = GPT_SIZES[:1] if quick else GPT_SIZES
    nanos = NANOGPT_SIZES[:1] if quick else NANOGPT_SIZES
    return (_train_steps(quick) + [(name, lambda F, dev, size=size: gpt_step(F, dev, size)) for name, size in gpts]
            + [(name, lambda F, dev, size=size: nanogpt_step(F, dev, size)) for name, size in nanos]
            + [(name, lambda F, dev, size=size: nanogpt_amp_step(F, dev, size)) for name, size in AMP_SIZES])


def stand_in_counts(quick: bool, steps: int = 2) -> list[dict[str, Any]]:
    """Host->device copies, device->host copies, syncs and launches per steady training step (after a
    warm-up step), counted by the stand-in CuPy; ``install_stand_in()`` must have run first."""
    import fake_cupy

    import minigrad as mg

    rows = []
    for name, build in training_models(quick):
        note = ""
        if "6x384" in name:
            # The stand-in computes every kernel in NumPy on two cores: the 6x384 models are counted at batch
            # 4 x 256. Copies and syncs do not depend on the batch; launches only through a reduction's chunking.
            make, size = (gpt_step, dict(GPT_SIZES)[name]) if name in dict(GPT_SIZES) else (nanogpt_step, dict(NANOGPT_SIZES)[name])
            build = lambda F, dev, make=make, size=size[:3] + (4,) + size[4:]: make(F, dev, size)  # noqa: E731
            note = "counted at batch 4x256"
        step = build(mg, "gpu")
        step()
        fake_cupy.reset_counts()
        for _ in range(steps):
            step()
        c = fake_cupy.counts()
        rows.append({"model": name, "note": note, **{k: c[k] / steps for k in ("launches", "h2d", "d2h", "syncs")}})
    return rows


def install_stand_in() -> None:
    """Put the stand-in CuPy (``tests/gpu/fake_cupy.py``) in place of CuPy, for counting without a GPU."""
    sys.path.insert(0, str(HERE.parent / "tests" / "gpu"))
    import fake_cupy

    fake_cupy.install()


def stand_in_host_per_op() -> list[dict[str, Any]]:
    """``bench_host_per_op``'s rows on the stand-in with its hand-written kernels made no-ops: minigrad's own
    Python per call (and the stand-in's bookkeeping), without CuPy's launch and allocation costs - what the
    code adds to PyTorch CUDA's per-op host time, comparable between two trees on one machine."""
    import cupy
    import fake_cupy

    run_kernel = fake_cupy._Kernel.__call__
    fake_cupy._Kernel.__call__ = lambda self, grid, block, args: None
    fake_cupy.POOL.active = False  # (nor the stand-in's count of allocations)
    try:
        return bench_host_per_op(cupy, None)
    finally:
        fake_cupy._Kernel.__call__ = run_kernel
        fake_cupy.POOL.active = True


def counts_markdown(rows: list[dict[str, Any]], title: str) -> str:
    lines = [title, "", "| model | launches | host->device copies | device->host copies | syncs |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        note = f" ({r['note']})" if r.get("note") else ""
        lines.append(f"| {r['model']}{note} | {r['launches']:.0f} | {r['h2d']:g} | {r['d2h']:g} | {r['syncs']:g} |")
    return "\n".join(lines) + "\n"


def _counts_from_stand_in(quick: bool) -> dict[str, dict[str, Any]]:
    """The stand-in's counts for the same steps, from a subprocess (a GPU run cannot count launches itself;
    the counts are the code's, the same on any machine)."""
    import json
    import subprocess

    r = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--stand-in", "--json"] + (["--quick"] if quick else []),
                       capture_output=True, text=True, timeout=1800)
    if r.returncode != 0:
        return {}
    return {row["model"]: row for row in json.loads(r.stdout.strip().splitlines()[-1])}


def _rounds(row: dict[str, Any], ours_key: str, torch_key: str, timings: list[tuple[float, float]]) -> None:
    """``row``'s times: the medians of ``timings`` (minigrad's, PyTorch's per round, measured one after the
    other in each round); each round's ratio (``ratios``) and their median (``ratio``, the one reported): a
    machine that slows down between rounds moves both sides of a round's ratio, not one."""
    row[ours_key] = statistics.median([t for t, _ in timings])
    if all(t == t for _, t in timings):
        row[torch_key] = statistics.median([t for _, t in timings])
        row["ratios"] = [a / b for a, b in timings]
        row["ratio"] = statistics.median(row["ratios"])


def bench_training(cupy: Any, torch: Any, repeat: int, quick: bool, counts: bool = True,
                   direct: bool = True, rounds: int = 1) -> list[dict[str, Any]]:
    import minigrad as mg

    rows = []
    counted = _counts_from_stand_in(quick) if counts else {}
    for name, build in training_models(quick):
        ours = build(mg, "gpu")
        theirs = build(torch, "cuda") if torch is not None else None
        row = {"model": name, "ours_direct_ms": math.nan}
        timings = []
        for _ in range(rounds):  # minigrad then PyTorch in each round, the same steps going on
            t_ours = time_fn(cupy, ours, repeat, inner=5) * 1e3
            timings.append((t_ours, time_fn(cupy, theirs, repeat, inner=5) * 1e3 if theirs else math.nan))
        _rounds(row, "ours_ms", "torch_ms", timings)
        if direct:
            saved = mg.flags.use_gpudnn
            mg.flags.use_gpudnn = False
            row["ours_direct_ms"] = time_fn(cupy, build(mg, "gpu"), repeat, inner=5) * 1e3
            mg.flags.use_gpudnn = saved
        row.update({k: v for k, v in counted.get(name, {}).items() if k not in ("model", "note")})
        rows.append(row)
    return rows


def host_time(cupy: Any, fn: Callable[[], Any], calls: int = 2000, repeat: int = 5) -> float:
    """Seconds of host time per call, calls queued back to back without a sync in between (the best of
    ``repeat`` rounds; each round ends with one sync, not timed)."""
    best = math.inf
    for _ in range(repeat):
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
        cupy.cuda.Device().synchronize()
    return best


def bench_host_per_op(cupy: Any, torch: Any, rounds: int = 1) -> list[dict[str, Any]]:
    """Per-op host time on (64, 64) float32 GPU tensors that need a gradient: ``a * b``, ``a * b + 1.0``,
    ``a.t() * b``, minigrad against PyTorch CUDA (the time Python spends before the GPU can start)."""
    import minigrad as mg

    def ops(lib: Any, dev: str) -> dict[str, Callable[[], Any]]:
        a = lib.randn(64, 64, device=dev, requires_grad=True)
        b = lib.randn(64, 64, device=dev, requires_grad=True)
        return {"a * b": lambda: a * b, "a * b + 1.0": lambda: a * b + 1.0, "a.t() * b": lambda: a.t() * b}

    ours = ops(mg, "gpu")
    theirs = ops(torch, "cuda") if torch is not None else {}
    rows = []
    for name, fn in ours.items():
        fn()  # each kind of call seen once
        if name in theirs:
            theirs[name]()
        row: dict[str, Any] = {"op": name}
        timings = []
        for _ in range(rounds):  # minigrad then PyTorch in each round
            t_ours = host_time(cupy, fn) * 1e6
            timings.append((t_ours, host_time(cupy, theirs[name]) * 1e6 if name in theirs else math.nan))
        _rounds(row, "ours_us", "torch_us", timings)
        rows.append(row)
    return rows


#: What a full run measures, in order; ``--parts`` picks some (a device's minutes are few).
PARTS = ("kernels", "matmul", "conv", "train", "host")


def run(sizes: list[int], repeat: int, dtypes: list[str], peak_override: float | None,
        parts: tuple[str, ...] = PARTS, counts: bool = True, direct: bool = True, rounds: int = 1) -> tuple[Any, ...]:
    import minigrad as mg

    if not mg.is_gpu_available():
        raise SystemExit("no GPU: CuPy and a CUDA device are needed (pip install -e \".[gpu]\")")
    import cupy

    try:
        import torch

        if not torch.cuda.is_available():
            torch = None
    except ImportError:
        torch = None
    name, peak = device_info(cupy, peak_override)
    results = []
    for case_name, kind, make in cases(cupy, torch) if "kernels" in parts else ():
        for dt_name in dtypes:
            dt = getattr(cupy, dt_name)
            for n in sizes:
                ours, theirs, tcall, nbytes = make(n, dt)
                t_ours = time_fn(cupy, ours, repeat)
                t_kernel = kernel_time(cupy, ours, repeat)
                t_cupy = time_fn(cupy, theirs, repeat)
                t_torch = time_fn(cupy, tcall, repeat) if tcall is not None else math.nan
                gbs = nbytes / t_ours / 1e9
                kgbs = nbytes / t_kernel / 1e9
                results.append({
                    "kernel": case_name, "kind": kind, "dtype": dt_name, "n": n,
                    "ours_ms": t_ours * 1e3, "kernel_ms": t_kernel * 1e3, "cupy_ms": t_cupy * 1e3,
                    "torch_ms": t_torch * 1e3,
                    "ratio_cupy": t_cupy / t_ours, "ratio_torch": t_torch / t_ours if tcall else math.nan,
                    "gbs": gbs, "peak_frac": gbs / peak if peak == peak else math.nan,
                    "kernel_gbs": kgbs, "kernel_peak_frac": kgbs / peak if peak == peak else math.nan,
                })
    quick = max(sizes) < (1 << 20)
    mm = bench_matmul(cupy, torch, repeat, [128] if quick else [1024, 2048, 4096]) if "matmul" in parts else []
    extra = {"conv": bench_conv(cupy, torch, repeat, quick) if "conv" in parts else [],
             "train": bench_training(cupy, torch, repeat, quick, counts, direct, rounds) if "train" in parts else [],
             "host": bench_host_per_op(cupy, torch, rounds) if "host" in parts else []}
    return name, results, mm, peak, extra


def _fmt_n(n: int) -> str:
    return f"{n >> 20}M" if n >= (1 << 20) and n % (1 << 20) == 0 else str(n)


def to_markdown(device: str, peak: float, results: list[dict[str, Any]], mm: list[dict[str, Any]],
                extra: dict[str, list[dict[str, Any]]] | None = None) -> str:
    lines = [
        f"## GPU kernels (`bench/gpu_kernels.py`)",
        "",
        f"Device: **{device}**, peak memory bandwidth {peak:.0f} GB/s. Ratios are throughput relative to the "
        "other implementation in the same run (> 1: minigrad is faster). Targets: hand-written elementwise and "
        "reductions >= 0.8x CuPy at 16M elements and >= 70% of peak bandwidth.",
        "",
        "Each call is timed whole (minigrad's Python launcher included, calls queued back to back); *kernel* is "
        "the same launches replayed without the launcher, so kernel % of peak is the CUDA code's own bandwidth "
        "and the difference is Python's cost. A target is met when the whole call is >= 0.8x CuPy and the "
        "kernel reaches >= 70% of peak.",
        "",
        "| kernel | dtype | elements | minigrad ms | kernel ms | CuPy ms | vs CuPy | torch ms | vs torch | GB/s | "
        "% of peak | kernel % of peak | targets @16M |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in results:
        target = ""
        kfrac = r.get("kernel_peak_frac", r["peak_frac"])
        if r["n"] == 16 << 20 and r["kind"] in ("elementwise", "reduction"):
            ok = r["ratio_cupy"] >= 0.8 and kfrac >= 0.7
            target = "met" if ok else "missed"
        torch_ms = "-" if r["torch_ms"] != r["torch_ms"] else f"{r['torch_ms']:.3f}"
        vs_torch = "-" if r["ratio_torch"] != r["ratio_torch"] else f"{r['ratio_torch']:.2f}x"
        lines.append(
            f"| {r['kernel']} | {r['dtype']} | {_fmt_n(r['n'])} | {r['ours_ms']:.3f} | {r.get('kernel_ms', r['ours_ms']):.3f} | "
            f"{r['cupy_ms']:.3f} | {r['ratio_cupy']:.2f}x | {torch_ms} | {vs_torch} | {r['gbs']:.0f} | "
            f"{100 * r['peak_frac']:.0f}% | {100 * kfrac:.0f}% | {target} |"
        )
    lines += ["", "Matmul (float32, square; compute-bound, TFLOP/s): hand-written tiled kernel (GPU) vs cuBLAS (GPUDNN).", "",
              "| n | tiled TFLOP/s | cuBLAS TFLOP/s | tiled / cuBLAS | torch TFLOP/s |", "| ---: | ---: | ---: | ---: | ---: |"]
    for r in mm:
        t = f"{r['torch_tflops']:.2f}" if "torch_tflops" in r else "-"
        lines.append(f"| {r['n']} | {r['tiled_tflops']:.2f} | {r['cublas_tflops']:.2f} | {r['ratio']:.2f}x | {t} |")
    extra = extra or {}
    if extra.get("conv"):
        lines += ["", "conv2d forward (float32, 3x3, padding 1): im2col + cuBLAS (GPUDNN) and the direct kernel (GPU) "
                  "vs cuDNN through PyTorch (TF32 off).", "",
                  "| x, weight | im2col+cuBLAS ms | TFLOP/s | direct ms | torch (cuDNN) ms | im2col / cuDNN |",
                  "| --- | ---: | ---: | ---: | ---: | ---: |"]
        for r in extra["conv"]:
            t = r.get("torch_ms", math.nan)
            torch_ms = "-" if t != t else f"{t:.3f}"
            ratio = "-" if t != t else f"{t / r['gemm_ms']:.2f}x"
            lines.append(f"| {r['shape']} | {r['gemm_ms']:.3f} | {r['gemm_tflops']:.2f} | {r['direct_ms']:.3f} | "
                         f"{torch_ms} | {ratio} |")
    if extra.get("train"):
        lines += ["", "Training steps on the GPU (float32; forward, backward, SGD update; ms per step, device time with "
                  "steps queued back to back): minigrad with GPUDNN kernels (cuBLAS), minigrad with hand-written "
                  "kernels only, PyTorch CUDA.", "",
                  "| model | minigrad ms | minigrad, hand-written only ms | torch ms | minigrad / torch | "
                  "launches | copies h2d / d2h | syncs |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for r in extra["train"]:
            t = r.get("torch_ms", math.nan)
            ratio = "-" if t != t else f"{r.get('ratio', r['ours_ms'] / t):.1f}x" + _round_ratios(r, 1)
            counted = (f"{r['launches']:.0f} | {r['h2d']:g} / {r['d2h']:g} | {r['syncs']:g}" if "launches" in r
                       else "- | - | -")
            d = r["ours_direct_ms"]
            lines.append(f"| {r['model']} | {r['ours_ms']:.2f} | {'-' if d != d else f'{d:.2f}'} | "
                         f"{'-' if t != t else f'{t:.2f}'} | {ratio} | {counted} |")
        lines += ["", "Launches, copies and syncs are per steady step (after a warm-up step), counted by the stand-in "
                  "CuPy (`python bench/gpu_kernels.py --stand-in`); they are the code's, the same on any machine."]
    if extra.get("host"):
        lines += ["", "Per-op host time ((64, 64) float32 tensors that need a gradient, calls queued without a sync; "
                  "the target is within 2x of PyTorch CUDA):", "",
                  "| op | minigrad us | torch us | minigrad / torch |", "| --- | ---: | ---: | ---: |"]
        for r in extra["host"]:
            t = r.get("torch_us", math.nan)
            torch_us = "-" if t != t else f"{t:.1f}"
            ratio = "-" if t != t else f"{r.get('ratio', r['ours_us'] / t):.2f}x" + _round_ratios(r, 2)
            lines.append(f"| `{r['op']}` | {r['ours_us']:.1f} | {torch_us} | {ratio} |")
    return "\n".join(lines) + "\n"


def _round_ratios(row: dict[str, Any], digits: int) -> str:
    """`` (rounds: 1.2x, 1.3x, 1.2x)`` after a ratio measured in several rounds (``--rounds``), else nothing."""
    ratios = row.get("ratios", [])
    return f" (rounds: {', '.join(f'{x:.{digits}f}x' for x in ratios)})" if len(ratios) > 1 else ""


def write_results(path: Path, section: str) -> None:
    """Replace the GPU section of ``path`` (between the markers), keeping the rest."""
    block = f"{BEGIN}\n{section}{END}\n"
    text = path.read_text() if path.exists() else "# Benchmark results\n\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        text = head + block + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python bench/gpu_kernels.py", description=__doc__.strip(),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="1M,4M,16M,64M", help="element counts, e.g. 1M,16M")
    p.add_argument("--dtypes", default="float32,float16,float64")
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--peak-gbs", type=float, default=None, help="peak memory bandwidth in GB/s (else from the driver)")
    p.add_argument("--results", default=str(RESULTS), help="markdown file to update")
    p.add_argument("--no-write", action="store_true", help="print only")
    p.add_argument("--quick", action="store_true",
                   help="tiny sizes (64K elements, 2 repeats, float32), print only: proves the script works in seconds")
    p.add_argument("--stand-in", action="store_true",
                   help="no GPU needed: count copies, syncs and launches per training step with the stand-in CuPy")
    p.add_argument("--json", action="store_true",
                   help="also print the rows as one JSON line, last (with --stand-in: the counts instead of the table)")
    p.add_argument("--parts", default=",".join(PARTS), help=f"what to measure, some of {','.join(PARTS)}")
    p.add_argument("--no-counts", action="store_true",
                   help="training rows without the stand-in's counts (they are the code's; --stand-in prints them)")
    p.add_argument("--no-direct", action="store_true", help="training rows without the hand-written-kernels-only time")
    p.add_argument("--rounds", type=int, default=1,
                   help="training and per-op rows: minigrad and PyTorch timed one after the other this many times; "
                        "the medians are reported, with each round's ratio")
    a = p.parse_args(argv)
    parts = tuple(x for x in a.parts.split(",") if x)
    if unknown := set(parts) - set(PARTS):
        p.error(f"unknown --parts {sorted(unknown)}: choose from {','.join(PARTS)}")
    if a.stand_in:
        install_stand_in()
        rows = stand_in_counts(a.quick)
        if a.json:
            import json

            print(json.dumps(rows))
        else:
            print(counts_markdown(rows, "Per steady training step on the stand-in CuPy (float32):"))
            host = stand_in_host_per_op()
            print("Per-op host time on the stand-in, its kernels no-ops (64x64 float32, grad; no CuPy costs):\n")
            print("\n".join(f"- `{r['op']}`: {r['ours_us']:.1f} us" for r in host))
        return 0
    if a.quick:
        a.sizes, a.repeat, a.dtypes, a.no_write = "64K", 2, "float32", True
    sizes = [parse_size(s) for s in a.sizes.split(",") if s]
    device, results, mm, peak, extra = run(sizes, a.repeat, [d for d in a.dtypes.split(",") if d], a.peak_gbs,
                                           parts, not a.no_counts, not a.no_direct, a.rounds)
    md = to_markdown(device, peak, results, mm, extra)
    print(md)
    if a.json:  # (bench/gpu_ab.py reads it: before and after a change, in turns)
        import json

        print(json.dumps({"device": device, "train": extra.get("train", []), "host": extra.get("host", [])}))
    if not a.no_write:
        write_results(Path(a.results), md)
    return 0


if __name__ == "__main__":
    # BENCH_MINIGRAD_PATH: another tree's minigrad (bench/gpu_ab.py times a change's before and after)
    sys.path.insert(0, os.environ.get("BENCH_MINIGRAD_PATH") or str(HERE.parent))
    os.environ.setdefault("CUPY_CACHE_SAVE_CUDA_SOURCE", "0")
    raise SystemExit(main())
