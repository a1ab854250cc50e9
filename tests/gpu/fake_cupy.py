"""An emulated CuPy for running the GPU test-suite on a machine without a GPU.

``install()`` puts a fake ``cupy`` (and ``cupyx``) module into ``sys.modules``:
NumPy functions whose array results are ``ndarray`` - a NumPy subclass that
marks "device" arrays - plus ``RawModule``, whose kernels are *emulated* in
NumPy. Each launch is checked against the CUDA source the launcher compiled:

- the ``extern "C"`` signature is parsed from the source, and the number of
  arguments, the dtype behind every pointer and the type of every scalar
  (``int`` = int32, ``long long`` = int64, ``double`` = float64) must match;
- the grid must cover the work (one block per row, tiles covering the matrix...);
- the kernel's effect is computed with NumPy in the kernel's accumulation
  type (float32 for float16/float32, float64 for float64), reading inputs
  through the strides the launcher passed.

What this proves: the Python side of the GPU backend - registration, kernel
selection, argument marshalling, shapes, strides, chunked reductions, batched
matmul offsets, fallbacks, backward on the device. What it cannot prove: that
the CUDA C computes what the emulator computes (compiling it with nvcc is the
other half; running it on a GPU is the only full check).

Used by ``tests/gpu/conftest.py`` when ``MINIGRAD_FAKE_CUPY=1``.
"""

from __future__ import annotations

import re
import sys
import types
from typing import Any

import numpy as np


class ndarray(np.ndarray):
    """An array on the emulated device."""


def _dev(r: Any) -> Any:
    if isinstance(r, ndarray):
        return r
    if isinstance(r, np.ndarray):
        return r.view(ndarray)
    if isinstance(r, np.generic):
        return np.asarray(r).view(ndarray)
    return r


def _wrap(fn: Any) -> Any:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        r = fn(*args, **kwargs)
        if isinstance(r, tuple):
            return tuple(_dev(x) for x in r)
        if isinstance(r, list):
            return [_dev(x) for x in r]
        return _dev(r)

    wrapped.__name__ = getattr(fn, "__name__", "fn")
    return wrapped


def asarray(a: Any, dtype: Any = None) -> Any:
    if isinstance(a, ndarray) and (dtype is None or a.dtype == np.dtype(dtype)):
        return a
    return np.array(a, dtype=dtype).view(ndarray)  # host -> device is a copy


def asnumpy(a: Any) -> np.ndarray:
    return np.array(a).view(np.ndarray)


# -- the CUDA-side emulation ---------------------------------------------------------

_CTYPES = {"unsigned short": np.float16, "float": np.float32, "double": np.float64, "bool": np.bool_,
           "long long": np.int64}
_SCALARS = {"int": np.int32, "long long": np.int64, "double": np.float64}


def _signature(code: str, name: str) -> list[tuple[str, bool]]:
    m = re.search(r'extern "C" __global__ void ' + re.escape(name) + r"\((.*?)\)\s*\{", code, re.S)
    if m is None:
        raise AssertionError(f"kernel {name} is not defined in the compiled source")
    acc = re.search(r"typedef (\w+) ACC;", code)
    params = []
    for p in m.group(1).split(","):
        if acc is not None:
            p = re.sub(r"\bACC\b", acc.group(1), p)
        p = " ".join(p.replace("__restrict__", "").replace("const", "").split())
        is_ptr = "*" in p
        ctype = " ".join(p.replace("*", " ").split()[:-1])
        params.append((ctype, is_ptr))
    return params


def _check_args(name: str, params: list[tuple[str, bool]], args: tuple[Any, ...]) -> None:
    assert len(params) == len(args), f"{name}: {len(args)} arguments for {len(params)} parameters"
    for k, ((ctype, is_ptr), a) in enumerate(zip(params, args)):
        if is_ptr:
            assert isinstance(a, np.ndarray), f"{name} arg {k}: expected a device array, got {type(a).__name__}"
            assert isinstance(a, ndarray), f"{name} arg {k}: a host (NumPy) array was passed to a kernel"
            assert a.dtype == np.dtype(_CTYPES[ctype]), f"{name} arg {k}: {ctype}* but array dtype {a.dtype}"
        else:
            want = _SCALARS[ctype]
            assert isinstance(a, want), f"{name} arg {k}: expected {np.dtype(want)} scalar, got {type(a).__name__}"


def _acc(dt: Any) -> Any:
    return np.float64 if np.dtype(dt) == np.float64 else np.float32


def _erf(x: np.ndarray) -> np.ndarray:
    import math

    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x


_UNARY = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs, "sign": np.sign, "sin": np.sin,
    "cos": np.cos, "tanh": np.tanh, "erf": _erf,
    "sigmoid": lambda a: 1 / (1 + np.exp(-a)),
    "relu": lambda a: np.where(a > 0, a, np.zeros_like(a)),
    "gelu": lambda a: (0.5 * a * (1 + _erf(a * a.dtype.type(0.7071067811865476)))).astype(a.dtype),
}
_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "pow": np.power,
           "maximum": np.maximum, "minimum": np.minimum}
_COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
            "ge": np.greater_equal}


def _strided_view(a: np.ndarray, shape: tuple[int, ...], strides: np.ndarray) -> np.ndarray:
    """What a kernel reads from ``a``'s data pointer with these element strides."""
    return np.lib.stride_tricks.as_strided(a, shape=shape, strides=tuple(int(s) * a.itemsize for s in strides))


def _ew(op: str, variant: str, grid: tuple, block: tuple, args: tuple) -> None:
    nin = {"where": 3}.get(op, 1 if op in _UNARY or op == "clip" else 2)
    ins, out, n = list(args[:nin]), args[nin], int(args[nin + 1])
    rest = args[nin + 2:]
    assert out.size == n and out.flags.c_contiguous
    assert grid[0] * block[0] >= 1
    if variant == "contig":
        for a in ins:
            assert a.size == n and a.flags.c_contiguous, "contiguous kernel given a non-contiguous operand"
        views = [a.reshape(out.shape) if a.size else a for a in ins]
    else:
        ndim, meta = int(rest[0]), np.asarray(rest[1])
        rest = rest[2:]
        shape = tuple(int(s) for s in meta[:ndim])
        assert shape == out.shape
        views = [_strided_view(a, shape, meta[(k + 1) * ndim:(k + 2) * ndim]) for k, a in enumerate(ins)]
    if op == "where":
        out[...] = np.where(views[0], views[1], views[2])
        return
    acc = _acc(views[0].dtype)
    vals = [np.asarray(v, dtype=acc) for v in views]
    with np.errstate(all="ignore"):
        if op == "clip":
            lo, hi = float(rest[0]), float(rest[1])
            r = np.minimum(np.maximum(vals[0], acc(lo)), acc(hi))
        elif op in _UNARY:
            r = _UNARY[op](vals[0])
        elif op in _BINARY:
            r = _BINARY[op](vals[0], vals[1])
        else:
            r = _COMPARE[op](vals[0], vals[1])
    out[...] = r


_RED = {"sum": np.sum, "mean": np.sum, "max": np.max, "min": np.min}


def _geometry_ok(grid: tuple, block: tuple, rows: int, cols: int, chunks: int, chunk_len: int) -> None:
    assert grid[0] == rows * chunks, f"grid {grid[0]} != rows * chunks {rows * chunks}"
    assert block[0] >= 32 and block[0] & (block[0] - 1) == 0 and block[0] <= 1024
    assert chunks * chunk_len >= cols and (chunks - 1) * chunk_len < max(cols, 1)


def _reduce(op: str, variant: str, grid: tuple, block: tuple, args: tuple) -> None:
    x, out, aux, rows, cols, chunks, chunk_len, scale = args
    rows, cols, chunks, chunk_len = int(rows), int(cols), int(chunks), int(chunk_len)
    _geometry_ok(grid, block, rows, cols, chunks, chunk_len)
    assert out.size >= rows * chunks
    assert x.flags.c_contiguous and x.size >= rows * cols
    acc = _acc(out.dtype if variant != "partial" else x.dtype)
    xm = np.asarray(x.reshape(-1)[: rows * cols], dtype=acc).reshape(rows, cols)
    flat = out.reshape(-1)
    for row in range(rows):
        for c in range(chunks):
            seg = xm[row, c * chunk_len: min(cols, (c + 1) * chunk_len)]
            if seg.size == 0:
                r = {"max": -np.inf, "min": np.inf}.get(op, 0.0)
            else:
                r = _RED[op](seg)
            if variant != "partial" and op == "mean":
                r = r * acc(scale)
            flat[row * chunks + c] = r


def _lse(variant: str, grid: tuple, block: tuple, args: tuple) -> None:
    """The online log-sum-exp kernels: states (m, s) with s * exp(m) = sum of exp."""
    if variant == "partial":
        x, pm, ps, rows, cols, chunks, chunk_len = args
    elif variant == "final":
        x, out, rows, cols, chunks, chunk_len = args
    else:
        pm_in, ps_in, out, rows, cols, chunks, chunk_len = args
    rows, cols, chunks, chunk_len = int(rows), int(cols), int(chunks), int(chunk_len)
    _geometry_ok(grid, block, rows, cols, chunks, chunk_len)
    for row in range(rows):
        for c in range(chunks):
            lo, hi = c * chunk_len, min(cols, (c + 1) * chunk_len)
            if variant == "combine":
                acc = _acc(out.dtype)
                ms = np.asarray(pm_in.reshape(-1)[row * cols + lo: row * cols + hi], dtype=acc)
                ss = np.asarray(ps_in.reshape(-1)[row * cols + lo: row * cols + hi], dtype=acc)
                m = ms.max() if ms.size else -np.inf
                with np.errstate(all="ignore"):
                    s = np.sum(np.where(ms == -np.inf, 0, ss * np.exp(ms - (m if np.isfinite(m) else 0)))) \
                        if np.isfinite(m) else ss[ms == m].sum() if ms.size else 0.0
            else:
                acc = _acc(x.dtype)
                seg = np.asarray(x.reshape(-1)[row * cols + lo: row * cols + hi], dtype=acc)
                m = seg.max() if seg.size else -np.inf
                with np.errstate(all="ignore"):
                    s = np.exp(seg - m).sum() if np.isfinite(m) else float((seg == m).sum()) if m > 0 else 0.0
            if variant == "partial":
                pm.reshape(-1)[row * chunks + c] = m
                ps.reshape(-1)[row * chunks + c] = s
            else:
                with np.errstate(all="ignore"):
                    out.reshape(-1)[row * chunks + c] = np.log(acc(s)) + acc(m)


def _softmax(kind: str, grid: tuple, block: tuple, args: tuple) -> None:
    if kind == "cross_entropy":
        x, target, out, cols = args
    else:
        x, out, cols = args
    cols = int(cols)
    rows = grid[0]
    assert x.flags.c_contiguous and x.size == rows * cols
    assert block[0] >= 32 and block[0] & (block[0] - 1) == 0
    acc = _acc(x.dtype)
    xm = np.asarray(x, dtype=acc).reshape(rows, cols)
    m = xm.max(axis=1, keepdims=True)
    m = np.where(m == -np.inf, 0, m)
    s = np.exp(xm - m).sum(axis=1, keepdims=True)
    if kind == "softmax":
        out.reshape(rows, cols)[...] = np.exp(xm - m) / s
    elif kind == "log_softmax":
        out.reshape(rows, cols)[...] = xm - (np.log(s) + m)
    else:
        assert target.dtype == np.int64 and target.size == rows
        out[...] = (np.log(s) + m)[:, 0] - xm[np.arange(rows), target]


def _matmul(grid: tuple, block: tuple, args: tuple) -> None:
    A, B, C, M, N, K, sA, sB, sC = args
    M, N, K, sA, sB, sC = int(M), int(N), int(K), int(sA), int(sB), int(sC)
    assert block[:2] == (16, 16)
    assert grid[0] * 16 >= N and grid[1] * 16 >= M, "the grid does not cover C"
    assert A.flags.c_contiguous and B.flags.c_contiguous and C.flags.c_contiguous
    acc = _acc(C.dtype)
    a, b, c = A.reshape(-1), B.reshape(-1), C.reshape(-1)
    for z in range(grid[2]):
        am = np.asarray(a[z * sA: z * sA + M * K], dtype=acc).reshape(M, K)
        bm = np.asarray(b[z * sB: z * sB + K * N], dtype=acc).reshape(K, N)
        c[z * sC: z * sC + M * N] = (am @ bm).reshape(-1)


class _Kernel:
    def __init__(self, code: str, name: str) -> None:
        self.name = name
        self.params = _signature(code, name)

    def __call__(self, grid: tuple, block: tuple, args: tuple) -> None:
        grid = tuple(grid) + (1,) * (3 - len(grid))
        block = tuple(block) + (1,) * (3 - len(block))
        assert all(g >= 1 for g in grid) and 1 <= block[0] * block[1] * block[2] <= 1024
        _check_args(self.name, self.params, args)
        parts = self.name.split("_")
        if parts[1] == "ew":
            _ew("_".join(parts[2:-2]), parts[-1], grid, block, args)
        elif parts[1] == "reduce":
            _reduce("_".join(parts[2:-2]), parts[-1], grid, block, args)
        elif parts[1] == "lse":
            _lse(parts[-1], grid, block, args)
        elif parts[1] == "matmul":
            _matmul(grid, block, args)
        else:
            _softmax("_".join(parts[1:-1]), grid, block, args)


class RawModule:
    def __init__(self, code: str, options: tuple = (), **kw: Any) -> None:
        assert "#include" not in code
        self.code = code

    def get_function(self, name: str) -> _Kernel:
        return _Kernel(self.code, name)


def install() -> None:
    """Put the emulated ``cupy``/``cupyx`` in ``sys.modules``."""
    mod = types.ModuleType("cupy")
    for k in dir(np):
        if k.startswith("_"):
            continue
        v = getattr(np, k)
        mod.__dict__[k] = _wrap(v) if callable(v) and not isinstance(v, type) else v
    mod.ndarray = ndarray
    mod.asarray = asarray
    mod.asnumpy = asnumpy
    mod.RawModule = RawModule
    mod.get_array_module = lambda *a: mod
    mod.__fake__ = True
    cuda = types.SimpleNamespace()
    cuda.runtime = types.SimpleNamespace(getDeviceCount=lambda: 1)

    class Device:
        attributes = {"MultiProcessorCount": 4}

        def synchronize(self) -> None:
            pass

    cuda.Device = Device
    mod.cuda = cuda
    sys.modules["cupy"] = mod

    cupyx = types.ModuleType("cupyx")

    def scatter_add(a: Any, index: Any, v: Any) -> None:
        np.add.at(a, index, v)

    cupyx.scatter_add = scatter_add
    sys.modules["cupyx"] = cupyx
