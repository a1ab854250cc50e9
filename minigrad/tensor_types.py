"""PyTorch's legacy typed tensor constructors: ``FloatTensor``, ``LongTensor`` ... (older course code).

``mg.FloatTensor([1, 2])`` is ``mg.tensor([1, 2], dtype=mg.float32)``; ``mg.FloatTensor(2, 3)``
an uninitialised 2x3 tensor (minigrad fills it with zeros). ``isinstance(x, mg.FloatTensor)``
asks for a CPU float32 tensor, and ``x.type(mg.LongTensor)`` casts, as in PyTorch.

Example:
    >>> import minigrad as mg
    >>> mg.LongTensor([1.7, 2]).tolist(), mg.FloatTensor(2, 3).shape
    ([1, 2], minigrad.Size([2, 3]))
    >>> isinstance(mg.zeros(2), mg.FloatTensor)
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from .creation import empty, tensor
from .tensor import Tensor

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
           "ByteTensor", "BoolTensor"]


class _TensorType(type):
    """The metaclass: calling a legacy type builds a tensor; ``isinstance`` compares dtype and device."""

    dtype: _dt.DType

    def __call__(cls, *args: Any) -> Tensor:
        if len(args) == 1 and isinstance(args[0], Tensor):
            if args[0].dtype is not cls.dtype:
                raise TypeError(f"expected {cls.dtype} (got {args[0].dtype})")
            return args[0]
        if args and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
            return empty(*args, dtype=cls.dtype)  # sizes, as torch.FloatTensor(2, 3)
        if len(args) > 1:
            raise TypeError(f"{cls.__name__}(): expected sizes (ints) or one sequence of data")
        return tensor(args[0] if args else [], dtype=cls.dtype)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device == "cpu"

    def __repr__(cls) -> str:
        return f"<class 'minigrad.{cls.__name__}'>"


def _tensor_type(name: str, dtype: _dt.DType) -> Any:
    return _TensorType(name, (), {"dtype": dtype, "__doc__": f"Legacy constructor of {dtype} tensors "
                                  f"(``minigrad.tensor(data, dtype=minigrad.{dtype.name})``)."})


FloatTensor = _tensor_type("FloatTensor", _dt.float32)
DoubleTensor = _tensor_type("DoubleTensor", _dt.float64)
HalfTensor = _tensor_type("HalfTensor", _dt.float16)
LongTensor = _tensor_type("LongTensor", _dt.int64)
IntTensor = _tensor_type("IntTensor", _dt.int32)
ShortTensor = _tensor_type("ShortTensor", _dt.int16)
CharTensor = _tensor_type("CharTensor", _dt.int8)
BoolTensor = _tensor_type("BoolTensor", _dt.bool_)
ByteTensor = _tensor_type("ByteTensor", _dt.uint8)
