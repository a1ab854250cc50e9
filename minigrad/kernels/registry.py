"""The kernel registry (Paddle's ``KernelFactory``, paddle/phi/core/kernel_factory.h).

Kernels are pure functions over arrays, registered per (op, backend, layout,
dtype) with a decorator::

    @register_kernel("mul", Backend.CPU, dtypes=NUMERIC)
    def mul(x, y):
        return np.multiply(x, y)

One function may be registered for many dtypes; each (backend, layout,
dtype) gets its own ``Kernel`` entry, as in Paddle's registry.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..devices import backend_of_device
from ..dtypes import ALL_DTYPES, DType, bfloat16, float32
from .key import Backend, KernelKey, Layout

__all__ = ["Kernel", "ArgDef", "register_kernel", "unregister_kernels", "kernels_for", "kernel_of", "in_dtype",
           "registered_ops", "KERNELS"]


class ArgDef:
    """What a kernel expects of one input (Paddle's ``TensorArgDef``, paddle/phi/core/kernel_factory.h).

    ``backend`` may be ``Backend.ALL_BACKEND`` (the argument is not moved);
    ``dtype`` ``None`` means "any dtype" (never transformed).
    """

    __slots__ = ("backend", "layout", "dtype")

    def __init__(self, backend: str, layout: str, dtype: DType | None) -> None:
        self.backend = backend
        self.layout = layout
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"ArgDef({self.backend}, {self.layout}, {getattr(self.dtype, 'name', None)})"


class Kernel:
    """A registered kernel: the function plus the key it serves and its arg defs."""

    __slots__ = ("fn", "op", "key", "name", "arg_defs", "arg_overrides", "out_layout", "channels_last")

    def __init__(
        self,
        fn: Callable[..., Any],
        op: str,
        key: KernelKey,
        name: str,
        arg_overrides: dict[int, dict[str, Any]] | None = None,
        out_layout: str | None = None,
    ) -> None:
        self.fn = fn
        self.op = op
        self.key = key
        self.name = name
        self.arg_overrides = arg_overrides or {}
        self.arg_defs: dict[int, ArgDef] = {}
        #: The layout of the kernel's 4-D outputs (``ALL_LAYOUT``: the request's layout).
        self.out_layout = out_layout if out_layout is not None else key.layout
        #: Some argument or output is NHWC: InferMeta (written for NCHW) then sees NCHW views.
        self.channels_last = Layout.NHWC in (
            key.layout, self.out_layout, *(o.get("layout") for o in self.arg_overrides.values())
        )

    def arg_def(self, i: int) -> ArgDef:
        """The def of input ``i``: the kernel's own key unless overridden.

        A library-accelerated kernel's backend (``GPUDNN``) names the device of
        its base backend (``GPU``): PrepareData resolves it (``base_backend``).
        """
        d = self.arg_defs.get(i)
        if d is None:
            o = self.arg_overrides.get(i, {})
            d = ArgDef(
                o.get("backend", self.key.backend),
                o.get("layout", self.key.layout),
                o.get("dtype", self.key.dtype),
            )
            self.arg_defs[i] = d
        return d

    def __repr__(self) -> str:
        return f"<Kernel {self.name} {self.key}>"


#: op name -> KernelKey -> Kernel
KERNELS: dict[str, dict[KernelKey, Kernel]] = {}

#: Called with the op name whenever its kernels change (selection caches listen).
_listeners: list[Callable[[str], None]] = []


def register_kernel(
    op: str | Sequence[str],
    backend: str = Backend.CPU,
    layout: str = Layout.ALL_LAYOUT,
    dtypes: Iterable[DType] = ALL_DTYPES,
    name: str | None = None,
    arg_overrides: dict[int, dict[str, Any]] | None = None,
    out_layout: str | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register ``fn`` as the kernel of ``op`` for each dtype in ``dtypes``.

    Args:
        op: op name (or several names sharing one function).
        backend: ``Backend.CPU``, ``GPU``, ``GPUDNN`` or a registered custom backend.
        layout: the layout the kernel serves (``ALL_LAYOUT`` for any).
        dtypes: the dtypes it serves.
        name: display name (default ``"<backend>/<function name>"``).
        arg_overrides: per-input overrides of the arg def, e.g.
            ``{1: {"backend": Backend.ALL_BACKEND}}`` (input 1 is never moved),
            ``{0: {"layout": Layout.NHWC}}`` (input 0 is transposed to NHWC),
            ``{0: {"dtype": float32}}`` (input 0 is cast when the op allows dtype transforms).
        out_layout: the layout of the kernel's 4-D outputs (default: ``layout``);
            when it differs from the request's layout the kernel layer
            transposes the outputs back (``data.transform`` what=layout).
    """
    ops = [op] if isinstance(op, str) else list(op)
    dtypes = tuple(dtypes)

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for op_name in ops:
            table = KERNELS.setdefault(op_name, {})
            for dt in dtypes:
                if dt is bfloat16 and backend != Backend.CPU:
                    continue  # CuPy has no bfloat16: such ops take the CPU kernels (docs/pytorch-coverage.md)
                key = KernelKey(backend, layout, dt)
                # (cast excepted: its float32 result from a bfloat16 input is the answer, not a wide step)
                run = in_float32(fn) if dt is bfloat16 and backend == Backend.CPU and op_name != "cast" else fn
                table[key] = Kernel(
                    run, op_name, key, name or f"{backend.lower()}/{getattr(fn, '__name__', 'kernel')}", arg_overrides,
                    out_layout,
                )
            for listener in _listeners:
                listener(op_name)
        return fn

    return deco


_BFLOAT16 = bfloat16.np


def _widen(value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.dtype == _BFLOAT16:
        return value.astype(np.float32)
    if isinstance(value, list):
        return [_widen(v) for v in value]
    return value


def _narrow(value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        return value.astype(_BFLOAT16)
    if isinstance(value, np.float32):  # a ufunc's result for 0-d inputs: a NumPy scalar, not an array
        return np.asarray(value, dtype=_BFLOAT16)
    if isinstance(value, (tuple, list)):
        return type(value)(_narrow(v) for v in value)
    return value


def in_float32(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` for bfloat16 arrays as PyTorch's CPU kernels run it: inputs widened to float32 (its
    "opmath" type), the float32 results rounded to bfloat16 once - so a sum or a softmax rounds at the
    end, not at every step."""

    @functools.wraps(fn)
    def kernel(*args: Any, **kwargs: Any) -> Any:
        # a reduction given ``dtype=`` (``in_dtype``) returns that dtype: bfloat16 computed in float32 and rounded
        # once, another dtype as it is
        target = kwargs.get("dtype")
        if target is bfloat16:
            kwargs = {**kwargs, "dtype": float32}
        out = fn(*(_widen(a) for a in args), **{k: _widen(v) for k, v in kwargs.items()})
        return out if isinstance(target, DType) and target is not bfloat16 else _narrow(out)

    return kernel


def in_dtype(op: str, backend: str, x: Any, dtype: DType, *args: Any, **kwargs: Any) -> Any:
    """``op`` computed in ``dtype``: ``x`` cast to it, then the kernel registered for it (same backend).

    A reduction given ``dtype=`` (``x.sum(dtype=torch.float32)``) reads its input in that dtype, as PyTorch's
    one op does (``SumBackward0``, no ``ToCopyBackward0`` before it); its kernel for ``x``'s dtype hands the
    call here when the two differ.
    """
    kern = kernels_for(op).get(KernelKey(backend, Layout.ALL_LAYOUT, dtype))
    if kern is None:  # (bfloat16 on the GPU)
        raise RuntimeError(f'"{op}" not implemented for {dtype} on the {backend.lower()}')
    return kern.fn(x.astype(dtype.np), *args, dtype=dtype, **kwargs)


def unregister_kernels(op: str, backend: str) -> None:
    """Remove every kernel of ``op`` on ``backend`` (used by tests and custom backends)."""
    table = KERNELS.get(op, {})
    for key in [k for k in table if k.backend == backend]:
        del table[key]
    for listener in _listeners:
        listener(op)


def kernels_for(op: str) -> dict[KernelKey, Kernel]:
    """The registered kernels of ``op`` (empty if none)."""
    return KERNELS.get(op, {})


def kernel_of(op: str, t: Any) -> Any:
    """The kernel function of ``op`` registered for tensor ``t``'s backend and dtype (any layout), or None: how
    the optimizers' foreach forms, clipping and batch norm's running statistics find the backend's
    multi-tensor kernels."""
    kern = kernels_for(op).get(KernelKey(backend_of_device(t._device).name, Layout.ALL_LAYOUT, t._dtype))
    return None if kern is None else kern.fn


def registered_ops() -> list[str]:
    """Names of all ops with at least one kernel."""
    return sorted(KERNELS)


def on_change(listener: Callable[[str | None], None]) -> None:
    """Call ``listener(op)`` whenever kernels of ``op`` are (un)registered (``None``: any op may be affected)."""
    _listeners.append(listener)


def notify_change(op: str | None = None) -> None:
    """Tell the listeners that the kernels of ``op`` (``None``: of any op) may have changed.

    ``register_backend`` calls it: a new backend changes the search order of keys on it.
    """
    for listener in _listeners:
        listener(op)
