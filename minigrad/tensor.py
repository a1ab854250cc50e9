"""Tensor and the creation functions.

A ``Tensor`` is an array (NumPy on the CPU, CuPy on the GPU) plus:

- ``dtype`` (a minigrad dtype), ``device`` (``"cpu"``, ``"gpu"`` ...) and a
  ``layout`` (``NCHW`` by default, as Paddle's DenseTensor);
- an ``AutogradMeta`` when it requires grad (``autograd_meta.py``);
- a version counter shared with its views, bumped by in-place ops, and for a
  view its ``_view`` (base and recorded view functions, ``autograd/views.py``);
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

import itertools
import operator
import weakref
from typing import Any, Iterator

import numpy as np

from . import dtypes as _dt
from .autograd_meta import AutogradMeta
from .dtypes import DType
from .devices import Layout, as_device, backend_of_device, canonical_device, constant_array, default_device, move_array, to_numpy
from .printing import PRINT_OPTS, add_suffixes, format_values
from .grad_state import GRAD_MODE as _GRAD_MODE
from .size import Size
from .tracing import bus
from .tracing.events import TensorCreate, TensorUpdate
from .tracing.provenance import name_outputs

__all__ = ["Tensor", "VersionCounter", "ViewInfo", "from_data", "is_tensor", "numel"]

_tensor_ids = itertools.count(1)
#: A fresh tensor id (the dygraph layer's inlined ``Tensor._make`` takes one).
next_tensor_id = _tensor_ids.__next__


#: ``tuple.__new__``: a ``Size`` made from a shape that is already a tuple of ints.
_new_tuple = tuple.__new__

class VersionCounter:
    """Counts in-place modifications of a storage; shared by a tensor, its views and detaches.

    ``base``: a weak reference to the tensor with history whose views share the counter (set when its
    first view is made; a ``detach()`` has no history and never sets it), so a change through a
    ``detach()`` of it reaches those views too. ``bases``: every tensor sharing the counter that views
    were taken of (id -> weak reference; None until the first view): an in-place change through any of
    them regenerates the views of each (``bases_sharing``). ``storage``: the array that owns the memory,
    kept where a tensor's own array no longer leads to it (``as_strided_``: CuPy's ``as_strided`` makes an
    array with no ``base``); None otherwise (``storage_array``)."""

    __slots__ = ("value", "base", "bases", "storage")

    def __init__(self) -> None:
        self.value = 0
        self.base = None
        self.bases: dict[int, Any] | None = None
        self.storage: Any = None

    def bump(self) -> int:
        self.value += 1
        return self.value

    def add_base(self, t: "Tensor") -> None:
        """``t`` had a view taken: listed among the counter's bases (dead ones dropped as the list grows)."""
        bases = self.bases
        if bases is None:
            self.bases = {t._id: weakref.ref(t)}
        elif t._id not in bases:
            if len(bases) >= 16 and len(bases) & (len(bases) - 1) == 0:  # at 16, 32, 64...: prune
                for k in [k for k, r in bases.items() if r() is None]:
                    del bases[k]
            bases[t._id] = weakref.ref(t)


def bases_sharing(vc: "VersionCounter | None") -> list["Tensor"]:
    """The live tensors sharing ``vc`` that views were taken of (``VersionCounter.bases``)."""
    bases = vc.bases if vc is not None else None
    if not bases:
        return []
    return [b for b in (r() for r in list(bases.values())) if b is not None]


def _checked_dim(dim: Any, ndim: int) -> int:
    """``dim`` as an index into a shape of ``ndim`` entries, or PyTorch's refusal (``Tensor.size``)."""
    dim = operator.index(dim)
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim


class Tensor:
    """An n-dimensional array with autograd (see the module docstring)."""

    # ``type(x)`` prints ``<class 'minigrad.Tensor'>``, as PyTorch's ``<class 'torch.Tensor'>``: the name students
    # import it by (``minigrad.Tensor``), not the file it is defined in.
    __module__ = "minigrad"

    # ``_acc``: set only on a leaf that requires grad: the one-edge row every op that
    # uses the leaf shares, which keeps its AccumulationNode alive while the leaf lives
    # (``leaf_edge_row`` in ``autograd/accumulation.py``). ``_saved``: the
    # TensorWrapper of its last save, shared by later saves (``autograd/tensor_wrapper.py``).
    # ``_inference``: set (True) only on an inference tensor (``is_inference``), one made inside ``inference_mode()``
    # or a view or ``detach()`` of one; unset on the others.
    # ``_grad``: set only on a tensor that holds a ``.grad`` but no autograd state (PyTorch's ``.grad`` is a
    # field of every tensor: assigned to one that does not require grad, or kept by ``requires_grad_(False)``
    # and ``detach_()``); a tensor that requires grad keeps its gradient in its AutogradMeta.
    __slots__ = ("_data", "_dtype", "_device", "_layout", "_meta", "_vc", "_view", "_id", "_name", "_acc", "_saved",
                 "_number", "_inference", "_grad", "__weakref__")

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
        t._vc = None
        t._view = None
        t._id = next(_tensor_ids)
        t._name = None
        if _GRAD_MODE.inference:
            t._inference = True
        return t

    @classmethod
    def _scalar(cls, value: Any, dtype: DType, device: str) -> "Tensor":
        """A 0-d constant tensor for a Python number operand (announced when recording). On a device its
        array is the backend's constant for the value (``devices.constant_array``: no copy), found again by
        value here for the Python numbers a program repeats (``x * 0.5`` each step) - not for 0, whose sign
        equal keys would lose, nor NaN, unequal to itself."""
        if device == "cpu":
            data = np.asarray(value, dtype=dtype.np)
        else:
            key = (value, dtype, device)
            kept = type(value) in _PYTHON_NUMBERS and value and value == value
            if kept and bus.recorder is None:  # NOTE [ A number's tensor is kept on a device ]
                t = _NUMBER_TENSORS.get((key, _GRAD_MODE.inference))
                if t is not None:
                    return t
            data = _NUMBER_CONSTANTS.get(key) if kept else None
            if data is None:
                data = constant_array(np.asarray(value, dtype=dtype.np), device)
                if kept:
                    if len(_NUMBER_CONSTANTS) >= _NUMBER_CONSTANTS_MAX:
                        _NUMBER_CONSTANTS.clear()
                        _NUMBER_TENSORS.clear()
                    _NUMBER_CONSTANTS[key] = data
        t = cls._make(data, dtype, device)
        t._number = True  # PyTorch's "wrapped number": an op given one takes its Scalar overload (node_names)
        if bus.recorder is not None:
            t._announce()
        elif device != "cpu" and kept:
            _NUMBER_TENSORS[(key, _GRAD_MODE.inference)] = t
        return t

    def __init__(self, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> None:
        src = from_data(data, dtype=dtype, device=device, requires_grad=requires_grad)
        self._data = src._data
        self._dtype = src._dtype
        self._device = src._device
        self._layout = src._layout
        self._meta = None
        self._vc = None
        self._view = None
        self._id = src._id
        self._name = None
        if src.is_inference():
            self._inference = True
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

    def _announce(self, rec: Any = None) -> None:
        """Emit ``tensor.create`` for this tensor to ``rec``, the active recorder when the caller holds it
        (else ``bus.recorder`` is read)."""
        if rec is None:
            rec = bus.recorder
            if rec is None:
                return
        tid = self._id
        rec.announced.add(tid)
        # ``_autograd_fields()`` and the ``name`` property inlined: a ``**dict`` call costs as much as the event.
        meta = self._meta
        node = meta.grad_node if meta is not None else None
        name = self._name
        rec.emit(
            TensorCreate.new(
                tensor=tid,
                name=name if name is not None else f"t{tid}",
                shape=list(self._data.shape),
                dtype=self._dtype.name,
                device=self._device,
                value=rec.preview(self._data),
                requires_grad=meta is not None,
                is_leaf=node is None,
                grad_node=node.id if node is not None else None,
                out_slot=meta.out_slot if meta is not None else 0,
                out_rank=meta.out_rank if meta is not None else 0,
                base=view.base._id if (view := self._view) is not None else None,
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
                version=self._vc.value if self._vc is not None else 0,
                value=rec.preview(self._data),
                **self._autograd_fields(),
            )
        )

    # -- properties ----------------------------------------------------------

    @property
    def shape(self) -> Size:
        """The tensor's shape: a ``minigrad.Size``, a tuple of ints (``minigrad/size.py``)."""
        return _new_tuple(Size, self._data.shape)  # an array's shape holds Python ints: no per-entry check

    def size(self, dim: int | None = None) -> Any:
        """``shape``, or its ``dim``-th entry (a dim out of range refused in PyTorch's words)."""
        shape = self._data.shape
        if dim is None:
            return _new_tuple(Size, shape)
        if type(dim) is int and -len(shape) <= dim < len(shape):
            return shape[dim]
        return shape[_checked_dim(dim, len(shape))]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    def nelement(self) -> int:
        """The number of elements (PyTorch's older name of ``numel``)."""
        return int(self._data.size)

    def ndimension(self) -> int:
        """The number of dimensions (PyTorch's older name of ``dim``)."""
        return self._data.ndim

    def element_size(self) -> int:
        """Bytes one element takes (4 for float32)."""
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        """Bytes one element takes (``element_size()``)."""
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes the elements take (``numel() * element_size()``; a view counts its own elements)."""
        return int(self._data.size) * self._dtype.itemsize

    def is_floating_point(self) -> bool:
        """True for float16, bfloat16, float32 and float64 tensors."""
        return self._dtype.is_floating

    def is_complex(self) -> bool:
        """False: minigrad has no complex dtypes."""
        return False

    def is_signed(self) -> bool:
        """True unless the dtype is bool or uint8."""
        return self._dtype.is_signed

    def is_nonzero(self) -> bool:
        """The truth of a one-element tensor, as ``bool(t)``; PyTorch's errors for none or several."""
        n = self._data.size
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if n > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def is_same_size(self, other: "Tensor") -> bool:
        """Whether ``other`` has this tensor's shape."""
        if not isinstance(other, Tensor):
            raise TypeError(f"is_same_size(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
        return self._data.shape == other._data.shape

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def device(self) -> Any:
        """Where the values live: a ``minigrad.device``, equal to its string (``x.device == "cpu"``)."""
        return as_device(self._device)

    @property
    def is_cuda(self) -> bool:
        """True for a tensor on the GPU."""
        return self._device == "gpu"

    @property
    def is_cpu(self) -> bool:
        """True for a tensor in host memory."""
        return self._device == "cpu"

    def get_device(self) -> int:
        """The GPU's index (0) for a tensor on the GPU, -1 for one on the CPU."""
        return -1 if self._device == "cpu" else 0

    @property
    def data(self) -> "Tensor":
        """The values without autograd: a tensor sharing storage that does not require grad.

        Unlike ``detach()`` it has a version counter of its own, as PyTorch's ``.data``:
        changing it in place (an optimizer step written the old way) does not make the
        tensors that autograd saved look stale. Assigning ``x.data = y`` swaps in ``y``'s
        values (shape and dtype too) without recording anything - the old way of updating
        weights outside the graph.
        """
        t = Tensor._make(self._data, self._dtype, self._device, self._layout)
        if bus.recorder is not None:
            t._announce()
        return t

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, but got {type(value).__name__}")
        self._data = value._data
        self._dtype = value._dtype
        self._device = value._device
        self._layout = value._layout

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
        if value and meta is not None and not meta.accumulates:
            self._meta = AutogradMeta(self._id, self._name)  # a no_grad view of a tensor that requires grad
        elif value and meta is None:
            if not self._dtype.is_floating:
                raise RuntimeError(
                    f"only tensors of floating point dtype can require gradients, but this tensor is {self._dtype}"
                )
            self._meta = AutogradMeta(self._id, self._name)
            if hasattr(self, "_grad"):  # a .grad it held without requiring grad
                self._meta.grad = self._grad
                del self._grad
            if self._id in _VIEWS:
                _views_follow_base(self, True)
        elif not value and (meta is None or meta.accumulates):  # a no_grad view's flag is its base's
            self._meta = None
            if meta is not None:
                self._keep_grad(meta)
                if self._id in _VIEWS:
                    _views_follow_base(self, False)

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
        meta = self._meta
        return meta.grad if meta is not None else getattr(self, "_grad", None)

    @property
    def retains_grad(self) -> bool:
        """Whether this non-leaf keeps its gradient in ``.grad`` (``retain_grad()`` was called)."""
        meta = self._meta
        return meta is not None and meta.grad_node is not None and meta.retain_grads

    @grad.setter
    def grad(self, value: "Tensor | None") -> None:
        if value is not None:  # PyTorch's checks, in its order and words
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value._dtype is not self._dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_dt.cpp_type_name(value._dtype)}' to a tensor with "
                    f"grad_dtype '{_dt.scalar_type_name(self._dtype)}'. The gradient must match the tensor's "
                    "grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a "
                    "specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a "
                    "tensor and its gradient may break downstream systems that assume they match.")
            if value._device != self._device:
                raise RuntimeError(
                    f"attempting to assign a gradient with device type '{as_device(value._device).type}' to a tensor "
                    f"with device type '{as_device(self._device).type}'. Please ensure that the gradient and the "
                    "tensor are on the same device")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                    f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size")
        if self._meta is not None:
            self._meta.grad = value
        elif value is not None:
            self._grad = value
        elif hasattr(self, "_grad"):
            del self._grad

    def _keep_grad(self, meta: Any) -> None:
        """``self`` leaves autograd (``requires_grad_(False)``, ``detach_()``): its ``.grad`` stays, as PyTorch's."""
        if meta is not None and meta.grad is not None:
            self._grad = meta.grad

    def is_inference(self) -> bool:
        """Whether this is an inference tensor (PyTorch's): made inside ``inference_mode()``, or a view or a
        ``detach()`` of one. A view made there of a normal tensor is a normal tensor, as is anything made under
        ``no_grad``."""
        return getattr(self, "_inference", False)

    @property
    def version(self) -> int:
        """How many in-place modifications this storage has seen."""
        return self._vc.value if self._vc is not None else 0

    @property
    def _version(self) -> int:
        """PyTorch's name of ``version``: the value of the counter shared with views and ``detach()``."""
        return self._vc.value if self._vc is not None else 0

    @property
    def _base(self) -> "Tensor | None":
        """The tensor this one is a view of - the root base, never a view itself (None if not a view).

        See ``docs/concepts/views.md``: a view shares its base's storage and version counter."""
        return self._view.base if self._view is not None else None

    def _is_view(self) -> bool:
        """Whether this tensor is a view of another (``_base`` is set)."""
        return self._view is not None

    # -- conversion --------------------------------------------------------

    def numpy(self) -> np.ndarray:
        """The values as a NumPy array (shares memory for CPU tensors).

        As in PyTorch, a tensor that requires grad refuses: the array could not carry its
        history, so ``detach()`` first says that the values leave the graph.
        """
        if self._meta is not None:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return to_numpy(self._data)

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
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
        if self._vc is None:
            self._vc = VersionCounter()
        t._vc = self._vc
        t._inference = self.is_inference()  # the storage's kind, wherever the detach() is made
        if bus.recorder is not None:
            register_alias(self, t)  # listed for ``tensor.version`` while recording
            t._announce()
        return t

    def detach_copy(self) -> "Tensor":
        """A detached tensor with its own copy of the values."""
        data = self._data.copy()
        if isinstance(data, np.generic):
            # NumPy hands back scalars (np.float32) for 0-d results, and a scalar's
            # copy is a scalar again: immutable, so ``.grad.zero_()`` could not write it.
            data = np.array(data)
        return Tensor._make(data, self._dtype, self._device, self._layout)

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

    def __format__(self, spec: str) -> str:
        """``f"{loss:.4f}"``: a 0-d tensor formats as its Python number with any spec, as in PyTorch;
        other tensors (and subclasses such as ``Parameter``) only with the empty spec (their ``str``)."""
        if self._data.ndim == 0 and type(self) is Tensor:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __index__(self) -> int:
        if self._dtype.is_floating or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __repr__(self) -> str:
        arr = to_numpy(self._data)
        body = format_values(arr)
        extras = []
        if self._device != "cpu":
            extras.append(f"device='{as_device(self._device)}'")  # PyTorch's spelling: device='cuda:0'
        if (arr.size == 0 and arr.ndim != 1) or (arr.size and not PRINT_OPTS.edgeitems):
            extras.append(f"size={tuple(arr.shape)}")
        default = _dt.default_float()  # PyTorch leaves out the default dtype, int64 and bool
        if self._dtype not in (default, _dt.int64, _dt.bool_) or (arr.size == 0 and self._dtype is not default):
            extras.append(f"dtype=minigrad.{self._dtype.name}")
        meta = self._meta
        if meta is not None:
            try:
                node = meta.grad_node
            except RuntimeError:  # a view whose history PyTorch refuses to regenerate (autograd/views.py)
                extras.append("grad_fn=<Invalid>")
            else:
                extras.append(f"grad_fn=<{type(node).__name__}>" if node is not None else "requires_grad=True")
        return add_suffixes("tensor(" + body, extras)


# ---------------------------------------------------------------------------
# From data to a leaf tensor (mg.tensor, Tensor(...), and the creation functions in creation.py)
# ---------------------------------------------------------------------------

def check_device(fn: str, device: Any) -> str:
    """``device`` as a device string, checked; None is the default device (``mg.set_default_device``)."""
    if device is None:
        return default_device()
    if isinstance(device, int) and not isinstance(device, bool):  # device=0: PyTorch's first CUDA device
        device = "cuda"
    if not isinstance(device, str):
        raise TypeError(f"{fn}(): argument 'device' must be str, but got {type(device).__name__}")
    backend_of_device(str.__str__(device), f"{fn}()")
    return canonical_device(str.__str__(device))


def finish(
    fn: str, data: np.ndarray, dtype: DType, device: str, requires_grad: Any, name: str | None = None,
    layout: str = Layout.NCHW,
) -> "Tensor":
    if not isinstance(requires_grad, bool):
        raise TypeError(f"{fn}(): argument 'requires_grad' must be bool, but got {type(requires_grad).__name__}")
    if requires_grad and not dtype.is_floating:
        raise RuntimeError(f"{fn}(): only tensors of floating point dtype can require gradients, but got dtype {dtype}")
    if device != "cpu" and type(data) is np.ndarray:  # made on the host (a factory made on the device is not)
        data = move_array(data, "cpu", device)
    t = Tensor._make(data, dtype, device, layout)
    if name is not None:
        if not isinstance(name, str):
            raise TypeError(f"{fn}(): argument 'name' must be str, but got {type(name).__name__}")
        t._name = name
    if requires_grad:
        t._meta = AutogradMeta(t._id, name)
    if bus.recorder is not None:
        if name is None:
            name_outputs((t,))  # ``x = mg.tensor(...)`` is ``x`` (NOTE [ A tensor is named after the variable ... ])
        t._announce()
    return t


def _infer_dtype(arr: np.ndarray, data: Any) -> DType:
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        return _dt.from_numpy(arr.dtype)
    kind = arr.dtype.kind
    if kind == "f":
        return _dt.default_float()
    if kind in "iu":
        return _dt.int64
    if kind == "b":
        return _dt.bool_
    raise TypeError(f"tensor(): could not infer a dtype from data of type {type(data).__name__}")


def from_data(
    data: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    name: str | None = None,
    layout: str = "NCHW",
) -> "Tensor":
    """A new leaf tensor holding a copy of ``data`` (what ``mg.tensor`` and ``Tensor(...)`` do).

    ``layout="NHWC"`` tags 4-D data given in (N, H, W, C) order as channels-last.
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
    return finish("tensor", arr, dt, check_device("tensor", device), requires_grad, name, _layout_arg("tensor", layout, arr))


def _layout_arg(fn: str, layout: Any, arr: np.ndarray) -> str:
    if layout not in (Layout.NCHW, Layout.NHWC):
        raise ValueError(f"{fn}(): argument 'layout' must be 'NCHW' or 'NHWC', but got {layout!r}")
    if layout == Layout.NHWC and arr.ndim != 4:
        raise ValueError(f"{fn}(): layout 'NHWC' needs 4-D data (N, H, W, C), but got {arr.ndim}-D data")
    return layout


def is_tensor(obj: Any) -> bool:
    """True when ``obj`` is a minigrad Tensor (a Parameter too), as ``torch.is_tensor``."""
    return isinstance(obj, Tensor)


def numel(input: Any) -> int:
    """The number of elements of ``input``, as ``torch.numel``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"numel(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.numel()


def _tensor_predicate(name: str) -> Any:
    method = getattr(Tensor, name)

    def fn(input: Any) -> bool:
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return method(input)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input.{name}()``, as ``torch.{name}``."
    return fn


is_floating_point = _tensor_predicate("is_floating_point")
is_complex = _tensor_predicate("is_complex")
is_signed = _tensor_predicate("is_signed")
is_nonzero = _tensor_predicate("is_nonzero")
is_inference = _tensor_predicate("is_inference")


def is_same_size(input: Any, other: Any) -> bool:
    """Whether the two tensors have one shape, as ``torch.is_same_size``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_same_size(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.is_same_size(other)


# ---------------------------------------------------------------------------
# Views: the base and view functions of a view, and the live views of a base
# (``autograd/views.py`` makes views; ``dispatch/views.py`` rewrites histories)
# ---------------------------------------------------------------------------

class ViewInfo:
    """What a view knows of its base: the root ``base``, the view functions ``fns`` leading from it
    (``((OpDef, attrs), ...)``), how it was made (``creation``), for an output of a function that
    returns several views, that function's name and the output's index (``source``), and the version of
    the storage its history was made at (``version``: PyTorch's ``attr_version``)."""

    __slots__ = ("base", "fns", "creation", "source", "version")

    def __init__(self, base: "Tensor", fns: tuple[Any, ...], creation: str, source: Any = None,
                 version: int = 0) -> None:
        self.base = base
        self.fns = fns
        self.creation = creation
        self.source = source
        self.version = version


class _Views:
    """The live views of one base (weak references), pruned of dead ones as the list doubles."""

    __slots__ = ("ref", "views", "limit")

    def __init__(self, ref: Any) -> None:
        self.ref = ref
        self.views: list[Any] = []
        self.limit = 16


#: base tensor id -> its live views; the entry goes when the base dies (views keep their base alive).
#: a number operand's device array by (value, dtype, device) (``Tensor._scalar``); bounded as the GPU's own
#: cache of constants is (``kernels/gpu/_runtime.py``)
_NUMBER_CONSTANTS: dict[tuple[Any, DType, str], Any] = {}
_NUMBER_CONSTANTS_MAX = 1024
# NOTE [ A number's tensor is kept on a device ]
#     On a device, the 0-d tensor wrapping a Python number (``x * 0.5``) is kept with its array and given
#     again to the next op with the same number, dtype and device (and inference mode): a small GPU step is
#     bound by host time, and making the tensor was a microsecond of each number op. Nothing changes it: a
#     wrapped number is no leaf a program can reach (no edge leads to it, no saved-tensor attribute shows
#     it), gets no history, and is only read. While a recorder listens, each op gets a tensor of its own,
#     announced, so a trace shows one tensor per number as PyTorch makes one.
_NUMBER_TENSORS: dict[tuple[tuple[Any, DType, str], bool], "Tensor"] = {}
_PYTHON_NUMBERS = (float, int, bool)
_VIEWS: dict[int, _Views] = {}


def _forget(key: int) -> Any:
    return lambda _ref: _VIEWS.pop(key, None)


def register_view(base: "Tensor", t: "Tensor") -> None:
    """List ``t`` (a view of ``base``, or a ``detach()`` alias of it) among ``base``'s live views."""
    entry = _VIEWS.get(base._id)
    if entry is None:
        entry = _VIEWS[base._id] = _Views(weakref.ref(base, _forget(base._id)))
    entry.views.append(weakref.ref(t))
    if len(entry.views) > entry.limit:
        entry.views = [r for r in entry.views if r() is not None]
        entry.limit = max(16, 2 * len(entry.views))


#: What a base's views do when it starts or stops requiring grad (``views_follow_base`` in
#: ``dispatch/views.py``, set there: that layer replays views).
_VIEWS_FOLLOW: list[Any] = []


def _views_follow_base(base: "Tensor", requires: bool) -> None:
    for fn in _VIEWS_FOLLOW:
        fn(base, requires)


def storage_viewed(t: "Tensor") -> bool:
    """Whether a live view was taken of ``t`` or of a tensor sharing its storage and counter (a ``detach()``
    of it, the tensor it was detached from): an in-place change of ``t`` must then regenerate those views."""
    if live_views(t):
        return True
    for b in bases_sharing(t._vc):
        if b is not t and live_views(b):
            return True
    return False


def live_views(base: "Tensor") -> list["Tensor"]:
    """The live tensors listed for ``base`` (its views, and ``detach()``es made while recording)."""
    entry = _VIEWS.get(base._id)
    if entry is None:
        return []
    return [t for t in (r() for r in entry.views) if t is not None]


def register_alias(src: "Tensor", alias: "Tensor") -> None:
    """``alias`` (a ``detach()`` of ``src``) shares its counter: listed with the views while recording,
    so ``tensor.version`` can name it among the tensors a bump makes stale."""
    base = src._view.base if src._view is not None else root_of(src)
    register_view(base, alias)
    _ALIAS_OF[alias._id] = _VIEWS[base._id].ref
    weakref.finalize(alias, _ALIAS_OF.pop, alias._id, None)


#: id of a ``detach()`` made while recording -> a weak reference to the root its counter came from.
_ALIAS_OF: dict[int, Any] = {}


def root_of(t: "Tensor") -> "Tensor":
    """What ``t`` was ``detach()``ed from while recording (its counter's root), else ``t`` itself."""
    ref = _ALIAS_OF.get(t._id)
    root = ref() if ref is not None else None
    return root if root is not None else t


def storage_array(t: "Tensor") -> Any:
    """The array that owns ``t``'s memory (PyTorch's storage): its base's array, followed down to the array
    it was taken from (``storage_offset`` counts from its first element, ``as_strided`` stays inside it)."""
    if t._view is not None:
        root = t._view.base._data
    else:
        root = t._data if t._vc is None or t._vc.storage is None else t._vc.storage
    while True:
        base = getattr(root, "base", None)
        if base is not None and not hasattr(base, "strides"):  # NumPy's as_strided: the array behind a holder
            base = getattr(base, "base", None)
        if base is None or not hasattr(base, "strides"):
            return root
        root = base


def has_views(t: "Tensor") -> bool:
    """Whether ``t`` is the base of a view (its history change must reach the views)."""
    return t._id in _VIEWS


