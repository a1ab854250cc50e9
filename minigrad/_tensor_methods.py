"""Operators and methods of ``Tensor`` that run ops or autograd (``x.sum()``, ``x @ y``, ``x.backward()`` ...).

Kept apart from ``tensor.py`` so the Tensor class reads as the data
structure it is (the tensor layer imports no layer above it); this module
sits on top of every layer and attaches the methods. Each method just
calls the op, or the autograd function, of the same name.

Two kinds of methods are attached: those of the registered ops, from each
op's ``methods=(...)`` (``x.sum()``, ``x + y``; attached as each op is
defined), and, in the second half, those with PyTorch's names for the
composite functions of ``ops/`` (``x.var()``, ``x.masked_fill(m, v)``,
``x.max(dim)``, ``x.mT`` ...), each calling the function of the same name;
these are attached after the op methods and override them where both exist
(``x.max(1)`` gives PyTorch's ``(values, indices)``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .errors import OutOfRangeError, ShapeError
from . import creation as _creation
from . import dtypes, ops
from . import autograd as _autograd
from .autograd import hooks as _hooks
from ._inplace_methods import (clamp_inplace, index_put_through_view, inplace_composite as _inplace_composite, namespace_form,
                              setitem_through_view, written)
from .dispatch.dygraph import check_inplace_shape, run_inplace, run_op
from .devices import (CHANNELS_LAST, as_memory_format, canonical_device, check_memory_format_rank, contiguous_format,
                      is_contiguous_as, is_gpu_available, preserve_format, suggested_memory_format)
from .kernels.backends import backend_of_device
from .kernels.infer_meta import scalar_type_name
from .kernels.strided import contiguous_strides, integers_first, viewable
from .ops import sampling as _sampling
from .ops.activation import log_softmax as _log_softmax_form
from .ops.activation import softmax as _softmax_form
from .ops.device import to_device
from .ops.division import div as _div_form
from .ops.indexing import unfold as _unfold
from .ops.inverse import matrix_power as _matrix_power
from .ops._checks import check_int, wrap_dim
from .ops.math import add_form, sub_form
from .ops.registry import on_define, wrap_scalar
from .ops.repeat import repeat as _repeat
from .ops.indexing import index_put_ as _index_put_, put_values
from .ops.shape import _index_error_words, _is_mask, _normalize_index, index_region
from .tensor import Tensor, VersionCounter, storage_array


def _shape_args(args: tuple[Any, ...]) -> Any:
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


def _setitem(self: Tensor, index: Any, value: Any) -> None:
    """``x[index] = value``: an in-place write. With basic indexing (integers, slices, ``None``,
    ``...``) it is ``x[index].copy_(value)`` (``_inplace_methods.setitem_through_view``); with
    integer arrays or masks it is PyTorch's ``index_put_`` (``IndexPutBackward0``): repeated indices
    keep the last write on the CPU, as in PyTorch, and the gradient reaches ``value`` at every position
    it was written to. ``value`` is cast to ``x``'s dtype (``int_tensor[0] = 2.7`` stores 2).
    """
    mask = _leading_mask(self, index) if type(value) in (int, float, bool) else None
    if mask is not None:  # x[mask] = number: no position (so no count) needed, the mask itself is the index
        number = Tensor._scalar(value, self._dtype, self._device)
        # (region: a 0-d value fits any; the region's size would need the mask's count)
        run_inplace(self, "setitem", lambda: put_values(self, (mask._data,), number, region=()))
        return
    # a GPU integer index stays on the device (its range checked there): reading it would make the host wait
    idx = _normalize_index("setitem", index, keep_device=self._device != "cpu", shape=self.shape)
    if not isinstance(value, (Tensor, int, float, bool)):
        raise TypeError(f"setitem(): the value must be a Tensor or a Python number, but got {type(value).__name__}")
    try:  # a probe that allocates nothing
        region, bad_index = index_region(self.shape, idx), None
    except IndexError as exc:
        region, bad_index = (), OutOfRangeError(f"setitem(): index is invalid for a tensor of shape "
                                                f"{tuple(self.shape)}: {_index_error_words(str(exc), self.ndim)}")
    split = integers_first(idx)
    if bad_index is not None and not any(hasattr(i, "shape") for i in idx):
        raise bad_index  # a basic index is applied (select, slice) before the in-place checks, as PyTorch
    if setitem_through_view(self, idx, value):  # basic indexing: x[idx].copy_(value), as PyTorch
        return
    if split is not None:  # integers and arrays: index_put_ on the integers' view, as PyTorch
        try:  # the integers are applied first (select): theirs is the first error
            index_region(self.shape, split[0])
        except IndexError as exc:
            raise OutOfRangeError(_index_error_words(str(exc), self.ndim)) from None
        index_put_through_view(self, split, value, region, bad_index)
        return

    # (an index value out of range is refused after the in-place checks, as index_put_ refuses it)
    run_inplace(self, "setitem", lambda: written(self, idx, value, region, bad_index),
                operands=(value,) if isinstance(value, Tensor) else ())


def _leading_mask(self: Tensor, index: Any) -> Tensor | None:
    """``index`` when it is one bool mask on ``self``'s device covering its leading dims exactly, else None."""
    mask = index[0] if type(index) is tuple and len(index) == 1 else index
    if (isinstance(mask, Tensor) and mask._dtype is dtypes.bool_ and mask.ndim and mask._device == self._device
            and tuple(mask.shape) == tuple(self.shape[:mask.ndim])):
        return mask
    return None


def _make_method(fn: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)

    method.__name__ = getattr(fn, "name", getattr(fn, "__name__", "op"))
    method.__doc__ = f"Same as ``minigrad.{method.__name__}(self, ...)``."
    return method


# Python's reflected operators: ``2 - x`` calls ``x.__rsub__(2)``, i.e. ``sub(2, x)``.
_REFLECTED = {"__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rpow__", "__rmatmul__", "__rfloordiv__", "__rmod__",
              "__rand__", "__ror__", "__rxor__", "__rlshift__", "__rrshift__"}


_UNARY_OPERATORS = {"__neg__", "__pos__", "__abs__", "__invert__"}

# ...except the commutative ones: PyTorch's ``2 * x`` is ``x.mul(2)``, the tensor first, so the node's
# ``next_functions`` list ``x``'s edge before the number's ``(None, 0)``, as ``x * 2`` does.
_COMMUTATIVE = {"__radd__", "__rmul__", "__rand__", "__ror__", "__rxor__"}


def _make_operator(fn: Any, name: str) -> Any:
    # ``a * b`` with two tensors and the op's default attributes is the API layer's
    # common call (NOTE [ The common call ] in ops/registry.py) with nothing to check:
    # the operator hands it to the dygraph layer directly, and so does ``x * 0.5``
    # with a Python int or float, wrapped as the API layer wraps it. Anything else
    # goes through the op's ``__call__``.
    direct = getattr(fn, "_fast_arity", -1) == 2
    defaults = getattr(fn, "_default_attrs", None)
    numbers = (int, float) if direct and all(i.scalar_ok for i in fn.inputs) else ()
    if name in _REFLECTED and name not in _COMMUTATIVE:
        if direct:
            def operator(self: Tensor, other: Any) -> Any:
                if isinstance(other, Tensor):
                    return fn.dygraph_function(other, self, defaults)
                if type(other) in numbers:
                    return fn.dygraph_function(wrap_scalar(other, self), self, defaults)
                return fn(other, self)
        else:
            def operator(self: Tensor, other: Any) -> Any:
                return fn(other, self)
    elif name in _UNARY_OPERATORS:
        def operator(self: Tensor) -> Any:  # type: ignore[misc]
            return fn(self)
    elif direct:
        def operator(self: Tensor, other: Any) -> Any:  # type: ignore[misc]
            if isinstance(other, Tensor):
                return fn.dygraph_function(self, other, defaults)
            if type(other) in numbers:
                return fn.dygraph_function(self, wrap_scalar(other, self), defaults)
            return fn(self, other)
    else:
        def operator(self: Tensor, other: Any) -> Any:  # type: ignore[misc]
            return fn(self, other)

    check = getattr(fn, "operator_check", None)
    if check is not None:  # what the op refuses before any promotion (``b - 1`` of a bool ``b``): checked first
        fast, reflected = operator, name in _REFLECTED and name not in _COMMUTATIVE

        def operator(self: Tensor, *other: Any) -> Any:  # type: ignore[misc]
            check(*other, self) if reflected else check(self, *other)
            return fast(self, *other)

    operator.__name__ = name
    operator.__doc__ = f"``minigrad.{fn.name}`` as Python's ``{name}``."
    return operator


def _attach(op: Any) -> None:
    """Give ``Tensor`` the methods and operators ``op``'s definition lists (``defop(..., methods=, operators=)``)."""
    for name in op.methods:
        setattr(Tensor, name, _make_method(op))
    for name in op.operators:
        setattr(Tensor, name, _make_operator(op, name))


# Every op defined so far, and every op defined later (a user's own op, see docs/add-an-op.md).
for _op in list(ops.OPS.values()):
    _attach(_op)
on_define(_attach)
Tensor.flatten = _make_method(ops.flatten)  # type: ignore[attr-defined]


def _reshape(self: Tensor, *shape: Any) -> Tensor:
    return ops.reshape(self, _shape_args(shape))


def _permute(self: Tensor, *dims: Any) -> Tensor:
    return ops.permute(self, _shape_args(dims))


def _expand(self: Tensor, *shape: Any) -> Tensor:
    return ops.expand(self, _shape_args(shape))


def _expand_as(self: Tensor, other: Tensor) -> Tensor:
    return ops.expand(self, other.shape)


# ``x @ w`` is ``torch.matmul``, whose public call decomposes by the operands' dims (NOTE [ An op that
# decomposes ] in ops/registry.py): through the op's ``__call__``, not the operators' direct path.
def _matmul_operator(self: Tensor, other: Any) -> Any:
    """Same as ``minigrad.matmul(self, other)``."""
    return ops.matmul(self, other)


def _rmatmul_operator(self: Tensor, other: Any) -> Any:
    """Same as ``minigrad.matmul(other, self)``."""
    return ops.matmul(other, self)


Tensor.__matmul__ = _matmul_operator  # type: ignore[attr-defined]
Tensor.__rmatmul__ = _rmatmul_operator  # type: ignore[attr-defined]
Tensor.reshape = _reshape  # type: ignore[attr-defined]
Tensor.view = _reshape  # type: ignore[attr-defined]
Tensor.permute = _permute  # type: ignore[attr-defined]
Tensor.expand = _expand  # type: ignore[attr-defined]
Tensor.expand_as = _expand_as  # type: ignore[attr-defined]

_getitem_operator = Tensor.__getitem__


def _getitem(self: Tensor, index: Any) -> Any:
    """``minigrad.getitem`` as Python's ``x[index]``. A bool mask in the index is checked against the dims it
    covers first, and one on the GPU becomes its True positions there (``ops.shape._masks_checked``: one count
    read back, the sync PyTorch's ``x[mask]`` makes, instead of the mask copied to the host and its positions
    back)."""
    if _has_mask(index):
        index = _normalize_index("getitem", index, keep_device=True, shape=self.shape)
    return _getitem_operator(self, index)


def _has_mask(index: Any) -> bool:
    if type(index) is tuple:
        return any(_is_mask(i) for i in index)
    return _is_mask(index)


Tensor.__getitem__ = _getitem  # type: ignore[assignment]
Tensor.__setitem__ = _setitem  # type: ignore[assignment]
Tensor.__hash__ = object.__hash__  # type: ignore[assignment]


# -- conversion -------------------------------------------------------------


def _T(self: Tensor) -> Tensor:
    """The tensor with its dimensions reversed."""
    return ops.permute(self, tuple(range(self.ndim - 1, -1, -1)))


def _clone(self: Tensor, *, memory_format: str = "preserve_format") -> Tensor:
    """A copy that stays in the graph (gradient flows back to ``self``), in ``self``'s order of strides
    (``memory_format=minigrad.contiguous_format``: row-major)."""
    return ops.clone(self, memory_format=memory_format)


def _to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Move and/or cast (differentiable), in PyTorch's forms: ``to(dtype)``, ``to(device)``,
    ``to(device, dtype)``, ``to(other)`` (other's device and dtype), with ``device=``/``dtype=``/``copy=``
    keywords. Returns ``self`` when nothing changes (unless ``copy=True``)."""
    device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    non_blocking = bool(kwargs.pop("non_blocking", False))
    fmt = as_memory_format("to", kwargs.pop("memory_format", preserve_format))
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for pos, arg in enumerate(args):
        if isinstance(arg, Tensor) and pos == 0:
            device, dtype = arg._device, arg._dtype
        elif isinstance(arg, bool) and pos > 0:  # to(device, dtype, non_blocking, copy) positionally
            if pos == len(args) - 1 and pos >= 2:
                copy = arg
            else:
                non_blocking = arg
        elif isinstance(arg, (str, int)) and device is None and pos == 0:
            device = arg
        elif dtype is None and _is_dtype(arg):
            dtype = arg
        else:
            raise TypeError(
                f"to() received an invalid combination of arguments: argument {pos} is {type(arg).__name__}; "
                "expected to(dtype), to(device, dtype=None) or to(other)"
            )
    out = self
    # a new memory format: PyTorch's ``_to_copy`` (ToCopyBackward0), the dtype's cast in the same copy
    restride = fmt != "preserve_format" and suggested_memory_format(tuple(self.shape), self.stride()) != fmt
    if restride:
        check_memory_format_rank(fmt, self.ndim)
    if dtype is not None:
        dt = dtypes.as_dtype(dtype, "to(): argument 'dtype'")
        if restride and dt is not self._dtype:
            out, restride = ops.to_copy(out, dt, memory_format=fmt), False
        else:
            out = _retyped(out, dt)
    if device is not None:
        if isinstance(device, int) and not isinstance(device, bool):
            device = "cuda"
        if not isinstance(device, str):
            raise TypeError(f"to(): argument 'device' must be str or minigrad.device, but got {type(device).__name__}")
        backend_of_device(device, "to()")  # unknown device / missing CuPy -> clear error
        device = canonical_device(device)
        if device != out._device:
            out = to_device(out, device, non_blocking)
    if restride:
        out = ops.to_copy(out, out._dtype, memory_format=fmt)
    if copy and out is self:
        out = ops.clone(self)
    return out


def _is_dtype(value: Any) -> bool:
    try:
        dtypes.as_dtype(value)
    except TypeError:
        return False
    return not isinstance(value, str)  # a string is a device here ("cpu"), as in PyTorch


def _astype(self: Tensor, dtype: Any) -> Tensor:
    """Cast to ``dtype`` (differentiable between float dtypes)."""
    return ops.cast(self, dtype)


def _retyped(t: Tensor, dtype: Any) -> Tensor:
    """``t`` cast to the minigrad ``dtype``; ``t`` itself when it already has it, as PyTorch's
    ``to``/``float()``/``type_as`` return it (a leaf stays a leaf)."""
    return t if t._dtype is dtype else ops.cast(t, dtype)


def _caster(dtype: Any, name: str) -> Callable[[Tensor], Tensor]:
    def cast_method(self: Tensor) -> Tensor:
        return _retyped(self, dtype)

    cast_method.__name__ = name
    cast_method.__doc__ = f"``self.astype(minigrad.{dtype.name})``; ``self`` when it already is {dtype.name}."
    return cast_method


Tensor.T = property(_T)  # type: ignore[attr-defined]
Tensor.clone = _clone  # type: ignore[attr-defined]
Tensor.to = _to  # type: ignore[attr-defined]


def _set_(self: Tensor, source: Any = None) -> Tensor:
    """``Tensor.set_(source)``: this tensor takes ``source``'s storage, shape and strides - from then on the two
    share memory - keeping its own identity (``nn.utils.parametrize`` sets a Parameter so); ``set_()``: an
    empty tensor. An in-place change: the version moves, and a leaf that requires grad is refused under grad
    mode."""
    if source is None:
        source = _creation.empty(0, dtype=self._dtype, device=self._device)
    elif not isinstance(source, Tensor):
        raise TypeError(f"set_() received an invalid combination of arguments - got ({type(source).__name__}), but "
                        f"expected one of:\n * ()\n * (Tensor source)")
    if source._dtype is not self._dtype:
        raise RuntimeError(f"Could not set tensor of type {dtypes.cpp_type_name(source._dtype)} to a tensor of type "
                           f"{dtypes.cpp_type_name(self._dtype)}")
    if source._device != self._device:
        raise RuntimeError(f"Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
                           f"incompatible tensor type: {self._device} and {source._device}")
    if _autograd.is_grad_enabled() and self.requires_grad:
        if self.is_leaf:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        raise RuntimeError("set_(): minigrad cannot give a tensor with history another storage (use it under "
                           "no_grad, or on a detached tensor)")
    self._data = source._data
    if self._vc is None:
        self._vc = VersionCounter()
    self._vc.bump()
    return self


Tensor.set_ = _set_  # type: ignore[attr-defined]
Tensor.cpu = lambda self: self.to("cpu")  # type: ignore[attr-defined]
Tensor.gpu = lambda self: self.to("gpu")  # type: ignore[attr-defined]
Tensor.cuda = lambda self, device=None, non_blocking=False, **kw: self.to(  # type: ignore[attr-defined]
    "gpu", non_blocking=non_blocking, **kw)  # (PyTorch's spelling of gpu())


def _pin_memory(self: Tensor, device: Any = None) -> Tensor:
    """A copy of this CPU tensor in page-locked (pinned) host memory, or ``self`` if it is pinned already.
    From pinned memory, ``.to("cuda", non_blocking=True)`` is a copy the host does not wait for: a
    ``device.copy`` with no ``device.sync`` (``devices.move_array``)."""
    if self._device != "cpu":
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    if _is_pinned(self):
        return self
    if not is_gpu_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    pinned = backend_of_device("gpu").pin(self._data)
    if self._meta is None:
        return Tensor._make(pinned, self._dtype, "cpu", self._layout)
    out = ops.clone(self)  # differentiable, as PyTorch's pin_memory: gradients flow back to self
    out._data = pinned
    return out


def _is_pinned(self: Tensor, device: Any = None) -> bool:
    """Whether this tensor's memory is page-locked (``pin_memory()``); False on a machine without a GPU."""
    if self._device != "cpu" or not is_gpu_available():
        return False
    info = backend_of_device("gpu")
    return info.is_pinned is not None and info.is_pinned(self._data)


Tensor.pin_memory = _pin_memory  # type: ignore[attr-defined]
Tensor.is_pinned = _is_pinned  # type: ignore[attr-defined]
Tensor.astype = _astype  # type: ignore[attr-defined]
for _cast_name, _dtype in (("float", dtypes.float32), ("double", dtypes.float64), ("half", dtypes.float16),
                           ("long", dtypes.int64), ("int", dtypes.int32), ("bool", dtypes.bool_),
                           ("bfloat16", dtypes.bfloat16), ("short", dtypes.int16), ("char", dtypes.int8),
                           ("byte", dtypes.uint8)):
    setattr(Tensor, _cast_name, _caster(_dtype, _cast_name))


# -- autograd ---------------------------------------------------------------


def _backward(self: Tensor, gradient: Tensor | None = None, retain_graph: bool | None = None,
              create_graph: bool = False, inputs: Any = None, *, grad_tensor: Tensor | None = None) -> None:
    """Compute the gradients of this tensor w.r.t. the graph's leaves (``mg.autograd.backward``: ``run_backward``).

    Args:
        gradient: the seed gradient; may be omitted only for one-element tensors
            (``grad_tensor=``, Paddle's name, works too).
        retain_graph: keep the graph's saved tensors so backward can run again;
            defaults to ``create_graph``.
        create_graph: record the backward formulas, so the gradients can be differentiated again.
        inputs: accumulate only into these tensors' ``.grad`` (see ``mg.autograd.backward``).
    """
    if grad_tensor is not None:
        if gradient is not None:
            raise TypeError("backward(): got both 'gradient' and 'grad_tensor' (Paddle's name for it)")
        gradient = grad_tensor
    if gradient is not None and not isinstance(gradient, Tensor):
        raise TypeError(f"backward(): argument 'gradient' (position 0) must be Tensor or None, but got {type(gradient).__name__}")
    _autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _register_hook(self: Tensor, hook: Callable[[Tensor], Tensor | None]) -> Any:
    """Register ``hook(grad) -> Tensor | None`` to run on this tensor's gradient.

    Returns a handle with ``.remove()``. Several hooks chain in
    registration order; a returned tensor replaces the gradient.
    """
    return _hooks.register_hook(self, hook)


def _register_post_accumulate_grad_hook(self: Tensor, hook: Callable[[Tensor], None]) -> Any:
    """Register ``hook(tensor) -> None`` to run on this leaf after backward has accumulated its gradient into
    ``.grad`` (an optimizer step per parameter, as soon as its gradient is complete). Returns a handle with
    ``.remove()``."""
    return _hooks.register_post_accumulate_grad_hook(self, hook)


def _retain_grad(self: Tensor) -> None:
    """Keep this non-leaf tensor's gradient in ``.grad`` after backward."""
    _hooks.retain_grad(self)


Tensor.backward = _backward  # type: ignore[attr-defined]


def _rtruediv(self: Tensor, other: Any) -> Any:
    """``other / self``: for a number, PyTorch's ``self.reciprocal() * other``.

    The graph is PyTorch's (MulBackward0, then ReciprocalBackward0), and so is what
    it saves: reciprocal keeps its result, not ``self``, so changing ``self`` in
    place afterwards does not stop backward.
    """
    if isinstance(other, Tensor):
        return ops.div(other, self)
    return ops.mul(ops.reciprocal(self), other)


Tensor.__rtruediv__ = _rtruediv  # type: ignore[attr-defined]
Tensor.register_hook = _register_hook  # type: ignore[attr-defined]
Tensor.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook  # type: ignore[attr-defined]
Tensor.retain_grad = _retain_grad  # type: ignore[attr-defined]


# -- in-place ops (docs/architecture.md, Engine rules, rule 8): the dispatch layer's run_inplace ------------


def _inplace_method(name: str, op: Any) -> Callable[[Tensor, Any], Tensor]:
    def method(self: Tensor, other: Any, **kwargs: Any) -> Tensor:
        if kwargs and name in ("add_", "sub_") and set(kwargs) == {"alpha"}:
            # PyTorch's ``p.add_(g, alpha=-lr)``: the ``add``/``sub`` form with alpha (one op, AddBackward0)
            alpha = kwargs["alpha"]
            form = add_form if name == "add_" else sub_form
            return run_inplace(self, name, lambda: form(self, other, alpha=alpha), other)
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        return run_inplace(self, name, lambda: op(self, other), other)

    method.__name__ = name
    method.__doc__ = f"In place: ``self = minigrad.{op.name}(self, other)`` (bumps the version counter)."
    return method


def _zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place (ZeroBackward0)."""
    return run_inplace(self, "zero_", lambda: ops.OPS["zero_"](self))


def _fill_(self: Tensor, value: Any) -> Tensor:
    """Fill with ``value`` in place: a number (FillBackward2) or a 0-d tensor, which takes the gradient's sum
    (FillBackward3; a CPU value into a GPU tensor is moved there first, as a copy)."""
    if isinstance(value, Tensor):
        if value.ndim == 0 and value._device != self._device:
            value = value.to(self._device)
        return run_inplace(self, "fill_", lambda: ops.OPS["fill_tensor_"](self, value), value)
    if not isinstance(value, (int, float, bool)):
        raise TypeError(f"fill_(): argument 'value' (position 0) must be a number, but got {type(value).__name__}")
    return run_inplace(self, "fill_", lambda: ops.OPS["fill_"](self, value))


for _op in (ops.add, ops.sub, ops.mul, ops.div, ops.bitwise_and, ops.bitwise_or, ops.bitwise_xor):
    setattr(Tensor, _op.name + "_", _inplace_method(_op.name + "_", _op))
Tensor.zero_ = _zero_  # type: ignore[attr-defined]
Tensor.fill_ = _fill_  # type: ignore[attr-defined]
Tensor.__iadd__ = lambda self, o: self.add_(o)  # type: ignore[assignment]
Tensor.__isub__ = lambda self, o: self.sub_(o)  # type: ignore[assignment]
Tensor.__imul__ = lambda self, o: self.mul_(o)  # type: ignore[assignment]
Tensor.__itruediv__ = lambda self, o: self.div_(o)  # type: ignore[assignment]
Tensor.__iand__ = lambda self, o: self.bitwise_and_(o)  # type: ignore[assignment]


def _invert(self: Tensor) -> Tensor:
    """``~x``: ``minigrad.bitwise_not`` of a bool or integer tensor; a float tensor is refused with PyTorch's TypeError
    (``minigrad.bitwise_not`` itself raises RuntimeError there, as ``torch.bitwise_not`` does)."""
    if self._dtype.is_floating:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return ops.bitwise_not(self)


Tensor.__invert__ = _invert  # type: ignore[assignment]
Tensor.__ior__ = lambda self, o: self.bitwise_or_(o)  # type: ignore[assignment]
Tensor.__ixor__ = lambda self, o: self.bitwise_xor_(o)  # type: ignore[assignment]


# -- copy.deepcopy (modules are deep-copied to stack identical layers, e.g. TransformerEncoder) --


def _deepcopy(self: Tensor, memo: dict[int, Any]) -> Tensor:
    """``copy.deepcopy(t)``: a new leaf with its own storage and its own id (PyTorch's rule:
    only leaves can be deep-copied; ``requires_grad`` and ``.grad`` are copied too)."""
    if id(self) in memo:
        return memo[id(self)]
    if self._meta is not None and self._meta.grad_node is not None:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                           "protocol at the moment. If you were attempting to deepcopy a module, this may be "
                           "because of a torch.nn.utils.weight_norm usage, see "
                           "https://github.com/pytorch/pytorch/pull/103001")
    out = Tensor._make(self._data.copy(), self._dtype, self._device, self._layout)
    memo[id(self)] = out
    if self._meta is not None:
        out.requires_grad_(True)
        if self.grad is not None:
            out.grad = _deepcopy(self.grad, memo)
    return out


Tensor.__deepcopy__ = _deepcopy  # type: ignore[attr-defined]


# -- methods of the composite functions, with PyTorch's names ------------------------------------

_METHODS = {
    "log1p": ops.log1p, "expm1": ops.expm1, "argmax": ops.argmax, "argmin": ops.argmin,
    "max": ops.max, "min": ops.min, "amax": ops.amax, "amin": ops.amin, "var": ops.var, "std": ops.std, "masked_fill": ops.masked_fill,
    "tril": ops.tril, "triu": ops.triu, "clamp": ops.clamp, "clip": ops.clamp, "clamp_min": ops.clamp_min,
    "clamp_max": ops.clamp_max, "split": ops.split, "split_with_sizes": ops.split_with_sizes, "chunk": ops.chunk,
    "unsafe_split": ops.unsafe_split, "unsafe_split_with_sizes": ops.unsafe_split_with_sizes,
    "unsafe_chunk": ops.unsafe_chunk,
    "tensor_split": ops.tensor_split, "hsplit": ops.hsplit, "vsplit": ops.vsplit, "dsplit": ops.dsplit, "t": ops.t, "bmm": ops.bmm,
    "broadcast_to": ops.broadcast_to,
    "allclose": ops.allclose, "isclose": ops.isclose, "add": add_form, "sub": sub_form, "div": _div_form,
    "softmax": _softmax_form, "log_softmax": _log_softmax_form,
    "floor": ops.floor, "ceil": ops.ceil, "trunc": ops.trunc, "round": ops.round,
}


#: method name -> the registered op that defines it (``clamp`` -> ``clip``): its doc names that op
_OWNER = {m: op_name for op_name, op in ops.OPS.items() for m in op.methods}


def _make_composite_method(fn: Any, name: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"Same as ``minigrad.{_OWNER.get(name, name)}(self, ...)``."
    return method


for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _make_composite_method(_fn, _name))

_T_OP = ops.OPS["t"]


def _t(self: Tensor) -> Tensor:
    # ``self`` is a tensor, so of ``minigrad.t``'s checks only the rank's is left: the call goes to the
    # dygraph layer directly, as ``a * b`` does (NOTE [ The common call ] in ops/registry.py). A view op
    # in a hot loop (``q @ k.t()``) then skips four Python calls.
    if self._data.ndim > 2:
        return ops.t(self)  # its refusal, in PyTorch's words
    return _T_OP.dygraph_function(self, _T_OP._default_attrs)


_t.__name__, _t.__doc__ = "t", Tensor.t.__doc__
Tensor.t = _t  # type: ignore[method-assign]


def _view(self: Tensor, *shape: Any) -> Tensor:
    """``reshape`` that must share storage, as PyTorch's ``view``: an error where the memory layout
    cannot be viewed with the new shape (e.g. after a transpose), instead of a silent copy."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if hasattr(self._data, "strides"):  # NumPy's and CuPy's arrays: the shape is set without a copy, or refused
        try:
            fits = viewable(self._data, tuple(shape))
        except (ValueError, TypeError):
            fits = True  # a shape that does not fit the size: view's InferMeta says so in PyTorch's words
        if not fits:
            raise RuntimeError(  # PyTorch's words
                "view size is not compatible with input tensor's size and stride (at least one dimension spans "
                "across two contiguous subspaces). Use .reshape(...) instead."
            )
    return ops.view(self, tuple(shape))


def _matrix_transpose(name: str) -> Any:
    """``mT`` and ``mH`` (the same for minigrad's real tensors): the last two dimensions swapped."""
    def transposed(self: Tensor) -> Tensor:
        if self.ndim < 2:
            raise ShapeError(f"tensor.{name} is only supported on matrices or batches of matrices. "
                             f"Got {self.ndim}-D tensor.")
        return ops.transpose(self, -2, -1)
    transposed.__doc__ = f"``{name}``: the last two dimensions swapped (a batched matrix transpose)."
    return transposed


def _H(self: Tensor) -> Tensor:
    """``H``: a matrix's conjugate transpose, its transpose for minigrad's real tensors (2-D only)."""
    if self.ndim != 2:
        hint = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
        raise ShapeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.{hint}")
    return ops.transpose(self, 0, 1)


def _contiguous(self: Tensor, memory_format: Any = contiguous_format) -> Tensor:
    """A tensor with C-contiguous storage (``self`` when it already is); with ``memory_format=channels_last``
    (or ``channels_last_3d``), one whose channels are the fastest dim (a ``clone`` in that format)."""
    fmt = memory_format if memory_format is contiguous_format else as_memory_format("contiguous", memory_format)
    if _laid_out_as(self, fmt):
        return self
    if fmt == "preserve_format":
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    check_memory_format_rank(fmt, self.ndim)
    return ops.clone(self, memory_format=fmt)


def _is_contiguous(self: Tensor, memory_format: Any = contiguous_format) -> bool:
    """Whether the elements lie in row-major order without gaps (size-1 dimensions' strides do not
    count, and an empty tensor is contiguous), as PyTorch's ``is_contiguous()``; with
    ``memory_format=channels_last`` (``channels_last_3d``), whether they lie in (N, H, W, C) order
    ((N, D, H, W, C)) without gaps - ``False`` for a tensor of another rank."""
    fmt = memory_format if memory_format is contiguous_format else as_memory_format("is_contiguous", memory_format)
    return _laid_out_as(self, fmt)


def _laid_out_as(t: Tensor, fmt: str) -> bool:
    """``is_contiguous(memory_format=fmt)`` of the format's plain name."""
    if fmt in CHANNELS_LAST:
        return is_contiguous_as(fmt, tuple(t.shape), t.stride())
    flags = getattr(t._data, "flags", None)
    return flags is None or bool(flags["C_CONTIGUOUS"])


def _stride(self: Tensor, dim: int | None = None) -> Any:
    """The step, in elements, from one element to the next along each dimension (a tuple), or along
    ``dim``; a view shares its base's storage with its own strides (docs/concepts/views.md)."""
    data = self._data
    steps = tuple(s // data.itemsize for s in data.strides)
    if data.size == 0 and data.ndim and not any(steps):  # NumPy zeroes an empty array's strides; PyTorch
        steps = contiguous_strides(data.shape)  # keeps the row-major ones (size 0 counted as 1)
    if dim is None:
        return steps
    dim = wrap_dim("stride", check_int("stride", "dim", 1, dim), len(steps))
    return steps[dim] if steps else 1  # a 0-d tensor takes dim 0 and -1, as in PyTorch




def _address(a: Any) -> int:
    return a.data.ptr if hasattr(a.data, "ptr") else a.__array_interface__["data"][0]


def _storage_offset(self: Tensor) -> int:
    """Where the first element lies in the storage, in elements: 0 for a tensor that owns its storage,
    the view's start in its base's storage for a view (``h[1].storage_offset()`` of a 2x3 ``h`` is 3)."""
    if self._data.size == 0:
        return 0
    return (_address(self._data) - _address(storage_array(self))) // self._data.itemsize


def _data_ptr(self: Tensor) -> int:
    """The address of the first element (``torch.Tensor.data_ptr``): equal for a tensor and an in-place
    result of it, or a view that starts where its base does."""
    return _address(self._data)


def _type_as(self: Tensor, other: Tensor) -> Tensor:
    """``self`` in ``other``'s dtype (``self`` itself when it already has it, as in PyTorch)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, but got {type(other).__name__}")
    return _retyped(self, other._dtype)


Tensor.view = _view  # type: ignore[attr-defined]
Tensor.mT = property(_matrix_transpose("mT"))  # type: ignore[attr-defined]
Tensor.mH = property(_matrix_transpose("mH"))  # type: ignore[attr-defined]
Tensor.H = property(_H)  # type: ignore[attr-defined]
Tensor.contiguous = _contiguous  # type: ignore[attr-defined]
Tensor.is_contiguous = _is_contiguous  # type: ignore[attr-defined]
Tensor.stride = _stride  # type: ignore[attr-defined]
Tensor.storage_offset = _storage_offset  # type: ignore[attr-defined]
Tensor.data_ptr = _data_ptr  # type: ignore[attr-defined]
Tensor.index_put_ = _index_put_  # type: ignore[attr-defined]
Tensor.type_as = _type_as  # type: ignore[attr-defined]


# In-place sampling (ops/sampling.py): x.normal_(), x.uniform_(), x.random_(), x.bernoulli_(), x.exponential_().

for _name in _sampling.METHODS:
    setattr(Tensor, _name, getattr(_sampling, _name))


Tensor.bernoulli = _make_method(_creation.bernoulli)  # type: ignore[attr-defined]
Tensor.multinomial = _make_method(_creation.multinomial)  # type: ignore[attr-defined]


# PyTorch's new_* (creation.py) and type().

for _name, _fn in _creation.TENSOR_METHODS.items():
    setattr(Tensor, _name, _fn)

#: dtype -> PyTorch's legacy tensor type name, as ``x.type()`` returns it
_TYPE_NAMES = {dtypes.float32: "FloatTensor", dtypes.float64: "DoubleTensor", dtypes.float16: "HalfTensor",
               dtypes.int64: "LongTensor", dtypes.int32: "IntTensor", dtypes.bool_: "BoolTensor",
               dtypes.uint8: "ByteTensor", dtypes.int8: "CharTensor", dtypes.int16: "ShortTensor",
               dtypes.bfloat16: "BFloat16Tensor"}


def _type(self: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    """``x.type()``: PyTorch's type name (``'torch.FloatTensor'``, ``'torch.cuda.FloatTensor'`` on the GPU);
    ``x.type(dtype)`` (a dtype or such a name): ``x`` cast to it."""
    if dtype is None:
        prefix = "torch.cuda." if self._device == "gpu" else "torch."
        return prefix + _TYPE_NAMES[self.dtype]
    if isinstance(getattr(dtype, "dtype", None), dtypes.DType) and isinstance(dtype, type):  # x.type(mg.LongTensor)
        dtype = dtype.__name__
    if isinstance(dtype, str) and dtype.endswith("Tensor"):
        by_name = {v: k for k, v in _TYPE_NAMES.items()}
        short = dtype.rsplit(".", 1)[-1]
        if short not in by_name:
            raise ShapeError(f"invalid type: '{dtype}'")
        out = self.to(by_name[short])
        return out.to("gpu") if ".cuda." in dtype else out
    return self.to(dtype)


Tensor.type = _type  # type: ignore[attr-defined]


# Ordering, indexing, running totals, norms and products, pointwise formulas.
_METHODS_BY_FAMILY = {
    # ordering, searching and counting
    "sort": ops.sort, "argsort": ops.argsort, "topk": ops.topk, "msort": ops.msort, "kthvalue": ops.kthvalue,
    "median": ops.median, "mode": ops.mode, "quantile": ops.quantile, "unique": ops.unique, "bincount": ops.bincount,
    "unique_consecutive": ops.unique_consecutive, "histogram": ops.histogram, "frexp": ops.frexp, "ldexp": ops.ldexp,
    "nonzero": ops.nonzero, "argwhere": ops.argwhere, "count_nonzero": ops.count_nonzero,
    # indexed reads and writes
    "gather": ops.gather, "scatter_add": ops.scatter_add, "scatter": ops.scatter, "scatter_reduce": ops.scatter_reduce, "take_along_dim": ops.take_along_dim,
    "index_add": ops.index_add, "index_reduce": ops.index_reduce, "index_fill": ops.index_fill, "index_copy": ops.index_copy, "index_put": ops.index_put,
    "index_select": ops.index_select, "masked_select": ops.masked_select,
    # writing a source into a view, a mask's positions, flat positions; lower medians and quantiles without NaN
    "slice_scatter": ops.slice_scatter, "select_scatter": ops.select_scatter, "diagonal_scatter": ops.diagonal_scatter,
    "masked_scatter": ops.masked_scatter, "put": ops.put, "nanmedian": ops.nanmedian, "nanquantile": ops.nanquantile,
    "renorm": ops.renorm, "adjoint": ops.adjoint,
    "take": ops.take, "narrow": ops.narrow, "select": ops.select, "diagonal": ops.diagonal, "diag": ops.diag,
    "unfold": _unfold, "as_strided": ops.as_strided,
    # running totals and reductions
    "cumsum": ops.cumsum, "cumprod": ops.cumprod, "logcumsumexp": ops.logcumsumexp, "cummax": ops.cummax,
    "cummin": ops.cummin, "prod": ops.prod, "diff": ops.diff, "all": ops.all, "any": ops.any,
    "nansum": ops.nansum, "nanmean": ops.nanmean, "aminmax": ops.aminmax, "equal": ops.equal,
    # moving, copying and reshaping
    "fliplr": ops.fliplr, "flipud": ops.flipud, "rot90": ops.rot90, "repeat": _repeat, "tile": ops.tile,
    "repeat_interleave": ops.repeat_interleave, "unbind": ops.unbind, "movedim": ops.movedim,
    "moveaxis": ops.moveaxis, "swapaxes": ops.swapaxes, "swapdims": ops.swapdims, "unflatten": ops.unflatten,
    "ravel": ops.ravel,
    # norms and products
    "norm": ops.norm, "outer": ops.outer, "ger": ops.ger, "addmm": ops.addmm, "addmv": ops.addmv,
    "baddbmm": ops.baddbmm, "addbmm": ops.addbmm, "addr": ops.addr, "dist": ops.dist, "diagflat": ops.diagflat, "dot": ops.dot,
    "vdot": ops.vdot, "mv": ops.mv, "mm": ops.mm,
    "inner": ops.inner,
    "igamma": ops.incomplete_gamma.igamma_method, "igammac": ops.incomplete_gamma.igammac_method,
    "kron": ops.kron, "cross": ops.cross, "inverse": ops.inverse, "det": ops.det, "matrix_power": _matrix_power,
    # matrix factorizations (ops/factorization.py)
    "cholesky": ops.cholesky, "cholesky_inverse": ops.cholesky_inverse, "slogdet": ops.slogdet, "logdet": ops.logdet, "qr": ops.qr, "svd": ops.svd,
    "pinverse": ops.pinverse, "matrix_exp": ops.matrix_exp,
    # Householder reflectors and the solves from a factor (ops/householder.py, ops/inverse.py, ops/lu.py)
    "geqrf": ops.geqrf, "orgqr": ops.orgqr, "ormqr": ops.ormqr, "triangular_solve": ops.triangular_solve,
    "cholesky_solve": ops.cholesky_solve, "lu_solve": ops.lu_solve, "lu": ops.lu,
    # pointwise formulas, NumPy's names
    "square": ops.square, "rsqrt": ops.rsqrt, "reciprocal": ops.reciprocal, "lerp": ops.lerp,
    "addcmul": ops.addcmul, "addcdiv": ops.addcdiv, "logical_not": ops.logical_not,
    "logical_and": ops.logical_and, "logical_or": ops.logical_or, "logical_xor": ops.logical_xor,
    "nan_to_num": ops.nan_to_num, "logaddexp2": ops.logaddexp2, "hypot": ops.hypot,
    "sgn": ops.sgn, "frac": ops.frac, "fmax": ops.fmax, "fmin": ops.fmin,
    "heaviside": ops.heaviside, "erfc": ops.erfc, "float_power": ops.float_power, "deg2rad": ops.deg2rad,
    "rad2deg": ops.rad2deg, "multiply": ops.multiply, "subtract": ops.subtract, "divide": ops.divide,
    "true_divide": ops.true_divide, "greater": ops.greater, "greater_equal": ops.greater_equal, "less": ops.less,
    "less_equal": ops.less_equal, "not_equal": ops.not_equal, "absolute": ops.absolute, "negative": ops.negative,
    "positive": ops.positive,
    # NumPy's names of the inverse trigonometric functions, and fix (trunc): the same ops, so the same nodes
    "arccos": ops.acos, "arcsin": ops.asin, "arctan": ops.atan, "arccosh": ops.acosh, "arcsinh": ops.asinh,
    "arctanh": ops.atanh, "arctan2": ops.atan2, "fix": ops.trunc,
}
for _name, _fn in _METHODS_BY_FAMILY.items():
    setattr(Tensor, _name, _make_composite_method(_fn, _name))


def _flip(self: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    """``x.flip(0, 1)``, ``x.flip([0, 1])`` or ``x.flip(dims=(0,))``: ``minigrad.flip``."""
    if not dims and "dims" in kwargs:
        return ops.flip(self, kwargs.pop("dims"), **kwargs)
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return ops.flip(self, tuple(dims))


def _view_as(self: Tensor, other: Tensor) -> Tensor:
    """``self.view(other.shape)`` (``Tensor.view_as``)."""
    return _view(self, tuple(other.shape))


def _reshape_as(self: Tensor, other: Tensor) -> Tensor:
    """``self.reshape(other.shape)`` (``Tensor.reshape_as``)."""
    return ops.reshape(self, tuple(other.shape))


def _where_method(self: Tensor, condition: Tensor, other: Any) -> Tensor:
    """``x.where(condition, y)``: ``minigrad.where(condition, x, y)``."""
    return ops.where(condition, self, other)


def _trace_method(self: Tensor) -> Tensor:
    """``x.trace()``: the sum of the diagonal of a 2-D tensor (``Tensor.trace``; ``minigrad.trace`` is also the
    recorder, which given a tensor runs this): the ``trace`` op (``TraceBackward0``)."""
    return ops.OPS["trace"](self)


def _sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """``self`` summed down to ``size``, which ``self``'s shape must be expandable from (the gradient of a
    broadcast): PyTorch's composite ``sum_to`` - the leading dims and the dims ``size`` has as 1 summed in one
    ``sum(dims, keepdim=True)`` (``SumBackward1``), then a ``view`` without the leading dims (``ViewBackward0``);
    to ``()``, ``sum()``; ``self`` itself when nothing is summed."""
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    shape = _shape_args(size)
    bad = next((n for n in shape if not isinstance(n, int) or isinstance(n, bool)), None)
    if bad is not None:
        raise TypeError(f"sum_to_size(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size[0] if len(size) == 1 else bad).__name__}")
    have = tuple(self.shape)
    lead = len(have) - len(shape)
    if lead < 0 or any(n != 1 and n != m for n, m in zip(shape, have[lead:])):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(have)}}}.")
    if not shape and have:
        return ops.sum(self)  # to a 0-d tensor: the sum of all elements (SumBackward0), as PyTorch's sum_to
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and have[lead + i] != 1)
    out = ops.sum(self, dim=dims, keepdim=True) if dims else self
    return ops.view(out, shape) if lead > 0 else out


Tensor.sum_to_size = _sum_to_size  # type: ignore[attr-defined]
Tensor.flip = _flip  # type: ignore[attr-defined]
Tensor.view_as = _view_as  # type: ignore[attr-defined]
Tensor.reshape_as = _reshape_as  # type: ignore[attr-defined]
Tensor.where = _where_method  # type: ignore[attr-defined]
Tensor.trace = _trace_method  # type: ignore[attr-defined]


# In place (docs/architecture.md, Engine rules, rule 8): the out-of-place result written back by run_inplace.
_INPLACE_COMPOSITES = {
    "scatter_": ops.scatter, "scatter_add_": ops.scatter_add, "scatter_reduce_": ops.scatter_reduce, "index_add_": ops.index_add,
    "index_reduce_": ops.index_reduce,
    "index_fill_": ops.index_fill, "index_copy_": ops.index_copy,
    "masked_fill_": ops.masked_fill,
    "put_": ops.put, "renorm_": ops.renorm,
}
for _name, _fn in _INPLACE_COMPOSITES.items():
    setattr(Tensor, _name, _inplace_composite(_name, _fn))
Tensor.masked_scatter_ = ops.indexing.masked_scatter_  # type: ignore[attr-defined]  (its mask checked first)
Tensor.clamp_ = clamp_inplace("clamp_", ops.clamp)  # type: ignore[attr-defined]
Tensor.clip_ = clamp_inplace("clip_", ops.clamp)  # type: ignore[attr-defined]

#: PyTorch's in-place forms of the elementwise, cumulative and triangle methods whose out-of-place form is one op
#: with PyTorch's node: ``x.floor_()`` is ``x.floor()`` written back by run_inplace (the op's node becomes the
#: tensor's, its version bumps, a saved ``x`` is kept as it was; ``square_`` is ``pow``'s). Not here: forms whose
#: method is a composite (``float_power_``: its inner nodes would save the changed ``x``), and ``acosh_``/``asinh_``/
#: ``atanh_``, whose derivative PyTorch does not implement: theirs are ops of their own (below).
_INPLACE_OF_METHODS = (
    "arccos_", "arcsin_", "arctan_", "arctan2_", "fix_", "lgamma_", "digamma_", "mvlgamma_",
    "absolute_", "acos_", "asin_", "atan_", "atan2_", "ceil_", "copysign_", "cos_", "cosh_", "cumprod_", "cumsum_",
    "divide_", "erf_", "exp2_", "expm1_", "floor_", "floor_divide_", "fmod_", "heaviside_", "log10_", "log1p_",
    "log2_", "logit_", "multiply_", "negative_", "reciprocal_", "remainder_", "round_", "sign_", "sin_",
    "sinc_", "sinh_", "subtract_", "tan_", "tril_", "triu_", "true_divide_", "trunc_", "xlogy_", "addmm_", "addmv_",
    "baddbmm_", "addbmm_", "addr_", "sgn_", "rsqrt_", "frac_", "erfinv_", "erfc_", "square_", "hypot_",
    "nan_to_num_", "deg2rad_", "rad2deg_", "gcd_", "lcm_", "ldexp_", "i0_", "nextafter_",
    "igamma_", "igammac_",
)
for _name in _INPLACE_OF_METHODS:
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, _inplace_composite(_name, getattr(Tensor, _name[:-1])))


#: ``x.acosh_()`` and its NumPy-named twin ``x.arccosh_()``: the op ``acosh_`` (``AcoshBackward1``, which raises in
#: backward as PyTorch's: ``ops/trigonometric.py``) written back by run_inplace.
Tensor.polygamma_ = _inplace_composite("polygamma_", ops.OPS["polygamma_"])  # PolygammaBackward1 (ops/gamma.py)
for _name in ("acosh", "asinh", "atanh"):
    setattr(Tensor, _name + "_", _inplace_composite(_name + "_", ops.OPS[_name + "_"]))
    setattr(Tensor, "arc" + _name[1:] + "_", _inplace_composite("arc" + _name[1:] + "_", ops.OPS[_name + "_"]))


# -- in-place comparisons and logical ops: x.eq_(y), x.less_(2.0), x.logical_and_(m) ... -------------------------


def _compare_inplace(name: str, op: Any) -> Callable[[Tensor, Any], Tensor]:
    """The method ``name`` (``eq_``, ``less_``): the op ``op`` (``ops/compare_inplace.py``: ``EqBackward0``/``1``)
    written back by run_inplace."""
    def method(self: Tensor, other: Any) -> Tensor:
        if not isinstance(other, (Tensor, int, float, bool)):
            raise TypeError(f"{name}() received an invalid combination of arguments - got ({type(other).__name__}), "
                            "but expected one of:\n * (Tensor other)\n * (Number other)")
        check_inplace_shape(self, other, name)
        return run_inplace(self, name, lambda: op(self, other, dtype=self._dtype), operands=(other,))

    method.__name__ = name
    method.__doc__ = (f"In place: ``self`` takes the truth values of ``{op.name[:-1]}(self, other)`` in its own dtype "
                      f"(1 and 0; {op.node_class.__name__[:-1]}0 for a number, ...1 for a tensor, zero gradients).")
    return method


def _logical_inplace(name: str, fn: Any) -> Callable[..., Tensor]:
    """The method ``name`` (``logical_and_``): ``fn``'s truth values written into ``self`` in its dtype, as PyTorch's
    ``out=`` kernel writes them: outside autograd (no node: ``self`` keeps its history, its version moves - a leaf
    that requires grad is not refused, as in PyTorch)."""
    def method(self: Tensor, *other: Any) -> Tensor:
        if other and not isinstance(other[0], Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {type(other[0]).__name__}")
        if other:
            check_inplace_shape(self, other[0], name)
        with _autograd.no_grad():
            return run_inplace(self, name, lambda: fn(self, *other), operands=other)

    method.__name__ = name
    method.__doc__ = (f"In place: ``self`` takes the truth values of ``minigrad.{name[:-1]}(self, ...)`` in its own "
                      "dtype (no node, as in PyTorch: the history stays, the version moves).")
    return method


for _name, _op in (("eq_", "eq_"), ("ne_", "ne_"), ("lt_", "lt_"), ("le_", "le_"), ("gt_", "gt_"), ("ge_", "ge_"),
                   ("less_", "lt_"), ("less_equal_", "le_"), ("greater_", "gt_"), ("greater_equal_", "ge_"),
                   ("not_equal_", "ne_")):
    setattr(Tensor, _name, _compare_inplace(_name, ops.OPS[_op]))
for _fn in (ops.logical_and, ops.logical_or, ops.logical_xor, ops.logical_not):
    setattr(Tensor, _fn.__name__ + "_", _logical_inplace(_fn.__name__ + "_", _fn))


# -- PyTorch's in-place detach, output positions, and the CPU-only Python callbacks --------------------------------

_DETACH_VIEW = ("Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
                "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")


def _detach_(self: Tensor) -> Tensor:
    """``x.detach_()``: ``x`` itself leaves the graph (no ``grad_fn``, no ``requires_grad``); a view refuses, as
    PyTorch's (its base's history would still reach it). Its ``.grad`` stays, as PyTorch's."""
    if self._view is not None:
        raise RuntimeError(_DETACH_VIEW)
    meta, self._meta = self._meta, None
    self._keep_grad(meta)
    return self


def _output_nr(self: Tensor) -> int:
    """Which output of its ``grad_fn`` this tensor is (0 for a leaf): ``unbind``'s second part is 1."""
    meta = self._meta
    if meta is None or meta.grad_node is None:
        return 0
    rows = meta.grad_node.in_meta
    return sum(len(r) for r in rows[:meta.out_slot]) + meta.out_rank


def _float_power_(self: Tensor, exponent: Any) -> Tensor:
    """``x.float_power_(e)``: ``x ** e`` in float64, in place, so ``x`` must be float64 (PyTorch's words
    otherwise); ``pow_``'s node (``PowBackward0``/``1``)."""
    if self._dtype is not dtypes.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {scalar_type_name(self._dtype)} but the "
                           "operation's result requires dtype Double")
    if isinstance(exponent, Tensor) and exponent._dtype is not dtypes.float64:
        exponent = exponent.double()
    return self.pow_(exponent)


def _callback_check(self: Tensor, name: str) -> None:
    if self._device != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")


def _apply_(self: Tensor, callable: Callable[[Any], Any]) -> Tensor:
    """``x.apply_(fn)``: ``fn`` of each element written back, in place (CPU only, and slow, as PyTorch's)."""
    _callback_check(self, "apply_")
    values = np.array([callable(v) for v in self._data.reshape(-1).tolist()], dtype=self._dtype.np)
    return self.copy_(Tensor._make(values.reshape(self._data.shape), self._dtype))


def _map_(self: Tensor, tensor: Tensor, callable: Callable[[Any, Any], Any]) -> Tensor:
    """``x.map_(y, fn)``: ``fn(x_i, y_i)`` written into ``x``, ``y`` broadcast to ``x``'s shape (CPU only)."""
    _callback_check(self, "map_")
    other = tensor.expand_as(self).detach().numpy().reshape(-1).tolist()
    values = np.array([callable(a, b) for a, b in zip(self._data.reshape(-1).tolist(), other)], dtype=self._dtype.np)
    return self.copy_(Tensor._make(values.reshape(self._data.shape), self._dtype))


Tensor.detach_ = _detach_  # type: ignore[attr-defined]
Tensor.output_nr = property(_output_nr)  # type: ignore[attr-defined]
Tensor.float_power_ = _float_power_  # type: ignore[attr-defined]
Tensor.apply_ = _apply_  # type: ignore[attr-defined]
Tensor.map_ = _map_  # type: ignore[attr-defined]
Tensor.cov = lambda self, *, correction=1, fweights=None, aweights=None: ops.cov(  # type: ignore[attr-defined]
    self, correction=correction, fweights=fweights, aweights=aweights)
Tensor.corrcoef = lambda self: ops.corrcoef(self)  # type: ignore[attr-defined]
for _name in ("bitwise_not_", "bitwise_left_shift_", "bitwise_right_shift_"):
    setattr(Tensor, _name, _inplace_composite(_name, getattr(Tensor, _name[:-1])))


# -- a real tensor's complex surface -------------------------------------------------------------
# minigrad has no complex dtypes, so every tensor is real: PyTorch's conjugate and negative views
# are the tensor itself, its real part is itself, and asking for the imaginary part is refused in
# PyTorch's words. Course code calls these when it is written for both (``x.conj().T``, ``x.real``).

def _imag(self: Tensor) -> Tensor:
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _itself(self: Tensor) -> Tensor:
    return self


def _isreal(self: Tensor) -> Tensor:
    """Whether each element is real: all of them, for a tensor of a real dtype."""
    return _creation.ones(tuple(self.shape), dtype=dtypes.bool_, device=self._device)


for _name in ("conj", "resolve_conj", "resolve_neg", "conj_physical", "conj_physical_"):
    setattr(Tensor, _name, _itself)
Tensor.real = property(_itself)  # type: ignore[attr-defined]
Tensor.imag = property(_imag)  # type: ignore[attr-defined]
Tensor.is_conj = lambda self: False  # type: ignore[attr-defined]
Tensor.is_neg = lambda self: False  # type: ignore[attr-defined]
Tensor.isreal = _isreal  # type: ignore[attr-defined]
# Layouts and backends minigrad does not have: a tensor is never one of them.
for _name in ("is_meta", "is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested", "is_xpu", "is_mps",
              "is_ipu", "is_xla", "is_vulkan", "is_maia", "is_mtia"):
    setattr(Tensor, _name, property(lambda self: False))


#: ``mg.conj(x)``, ``mg.real(x)``, ``mg.isreal(x)`` ...: the methods above as PyTorch's functions.
REAL_FORMS = {name: namespace_form(name, f"``input.{name}`` (``torch.{name}``; minigrad's tensors are all real).")
              for name in (
    "conj", "resolve_conj", "resolve_neg", "conj_physical", "conj_physical_", "is_conj", "is_neg", "isreal", "real",
    "imag")}


def typename(obj: Any) -> str:
    """``torch.typename``: a tensor's ``type()`` string, else the object's class as ``module.Name``."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in ("builtins", "__builtin__", None) else f"{module}.{cls.__qualname__}"
