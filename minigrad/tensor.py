"""Tensor and the creation functions (DESIGN §8).

A ``Tensor`` is an array (NumPy on the CPU, CuPy on the GPU) plus:

- ``dtype`` (a minigrad dtype), ``device`` (``"cpu"``, ``"gpu"`` ...) and a
  ``layout`` (``NCHW`` by default, as Paddle's DenseTensor);
- an ``AutogradMeta`` when it requires grad (``autograd/meta.py``);
- a shared version counter, bumped by in-place ops (DESIGN §9 rule 8);
- a stable integer id used in events, and an optional name.

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    >>> y = (x * x).sum()
    >>> y.backward()
    >>> x.grad
    tensor([[2., 4.],
            [6., 8.]])
"""

from __future__ import annotations

import functools
import itertools
import math
import weakref
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from . import dtypes as _dt
from .autograd.grad_mode import GRAD_MODE
from .autograd.meta import AutogradMeta
from .dtypes import DType
from .kernels.backends import backend_of_device, canonical_device, move_array, to_numpy
from .kernels.key import Layout
from .tracing import bus
from .tracing.events import TensorCreate, TensorUpdate

__all__ = [
    "Tensor",
    "VersionCounter",
    "tensor",
    "channels_last",
    "zeros",
    "ones",
    "full",
    "arange",
    "randn",
    "rand",
    "zeros_like",
    "ones_like",
    "full_like",
    "manual_seed",
]

_tensor_ids = itertools.count(1)


class VersionCounter:
    """Counts in-place modifications of a storage; shared by a tensor, its views and detaches."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0

    def bump(self) -> int:
        self.value += 1
        return self.value


class Tensor:
    """An n-dimensional array with autograd (see the module docstring)."""

    __slots__ = ("_data", "_dtype", "_device", "_layout", "_meta", "_version", "_id", "_name", "__weakref__")

    # Tensors compare elementwise (``==`` builds a bool tensor), so hash by identity.
    __hash__ = object.__hash__
    # Make NumPy defer to our reflected operators (``np.float32(2) * x``).
    __array_priority__ = 1000

    # -- construction ------------------------------------------------------

    @classmethod
    def _make(cls, data: Any, dtype: DType, device: str = "cpu", layout: str = Layout.NCHW) -> "Tensor":
        """Wrap an array (no copy, no event): the fast path used by the engine."""
        t = object.__new__(cls)
        t._data = data
        t._dtype = dtype
        t._device = device
        t._layout = layout
        t._meta = None
        t._version = None
        t._id = next(_tensor_ids)
        t._name = None
        return t

    @classmethod
    def _scalar(cls, value: Any, dtype: DType, device: str) -> "Tensor":
        """A 0-d constant tensor for a Python number operand (announced when recording)."""
        data = np.asarray(value, dtype=dtype.np)
        if device != "cpu":
            data = move_array(data, "cpu", device)
        t = cls._make(data, dtype, device)
        if bus.recorder is not None:
            t._announce()
        return t

    def __init__(self, data: Any, dtype: Any = None, device: str = "cpu", requires_grad: bool = False) -> None:
        src = tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        self._data = src._data
        self._dtype = src._dtype
        self._device = src._device
        self._layout = src._layout
        self._meta = None
        self._version = None
        self._id = src._id
        self._name = None
        if requires_grad:
            self._meta = AutogradMeta(self._id)

    def _autograd_fields(self) -> dict[str, Any]:
        """The autograd part shared by ``tensor.create`` and ``tensor.update``."""
        meta = self._meta
        node = meta.grad_node if meta is not None else None
        return {
            "requires_grad": meta is not None,
            "is_leaf": node is None,
            "grad_node": node.id if node is not None else None,
            "out_slot": meta.out_slot if meta is not None else 0,
            "out_rank": meta.out_rank if meta is not None else 0,
        }

    def _announce(self) -> None:
        """Emit ``tensor.create`` for this tensor (callers check that a recorder is active)."""
        rec = bus.recorder
        if rec is None:
            return
        rec.announced.add(self._id)
        rec.emit(
            TensorCreate(
                tensor=self._id,
                name=self.name,
                shape=list(self._data.shape),
                dtype=self._dtype.name,
                device=self._device,
                value=rec.preview(self._data),
                **self._autograd_fields(),
            )
        )

    def _announce_update(self, op: str) -> None:
        """Emit ``tensor.update`` after an in-place op (new version, maybe a new grad node)."""
        rec = bus.recorder
        if rec is None:
            return
        rec.emit(
            TensorUpdate(
                tensor=self._id,
                op=op,
                version=self._version.value if self._version is not None else 0,
                value=rec.preview(self._data),
                **self._autograd_fields(),
            )
        )

    # -- properties ----------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        """The tensor's shape as a tuple of ints."""
        return self._data.shape

    def size(self, dim: int | None = None) -> Any:
        """``shape``, or its ``dim``-th entry."""
        return self._data.shape if dim is None else self._data.shape[dim]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def device(self) -> str:
        return self._device

    @property
    def layout(self) -> str:
        return self._layout

    @property
    def id(self) -> int:
        """Stable integer id (the one events use)."""
        return self._id

    @property
    def name(self) -> str:
        """Display name: the one given, else ``t<id>``."""
        return self._name if self._name is not None else f"t{self._id}"

    @name.setter
    def name(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"Tensor.name must be str, but got {type(value).__name__}")
        self._name = value
        if self._meta is not None:
            self._meta.name = value
        if bus.recorder is not None:
            self._announce()

    @property
    def requires_grad(self) -> bool:
        return self._meta is not None

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"requires_grad must be bool, but got {type(value).__name__}")
        meta = self._meta
        if meta is not None and meta.grad_node is not None:
            if value:
                return
            raise RuntimeError(
                "you can only change requires_grad flags of leaf tensors; this tensor has a grad_fn "
                f"({meta.grad_node.display_name}). Use y = x.detach() to get a tensor that does not require grad."
            )
        if value and meta is None:
            if not self._dtype.is_floating:
                raise RuntimeError(
                    f"only tensors of floating point dtype can require gradients, but this tensor is {self._dtype}"
                )
            self._meta = AutogradMeta(self._id, self._name)
        elif not value:
            self._meta = None

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Set ``requires_grad`` in place; returns ``self``."""
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors without history (created by the user, or not requiring grad)."""
        return self._meta is None or self._meta.grad_node is None

    @property
    def grad_fn(self) -> Any:
        """The grad node that computes this tensor's gradient (``None`` for leaves)."""
        return self._meta.grad_node if self._meta is not None else None

    @property
    def grad(self) -> "Tensor | None":
        """The accumulated gradient (leaves, and non-leaves after ``retain_grad()``)."""
        return self._meta.grad if self._meta is not None else None

    @grad.setter
    def grad(self, value: "Tensor | None") -> None:
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"assigned grad must be a Tensor or None, but got {type(value).__name__}")
        if value is not None and value.shape != self.shape:
            raise RuntimeError(f"assigned grad has shape {tuple(value.shape)}, but the tensor has shape {tuple(self.shape)}")
        if self._meta is None:
            if value is None:
                return
            raise RuntimeError("cannot assign .grad to a tensor that does not require grad")
        self._meta.grad = value

    @property
    def version(self) -> int:
        """How many in-place modifications this storage has seen."""
        return self._version.value if self._version is not None else 0

    @property
    def T(self) -> "Tensor":
        """The tensor with its dimensions reversed."""
        from .ops import permute

        return permute(self, tuple(range(self.ndim - 1, -1, -1)))

    # -- conversion --------------------------------------------------------

    def numpy(self) -> np.ndarray:
        """The values as a NumPy array (shares memory for CPU tensors)."""
        return to_numpy(self._data)

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"item(): a Tensor with {self._data.size} elements cannot be converted to a Python scalar"
            )
        return to_numpy(self._data).reshape(()).item()

    def tolist(self) -> Any:
        """The values as (nested) Python lists."""
        return to_numpy(self._data).tolist()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = to_numpy(self._data)
        return arr.astype(dtype) if dtype is not None else arr

    def detach(self) -> "Tensor":
        """A tensor sharing this storage (and version counter) that does not require grad."""
        t = Tensor._make(self._data, self._dtype, self._device, self._layout)
        if self._version is None:
            self._version = VersionCounter()
        t._version = self._version
        if bus.recorder is not None:
            t._announce()
        return t

    def detach_copy(self) -> "Tensor":
        """A detached tensor with its own copy of the values."""
        return Tensor._make(self._data.copy(), self._dtype, self._device, self._layout)

    def clone(self) -> "Tensor":
        """A copy that stays in the graph (gradient flows back to ``self``)."""
        from .ops import clone

        return clone(self)

    def to(self, device: str | None = None, dtype: Any = None) -> "Tensor":
        """Move to ``device`` and/or cast to ``dtype`` (differentiable)."""
        from .ops.device import to_device

        out = self
        if dtype is not None:
            out = out.astype(dtype)
        if device is not None:
            if not isinstance(device, str):
                raise TypeError(f"to(): argument 'device' must be str, but got {type(device).__name__}")
            backend_of_device(device, "to()")  # unknown device / missing CuPy -> clear error
            device = canonical_device(device)
            if device != out._device:
                out = to_device(out, device)
        return out

    def cpu(self) -> "Tensor":
        return self.to("cpu")

    def gpu(self) -> "Tensor":
        return self.to("gpu")

    def cuda(self) -> "Tensor":
        """PyTorch's spelling of ``gpu()``."""
        return self.to("gpu")

    def astype(self, dtype: Any) -> "Tensor":
        """Cast to ``dtype`` (differentiable between float dtypes)."""
        from .ops import cast

        return cast(self, dtype)

    def float(self) -> "Tensor":
        return self.astype(_dt.float32)

    def double(self) -> "Tensor":
        return self.astype(_dt.float64)

    def half(self) -> "Tensor":
        return self.astype(_dt.float16)

    def long(self) -> "Tensor":
        return self.astype(_dt.int64)

    def int(self) -> "Tensor":
        return self.astype(_dt.int32)

    def bool(self) -> "Tensor":
        return self.astype(_dt.bool_)

    # -- autograd ----------------------------------------------------------

    def backward(self, grad_tensor: "Tensor | None" = None, retain_graph: bool = False) -> None:
        """Compute the gradients of this tensor w.r.t. the graph's leaves (``run_backward``).

        Args:
            grad_tensor: the seed gradient; may be omitted only for one-element tensors.
            retain_graph: keep the graph's saved tensors so backward can run again.
        """
        from .autograd.engine import run_backward

        if grad_tensor is not None and not isinstance(grad_tensor, Tensor):
            raise TypeError(f"backward(): argument 'grad_tensor' (position 0) must be Tensor or None, but got {type(grad_tensor).__name__}")
        if not isinstance(retain_graph, bool):
            raise TypeError(f"backward(): argument 'retain_graph' (position 1) must be bool, but got {type(retain_graph).__name__}")
        run_backward([self], [grad_tensor], retain_graph=retain_graph)

    def register_hook(self, hook: Callable[["Tensor"], "Tensor | None"]) -> Any:
        """Register ``hook(grad) -> Tensor | None`` to run on this tensor's gradient.

        Returns a handle with ``.remove()``. Several hooks chain in
        registration order; a returned tensor replaces the gradient.
        """
        if not callable(hook):
            raise TypeError(f"register_hook(): argument 'hook' must be callable, but got {type(hook).__name__}")
        meta = self._meta
        if meta is None:
            raise RuntimeError(
                "cannot register a hook on a tensor that does not require grad "
                "(create it with requires_grad=True, or hook a tensor computed from one)"
            )
        if meta.grad_node is None:
            from .autograd.grad_node import RemovableHandle, _hook_ids

            if meta.hooks is None:
                meta.hooks = []
            hook_id = next(_hook_ids)
            meta.hooks.append((hook_id, hook))
            return RemovableHandle(meta.hooks, hook_id)
        return meta.grad_node.add_hook(meta.out_slot, meta.out_rank, hook, "tensor", self._id)

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` after backward."""
        meta = self._meta
        if meta is None:
            raise RuntimeError("can't retain_grad on a tensor that does not require grad")
        if meta.grad_node is None or meta.retain_grads:
            return
        meta.retain_grads = True
        meta_ref = weakref.ref(meta)

        def _retain(grad: "Tensor") -> None:
            m = meta_ref()
            if m is not None:
                m.grad = grad if GRAD_MODE.enabled else grad.detach_copy()
            return None

        meta.grad_node.add_hook(meta.out_slot, meta.out_rank, _retain, "retain_grad", self._id)

    @property
    def retains_grad(self) -> bool:
        return self._meta is not None and self._meta.retain_grads

    # -- in-place ops (DESIGN §9 rule 8) ---------------------------------------

    def _check_inplace_operand(self, op_name: str, other: Any) -> None:
        """Refuse, before anything runs or is recorded, an operand whose result can't live in ``self``.

        The out-of-place op would build its grad node (and announce it to the
        trace) before the write-back found that the result has another shape
        or a float dtype; a failed op must leave nothing behind (DESIGN §7).
        """
        other_shape = other.shape if isinstance(other, Tensor) else ()
        try:
            shape = np.broadcast_shapes(self.shape, other_shape)
        except ValueError:
            return  # the op's own InferMeta names both shapes
        if shape != self.shape:
            raise RuntimeError(
                f"{op_name}(): output with shape {list(self.shape)} doesn't match the broadcast shape {list(shape)}; "
                f"an in-place op can't grow its tensor (use the out-of-place op: x = x + y)"
            )
        if not self._dtype.is_floating:
            if isinstance(other, Tensor) and other._dtype.is_floating:
                result = other._dtype
            elif op_name == "div_" or isinstance(other, float):
                result = _dt.float32  # true division and Python floats promote to the default float dtype
            else:
                return
            raise RuntimeError(f"{op_name}(): result type {result} can't be cast to the desired output type {self._dtype}")

    def _inplace(self, op_name: str, fn: Callable[[], "Tensor"], other: Any = None) -> "Tensor":
        meta = self._meta
        if GRAD_MODE.enabled and meta is not None and meta.grad_node is None:
            raise RuntimeError(
                f"{op_name}(): a leaf tensor that requires grad is being used in an in-place operation. "
                f"Use an out-of-place op (x = x + y), or update it under `with mg.no_grad():`"
            )
        # Only a tensor made by a view op (reshape, getitem ...) is a view of another tensor;
        # other kernels may return NumPy views of their own temporaries, which are private.
        made_by_view = (
            meta is not None
            and meta.grad_node is not None
            and getattr(meta.grad_node.opdef, "view", False)
            and getattr(self._data, "base", None) is not None
        )
        if GRAD_MODE.enabled and made_by_view:
            raise RuntimeError(
                f"{op_name}(): in-place change of a view of another tensor that requires grad is not supported; "
                f"use an out-of-place op, or clone() first"
            )
        if op_name in ("add_", "sub_", "mul_", "div_"):
            self._check_inplace_operand(op_name, other)
        result = fn()
        if result._dtype is not self._dtype:
            if not self._dtype.is_floating and result._dtype.is_floating:
                raise RuntimeError(
                    f"{op_name}(): result type {result._dtype} can't be cast to the desired output type {self._dtype}"
                )
        node = result.grad_fn
        if node is not None:
            # The new node saved the pre-change values of ``self`` (PyTorch's original_self):
            # give those wrappers a private copy, since the storage is about to change.
            for w in node.wrappers:
                if w.data is self._data:
                    w.data = self._data.copy()
                    w.version_counter = VersionCounter()
                    w.snapshot = 0
        if result._dtype is not self._dtype:
            # ``y_f32 += w_f64`` computes in float64; the tensor keeps its dtype, and recording the
            # cast keeps the graph's dtypes right (the gradient reaching w is float64 again).
            from .ops import cast

            result = cast(result, self._dtype)
            node = result.grad_fn
        new_values = result._data
        try:
            if self._data.ndim == 0:
                self._data[()] = new_values
            else:
                self._data[...] = new_values
        except ValueError as exc:
            raise RuntimeError(f"{op_name}(): cannot write into this tensor in place ({exc})") from None
        if self._version is None:
            self._version = VersionCounter()
        self._version.bump()
        if node is not None:
            # SetHistory: the tensor's grad node moves to the new node.
            new_meta = AutogradMeta(self._id, self._name)
            new_meta.grad_node = node
            new_meta.out_slot = result._meta.out_slot
            new_meta.out_rank = result._meta.out_rank
            if meta is not None and meta.retain_grads:
                self._meta = new_meta
                self.retain_grad()
            self._meta = new_meta
        if bus.recorder is not None:
            self._announce_update(op_name)
        return self

    def add_(self, other: Any) -> "Tensor":
        from .ops import add

        return self._inplace("add_", lambda: add(self, other), other)

    def sub_(self, other: Any) -> "Tensor":
        from .ops import sub

        return self._inplace("sub_", lambda: sub(self, other), other)

    def mul_(self, other: Any) -> "Tensor":
        from .ops import mul

        return self._inplace("mul_", lambda: mul(self, other), other)

    def div_(self, other: Any) -> "Tensor":
        from .ops import div

        return self._inplace("div_", lambda: div(self, other), other)

    def zero_(self) -> "Tensor":
        from .ops import fill

        return self._inplace("zero_", lambda: fill(self, 0))

    def fill_(self, value: Any) -> "Tensor":
        from .ops import fill

        if isinstance(value, Tensor):
            value = value.item()
        if not isinstance(value, (int, float, bool)):
            raise TypeError(f"fill_(): argument 'value' (position 0) must be a number, but got {type(value).__name__}")
        return self._inplace("fill_", lambda: fill(self, value))

    def __iadd__(self, other: Any) -> "Tensor":
        return self.add_(other)

    def __isub__(self, other: Any) -> "Tensor":
        return self.sub_(other)

    def __imul__(self, other: Any) -> "Tensor":
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> "Tensor":
        return self.div_(other)

    # -- Python protocol ---------------------------------------------------

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self._data.shape[0]):
            yield self[i]

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(f"the truth value of a Tensor with {self._data.size} elements is ambiguous")
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._dtype.is_floating or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __repr__(self) -> str:
        arr = to_numpy(self._data)
        body = _format_values(arr)
        extras = []
        if self._device != "cpu":
            extras.append(f"device='{self._device}'")
        if arr.size == 0 and arr.ndim != 1:
            extras.append(f"size={tuple(arr.shape)}")
        if self._dtype not in (_dt.float32, _dt.int64, _dt.bool_) or (arr.size == 0 and self._dtype is not _dt.float32):
            extras.append(f"dtype=minigrad.{self._dtype.name}")
        meta = self._meta
        if meta is not None:
            if meta.grad_node is not None:
                extras.append(f"grad_fn=<{meta.grad_node.name()}>")
            else:
                extras.append("requires_grad=True")
        return "tensor(" + body + "".join(", " + e for e in extras) + ")"


# ---------------------------------------------------------------------------
# repr: PyTorch's formatting rules (torch/_tensor_str.py), so printed tensors read the same
# ---------------------------------------------------------------------------

_LINE_WIDTH = 80
_EDGE_ITEMS = 3
_THRESHOLD = 1000


class _Formatter:
    """One width and one style for every element: ``1.``, ``1.5000`` or ``1.0000e-05``."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not self.floating:
            self.width = max((len(str(v)) for v in values.reshape(-1).tolist()), default=1)
            return
        v = values.astype(np.float64).reshape(-1)
        nz = v[np.isfinite(v) & (v != 0)]
        if nz.size == 0:
            return
        lo, hi = np.abs(nz).min(), np.abs(nz).max()
        self.int_mode = bool(np.all(nz == np.ceil(nz)))
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        fmt = "{:.4e}" if self.sci_mode else ("{:.0f}." if self.int_mode else "{:.4f}")
        self.width = max(len(fmt.format(x)) for x in nz.tolist())

    def format(self, value: Any) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:.4e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.4f}"
        return text.rjust(self.width)


def _summarized(arr: np.ndarray) -> np.ndarray:
    """The edge items of every dimension (what a summarized repr shows)."""
    if arr.ndim == 0:
        return arr
    if arr.shape[0] > 2 * _EDGE_ITEMS:
        arr = np.concatenate([arr[:_EDGE_ITEMS], arr[-_EDGE_ITEMS:]])
    return np.stack([_summarized(a) for a in arr]) if arr.ndim > 1 else arr


def _format_nested(arr: np.ndarray, fmt: _Formatter, indent: int, summarize: bool) -> str:
    if arr.ndim == 0:
        return fmt.format(arr.item())
    n = arr.shape[0]
    cut = summarize and n > 2 * _EDGE_ITEMS
    rows = list(range(_EDGE_ITEMS)) + [-1] + list(range(n - _EDGE_ITEMS, n)) if cut else list(range(n))
    if arr.ndim == 1:
        items = [" ..." if i < 0 else fmt.format(arr[i].item()) for i in rows]
        per_line = max(1, (_LINE_WIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = ["..." if i < 0 else _format_nested(arr[i], fmt, indent + 1, summarize) for i in rows]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _format_values(arr: np.ndarray) -> str:
    """The values part of ``repr``, as PyTorch prints it (``[1.5000, 2.0000]``, ``[1., 2.]``)."""
    if arr.size == 0:
        return "[]"
    summarize = arr.size > _THRESHOLD
    fmt = _Formatter(_summarized(arr) if summarize else arr)
    return _format_nested(arr, fmt, len("tensor("), summarize)


# ---------------------------------------------------------------------------
# Creation functions
# ---------------------------------------------------------------------------

_rng = np.random.default_rng()


def _names_allocation_failures(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """Creation functions: NumPy's bare ``MemoryError`` gets the function's name (DESIGN §7).

    NumPy already says how much and which shape (``Unable to allocate 3.64 TiB
    for an array with shape (1000000, 1000000) ...``); the user also needs to
    know which call of theirs asked for it.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Tensor:
        try:
            return fn(*args, **kwargs)
        except MemoryError as exc:
            raise MemoryError(f"{fn.__name__}(): out of memory: {exc}") from None

    return wrapper


def manual_seed(seed: int) -> None:
    """Seed minigrad's random generator (``randn``, ``rand``, ``Dropout``, init)."""
    global _rng
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"manual_seed(): argument 'seed' must be int, but got {type(seed).__name__}")
    _rng = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    """The generator behind ``randn``/``rand`` (reseeded by ``manual_seed``)."""
    return _rng


def _check_device(fn: str, device: Any) -> str:
    if not isinstance(device, str):
        raise TypeError(f"{fn}(): argument 'device' must be str, but got {type(device).__name__}")
    backend_of_device(device, f"{fn}()")
    return canonical_device(device)


def _finish(fn: str, data: np.ndarray, dtype: DType, device: str, requires_grad: Any, name: str | None = None,
            layout: str = Layout.NCHW) -> Tensor:
    if not isinstance(requires_grad, bool):
        raise TypeError(f"{fn}(): argument 'requires_grad' must be bool, but got {type(requires_grad).__name__}")
    if requires_grad and not dtype.is_floating:
        raise RuntimeError(f"{fn}(): only tensors of floating point dtype can require gradients, but got dtype {dtype}")
    if device != "cpu":
        data = move_array(data, "cpu", device)
    t = Tensor._make(data, dtype, device, layout)
    if name is not None:
        if not isinstance(name, str):
            raise TypeError(f"{fn}(): argument 'name' must be str, but got {type(name).__name__}")
        t._name = name
    if requires_grad:
        t._meta = AutogradMeta(t._id, name)
    if bus.recorder is not None:
        t._announce()
    return t


def _infer_dtype(arr: np.ndarray, data: Any) -> DType:
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        return _dt.from_numpy(arr.dtype)
    kind = arr.dtype.kind
    if kind == "f":
        return _dt.float32
    if kind in "iu":
        return _dt.int64
    if kind == "b":
        return _dt.bool_
    raise TypeError(f"tensor(): could not infer a dtype from data of type {type(data).__name__}")


def tensor(
    data: Any,
    dtype: Any = None,
    device: str = "cpu",
    requires_grad: bool = False,
    name: str | None = None,
    layout: str = "NCHW",
) -> Tensor:
    """A new leaf tensor from data (nested lists, numbers, NumPy arrays or a Tensor).

    Float data gives ``float32``, integer data ``int64``, bools ``bool``
    (NumPy arrays keep their dtype). ``layout="NHWC"`` tags 4-D data given
    in (N, H, W, C) order as channels-last: kernel selection then looks for
    NHWC kernels, and PrepareData transposes to and from NCHW-only kernels
    (``data.transform`` events) - see ``channels_last``.

    Example:
        >>> import minigrad as mg
        >>> mg.tensor([1, 2]).dtype, mg.tensor([1.5]).dtype
        (minigrad.int64, minigrad.float32)
    """
    if isinstance(data, Tensor):
        data = to_numpy(data._data).copy()
    try:
        arr = np.array(data)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"tensor(): could not convert data of type {type(data).__name__} to a tensor ({exc})") from None
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(
            f"tensor(): data must be numbers (nested lists of int/float/bool or a NumPy array), but got "
            f"{type(data).__name__} with element type {arr.dtype}"
        )
    dt = _dt.as_dtype(dtype, "tensor(): argument 'dtype'") if dtype is not None else _infer_dtype(arr, data)
    # np.ascontiguousarray would turn 0-d data into shape (1,); np.array(order="C") keeps the shape.
    arr = np.array(arr, dtype=dt.np, order="C", copy=True)
    return _finish("tensor", arr, dt, _check_device("tensor", device), requires_grad, name, _layout_arg("tensor", layout, arr))


def _layout_arg(fn: str, layout: Any, arr: np.ndarray) -> str:
    if layout not in (Layout.NCHW, Layout.NHWC):
        raise ValueError(f"{fn}(): argument 'layout' must be 'NCHW' or 'NHWC', but got {layout!r}")
    if layout == Layout.NHWC and arr.ndim != 4:
        raise ValueError(f"{fn}(): layout 'NHWC' needs 4-D data (N, H, W, C), but got {arr.ndim}-D data")
    return layout


def channels_last(x: Tensor, requires_grad: bool | None = None, name: str | None = None) -> Tensor:
    """A new NHWC ("channels last") leaf holding the 4-D NCHW tensor ``x``'s values in (N, H, W, C) order.

    The copy is a new leaf on ``x``'s device (gradients do not flow back to
    ``x``; ``requires_grad`` defaults to ``x``'s). Ops then select NHWC
    kernels where a backend has them, or transpose in and out of NCHW-only
    kernels - each transpose a ``data.transform`` event.

    Example:
        >>> import minigrad as mg
        >>> x = mg.channels_last(mg.zeros(2, 3, 4, 5))
        >>> x.layout, x.shape
        ('NHWC', (2, 4, 5, 3))
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"channels_last(): argument 'x' must be Tensor, but got {type(x).__name__}")
    if x.ndim != 4 or x.layout != Layout.NCHW:
        raise ValueError(f"channels_last(): 'x' must be a 4-D NCHW tensor, but got {x.ndim}-D {x.layout}")
    data = to_numpy(x._data).transpose(0, 2, 3, 1)
    rg = x.requires_grad if requires_grad is None else requires_grad
    return _finish("channels_last", np.ascontiguousarray(data), x._dtype, x._device, rg, name, Layout.NHWC)


def _shape_arg(fn: str, size: Sequence[Any]) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    for i, s in enumerate(size):
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"{fn}(): argument 'size' must be a sequence of ints, but element {i} is {type(s).__name__}")
        if s < 0:
            raise ValueError(f"{fn}(): negative dimension {s} in size {tuple(size)}")
    return tuple(int(s) for s in size)


def _dtype_arg(fn: str, dtype: Any, default: DType) -> DType:
    return default if dtype is None else _dt.as_dtype(dtype, f"{fn}(): argument 'dtype'")


@_names_allocation_failures
def zeros(*size: Any, dtype: Any = None, device: str = "cpu", requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A tensor of zeros of the given size (default dtype float32)."""
    dt = _dtype_arg("zeros", dtype, _dt.float32)
    return _finish("zeros", np.zeros(_shape_arg("zeros", size), dt.np), dt, _check_device("zeros", device), requires_grad, name)


@_names_allocation_failures
def ones(*size: Any, dtype: Any = None, device: str = "cpu", requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A tensor of ones of the given size (default dtype float32)."""
    dt = _dtype_arg("ones", dtype, _dt.float32)
    return _finish("ones", np.ones(_shape_arg("ones", size), dt.np), dt, _check_device("ones", device), requires_grad, name)


@_names_allocation_failures
def full(size: Sequence[int], fill_value: Any, dtype: Any = None, device: str = "cpu", requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from it)."""
    if not isinstance(fill_value, (int, float, bool)):
        raise TypeError(f"full(): argument 'fill_value' (position 1) must be a number, but got {type(fill_value).__name__}")
    default = _dt.bool_ if isinstance(fill_value, bool) else _dt.int64 if isinstance(fill_value, int) else _dt.float32
    dt = _dtype_arg("full", dtype, default)
    shape = _shape_arg("full", (size,) if isinstance(size, (list, tuple)) else (size,))
    return _finish("full", np.full(shape, fill_value, dt.np), dt, _check_device("full", device), requires_grad, name)


@_names_allocation_failures
def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, device: str = "cpu", requires_grad: bool = False) -> Tensor:
    """Values from ``start`` to ``end`` (exclusive) by ``step``; ``arange(n)`` is ``0..n-1``."""
    if end is None:
        start, end = 0, start
    for nm, v in (("start", start), ("end", end), ("step", step)):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise TypeError(f"arange(): argument '{nm}' must be a number, but got {type(v).__name__}")
    if step == 0:
        raise ValueError("arange(): step must be nonzero")
    all_int = all(isinstance(v, int) for v in (start, end, step))
    dt = _dtype_arg("arange", dtype, _dt.int64 if all_int else _dt.float32)
    return _finish("arange", np.arange(start, end, step).astype(dt.np), dt, _check_device("arange", device), requires_grad)


@_names_allocation_failures
def randn(*size: Any, dtype: Any = None, device: str = "cpu", requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Standard normal samples (reproducible with ``manual_seed``)."""
    dt = _dtype_arg("randn", dtype, _dt.float32)
    if not dt.is_floating:
        raise TypeError(f"randn(): dtype must be a float dtype, but got {dt}")
    data = _rng.standard_normal(_shape_arg("randn", size)).astype(dt.np)
    return _finish("randn", data, dt, _check_device("randn", device), requires_grad, name)


@_names_allocation_failures
def rand(*size: Any, dtype: Any = None, device: str = "cpu", requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Uniform samples in [0, 1) (reproducible with ``manual_seed``)."""
    dt = _dtype_arg("rand", dtype, _dt.float32)
    if not dt.is_floating:
        raise TypeError(f"rand(): dtype must be a float dtype, but got {dt}")
    data = _rng.random(_shape_arg("rand", size)).astype(dt.np)
    return _finish("rand", data, dt, _check_device("rand", device), requires_grad, name)


def _like(fn: str, t: Any) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 0) must be Tensor, but got {type(t).__name__}")
    return t


@_names_allocation_failures
def zeros_like(input: Tensor, dtype: Any = None, device: str | None = None, requires_grad: bool = False) -> Tensor:
    """Zeros with ``input``'s shape (and dtype/device unless given)."""
    t = _like("zeros_like", input)
    return zeros(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


@_names_allocation_failures
def ones_like(input: Tensor, dtype: Any = None, device: str | None = None, requires_grad: bool = False) -> Tensor:
    """Ones with ``input``'s shape (and dtype/device unless given)."""
    t = _like("ones_like", input)
    return ones(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


@_names_allocation_failures
def full_like(input: Tensor, fill_value: Any, dtype: Any = None, device: str | None = None, requires_grad: bool = False) -> Tensor:
    """``fill_value`` with ``input``'s shape (and dtype/device unless given)."""
    t = _like("full_like", input)
    return full(t.shape, fill_value, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)
