"""The rest of ``torch.Tensor``'s surface that course and library code calls: storage management
(``resize_``, ``share_memory_``), layout questions (``dim_order``, ``is_set_to``, ``storage_type``), small
composites (``narrow_copy``, ``nonzero_static``, ``prelu``, ``angle``, ``as_strided_scatter``, and
``conv_tbc``, which ``nn.functional`` takes from here), the hooks libraries call (``module_load``,
``as_subclass``, ``record_stream``) and the methods PyTorch removed but still answers with a pointer to their
replacement (``symeig``, ``eig``, ``lstsq``, ``solve``, ``reinforce``, ``volatile``).

Each is written with the ops and methods minigrad already has, as PyTorch's Python-level ones are
(``torch/_tensor.py``); this module only attaches them to ``Tensor`` at import, as ``_tensor_methods.py`` does.

Example:
    >>> import minigrad as mg
    >>> x = mg.arange(6.0)
    >>> x.resize_(2, 2).tolist()  # the first four elements of the storage, row-major
    [[0.0, 1.0], [2.0, 3.0]]
    >>> x.t().dim_order()
    (1, 0)
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy as np

from . import dtypes, ops
from .autograd.function import Function
from .devices import (CHANNELS_LAST, array_module, format_strides, iterator_order, memory_format, row_major_strides,
                      swap_rule)
from .kernels.infer_meta import scalar_type_name
from .kernels.strided import as_strided_view
from .ops._checks import check_int
from .storage import TypedStorage, _warn_typed_storage_removal, is_shared_array, mark_shared
from ._tensor_methods import _TYPE_NAMES, _callback_check
from .tensor import Tensor, VersionCounter, bases_sharing, live_views, register_view, storage_array
from .dispatch.amp import autocast_as

__all__ = ["LEGACY_STORAGES", "angle", "as_strided_scatter", "conv_tbc"]


# -- resize_: a new geometry over the storage, the storage grown when it is too small ---------------------------
#
# NOTE [ resize_ keeps the storage ]
#     PyTorch's ``resize_`` gives the tensor row-major strides for the new sizes at its own storage offset, and
#     reads whatever the storage holds there: the same number of elements keeps the values in storage order,
#     fewer keeps the first ones. Only when the storage is too small does it grow, and every tensor sharing
#     it (the base, its views) sees the grown storage; the new elements are uninitialized. A tensor that
#     requires grad is refused: autograd cannot follow a change of its number of elements.

_RESIZE_GRAD = "cannot resize variables that require grad"


def _resize_sizes(op: str, sizes: tuple[Any, ...]) -> tuple[int, ...]:
    """``resize_(2, 3)``, ``resize_((2, 3))``, ``resize_([6])``: the sizes as ints, PyTorch's refusals otherwise."""
    if not sizes:
        raise TypeError(f'{op}() missing 1 required positional arguments: "size"')
    shape = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
    for s in shape:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"{op}(): argument 'size' (position 1) must be tuple of ints, not {type(s).__name__}")
    if any(s < 0 for s in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    return tuple(int(s) for s in shape)


def _format_of(op: str, fmt: Any, ndim: int) -> str | None:
    """The memory format a resize lays the tensor out in (None: row-major, PyTorch's default)."""
    if fmt is None:
        return None
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{op}(): argument 'memory_format' must be minigrad.memory_format, not {type(fmt).__name__}")
    name = str.__str__(fmt)
    if name == "preserve_format":
        raise RuntimeError("Unsupported memory formatPreserve")
    if name in CHANNELS_LAST and ndim != CHANNELS_LAST[name][0]:
        raise RuntimeError(f"required rank {CHANNELS_LAST[name][0]} tensor to use {name} format")
    return name


def _sharers(t: Tensor) -> list[Tensor]:
    """Every live tensor known to read ``t``'s storage: ``t``, its base, the base's views, and the tensors
    sharing its version counter that views were taken of (with their views)."""
    found: dict[int, Tensor] = {id(t): t}
    roots = [t._view.base if t._view is not None else t] + bases_sharing(t._vc)
    for r in roots:
        for u in [r] + live_views(r):
            found.setdefault(id(u), u)
    root = storage_array(t)
    return [u for u in found.values() if storage_array(u) is root]


def _over(xp: Any, storage: Any, shape: tuple[int, ...], stride: tuple[int, ...], offset: int) -> Any:
    """The array reading ``storage`` in this geometry: a slice where it is row-major (its ``base`` leads back
    to the storage on either backend), ``as_strided`` otherwise."""
    if stride == row_major_strides(shape):
        return storage[offset:offset + int(np.prod(shape, dtype=np.int64))].reshape(shape)
    return as_strided_view(xp, storage, shape, stride, offset)


def _grow_storage(t: Tensor, elements: int) -> None:
    """Give ``t``'s storage ``elements`` elements, the old ones first (PyTorch's ``maybe_resize_storage``):
    a new array, and every tensor that read the old one reads the same positions of the new one."""
    if t._device == "cpu" and is_shared_array(storage_array(t)):
        raise RuntimeError("Trying to resize storage that is not resizable")
    old = storage_array(t)
    xp = array_module(t._device)
    new = xp.empty(elements, dtype=old.dtype)
    new[:old.size] = as_strided_view(xp, old, (old.size,), (1,), 0)
    geometry = [(u, tuple(u.shape), tuple(u.stride()), u.storage_offset()) for u in _sharers(t)]
    for u, shape, stride, offset in geometry:
        u._data = _over(xp, new, shape, stride, offset)
        if u._view is None:  # where its array does not lead back to the storage (CuPy's as_strided)
            if u._vc is None:
                u._vc = VersionCounter()
            u._vc.storage = new


def _resize_(self: Tensor, *sizes: Any, memory_format: Any = None) -> Tensor:
    """``x.resize_(*sizes)``: ``x`` takes the shape ``sizes`` over its own storage, in place (returns ``x``).

    The same number of elements keeps the values in storage order (row-major for a contiguous ``x``);
    fewer keeps the first ones; more grows the storage, the old values first and the rest uninitialized
    (NOTE [ resize_ keeps the storage ]). The version moves when the sizes change. A tensor that requires
    grad is refused, as in PyTorch.

    Example:
        >>> import minigrad as mg
        >>> mg.arange(6.0).resize_(3, 2).tolist()
        [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    """
    if self.requires_grad:
        raise RuntimeError(_RESIZE_GRAD)
    shape = _resize_sizes("resize_", sizes)
    fmt = _format_of("resize_", memory_format, len(shape))
    if shape == tuple(self.shape) and fmt is None:
        return self
    strides = format_strides(shape, fmt) if fmt in CHANNELS_LAST else row_major_strides(shape)
    if isinstance(self._data, np.generic):  # a 0-d kernel result is a NumPy scalar: no storage to view
        self._data = np.array(self._data)
    offset = self.storage_offset()
    numel = int(np.prod(shape, dtype=np.int64))
    if numel and offset + numel > storage_array(self).size:
        _grow_storage(self, offset + numel)
    self.as_strided_(shape, strides, offset)  # type: ignore[attr-defined]  (bumps the version)
    return self


def _resize_as_(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """``x.resize_as_(y)``: ``x.resize_(y.shape)`` (``y``'s dtype and strides play no part)."""
    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' (position 1) must be Tensor, not "
                        f"{type(the_template).__name__}")
    if memory_format is not None and str.__str__(memory_format) == "preserve_format":
        memory_format = None  # preserve: as resize_ without a format (PyTorch's resize_as_)
    return _resize_(self, tuple(the_template.shape), memory_format=memory_format)


class Resize(Function):
    """PyTorch's deprecated out-of-place ``x.resize(*sizes)``: a reshape that keeps the number of elements
    (``torch/autograd/_functions/tensor.py``), its node ``ResizeBackward``. The result is a copy, where
    PyTorch's reads a contiguous input's storage."""

    @staticmethod
    def forward(ctx: Any, tensor: Tensor, sizes: tuple[int, ...]) -> Tensor:
        numel = int(np.prod(sizes, dtype=np.int64))
        if tensor.numel() != numel:
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but the given tensor "
                f"has a size of {'x'.join(map(str, tensor.shape))} ({tensor.numel()} elements). autograd's resize can "
                "only change the shape of a given tensor, while preserving the number of elements. ")
        ctx.input_sizes = tuple(tensor.shape)
        return tensor.contiguous().view(*sizes).clone()  # type: ignore[attr-defined]

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor, None]:
        return grad_output.contiguous().view(ctx.input_sizes), None  # type: ignore[attr-defined]


def _resize(self: Tensor, *sizes: Any) -> Tensor:
    """``x.resize(*sizes)``: deprecated in PyTorch (it warns); a copy of ``x`` with the new shape."""
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    return Resize.apply(self, sizes)


def _resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """``x.resize_as(y)``: deprecated in PyTorch (it warns); ``x.resize(y.shape)``."""
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    return Resize.apply(self, tuple(tensor.shape))


# -- shared memory ---------------------------------------------------------------------------------------------
# (minigrad runs in one process: moving a storage to shared memory only marks it, storage.mark_shared.)

def _is_shared(self: Tensor) -> bool:
    """``x.is_shared()``: whether ``x``'s storage was moved to shared memory (``share_memory_``); a GPU tensor's
    always counts as shared, as a CUDA tensor's does in PyTorch."""
    return self._device != "cpu" or is_shared_array(storage_array(self))


def _share_memory_(self: Tensor) -> Tensor:
    """``x.share_memory_()``: ``x``'s storage marked shared (returns ``x``; no copy, the version stays). A
    storage in shared memory cannot grow (``resize_``)."""
    if self._device == "cpu":
        if isinstance(self._data, np.generic):
            self._data = np.array(self._data)
        mark_shared(storage_array(self))
    return self


# -- layout questions ------------------------------------------------------------------------------------------

_AMBIGUOUS = "The tensor does not have unique dim order, or cannot map to exact one of the given memory formats."


def _physical_order(t: Tensor, check: bool) -> tuple[list[int], bool]:
    """PyTorch's ``compute_elementwise_output_logical_to_physical_perm`` for one tensor: the dims from the
    outermost in memory to the innermost, and (``check``) whether some neighbours were left unordered."""
    ndim = t.ndim
    if ndim <= 1:
        return list(range(ndim)), False
    contiguous = t.is_contiguous()  # type: ignore[attr-defined]
    last = ndim == 4 and t.is_contiguous(memory_format=memory_format("channels_last"))  # type: ignore[attr-defined]
    if contiguous and not last:
        return list(range(ndim)), False
    if last and not contiguous:
        return [0, *range(2, ndim), 1], False
    rule = swap_rule(tuple(t.shape), [tuple(t.stride())])  # type: ignore[attr-defined]
    perm = iterator_order(ndim, rule)
    ambiguous = check and any(rule(perm[i], perm[i + 1]) != -1 for i in range(ndim - 1))
    return list(reversed(perm)), ambiguous


def _dim_order(self: Tensor, *, ambiguity_check: bool | list[Any] = False) -> tuple[int, ...]:
    """``x.dim_order()``: the dims from the outermost in memory to the innermost (``(1, 0)`` for a
    transposed matrix). ``ambiguity_check=True`` refuses a tensor whose order is not unique (a size-1 dim,
    equal strides); a list of memory formats accepts one that is exactly one of them.

    Example:
        >>> import minigrad as mg
        >>> mg.empty(2, 3, 4, 5).permute(0, 2, 3, 1).dim_order()
        (0, 3, 1, 2)
    """
    if not isinstance(ambiguity_check, bool) and not (
            isinstance(ambiguity_check, list) and all(isinstance(m, memory_format) for m in ambiguity_check)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    strides = tuple(self.stride())  # type: ignore[attr-defined]
    several = any(a == b for a, b in zip(strides, strides[1:])) or any(n == 1 for n in self.shape)
    fitting = sum(1 for m in formats if self.is_contiguous(memory_format=m))  # type: ignore[attr-defined]
    if check and several and fitting != 1:
        raise RuntimeError(_AMBIGUOUS)
    perm, ambiguous = _physical_order(self, check)
    if ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(perm)


def _is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """``x.is_set_to(y)``: whether ``x`` and ``y`` read the same elements of the same storage in the same
    geometry (``x.detach()`` and ``x[:]`` are; ``x.view(6)`` is not)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not {type(tensor).__name__}")
    return (storage_array(self) is storage_array(tensor) and self.storage_offset() == tensor.storage_offset()
            and tuple(self.shape) == tuple(tensor.shape) and tuple(self.stride()) == tuple(tensor.stride()))


def _legacy_storage(dtype: Any) -> type:
    name = _TYPE_NAMES[dtype].replace("Tensor", "Storage")
    return type(name, (TypedStorage,), {"__module__": "minigrad", "__doc__": f"PyTorch's legacy ``{name}``: a "
                                        f"TypedStorage of {dtype} (what ``storage_type()`` returns).",
                                        "dtype": dtype})


#: dtype -> PyTorch's legacy typed storage class (``FloatStorage`` ...), what ``x.storage_type()`` returns
LEGACY_STORAGES = {dt: _legacy_storage(dt) for dt in _TYPE_NAMES}


def _storage_type(self: Tensor) -> type:
    """``x.storage_type()``: the legacy storage class of ``x``'s dtype (``minigrad.FloatStorage``), with
    PyTorch's warning that typed storages are deprecated."""
    _warn_typed_storage_removal()
    return LEGACY_STORAGES[self._dtype]


def _const_data_ptr(self: Tensor) -> int:
    """``x.const_data_ptr()``: ``x.data_ptr()`` (PyTorch's read-only twin)."""
    return self.data_ptr()  # type: ignore[attr-defined]


def _to_dense(self: Tensor, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
    """``x.to_dense()``: ``x`` itself, for a tensor that is dense already (all of minigrad's), or ``x`` in
    ``dtype``."""
    return self if dtype is None else self.to(dtype)  # type: ignore[attr-defined]


# -- composites --------------------------------------------------------------------------------------------------

def _prelu(self: Tensor, weight: Tensor) -> Tensor:
    """``x.prelu(weight)``: ``minigrad.prelu(x, weight)`` (``PreluKernelBackward0``)."""
    return ops.prelu(self, weight)


def _narrow_copy(self: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """``x.narrow_copy(dim, start, length)``: ``x.narrow(...)`` copied to a tensor of its own (composite:
    ``narrow``'s view, then ``clone``), with ``narrow_copy``'s own checks in PyTorch's words."""
    if isinstance(start, Tensor):
        start = start.item()
    for pos, (name, v) in enumerate((("dim", dim), ("start", start), ("length", length)), start=1):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"narrow_copy(): argument '{name}' (position {pos}) must be int, not {type(v).__name__}")
    if self.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim >= self.ndim:
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an enhancement request "
                           "to PyTorch.)")
    if dim < -self.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-self.ndim}, {self.ndim - 1}], "
                         f"but got {dim})")
    size = self.shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start = start + size if start < 0 else start
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return ops.narrow(self, dim, start, length).clone(memory_format=memory_format("contiguous_format"))


def _nonzero_static(self: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``x.nonzero_static(size=n)``: ``x.nonzero()`` cut or padded with ``fill_value`` to exactly ``n`` rows
    (a shape known before the values are: what compiled code needs).

    Example:
        >>> import minigrad as mg
        >>> mg.tensor([0.0, 3.0, 0.0, 4.0]).nonzero_static(size=3).tolist()
        [[1], [3], [-1]]
    """
    size = check_int("nonzero_static", "size", 1, size)
    fill_value = check_int("nonzero_static", "fill_value", 2, fill_value)
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = ops.nonzero(self)
    xp = array_module(self._device)
    rows = found._data[:size]
    if rows.shape[0] < size:
        pad = xp.full((size - rows.shape[0], self.ndim), fill_value, dtype=np.int64)
        rows = xp.concatenate([rows, pad])
    return Tensor._make(xp.ascontiguousarray(rows), dtypes.int64, self._device)


def _map2_(self: Tensor, x: Tensor, y: Tensor, callable: Callable[[Any, Any, Any], Any]) -> Tensor:
    """``t.map2_(x, y, fn)``: ``fn(t_i, x_i, y_i)`` written into ``t``, ``x`` and ``y`` broadcast to ``t``'s
    shape (CPU only, and slow, as PyTorch's). PyTorch's kernel writes the values through the data pointer,
    outside autograd's view of it, so the version counter does not move (a tensor that requires grad is
    refused first)."""
    for pos, (name, v) in enumerate((("x", x), ("y", y)), start=1):
        if not isinstance(v, Tensor):
            raise TypeError(f"map2_(): argument '{name}' (position {pos}) must be Tensor, not {type(v).__name__}")
    _callback_check(self, "map2_")
    a, b = (v.expand_as(self).detach().numpy().reshape(-1).tolist() for v in (x, y))
    flat = self._data.reshape(-1).tolist()
    values = np.array([callable(s, p, q) for s, p, q in zip(flat, a, b)], dtype=self._dtype.np)
    if isinstance(self._data, np.generic):
        self._data = np.array(self._data)
    self._data[...] = values.reshape(self._data.shape)  # through the pointer, as PyTorch's: the version stays
    return self


def _as_subclass(self: Tensor, cls: type) -> Tensor:
    """``x.as_subclass(cls)``: an alias of ``x`` (a view of it, ``AliasBackward0`` when it requires grad)
    whose class is ``cls``, a subclass of Tensor."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                        "Make sure your class inherits from Tensor.")
    alias = self[...]  # type: ignore[index]
    if cls is Tensor:
        return alias
    out = object.__new__(cls)
    for slot in Tensor.__slots__:
        if slot != "__weakref__" and hasattr(alias, slot):
            setattr(out, slot, getattr(alias, slot))
    if out._view is not None:
        register_view(out._view.base, out)  # in place of ``alias``: its base's changes reach it
    return out


def _record_stream(self: Tensor, stream: Any) -> None:
    """``x.record_stream(stream)``: on the GPU a no-op (minigrad runs every kernel on one stream, so no
    other stream can still be reading ``x`` when its memory is reused); refused on the CPU, as PyTorch's."""
    if stream is None or not type(stream).__name__.endswith("Stream"):
        raise RuntimeError("unknown parameter type")
    if self._device == "cpu":
        raise NotImplementedError("Could not run 'aten::record_stream' with arguments from the 'CPU' backend.")


def _module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    """How ``load_state_dict`` turns the saved ``other`` into the value for ``self`` (PyTorch's default):
    ``other.detach()`` with ``assign=True``, else ``self.copy_(other).detach()`` (``other`` cast to
    ``self``'s dtype, written into it)."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()  # type: ignore[attr-defined]


# -- grad_dtype ----------------------------------------------------------------------------------------------

def _grad_dtype(self: Tensor) -> Any:
    """The dtype a leaf's ``.grad`` has: its own (minigrad's engine never casts gradients)."""
    if not self.is_leaf:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    return self._dtype


def _set_grad_dtype(self: Tensor, value: Any) -> None:
    if not self.is_leaf:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    if value is not self._dtype:
        raise NotImplementedError(f"grad_dtype: minigrad's gradients always have the tensor's dtype ({self._dtype}); "
                                  f"setting {value} is not supported")


# -- removed methods: PyTorch keeps the names, and says what replaced them --------------------------------------

_REMOVED = "This function was deprecated since version 1.9 and is now removed. "
_SOLVE = (_REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its "
          "arguments reversed and does not return the LU factorization.\n\nTo get the LU factorization see "
          "`torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution "
          "should be replaced with:\nX = torch.linalg.solve(A, B)")
_LSTSQ = (_REMOVED + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has "
          "reversed arguments and does not return the QR decomposition in the returned tuple (although it returns "
          "other information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`."
          "\n\nThe returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns "
          "of the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' "
          "of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution"
          "[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution")
_EIG = (_REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real "
        "tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
        "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
        "L_complex, V_complex = torch.linalg.eig(A)")
_SYMEIG = (_REMOVED + "The default behavior has changed from using the upper triangular portion of the matrix by "
           "default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced "
           "with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
           "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")
_REINFORCE = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


def _solve(self: Tensor, other: Tensor) -> Any:
    raise RuntimeError(_SOLVE)


def _lstsq(self: Tensor, other: Tensor) -> Any:
    raise RuntimeError(_LSTSQ)


def _eig(self: Tensor, eigenvectors: bool = False) -> Any:
    raise RuntimeError(_EIG)


def _symeig(self: Tensor, eigenvectors: bool = False) -> Any:
    raise RuntimeError(_SYMEIG)


def _reinforce(self: Tensor, reward: Any) -> Any:
    raise RuntimeError(_REINFORCE)


def _volatile(self: Tensor) -> bool:
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _set_volatile(self: Tensor, value: Any) -> None:
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.", UserWarning,
                  stacklevel=2)



# -- angle, as_strided_scatter, conv_tbc: functions PyTorch also has as methods or in nn.functional (composite) --
#
# They are here rather than in ``torch_functions.py`` because ``nn.functional`` (``F.conv_tbc``) and ``Tensor``
# both need them, and ``torch_functions.py`` sits above ``nn``. Each is a composite of minigrad's ops, so its
# graph shows those ops where PyTorch's shows one node (``AngleBackward0``, ``AsStridedScatterBackward0``,
# ``ConvTbcBackward0``); the values and gradients are PyTorch's.

def angle(input: Tensor) -> Tensor:
    """``torch.angle`` of a real tensor: ``pi`` where ``input < 0``, else 0, NaN kept; an integer or bool
    input gives the default float dtype. Its gradient is zero everywhere (PyTorch's ``angle_backward`` for
    real inputs). Composite: ``where(isnan(x), x * 0, (x < 0) * pi)`` - ``x * 0`` carries the NaNs
    and a zero gradient (``where`` picks it only at the NaNs, so ``-inf`` still gives ``pi``).

    Example:
        >>> import minigrad as mg
        >>> mg.angle(mg.tensor([-2.0, 0.0, 3.0])).tolist()
        [3.1415927410125732, 0.0, 0.0]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"angle(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.is_complex():
        return ops.atan2(ops.imag(input), ops.real(input))
    x = input if input.is_floating_point() else input.to(dtypes.get_default_dtype())
    half_plane = ops.mul(ops.lt(x, 0).to(x.dtype), math.pi)
    return ops.where(ops.isnan(x), ops.mul(x, 0.0), half_plane)


def as_strided_scatter(input: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """``torch.as_strided_scatter``: a copy of ``input`` (its layout kept, as ``clone``) whose elements under
    ``copy.as_strided(size, stride, storage_offset)`` are ``src``'s. Composite: ``clone``, ``as_strided``
    of the copy, ``copy_`` of ``src`` into that view, so ``input`` gets the gradient outside the slice and
    ``src`` the gradient read through it.

    Example:
        >>> import minigrad as mg
        >>> mg.as_strided_scatter(mg.zeros(4), mg.ones(2), (2,), (2,)).tolist()
        [1.0, 0.0, 1.0, 0.0]
    """
    for pos, (name, t) in enumerate((("input", input), ("src", src))):
        if not isinstance(t, Tensor):
            raise TypeError(f"as_strided_scatter(): argument '{name}' (position {pos + 1}) must be Tensor, "
                            f"not {type(t).__name__}")
    out = ops.clone(input)
    view = ops.as_strided(out, size, stride, storage_offset)
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(view.shape)}")
    view.copy_(src)
    return out


def _check_conv_tbc(input: Tensor, weight: Tensor, bias: Any, pad: Any) -> int:
    """PyTorch's refusals of ``conv_tbc``, in its order; the number of output time steps."""
    for pos, (name, t) in enumerate((("input", input), ("weight", weight), ("bias", bias))):
        if not isinstance(t, Tensor):
            raise TypeError(f"conv_tbc(): argument '{name}' (position {pos + 1}) must be Tensor, not {type(t).__name__}")
    pad = check_int("conv_tbc", "pad", 4, pad)
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if bias.shape[0] != weight.shape[2]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if input.dtype != weight.dtype:
        from_, to = (scalar_type_name(d) for d in (input.dtype, weight.dtype))
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {from_} and {to}")
    steps = input.shape[0] + 2 * pad - weight.shape[0] + 1
    if steps < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {steps}: "
                           f"[{steps}, {input.shape[1]}, {weight.shape[2]}]")
    return steps


@autocast_as("conv_tbc", composite=False)
def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """``torch.conv_tbc`` (and ``F.conv_tbc``): a 1-D convolution over time-major input ``(T, B, C_in)`` with a
    ``(K, C_in, C_out)`` filter and a ``(C_out,)`` bias, ``pad`` zero steps on each side (a negative ``pad``
    crops). The output is ``(T + 2 pad - K + 1, B, C_out)``. Composite: ``conv1d`` between ``permute``s
    (PyTorch's is one ``ConvTbcBackward0`` node).

    Example:
        >>> import minigrad as mg
        >>> mg.conv_tbc(mg.ones(4, 1, 2), mg.ones(3, 2, 1), mg.zeros(1), 1).flatten().tolist()
        [4.0, 6.0, 6.0, 4.0]
    """
    steps = _check_conv_tbc(input, weight, bias, pad)
    x = ops.permute(input, (1, 2, 0))  # (B, C_in, T): conv1d's layout
    if pad < 0:  # the padding conv1d refuses: crop instead
        x, pad = ops.narrow(x, 2, -pad, x.shape[2] + 2 * pad), 0
    extra = 1 if steps == 0 else 0  # conv1d refuses an empty output: compute one step and drop it
    y = ops.conv1d(x, ops.permute(weight, (2, 1, 0)), bias, 1, pad + extra)
    if extra:
        y = ops.narrow(y, 2, 0, 0)
    return ops.permute(y, (2, 0, 1))


def _angle(self: Tensor) -> Tensor:
    return angle(self)


def _as_strided_scatter(self: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    return as_strided_scatter(self, src, size, stride, storage_offset)


for _name, _fn in (
        ("resize_", _resize_), ("resize_as_", _resize_as_), ("resize", _resize), ("resize_as", _resize_as),
        ("share_memory_", _share_memory_), ("is_shared", _is_shared), ("dim_order", _dim_order),
        ("is_set_to", _is_set_to), ("storage_type", _storage_type), ("const_data_ptr", _const_data_ptr),
        ("to_dense", _to_dense), ("prelu", _prelu), ("narrow_copy", _narrow_copy),
        ("nonzero_static", _nonzero_static), ("map2_", _map2_), ("as_subclass", _as_subclass),
        ("record_stream", _record_stream), ("module_load", _module_load), ("solve", _solve), ("lstsq", _lstsq),
        ("eig", _eig), ("symeig", _symeig), ("reinforce", _reinforce), ("angle", _angle),
        ("as_strided_scatter", _as_strided_scatter)):
    _fn.__name__, _fn.__qualname__ = _name, f"Tensor.{_name}"  # a missing argument is reported as PyTorch's
    setattr(Tensor, _name, _fn)
Tensor.grad_dtype = property(_grad_dtype, _set_grad_dtype)  # type: ignore[attr-defined]
Tensor.volatile = property(_volatile, _set_volatile)  # type: ignore[attr-defined]
Tensor.is_distributed = lambda self: False  # type: ignore[attr-defined]
# The storage's view of the same mark (storage.py's answer is for a storage never shared).
