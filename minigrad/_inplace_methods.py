"""In-place methods as PyTorch names them (``relu_``, ``exp_``, ``copy_``, ``addcmul_`` ...).

Each is its out-of-place twin run through ``run_inplace`` (``dispatch/dygraph.py``): the twin computes
the new values and records its node - so an in-place op's backward formula *is* its twin's, as in
PyTorch's ``derivatives.yaml`` - and ``run_inplace`` writes them into the tensor's storage, bumps its
version counter and moves its history (through a view: rewrites the base's history, NOTE [ In-place
through a view: the history rewrite ] in ``autograd/views.py``). ``copy_`` has no twin in PyTorch's
API: its op is ``copy_`` (``CopyBackwards``), whose gradient goes to ``src``, none to the old values.

Example:
    >>> import minigrad as mg
    >>> h = mg.tensor([[-1.0, 2.0], [3.0, -4.0]])
    >>> h[0].relu_().tolist(), h.tolist()
    ([0.0, 2.0], [[0.0, 2.0], [3.0, -4.0]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from . import ops
from .autograd.grad_mode import GRAD_MODE
from .dispatch.dygraph import run_inplace, run_inplace_view
from .errors import ShapeError
from .kernels.infer_meta import scalar_type_name
from .tensor import Tensor, storage_array
from .ops.indexing import as_strided_args, fitted_shape, put_values, refuse_overlap

__all__ = ["inplace_composite", "clamp_inplace", "NAMESPACE_FORMS", "namespace_form"]


def _copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """Copy ``src``'s values (broadcast to this shape, cast to this dtype) into this tensor; a number is
    written everywhere."""
    if isinstance(src, (int, float, bool)):
        src = Tensor._scalar(src, self._dtype, self._device)
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
    return _copy_into(self, src, "copy_")


def _copy_into(self: Tensor, src: Tensor, op_name: str) -> Tensor:
    try:
        shape = np.broadcast_shapes(tuple(src.shape), tuple(self.shape))
    except ValueError:
        shape = None
    if shape != tuple(self.shape):
        raise RuntimeError(f"The size of tensor a ({self.shape[-1] if self.ndim else 1}) must match the size of tensor "
                           f"b ({src.shape[-1] if src.ndim else 1}) at non-singleton dimension {max(self.ndim - 1, 0)}"
                           if shape is None else
                           f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(shape)}")

    def compute() -> Tensor:
        value = src if src._device == self._device else src.to(self._device)
        return ops.OPS["copy_"](self, value)  # CopyBackwards: the cast and the broadcast are the op's

    return run_inplace(self, op_name, compute, operands=(src,))


def setitem_through_view(self: Tensor, idx: tuple[Any, ...], value: Any) -> bool:
    """``x[idx] = value`` for a basic index: ``x[idx].copy_(value)``, as PyTorch does it - through a view,
    so the history goes through a CopySlices node and only the indexed elements are written. False (nothing
    done) for integer-array or mask indexing. ``value`` keeps PyTorch's setitem broadcasting (its leading
    size-1 dims dropped); a refusal comes before the view is made."""
    if any(hasattr(i, "shape") for i in idx):  # an index array, on the host or on the device
        return False
    region = np.broadcast_to(np.empty((), dtype=bool), self.shape)[idx].shape
    v = value if isinstance(value, Tensor) else Tensor._scalar(value, self._dtype, self._device)
    try:
        vshape = fitted_shape(tuple(v.shape), region)
    except ShapeError:
        raise ShapeError(_expand_refusal_words(v, region)) from None
    meta = self._meta
    if GRAD_MODE.enabled and meta is not None and meta.grad_node is None:
        raise RuntimeError("setitem(): a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    if vshape != tuple(v.shape):
        v = ops.reshape(v, vshape)
    _copy_into(ops.getitem(self, idx), v, "setitem")
    return True


def _expand_refusal_words(v: Tensor, region: tuple[int, ...]) -> str:
    """PyTorch's words where ``x[idx] = v`` fails: it expands ``v`` without its leading size-1 dims to the
    indexed region's shape, and ``expand`` refuses (checking from the last dim)."""
    have = list(v.shape)
    while have and have[0] == 1:
        have.pop(0)
    target = list(region)
    if len(have) > len(target):
        kind = f"torch.{'' if v.device == 'cpu' else 'cuda.'}{scalar_type_name(v.dtype)}Tensor"
        return (f"expand({kind}{{{have}}}, size={target}): the number of sizes provided ({len(target)}) must be "
                f"greater or equal to the number of dimensions in the tensor ({len(have)})")
    lead = len(target) - len(have)
    for k in range(len(have) - 1, -1, -1):
        if have[k] != 1 and have[k] != target[lead + k]:
            return (f"The expanded size of the tensor ({target[lead + k]}) must match the existing size ({have[k]}) "
                    f"at non-singleton dimension {lead + k}.  Target sizes: {target}.  Tensor sizes: {have}")
    return f"setitem(): value of shape {tuple(v.shape)} cannot be broadcast to the indexed region of shape {region}"


def index_put_through_view(self: Tensor, split: tuple[tuple[Any, ...], tuple[Any, ...]], value: Any,
                           region: tuple[int, ...], bad_index: BaseException | None = None) -> None:
    """``x[index] = value`` for an index of integers and arrays, as PyTorch does it: the integers' view
    first (``x[0]``), then ``index_put_`` on that view with the arrays, so the history goes through a
    CopySlices node (NOTE [ An index's integers are applied first ] in ``kernels/strided.py``). ``split``:
    ``integers_first``'s (basic, rest); ``region``: the indexed region's shape. ``bad_index``: an index array's
    value out of range, refused after the in-place checks (as ``index_put_`` refuses it); any other refusal
    comes before the view is made."""
    basic, rest = split
    if bad_index is None:
        fitted_shape(tuple(value.shape) if isinstance(value, Tensor) else (), region)
    meta = self._meta
    if GRAD_MODE.enabled and meta is not None and meta.grad_node is None:
        raise RuntimeError("setitem(): a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    view = ops.getitem(self, basic)
    run_inplace(view, "setitem", lambda: written(view, rest, value, region, bad_index),
                operands=(value,) if isinstance(value, Tensor) else ())


def written(target: Tensor, index: tuple[Any, ...], value: Any, region: tuple[int, ...],
            bad_index: BaseException | None) -> Tensor:
    """The out-of-place result of ``target[index] = value`` for an index array (``index_put_``), its refusals
    in PyTorch's order: a value sharing the target's memory, then an index value out of range (``bad_index``,
    found before). ``value`` (a number or a tensor) is cast to the target's dtype, as setitem casts it."""
    refuse_overlap(target, value, setitem=True)
    if bad_index is not None:
        raise bad_index
    if not isinstance(value, Tensor):
        return put_values(target, index, Tensor._scalar(value, target._dtype, target._device), region=region)
    v = value if value._dtype is target._dtype else ops.cast(value, target._dtype)
    return put_values(target, index, v, region=region)


def inplace_composite(name: str, fn: Any) -> Any:
    """The method ``name`` (``relu_``): ``fn`` (``relu``) run in place by ``run_inplace``."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return run_inplace(self, name, lambda: fn(self, *args, **kwargs), operands=args + tuple(kwargs.values()))

    method.__name__ = name
    method.__doc__ = f"In place: ``self = minigrad.{name[:-1]}(self, ...)`` (bumps the version counter)."
    return method


def clamp_inplace(name: str, fn: Any) -> Any:
    """The method ``name`` (``clamp_``, ``clip_``, ``clamp_min_``, ``clamp_max_``): ``inplace_composite``, after
    PyTorch's check of number bounds: the result type of the tensor and the numbers (a float with an integer
    tensor: the default float dtype; an integer with a bool tensor: int64) must cast to the tensor's dtype,
    refused in PyTorch's words (the dtype by its C++ name: ``long int``). Tensor bounds are the op's to check."""
    method = inplace_composite(name, fn)

    def checked(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        numbers = [b for b in (*args, *kwargs.values()) if isinstance(b, (int, float)) and not isinstance(b, Tensor)]
        result = self._dtype
        if not self._dtype.is_floating and any(isinstance(b, float) for b in numbers):
            result = _dt.get_default_dtype()
        elif self._dtype is _dt.bool_ and any(not isinstance(b, bool) for b in numbers):
            result = _dt.int64
        if not _dt.can_cast(result, self._dtype):
            raise RuntimeError(f"result type {scalar_type_name(result)} can't be cast to the desired output type "
                               f"{_dt.cpp_type_name(self._dtype)}")
        return method(self, *args, **kwargs)

    checked.__name__, checked.__doc__ = name, method.__doc__
    return checked


_METHODS = {
    "relu_": ops.relu, "sigmoid_": ops.sigmoid, "tanh_": ops.tanh, "abs_": ops.abs, "neg_": ops.neg,
    "exp_": ops.exp, "log_": ops.log, "sqrt_": ops.sqrt, "pow_": ops.pow, "addcmul_": ops.addcmul,
    "addcdiv_": ops.addcdiv, "lerp_": ops.lerp,
}
for _name, _fn in _METHODS.items():
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, inplace_composite(_name, _fn))
for _name, _fn in (("clamp_min_", ops.clamp_min), ("clamp_max_", ops.clamp_max)):
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, clamp_inplace(_name, _fn))
Tensor.copy_ = _copy_  # type: ignore[attr-defined]


def _inplace_view(name: str, undo: Any) -> Any:
    """The method ``name`` (``squeeze_``): its op run on the tensor itself by ``run_inplace_view``;
    ``undo(self, *args)`` is the view function that takes the new shape back to the old one."""
    op = ops.OPS[name]

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return run_inplace_view(self, op, args, undo(self, *args, **kwargs))

    method.__name__ = name
    method.__doc__ = (f"In place: ``self`` takes the shape of ``minigrad.{name[:-1]}(self, ...)``, keeping its storage "
                      f"(bumps the version counter).")
    return method


def _back_to(self: Tensor, *args: Any, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
    return ops.OPS["reshape"], {"shape": tuple(self.shape)}


def _transposed_back(self: Tensor, dim0: Any = 0, dim1: Any = 1) -> tuple[Any, dict[str, Any]]:
    return ops.OPS["transpose"], {"dim0": dim0, "dim1": dim1}


Tensor.squeeze_ = _inplace_view("squeeze_", _back_to)  # type: ignore[attr-defined]
Tensor.unsqueeze_ = _inplace_view("unsqueeze_", _back_to)  # type: ignore[attr-defined]
Tensor.t_ = _inplace_view("t_", lambda self: (ops.OPS["t"], {}))  # type: ignore[attr-defined]
Tensor.transpose_ = _inplace_view("transpose_", _transposed_back)  # type: ignore[attr-defined]



def _as_strided_(self: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """In place: ``self`` takes ``as_strided``'s geometry over its own storage (``AsStridedBackward1``; bumps
    the version counter). Its other views see it through ``as_strided`` back to the geometry it had."""
    args = as_strided_args("as_strided_", self, size, stride, storage_offset)
    old = (tuple(self.shape), tuple(self.stride()), self.storage_offset())
    undo = (ops.OPS["as_strided"], {"size": old[0], "stride": old[1], "storage_offset": old[2],
                                    "self_geometry": args[:3]})
    storage = storage_array(self)
    run_inplace_view(self, ops.OPS["as_strided_"], args, undo)
    if self._view is None:  # its new array may not lead back to the storage (CuPy's as_strided has no base)
        self._vc.storage = storage
    return self


Tensor.as_strided_ = _as_strided_  # type: ignore[attr-defined]


def _swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
    """``x.transpose_(axis0, axis1)`` (NumPy's name; ``TransposeBackward1``)."""
    return self.transpose_(axis0, axis1)  # type: ignore[attr-defined]


def _swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """``x.transpose_(dim0, dim1)`` (``TransposeBackward1``)."""
    return self.transpose_(dim0, dim1)  # type: ignore[attr-defined]


Tensor.swapaxes_ = _swapaxes_  # type: ignore[attr-defined]
Tensor.swapdims_ = _swapdims_  # type: ignore[attr-defined]


def _fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Write ``fill_value`` on the main diagonal (``x[i, i, ..., i]``; a tensor of more than two dims must have
    all its dims equal) in place, as PyTorch does: through a view of the diagonal, ``fill_`` (the history goes
    through a CopySlices node). ``wrap``: in a tall matrix the diagonal starts again ``N + 1`` rows down, as
    the storage's every ``N + 1``-th element (PyTorch's, and NumPy's ``fill_diagonal``)."""
    if isinstance(fill_value, Tensor) and fill_value.ndim == 0:
        fill_value = fill_value.item()  # PyTorch's Number argument takes a 0-d tensor's value
    if not isinstance(fill_value, (int, float, bool)):
        raise TypeError(f"fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not "
                        f"{type(fill_value).__name__}")
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    rows, cols = self.shape[0], self.shape[1]
    if wrap and self.ndim == 2 and rows > cols + 1:
        if self.is_contiguous():  # type: ignore[attr-defined]
            ops.getitem(ops.view(self, (-1,)), slice(None, None, cols + 1)).fill_(fill_value)
            return self
        for start in range(0, rows, cols + 1):  # each block of rows its own diagonal
            ops.diagonal(ops.getitem(self, slice(start, start + cols))).fill_(fill_value)
        return self
    diagonal = self
    for _ in range(self.ndim - 1):  # x[i, i, j] for each j, then x[i, i, i]
        diagonal = ops.diagonal(diagonal, 0, 0, 1)
    diagonal.fill_(fill_value)
    return self


Tensor.fill_diagonal_ = _fill_diagonal_  # type: ignore[attr-defined]


#: PyTorch's in-place functions (``torch.exp_(x)``): each is the Tensor method of the same name on its first argument
NAMESPACE_FORMS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_",
    "asinh_", "atan_", "atanh_", "ceil_", "gcd_", "lcm_", "ldexp_", "i0_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_",
    "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "log10_", "log1p_", "log2_", "log_",
    "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_",
    "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_",
)


def namespace_form(name: str, doc: str | None = None) -> Any:
    """The function ``minigrad.<name>`` (``exp_``): ``input.<name>(...)``, after PyTorch's check of ``input``
    (an attribute that is no method, ``real``, is returned as it is)."""
    def function(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        attr = getattr(input, name)
        return attr(*args, **kwargs) if callable(attr) else attr

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc or f"In place: ``input.{name}(...)`` (bumps the version counter; ``torch.{name}``)."
    return function
