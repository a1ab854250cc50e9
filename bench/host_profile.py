"""Where minigrad's host time goes on a GPU: cProfile of the per-op calls and training steps that
``bench/gpu_kernels.py`` times, without a sync between calls (the time Python spends before the device can
start, which is what bounds a small model's step).

Usage::

    python bench/host_profile.py                 # on a machine with CuPy and a CUDA device
    python bench/host_profile.py --stand-in      # anywhere: the stand-in CuPy, its kernels and GEMMs no-ops
    python bench/host_profile.py --top 40 --calls 3000
    python bench/host_profile.py --stand-in --quick    # proves it works
    python bench/host_profile.py --steps         # each step of one call timed alone (CuPy's and minigrad's)
    python bench/host_profile.py --launches --only "CNN step"   # host- or device-bound? its slowest kernels

For each case it prints the host microseconds per call (best of five rounds of ``--calls`` calls; PyTorch
CUDA's beside it where installed), then the ``--top`` functions by their own time under the profiler.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import gpu_kernels  # noqa: E402  (bench/gpu_kernels.py: the same cases)


def per_call_us(sync: Callable[[], None], fn: Callable[[], Any], calls: int) -> float:
    best = float("inf")
    for _ in range(5):
        sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
        sync()
    return best * 1e6


def torch_cuda() -> Any:
    """PyTorch, where it is installed and sees a CUDA device; else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def profile(fn: Callable[[], Any], calls: int, top: int, sort: str = "tottime") -> str:
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(calls):
        fn()
    pr.disable()
    out = io.StringIO()
    pstats.Stats(pr, stream=out).sort_stats(sort).print_stats(top)
    text = out.getvalue()
    return text[text.index("   ncalls"):] if "   ncalls" in text else text


def cases(lib: Any, dev: str) -> dict[str, Callable[[], Callable[[], Any]]]:
    """name -> a builder of the call to time (per-op calls on (64, 64) float32 tensors that need a gradient,
    as ``bench/gpu_kernels.py``'s per-op rows; the MLP's, the CNN's and the small char GPT's training steps)."""
    def ops() -> dict[str, Callable[[], Any]]:
        a = lib.randn(64, 64, device=dev, requires_grad=True)
        b = lib.randn(64, 64, device=dev, requires_grad=True)
        return {"a * b": lambda: a * b, "a * b + 1.0": lambda: a * b + 1.0, "a.t() * b": lambda: a.t() * b,
                "a + 1.0": lambda: a + 1.0, "a.t()": lambda: a.t()}

    out: dict[str, Callable[[], Callable[[], Any]]] = {name: (lambda name=name: ops()[name]) for name in ops()}
    mlp = next(build for name, build in gpu_kernels._train_steps(quick=False) if name.startswith("MLP"))
    out["MLP step"] = lambda: mlp(lib, dev)
    cnn = next(build for name, build in gpu_kernels._train_steps(quick=False) if name.startswith("CNN"))
    out["CNN step"] = lambda: cnn(lib, dev)
    # batch norm, LeakyReLU, a strided conv, the adaptive pool: 5.9x PyTorch's step on an H200 (twentieth session)
    out["small ResNet step"] = lambda: gpu_kernels.small_resnet_step(lib, dev)
    gpt = dict(gpu_kernels.GPT_SIZES)["char GPT 2x64, batch 16x32, AdamW"]
    out["char GPT 2x64 step"] = lambda: gpu_kernels.gpt_step(lib, dev, gpt)
    return out


def steps(lib: Any, cupy: Any) -> dict[str, Callable[[], Any]]:
    """The steps of ``a.t() * b`` and ``a + 1.0`` on (64, 64) float32 tensors that need a gradient, each
    callable alone: CuPy's own costs (a launch with arrays or addresses, its ufunc and fill, cuBLAS's GEMM,
    a device copy, an allocation, a transpose, a pointer read) beside minigrad's layers (the API layer,
    InferMeta and the launch, the tensor, the view's bookkeeping, the grad node)."""
    from minigrad.autograd.node_creation import create_grad_node
    from minigrad.autograd.views import make_view
    from minigrad.dispatch.generated import shape as generated_shape
    from minigrad.kernels.api import KINDS, launch_and_check
    from minigrad.devices import backend_of_device
    from minigrad.kernels.gpu import elementwise, gemm
    from minigrad.tensor import Tensor

    a = lib.randn(64, 64, device="gpu", requires_grad=True)
    b = lib.randn(64, 64, device="gpu", requires_grad=True)
    at = a.t()
    t_op = generated_shape.t_op
    entry = next(e for k, e in KINDS.items() if k[0] is t_op)
    arr, brr, atr = a._data, b._data, at._data

    def tensor() -> Any:
        return Tensor._make(arr.T, a._dtype, "gpu", a._layout)

    def view() -> Any:
        out = tensor()
        make_view(a, out, t_op, {})
        return out

    def node() -> Any:
        out = view()
        create_grad_node(t_op, (a,), {}, (out,))
        return out

    # CuPy's own primitives, to say which of minigrad's uses of them cost: a hand-written kernel launched with
    # its arrays (CuPy packs each) or with their addresses made before; CuPy's ufunc and fill; cuBLAS's GEMM
    # (the handle, the pointer mode and the call); a 4-byte device-to-device copy (the backward seed's).
    plan = elementwise._plan("mul", "binary", (arr, brr), arr.dtype, None)
    out = cupy.ndarray(arr.shape, arr.dtype)
    n = np.int64(arr.size)
    ptrs = tuple(np.uint64(x.data.ptr) for x in (arr, brr, out))
    one = backend_of_device("gpu").constant(np.ones((), np.float32))
    # The MLP step's first product, (256, 784) @ (784, 512): cuBLAS's host time per call (the handle, its
    # pointer mode, the call) against the hand-written tiled kernel's launch, which costs less host time and
    # more device time - which way a host-bound step should go is a device's answer, not the stand-in's.
    x_mlp = cupy.ndarray((256, 784), np.float32)
    w_mlp = cupy.ndarray((784, 512), np.float32)
    from minigrad.kernels.gpu import linalg
    sgemm, _, alpha, beta = gemm._GEMMS[np.dtype(np.float32)]
    handle = cupy.cuda.device.get_cublas_handle()
    y_mlp = cupy.ndarray((256, 512), np.float32)
    xp, wp, yp = x_mlp.data.ptr, w_mlp.data.ptr, y_mlp.data.ptr
    seed = cupy.ndarray((), np.float32)
    stream = cupy.cuda.get_current_stream().ptr
    runtime = cupy.cuda.runtime

    return {
        "raw launch: mul of (64, 64), its 3 arrays and n": lambda: plan.fn_contig(plan.grid, (256,), (arr, brr, out, n)),
        "raw launch: the same, 3 addresses made before": lambda: plan.fn_contig(plan.grid, (256,), (*ptrs, n)),
        "CuPy's ufunc a + b": lambda: arr + brr,
        "cupy.full((), 1.0)": lambda: cupy.full((), 1.0, dtype=np.float32),
        "the GPU's fill((), 1): the seed's copy": lambda: backend_of_device("gpu").fill((), 1, np.float32),
        "memcpyAsync of 4 bytes, device to device": lambda: runtime.memcpyAsync(
            seed.data.ptr, one.data.ptr, 4, runtime.memcpyDeviceToDevice, stream),
        "gemm.matmul (64, 64) @ (64, 64)": lambda: gemm.matmul(arr, brr),
        "gemm.matmul (256, 784) @ (784, 512)": lambda: gemm.matmul(x_mlp, w_mlp),
        "cublas sgemm alone, (256, 784) @ (784, 512)": lambda: sgemm(handle, 0, 0, 512, 256, 784, alpha, wp, 512, xp,
                                                                    784, beta, yp, 512),
        "cupy.cuda.device.get_cublas_handle()": cupy.cuda.device.get_cublas_handle,
        "tiled matmul kernel (256, 784) @ (784, 512)": lambda: linalg.matmul_tiled(x_mlp, w_mlp),
        "cupy.matmul (64, 64) @ (64, 64)": lambda: cupy.matmul(arr, brr),
        "cupy.ndarray((64, 64), float32)": lambda: cupy.ndarray((64, 64), np.float32),
        "cupy.empty((64, 64), float32)": lambda: cupy.empty((64, 64), np.float32),
        "array.T": lambda: arr.T,
        "array.data.ptr": lambda: arr.data.ptr,
        "array.base": lambda: atr.base,
        "run_elementwise mul (a, b)": lambda: elementwise.run_elementwise("mul", "binary", (arr, brr), arr.dtype),
        "run_elementwise mul (a.T, b)": lambda: elementwise.run_elementwise("mul", "binary", (atr, brr), arr.dtype),
        "launch_and_check(t)": lambda: launch_and_check(t_op, entry.kernel, (arr,), {}),
        "Tensor._make of a.T": tensor,
        "... + make_view": view,
        "... + create_grad_node": node,
        "t_dygraph_function(a)": lambda: generated_shape.t_dygraph_function(a, {}),
        "t_op(a)": lambda: t_op(a),
        "a.t()": lambda: a.t(),
        "at * b": lambda: at * b,
        "a.t() * b": lambda: a.t() * b,
        "a * b": lambda: a * b,
        "a + 1.0": lambda: a + 1.0,
        "a * b + 1.0": lambda: a * b + 1.0,
    }


def launches(fn: Callable[[], Any], cupy: Any, top: int) -> str:
    """Whether one call of ``fn`` is bound by the host or by the device, and its slowest kernels: the call's
    host time (queued, no sync), its time with a sync after each call, its device time queued back to back
    (CUDA events), and each hand-written kernel it launches replayed alone (``_runtime.record_launches``; cuBLAS
    and CuPy's own kernels are not seen), the slowest ``top`` of them."""
    from minigrad.kernels.gpu import _runtime

    sync = cupy.cuda.Device().synchronize

    def device_us(call: Callable[[], Any], calls: int) -> float:  # (CUDA events around ``calls`` queued calls)
        return gpu_kernels.time_fn(cupy, call, repeat=5, inner=calls) * 1e6

    def synced() -> None:
        fn()
        sync()

    lines = [f"host {per_call_us(sync, fn, 20):.1f} us, synced {per_call_us(sync, synced, 20):.1f} us, "
             f"device (queued) {device_us(fn, 20):.1f} us per call"]
    with _runtime.record_launches() as seen:
        fn()
    rows = []
    for kernel, grid, block, args in seen:
        def replay(kernel: Any = kernel, grid: Any = grid, block: Any = block, args: Any = args) -> None:
            kernel(grid, block, args)
        rows.append((device_us(replay, 20), getattr(kernel, "name", None) or getattr(kernel, "__name__", "?"), grid, block))
    total = sum(r[0] for r in rows)
    lines.append(f"{len(rows)} hand-written launches, {total:.1f} us of device time when each is replayed alone")
    for us, name, grid, block in sorted(rows, key=lambda r: -r[0])[:top]:
        lines.append(f"  {us:8.1f} us  {name}  grid {tuple(grid)} block {tuple(block)}")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(prog="python bench/host_profile.py", description=__doc__.strip(),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--stand-in", action="store_true", help="the stand-in CuPy, its kernels and cuBLAS calls no-ops (no GPU needed)")
    p.add_argument("--quick", action="store_true", help="two per-op cases, 50 calls: proves the script works in seconds")
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--only", default="", help="comma list of case names to profile (default: all)")
    p.add_argument("--steps", action="store_true", help="time each step of one call alone, no profile")
    p.add_argument("--sort", default="tottime", choices=("tottime", "cumulative"), help="the profile's order")
    p.add_argument("--launches", action="store_true",
                   help="for each case (--only): host, synced and device time per call, and its kernels replayed alone")
    a = p.parse_args()
    if a.quick:
        a.calls, a.only = 50, a.only or "a * b,a.t()"
    if a.stand_in:
        gpu_kernels.install_stand_in()
        import fake_cupy

        fake_cupy._Kernel.__call__ = lambda self, grid, block, args: None
        fake_cupy.POOL.active = False  # nor does it count allocations (mg.cuda's memory statistics)
    import cupy

    if a.stand_in:  # cuBLAS's calls no-ops too (still counted): what is left is minigrad's host time
        blas = cupy.cuda.cublas
        for name in ("sgemm", "dgemm", "sgemmStridedBatched", "dgemmStridedBatched"):
            setattr(blas, name, lambda *args: fake_cupy._launch())

    import minigrad as mg

    sync = cupy.cuda.Device().synchronize
    if a.steps:
        for name, fn in steps(mg, cupy).items():
            fn()
            print(f"{per_call_us(sync, fn, a.calls):7.2f} us  {name}", flush=True)
        return 0
    torch = None if a.stand_in else torch_cuda()
    ours = cases(mg, "gpu")
    theirs = cases(torch, "cuda") if torch is not None else {}
    only = [s for s in a.only.split(",") if s]
    for name, build in ours.items():
        if only and name not in only:
            continue
        fn = build()
        calls = a.calls if "step" not in name else max(20, a.calls // 100)
        fn()
        if a.launches:
            print(f"## {name}\n{launches(fn, cupy, a.top)}\n", flush=True)
            continue
        line = f"## {name}: minigrad {per_call_us(sync, fn, calls):.1f} us"
        if name in theirs:
            ref = theirs[name]()
            ref()
            line += f", PyTorch CUDA {per_call_us(torch.cuda.synchronize, ref, calls):.1f} us"
        print(line, flush=True)
        print(profile(fn, calls, a.top, a.sort), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
