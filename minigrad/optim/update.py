"""The paths one update rule runs on: tensor ops, a CPU parameter's arrays, many tensors at once.

An optimizer's rule (``SGD``'s momentum, ``Adam``'s moments) is written once, against a
*path* ``k``: ``k.value(t)`` is what the rule computes with, ``k.mul_``/``k.add_``/``k.sub_``
change a parameter or a state buffer in place, ``k.keep`` turns a computed value into a
state tensor. The rule's arithmetic uses Python operators, which both paths share.

- ``OPS``: every step is a minigrad op under ``no_grad``; a recorder sees each one
  (``api.call`` ... ``tensor.update``). Any device, any dtype.
- ``ARRAYS``: the same arithmetic on the NumPy arrays behind the tensors, in the same
  order, so the same bits (float32/float64 on the CPU); each in-place write bumps the
  tensor's version counter as the op would. PyTorch's fused optimizers skip per-op
  dispatch for the same reason: a step touches every parameter, and a dispatch per
  element-wise op costs more than the arithmetic on small tensors.

The foreach and fused forms (many parameters per call) are below, after
NOTE [ One rule, three forms ].

``path_for(p, g)`` picks ``ARRAYS`` only when no recorder listens, so a recorded step
shows every update as events, and only for a parameter without views: an in-place op gives
each view of the changed tensor a fresh grad node (``dispatch/views.py``), which a bare
array write would not.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..dtypes import float16, float32, float64
from ..kernels.registry import kernel_of, register_kernel
from ..tensor import Tensor, VersionCounter, storage_viewed
from ..tracing import bus

__all__ = ["OPS", "ARRAYS", "BARE", "bump", "rule_gradient", "path_for", "array_path_ok", "multi_tensor_ok", "bucket_key", "kernel_of",
           "list_path", "run_bare", "TensorList", "ArrayList", "StateList"]

#: float16/bfloat16 arithmetic may differ between kernels and raw NumPy: those keep the op path.
_ARRAY_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def array_path_ok(p: Tensor, g: Tensor) -> bool:
    """Whether ``p`` may be updated on its array: no recorder, a CPU array, ``g`` alike."""
    data = p._data
    return (
        bus.recorder is None
        and type(data) is np.ndarray
        and type(g._data) is np.ndarray
        and g._dtype is p._dtype
        and data.dtype in _ARRAY_DTYPES
        and g._data.shape == data.shape
        and data.flags.writeable
        and not storage_viewed(p)  # a live view of ``p`` (or of a tensor sharing its storage) must get a fresh
        # grad node: the op path's in-place ops make it
    )


class _OpPath:
    """Each step an op: ``value`` is the tensor itself, in-place steps are the tensor's ``*_`` methods."""

    @staticmethod
    def value(t: Tensor) -> Tensor:
        return t

    @staticmethod
    def keep(v: Tensor, p: Tensor) -> Tensor:
        return v

    @staticmethod
    def copy(v: Tensor) -> Tensor:
        return v.detach_copy()

    @staticmethod
    def sqrt(v: Tensor) -> Tensor:
        return v.sqrt()

    @staticmethod
    def maximum(a: Tensor, b: Tensor) -> Tensor:
        return ops.maximum(a, b)

    @staticmethod
    def abs(v: Tensor) -> Tensor:
        return ops.abs(v)

    @staticmethod
    def mul_(t: Tensor, v: Any) -> None:
        t.mul_(v)

    @staticmethod
    def add_(t: Tensor, v: Any) -> None:
        t.add_(v)

    @staticmethod
    def sub_(t: Tensor, v: Any) -> None:
        t.sub_(v)


def bump(t: Tensor) -> None:
    """Record an in-place change of ``t``'s storage on its version counter, as an in-place op does."""
    if t._vc is None:
        t._vc = VersionCounter()
    t._vc.bump()


class _ArrayPath:
    """The same steps on the arrays behind the tensors; each in-place write bumps the version."""

    @staticmethod
    def value(t: Tensor) -> np.ndarray:
        return t._data

    @staticmethod
    def keep(v: np.ndarray, p: Tensor) -> Tensor:
        return Tensor._make(v, p._dtype)

    @staticmethod
    def copy(v: np.ndarray) -> np.ndarray:
        return v.copy()

    @staticmethod
    def sqrt(v: np.ndarray) -> np.ndarray:
        return np.sqrt(v)

    @staticmethod
    def maximum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.maximum(a, b)

    @staticmethod
    def abs(v: np.ndarray) -> np.ndarray:
        return np.abs(v)

    @staticmethod
    def mul_(t: Tensor, v: Any) -> None:
        t._data *= v
        bump(t)

    @staticmethod
    def add_(t: Tensor, v: Any) -> None:
        t._data += v
        bump(t)

    @staticmethod
    def sub_(t: Tensor, v: Any) -> None:
        t._data -= v
        bump(t)


OPS = _OpPath()
ARRAYS = _ArrayPath()


def rule_gradient(k: Any, p: Any, g: Any, maximize: bool, weight_decay: float, decoupled_decay: float | None = None) -> Any:
    """The gradient every rule starts from, on the path ``k``: negated for ``maximize``; with ``weight_decay``,
    either ``p`` shrunk in place by ``decoupled_decay`` (``1 - lr * weight_decay``: AdamW's decoupled decay)
    or ``weight_decay * p`` added to it (L2)."""
    g = k.value(g)
    if maximize:
        g = -g
    if weight_decay and decoupled_decay is not None:
        k.mul_(p, decoupled_decay)
    elif weight_decay:
        g = g + k.value(p) * weight_decay
    return g


def path_for(p: Tensor, g: Tensor) -> _OpPath | _ArrayPath:
    """``ARRAYS`` when ``p`` may be updated on its array (``array_path_ok``), else ``OPS``."""
    return ARRAYS if array_path_ok(p, g) else OPS


# -- many parameters at once: the foreach and fused forms ----------------------------------------
#
# NOTE [ One rule, three forms ]
# PyTorch's SGD/Adam/AdamW run in one of three forms (torch/optim/adam.py: ``_single_tensor_adam``,
# ``_multi_tensor_adam``, ``_fused_adam``): a for-loop over the parameters, ``foreach`` (each step of
# the rule is one multi-tensor call over every parameter of a device and dtype) and ``fused`` (the
# whole rule in one kernel). minigrad writes each rule once, against a path ``k``:
#
# - for-loop: ``OPS`` or ``ARRAYS`` above, one parameter at a time;
# - foreach: ``ListPath``, whose values are ``ArrayList``s: the same Python operators, each one call of
#   the backend's ``_foreach_unary``/``_foreach_binary`` kernel over all the arrays (on the GPU one launch
#   per step of the rule, whatever the number of parameters, up to ``SLOTS`` tensors per launch);
# - fused: the backend's ``_fused_sgd_``/``_fused_adam_`` kernel. On the CPU that kernel is the rule on
#   the bare arrays (``BARE``); on the GPU it is CUDA C (``minigrad/kernels/gpu/optim_src.py``) that
#   does the rule's steps in the same order and rounding, compiled without fused multiply-adds.
#
# The three give the same values: each step rounds to the parameter's dtype, as the op does.

#: dtypes the foreach and fused kernels serve (bfloat16 parameters run the for-loop)
MANY_DTYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def multi_tensor_ok(p: Tensor, g: Tensor) -> bool:
    """Whether ``p`` may join a foreach or fused call: same dtype and shape as ``g``, both contiguous,
    a dtype and backend with multi-tensor kernels, and no live view of its storage (as ``array_path_ok``)."""
    data, gd = p._data, g._data
    return (
        type(gd) is type(data)
        and g._dtype is p._dtype
        and data.dtype in MANY_DTYPES
        and gd.shape == data.shape
        and data.flags.c_contiguous
        and gd.flags.c_contiguous
        and getattr(data.flags, "writeable", True)
        and not storage_viewed(p)
        and kernel_of("_foreach_binary", p) is not None
    )


def bucket_key(p: Tensor, state: dict[str, Any]) -> tuple:
    """Parameters that share one foreach or fused call: one device, one dtype, and states at the same
    point (the same step count, the same buffers present), so the rule's scalars are shared."""
    layout = tuple(sorted((k, v if v is None or isinstance(v, (bool, int, float)) else "tensor")
                          for k, v in state.items()))
    return p._device, p._dtype, layout


class TensorList(list):
    """Tensors of one device and dtype that a foreach step treats as one value."""


class ArrayList:
    """The arrays of a ``TensorList`` as one value: each operator is one multi-tensor kernel call.

    ``kernels`` holds the backend's ``_foreach_unary``/``_foreach_binary`` for the dtype; an operand is
    another ``ArrayList`` (element by element) or a Python number (rounded to the dtype, as an op does).
    """

    __slots__ = ("arrays", "kernels")

    def __init__(self, arrays: list[Any], kernels: tuple[Any, Any]) -> None:
        self.arrays = arrays
        self.kernels = kernels

    def unary(self, op: str) -> "ArrayList":
        return ArrayList(self.kernels[0](op, self.arrays), self.kernels)

    def binary(self, op: str, other: Any) -> "ArrayList":
        other = other.arrays if isinstance(other, ArrayList) else other
        return ArrayList(self.kernels[1](op, self.arrays, other), self.kernels)

    def __neg__(self) -> "ArrayList":
        return self.unary("neg")

    def __add__(self, other: Any) -> "ArrayList":
        return self.binary("add", other)

    __radd__ = __add__  # ``number + list``: addition commutes, bit for bit

    def __sub__(self, other: Any) -> "ArrayList":
        return self.binary("sub", other)

    def __mul__(self, other: Any) -> "ArrayList":
        return self.binary("mul", other)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> "ArrayList":
        return self.binary("div", other)


class _ListPath:
    """The foreach form: values are ``ArrayList``s, in-place steps write every array of a ``TensorList``."""

    def __init__(self, kernels: tuple[Any, Any]) -> None:
        self.kernels = kernels

    def value(self, t: TensorList) -> ArrayList:
        return ArrayList([x._data for x in t], self.kernels)

    @staticmethod
    def keep(v: ArrayList, p: TensorList) -> TensorList:
        return TensorList(Tensor._make(a, q._dtype, q._device) for a, q in zip(v.arrays, p))

    @staticmethod
    def copy(v: ArrayList) -> ArrayList:
        return v.unary("copy")

    @staticmethod
    def sqrt(v: ArrayList) -> ArrayList:
        return v.unary("sqrt")

    @staticmethod
    def maximum(a: ArrayList, b: ArrayList) -> ArrayList:
        return a.binary("maximum", b)

    @staticmethod
    def abs(v: ArrayList) -> ArrayList:
        return v.unary("abs")

    def _inplace(self, op: str, t: TensorList, v: Any) -> None:
        self.kernels[1](op, [x._data for x in t], v.arrays if isinstance(v, ArrayList) else v,
                        out=[x._data for x in t])
        for x in t:
            bump(x)

    def mul_(self, t: TensorList, v: Any) -> None:
        self._inplace("mul", t, v)

    def add_(self, t: TensorList, v: Any) -> None:
        self._inplace("add", t, v)

    def sub_(self, t: TensorList, v: Any) -> None:
        self._inplace("sub", t, v)


def list_path(p: Tensor) -> _ListPath:
    """The foreach path for parameters like ``p`` (its backend's multi-tensor kernels)."""
    return _ListPath((kernel_of("_foreach_unary", p), kernel_of("_foreach_binary", p)))


class StateList:
    """The states of a bucket's parameters read as one: a buffer is a ``TensorList``, a count is the
    shared count (``bucket_key`` put only states at the same point together)."""

    def __init__(self, states: list[dict[str, Any]]) -> None:
        self.states = states

    def get(self, name: str, default: Any = None) -> Any:
        first = self.states[0].get(name, default)
        if isinstance(first, Tensor):
            return TensorList(st[name] for st in self.states)
        return first

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    def __setitem__(self, name: str, value: Any) -> None:
        for i, st in enumerate(self.states):
            st[name] = value[i] if isinstance(value, TensorList) else value


class _BarePath:
    """The rule on bare NumPy arrays (the CPU fused kernels): values and buffers are the arrays."""

    @staticmethod
    def value(t: np.ndarray) -> np.ndarray:
        return t

    @staticmethod
    def keep(v: np.ndarray, p: np.ndarray) -> np.ndarray:
        return v

    copy = staticmethod(np.copy)
    sqrt = staticmethod(np.sqrt)
    maximum = staticmethod(np.maximum)
    abs = staticmethod(np.abs)

    @staticmethod
    def mul_(t: np.ndarray, v: Any) -> None:
        np.multiply(t, v, out=t)

    @staticmethod
    def add_(t: np.ndarray, v: Any) -> None:
        np.add(t, v, out=t)

    @staticmethod
    def sub_(t: np.ndarray, v: Any) -> None:
        np.subtract(t, v, out=t)


BARE = _BarePath()


def run_bare(rule: Any, params: list[np.ndarray], grads: list[np.ndarray], buffers: dict[str, list[np.ndarray]],
             first: bool, scalars: Any) -> None:
    """A fused update on the CPU: ``rule`` on ``BARE`` for each parameter's arrays, the state buffers
    (``buffers[name][i]`` of parameter ``i``) written in place.

    On the ``first`` step the rule meets no buffers (``None``) and makes them, as the for-loop does;
    their values are then copied into the given arrays.
    """
    with np.errstate(all="ignore"):  # a NaN or an infinity is a value, as in the ops' kernels
        for i, (p, g) in enumerate(zip(params, grads)):
            given = {name: bufs[i] for name, bufs in buffers.items()}
            st = {name: (None if first else buf) for name, buf in given.items()}
            rule(BARE, p, g, st, scalars)
            for name, buf in given.items():
                if st[name] is not buf:
                    buf[...] = st[name]


# -- the CPU's multi-tensor kernels: NumPy on each array ---------------------------------------------

_UFUNCS = {"neg": np.negative, "sqrt": np.sqrt, "abs": np.abs, "copy": np.positive, "add": np.add, "sub": np.subtract,
           "mul": np.multiply, "div": np.divide, "maximum": np.maximum}


@register_kernel("_foreach_unary", dtypes=(float16, float32, float64), name="cpu/foreach_unary")
def foreach_unary(op: str, xs: list[np.ndarray], out: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """``op`` (neg, sqrt, abs, copy) of every array: PyTorch's ``torch._foreach_neg`` and kin."""
    fn = _UFUNCS[op]
    with np.errstate(all="ignore"):  # a NaN or an infinity is a value, as in the ops' kernels
        return [fn(x, out=o) for x, o in zip(xs, out or [None] * len(xs))]


@register_kernel("_foreach_norm", dtypes=(float16, float32, float64), name="cpu/foreach_norm")
def foreach_norm(xs: list[np.ndarray]) -> np.ndarray:
    """The 2-norm of every array (``torch._foreach_norm``) as one 1-d array in their dtype, float16's
    computed in float32 (``nn.utils.clip_grad_norm_``'s foreach form)."""
    acc = np.float64 if xs[0].dtype == np.float64 else np.float32
    return np.sqrt(np.array([np.vdot(x.astype(acc, copy=False), x.astype(acc, copy=False)) for x in xs],
                            dtype=acc)).astype(xs[0].dtype)


@register_kernel("_foreach_binary", dtypes=(float16, float32, float64), name="cpu/foreach_binary")
def foreach_binary(op: str, xs: list[np.ndarray], ys: Any, out: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """``op`` (add, sub, mul, div, maximum) of every array with its partner in ``ys``, or with the
    number ``ys`` (rounded to the arrays' dtype, as NumPy does for a Python number)."""
    fn = _UFUNCS[op]
    others = ys if isinstance(ys, list) else [ys] * len(xs)
    with np.errstate(all="ignore"):
        return [fn(x, y, out=o) for x, y, o in zip(xs, others, out or [None] * len(xs))]
