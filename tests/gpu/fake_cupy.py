"""An emulated CuPy for running the GPU test-suite on a machine without a GPU.

``install()`` puts a fake ``cupy`` (and ``cupyx``) module into ``sys.modules``:
NumPy functions whose array results are ``ndarray`` - a NumPy subclass that
marks "device" arrays - plus ``RawModule``, whose kernels are *emulated* in
NumPy. Each launch is checked against the CUDA source the launcher compiled:

- the ``extern "C"`` signature is parsed from the source, and the number of
  arguments, the dtype behind every pointer and the type of every scalar
  (``int`` = int32, ``long long`` = int64, ``double`` = float64) must match;
- a float16 value is read through ``mg_load`` (``_check_half_reads``): the kernels store float16 as its
  raw bits (``unsigned short``), so a cast ``(ACC)x[i]`` compiles and converts the bit pattern as an
  integer (1.0 reads as 15360.0), which the NumPy emulation below, reading float16 values, cannot show;
- the grid must cover the work (one block per row, tiles covering the matrix...);
- the kernel's effect is computed with NumPy in the kernel's accumulation
  type (float32 for float16/float32, float64 for float64), reading inputs
  through the strides the launcher passed.

The GPU generator's kernels (``mg_philox_*``) are emulated with a NumPy
Philox4x32-10 (``philox4x32_10``, checked against Random123's known-answer
vectors), so the stand-in's draws are the device's words and uniforms; its
normals round ``log``/``cos`` as NumPy's libm does.

The optimizers' multi-tensor kernels (``mg_mt_*``) are emulated like the
elementwise ones, slot by slot; the fused ones (``mg_fused_*``) by minigrad's
CPU kernel of the same name (the optimizer's rule on the arrays, its op steps
computed as the stand-in's GPU op kernels), so the stand-in checks the slots,
sizes and scalars a launch carries, not the CUDA arithmetic of the rule. ``LAUNCHES`` counts every launch by kernel name.

Array semantics follow CuPy where minigrad depends on them, not NumPy's:
``argsort``/``sort`` are stable, as CuPy's radix sort is (NumPy's default is not), ``base`` is CuPy's
(``None`` for an allocation, a copy and an ``as_strided``
result; the root array for a view - the dygraph layer takes an output of a
view op for a view when its ``base`` is set), ``T`` of an array of fewer than 2
dims is the array itself (NumPy's is a view), integer indexing gives a 0-d
view, ``broadcast_to`` is writable, ``swapaxes`` and ``concatenate``
raise where CuPy raises, with CuPy's words, and a ufunc's, ``where``'s and
``concatenate``'s result is row-major whatever its inputs' layout, as CuPy
allocates it (NumPy's follows the inputs: ``cat`` of transposed tensors was
column-major here and row-major on a device).

What this proves: the Python side of the GPU backend - registration, kernel
selection, argument marshalling, shapes, strides, chunked reductions, batched
matmul offsets, fallbacks, backward on the device, which outputs are views.

What it cannot prove:

- that the CUDA C computes what the emulator computes (compiling it with nvcc is
  the other half; ``test_stand_in_agrees.py`` shadows every launch on a device);
- CuPy's semantics this file does not copy: its arrays are NumPy subclasses, so
  ``isinstance(a, numpy.ndarray)`` is True (False for CuPy's: a branch on it takes
  the host's side here) and NumPy's functions compute with them on the host where
  CuPy's ``__array_function__`` would run CuPy's (or refuse one it lacks). NumPy's
  converters are refused as CuPy refuses them: ``np.asarray``/``np.array``/
  ``np.asanyarray``/``np.ascontiguousarray``/``np.asfortranarray`` of a device array
  (or a list holding one) called by the program raise CuPy's ``TypeError``
  (``_refuse_implicit_conversions``), and a NumPy view of device memory that reaches
  ``cupy.asarray``/``cupy.array`` another way raises it there. Every NumPy function
  not listed above keeps NumPy's dtype rules, error classes and words, and
  read-only views (CuPy has none);
- memory: device and host are one address space here, so a pointer mix-up
  (a host array given to a kernel that was not checked, a view read past its
  allocation) passes; aliasing comes from NumPy's views, not from a memory pool
  that reuses freed blocks; out-of-memory never happens. The default memory pool
  (``get_default_memory_pool``, ``POOL``) counts the bytes of live allocations, rounded up to
  512 as CuPy's pool rounds them, keeps freed bytes cached until ``free_all_blocks``, and calls
  CuPy's memory hooks (``cuda.MemoryHook``: ``malloc_*``, ``free_*``, ``alloc_*``), so
  ``mg.cuda``'s memory statistics run here; it has no blocks, so which block is reused, splitting
  and fragmentation are not shown, and an allocation is freed when Python frees its NumPy memory
  (CuPy's too, by reference count). ``runtime.memGetInfo`` and ``getDeviceProperties``
  (``DEVICE_PROPERTIES``) describe a made-up 16 GiB device;
- time: a launch runs at once, in order, on the host - there is no asynchronous
  stream, so a missing sync (a result read before its kernel ran), a race
  between streams or a copy that waits for the stream cannot show here, and
  no timing taken here says anything about a device (``cuda.Event`` records the host's clock, so the
  benchmarks run here; ``runtime.memcpyAsync``, device to device only, moves the bytes at once);
  an event's or stream's ``done`` (``query()``) is always True and ``wait_event`` does nothing, so an
  ordering between streams or an ``elapsed_time`` of work not yet finished cannot be shown; NVTX
  ranges and marks are logged (``NVTX``), not sent to a profiler;
- numerics of the device's own libraries (cuBLAS, CUB reductions, CuPy's
  ufuncs): NumPy computes them, with NumPy's rounding;
- where nvcc fuses a multiply and an add: a kernel is emulated by its op's CPU kernel,
  which rounds where PyTorch's CPU kernel rounds. The few ops whose CUDA kernels PyTorch
  writes in another order (``addcmul``: ``a + value * (b * c)``; ``addcdiv``: ``a + value *
  (b / c)``, one fused multiply-add each; ``div`` by a number: a multiplication by its
  reciprocal) have their CUDA form here (``_CUDA_FORMS``, the ``div`` branches of ``_ew``
  and ``_mt``), read from PyTorch's source; only a device with PyTorch CUDA checks it
  (``test_addcmul_and_addcdiv_round_as_pytorch_cudas_kernels``,
  ``test_each_form_gives_pytorch_cudas_for_loop_bit_for_bit``);
- the device's float16 conversions: the emulation reads a float16 with NumPy, which keeps a NaN's sign,
  where PTX's ``cvt.f32.f16`` gave a -nan half the positive NaN (``signbit`` of a float16 -nan was False
  on an H200; ``mg_h2f`` now puts the sign bit back). Which instruction the C uses is not emulated - the
  emulation follows the op, not the source - so only ``test_tests_of_special_values_run_on_the_gpu`` on a
  device checks it.

It also counts what a program asks of the device (``Counts``: host <-> device
copies, syncs, kernel launches, device-to-device copies; ``counts()``, ``reset_counts()``), so every
machine can check that a training step copies nothing and waits for nothing.
What the counts cannot prove: that real CuPy launches exactly that many kernels
(a CuPy function may launch two, a fill of zeros is a memset), and they miss
a NumPy function other than the converters computing on a device array on the
host; the stand-in does raise CuPy's ``TypeError`` (``Unsupported type <class 'numpy.ndarray'>``)
for a host array, a 0-d one too, given to a device ufunc, an operator or ``cupy.where`` (CuPy wraps
every operand of an elementwise kernel that is no device array as a scalar, ``CScalar``, which
refuses it), and CuPy's ``ValueError`` for a host array of one or more dims written through a basic
index (``a[1:] = host``: CuPy's ``fill``); it counts a host index array in ``a[idx]``, ``a[idx] = v``
and ``cupyx.scatter_add``, and a host value written through an index array, as the upload CuPy makes of it.
``cupyx.scatter_add`` of floats applies its writes last first: an atomic add promises no order, and a float sum
that depends on it differs from the CPU's there as it may on a device (run to run, which no stand-in shows; the
deterministic mode's ordered scatters, ``kernels/gpu/ordered.py``, are what give the CPU's order back).
``linalg.inv``/``solve``/``det``/``slogdet`` are the device's LU (``_getrf``/``_getrs``), not NumPy's: CuPy
leaves cuSOLVER's status unread, so a zero pivot gives inf and NaN, no error (NumPy raises ``LinAlgError``);
the matrix factored is the one CuPy hands cuSOLVER - ``det``/``slogdet`` and a stack's ``inv`` factor each
``A^T`` (CuPy's C-ordered copy read as column-major), ``solve`` and an F-ordered matrix's ``inv`` ``A`` -; the
trailing update is fused (``fma``: an exactly singular matrix may get a pivot of ``eps`` and a determinant of
``1e-16``, as the device did), and a NaN of the column being eliminated reads as 0, as cuSOLVER's does (no
NaN from NaN input). Their last bits, and the order of the triangle solves' sums, may still differ from
the device's. ``linalg.svd``/``eigh``/``pinv`` of a matrix holding NaN return NaN instead of raising, and
``linalg.cholesky`` of a matrix that is not positive-definite returns the factor as far as it got (LAPACK's
``potf2``: the failed minor's non-positive value on the diagonal) instead of raising. The stand-in's
``linalg`` has the functions of CuPy's that minigrad calls (``inv``, ``solve``, ``det``, ``cholesky``,
``qr``, ``svd``, ``eigh``, ``slogdet``, ``pinv``; the others NumPy's, batched as CuPy's are).
cuBLAS's GEMM as ``gemm.py`` calls it (``cuda.cublas.sgemm``/``dgemm`` and their strided-batched forms, the
handle from ``cuda.device.get_cublas_handle``) is emulated from the pointers, leading dimensions and batch
strides it is given - device memory is host memory here - with cuBLAS's checks of the leading dimensions and
of the handle's pointer mode; its sum order is NumPy's, not cuBLAS's.
A CuPy call whose result's size depends on the values reads that size back, unseen, and so does
the stand-in: ``nonzero``/``argwhere``/``flatnonzero``/``unique``/``bincount``/``compress``/``extract``
of a device array and a read or write through a boolean mask count a device -> host copy and a sync.
Out-of-range indices wrap and out-of-range class targets give NaN, as a device
raises nothing there either (checks are the launcher's).
``cupyx.scatter_max``/``scatter_min`` are CuPy's, not NumPy's ``maximum.at``: the dtypes CuPy's atomics lack
(float16, bool...) are refused with its ``TypeError``, and floats compare as CuPy's own ``atomicMax`` of float
and double do, with ``fmaxf``/``fminf`` (cupy/_core/include/cupy/atomics.cuh): a NaN loses to a number, and a
float64 an update reached is stored rounded to float32.

Used by ``tests/gpu/conftest.py`` when ``MINIGRAD_FAKE_CUPY=1``.
"""

from __future__ import annotations

import atexit
import ctypes
import re
import sys
import threading
import time
import types
import weakref
from typing import Any

import numpy as np


# -- counting: copies, syncs and launches ------------------------------------------------------


class Counts:
    """What the program asked of the emulated device since the last ``reset_counts()``.

    - ``h2d``/``h2d_bytes``: host -> device copies (``cupy.asarray``/``array`` of host data, Python
      and NumPy scalars included - a 0-d upload is a copy -, ``ndarray.set``, a host array assigned
      into a device array);
    - ``d2h``/``d2h_bytes``: device -> host copies (``.get()``, ``cupy.asnumpy``, ``.item()``,
      ``.tolist()``, ``int()``/``float()``/``bool()``/``operator.index()`` of a device array);
    - ``syncs``: waits of the host for the device: ``Device.synchronize``, ``Stream.synchronize``,
      every device -> host copy above (CuPy's ``get``/``asnumpy`` block by default) and every
      host -> device copy, because CuPy copies from pageable NumPy memory and CUDA waits for the
      stream before such a copy starts (cudaMemcpyAsync from pageable host memory);
    - ``launches``: kernels queued: every ``RawModule`` kernel call, every ufunc call on a device
      array (CuPy's elementwise and reduction kernels; ``matmul`` is cuBLAS's), and every other
      CuPy function or method that computes a new array (``copy``, ``astype``, ``concatenate``,
      ``zeros`` / ``full`` (a fill), advanced indexing, ``__setitem__``...); views and ``empty`` launch nothing.

    ``log`` keeps the last copies and syncs, each ``(what, detail)``, to say where they came from.
    """

    __slots__ = ("h2d", "h2d_bytes", "d2h", "d2h_bytes", "syncs", "launches", "d2d", "log")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.h2d = self.h2d_bytes = self.d2h = self.d2h_bytes = self.syncs = self.launches = self.d2d = 0
        self.log: list[tuple[str, str]] = []

    def as_dict(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in self.__slots__ if k != "log"}

    def note(self, what: str, detail: str) -> None:
        if len(self.log) < 1000:
            self.log.append((what, f"{detail} at {_caller()}"))


def _caller() -> str:
    """``file:line (function)`` of the first frame outside the stand-in and NumPy."""
    f = sys._getframe(2)
    while f is not None and (f.f_code.co_filename == __file__ or "/numpy/" in f.f_code.co_filename):
        f = f.f_back
    if f is None:
        return "?"
    name = f.f_code.co_filename
    return f"{name[name.find('minigrad'):] if 'minigrad' in name else name}:{f.f_lineno} ({f.f_code.co_name})"


COUNTS = Counts()
#: > 0 while the emulator itself computes (its NumPy work on device arrays is not the program's)
_quiet = 0


def installed() -> types.ModuleType | None:
    """This module while it stands in for CuPy (``install()`` ran in this process), else ``None``: where
    the copies, syncs and launches are counted."""
    cupy = sys.modules.get("cupy")
    return sys.modules[__name__] if cupy is not None and getattr(cupy, "__fake__", False) else None


def reset_counts() -> None:
    """Zero the counters (``COUNTS``)."""
    COUNTS.reset()


def counts() -> dict[str, int]:
    """The counters as a dict: h2d, h2d_bytes, d2h, d2h_bytes, syncs, launches, d2d (device-to-device copies:
    no kernel, no sync)."""
    return COUNTS.as_dict()


def _h2d(nbytes: int, what: str, waits: bool = True) -> None:
    if _quiet:
        return
    COUNTS.h2d += 1
    COUNTS.h2d_bytes += int(nbytes)
    if waits:
        COUNTS.syncs += 1  # from pageable memory: CUDA waits for the stream first
    COUNTS.note("h2d", what)


class PinnedMemoryPointer(bytearray):
    """Page-locked host memory (CuPy's ``cupy.cuda.PinnedMemoryPointer``): the buffer behind the NumPy array
    ``cupyx.empty_pinned`` returns, so ``array.base`` tells a pinned array."""


def empty_pinned(shape: Any, dtype: Any = float, order: str = "C") -> np.ndarray:
    """``cupyx.empty_pinned``: a NumPy array over page-locked host memory."""
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    dt = np.dtype(dtype)
    mem = PinnedMemoryPointer(max(1, int(np.prod(shape)) * dt.itemsize))
    return np.ndarray(shape, dtype=dt, buffer=mem, order=order)


def _d2h(nbytes: int, what: str) -> None:
    if _quiet:
        return
    COUNTS.d2h += 1
    COUNTS.d2h_bytes += int(nbytes)
    COUNTS.syncs += 1  # a blocking copy: the host waits for the queued work
    COUNTS.note("d2h", what)


def _sync(what: str) -> None:
    COUNTS.syncs += 1
    COUNTS.note("sync", what)


def _launch(n: int = 1) -> None:
    if not _quiet:
        COUNTS.launches += n


class _Quiet:
    def __enter__(self) -> None:
        global _quiet
        _quiet += 1

    def __exit__(self, *exc: Any) -> None:
        global _quiet
        _quiet -= 1


def _host(a: Any) -> Any:
    return a.view(np.ndarray) if isinstance(a, ndarray) else a


def _shares(r: Any, args: tuple[Any, ...]) -> bool:
    """Whether ``r`` is a view of one of the device arrays in ``args`` (then nothing was launched)."""
    if not isinstance(r, np.ndarray) or np.ndarray.base.__get__(r) is None:  # NumPy's base: any view
        return False
    return any(isinstance(a, np.ndarray) and np.may_share_memory(r, a) for a in args)


def _wrapped_index(shape: tuple[int, ...], index: Any) -> Any:
    """CuPy's advanced indexing checks no bounds (that would wait for the device): an out-of-range integer
    index wraps around. Emulated for indexes whose every item takes one dimension."""
    items = index if isinstance(index, tuple) else (index,)
    if not any(isinstance(i, np.ndarray) and i.dtype.kind in "iu" for i in items):
        return index
    if len(items) > len(shape) or not all(
            isinstance(i, (int, np.integer, slice)) or isinstance(i, np.ndarray) and i.dtype.kind in "iu" for i in items):
        return index
    fixed = tuple(np.mod(_host(i), shape[k]) if isinstance(i, np.ndarray) and shape[k] else i
                  for k, i in enumerate(items))
    return fixed if isinstance(index, tuple) else fixed[0]


def _upload_host_indices(index: Any, where: str) -> None:
    """CuPy takes a host (NumPy) array in an index and copies it to the device first
    (cupy/_core/_routines_indexing.pyx converts each array item with ``asarray``): a copy, and a sync."""
    for i in index if isinstance(index, tuple) else (index,):
        if isinstance(i, np.ndarray) and not isinstance(i, ndarray) and i.ndim:
            _h2d(i.nbytes, f"{where} with a host index array")


def _basic(index: Any) -> bool:
    """Whether CuPy takes ``index`` for a basic one (ints, slices, ``None``, ``...``): its
    ``_prepare_slice_list`` makes an array of every other item, a bool and a 0-d NumPy array too."""
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (slice, int, np.integer)) and not isinstance(i, bool)
               for i in items)


def _read_count_for_mask(index: Any, where: str) -> None:
    """CuPy sizes a boolean mask's gather, and checks its assignment, with the number of True elements: it
    reads the last element of the mask's running sum back to the host (``_prepare_mask_indexing_single`` in
    cupy/_core/_routines_indexing.pyx), a copy and a sync, in a read and in a write alike."""
    for i in index if isinstance(index, tuple) else (index,):
        if isinstance(i, np.ndarray) and i.dtype == np.bool_ and i.ndim and i.size:
            _d2h(4, f"{where} with a boolean mask (CuPy reads its number of True elements)")


#: CuPy functions whose result's size depends on the values: each reads a count (or the maximum) back to the
#: host first, a copy and a sync (``nonzero``'s scan, ``unique``'s number of distinct values, ``bincount``'s
#: ``int(x.max())``)
_READS_A_COUNT = {"nonzero", "argwhere", "flatnonzero", "unique", "bincount", "compress", "extract"}


class ndarray(np.ndarray):
    """An array on the emulated device, with CuPy's ``base`` (see ``base``); it counts what real CuPy
    would copy, sync and launch (see ``Counts``)."""

    @property
    def data(self) -> Any:  # CuPy's ``a.data.ptr``: the device address
        return types.SimpleNamespace(ptr=self.ctypes.data)

    # CuPy's ufuncs and reductions: one kernel each; results stay on the device (a full reduction is a
    # 0-d device array, never a host scalar, as in CuPy).
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_host(o) for o in out)
        if not _quiet:
            for a in inputs:
                if isinstance(a, np.ndarray) and not isinstance(a, ndarray):
                    # CuPy: "Unsupported type <class 'numpy.ndarray'>"
                    raise TypeError(f"Unsupported type {type(a)}")
            _launch()
        r = getattr(ufunc, method)(*(_host(a) for a in inputs), **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        if isinstance(r, tuple):
            return tuple(_dev(_row_major(x)) for x in r)
        return _dev(_row_major(r))

    def get(self, stream: Any = None, order: str = "C", out: Any = None, blocking: bool = True) -> np.ndarray:
        _d2h(self.nbytes, "ndarray.get")
        return np.array(_host(self), order=order)

    def set(self, arr: Any, stream: Any = None) -> None:
        if stream is not None and isinstance(getattr(arr, "base", None), PinnedMemoryPointer):
            # from page-locked memory on a stream: CUDA copies asynchronously, the host does not wait
            _h2d(np.asarray(arr).nbytes, "ndarray.set from pinned memory", waits=False)
        else:
            _h2d(np.asarray(arr).nbytes, "ndarray.set")
        np.copyto(_host(self), arr)

    def item(self, *args: Any) -> Any:
        _d2h(self.itemsize, "ndarray.item")
        return _host(self).item(*args)

    def tolist(self) -> Any:
        _d2h(self.nbytes, "ndarray.tolist")
        return _host(self).tolist()

    def __bool__(self) -> bool:
        _d2h(self.itemsize, "bool(ndarray)")
        return bool(_host(self))

    def __int__(self) -> int:
        _d2h(self.itemsize, "int(ndarray)")
        return int(_host(self))

    def __float__(self) -> float:
        _d2h(self.itemsize, "float(ndarray)")
        return float(_host(self))

    def __index__(self) -> int:
        _d2h(self.itemsize, "operator.index(ndarray)")
        return _host(self).__index__()

    def astype(self, dtype: Any, order: str = "K", casting: Any = None, subok: Any = None, copy: bool = True) -> Any:
        r = _host(self).astype(dtype, order=order, copy=copy)
        if r is not _host(self) and not np.may_share_memory(r, self):
            _launch()
        return _dev(r)

    def copy(self, order: str = "C") -> Any:
        _launch()
        return _dev(_host(self).copy(order=order))

    def fill(self, value: Any) -> None:
        _launch()
        _host(self).fill(value)

    def __setitem__(self, index: Any, value: Any) -> None:
        host_value = isinstance(value, np.ndarray) and not isinstance(value, ndarray)
        if host_value and value.ndim and _basic(index) and not _quiet and _from_outside(sys._getframe(1)):
            # CuPy writes through a basic index with ``fill`` unless the value is a device array
            # (``_scatter_op`` in cupy/_core/_routines_indexing.pyx, "Refuse assignment from CPU arrays")
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        if host_value and value.size:
            _h2d(value.nbytes, "ndarray.__setitem__ of a host array")
        _upload_host_indices(index, "ndarray.__setitem__")
        _read_count_for_mask(index, "ndarray.__setitem__")
        _launch()
        np.ndarray.__setitem__(self, _wrapped_index(self.shape, index), value)  # CuPy wraps, as in a get

    @property
    def base(self) -> Any:
        """CuPy's ``base``: ``None`` for an array that holds its own memory pointer - every allocation,
        every copy, and the result of ``as_strided`` (cupy/lib/stride_tricks.py builds
        ``ndarray(memptr=x.data, strides=...)``, a new array over ``x``'s memory whose ``base`` is
        ``None``) - else the array a view was taken from, collapsed to its root
        (cupy/_core/core.pyx ``_view``: ``self.base if self.base is not None else self``).

        NumPy's own ``base`` differs: it points into its private temporaries (the copy a reshape
        makes) and is set for every ``as_strided`` result, which is how this stand-in once passed
        tests that failed on the device.
        """
        marked = self.__dict__.get("_cupy_base", _UNMARKED)
        if marked is not _UNMARKED:
            return marked
        b = np.ndarray.base.__get__(self)
        if b is None or isinstance(b, ndarray):
            return None if b is None else _root(b)
        # NumPy went through host arrays (a NumPy result wrapped as a device array, squeeze's
        # intermediate view): the device array first made over that memory is the root
        root = _root_of_memory(_allocation(self))
        return None if root is None or root is self else root

    def __array_finalize__(self, obj: Any) -> None:
        if obj is not None and not isinstance(obj, ndarray):  # a host array viewed as a device array
            _remember_root(self)
        POOL.track(self)  # a new allocation is counted by the memory pool (its views are not)

    # A reshape (or ravel) CuPy can't make a view of copies the array first with its elementwise copy
    # kernel (``_reshape`` in cupy/_core/_routines_manipulation.pyx): a launch; ``flatten`` always copies.
    def reshape(self, *shape: Any, **kw: Any) -> Any:
        return _counted_copy(_copy_owns(super().reshape(*shape, **kw), self), self)

    def ravel(self, order: str = "C") -> Any:
        return _counted_copy(_copy_owns(super().ravel(order), self), self)

    def flatten(self, order: str = "C") -> Any:
        return _counted_copy(_owner(np.array(_host(self).flatten(order))), self)

    def __getitem__(self, index: Any) -> Any:
        items = index if isinstance(index, tuple) else (index,)
        # An array in the index, 0-d too, is advanced indexing in CuPy: a gather kernel and a new array
        # (NumPy takes a 0-d integer array for an integer, and would give a view).
        advanced = any(isinstance(i, np.ndarray) for i in items)
        _upload_host_indices(index, "ndarray.__getitem__")
        _read_count_for_mask(index, "ndarray.__getitem__")
        index = _wrapped_index(self.shape, index)
        r = np.ndarray.__getitem__(self, index)
        if isinstance(r, np.generic) and advanced:
            _launch()
            return _owner(np.array(r))
        if isinstance(r, np.generic):  # CuPy's integer indexing gives a 0-d view, NumPy's a scalar
            r = np.ndarray.__getitem__(self, (*index, Ellipsis) if isinstance(index, tuple) else (index, Ellipsis))
        elif not _shares(r, (self,)):
            _launch()  # advanced indexing: a gather kernel, into a new row-major array (NumPy's may follow the index's
            if r.ndim > 1 and not r.flags.c_contiguous:  # layout: a gather of a transposed index came out
                r = _owner(np.ascontiguousarray(_host(r)))  # column-major here, row-major on a device)
        return _copy_owns(r, self)

    def argsort(self, axis: int = -1, kind: Any = None) -> Any:  # stable, as CuPy's radix sort
        _launch()
        return _dev(np.argsort(_host(self), axis=axis, kind="stable"))

    @property
    def T(self) -> Any:
        """CuPy's ``T`` (cupy/_core/core.pyx): ``if self.ndim < 2: return self``, the array itself (NumPy's is
        a new view); of 2 or more dims a view (``_manipulation._T``: ``self.view()``, shape and strides
        reversed)."""
        return self if self.ndim < 2 else np.ndarray.T.__get__(self)

    def swapaxes(self, axis1: int, axis2: int) -> Any:
        ndim = self.ndim  # cupy/_core/_routines_manipulation.pyx ``_ndarray_swapaxes``
        if not (-ndim <= axis1 < ndim and -ndim <= axis2 < ndim):
            raise ValueError("Axis out of range")
        return super().swapaxes(axis1, axis2)


_UNMARKED = object()


def _root(a: ndarray) -> ndarray:
    """What CuPy's ``base`` of a view of ``a`` is."""
    return a.base if a.base is not None else a


def _owner(a: np.ndarray) -> ndarray:
    """``a`` as a device array that holds its own memory (``base`` None)."""
    out = a if isinstance(a, ndarray) else a.view(ndarray)
    out.__dict__["_cupy_base"] = None
    return out


def _counted_copy(r: Any, src: ndarray) -> Any:
    """``r``, a result of ``src``'s reshape, ravel or flatten: a launch counted when it is a copy (CuPy's copy
    kernel), none when it is a view of ``src``'s memory."""
    if not _quiet and isinstance(r, ndarray) and r.size and _allocation(r) is not _allocation(src):
        _launch()
    return r


def _copy_owns(r: Any, src: ndarray) -> Any:
    """A result of ``src``'s method: CuPy's copy owns its memory, where NumPy's may be a view of a
    temporary (then it is copied once more, so that views of it have it as their base)."""
    if isinstance(r, ndarray) and _allocation(r) is not _allocation(src):
        # (the second copy is the stand-in's own: no launch of CuPy's)
        return _owner(np.array(_host(r), copy=True)) if np.ndarray.base.__get__(r) is not None else r
    return r


#: id(memory) -> (weakref to the memory, weakref to the device array first made over it)
_ROOTS: dict[int, tuple[Any, Any]] = {}


def _remember_root(a: ndarray) -> None:
    memory = _allocation(a)
    if memory is a or _root_of_memory(memory) is not None:
        return
    try:
        _ROOTS[id(memory)] = (weakref.ref(memory), weakref.ref(a))
    except TypeError:  # memory that takes no weak reference: no root remembered
        pass


def _root_of_memory(memory: Any) -> Any:
    if isinstance(memory, ndarray):  # a device array that owns its memory
        return memory
    entry = _ROOTS.get(id(memory))
    if entry is None or entry[0]() is not memory:
        return None
    return entry[1]()


# -- the memory pool: CuPy's default pool, counting the stand-in's device allocations ---------------

_UNIT = 512  # CuPy rounds every allocation up to a multiple of 512 bytes (cupy/cuda/memory.pyx)
_HOOKS = threading.local()


def _hooks() -> dict[str, Any]:
    """The memory hooks installed in this thread (CuPy keeps them per thread too)."""
    hooks = getattr(_HOOKS, "hooks", None)
    if hooks is None:
        hooks = _HOOKS.hooks = {}
    return hooks


def _call_hooks(method: str, **kw: Any) -> None:
    for hook in list(_hooks().values()):
        getattr(hook, method)(**kw)


class MemoryHook:
    """``cupy.cuda.MemoryHook``: a subclass, entered (``with hook:`` or ``hook.__enter__()``), hears the default
    pool's ``malloc_*`` (an array allocated), ``free_*`` (its block given back to the pool) and ``alloc_*``
    (the pool growing), with CuPy's keyword arguments."""

    name = "MemoryHook"

    def __enter__(self) -> MemoryHook:
        hooks = _hooks()
        if self.name in hooks:
            raise RuntimeError(f"MemoryHook {self.name} already exists")
        hooks[self.name] = self
        return self

    def __exit__(self, *exc: Any) -> None:
        del _hooks()[self.name]

    def alloc_preprocess(self, **kw: Any) -> None: ...
    def alloc_postprocess(self, **kw: Any) -> None: ...
    def malloc_preprocess(self, **kw: Any) -> None: ...
    def malloc_postprocess(self, **kw: Any) -> None: ...
    def free_preprocess(self, **kw: Any) -> None: ...
    def free_postprocess(self, **kw: Any) -> None: ...


class MemoryPool:
    """``cupy.get_default_memory_pool()``: the bytes of the live stand-in device allocations - an array that
    holds its own memory, not its views, rounded up to 512 bytes as CuPy's pool rounds them; an allocation is
    freed when the last array over its memory goes. Freed bytes stay cached (``free_bytes``) until
    ``free_all_blocks``, and a new allocation takes cached bytes before the pool grows. It models the
    counts, not CuPy's blocks: which cached block is reused (and its splitting) is not emulated."""

    def __init__(self) -> None:
        self._live: dict[int, tuple[Any, int]] = {}  # id(memory) -> (weak reference to it, bytes)
        self._used = self._cached = 0
        self._closed = False  # at exit: arrays freed while the interpreter shuts down call no hooks
        #: whether new allocations are counted: ``bench/host_profile.py`` turns it off, so that what it times
        #: of a call on the stand-in is minigrad's own host time, not the stand-in's bookkeeping
        self.active = True
        atexit.register(self._close)

    def _close(self) -> None:
        self._closed = True

    def track(self, a: np.ndarray) -> None:
        """A device array was made (``ndarray.__array_finalize__``): count its memory if it is new."""
        if not self.active:
            return
        memory = _allocation(a)
        if not isinstance(memory, np.ndarray):
            return
        key = id(memory)
        entry = self._live.get(key)
        if entry is not None and entry[0]() is memory:
            return
        size = -(-memory.nbytes // _UNIT) * _UNIT
        if not size:  # CuPy allocates nothing for an empty array
            return
        hooked = bool(getattr(_HOOKS, "hooks", None))  # (no hook: no keyword arguments built for none)
        if hooked:
            _call_hooks("malloc_preprocess", device_id=0, size=memory.nbytes, mem_size=size)
        grow = max(0, size - self._cached)
        if grow and hooked:
            _call_hooks("alloc_preprocess", device_id=0, mem_size=grow)
        self._cached -= size - grow
        self._used += size
        self._live[key] = (weakref.ref(memory, lambda _ref, key=key: self._free(key)), size)
        if hooked:
            if grow:
                _call_hooks("alloc_postprocess", device_id=0, mem_size=grow, mem_ptr=memory.ctypes.data)
            _call_hooks("malloc_postprocess", device_id=0, size=memory.nbytes, mem_size=size,
                        mem_ptr=memory.ctypes.data, pmem_id=key)

    def _free(self, key: int) -> None:
        entry = self._live.pop(key, None)
        if entry is None or self._closed:
            return
        size = entry[1]
        hooked = bool(getattr(_HOOKS, "hooks", None))
        if hooked:
            _call_hooks("free_preprocess", device_id=0, mem_size=size, ptr=0, pmem_id=key)
        self._used -= size
        self._cached += size
        if hooked:
            _call_hooks("free_postprocess", device_id=0, mem_size=size, ptr=0, pmem_id=key)

    def used_bytes(self) -> int:
        return self._used

    def free_bytes(self) -> int:
        return self._cached

    def total_bytes(self) -> int:
        return self._used + self._cached

    def free_all_blocks(self, stream: Any = None) -> None:
        self._cached = 0

    def n_free_blocks(self) -> int:
        return 1 if self._cached else 0


POOL = MemoryPool()
#: the stand-in device's memory, as ``runtime.memGetInfo`` and ``getDeviceProperties`` report it
DEVICE_MEMORY = 16 * 1024 ** 3
#: what the stand-in's ``runtime.getDeviceProperties(0)`` returns (CuPy's keys; a made-up device, sm_80-like)
DEVICE_PROPERTIES = {
    "name": b"minigrad stand-in GPU (fake_cupy)", "totalGlobalMem": DEVICE_MEMORY, "major": 8, "minor": 0,
    "multiProcessorCount": 4, "l2CacheSize": 4 * 1024 * 1024, "maxThreadsPerMultiProcessor": 2048, "warpSize": 32,
    "integrated": 0, "isMultiGpuBoard": 0, "pciBusID": 0, "pciDeviceID": 0, "pciDomainID": 0,
    "uuid": bytes(range(16)),
}
#: the NVTX calls made, in order: ``("push", message)``, ``("pop", None)``, ``("mark", message)``
NVTX: list[tuple[str, Any]] = []


def _row_major(r: Any) -> Any:
    """A new array laid out as CuPy lays out a kernel's output: row-major (its ufuncs, ``where`` and
    ``concatenate`` allocate the result with ``_ndarray_init``; NumPy's follow the inputs' order)."""
    if isinstance(r, np.ndarray) and r.ndim > 1 and not r.flags.c_contiguous:
        return np.ascontiguousarray(r)
    return r


def _dev(r: Any, inputs: tuple = ()) -> Any:
    """A NumPy function's result as a device array, with CuPy's ``base``: a view of a device input
    (NumPy returns some as plain arrays, ``broadcast_to``'s) has that input's root as its base; a new
    array owns its memory."""
    if isinstance(r, ndarray):
        return r
    if isinstance(r, np.ndarray):
        memory = _allocation(r)
        src = next((a for a in inputs if _allocation(a) is memory), None)
        if src is None:
            return _owner(r)
        out = r.view(ndarray)
        out.__dict__["_cupy_base"] = _root(src)
        return out
    if isinstance(r, np.generic):
        return _owner(np.asarray(r))
    return r


def _allocation(a: Any) -> Any:
    """The object that holds ``a``'s memory, at the end of NumPy's chain of bases (an empty view too,
    which ``may_share_memory`` would not tell from a new array)."""
    while True:
        b = np.ndarray.base.__get__(a) if isinstance(a, np.ndarray) else getattr(a, "base", None)
        if b is None:
            return a
        a = b


def _device_inputs(args: tuple, kwargs: dict) -> tuple:
    found = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, ndarray):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found.extend(x for x in a if isinstance(x, ndarray))
    return tuple(found)


#: CuPy functions that allocate without a kernel, or only describe arrays
_NO_LAUNCH = {"empty", "empty_like", "shape", "ndim", "size", "result_type", "can_cast", "broadcast_shapes",
              "may_share_memory", "shares_memory", "iinfo", "finfo", "dtype", "promote_types", "isscalar"}
#: CuPy functions that make a device array from host data: a host -> device copy
_FROM_HOST = {"array", "asarray", "asanyarray", "ascontiguousarray"}


#: CuPy functions that are elementwise kernels besides the ufuncs (``where`` calls ``_where_ufunc``)
_ELEMENTWISE = frozenset({"where"})


def _refuse_host_operands(args: tuple, kwargs: dict) -> None:
    """CuPy's ufuncs and elementwise kernels take device arrays and scalars only: every other operand is
    wrapped as a scalar (``_preprocess_arg`` in cupy/_core/_kernel.pyx -> ``CScalar``), which refuses a
    NumPy array, a 0-d one too, or a list with ``TypeError: Unsupported type <class 'numpy.ndarray'>``
    (cupy/_core/_scalar.pyx) - no upload."""
    out = kwargs.get("out")
    for a in (*args, *(out if isinstance(out, tuple) else (out,))):
        if a is None or isinstance(a, (ndarray, bool, int, float, complex, np.generic)):
            continue
        raise TypeError(f"Unsupported type {type(a)}")


def _wrap(fn: Any) -> Any:
    name = getattr(fn, "__name__", "fn")
    elementwise = isinstance(fn, np.ufunc) or name in _ELEMENTWISE

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if name in _FROM_HOST and args and not isinstance(args[0], ndarray):
            return asarray(*args, **kwargs) if name != "array" else _array(*args, **kwargs)
        if elementwise and not _quiet:
            _refuse_host_operands(args, kwargs)
        if name in _READS_A_COUNT and _device_inputs(args, kwargs):
            _d2h(8, f"cupy.{name} (reads the size of its result back)")
        with _Quiet():
            r = fn(*args, **kwargs)
            if name in _ROW_MAJOR:
                r = _row_major(r)
        inputs = _device_inputs(args, kwargs)
        devs = tuple(a for a in args if isinstance(a, np.ndarray))
        if isinstance(r, np.ndarray) and name not in _NO_LAUNCH and not _shares(r, devs):
            _launch()
        elif isinstance(r, (tuple, list)) and any(isinstance(x, np.ndarray) and not _shares(x, devs) for x in r):
            _launch()
        if isinstance(r, tuple):
            return tuple(_dev(x, inputs) for x in r)
        if isinstance(r, list):
            return [_dev(x, inputs) for x in r]
        return _dev(r, inputs)

    wrapped.__name__ = getattr(fn, "__name__", "fn")
    return wrapped


def as_strided(x: ndarray, shape: Any = None, strides: Any = None) -> ndarray:
    """CuPy's ``as_strided``: a new array over ``x``'s memory, whose ``base`` is ``None``."""
    return _owner(np.lib.stride_tricks.as_strided(x, shape, strides))


def broadcast_to(a: ndarray, shape: Any) -> ndarray:
    """CuPy's ``broadcast_to``: a view of ``a`` - writable, as every CuPy array (NumPy's is read-only)."""
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    np.broadcast_shapes(a.shape, shape)  # NumPy's refusal of shapes that do not broadcast
    lead = len(shape) - a.ndim
    strides = (0,) * lead + tuple(0 if n != s else st for n, s, st in zip(a.shape, shape[lead:], a.strides))
    out = np.lib.stride_tricks.as_strided(a, shape, strides).view(ndarray)
    out.__dict__["_cupy_base"] = _root(a)
    return out


def swapaxes(a: ndarray, axis1: int, axis2: int) -> ndarray:
    return a.swapaxes(axis1, axis2)


#: CuPy functions whose result is a new row-major array whatever the inputs' layout (``_row_major``)
_ROW_MAJOR = frozenset({"where", "concatenate", "stack"})


def concatenate(arrays: Any, axis: int = 0, **kw: Any) -> ndarray:
    if len({a.ndim for a in arrays}) > 1:  # cupy/_manipulation/join.py (``_concatenate``)
        raise ValueError("All arrays to concatenate must have the same ndim")
    return _wrap(np.concatenate)(arrays, axis=axis, **kw)


def _device_memory_behind(a: Any) -> bool:
    """Whether ``a`` is NumPy's view of a device array (``np.asarray(device_array)``, which works here)."""
    return isinstance(a, np.ndarray) and _root_of_memory(_allocation(a)) is not None


def _upload(a: Any, dtype: Any, what: str, order: str = "K") -> Any:
    if _device_memory_behind(a):
        # Real CuPy refused earlier, at the conversion to NumPy (a cupy.ndarray is no numpy.ndarray, and
        # np.asarray of one raises this); here the NumPy view of device memory is caught when it comes back.
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a "
                        "NumPy array explicitly.")
    host = np.array(a, dtype=dtype, order=order)
    _h2d(host.nbytes, what)  # a Python or NumPy scalar too: a 0-d array uploaded
    return _owner(host)  # a new allocation on the device: its own memory, base None


def asarray(a: Any, dtype: Any = None, order: Any = None, **kw: Any) -> Any:
    if isinstance(a, ndarray):
        if dtype is None or a.dtype == np.dtype(dtype):
            return a
        return a.astype(dtype)
    return _upload(a, dtype, f"cupy.asarray of {type(a).__name__}")


def _array(a: Any, dtype: Any = None, copy: bool = True, order: str = "K", **kw: Any) -> Any:
    """``cupy.array``: a device array is copied in the ``order`` asked for (CuPy's ``astype(order=...)``: a
    transposed array asked for ``"C"`` comes back row-major), host data uploaded in that order."""
    if isinstance(a, ndarray):
        return a.astype(a.dtype if dtype is None else dtype, order=order, copy=copy)
    return _upload(a, dtype, f"cupy.array of {type(a).__name__}", order)


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: Any = None, blocking: bool = True) -> np.ndarray:
    if isinstance(a, ndarray):
        _d2h(a.nbytes, "cupy.asnumpy")
    return np.array(_host(a), order=order).view(np.ndarray)


# -- NumPy's implicit conversions, refused as CuPy refuses them ---------------------------------

#: NumPy's constructors that convert their argument with ``__array__``: CuPy's ``ndarray.__array__`` raises
#: (cupy/_core/core.pyx), and no ``__array_function__`` dispatch reaches CuPy for them.
_CONVERTERS = ("asarray", "array", "asanyarray", "ascontiguousarray", "asfortranarray")
_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy "
             "array explicitly.")


def _holds_device_array(a: Any) -> bool:
    if isinstance(a, ndarray):
        return True
    return isinstance(a, (list, tuple)) and any(_holds_device_array(x) for x in a)


def _from_outside(frame: Any) -> bool:
    """Whether the call comes from the program (minigrad, a test), not from the stand-in or NumPy."""
    name = frame.f_code.co_filename
    return name != __file__ and "/numpy/" not in name


def _refusing(fn: Any) -> Any:
    def converter(a: Any = None, *args: Any, **kwargs: Any) -> Any:
        if _holds_device_array(a) and not _quiet and _from_outside(sys._getframe(1)):
            raise TypeError(_IMPLICIT)
        return fn(a, *args, **kwargs)

    converter.__name__ = fn.__name__
    converter.__wrapped__ = fn
    return converter


def _refuse_implicit_conversions() -> None:
    """``np.asarray(device_array)`` and the other converters raise CuPy's ``TypeError`` when the program
    calls them (the stand-in's arrays are NumPy's, so NumPy would take them silently: a host read
    that a device refuses)."""
    for name in _CONVERTERS:
        fn = getattr(np, name)
        if getattr(fn, "__wrapped__", None) is None:
            setattr(np, name, _refusing(fn))


# -- the CUDA-side emulation ---------------------------------------------------------

_CTYPES = {"unsigned short": np.float16, "float": np.float32, "double": np.float64, "bool": np.bool_,
           "long long": np.int64, "int": np.int32, "unsigned int": np.uint32, "unsigned char": np.uint8}
_SCALARS = {"int": np.int32, "long long": np.int64, "double": np.float64, "unsigned long long": np.uint64}


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


def _kernel_text(code: str, name: str) -> str:
    """The kernel ``name``'s definition in ``code``: its signature and its body, up to the matching brace."""
    m = re.search(r'extern "C" __global__ void ' + re.escape(name) + r"\(.*?\)\s*\{", code, re.S)
    if m is None:
        return ""
    depth, k = 1, m.end()
    while depth and k < len(code):
        depth += {"{": 1, "}": -1}.get(code[k], 0)
        k += 1
    return code[m.start():k]


def _check_half_reads(code: str, name: str) -> None:
    """float16 is stored as its raw 16-bit pattern (``unsigned short``, cuda_src's ``T``): a value read from
    such a pointer must go through ``mg_load`` (``cvt.f32.f16``). A cast ``(ACC)x[i]`` or an ``ACC v = x[i]``
    compiles and converts the bit pattern as an integer - 1.0 (0x3c00) reads as 15360.0 - which NumPy's
    emulation of the op, reading float16 values, cannot show; so it is refused here."""
    text = _kernel_text(code, name)
    halves = {"unsigned short"} | {alias for alias in re.findall(r"typedef\s+unsigned short\s+(\w+)\s*;", code)}
    kinds = "|".join(re.escape(h) for h in sorted(halves))
    ptrs = set(re.findall(r"\b(?:" + kinds + r")\s*\*\s*(?:const\s+)?(?:__restrict__\s+)?(\w+)", text))
    for ptr in sorted(ptrs):
        read = (r"\(\s*(?:const\s+)?(?:ACC|float|double)\s*\)\s*" + re.escape(ptr) + r"\s*\[|"
                r"\b(?:ACC|float|double)\s+\w+\s*=\s*" + re.escape(ptr) + r"\s*\[")
        bad = re.search(read, text)
        assert bad is None, (f"{name}: '{bad.group(0)}...' converts float16's raw bits (unsigned short) as an "
                             f"integer; read a half with mg_load({ptr}, i)")


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


def _cpu_kernel(op: str, dt: Any) -> Any:
    """The CPU kernel minigrad registered for ``op`` at dtype ``dt``: the emulator's definition of the op.

    The GPU elementwise kernels are emulated by the op's own CPU kernel, run
    in the GPU kernel's accumulation type - the stand-in is derived from the
    op definitions, not a second copy of every formula - but for the few whose
    CUDA arithmetic PyTorch rounds otherwise (``_CUDA_FORMS``).
    """
    from minigrad.kernels.registry import KERNELS

    for key, kernel in KERNELS.get(op, {}).items():
        if key.backend == "CPU" and key.dtype.np == np.dtype(dt):
            return kernel.fn
    raise AssertionError(f"no CPU kernel of {op!r} for {np.dtype(dt)} to emulate the GPU kernel with")


def _cuda_addc(quotient: bool) -> Any:
    """PyTorch CUDA's ``addcmul``/``addcdiv``: ``a + value * (b * c)`` (or ``b / c``), the product or quotient
    rounded, then one fused multiply-add (nvcc contracts it) - where the CPU kernel computes ``(value * b) * c``."""
    from minigrad.kernels.array_kernels import fused_multiply_add

    def kernel(a: np.ndarray, b: np.ndarray, c: np.ndarray, value: Any = 1) -> np.ndarray:
        inner = np.divide(b, c) if quotient else np.multiply(b, c)
        return fused_multiply_add(np.full((), value, dtype=a.dtype), inner, a)
    return kernel


#: the GPU kernels whose arithmetic is not their op's CPU kernel's (PyTorch CUDA rounds them otherwise)
_CUDA_FORMS = {"addcmul": _cuda_addc(False), "addcdiv": _cuda_addc(True)}


def _gpu_form(op: str, dt: Any) -> Any:
    """How the GPU kernel of ``op`` computes at the accumulation type ``dt``: its CUDA form where PyTorch CUDA's
    differs from its CPU kernel (``_CUDA_FORMS``), else the op's CPU kernel (``_cpu_kernel``)."""
    return _CUDA_FORMS.get(op) or _cpu_kernel(op, dt)


def _nin(op: str) -> int:
    """Inputs of the elementwise kernel of ``op``, read off the CUDA tables."""
    from minigrad.kernels.gpu import cuda_src

    if op == "where":
        return 3
    if op in cuda_src.ARITY:  # param and ternary ops
        return cuda_src.ARITY[op]
    return 1 if op in cuda_src.UNARY or op in cuda_src.TEST or op == "clip" else 2


def _strided_view(a: np.ndarray, shape: tuple[int, ...], strides: np.ndarray) -> np.ndarray:
    """What a kernel reads from ``a``'s data pointer with these element strides."""
    return np.lib.stride_tricks.as_strided(a, shape=shape, strides=tuple(int(s) * a.itemsize for s in strides))


def _ew(op: str, variant: str, grid: tuple, block: tuple, args: tuple) -> None:
    from minigrad.kernels.gpu import cuda_src

    nin = _nin(op)
    ins, out, n = list(args[:nin]), args[nin], int(args[nin + 1])
    rest = args[nin + 2:]
    assert out.size == n and out.flags.c_contiguous
    assert grid[0] * block[0] >= 1
    if variant.startswith("scalar"):  # operand k is a number passed by value (a double)
        k = int(variant[len("scalar"):])
        assert isinstance(ins[k], np.float64), "the number operand is passed by value as a double"
        other = ins[1 - k]
        assert other.size == n and other.flags.c_contiguous, "a scalar kernel given a non-contiguous operand"
        acc = _acc(other.dtype)
        vals = [np.asarray(other, dtype=acc).reshape(out.shape)] * 2
        vals[k] = np.full(out.shape, acc(ins[k]), dtype=acc)
        with np.errstate(all="ignore"):
            if op == "div" and k == 1:  # by a number: times its reciprocal, as CUDA's (cuda_src.py's NOTE)
                out[...] = vals[0] * (acc(1) / vals[1])
            else:
                out[...] = _cpu_kernel(op, acc)(*vals)
        return
    if variant in ("contig", "vec"):
        for a in ins:
            assert a.size == n and a.flags.c_contiguous, "contiguous kernel given a non-contiguous operand"
        if variant == "vec":
            # 16-byte loads need 16-byte-aligned operands; the grid is sized by vectors, not elements
            vec = 16 // out.itemsize
            assert all(a.ctypes.data % 16 == 0 for a in (*ins, out)), "vector kernel given an unaligned operand"
            assert grid[0] <= max(1, -(-(n // vec) // block[0])), "vector kernel launched with a grid sized by elements"
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
        elif op in cuda_src.PARAMS:  # the op's number attributes, by value (p0, p1, p2: doubles)
            assert len(rest) == 3 and all(isinstance(p, np.float64) for p in rest), "p0, p1, p2 are passed as doubles"
            # an attribute the call left out (None) reaches the kernel as NaN
            attrs = (None if np.isnan(p) else float(p) for p in rest)
            r = _gpu_form(op, acc)(*vals, **dict(zip(cuda_src.PARAMS[op], attrs)))
        else:
            r = _cpu_kernel(op, acc)(*vals)
    out[...] = r


_RED = {"sum": np.sum, "mean": np.sum, "mean_shifted": np.sum, "sq_dev": np.sum, "max": np.max, "min": np.min, "var": np.sum,
        "std": np.sum}


def _geometry_ok(grid: tuple, block: tuple, rows: int, cols: int, chunks: int, chunk_len: int) -> None:
    assert grid[0] == rows * chunks, f"grid {grid[0]} != rows * chunks {rows * chunks}"
    assert block[0] >= 32 and block[0] & (block[0] - 1) == 0 and block[0] <= 1024
    assert chunks * chunk_len >= cols and (chunks - 1) * chunk_len < max(cols, 1)


def _reduce(op: str, variant: str, grid: tuple, block: tuple, args: tuple) -> None:
    if variant == "single":  # chunked rows in one launch: partials, then the last block of each row combines them
        x, out, partial, ticket, aux, rows, cols, chunks, chunk_len, scale = args
        n_rows, n_chunks = int(rows), int(chunks)
        assert partial.size >= n_rows * n_chunks and ticket.size >= n_rows
        assert not ticket[:n_rows].any(), "tickets must be 0 before a launch (each kernel resets its own)"
        _reduce(op, "partial", grid, block, (x, partial, aux, rows, cols, chunks, chunk_len, scale))
        comb = partial.reshape(-1)[: n_rows * n_chunks]
        _reduce(op, "combine", (n_rows,), (block_for_test(n_chunks),), (comb, out, aux, rows, chunks, np.int64(1), chunks, scale))
        return
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
            if op in ("var", "std", "mean_shifted") and variant != "combine":  # the row shifted by its first
                seg = seg - xm[row, 0]  # element; var/std: its squared deviations from its shifted mean (aux)
            if op in ("var", "std", "sq_dev") and variant != "combine":
                mu = acc(np.asarray(aux).reshape(-1)[row])
                seg = (seg - mu) * (seg - mu)
            if seg.size == 0:
                r = {"max": -np.inf, "min": np.inf}.get(op, 0.0)
            else:
                r = _RED[op](seg)
            if variant != "partial" and op in ("mean", "mean_shifted", "var", "std", "sq_dev"):
                with np.errstate(invalid="ignore", over="ignore"):
                    r = r * acc(scale)
                if op == "std":
                    r = np.sqrt(r)
            flat[row * chunks + c] = r


def block_for_test(cols: int) -> int:
    b = 32
    while b < cols and b < 256:
        b *= 2
    return b


def _lse(variant: str, grid: tuple, block: tuple, args: tuple) -> None:
    """The online log-sum-exp kernels: states (m, s) with s * exp(m) = sum of exp."""
    if variant == "single":  # per-chunk states, then the last block of each row merges them
        x, out, pm, ps, ticket, rows, cols, chunks, chunk_len = args
        n_rows, n_chunks = int(rows), int(chunks)
        assert pm.size >= n_rows * n_chunks and ps.size >= n_rows * n_chunks and ticket.size >= n_rows
        assert not ticket[:n_rows].any(), "tickets must be 0 before a launch (each kernel resets its own)"
        _lse("partial", grid, block, (x, pm, ps, rows, cols, chunks, chunk_len))
        _lse("combine", (n_rows,), (block_for_test(n_chunks),),
             (pm.reshape(-1)[: n_rows * n_chunks], ps.reshape(-1)[: n_rows * n_chunks], out, rows, chunks,
              np.int64(1), chunks))
        return
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


def _softmax_bwd(kind: str, grid: tuple, block: tuple, args: tuple) -> None:
    """``mg_softmax_bwd``/``mg_log_softmax_bwd``: a row's gradient from the output gradient and the forward's
    output, in the compute type."""
    g, y, out, cols = args
    cols, rows = int(cols), grid[0]
    for a in (g, y, out):
        assert a.flags.c_contiguous and a.size == rows * cols and a.dtype == y.dtype
    assert block[0] >= 32 and block[0] & (block[0] - 1) == 0
    acc = _acc(y.dtype)
    gm, ym = np.asarray(g, dtype=acc).reshape(rows, cols), np.asarray(y, dtype=acc).reshape(rows, cols)
    if kind == "softmax_bwd":
        out.reshape(rows, cols)[...] = ym * (gm - (gm * ym).sum(axis=1, keepdims=True))
    else:
        out.reshape(rows, cols)[...] = gm - np.exp(ym) * gm.sum(axis=1, keepdims=True)


def _softmax(kind: str, grid: tuple, block: tuple, args: tuple) -> None:
    if kind in ("softmax_bwd", "log_softmax_bwd"):
        _softmax_bwd(kind, grid, block, args)
        return
    if kind == "cross_entropy":  # (before the twenty-second session's trees, no check's flag and slot)
        x, target, out, cols, flags, slot = args if len(args) == 6 else (*args, None, 0)
    elif kind == "cross_entropy_bwd":
        x, target, grad, out, cols, per_row, scale = args
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
    if kind == "cross_entropy_bwd":
        p = np.exp(xm - m) * (acc(1) / s)
        t = np.asarray(target).reshape(-1)
        assert t.dtype == np.int64 and t.size == rows
        ok = (t >= 0) & (t < cols)
        p[np.arange(rows)[ok], t[ok]] -= acc(1)
        g = np.asarray(grad, dtype=acc).reshape(-1)
        g = g[:, None] if int(per_row) else g[0] * acc(float(scale))
        out.reshape(rows, cols)[...] = p * g
    elif kind == "softmax":
        out.reshape(rows, cols)[...] = np.exp(xm - m) / s
    elif kind == "log_softmax":
        out.reshape(rows, cols)[...] = (xm - m) - np.log(s)
    else:
        assert target.dtype == np.int64 and target.size == rows
        # A target outside [0, cols) sets the check's flag (reported at the next sync) and gives NaN.
        t = np.asarray(target).reshape(-1)
        ok = (t >= 0) & (t < cols)
        if not ok.all() and flags is not None:
            flags.reshape(-1)[int(slot)] = 1
        picked = np.where(ok, xm[np.arange(rows), np.where(ok, t, 0)], np.nan)
        out[...] = -((picked - m[:, 0]) - np.log(s)[:, 0])


def _nll(kind: str, grid: tuple, block: tuple, args: tuple) -> None:
    """``mg_nll_*`` (``cuda_src.nll_source``) in NumPy, in the compute type."""
    if kind == "count":
        target, count, n, ignore = args
        assert grid[0] == 1 and block[0] & (block[0] - 1) == 0
        count[0] = (np.asarray(target).reshape(-1)[: int(n)] != int(ignore)).sum()
        return
    if kind == "bwd":
        grad, target, count, out, n, cols, ignore, mode = args
        n, cols, ignore, mode = int(n), int(cols), int(ignore), int(mode)
        assert grid[0] * block[0] >= min(n * cols, 65535 * block[0])
        acc = _acc(out.dtype)
        t = np.asarray(target).reshape(-1)
        g = np.asarray(grad, dtype=acc).reshape(-1)
        res = np.zeros((n, cols), dtype=acc)
        kept = (t != ignore) & (t >= 0) & (t < cols)
        rows = np.arange(n)[kept]
        picked = g[rows] if mode == 0 else np.full(rows.size, g[0], dtype=acc)
        if mode == 2:
            picked = picked / acc(count[0])
        res[rows, t[kept]] = -picked
        out.reshape(n, cols)[...] = res
        return
    x, target, out, n, cols, ignore, *mean = args
    n, cols, ignore = int(n), int(cols), int(ignore)
    acc = _acc(x.dtype)
    t = np.asarray(target).reshape(-1)
    xm = np.asarray(x, dtype=acc).reshape(n, cols) if n * cols else np.zeros((n, max(cols, 1)), acc)
    valid = (t != ignore) & (t >= 0) & (t < cols)
    picked = np.where(valid, -xm[np.arange(n), np.where(valid, t, 0)], acc(0)) if n else np.zeros(0, acc)
    if kind == "rows":
        assert grid[0] * block[0] >= n
        out.reshape(-1)[...] = picked
    else:
        assert grid[0] == 1 and block[0] & (block[0] - 1) == 0
        s, kept = picked.sum(dtype=acc), acc((t != ignore).sum())
        with np.errstate(all="ignore"):
            out[...] = s / kept if int(mean[0]) else s


def _layer_norm(kind: str, grid: tuple, block: tuple, args: tuple) -> None:
    """``mg_ln_*`` (``cuda_src.layer_norm_source``): the kernels' steps in NumPy, in their compute type."""
    def stats(x: np.ndarray, cols: int, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        acc = _acc(x.dtype)
        xm = np.asarray(x, dtype=acc).reshape(-1, cols)
        mean = xm.sum(axis=1, keepdims=True) / acc(cols)
        c = xm - mean
        return xm, mean, np.sqrt((c * c).sum(axis=1, keepdims=True) / acc(cols) + acc(eps))

    if kind in ("fwd", "bwd", "stats"):
        assert block[0] >= 32 and block[0] & (block[0] - 1) == 0
    if kind == "fwd":
        x, w, b, out, cols, eps = args
        xm, mean, std = stats(x, int(cols), float(eps))
        assert grid[0] == xm.shape[0] and out.flags.c_contiguous
        acc = xm.dtype.type
        out.reshape(-1, int(cols))[...] = (xm - mean) / std * np.asarray(w, acc).reshape(-1) + np.asarray(b, acc).reshape(-1)
    elif kind == "bwd":
        g, x, w, dx, cols, eps = args
        xm, mean, std = stats(x, int(cols), float(eps))
        acc = xm.dtype.type
        rstd = acc(1) / std
        d = np.asarray(g, acc).reshape(-1, int(cols)) * np.asarray(w, acc).reshape(-1)
        xh = (xm - mean) * rstd
        m1 = d.sum(axis=1, keepdims=True) / acc(int(cols))
        m2 = (d * xh).sum(axis=1, keepdims=True) / acc(int(cols))
        dx.reshape(-1, int(cols))[...] = (d - m1 - xh * m2) * rstd
    elif kind == "stats":
        x, means, rstds, cols, eps = args
        xm, mean, std = stats(x, int(cols), float(eps))
        assert means.dtype == xm.dtype and means.size == xm.shape[0] == grid[0]
        means[...] = mean.reshape(-1)
        rstds[...] = (xm.dtype.type(1) / std).reshape(-1)
    elif kind == "wgrad_partial":
        g, x, means, rstds, partial, rows, cols, per_chunk = args
        rows, cols, per_chunk = int(rows), int(cols), int(per_chunk)
        assert grid[0] * block[0] >= cols and grid[1] * per_chunk >= rows and partial.shape == (grid[1], cols)
        acc = means.dtype.type
        gm, xm = np.asarray(g, acc).reshape(rows, cols), np.asarray(x, acc).reshape(rows, cols)
        prod = gm * ((xm - means[:, None]) * rstds[:, None])
        for c in range(grid[1]):
            partial[c] = prod[c * per_chunk:(c + 1) * per_chunk].sum(axis=0)
    else:
        partial, out, chunks, cols = args
        assert grid[0] * block[0] >= int(cols) and partial.shape == (int(chunks), int(cols))
        out.reshape(-1)[...] = partial.sum(axis=0)


def _batch_norm(kind: str, grid: tuple, block: tuple, args: tuple) -> None:
    """``mg_bn_*`` (``cuda_src.batch_norm_source``): the kernels' steps in NumPy, in their compute type; the
    per-channel kernels take one block a channel of a contiguous (n, C, hw) input."""
    def channels(a: np.ndarray, n: int, c: int, hw: int, acc: Any) -> np.ndarray:
        assert a.flags.c_contiguous and a.size == n * c * hw
        return np.asarray(a, dtype=acc).reshape(n, c, hw).transpose(1, 0, 2).reshape(c, n * hw)

    def stats(x: np.ndarray, n: int, c: int, hw: int, eps: float, acc: Any) -> tuple[np.ndarray, np.ndarray]:
        xc = channels(x, n, c, hw, acc)
        mean = xc.sum(axis=1) / acc(n * hw)
        d = xc - mean[:, None]
        return mean, acc(1) / np.sqrt((d * d).sum(axis=1) / acc(n * hw) + acc(eps))

    if kind in ("stats", "moments", "reduce"):
        assert block[0] >= 32 and block[0] & (block[0] - 1) == 0
    if kind == "stats":
        x, means, invstds, n, c, hw, eps = args
        n, c, hw = int(n), int(c), int(hw)
        assert grid[0] == c == means.size == invstds.size
        means[...], invstds[...] = stats(x, n, c, hw, float(eps), means.dtype.type)
    elif kind == "moments":
        x, means, variances, n, c, hw = args
        n, c, hw = int(n), int(c), int(hw)
        assert grid[0] == c == means.size == variances.size
        acc = _acc(x.dtype)
        xc = channels(x, n, c, hw, acc)
        mean = xc.sum(axis=1) / acc(n * hw)
        d = xc - mean[:, None]
        with np.errstate(all="ignore"):
            means[...], variances[...] = mean, (d * d).sum(axis=1) / acc(n * hw - 1)
    elif kind == "invstd":
        var, invstds, c, eps = args
        acc = invstds.dtype.type
        invstds[...] = acc(1) / np.sqrt(np.asarray(var, acc) + acc(float(eps)))
    elif kind == "fwd":
        x, means, invstds, w, b, out, c, hw, total = args
        c, hw = int(c), int(hw)
        acc = means.dtype.type
        assert out.flags.c_contiguous and x.flags.c_contiguous and out.size == int(total)
        col = (np.arange(int(total)) // hw) % c
        v = (np.asarray(x, acc).reshape(-1) - means[col]) * invstds[col]
        out.reshape(-1)[...] = v * np.asarray(w, acc)[col] + np.asarray(b, acc)[col]
    elif kind == "reduce":
        g, x, means, invstds, sum_g, sum_gxhat, n, c, hw, eps, use_stats = args
        n, c, hw = int(n), int(c), int(hw)
        acc = means.dtype.type
        assert grid[0] == c
        if int(use_stats):
            means[...], invstds[...] = stats(x, n, c, hw, float(eps), acc)
        gc, xc = channels(g, n, c, hw, acc), channels(x, n, c, hw, acc)
        sum_g[...] = gc.sum(axis=1)
        sum_gxhat[...] = (gc * ((xc - means[:, None]) * invstds[:, None])).sum(axis=1)
    else:
        g, x, means, invstds, w, sum_g, sum_gxhat, dx, c, hw, total, inv_count, training = args
        c, hw = int(c), int(hw)
        acc = means.dtype.type
        assert dx.flags.c_contiguous and g.flags.c_contiguous and dx.size == int(total)
        col = (np.arange(int(total)) // hw) % c
        v = np.asarray(g, acc).reshape(-1)
        if int(training):
            xh = (np.asarray(x, acc).reshape(-1) - means[col]) * invstds[col]
            v = v - sum_g[col] * acc(float(inv_count)) - xh * (sum_gxhat[col] * acc(float(inv_count)))
        dx.reshape(-1)[...] = v * (np.asarray(w, acc)[col] * invstds[col])


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



# -- convolution, pooling, mse (conv_src.py) -------------------------------------------------------


def _geo(args: tuple, k: int) -> dict[str, int]:
    from minigrad.kernels.gpu.conv_src import GEOMETRY

    vals = args[k:k + len(GEOMETRY)]
    assert all(isinstance(v, np.int32) for v in vals), "geometry arguments are int32"
    return dict(zip(GEOMETRY, (int(v) for v in vals)))


def _taps(g: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Input rows, columns (OH x KH, OW x KW) read by each output position and tap, and the validity mask."""
    hs = np.arange(g["OH"])[:, None] * g["SH"] - g["PH"] + np.arange(g["KH"])[None, :] * g["DH"]
    ws = np.arange(g["OW"])[:, None] * g["SW"] - g["PW"] + np.arange(g["KW"])[None, :] * g["DW"]
    return hs, ws, None


def _cols(x: np.ndarray, g: dict[str, int], n0: int, nb: int) -> np.ndarray:
    """im2col in NumPy: (C*KH*KW, nb*OH*OW)."""
    hs, ws, _ = _taps(g)
    xp = np.asarray(x).reshape(g["N"], g["C"], g["H"], g["W"])[n0:n0 + nb]
    hv = (hs >= 0) & (hs < g["H"])
    wv = (ws >= 0) & (ws < g["W"])
    # (nb, C, OH, KH, OW, KW)
    v = xp[:, :, np.clip(hs, 0, g["H"] - 1)][:, :, :, :, np.clip(ws, 0, g["W"] - 1)]
    v = v * (hv[:, :, None, None] & wv[None, None, :, :])
    v = v.transpose(1, 3, 5, 0, 2, 4)  # C, KH, KW, nb, OH, OW
    return v.reshape(g["C"] * g["KH"] * g["KW"], nb * g["OH"] * g["OW"])


def _col2im(cols: np.ndarray, g: dict[str, int], nb: int) -> np.ndarray:
    """The adjoint of ``_cols``: (nb, C, H, W)."""
    hs, ws, _ = _taps(g)
    v = cols.reshape(g["C"], g["KH"], g["KW"], nb, g["OH"], g["OW"]).transpose(3, 0, 4, 1, 5, 2)  # nb,C,OH,KH,OW,KW
    pad_h = np.where((hs >= 0) & (hs < g["H"]), hs, g["H"])
    pad_w = np.where((ws >= 0) & (ws < g["W"]), ws, g["W"])
    dx = np.zeros((nb, g["C"], g["H"] + 1, g["W"] + 1), dtype=cols.dtype)
    np.add.at(dx, (slice(None), slice(None), pad_h[:, :, None, None], pad_w[None, None, :, :]), v)
    return dx[:, :, : g["H"], : g["W"]]


def _grouped(w: np.ndarray, g: dict[str, int]) -> np.ndarray:
    return w.reshape(g["G"], g["O"] // g["G"], -1)


def _conv(name: str, grid: tuple, block: tuple, args: tuple) -> None:
    if name in ("im2col", "col2im"):
        src, dst = args[:2]
        g = _geo(args, 2)
        n0, nb = int(args[-2]), int(args[-1])
        acc = _acc(dst.dtype)
        if name == "im2col":
            assert grid[0] * block[0] >= 1 and dst.size == g["C"] * g["KH"] * g["KW"] * nb * g["OH"] * g["OW"]
            dst.reshape(-1)[...] = _cols(np.asarray(src, dtype=acc), g, n0, nb).reshape(-1)
        else:
            dx = _col2im(np.asarray(src, dtype=acc), g, nb)
            dst.reshape(g["N"], g["C"], g["H"], g["W"])[n0:n0 + nb] = dx
        return
    G = None
    if name == "conv_fwd":
        x, w, bias, y = args[:4]
        g = _geo(args, 4)
        has_bias = int(args[-1])
        acc = _acc(x.dtype)
        cols = _cols(np.asarray(x, dtype=acc), g, 0, g["N"]).reshape(g["G"], -1, g["N"] * g["OH"] * g["OW"])
        r = np.matmul(_grouped(np.asarray(w, dtype=acc), g), cols).reshape(g["O"], g["N"], g["OH"], g["OW"])
        r = r.transpose(1, 0, 2, 3)
        if has_bias:
            r = r + np.asarray(bias, dtype=acc).reshape(1, -1, 1, 1)
        y.reshape(r.shape)[...] = r
    elif name == "conv_dx":
        gy, w, dx = args[:3]
        g = _geo(args, 3)
        acc = _acc(gy.dtype)
        p = g["OH"] * g["OW"]
        gyg = np.asarray(gy, dtype=acc).reshape(g["N"], g["O"], p).transpose(1, 0, 2).reshape(g["G"], g["O"] // g["G"], -1)
        cols = np.matmul(_grouped(np.asarray(w, dtype=acc), g).transpose(0, 2, 1), gyg).reshape(-1, g["N"] * p)
        dx.reshape(g["N"], g["C"], g["H"], g["W"])[...] = _col2im(cols, g, g["N"])
    elif name == "conv_dw":
        x, gy, dw = args[:3]
        g = _geo(args, 3)
        acc = _acc(x.dtype)
        assert grid[0] == dw.size, "one block per weight element"
        assert block[0] >= 32 and block[0] & (block[0] - 1) == 0
        p = g["OH"] * g["OW"]
        cols = _cols(np.asarray(x, dtype=acc), g, 0, g["N"]).reshape(g["G"], -1, g["N"] * p)
        gyg = np.asarray(gy, dtype=acc).reshape(g["N"], g["O"], p).transpose(1, 0, 2).reshape(g["G"], g["O"] // g["G"], -1)
        dw.reshape(-1)[...] = np.matmul(gyg, cols.transpose(0, 2, 1)).reshape(-1)
    else:  # pragma: no cover
        raise AssertionError(f"unknown conv kernel {name}")


def _pool_arg(x: np.ndarray, g: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Max and flat argmax (first maximum; the last NaN, which takes over from any value) of every window, per
    plane."""
    hs, ws, _ = _taps(g)
    planes = g["C"]
    xp = np.asarray(x, dtype=_acc(x.dtype)).reshape(planes, g["H"], g["W"])
    valid = ((hs >= 0) & (hs < g["H"]))[:, :, None, None] & ((ws >= 0) & (ws < g["W"]))[None, None, :, :]
    v = xp[:, np.clip(hs, 0, g["H"] - 1)][:, :, :, np.clip(ws, 0, g["W"] - 1)]  # planes, OH, KH, OW, KW
    v = np.where(valid, v, -np.inf).transpose(0, 1, 3, 2, 4).reshape(planes, g["OH"], g["OW"], -1)
    flat_idx = (np.clip(hs, 0, g["H"] - 1)[:, None, :, None] * g["W"] + np.clip(ws, 0, g["W"] - 1)[None, :, None, :])
    flat_idx = np.where(valid.transpose(0, 2, 1, 3), flat_idx, -1).reshape(g["OH"], g["OW"], -1)
    nan = np.isnan(v)
    k = np.where(nan.any(-1), nan.shape[-1] - 1 - nan[..., ::-1].argmax(-1), v.argmax(-1))
    arg = np.take_along_axis(np.broadcast_to(flat_idx, v.shape), k[..., None], -1)[..., 0]
    return np.take_along_axis(v, k[..., None], -1)[..., 0], arg


def _pool(name: str, grid: tuple, block: tuple, args: tuple) -> None:
    g = _geo(args, 3)
    a0, a1, a2 = args[:3]
    if name == "maxpool_fwd":
        best, arg = _pool_arg(a0, g)
        a1.reshape(best.shape)[...] = best
        a2.reshape(arg.shape)[...] = arg
    elif name == "maxpool_dx":
        gy, arg, dx = a0, np.asarray(a1).reshape(g["C"], -1), a2
        acc = _acc(gy.dtype)
        out = np.zeros((g["C"], g["H"] * g["W"] + 1), dtype=acc)
        np.add.at(out, (np.arange(g["C"])[:, None], np.where(arg < 0, g["H"] * g["W"], arg)),
                  np.asarray(gy, dtype=acc).reshape(g["C"], -1))
        dx.reshape(g["C"], -1)[...] = out[:, :-1]
    elif name == "maxpool_select":
        gx, arg, y = a0, np.asarray(a1).reshape(g["C"], -1), a2
        flat = np.asarray(gx).reshape(g["C"], -1)
        y.reshape(g["C"], -1)[...] = np.where(arg < 0, 0, np.take_along_axis(flat, np.maximum(arg, 0), 1))
    else:  # pragma: no cover
        raise AssertionError(f"unknown pool kernel {name}")


def _ordered(name: str, args: tuple) -> None:
    """``mg_oadd_<dt>``/``mg_oset`` (kernels/gpu/ordered.py): the writes, sorted by position (a position's in
    their order), applied in order - added one by one, each sum rounded to the dtype (NumPy's ``np.add.at``), or
    the last kept (elements as ``nbytes`` bytes). Checks the sort the kernel relies on."""
    out, pos, v, n = args[:4]
    pos, flat = np.asarray(pos), np.asarray(out).reshape(-1)
    nbytes = int(args[4]) if name == "oset" else 1
    v = np.asarray(v).reshape(-1, nbytes)
    assert int(n) == pos.size == len(v) and np.all(np.diff(pos) >= 0), "sorted positions"
    if name == "oadd":
        np.add.at(flat, pos, v[:, 0])
    else:
        last = np.r_[pos[1:] != pos[:-1], True]
        flat.reshape(-1, nbytes)[pos[last]] = v[last]


def _mse(name: str, grid: tuple, block: tuple, args: tuple) -> None:
    a, b = args[:2]
    acc = _acc(a.dtype)
    d = np.asarray(a, dtype=acc).reshape(-1) - np.asarray(b, dtype=acc).reshape(-1)
    if name == "mse_none":
        out, n = args[2], int(args[3])
        assert out.size == n == a.size
        out.reshape(-1)[...] = d * d
    else:
        partial, n, chunk = args[2], int(args[3]), int(args[4])
        assert grid[0] * chunk >= n and partial.size == grid[0]
        sq = d * d
        partial.reshape(-1)[...] = [sq[k * chunk:(k + 1) * chunk].sum() for k in range(grid[0])]


# -- the optimizers' multi-tensor and fused kernels (optim_src.py) ------------------------------------


def _slot_arrays(name: str, grid: tuple, args: tuple, per_slot: int, empty_ok: bool = False,
                 counts: int = 0) -> tuple[list[tuple], tuple]:
    """The used slots' arrays (``grid[1]`` slots of ``per_slot`` pointers and a size) and the scalars after
    all ``SLOTS`` slots; checks each used slot's size (0 only where ``empty_ok``: a norm's empty tensor) and
    every unused slot's size of 0. The last ``counts`` pointers of a slot are float32 0-d values (a fused
    Adam's step count), not of the slot's size."""
    from minigrad.kernels.gpu.optim_src import SLOTS

    used, step = grid[1], per_slot + 1
    assert 1 <= used <= SLOTS and grid[2] == 1, f"{name}: grid {grid} for {SLOTS} slots"
    slots = []
    for j in range(SLOTS):
        arrays, n = args[j * step: j * step + per_slot], int(args[j * step + per_slot])
        if j >= used:
            assert n == 0, f"{name}: slot {j} is past the grid but has {n} elements"
            continue
        sized, counted = arrays[:per_slot - counts], arrays[per_slot - counts:]
        assert (n > 0 or empty_ok) and all(a.size == n and a.flags.c_contiguous for a in sized), f"{name}: slot {j}"
        assert all(a.size == 1 and a.dtype == np.float32 for a in counted), f"{name}: slot {j}'s count"
        slots.append(tuple(np.asarray(a) for a in arrays))  # host views of the same memory: writes land
    return slots, args[SLOTS * step:]


def _mt(op: str, form: str, grid: tuple, args: tuple) -> None:
    """One step of a rule over every slot: the op's CPU kernel in the accumulation type, as ``_ew``; or
    (``sumsq``) each block's sum of squares of its slot's grid-stride share."""
    if op == "sumsq":
        slots, (partial,) = _slot_arrays("mt_sumsq", grid, args, 1, empty_ok=True)
        blocks, stride = grid[0], grid[0] * 256
        assert partial.flags.c_contiguous and partial.size == grid[1] * blocks
        part = partial.reshape(grid[1], blocks)
        for j, (x,) in enumerate(slots):
            a = np.asarray(x, dtype=partial.dtype).reshape(-1)
            for b in range(blocks):  # block b's threads take elements b*256 + t, then every stride further
                idx = (np.arange(b * 256, a.size, stride)[:, None] + np.arange(256)).reshape(-1)
                seg = a[idx[idx < a.size]]
                part[j, b] = (seg * seg).sum()
        return
    if op == "unscale":  # GradScaler.unscale_: every element times inv_scale, found_inf set by a NaN or an inf
        slots, (found_inf, inv_scale) = _slot_arrays("mt_unscale", grid, args, 1)
        assert found_inf.dtype == inv_scale.dtype == np.float32 and found_inf.size == inv_scale.size == 1
        s = np.asarray(inv_scale).reshape(-1)[0]
        for (g,) in slots:
            acc = _acc(g.dtype)
            v = np.asarray(g, dtype=acc)
            if not np.isfinite(v).all():
                np.asarray(found_inf).reshape(-1)[0] = 1.0
            if s != 1:
                with np.errstate(all="ignore"):
                    g[...] = v * acc(s)
        return
    if form == "op":  # an op with number attributes: its CPU kernel, in the accumulation type, with p0..p2
        from minigrad.kernels.gpu.cuda_src import ARITY, PARAMS

        slots, tail = _slot_arrays(f"mt_{op}", grid, args, 1 + ARITY[op])
        assert len(tail) == 3 and all(isinstance(v, np.float64) for v in tail), f"mt_{op}: three double numbers"
        for o, *ins in slots:
            acc = _acc(o.dtype)
            with np.errstate(all="ignore"):
                o[...] = _gpu_form(op, acc)(*(np.asarray(x, dtype=acc) for x in ins),
                                              *(float(v) for v in tail[:len(PARAMS[op])]))
        return
    slots, tail = _slot_arrays(f"mt_{op}", grid, args, 3 if form == "tt" else 2)
    for o, x, *y in slots:
        acc = _acc(x.dtype)
        a = np.asarray(x, dtype=acc)
        with np.errstate(all="ignore"):
            if form == "t":
                r = a.copy() if op == "copy" else _cpu_kernel(op, acc)(a)
            else:  # the scalar rounded to the storage type first, as NumPy rounds a Python number
                if form == "tp":  # a 0-d device tensor of the slots' dtype, read by the kernel
                    assert tail[0].dtype == x.dtype and tail[0].size == 1
                b = (np.asarray(y[0], dtype=acc) if form == "tt" else acc(np.asarray(tail[0]).reshape(-1)[0])
                     if form == "tp" else acc(x.dtype.type(float(tail[0]))))
                # a division by a number: times its reciprocal, as the op's kernel (cuda_src.py's NOTE)
                r = a * (acc(1) / b) if op == "div" and form == "ts" else _cpu_kernel(op, acc)(a, b)
        o[...] = r


def _fused(rule: str, grid: tuple, args: tuple) -> None:
    """A fused optimizer step: minigrad's CPU kernel of the same name (the rule on the arrays), with the
    GradScaler's scale and flag (float32 device scalars, read only when their flags say they are given)."""
    from minigrad.kernels.gpu.optim_src import COUNTED, FUSED

    counts = int(rule in COUNTED)
    slots, tail = _slot_arrays(f"fused_{rule}", grid, args, 2 + len(FUSED[rule]) + counts, counts=counts)
    grad_scale, found_inf, has_scale, has_inf, *numbers = tail
    assert isinstance(has_scale, np.int32) and isinstance(has_inf, np.int32), "the scaler's flags are int"
    for given, t in ((has_scale, grad_scale), (has_inf, found_inf)):
        assert not given or (t.dtype == np.float32 and t.size == 1), "the scaler's tensors: float32 scalars"
    if rule == "sgd":
        assert isinstance(numbers[0], np.int32), "first is an int flag"
    else:  # Adam's bias corrections come from the host's table: every count must be in it, its numbers Python's
        bias, n_bias, *numbers = numbers
        table = np.asarray(bias).reshape(-1, 2)
        assert bias.dtype == np.float64 and isinstance(n_bias, np.int64) and table.shape[0] == n_bias
        beta1, beta2 = float(numbers[1]), float(numbers[2])
        for *_, count in slots:
            t = float(np.asarray(count).reshape(-1)[0])
            if t == int(t) and t >= 1:  # (a count set by hand to another number takes the device's pow)
                assert t <= n_bias, f"step count {t} past the table of bias corrections ({n_bias})"
                assert tuple(table[int(t) - 1]) == (1 - beta1 ** t, (1 - beta2 ** t) ** 0.5), "the table's numbers"
    scalars = [bool(v) if isinstance(v, np.int32) else float(v) for v in numbers]
    lists = [list(column) for column in zip(*slots)]
    amp = [np.asarray(grad_scale) if has_scale else None, np.asarray(found_inf) if has_inf else None]
    with np.errstate(all="ignore"):
        if rule == "sgd":
            bufs = lists[2]
            _cpu_kernel("_fused_sgd_", slots[0][0].dtype)(*lists[:2], bufs, *amp, *scalars, path=_gpu_bare_path())
        else:
            _cpu_kernel("_fused_adam_", slots[0][0].dtype)(*lists, *amp, *scalars, path=_gpu_bare_path())


def _gpu_bare_path() -> Any:
    """The fused rule's path on the device's terms: its op steps (``add_alpha``, ``lerp``, ``addcmul``,
    ``addcdiv``) computed as the stand-in computes the GPU's op kernels (the op's CPU kernel in the
    accumulation type: a half's numbers are not rounded to half first, as CUDA's kernels read them), each
    result stored in the array's dtype."""
    from minigrad.optim.update import FOREACH_OPS, _ArrayPath

    def as_gpu(op: str) -> Any:
        def kernel(*arrays: Any) -> np.ndarray:
            *xs, number = arrays
            acc = _acc(xs[0].dtype)
            return np.asarray(_gpu_form(op, acc)(*(np.asarray(x, dtype=acc) for x in xs), number)).astype(xs[0].dtype)
        return kernel

    def divide(a: np.ndarray, v: Any) -> np.ndarray:  # by a number: times its reciprocal, as CUDA's
        acc = _acc(a.dtype)
        if isinstance(v, np.ndarray):
            return np.asarray(np.asarray(a, dtype=acc) / np.asarray(v, dtype=acc)).astype(a.dtype)
        return np.asarray(np.asarray(a, dtype=acc) * (acc(1) / acc(a.dtype.type(v)))).astype(a.dtype)

    return _ArrayPath(tensors=False, kernels={**{op: as_gpu(op) for op in FOREACH_OPS}, "div": divide})


def _ampscale(grid: tuple, block: tuple, args: tuple) -> None:
    """GradScaler.update's kernel (one thread): minigrad's CPU kernel of ``_amp_update_scale_`` on the arrays."""
    assert grid[:2] == (1, 1) and block[0] == 1, "one thread"
    scale, tracker, found_inf, growth, backoff, interval = args
    assert scale.dtype == found_inf.dtype == np.float32 and tracker.dtype == np.int32
    assert isinstance(growth, np.float64) and isinstance(backoff, np.float64) and isinstance(interval, np.int32)
    _cpu_kernel("_amp_update_scale_", np.float32)(np.asarray(scale), np.asarray(tracker), np.asarray(found_inf), float(growth), float(backoff), int(interval))


#: launches per kernel name, since the last ``LAUNCHES.clear()`` (every ``RawModule`` kernel call counts)
LAUNCHES: dict[str, int] = {}


def _check_range(args: tuple) -> None:
    x, n, low, high, ignore, has_ignore, flags, slot = args
    v = np.asarray(x).reshape(-1)[: int(n)]
    bad = (v < low) | (v >= high)
    if int(has_ignore):
        bad &= v != ignore
    if bad.any():
        flags.reshape(-1)[int(slot)] = 1


def philox4x32_10(counter: np.ndarray, key: tuple[int, int]) -> np.ndarray:
    """Philox4x32-10 of each row of ``counter`` (``(n, 4)`` uint32 words) under ``key`` (two uint32
    words): ``(n, 4)`` uint32 words. An emulation written from Salmon et al. (SC'11); it is checked
    against Random123's known-answer vectors (``test_device_random.py``)."""
    c = [counter[:, j].astype(np.uint64) for j in range(4)]
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    m0, m1, low = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57), np.uint64(0xFFFFFFFF)
    for _ in range(10):
        p0, p1 = m0 * c[0], m1 * c[2]  # 64-bit products of 32-bit words: exact in uint64
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & low, (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & low]
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & low, (k1 + np.uint64(0xBB67AE85)) & low
    return np.stack(c, axis=1).astype(np.uint32)


def _philox_words(n: int, seed: int, offset: int) -> np.ndarray:
    """The four words of elements ``0..n-1`` of one call (counter ``(i, offset)``, key ``seed``)."""
    i = np.arange(n, dtype=np.uint64)
    low = np.uint64(0xFFFFFFFF)
    counter = np.stack([i & low, i >> np.uint64(32), np.full(n, offset & 0xFFFFFFFF, np.uint64),
                        np.full(n, offset >> 32, np.uint64)], axis=1)
    return philox4x32_10(counter, (seed & 0xFFFFFFFF, seed >> 32))


def _u53(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    return ((hi.astype(np.uint64) << np.uint64(32) | lo.astype(np.uint64)) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def _philox(dist: str, grid: tuple, block: tuple, args: tuple) -> None:
    out, n, seed, offset, a, b = args
    n = int(n)
    assert grid[0] * block[0] >= 1 and out.size == n and out.flags.c_contiguous
    w = _philox_words(n, int(seed), int(offset))
    flat = out.reshape(-1)
    if dist == "randint":
        flat[:] = (np.int64(a) + ((w[:, 0].astype(np.uint64) << np.uint64(32) | w[:, 1]) % np.uint64(b)).astype(np.int64))
        return
    a, b = float(a), float(b)
    if dist == "uniform":
        u = (w[:, 0] >> 8).astype(np.float64) * 2.0 ** -24 if out.dtype == np.float32 else _u53(w[:, 0], w[:, 1])
        v = a + (b - a) * u
    elif dist == "normal":
        u1, u2 = _u53(w[:, 0], w[:, 1]) + 2.0 ** -53, _u53(w[:, 2], w[:, 3])
        v = a + b * (np.sqrt(-2.0 * np.log(u1)) * np.cos(6.283185307179586 * u2))
    elif dist == "bernoulli":  # value b where u < p (a)
        v = np.where(_u53(w[:, 0], w[:, 1]) < a, b, 0.0)
    elif dist == "exponential":
        v = -np.log1p(-_u53(w[:, 0], w[:, 1])) / a
    elif dist == "cauchy":
        v = a + b * np.tan(3.141592653589793 * (_u53(w[:, 0], w[:, 1]) - 0.5))
    elif dist == "log_normal":
        u1, u2 = _u53(w[:, 0], w[:, 1]) + 2.0 ** -53, _u53(w[:, 2], w[:, 3])
        v = np.exp(a + b * (np.sqrt(-2.0 * np.log(u1)) * np.cos(6.283185307179586 * u2)))
    elif dist == "geometric":  # the trials to the first success
        v = np.floor(np.log(_u53(w[:, 0], w[:, 1]) + 2.0 ** -53) / np.log1p(-a)) + 1.0
    else:
        raise NotImplementedError(f"the stand-in has no Philox draws of {dist!r}")
    flat[:] = v.astype(out.dtype)


class _Kernel:
    def __init__(self, code: str, name: str) -> None:
        self.name = name
        self.params = _signature(code, name)
        _check_half_reads(code, name)

    def __call__(self, grid: tuple, block: tuple, args: tuple) -> None:
        grid = tuple(grid) + (1,) * (3 - len(grid))
        block = tuple(block) + (1,) * (3 - len(block))
        assert all(g >= 1 for g in grid) and 1 <= block[0] * block[1] * block[2] <= 1024
        _check_args(self.name, self.params, args)
        LAUNCHES[self.name] = LAUNCHES.get(self.name, 0) + 1
        _launch()
        with _Quiet():
            self._emulate(grid, block, args)

    def _emulate(self, grid: tuple, block: tuple, args: tuple) -> None:
        parts = self.name.split("_")
        if parts[1] == "mt":
            _mt("_".join(parts[2:-2]), parts[-1], grid, args)
        elif parts[1] == "fused":
            _fused(parts[2], grid, args)
        elif parts[1] == "ew":
            _ew("_".join(parts[2:-2]), parts[-1], grid, block, args)
        elif parts[1] == "reduce":
            _reduce("_".join(parts[2:-2]), parts[-1], grid, block, args)
        elif parts[1] == "lse":
            _lse(parts[-1], grid, block, args)
        elif parts[1] == "matmul":
            _matmul(grid, block, args)
        elif parts[1] in ("im2col", "col2im", "conv"):
            _conv("_".join(parts[1:-1]), grid, block, args)
        elif parts[1] == "maxpool":
            _pool("_".join(parts[1:-1]), grid, block, args)
        elif parts[1] in ("oadd", "oset"):
            _ordered(parts[1], args)
        elif parts[1] == "mse":
            _mse("_".join(parts[1:-1]), grid, block, args)
        elif parts[1] == "check":
            _check_range(args)
        elif parts[1] == "ampscale":
            _ampscale(grid, block, args)
        elif parts[1] == "philox":  # mg_philox_<dist>[_<dtype>], the dist's name may hold "_" (log_normal)
            _philox("_".join(p for p in parts[2:] if p not in ("float32", "float64")), grid, block, args)
        elif parts[1] == "ln":
            _layer_norm("_".join(parts[2:-1]), grid, block, args)
        elif parts[1] == "bn":
            _batch_norm("_".join(parts[2:-1]), grid, block, args)
        elif parts[1] == "nll":
            _nll("_".join(parts[2:-1]), grid, block, args)
        else:
            _softmax("_".join(parts[1:-1]), grid, block, args)


class RawModule:
    def __init__(self, code: str, options: tuple = (), **kw: Any) -> None:
        assert "#include" not in code
        self.code = code

    def get_function(self, name: str) -> _Kernel:
        return _Kernel(self.code, name)

# -- the device's LU: cuSOLVER's getrf/getrs and cuBLAS's getrfBatched, as cupy.linalg calls them ------------------


def _two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    """``s + e == a + b`` exactly, ``s`` the rounded sum (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_product(a: Any, b: Any) -> tuple[Any, Any]:
    """``p + e == a * b`` exactly for float64 (Dekker's product of Veltkamp's halves)."""
    def split(x: Any) -> tuple[Any, Any]:
        t = 134217729.0 * x  # 2**27 + 1
        hi = t - (t - x)
        return hi, x - hi

    p = a * b
    (ah, al), (bh, bl) = split(a), split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd(s: Any, e: Any) -> Any:
    """``s + e`` (``s`` a rounded sum, ``e`` its exact error) rounded to odd: ``s`` where exact or odd, else
    its neighbour towards ``e``."""
    keep = (e == 0) | ((s.view(np.int64) & 1) == 1) | ~np.isfinite(s)
    return np.where(keep, s, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)))


def fma(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` rounded once, as the device's fused multiply-add (nvcc contracts a BLAS kernel's
    ``c - l * u`` into one ``fma``), which NumPy lacks. float64: Boldo and Melquiond's emulation (the product
    and the sum split exactly, the low parts' sum rounded to odd, then one rounding to nearest); float32: the
    exact float64 product plus ``c`` rounded to odd, then to float32 (exact, 53 >= 24 + 2 bits). Where a part
    overflows or is not finite, the plain ``a * b + c``."""
    a, b, c = np.broadcast_arrays(a, b, c)
    with np.errstate(all="ignore"):
        if c.dtype == np.float32:
            return _round_to_odd(*_two_sum(a.astype(np.float64) * b, c.astype(np.float64))).astype(np.float32)
        uh, ul = _two_product(a, b)
        th, tl = _two_sum(c, uh)
        z = th + _round_to_odd(*_two_sum(tl, ul))
        return np.where(np.isfinite(z), z, a * b + c)


def _getrf(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The LU (``P M = L U``) of each matrix of ``m`` (count, n, n), as the device computes it: LAPACK's
    ``getf2`` - the first largest ``|value|`` of the column for pivot, the column scaled by the pivot's
    reciprocal, a zero pivot left unscaled and reported in ``info`` (1-based) - with the trailing update's
    ``a - l * u`` fused (``fma``), and a NaN of the column being eliminated, the pivot's too, read as 0.

    That last rule is inferred, cuSOLVER being closed: on an H200 ``inv``/``solve`` of the all-NaN 2x2
    matrix gave ``[[nan, nan], [nan, inf]]``/``[nan, inf]`` (the LU ``[[0, nan], [0, 0]]`` gives exactly
    those, LAPACK's all-NaN one only NaN), and PyTorch's CUDA LU of a matrix holding one NaN is the LU of the
    matrix with 0 in its place (pytorch/pytorch#173638). The pivots are 0-based."""
    lu = np.array(m, copy=True)
    count, n = lu.shape[0], lu.shape[-1]
    piv = np.empty((count, n), dtype=np.int64)
    info = np.zeros(count, dtype=np.int32)
    at = np.arange(count)
    with np.errstate(all="ignore"):
        for k in range(n):
            col = lu[:, k:, k]
            col[np.isnan(col)] = 0
            p = piv[:, k] = k + np.argmax(np.abs(col), axis=1)
            row = lu[at, k].copy()
            lu[at, k] = lu[at, p]
            lu[at, p] = row
            pivot = lu[:, k, k]
            zero = pivot == 0
            info[(info == 0) & zero] = k + 1
            scale = np.where(zero, 1, 1 / np.where(zero, 1, pivot)).astype(lu.dtype)
            lu[:, k + 1:, k] *= scale[:, None]
            lu[:, k + 1:, k + 1:] = fma(-lu[:, k + 1:, k, None], lu[:, k, None, k + 1:], lu[:, k + 1:, k + 1:])
    return lu, piv, info


def _getrs(lu: np.ndarray, piv: np.ndarray, b: np.ndarray, trans: bool = False) -> np.ndarray:
    """``getrs``: the ``X`` of ``M X = B`` (``trans``: ``M^T X = B``) for each LU of ``_getrf`` and right side
    (count, n, k): the row swaps and the two triangle solves, their updates fused; no zero pivot skipped (a
    zero divides: inf, and NaN from it). The device's triangle solves may order their sums otherwise."""
    x = np.array(b, copy=True)
    at, n = np.arange(lu.shape[0]), lu.shape[-1]

    def swap(k: int) -> None:
        p = piv[:, k]
        row = x[at, k].copy()
        x[at, k] = x[at, p]
        x[at, p] = row

    with np.errstate(all="ignore"):
        if not trans:  # L U X = P^T B
            for k in range(n):
                swap(k)
            for k in range(n):
                x[:, k + 1:] = fma(-lu[:, k + 1:, k, None], x[:, k, None, :], x[:, k + 1:])
            for k in range(n - 1, -1, -1):
                x[:, k] /= lu[:, k, k, None]
                x[:, :k] = fma(-lu[:, :k, k, None], x[:, k, None, :], x[:, :k])
            return x
        for k in range(n):  # U^T L^T P^T X = B
            x[:, k] /= lu[:, k, k, None]
            x[:, k + 1:] = fma(-lu[:, k, k + 1:, None], x[:, k, None, :], x[:, k + 1:])
        for k in range(n - 1, -1, -1):
            x[:, :k] = fma(-lu[:, k, :k, None], x[:, k, None, :], x[:, :k])
        for k in range(n - 1, -1, -1):
            swap(k)
    return x


def _stack(a: Any) -> np.ndarray:
    """``a``'s matrices as a host (count, n, n) array."""
    h = _host(a)
    return h.reshape((-1,) + h.shape[-2:])


def linalg_inv(a: Any) -> np.ndarray:
    """cupy/linalg/_solve.py ``inv``: of a stack (``_batched_inv``), cuBLAS's getrfBatched and getriBatched of
    the C-ordered copy read as column-major - the LU of each ``A^T``, its inverse read back transposed -; of one
    matrix ``gesv`` of the identity: the LU of ``A`` if ``a`` is F-contiguous, else of ``A^T``
    (``gesv(a.T, b.T)``). getri is getrs of the identity here (the device's may round otherwise)."""
    h = _host(a)
    if not h.size:
        return np.empty(h.shape, dtype=h.dtype)
    transposed = h.ndim >= 3 or not h.flags.f_contiguous
    m = _stack(h).swapaxes(-1, -2) if transposed else _stack(h)
    lu, piv, _ = _getrf(m)
    x = _getrs(lu, piv, np.broadcast_to(np.eye(h.shape[-1], dtype=h.dtype), m.shape))
    return np.ascontiguousarray(x.swapaxes(-1, -2) if transposed else x).reshape(h.shape)


def linalg_solve(a: Any, b: Any) -> np.ndarray:
    """cupy/linalg/_solve.py ``solve``: a stack of matrices of at most 256 rows by ``cupy.cublas.batched_gesv``
    (getrfBatched and getrsBatched of the column-major copies: the LU of each ``A``); one matrix by ``gesv``
    of F-ordered copies (the LU of ``A``); a stack of larger ones by ``gesv`` of each C-ordered matrix (the LU of
    ``A^T``, solved transposed). ``b`` is ``(..., M)`` (1-D: broadcast) or ``(..., M, K)``, as CuPy checks it."""
    ha, hb = _host(a), _host(b)
    if hb.ndim == 1:
        hb = np.broadcast_to(hb, ha.shape[:-1])
    elif ha.shape[:-1] != hb.shape[:-1]:
        raise ValueError("a must have (..., M, M) shape and b must have (..., M, K) for multidimensional b")
    rhs = hb[..., None] if hb.ndim == ha.ndim - 1 else hb
    if not ha.size:
        return np.empty(hb.shape, dtype=ha.dtype)
    transposed = ha.ndim > 2 and ha.shape[-1] > 256
    m = _stack(ha).swapaxes(-1, -2) if transposed else _stack(ha)
    lu, piv, _ = _getrf(m)
    x = _getrs(lu, piv, rhs.reshape((-1,) + rhs.shape[-2:]), trans=transposed)
    return x.reshape(hb.shape)


def linalg_slogdet(a: Any) -> tuple[np.ndarray, np.ndarray]:
    """cupy/linalg/_norms.py ``slogdet``: ``_lu_factor`` of the C-ordered copy read as column-major - the LU
    of each ``A^T`` (cuBLAS's getrfBatched, cuSOLVER's getrf for a large matrix) -, the logs of the diagonal's
    absolute values summed, the sign from the pivots and the negative diagonal, and sign 0, ``-inf`` where
    ``info`` reports a zero pivot (an exact 0: one rounded away from 0 by the fused update is not)."""
    h = _host(a)
    shape, n = h.shape[:-2], h.shape[-1]
    if not h.size:
        return np.ones(shape, dtype=h.dtype), np.zeros(shape, dtype=h.dtype)
    lu, piv, info = _getrf(_stack(h).swapaxes(-1, -2))
    diag = np.diagonal(lu, axis1=-2, axis2=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        logdet = np.log(np.abs(diag)).sum(axis=-1)
    flips = np.count_nonzero(piv != np.arange(n), axis=-1) + np.count_nonzero(diag < 0, axis=-1)
    sign = np.where(info > 0, 0, (flips % 2) * -2 + 1).astype(h.dtype).reshape(shape)
    return sign, np.where(info > 0, -np.inf, logdet).astype(h.dtype).reshape(shape)


def linalg_det(a: Any) -> np.ndarray:
    """cupy/linalg/_norms.py ``det``: ``sign * exp(logdet)`` of ``slogdet``."""
    sign, logdet = linalg_slogdet(a)
    return np.asarray(sign * np.exp(logdet))



# -- cuBLAS's GEMM, called by pointer (minigrad/kernels/gpu/gemm.py) ------------------------------------------

_CUBLAS_HANDLE = 1
#: cuBLAS's pointer mode per handle: GEMM reads alpha and beta through host pointers only in mode 0 (host)
_POINTER_MODE: dict[int, int] = {}


def _set_pointer_mode(handle: int, mode: int) -> None:
    _POINTER_MODE[handle] = mode


def _column_major(ptr: int, dtype: Any, rows: int, cols: int, ld: int, count: int = 1, stride: int = 0) -> np.ndarray:
    """The ``count`` column-major ``rows x cols`` matrices at address ``ptr`` (leading dimension ``ld``,
    ``stride`` elements apart), as a writable NumPy view of that memory (device memory is host memory here)."""
    item = np.dtype(dtype).itemsize
    extent = (count - 1) * stride + (cols - 1) * ld + rows
    flat = np.frombuffer((ctypes.c_char * (extent * item)).from_address(ptr), dtype=dtype, count=extent)
    return np.lib.stride_tricks.as_strided(flat, shape=(count, rows, cols), strides=(stride * item, item, ld * item))


def _gemm_call(dtype: Any, batched: bool) -> Any:
    """cuBLAS's ``?gemm`` / ``?gemmStridedBatched``: ``C = alpha op(A) op(B) + beta C``, column-major, every
    matrix read through its pointer and leading dimension (checked as cuBLAS checks them: ``ld`` at least the
    stored matrix's rows), in the dtype (cuBLAS's own sum order is not NumPy's: last bits may differ)."""
    def gemm(handle: int, transa: int, transb: int, m: int, n: int, k: int, alpha: int, a: int, lda: int, *rest: Any) -> None:
        if batched:
            sa, b, ldb, sb, beta, c, ldc, sc, count = rest
        else:
            (b, ldb, beta, c, ldc), sa, sb, sc, count = rest, 0, 0, 0, 1
        assert _POINTER_MODE.get(handle, 0) == 0, "alpha and beta are host pointers: the handle must be in host mode"
        assert transa in (0, 1) and transb in (0, 1) and min(m, n, k, count) >= 1
        ra, ca = (k, m) if transa else (m, k)
        rb, cb = (n, k) if transb else (k, n)
        assert lda >= max(1, ra) and ldb >= max(1, rb) and ldc >= max(1, m), (lda, ldb, ldc, ra, rb, m)
        scalar = lambda p: np.frombuffer((ctypes.c_char * np.dtype(dtype).itemsize).from_address(p), dtype=dtype)[0]  # noqa: E731
        al, be = scalar(alpha), scalar(beta)
        av = _column_major(a, dtype, ra, ca, lda, count, sa)
        bv = _column_major(b, dtype, rb, cb, ldb, count, sb)
        cv = _column_major(c, dtype, m, n, ldc, count, sc)
        product = (av.transpose(0, 2, 1) if transa else av) @ (bv.transpose(0, 2, 1) if transb else bv)
        cv[...] = al * product + (be * cv if be != 0 else 0)
        _launch()

    return gemm


def install() -> None:
    """Put the emulated ``cupy``/``cupyx`` in ``sys.modules``."""
    mod = types.ModuleType("cupy")
    for k in dir(np):
        if k.startswith("_"):
            continue
        v = getattr(np, k)
        mod.__dict__[k] = _wrap(v) if callable(v) and not isinstance(v, type) else v
    mod.ndarray = ndarray

    def argsort(a: Any, axis: int = -1, kind: Any = None) -> Any:  # CuPy's sort is a stable radix sort
        return np.argsort(a, axis=axis, kind="stable")

    def sort(a: Any, axis: int = -1, kind: Any = None) -> Any:
        return np.sort(a, axis=axis, kind="stable")

    mod.argsort, mod.sort = _wrap(argsort), _wrap(sort)

    def cholesky(a: Any) -> Any:  # cuSOLVER's potrf stops at the first leading minor that is not positive-definite
        try:  # and CuPy reads no status: no error, the factor as far as it got (LAPACK's potf2 here)
            return np.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            from minigrad.kernels.linalg_arrays import partial_cholesky
            return np.stack([partial_cholesky(m) for m in a.reshape((-1,) + a.shape[-2:])]).reshape(a.shape)

    def _nan_on_failure(fn: Any) -> Any:  # an SVD or eigensolver that does not converge (a NaN input) leaves NaN
        def run(a: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return fn(a, *args, **kwargs)
            except np.linalg.LinAlgError:
                out = fn(np.zeros_like(a), *args, **kwargs)
                return tuple(np.full_like(o, np.nan) for o in out) if isinstance(out, tuple) else np.full_like(out, np.nan)

        run.__name__ = fn.__name__
        return run

    mod.linalg = types.SimpleNamespace(inv=_wrap(linalg_inv), solve=_wrap(linalg_solve), det=_wrap(linalg_det),
                                       cholesky=_wrap(cholesky), qr=_wrap(np.linalg.qr),
                                       svd=_wrap(_nan_on_failure(np.linalg.svd)),
                                       eigh=_wrap(_nan_on_failure(np.linalg.eigh)), slogdet=_wrap(linalg_slogdet),
                                       pinv=_wrap(_nan_on_failure(np.linalg.pinv)))
    mod.asarray = asarray
    mod.array = _array
    mod.asnumpy = asnumpy
    mod.RawModule = RawModule
    mod.get_array_module = lambda *a: mod
    mod.lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=as_strided))
    mod.swapaxes = swapaxes
    mod.broadcast_to = broadcast_to
    mod.concatenate = concatenate
    mod.__fake__ = True
    cuda = types.SimpleNamespace()
    def memcpy_async(dst: int, src: int, size: int, kind: int, stream: int) -> None:
        """``cudaMemcpyAsync``: only device-to-device copies are asked of it (an in-place op's write-back); the
        stand-in's device memory is host memory, so the bytes move now."""
        if kind != 3:
            raise NotImplementedError("the stand-in's memcpyAsync copies device to device only")
        if not _quiet:
            COUNTS.d2d += 1
        ctypes.memmove(dst, src, size)

    def get_device_properties(device: int) -> dict[str, Any]:
        if device != 0:
            raise RuntimeError("cudaErrorInvalidDevice: invalid device ordinal")
        return dict(DEVICE_PROPERTIES)

    cuda.runtime = types.SimpleNamespace(getDeviceCount=lambda: 1, memcpyAsync=memcpy_async, memcpyDeviceToDevice=3,
                                         getDeviceProperties=get_device_properties,
                                         memGetInfo=lambda: (DEVICE_MEMORY - POOL.total_bytes(), DEVICE_MEMORY))

    class Device:
        attributes = {"MultiProcessorCount": 4}

        def __init__(self, device: int = 0) -> None:
            self.id = device

        def synchronize(self) -> None:
            _sync("Device.synchronize")

    class Stream:
        ptr = 0  # the null stream's handle
        done = True  # every launch has run by the time the host asks (``query``: no wait, no sync)
        _made = [0]

        def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False) -> None:
            if not null:  # a stream of its own: a handle of its own (work is never queued on it here)
                Stream._made[0] += 1
                self.ptr = 0x1000 * Stream._made[0]

        def synchronize(self) -> None:
            _sync("Stream.synchronize")

        def wait_event(self, event: Any) -> None:  # cudaStreamWaitEvent: the device waits, not the host
            pass

    class Event:
        """A CUDA event: the stand-in runs each kernel as it is launched, so an event records the host's clock
        (what the benchmarks' timings read here: host time; ``synchronize`` is a sync, as on a device, and
        ``done`` - ``query`` - is always True, no sync)."""

        done = True
        _made = [0]

        def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False) -> None:
            self.t = 0.0
            self.disable_timing = disable_timing
            Event._made[0] += 1
            self.ptr = 0x10 * Event._made[0]

        def record(self, stream: Any = None) -> None:
            self.t = time.perf_counter()

        def synchronize(self) -> None:
            _sync("Event.synchronize")

    cuda.Device = Device
    cuda.Event = Event
    cuda.get_elapsed_time = lambda start, stop: (stop.t - start.t) * 1e3  # milliseconds, as CuPy's
    cuda.PinnedMemoryPointer = PinnedMemoryPointer
    cuda.Stream = Stream
    cuda.Stream.null = Stream(null=True)
    cuda.MemoryHook = MemoryHook
    mod.get_default_memory_pool = lambda: POOL
    cuda.nvtx = types.SimpleNamespace(
        available=True, RangePush=lambda message, id_color=-1, argb_color=None: NVTX.append(("push", message)),
        RangePop=lambda: NVTX.append(("pop", None)),
        Mark=lambda message, id_color=-1, argb_color=None: NVTX.append(("mark", message)))
    cuda.get_current_stream = lambda: cuda.Stream.null
    cuda.device = types.SimpleNamespace(get_cublas_handle=lambda: _CUBLAS_HANDLE)
    cuda.cublas = types.SimpleNamespace(
        CUBLAS_POINTER_MODE_HOST=0, setPointerMode=_set_pointer_mode,
        sgemm=_gemm_call(np.float32, batched=False), dgemm=_gemm_call(np.float64, batched=False),
        sgemmStridedBatched=_gemm_call(np.float32, batched=True),
        dgemmStridedBatched=_gemm_call(np.float64, batched=True))
    mod.cuda = cuda
    sys.modules["cupy"] = mod

    _refuse_implicit_conversions()

    cupyx = types.ModuleType("cupyx")

    def scatter_add(a: Any, index: Any, v: Any) -> None:
        _upload_host_indices(index, "cupyx.scatter_add")
        _launch()
        LAUNCHES["cupyx.scatter_add"] = LAUNCHES.get("cupyx.scatter_add", 0) + 1
        host_index = tuple(_host(i) if isinstance(i, ndarray) else i for i in index) if isinstance(index, tuple) else (
            _host(index) if isinstance(index, ndarray) else index)
        target, where = _host(a), _wrapped_index(a.shape, host_index)  # out-of-range indices wrap, as CuPy's
        if target.dtype.kind != "f":
            np.add.at(target, where, _host(v))
            return
        # Atomic adds promise no order: the stand-in applies the writes last first, so a float sum that
        # depends on their order differs from the CPU's sequential one, as it may on a device
        # (NOTE [ A scatter in the order of its writes ] in kernels/gpu/ordered.py).
        element = np.arange(target.size).reshape(target.shape)[where]
        values = np.broadcast_to(np.asarray(_host(v), dtype=target.dtype), element.shape)
        np.add.at(target.reshape(-1), element.reshape(-1)[::-1], values.reshape(-1)[::-1])

    cupyx.scatter_add = scatter_add

    def _scatter_reduce(name: str, ufunc: Any, float_ufunc: Any) -> Any:
        def scatter(a: Any, index: Any, v: Any) -> None:
            """CuPy's ``cupyx.scatter_max``/``scatter_min`` (``_scatter_op``, cupy/_core/_routines_indexing.pyx):
            the values cast to ``a``'s dtype, then one ``atomicMax``/``atomicMin`` each; other dtypes than
            these six (float16, bool...) are refused. CuPy's own float and double atomics
            (cupy/_core/include/cupy/atomics.cuh) compare with ``fmaxf``/``fminf``: a NaN loses to a number,
            and a double passes through float - every element an update reached is stored rounded to float32."""
            if a.dtype.type not in (np.int32, np.int64, np.float32, np.float64, np.uint32, np.uint64):
                raise TypeError(f"cupy.{ufunc.__name__}.at only supports int32, int64, float32, float64, uint32, "
                                "uint64 as data type")
            _upload_host_indices(index, f"cupyx.{name}")
            _launch()
            host_index = _host(index) if isinstance(index, ndarray) else index
            target, where = _host(a), _wrapped_index(a.shape, host_index)
            values = np.asarray(_host(v)).astype(a.dtype)
            if a.dtype.kind != "f":
                ufunc.at(target, where, values)
            elif a.dtype == np.float64:
                reached = np.zeros(a.shape, dtype=bool)
                reached[where] = True
                rounded = target.astype(np.float32)
                float_ufunc.at(rounded, where, values.astype(np.float32))
                target[reached] = rounded[reached]
            else:
                float_ufunc.at(target, where, values)

        scatter.__name__ = name
        return scatter

    cupyx.scatter_max = _scatter_reduce("scatter_max", np.maximum, np.fmax)
    cupyx.scatter_min = _scatter_reduce("scatter_min", np.minimum, np.fmin)
    cupyx.empty_pinned = empty_pinned
    sys.modules["cupyx"] = cupyx
