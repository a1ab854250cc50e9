"""``mg.nn.parameter``: ``Parameter``, and the uninitialized parameters and buffers of the lazy layers
(``UninitializedParameter``, ``UninitializedBuffer``, ``is_lazy``), as PyTorch's ``torch.nn.parameter``.

NOTE [ An uninitialized parameter has a dtype and a device but no shape ]
    A lazy layer (``nn.LazyLinear(10)``, the layers "Dive into Deep Learning" builds its models from) does not
    know its input size until its first call, so it registers ``UninitializedParameter`` objects: real
    Parameters in every registry (``parameters()``, ``state_dict()``, an optimizer may hold them), with a
    dtype, a device and ``requires_grad``, but no values. Anything that needs the values or the shape
    refuses in PyTorch's words - ``.shape`` with a ``RuntimeError``, an op or ``numel()`` with a
    ``ValueError`` - so a program learns to run a dummy batch first. ``materialize(shape)`` gives the object
    its array and turns it into a plain ``Parameter`` (its class changes, the object stays: an optimizer
    made before holds it still); ``module.to()`` moves or casts an uninitialized one by changing only its
    dtype and device.

Example:
    >>> import minigrad as mg
    >>> w = mg.nn.parameter.UninitializedParameter()
    >>> w, mg.nn.parameter.is_lazy(w)
    (<UninitializedParameter>, True)
    >>> w.materialize((2, 3))
    >>> type(w).__name__, tuple(w.shape), w.requires_grad
    ('Parameter', (2, 3), True)
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..autograd_meta import AutogradMeta
from ..devices import canonical_device, default_device, move_array
from ..tensor import Tensor
from .module import Buffer, Parameter

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]

_DATA = Tensor.__dict__["_data"]  # the slot an uninitialized tensor hides behind its refusing property


def _uninitialized(cls: type, requires_grad: bool, device: Any, dtype: Any) -> Any:
    """An object of ``cls`` with ``dtype`` and ``device`` and an empty array behind the refusing ``_data``."""
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float()
    dev = canonical_device(device) if device is not None else default_device()
    array = np.empty((0,), dtype=dt.np)
    t = Tensor._make(array if dev == "cpu" else move_array(array, "cpu", dev), dt, dev)
    t.__class__ = cls
    if requires_grad:
        t._meta = AutogradMeta(t._id)
    return t


class UninitializedTensorMixin:
    """What the uninitialized parameter and buffer share (NOTE [ An uninitialized parameter has a dtype and a
    device but no shape ])."""

    __slots__ = ()
    cls_to_become: type = Tensor

    @property
    def _data(self) -> Any:
        caller = sys._getframe(1).f_code.co_name
        raise ValueError(f"Attempted to use an uninitialized parameter in {caller}. This error happens when you "
                         "are using a `LazyModule` or explicitly manipulating "
                         "`torch.nn.parameter.UninitializedParameter` objects. When using LazyModules Call "
                         "`forward` with a dummy batch to initialize the parameters before calling torch functions")

    @_data.setter
    def _data(self, value: Any) -> None:
        _DATA.__set__(self, value)

    @property
    def shape(self) -> Any:
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Give the tensor an (uninitialized) array of ``shape`` - on ``device`` and of ``dtype`` when given - and
        make it a plain ``Parameter`` (``Tensor`` for a buffer), the same object."""
        dt = _dt.as_dtype(dtype) if dtype is not None else self._dtype
        dev = canonical_device(device) if device is not None else self._device
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        array = np.empty(shape, dtype=dt.np)
        self.__class__ = self.cls_to_become
        self._data = array if dev == "cpu" else move_array(array, "cpu", dev)
        self._dtype, self._device = dt, dev
        self._announce()  # a recording meets the tensor now, with its shape (it was not announced before)

    def _announce(self, rec: Any = None) -> None:
        """Not announced while it has no shape: ``materialize`` announces it (NOTE [ An uninitialized parameter
        has a dtype and a device but no shape ])."""

    def _retarget(self, dtype: Any = None, device: Any = None) -> None:
        """``module.to()``'s change: only the dtype and the device it will be materialized with."""
        self._dtype = dtype or self._dtype
        if device is not None and device != self._device:
            _DATA.__set__(self, move_array(_DATA.__get__(self), self._device, device))
            self._device = device

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        if id(self) not in memo:
            memo[id(self)] = _uninitialized(type(self), self.requires_grad, self._device, self._dtype)
        return memo[id(self)]


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape a lazy layer decides at its first call (NOTE [ An uninitialized parameter has a
    dtype and a device but no shape ])."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> "UninitializedParameter":
        return _uninitialized(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape a lazy layer decides at its first call (a lazy batch norm's running statistics)."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None) -> "UninitializedBuffer":
        return _uninitialized(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None) -> None:
        pass


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an uninitialized parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)
