"""The kernel layer (Paddle's generated C++ API ``paddle::experimental::<op>``).

``call_kernel(op, inputs, attrs, rec)`` runs the steps, each a named function:

1. ``parse_kernel_key``: backend, layout and dtype parsed from the inputs
   (Paddle's ``ParseKernelKeyByInputArgs``): the promoted dtype of the inputs
   that take part in promotion, the highest-priority backend among their
   devices (only a 0-d CPU tensor may join another device's tensors; any other
   mix raises PyTorch's error, ``_common_device``), the first input's layout;
2. ``select_kernel`` (``kernels/select.py``): the search in the registry;
3. ``prepare_inputs``: PrepareData, each input transformed to the kernel's
   argument def (backend and layout always, dtype only when the op asks);
4. ``launch_and_check``: **InferMeta** (the op's function in
   ``kernels/infer_meta.py``: output shapes and dtypes, ``ValueError`` with
   the op, argument and shapes), the ``launch`` of the kernel, and the check
   that it returned what InferMeta promised. Every op call runs this one
   sequence: the full path here and the generated dygraph functions. The
   backward formulas in array mode run the ``launch`` step alone (NOTE [ One
   formula, two modes ] in ``autograd/formula.py``);
5. ``to_requested``: after a CPU fallback, the outputs are moved back to the
   requested device; a kernel that writes its outputs in another layout than
   the request's (``Kernel.out_layout``) has them transposed back.

Each step emits its event when a recorder is active. A call of a kind seen
before skips steps 1-3 (NOTE [ Kinds of call ]).
"""

from __future__ import annotations

import time
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import flags
from ..tracing.events import InferMetaEvent, KernelKeyEvent, KernelLaunch, KernelLookup, KernelSelect
from ..devices import mixed_devices_error
from .backends import backend_of_device, device_of_backend, move_array
from .key import Backend, KernelKey, Layout
from .prepare_data import emit_transform, prepare_data, transform_layout
from .registry import on_change
from .select import is_cached, select_kernel
from .strided import FORMAT_RULES, format_layout, torch_layout

if TYPE_CHECKING:  # pragma: no cover
    from ..ops.registry import OpDef
    from ..tensor import Tensor

__all__ = ["call_kernel", "parse_kernel_key", "prepare_inputs", "launch_and_check", "launch", "to_requested",
           "KINDS", "Kind", "kind_of", "kernel_of_kind", "recorded_kind", "out_of_memory"]

_float32 = _dt.float32
ALL_LAYOUT = Layout.ALL_LAYOUT


def parse_kernel_key(op: "OpDef", inputs: list[Any]) -> tuple[KernelKey, str]:
    """The KernelKey for ``inputs`` and the device the outputs belong on.

    The dtype is PyTorch's result type: the promotion of the tensors with dimensions, which a 0-d tensor
    (or a wrapped number) joins only when it is of a higher kind (``float32 + tensor(1.0, float64)`` stays
    float32, ``int32 + tensor(1.5)`` is float32; ``dtypes.result_type``).
    """
    dtype = None  # of the tensors with dimensions
    zero = None  # of the 0-d ones
    device = None
    layout = None
    for i in op.key_inputs:
        v = inputs[i]
        if v is None:
            continue
        for t in v if isinstance(v, list) else (v,):
            td = t._dtype
            if device is None:
                device, layout = t._device, t._layout
            elif t._device != device:
                device = _common_device(op, inputs, device, t)
            if t._data.ndim:
                if dtype is None:
                    dtype = td
                elif td is not dtype:
                    dtype = _dt.promote(dtype, td)  # uint8 with int8 is int16, float16 with bfloat16 float32
            elif zero is None:
                zero = td
            elif td is not zero:
                zero = _dt.promote(zero, td)
    if zero is not None:
        dtype = zero if dtype is None else _dt.combine_categories(dtype, zero)
    if dtype is None:  # only non-key inputs (should not happen for real ops)
        first = inputs[0][0] if isinstance(inputs[0], list) else inputs[0]
        dtype, device, layout = first._dtype, first._device, first._layout
    if device != "cpu" and len(op.key_inputs) != len(inputs):
        _check_other_inputs(op, inputs, device)
    if op.promote_float and not dtype.is_floating:
        dtype = _float32
    backend = backend_of_device(device).name
    return KernelKey(backend, layout, dtype), device


def _check_other_inputs(op: "OpDef", inputs: list[Any], device: str) -> None:
    """A call on another device than the CPU refuses a CPU tensor that is not a key input either (``where``'s
    condition, ``gather``'s index), unless 0-d: PrepareData would copy it to the device behind the program's
    back at every call, where PyTorch raises."""
    for i, v in enumerate(inputs):
        if i in op.key_inputs or v is None:
            continue
        for t in v if isinstance(v, list) else (v,):
            if t._device == "cpu" and t._data.ndim:
                raise mixed_devices_error(device, "cpu")


def _common_device(op: "OpDef", inputs: list[Any], device: str, t: Any) -> str:
    """The device of a call whose key inputs are on two devices: PyTorch's rule. A 0-d CPU tensor may join
    tensors of another device (it is a number, moved with the call: Paddle's data transform); any other
    mix is refused, in PyTorch's words, before a node or an event exists."""
    other = t._device
    if device == "cpu":  # every tensor so far is on the CPU: each must be 0-d
        cpu = [u for i in op.key_inputs if inputs[i] is not None
               for u in (inputs[i] if isinstance(inputs[i], list) else (inputs[i],)) if u._device == "cpu"]
        if all(u.ndim == 0 for u in cpu):
            return other
    elif other == "cpu" and t.ndim == 0:
        return device
    raise mixed_devices_error(*((device, other) if device != "cpu" else (other, device)))


# NOTE [ Floating-point warnings stay inside the kernels ]
#     ``log(0)``, ``1 / 0`` and ``0 / 0`` give ``-inf``, ``inf`` and ``nan``, as in
#     PyTorch, which says nothing; NumPy would print a ``RuntimeWarning`` from the
#     kernel's line for each. A warnings filter ignores
#     ``RuntimeWarning`` raised by code in ``minigrad.kernels`` and
#     ``minigrad.ops`` (where kernels are defined) only, so a user's own NumPy
#     code keeps its warnings. ``np.errstate`` around every kernel
#     would do the same at ~2.5 us per op; the filter costs nothing per call,
#     but ``warnings.catch_warnings()`` (pytest wraps every test and the
#     collection in one) swaps the filter list and drops it on exit. So each
#     call compares the live list with the one last seen (one identity check)
#     and re-installs the filter when the list changed. Kernels that would
#     warn from inside NumPy's own Python code (``np.mean`` of an empty slice)
#     are written so they don't.
_FP_FILTER_MODULES = r"minigrad\.(kernels|ops)(\.|$)"
_filters_seen: list[Any] | None = None


def _silence_fp_warnings() -> None:
    global _filters_seen
    filters = warnings.filters
    if not any(f[0] == "ignore" and f[2] is RuntimeWarning and f[3] is not None
               and f[3].pattern == _FP_FILTER_MODULES for f in filters):
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=_FP_FILTER_MODULES)
    _filters_seen = warnings.filters


def call_kernel(op: "OpDef", inputs: list[Any], attrs: dict[str, Any], rec: Any = None) -> tuple[Any, str, str]:
    """Run ``op`` through the kernel layer's steps, emitting their events to ``rec`` (the active
    recorder, or None). Returns ``(output array(s), device, layout)``."""
    if rec is not None:
        known = recorded_kind(op, inputs)
        if known is not None:  # NOTE [ Kinds of call ]: the key and the search, replayed
            rec.emit_copies(known.head)
            arrays = []
            for t in inputs:
                arrays.append(t._data)
            return launch_and_check(op, known.kernel, arrays, attrs, rec), known.device, known.layout
    name = op.name
    key, device = parse_kernel_key(op, inputs)
    if rec is not None:
        rec.emit(KernelKeyEvent.new(op=name, backend=key.backend, layout=key.layout, dtype=key.dtype.name))
    selection, cached = select_kernel(name, key)
    kernel = selection.kernel
    if rec is not None:
        rec.emit_copies(_selection_events(name, selection, cached))
        sig = kind_of(op, inputs)
        if sig is not None and sig not in KINDS:
            _remember_kind(op, inputs, sig, key, device, selection)
    arrays = prepare_inputs(op, kernel, inputs, key)
    out = launch_and_check(op, kernel, arrays, attrs, rec)
    return to_requested(name, kernel, out, device, key.layout)


def prepare_inputs(op: "OpDef", kernel: Any, inputs: list[Any], key: KernelKey) -> list[Any]:
    """PrepareData: the inputs' arrays, transformed to the kernel's argument defs where they differ."""
    kkey = kernel.key
    if kkey.layout != ALL_LAYOUT or kernel.arg_overrides:
        return prepare_data(op, kernel, inputs, key)
    # Nothing to do when every input already lives where the kernel runs, in its dtype (the common case).
    kernel_device = device_of_backend(kkey.backend)
    kernel_dtype = kkey.dtype
    arrays = []
    for v in inputs:
        if type(v) is list or v is None or v._device != kernel_device or v._dtype is not kernel_dtype:
            return prepare_data(op, kernel, inputs, key)
        arrays.append(v._data)
    return arrays


def launch_and_check(op: "OpDef", kernel: Any, arrays: list[Any], attrs: dict[str, Any], rec: Any = None) -> Any:
    """The one kernel-call sequence of an op call: InferMeta, the ``launch``, then the check that the
    kernel returned what InferMeta promised. ``rec``: the active recorder (``infer_meta`` and
    ``kernel.launch`` events), or None."""
    if kernel.channels_last:
        meta, check = _infer_meta_channels_last(op, kernel, arrays, attrs)
    else:  # InferMeta: the op's function in kernels/infer_meta.py
        # (an empty ``**attrs`` would build a dict for nothing: most ops take none)
        meta = check = op.infer_meta(op.name, *arrays, **attrs) if attrs else op.infer_meta(op.name, *arrays)
    if rec is None:
        out = launch(op, kernel, arrays, attrs, meta)
    else:
        rec.emit(_infer_meta_event(op.name, meta))
        t0 = time.perf_counter_ns()
        out = launch(op, kernel, arrays, attrs, meta)
        if NOT_LAUNCHED[0]:  # a mode handed back an output without running the kernel: no launch to show
            NOT_LAUNCHED[0] = False
        else:
            rec.emit(KernelLaunch.new(op=op.name, kernel=kernel.name, backend=kernel.key.backend,
                                      wall_ns=time.perf_counter_ns() - t0))
    layout = op.torch_layout
    # NumPy's layout made PyTorch's where it may differ (the common cases tested here); a GPU kernel lays
    # its result out itself (``torch_layout`` returns a device array as it is: no flags read for nothing),
    # but for a memory format, which no kernel knows (NOTE [ A memory format passes through a CNN ])
    if layout is not None:  # (most ops have no rule: one test on the hot path)
        if layout in FORMAT_RULES:
            out = format_layout(layout, out, arrays)
        elif type(out) is np.ndarray or type(out) is tuple:
            if layout == "contiguous":  # a row-major result
                if type(out) is tuple or not out.flags.c_contiguous:
                    out = torch_layout(layout, out, arrays)
            else:  # an elementwise op: a row-major first input of the result's shape makes both row-major
                first = arrays[0]
                if not first.flags.c_contiguous or first.shape != out.shape:
                    out = torch_layout(layout, out, arrays)
    if type(check) is not tuple or type(out) is tuple or out.shape != check[0] or out.dtype != check[1]:
        _check_outputs(op, kernel.name, check, out)
    return out


#: Modes that see every kernel call before it runs, innermost last: ``mode(op, kernel, arrays, attrs, meta)``
#: returns the call's output, made by ``run_kernel`` or not (a selective checkpoint's cached output:
#: ``utils/selective_checkpoint.py``). Empty: one test of a list per call.
KERNEL_MODES: list[Any] = []
#: set by a mode (while recording) that answered a call without running its kernel: no ``kernel.launch``
NOT_LAUNCHED = [False]


def launch(op: "OpDef", kernel: Any, arrays: Any, attrs: dict[str, Any], meta: Any = None) -> Any:
    """The kernel's launch: its function on ``arrays`` (or what the innermost of ``KERNEL_MODES`` gives);
    NumPy's bare ``MemoryError`` made to name the op (and the output shapes ``meta`` InferMeta computed,
    when it ran: array mode skips it)."""
    if KERNEL_MODES:
        return KERNEL_MODES[-1](op, kernel, arrays, attrs, meta)
    if warnings.filters is not _filters_seen:  # NOTE [ Floating-point warnings stay inside the kernels ]
        _silence_fp_warnings()
    try:
        out = kernel.fn(*arrays, **attrs) if attrs else kernel.fn(*arrays)
    except MemoryError as exc:
        raise out_of_memory(op, kernel, meta, exc) from None
    if isinstance(out, np.generic):  # a ufunc's result for 0-d inputs: an immutable NumPy scalar
        return np.asarray(out)
    return out


class KernelMode:
    """A mode of ``KERNEL_MODES`` entered as a context manager (the innermost last): subclasses define
    ``__call__(op, kernel, arrays, attrs, meta)``."""

    def __enter__(self) -> "KernelMode":
        KERNEL_MODES.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        KERNEL_MODES.remove(self)


def run_kernel(op: "OpDef", kernel: Any, arrays: Any, attrs: dict[str, Any], meta: Any = None) -> Any:
    """``launch`` as if no mode were open: what a mode calls to run the kernel itself."""
    modes = KERNEL_MODES[:]
    KERNEL_MODES.clear()
    try:
        return launch(op, kernel, arrays, attrs, meta)
    finally:
        KERNEL_MODES[:] = modes


def to_requested(name: str, kernel: Any, out: Any, device: str, layout: str) -> tuple[Any, str, str]:
    """After a CPU fallback the outputs return to the requested device (TransDataBackend); a kernel
    that wrote its 4-D outputs in its own layout (an NHWC-only kernel fed NCHW tensors) has them
    transposed back. Returns ``(output array(s), device, layout)``."""
    kernel_device = device_of_backend(kernel.key.backend)
    if kernel_device != device:
        if isinstance(out, tuple):
            out = tuple(move_array(o, kernel_device, device) for o in out)
        else:
            out = move_array(out, kernel_device, device)
        emit_transform(name, "out", "backend", kernel.key.backend, backend_of_device(device).name)
    out_layout = kernel.out_layout
    if out_layout == ALL_LAYOUT or out_layout == layout:
        return out, device, layout
    if isinstance(out, tuple):
        out = tuple(_layout_back(name, o, out_layout, layout) for o in out)
    else:
        out = _layout_back(name, out, out_layout, layout)
    return out, device, layout


def _selection_events(name: str, selection: Any, cached: bool) -> tuple[Any, ...]:
    """The ``kernel.lookup`` per probe and ``kernel.select`` of ``selection``."""
    kernel = selection.kernel
    kk = kernel.key
    return tuple(
        KernelLookup.new(op=name, backend=p.key.backend, layout=p.key.layout, dtype=p.key.dtype.name, step=p.step,
                         found=p.found)
        for p in selection.probes
    ) + (
        KernelSelect.new(op=name, kernel=kernel.name, backend=kk.backend, layout=kk.layout, dtype=kk.dtype.name,
                         fallback_cpu=selection.fallback_cpu, cached=cached),
    )


def _infer_meta_event(name: str, meta: Any) -> Any:
    """The ``infer_meta`` event of an InferMeta result (one ``(shape, dtype)`` or a list of them)."""
    if not isinstance(meta, list):  # one output (the common case): no comprehensions
        return InferMetaEvent.new(op=name, shapes=[list(meta[0])],
                                  dtypes=[(_dt.BY_NUMPY.get(meta[1]) or _dt.from_numpy(meta[1])).name])
    return InferMetaEvent.new(op=name, shapes=[list(s) for s, _ in meta],
                              dtypes=[(_dt.BY_NUMPY.get(d) or _dt.from_numpy(d)).name for _, d in meta])


# NOTE [ Kinds of call ]
#     Real dispatchers do the kernel search once per kind of call, not once per
#     call. A kind is the op, the selection flags and each input's dtype, device
#     and layout (``kind_of``); ``KINDS``, the kernel layer's one cache, maps it
#     to a ``Kind`` - the kernel, the outputs' device and layout - when calls of
#     that kind need no PrepareData, no CPU fallback and no layout transform
#     (``_simple_kind``), and to False otherwise. Calls of a known kind skip
#     ``parse_kernel_key``, ``select_kernel`` and ``prepare_inputs`` and go
#     straight to ``launch_and_check``: the same checks, errors and results. The
#     generated dygraph functions and array mode look kinds up with no recorder;
#     while recording, ``call_kernel`` does too when the selection is still the
#     one ``select_kernel`` holds (so it would answer ``cached: true``), and
#     re-emits the kind's ``kernel.key``, ``kernel.lookup`` and ``kernel.select``
#     events as fresh copies (``Kind.head``, built on the first recorded call):
#     the trace is the same, event for event. The Kind holds the Kernel object,
#     not its function (``kernel.fn`` is read at each call: the coursework
#     harness swaps a student's function in). ``KINDS`` is cleared when kernels
#     or backends are (un)registered (``on_change``).
KINDS: dict[tuple[Any, ...], Any] = {}
on_change(lambda op: KINDS.clear())


class Kind:
    """What calls of one kind share (NOTE [ Kinds of call ])."""

    __slots__ = ("kernel", "device", "layout", "name", "key", "selection", "head")

    def __init__(self, name: str, kernel: Any, device: str, key: KernelKey, selection: Any) -> None:
        self.kernel, self.device, self.layout = kernel, device, key.layout
        self.name, self.key, self.selection = name, key, selection
        self.head: tuple[Any, ...] | None = None


def kind_of(op: "OpDef", inputs: list[Any]) -> tuple[Any, ...] | None:
    """The kind of this call (``KINDS``' key), or None when ``inputs`` are not all plain tensors."""
    sig: list[Any] = [op, flags.enable_api_kernel_fallback, flags.use_gpudnn]
    for t in inputs:
        if t is None or type(t) is list:
            return None
        sig.append(t._dtype)
        sig.append(t._device)
        sig.append(t._layout)
    return tuple(sig)


def kernel_of_kind(op: "OpDef", inputs: list[Any], sig: tuple[Any, ...]) -> Any:
    """The ``Kind`` of calls of kind ``sig`` (``inputs`` are one such call's), or False when they need
    PrepareData, a CPU fallback or a layout transform (the four layers then run)."""
    entry = KINDS.get(sig)
    if entry is None:
        key, device = parse_kernel_key(op, inputs)
        entry = _remember_kind(op, inputs, sig, key, device, select_kernel(op.name, key)[0])
    return entry


def _remember_kind(op: "OpDef", inputs: list[Any], sig: tuple[Any, ...], key: KernelKey, device: str,
                   selection: Any) -> Any:
    kernel = selection.kernel
    entry = KINDS[sig] = Kind(op.name, kernel, device, key, selection) if _simple_kind(op, inputs, key, device, kernel) \
        else False
    return entry


def recorded_kind(op: "OpDef", inputs: list[Any]) -> Kind | None:
    """The known ``Kind`` of a recorded call whose selection is still cached, with its head events."""
    sig = kind_of(op, inputs)
    kind = KINDS.get(sig) if sig is not None else None
    if not kind or not is_cached(kind.name, kind.key, kind.selection):
        return None
    if kind.head is None:
        kind.head = (KernelKeyEvent.new(op=kind.name, backend=kind.key.backend, layout=kind.layout,
                                        dtype=kind.key.dtype.name),) + _selection_events(kind.name, kind.selection, True)
    return kind


def _simple_kind(op: "OpDef", inputs: list[Any], key: KernelKey, device: str, kernel: Any) -> bool:
    """Whether calls of this kind need no PrepareData, CPU fallback or layout transform (plain tensor inputs).
    A kernel registered for one layout (``max_pool2d``'s NCHW) needs no transform of inputs already in it."""
    kkey = kernel.key
    return (
        (kkey.layout == ALL_LAYOUT or all(t._layout == kkey.layout for t in inputs))
        and not kernel.arg_overrides
        and not kernel.channels_last
        and kernel.out_layout in (ALL_LAYOUT, key.layout)
        and device_of_backend(kkey.backend) == device
        and all(t._device == device and _keeps_dtype(op, i, t, kkey.dtype) for i, t in enumerate(inputs))
    )


def _keeps_dtype(op: "OpDef", index: int, t: Any, kernel_dtype: Any) -> bool:
    """Whether PrepareData leaves input ``index``'s dtype as it is (``prepare_data``'s own rule):
    it has the kernel's dtype, or the op casts no dtypes, or the input takes no part in the key
    (``cross_entropy``'s int64 target)."""
    return t._dtype is kernel_dtype or not op.transform_dtype or index not in op.key_inputs


def out_of_memory(op: "OpDef", kernel: Any, meta: Any, exc: MemoryError) -> MemoryError:
    """NumPy's bare MemoryError names neither the op nor why: say both."""
    if meta is None:
        return MemoryError(f"{op.name}(): out of memory in kernel {kernel.name}: {exc}")
    shapes = ", ".join(str(tuple(s)) for s, _ in (meta if isinstance(meta, list) else [meta]))
    return MemoryError(f"{op.name}(): out of memory in kernel {kernel.name} computing an output of shape {shapes}: {exc}")


def _layout_back(op: str, array: Any, src: str, dst: str) -> Any:
    if array.ndim != 4:
        return array
    emit_transform(op, "out", "layout", src, dst)
    return transform_layout(array, src, dst)


class _MetaView:
    """Shape and dtype of an array seen in another layout (what InferMeta reads)."""

    __slots__ = ("shape", "ndim", "dtype", "size")

    def __init__(self, shape: tuple[int, ...], dtype: Any, size: int) -> None:
        self.shape, self.ndim, self.dtype, self.size = shape, len(shape), dtype, size


_TO_NCHW = (0, 3, 1, 2)
_TO_NHWC = (0, 2, 3, 1)


def _infer_meta_channels_last(op: "OpDef", kernel: Any, arrays: list[Any], attrs: dict[str, Any]) -> tuple[Any, Any]:
    """InferMeta for a kernel with NHWC arguments or outputs.

    InferMeta functions are written for NCHW (as the op is documented), so
    NHWC arguments are shown to them as NCHW views; the promised outputs are
    then put in the kernel's output layout to check what the kernel returns.
    Returns ``(meta in NCHW, meta in the kernel's output layout)``.
    """
    views: list[Any] = []
    for i, a in enumerate(arrays):
        if a is not None and not isinstance(a, list) and a.ndim == 4 and kernel.arg_def(i).layout == Layout.NHWC:
            a = _MetaView(tuple(a.shape[p] for p in _TO_NCHW), a.dtype, a.size)
        views.append(a)
    meta = op.infer_meta(op.name, *views, **attrs)  # type: ignore[misc]
    if kernel.out_layout != Layout.NHWC:
        return meta, meta

    def nhwc(m: Any) -> Any:
        shape, dtype = m
        return (tuple(shape[p] for p in _TO_NHWC), dtype) if len(shape) == 4 else m

    return meta, ([nhwc(m) for m in meta] if isinstance(meta, list) else nhwc(meta))


def _check_outputs(op: "OpDef", kernel_name: str, meta: Any, out: Any) -> None:
    """A kernel must produce what InferMeta promised (catches kernel bugs early)."""
    if isinstance(meta, list):
        outs = out if isinstance(out, tuple) else (out,)
        pairs = zip(meta, outs)
    else:
        pairs = ((meta, out),)
    for (shape, dtype), arr in pairs:
        if arr.shape != shape or arr.dtype != dtype:
            raise RuntimeError(
                f"{op.name}(): kernel {kernel_name} returned shape {tuple(arr.shape)} dtype {arr.dtype}, but "
                f"InferMeta computed shape {tuple(shape)} dtype {dtype} (a kernel bug)"
            )


# Re-exported for backends that need the name.
CPU = Backend.CPU
