"""Data types and type promotion.

minigrad has ten dtypes: ``float16``, ``bfloat16``, ``float32``, ``float64``, ``uint8``,
``int8``, ``int16``, ``int32``, ``int64`` and ``bool``.
``str(mg.float32) == "minigrad.float32"`` (``mg.float32.name == "float32"``). Integer arithmetic wraps around as in
PyTorch (and NumPy): ``tensor([250], dtype=uint8) + 10`` is ``[4]``.

Promotion (used when parsing a KernelKey from several inputs, as Paddle's ``ParseKernelKeyByInputArgs``)
follows one order, ``bool < uint8 < int8 < int16 < int32 < int64 < float16 <
bfloat16 < float32 < float64``: the result is the largest input dtype, except that
``uint8`` with ``int8`` gives ``int16`` and ``float16`` with ``bfloat16`` gives
``float32`` (neither holds the other's values). ``bfloat16`` is NumPy's through the
``ml_dtypes`` package (round to nearest even, as PyTorch); NumPy calls its kind
``"V"``, so ``is_floating_np`` is the test for a floating array.
That gives PyTorch's answers for every pair (``int64 + float16 -> float16``).
Python scalars are wrapped by the API layer in the other operand's dtype when
the kinds agree (``2 * x`` keeps ``x``'s dtype), so they never widen a tensor.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

__all__ = [
    "DType",
    "cpp_type_name",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int32",
    "int64",
    "bool_",
    "uint8",
    "int8",
    "int16",
    "ALL_DTYPES",
    "FLOAT_DTYPES",
    "INT_DTYPES",
    "NUMERIC_DTYPES",
    "promote",
    "is_floating_np",
    "as_dtype",
    "from_numpy",
    "default_float",
    "get_default_dtype",
    "set_default_dtype",
    "finfo",
    "iinfo",
    "promote_types",
    "can_cast",
    "result_type",
]


class DType:
    """A minigrad dtype: a name, its NumPy dtype and its rank in the promotion order."""

    __slots__ = ("name", "np", "rank", "is_floating", "is_integer", "itemsize")

    def __init__(self, name: str, np_dtype: Any, rank: int) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.rank = rank
        self.is_floating = is_floating_np(self.np)
        self.is_integer = self.np.kind in "iu"
        self.itemsize = self.np.itemsize

    @property
    def is_floating_point(self) -> bool:
        """PyTorch's name of ``is_floating`` (``x.dtype.is_floating_point``)."""
        return self.is_floating

    @property
    def is_complex(self) -> bool:
        """False: minigrad has no complex dtypes."""
        return False

    @property
    def is_signed(self) -> bool:
        """False for bool and uint8 only."""
        return self.np.kind not in "bu"

    def __repr__(self) -> str:
        return f"minigrad.{self.name}"

    __str__ = __repr__  # print(x.dtype) shows minigrad.float32, as PyTorch's shows torch.float32; .name is bare

    def __reduce__(self) -> str:
        return self.name  # pickles as the module-level singleton


_BFLOAT16_NP = np.dtype(ml_dtypes.bfloat16)


def is_floating_np(np_dtype: Any) -> bool:
    """Whether a NumPy dtype is a floating-point one (``bfloat16`` included, whose NumPy kind is ``"V"``)."""
    return np_dtype.kind == "f" or np_dtype == _BFLOAT16_NP


bool_ = DType("bool", np.bool_, 0)
uint8 = DType("uint8", np.uint8, 0.5)
int8 = DType("int8", np.int8, 0.6)
int16 = DType("int16", np.int16, 0.8)
int32 = DType("int32", np.int32, 1)
int64 = DType("int64", np.int64, 2)
float16 = DType("float16", np.float16, 3)
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, 3.5)
float32 = DType("float32", np.float32, 4)
float64 = DType("float64", np.float64, 5)

ALL_DTYPES: tuple[DType, ...] = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)
FLOAT_DTYPES: tuple[DType, ...] = (float16, bfloat16, float32, float64)
INT_DTYPES: tuple[DType, ...] = (uint8, int8, int16, int32, int64)
NUMERIC_DTYPES: tuple[DType, ...] = INT_DTYPES + FLOAT_DTYPES

_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NP = {d.np: d for d in ALL_DTYPES}


_DEFAULT_FLOAT = [float32]  # one cell, changed by set_default_dtype


def default_float() -> DType:
    """The dtype of float data with no explicit dtype (``float32`` unless ``set_default_dtype`` changed it)."""
    return _DEFAULT_FLOAT[0]


def get_default_dtype() -> DType:
    """The default floating dtype (``float32`` to begin with), as ``torch.get_default_dtype()``."""
    return _DEFAULT_FLOAT[0]


def set_default_dtype(d: Any) -> None:
    """Make ``d`` (a float dtype) the dtype of float data and of the float creation functions' results.

    Example:
        >>> import minigrad as mg
        >>> mg.set_default_dtype(mg.float64); mg.tensor([1.5]).dtype
        minigrad.float64
        >>> mg.set_default_dtype(mg.float32)
    """
    dt = as_dtype(d, "set_default_dtype(): argument 'd'")
    if not dt.is_floating:
        raise TypeError(f"only floating-point types are supported as the default type, but got {dt}")
    _DEFAULT_FLOAT[0] = dt


def promote(a: DType, b: DType) -> DType:
    """The promoted dtype of two inputs (the larger in the order; ``uint8`` with ``int8`` gives ``int16``)."""
    if a is not b and {a, b} == {uint8, int8}:
        return int16
    if a is not b and {a, b} == {float16, bfloat16}:
        return float32
    return a if a.rank >= b.rank else b


#: NumPy dtype -> minigrad dtype for the dtypes minigrad has (``from_numpy``'s first lookup).
BY_NUMPY = _BY_NP


def from_numpy(np_dtype: Any) -> DType:
    """The minigrad dtype of a NumPy dtype; float/int widths outside the six are narrowed."""
    d = _BY_NP.get(np_dtype)
    if d is not None:
        return d
    nd = np.dtype(np_dtype)
    d = _BY_NP.get(nd)
    if d is not None:
        return d
    if nd.kind == "f":
        return float64 if nd.itemsize > 4 else float32
    if nd.kind in "iu":
        return int64
    if nd.kind == "b":
        return bool_
    raise TypeError(f"unsupported NumPy dtype {nd}; minigrad supports {', '.join(_BY_NAME)}")


def as_dtype(value: Any, what: str = "dtype") -> DType:
    """Accept a minigrad dtype, its name or a NumPy dtype; raise ``TypeError`` otherwise."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if value is bool:
        return bool_
    if value is float:
        return float32
    if value is int:
        return int64
    try:
        return from_numpy(np.dtype(value))
    except TypeError:
        pass
    raise TypeError(
        f"{what} must be one of minigrad.float16/bfloat16/float32/float64/uint8/int8/int16/int32/int64/bool, "
        f"but got {value!r}"
    )


# -- What PyTorch tells about its dtypes: finfo/iinfo, promote_types, can_cast, result_type ----------------


class finfo:  # noqa: N801  (PyTorch's name)
    """The limits of a floating dtype (``torch.finfo``): ``bits``, ``eps``, ``max``, ``min``, ``tiny``
    (= ``smallest_normal``), ``resolution`` (10 to the minus its decimal digits) and ``dtype`` (its name).

    Example:
        >>> import minigrad as mg
        >>> mg.finfo(mg.float16).eps
        0.0009765625
        >>> mg.finfo(mg.float32)
        finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)
    """

    def __init__(self, type: Any = None) -> None:  # noqa: A002  (PyTorch's argument name)
        dt = get_default_dtype() if type is None else as_dtype(type, "finfo(): argument 'type'")
        if not dt.is_floating:
            raise TypeError(f"minigrad.finfo() requires a floating point input type. Use minigrad.iinfo to handle '{dt}'")
        info = ml_dtypes.finfo(dt.np)
        self.bits: int = int(info.bits)
        self.eps: float = float(info.eps)
        self.max: float = float(info.max)
        self.min: float = float(info.min)
        self.tiny: float = float(info.smallest_normal)
        self.smallest_normal: float = self.tiny
        self.resolution: float = float(10.0 ** -int(info.precision))
        self.dtype: str = dt.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    __hash__ = None  # type: ignore[assignment]  (as PyTorch's: equal ones compare, none hash)

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # noqa: N801  (PyTorch's name)
    """The limits of an integer dtype (``torch.iinfo``): ``bits``, ``max``, ``min``, ``dtype`` (its name).

    Example:
        >>> import minigrad as mg
        >>> mg.iinfo(mg.uint8)
        iinfo(min=0, max=255, dtype=uint8)
    """

    def __init__(self, type: Any) -> None:  # noqa: A002
        dt = as_dtype(type, "iinfo(): argument 'type'")
        if dt is bool_:
            raise TypeError("minigrad.bool is not supported by minigrad.iinfo")
        if not dt.is_integer:
            raise TypeError(f"minigrad.iinfo() requires an integer input type. Use minigrad.finfo to handle '{dt}'")
        info = np.iinfo(dt.np)
        self.bits: int = int(info.bits)
        self.max: int = int(info.max)
        self.min: int = int(info.min)
        self.dtype: str = dt.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"


def promote_types(type1: Any, type2: Any) -> DType:
    """The dtype two dtypes promote to (``torch.promote_types``): ``int32`` and ``float16`` give ``float16``."""
    return promote(as_dtype(type1, "promote_types(): argument 'type1'"), as_dtype(type2, "promote_types(): argument 'type2'"))


def can_cast(from_: Any, to: Any) -> bool:
    """Whether type promotion may cast ``from_`` to ``to`` (``torch.can_cast``): not a float to an integer,
    not a non-bool to bool; narrowing within a kind is allowed (``float64`` to ``float16``)."""
    a, b = as_dtype(from_, "can_cast(): argument 'from_'"), as_dtype(to, "can_cast(): argument 'to'")
    if a.is_floating and not b.is_floating:
        return False
    return not (a is not bool_ and b is bool_)


def combine_categories(higher: DType | None, lower: DType | None) -> DType | None:
    """PyTorch's ``combine_categories``: a higher-priority operand (a tensor with dimensions, over a 0-d one,
    over a Python number) keeps its dtype unless a lower one is of a higher kind (a float number with an
    integer tensor: the float wins; anything with a bool)."""
    if higher is None:
        return lower
    if lower is None or higher.is_floating:
        return higher
    if higher is bool_ or lower.is_floating:
        return promote(higher, lower)
    return higher


def result_type(tensor1: Any, tensor2: Any) -> DType:
    """The dtype an arithmetic op of ``tensor1`` and ``tensor2`` gives (``torch.result_type``): tensors, 0-d
    tensors and Python numbers, each kind weighing less than the one before (``int_tensor + 1.0`` is float,
    ``half_tensor + 1.0`` stays half, ``int_tensor + tensor(1.0)`` is the default float)."""
    results: list[DType | None] = [None, None, None]  # dimensioned tensors, 0-d tensors, numbers
    for name, v in (("tensor1", tensor1), ("tensor2", tensor2)):
        if hasattr(v, "_dtype"):
            slot, dt = (1 if v.ndim == 0 else 0), v._dtype
        elif isinstance(v, bool):
            slot, dt = 2, bool_
        elif isinstance(v, int):
            slot, dt = 2, int64
        elif isinstance(v, float):
            slot, dt = 2, get_default_dtype()
        else:
            raise TypeError(f"result_type() received an invalid combination of arguments: '{name}' must be a Tensor "
                            f"or a Number, not {type(v).__name__}")
        results[slot] = dt if results[slot] is None else promote(results[slot], dt)
    out = combine_categories(results[0], combine_categories(results[1], results[2]))
    assert out is not None
    return out


_SCALAR_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                      "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool", "bfloat16": "BFloat16"}


def scalar_type_name(dtype: Any) -> str:
    """PyTorch's name of a dtype in its messages (``Long`` for int64)."""
    name = getattr(dtype, "name", str(dtype))
    return _SCALAR_TYPE_NAMES.get(name, name)


#: The C++ type behind each dtype, as some of PyTorch's messages name a dtype (``long int``, ``c10::Half``)
_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                   "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                   "uint8": "unsigned char", "bool": "bool"}


def cpp_type_name(dtype: Any) -> str:
    """PyTorch's C++ name of a dtype (a DType or a NumPy dtype) in the messages that print it so: matmul's
    ``float != double``, ``clamp_``'s ``long int``, the legacy constructor's ``TensorOptions(dtype=double, ...)``."""
    name = getattr(dtype, "name", str(dtype))
    return _CPP_TYPE_NAMES.get(name, name)
