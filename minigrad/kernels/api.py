"""The kernel layer (seed 004 §2.4, Paddle's generated C++ API ``paddle::experimental::<op>``).

``call_kernel(op, inputs, attrs)`` does, in order:

1. **KernelKey**: backend, layout and dtype parsed from the inputs
   (``ParseKernelKeyByInputArgs``): the promoted dtype of the inputs that
   take part in promotion, the highest-priority backend among their devices,
   the first input's layout;
2. **selection** in the registry (``select.select_kernel``, cached per key);
3. **PrepareData**: each input transformed to the kernel's argument def
   (backend and layout always, dtype only when the op asks);
4. **InferMeta**: output shapes and dtypes computed and checked
   (``ValueError`` with the op, argument and shapes);
5. the **kernel call**;
6. after a CPU fallback, the outputs are moved back to the requested device;
   a kernel that writes its outputs in another layout than the request's
   (``Kernel.out_layout``) has them transposed back.

Each step emits its event when a recorder is active.
"""

from __future__ import annotations

import time
import warnings
from typing import TYPE_CHECKING, Any

from .. import dtypes as _dt
from .. import flags
from ..tracing import bus
from ..tracing.events import InferMetaEvent, KernelKeyEvent, KernelLaunch, KernelLookup, KernelSelect
from .backends import backend_of_device, device_of_backend, move_array
from .key import Backend, KernelKey, Layout
from .prepare_data import emit_transform, prepare_data, transform_layout
from .registry import on_change
from .select import _cache as _select_cache  # read only: is a selection still the cached one?
from .select import select_kernel

if TYPE_CHECKING:  # pragma: no cover
    from ..ops.registry import OpDef
    from ..tensor import Tensor

__all__ = ["call_kernel", "parse_kernel_key", "specialise", "specialised_kernel", "run_specialised", "out_of_memory"]

_float32 = _dt.float32
ALL_LAYOUT = Layout.ALL_LAYOUT


def parse_kernel_key(op: "OpDef", inputs: list[Any]) -> tuple[KernelKey, str]:
    """The KernelKey for ``inputs`` and the device the outputs belong on."""
    dtype = None
    device = None
    layout = None
    for i in op.key_inputs:
        v = inputs[i]
        if v is None:
            continue
        for t in v if isinstance(v, list) else (v,):
            if dtype is None:
                dtype, device, layout = t._dtype, t._device, t._layout
                continue
            td = t._dtype
            if td is not dtype and td.rank > dtype.rank:
                dtype = td
            if t._device != device and device == "cpu":
                # Any non-CPU device outranks the CPU (Paddle's highest-priority backend).
                device = t._device
    if dtype is None:  # only non-key inputs (should not happen for real ops)
        first = inputs[0][0] if isinstance(inputs[0], list) else inputs[0]
        dtype, device, layout = first._dtype, first._device, first._layout
    if op.promote_float and not dtype.is_floating:
        dtype = _float32
    backend = backend_of_device(device).name
    return KernelKey(backend, layout, dtype), device


# NOTE [ Floating-point warnings stay inside the kernels ]
#     ``log(0)``, ``1 / 0`` and ``0 / 0`` give ``-inf``, ``inf`` and ``nan``, as in
#     PyTorch, which says nothing; NumPy would print a ``RuntimeWarning`` from the
#     kernel's line for each (DESIGN §7). A warnings filter ignores
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


def call_kernel(op: "OpDef", inputs: list[Any], attrs: dict[str, Any]) -> tuple[Any, str, str]:
    """Run ``op`` through the kernel layer. Returns ``(output array(s), device, layout)``."""
    if warnings.filters is not _filters_seen:
        _silence_fp_warnings()
    rec = bus.recorder
    name = op.name
    sig = None
    if rec is not None:
        sig = specialise(op, inputs)
        entry = _recorded_kinds.get(sig) if sig is not None else None
        if entry is not None and _select_cache.get(entry[0]) is entry[1]:  # NOTE [ Recorded calls of a known kind ]
            return _call_recorded(op, inputs, attrs, rec, entry)
    key, device = parse_kernel_key(op, inputs)
    if rec is not None:
        rec.emit_copies(_key_events(name, key))
    selection, cached = select_kernel(name, key)
    kernel = selection.kernel
    if rec is not None:
        rec.emit_copies(_selection_events(name, selection, cached))
        if sig is not None and _simple_kind(op, inputs, key, device, kernel):
            _remember_recorded_kind(sig, key, device, selection)
    kkey = kernel.key
    kernel_device = device_of_backend(kkey.backend)
    kernel_dtype = kkey.dtype
    # PrepareData has nothing to do when every input already lives where the kernel runs,
    # in its dtype, and the kernel takes any layout (the common case): skip the call.
    if kkey.layout == ALL_LAYOUT and not kernel.arg_overrides:
        arrays = []
        for v in inputs:
            if type(v) is list or v is None or v._device != kernel_device or v._dtype is not kernel_dtype:
                arrays = prepare_data(op, kernel, inputs, key)
                break
            arrays.append(v._data)
    else:
        arrays = prepare_data(op, kernel, inputs, key)

    # InferMeta: shapes and dtypes of the outputs, checked before the kernel runs.
    if kernel.channels_last:
        meta, check = _infer_meta_channels_last(op, kernel, arrays, attrs)
    else:
        meta = check = op.infer_meta(name, *arrays, **attrs)  # type: ignore[misc]
    try:
        if rec is None:
            out = kernel.fn(*arrays, **attrs)
        else:
            rec.emit(_infer_meta_event(name, meta))
            t0 = time.perf_counter_ns()
            out = kernel.fn(*arrays, **attrs)
            rec.emit(KernelLaunch.new(op=name, kernel=kernel.name, backend=kkey.backend, wall_ns=time.perf_counter_ns() - t0))
    except MemoryError as exc:
        raise out_of_memory(op, kernel, meta, exc) from None

    if type(check) is not tuple or type(out) is tuple or out.shape != check[0] or out.dtype != check[1]:
        _check_outputs(op, kernel.name, check, out)

    if kernel_device != device:
        # After a CPU fallback the outputs return to the requested device (TransDataBackend).
        if isinstance(out, tuple):
            out = tuple(move_array(o, kernel_device, device) for o in out)
        else:
            out = move_array(out, kernel_device, device)
        emit_transform(name, "out", "backend", kernel.key.backend, backend_of_device(device).name)
    out_layout = kernel.out_layout
    if out_layout == Layout.ALL_LAYOUT or out_layout == key.layout:
        return out, device, key.layout
    # The kernel wrote its 4-D outputs in its own layout (e.g. an NHWC-only
    # kernel fed NCHW tensors): transpose them back to the requested layout.
    if isinstance(out, tuple):
        out = tuple(_layout_back(name, o, out_layout, key.layout) for o in out)
    else:
        out = _layout_back(name, out, out_layout, key.layout)
    return out, device, key.layout


# NOTE [ Kernel-layer events are cached ]
#     While recording, every op call emits ``kernel.key``, one ``kernel.lookup`` per
#     probe and ``kernel.select``; their fields depend only on the op, the key and
#     the selection (which ``select_kernel`` itself caches per key, with its probes).
#     They are built once per (op, key) and (op, selection, cached) and re-emitted
#     as fresh copies, each stamped with its own ``seq`` and ``ts_ns`` by the
#     recorder (which makes them when its events are read: NOTE [ Copies are made
#     when read ] in tracing/recorder.py): the trace holds the same events, in the
#     same order, with the same fields, as building them anew at every call. The
#     caches are cleared with the registry's (``on_change``), like the selection cache.
_key_event_cache: dict[tuple[str, KernelKey], tuple[Any, ...]] = {}
_selection_event_cache: dict[tuple[str, int, bool], tuple[Any, tuple[Any, ...]]] = {}
_MAX_SELECTION_EVENTS = 4096
on_change(lambda op: (_key_event_cache.clear(), _selection_event_cache.clear()))


def _key_events(name: str, key: KernelKey) -> tuple[Any, ...]:
    """``(kernel.key,)`` for ``key``: built on first use, then the cached template."""
    ck = (name, key)
    events = _key_event_cache.get(ck)
    if events is None:
        events = _key_event_cache[ck] = (
            KernelKeyEvent.new(op=name, backend=key.backend, layout=key.layout, dtype=key.dtype.name),
        )
    return events


def _selection_events(name: str, selection: Any, cached: bool) -> tuple[Any, ...]:
    """The ``kernel.lookup`` per probe and ``kernel.select`` of ``selection``, built once per (op, selection, cached)."""
    ck = (name, id(selection), cached)
    entry = _selection_event_cache.get(ck)
    if entry is not None and entry[0] is selection:  # ``is``: an id may be reused after the selection is gone
        return entry[1]
    kernel = selection.kernel
    kk = kernel.key
    events = tuple(
        KernelLookup.new(op=name, backend=p.key.backend, layout=p.key.layout, dtype=p.key.dtype.name, step=p.step,
                         found=p.found)
        for p in selection.probes
    ) + (
        KernelSelect.new(op=name, kernel=kernel.name, backend=kk.backend, layout=kk.layout, dtype=kk.dtype.name,
                         fallback_cpu=selection.fallback_cpu, cached=cached),
    )
    if len(_selection_event_cache) >= _MAX_SELECTION_EVENTS:
        # ``select.clear_cache()`` alone (tests call it) makes new selections and leaves old entries here.
        _selection_event_cache.clear()
    _selection_event_cache[ck] = (selection, events)
    return events


# NOTE [ Recorded calls of a known kind ]
#     While recording, a call of a kind seen before - the same op, flags and inputs'
#     dtype/device/layout (``specialise``'s key) - whose kernel needs no PrepareData, no
#     CPU fallback and no layout transform, and whose selection is still the one
#     ``select_kernel`` has cached (so it would answer ``cached: true``), skips the key
#     parsing and the search: one entry holds the key's device and layout, the kernel
#     and the templates of its ``kernel.key``, ``kernel.lookup`` and ``kernel.select``
#     events, per output shape and dtype the ``infer_meta`` event after them, and its
#     ``kernel.launch`` (whose copy gets the call's ``wall_ns``). The
#     events are re-emitted as fresh copies in one call (``Recorder.emit_copies``), in
#     the order the full path emits them; if InferMeta raises, the events before it are
#     emitted first, as the full path would have. The trace is the same, event for event.
_recorded_kinds: dict[tuple[Any, ...], tuple[Any, ...]] = {}
_MAX_RECORDED_KINDS = 4096
_MAX_METAS_PER_KIND = 64
on_change(lambda op: _recorded_kinds.clear())


def _remember_recorded_kind(sig: tuple[Any, ...], key: KernelKey, device: str, selection: Any) -> None:
    """Store the entry of NOTE [ Recorded calls of a known kind ] for calls of kind ``sig``."""
    if len(_recorded_kinds) >= _MAX_RECORDED_KINDS:
        _recorded_kinds.clear()
    name = sig[0].name
    select_key = (name, key, sig[1], sig[2])  # ``select_kernel``'s cache key (the flags are in ``sig``)
    head = _key_events(name, key) + _selection_events(name, selection, True)
    kernel = selection.kernel
    launch = KernelLaunch.new(op=name, kernel=kernel.name, backend=kernel.key.backend, wall_ns=0)  # a template
    _recorded_kinds[sig] = (select_key, selection, device, key.layout, head, {}, launch)


def _call_recorded(op: "OpDef", inputs: list[Any], attrs: dict[str, Any], rec: Any,
                   entry: tuple[Any, ...]) -> tuple[Any, str, str]:
    """``call_kernel`` for a recorded call of a known kind (NOTE [ Recorded calls of a known kind ])."""
    _, selection, device, layout, head, metas, launch = entry
    kernel = selection.kernel
    name = op.name
    arrays = [t._data for t in inputs]
    try:
        check = op.infer_meta(name, *arrays, **attrs)  # type: ignore[misc]
    except BaseException:
        rec.emit_copies(head)
        raise
    events = metas.get(check) if type(check) is tuple else None
    if events is None:
        events = head + (_infer_meta_event(name, check),)
        if type(check) is tuple and len(metas) < _MAX_METAS_PER_KIND:
            metas[check] = events
    rec.emit_copies(events)
    t0 = time.perf_counter_ns()
    try:
        out = kernel.fn(*arrays, **attrs)
    except MemoryError as exc:
        raise out_of_memory(op, kernel, check, exc) from None
    rec.emit_launch(launch, time.perf_counter_ns() - t0)
    if type(check) is not tuple or type(out) is tuple or out.shape != check[0] or out.dtype != check[1]:
        _check_outputs(op, kernel.name, check, out)
    return out, device, layout


def _infer_meta_event(name: str, meta: Any) -> Any:
    """The ``infer_meta`` event of an InferMeta result (one ``(shape, dtype)`` or a list of them)."""
    if not isinstance(meta, list):  # one output (the common case): no comprehensions
        return InferMetaEvent.new(op=name, shapes=[list(meta[0])], dtypes=[_dtype_name(meta[1])])
    return InferMetaEvent.new(op=name, shapes=[list(s) for s, _ in meta], dtypes=[_dtype_name(d) for _, d in meta])


#: ``str(minigrad dtype)`` by NumPy dtype, for ``infer_meta`` events.
_dtype_names: dict[Any, str] = {}


def _dtype_name(np_dtype: Any) -> str:
    name = _dtype_names.get(np_dtype)
    if name is None:
        name = _dtype_names[np_dtype] = str(_dt.from_numpy(np_dtype))
    return name


# NOTE [ The specialised eager path ]
#     Real dispatchers do the kernel search once per kind of call, not once per
#     call. With no recorder active, the dispatch layer asks ``specialised_kernel``
#     for the kernel of (op, each input's dtype/device/layout, the selection
#     flags): the first such call walks the kernel layer as usual, and when
#     PrepareData has nothing to do for it (inputs already on the kernel's device
#     in its dtype, any layout, no CPU fallback, one output) the kernel function
#     is remembered. Later calls of the same kind run InferMeta and the kernel
#     directly - the same checks, errors and results, no search. The cache is
#     cleared when kernels or backends are (un)registered; the flags are part of
#     its key; with AMP or a recorder active the full path runs (and emits every
#     event).
_specialised: dict[tuple[Any, ...], Any] = {}
on_change(lambda op: _specialised.clear())


def specialise(op: "OpDef", inputs: list[Any]) -> tuple[Any, ...] | None:
    """The cache key of this kind of call, or None when ``inputs`` are not all plain tensors."""
    sig: list[Any] = [op, flags.enable_api_kernel_fallback, flags.use_gpudnn]
    for t in inputs:
        if t is None or type(t) is list:
            return None
        sig.append(t._dtype)
        sig.append(t._device)
        sig.append(t._layout)
    return tuple(sig)


def specialised_kernel(op: "OpDef", inputs: list[Any], sig: tuple[Any, ...]) -> Any:
    """``(kernel, output device, output layout)`` for calls of kind ``sig``, or False
    when they need PrepareData, a CPU fallback or layout transforms (the full path then runs)."""
    entry = _specialised.get(sig)
    if entry is not None:
        return entry
    key, device = parse_kernel_key(op, inputs)
    selection, _ = select_kernel(op.name, key)
    kernel = selection.kernel
    # The Kernel object, not its function: ``kernel.fn`` is read at each call (the
    # coursework harness swaps a student's function into it).
    entry = _specialised[sig] = (kernel, device, key.layout) if _simple_kind(op, inputs, key, device, kernel) else False
    return entry


def _simple_kind(op: "OpDef", inputs: list[Any], key: KernelKey, device: str, kernel: Any) -> bool:
    """Whether calls of this kind need no PrepareData, CPU fallback or layout transform (plain tensor inputs)."""
    kkey = kernel.key
    return (
        kkey.layout == ALL_LAYOUT
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


def run_specialised(op: "OpDef", kernel: Any, arrays: list[Any], attrs: dict[str, Any]) -> Any:
    """InferMeta, the kernel and the output check of a specialised call (no events, no search)."""
    if warnings.filters is not _filters_seen:
        _silence_fp_warnings()
    check = op.infer_meta(op.name, *arrays, **attrs)  # type: ignore[misc]
    try:
        out = kernel.fn(*arrays, **attrs)
    except MemoryError as exc:  # as in call_kernel
        raise out_of_memory(op, kernel, check, exc) from None
    if type(out) is tuple or type(check) is not tuple or out.shape != check[0] or out.dtype != check[1]:
        _check_outputs(op, kernel.name, check, out)
    return out


def out_of_memory(op: "OpDef", kernel: Any, meta: Any, exc: MemoryError) -> MemoryError:
    """NumPy's bare MemoryError names neither the op nor why: say both."""
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
