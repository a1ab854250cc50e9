"""A tensor's storage as PyTorch shows it: ``x.untyped_storage()`` (the bytes) and ``x.storage()`` (the same
memory read as the tensor's dtype, PyTorch's deprecated ``TypedStorage``).

A tensor is a view of a storage: a block of memory, with a shape, strides and an offset saying which of its
elements the tensor reads. Views share their base's storage, so a course checks sharing by comparing
``a.untyped_storage().data_ptr()`` with ``b``'s, and ``x.T.untyped_storage().nbytes()`` is the whole
matrix's bytes. minigrad's storage is the array that owns a tensor's memory (``storage_array``: the base's
NumPy or CuPy array); these objects read it and never copy it - but for printing or ``tolist()`` of a GPU
storage, which copies the bytes to the host as ``Tensor.tolist()`` does.

Example:
    >>> import minigrad as mg
    >>> x = mg.arange(6.0).reshape(2, 3)
    >>> x[1].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    True
    >>> x.T.untyped_storage().nbytes()
    24
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any, Iterator

import numpy as np

from .devices import as_device, to_numpy
from .dtypes import DType
from .tensor import Tensor, storage_array

__all__ = ["UntypedStorage", "TypedStorage", "is_storage"]


def _address(a: Any) -> int:
    return a.data.ptr if hasattr(a.data, "ptr") else a.__array_interface__["data"][0]


class UntypedStorage:
    """The bytes behind a tensor (``torch.UntypedStorage``): ``nbytes()``, ``data_ptr()``, ``device``, the bytes
    as ints (``storage[i]``, ``tolist()``, printing as PyTorch prints one: a byte a line)."""

    def __init__(self, array: Any, device: str) -> None:
        self._array, self._device = array, device

    def nbytes(self) -> int:
        return int(self._array.nbytes)

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        """The address of the storage's first byte: equal for a tensor and every view of it."""
        return _address(self._array)

    @property
    def device(self) -> Any:
        return as_device(self._device)

    @property
    def is_cuda(self) -> bool:
        return self._device == "gpu"

    def is_shared(self) -> bool:
        """Whether the storage was marked shared (``share_memory_``); a GPU storage always counts as shared."""
        return self._device != "cpu" or is_shared_array(self._array)

    def _bytes(self) -> np.ndarray:
        return np.ascontiguousarray(to_numpy(self._array)).reshape(-1).view(np.uint8)

    def tolist(self) -> list[int]:
        return self._bytes().tolist()

    def __getitem__(self, i: int) -> int:
        return int(self._bytes()[i])

    def __iter__(self) -> Iterator[int]:
        return iter(self.tolist())

    def __repr__(self) -> str:
        info = f"[minigrad.storage.UntypedStorage(device={self.device}) of size {len(self)}]"
        return " " + "\n ".join(str(b) for b in self.tolist()) + "\n" + info


_warned = False


def _warn_typed_storage_removal() -> None:
    """PyTorch's one-time warning that ``TypedStorage`` is deprecated (its words)."""
    global _warned
    if not _warned:
        _warned = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=3)


class TypedStorage:
    """The same memory read as elements of ``dtype`` (``tensor.storage()``, PyTorch's deprecated form)."""

    def __init__(self, untyped: UntypedStorage, dtype: DType) -> None:
        self._untyped, self.dtype = untyped, dtype

    def _untyped_storage(self) -> UntypedStorage:
        return self._untyped

    def untyped(self) -> UntypedStorage:
        return self._untyped

    def size(self) -> int:
        return self._untyped.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self._untyped.nbytes()

    def data_ptr(self) -> int:
        return self._untyped.data_ptr()

    @property
    def device(self) -> Any:
        return self._untyped.device

    def _values(self) -> np.ndarray:
        return self._untyped._bytes().view(self.dtype.np)

    def tolist(self) -> list[Any]:
        return self._values().tolist()

    def __getitem__(self, i: int) -> Any:
        return self._values()[i].item()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.tolist())

    def __repr__(self) -> str:
        _warn_typed_storage_removal()
        info = f"[minigrad.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {len(self)}]"
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + info


# minigrad runs in one process, so moving a storage to shared memory (``x.share_memory_()``) only marks it:
# ``is_shared()`` is then True for every tensor and storage reading it, as PyTorch's.

#: id of a storage array marked shared -> a weak reference to it (the entry leaves when the array dies)
_SHARED: dict[int, Any] = {}


def mark_shared(array: Any) -> None:
    """Mark a storage array (a base's) as moved to shared memory."""
    _SHARED[id(array)] = weakref.ref(array, lambda _r, key=id(array): _SHARED.pop(key, None))


def is_shared_array(array: Any) -> bool:
    ref = _SHARED.get(id(array))
    return ref is not None and ref() is array


def is_storage(obj: Any) -> bool:
    """``torch.is_storage``: whether ``obj`` is a storage (untyped or typed)."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


def untyped_storage(self: Tensor) -> UntypedStorage:
    """``x.untyped_storage()``: the bytes ``x`` reads from, shared with its base and every view."""
    return UntypedStorage(storage_array(self), self._device)


def storage(self: Tensor) -> TypedStorage:
    """``x.storage()``: the storage read as ``x``'s dtype (PyTorch warns that ``TypedStorage`` is deprecated)."""
    _warn_typed_storage_removal()
    return TypedStorage(untyped_storage(self), self._dtype)


Tensor.untyped_storage = untyped_storage  # type: ignore[attr-defined]
Tensor.storage = storage  # type: ignore[attr-defined]
