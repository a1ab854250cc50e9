"""The paths one update rule runs on: tensor ops, a CPU parameter's arrays, many tensors at once.

An optimizer's rule (``SGD``'s momentum, ``Adam``'s moments) is written once, against a
*path* ``k``, as PyTorch's for-loop writes it (``torch/optim/adam.py``'s ``_single_tensor_adam``):
``k.value(t)`` is what the rule computes with; ``k.mul_``, ``k.add_`` (with ``alpha``), ``k.div_``,
``k.sqrt_``, ``k.maximum_``, ``k.lerp_``, ``k.addcmul_`` and ``k.addcdiv_`` change a parameter, a
state buffer or a value in place, each the op of that name; ``k.keep`` turns a computed value into
a state tensor. The rule's other arithmetic uses Python operators, which every path shares.

NOTE [ An optimizer's step is PyTorch's, bit for bit ]
    PyTorch's rules lean on ops that round once where two ops would round twice:
    ``param.add_(grad, alpha=-lr)``, ``exp_avg.lerp_(grad, 1 - beta1)`` and
    ``exp_avg_sq.addcmul_(grad, grad, value=1 - beta2)`` are fused multiply-adds
    in its vectorised CPU kernels and its CUDA kernels. A rule written with
    ``p -= lr * g`` moves a third of the parameters' last bits a step, and a
    course's loss curve drifts from PyTorch's over thousands of steps. So each
    path runs the ops themselves: ``OPS`` the tensor methods, ``ARRAYS`` and
    ``BARE`` the ops' CPU kernels (``add_alpha``, ``lerp``, ``addcmul``,
    ``addcdiv``), the foreach form the op's kernel over every tensor.

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
from ..dtypes import float16, float32, float64, from_numpy
from ..kernels.key import Backend, KernelKey, Layout
from ..kernels.registry import kernel_of, kernels_for, register_kernel
from ..ops.math import add_alpha_cpu
from ..ops.pointwise import addcdiv_cpu, addcmul_cpu, lerp_cpu
from ..tensor import Tensor, VersionCounter, storage_viewed
from ..tracing import bus

__all__ = ["OPS", "ARRAYS", "BARE", "bump", "rule_gradient", "path_for", "array_path_ok", "multi_tensor_ok", "bucket_key", "kernel_of",
           "list_path", "run_bare", "amp_skipped", "amp_unscale", "by_count", "TensorList", "ArrayList", "StateList"]

#: float16/bfloat16 arithmetic may differ between kernels and raw NumPy: those keep the op path.
_ARRAY_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def array_path_ok(p: Tensor, g: Tensor) -> bool:
    """Whether ``p`` may be updated on its array: no recorder, a CPU array, ``g`` alike."""
    data = p._data
    return (
        not bus.steps_traced()
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
    def abs(v: Tensor) -> Tensor:
        return ops.abs(v)

    @staticmethod
    def reciprocal(v: Tensor) -> Tensor:
        return v.reciprocal()

    @staticmethod
    def add(a: Tensor, b: Tensor, alpha: float) -> Tensor:
        return a.add(b, alpha=alpha)

    @staticmethod
    def mul_(t: Tensor, v: Any) -> None:
        t.mul_(v)

    @staticmethod
    def add_(t: Tensor, v: Any, alpha: float = 1) -> None:
        if alpha == 1:
            t.add_(v)
        else:
            t.add_(v, alpha=alpha)

    @staticmethod
    def div_(t: Tensor, v: Any) -> None:
        t.div_(v)

    @staticmethod
    def sqrt_(t: Tensor) -> None:
        t.sqrt_()

    @staticmethod
    def maximum_(t: Tensor, v: Tensor) -> None:
        ops.maximum(t, v, out=t)

    @staticmethod
    def lerp_(t: Tensor, end: Tensor, weight: float) -> None:
        t.lerp_(end, weight)

    @staticmethod
    def addcmul_(t: Tensor, a: Tensor, b: Tensor, value: float = 1) -> None:
        t.addcmul_(a, b, value=value)

    @staticmethod
    def addcdiv_(t: Tensor, a: Tensor, b: Tensor, value: float = 1) -> None:
        t.addcdiv_(a, b, value=value)


def bump(t: Tensor) -> None:
    """Record an in-place change of ``t``'s storage on its version counter, as an in-place op does."""
    if t._vc is None:
        t._vc = VersionCounter()
    t._vc.bump()


class _ArrayPath:
    """The same steps on the arrays behind the tensors, each the op's CPU kernel (NOTE [ An optimizer's step
    is PyTorch's, bit for bit ]); each in-place write to a tensor bumps its version. With ``tensors=False``
    (``BARE``, the CPU fused kernels) parameters and buffers are the bare arrays themselves. ``kernels``: the
    kernels of ``FOREACH_OPS`` by name (the CPU's by default), and optionally ``div`` (``div_``'s)."""

    def __init__(self, tensors: bool, kernels: dict[str, Any] | None = None) -> None:
        self.tensors = tensors
        self.kernels = kernels or {"add_alpha": add_alpha_cpu, "lerp": lerp_cpu, "addcmul": addcmul_cpu,
                                   "addcdiv": addcdiv_cpu}

    @staticmethod
    def value(t: Any) -> np.ndarray:
        """A tensor's array (a parameter, a buffer); a computed array, or ``BARE``'s, as it is."""
        return t._data if isinstance(t, Tensor) else t

    def keep(self, v: np.ndarray, p: Any) -> Any:
        return Tensor._make(v, p._dtype) if self.tensors else v

    @staticmethod
    def copy(v: np.ndarray) -> np.ndarray:
        return v.copy()

    @staticmethod
    def sqrt(v: np.ndarray) -> np.ndarray:
        return np.sqrt(v)

    @staticmethod
    def abs(v: np.ndarray) -> np.ndarray:
        return np.abs(v)

    @staticmethod
    def reciprocal(v: np.ndarray) -> np.ndarray:
        return np.reciprocal(v)

    def add(self, a: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
        return self.kernels["add_alpha"](a, b, alpha)

    def _write(self, t: Any, out: Any) -> None:
        """Store ``out`` in ``t`` (a tensor: its array, then its version; or a value's array)."""
        data = t._data if isinstance(t, Tensor) else t
        if out is not data:
            np.copyto(data, out)
        if isinstance(t, Tensor):
            bump(t)

    def mul_(self, t: Any, v: Any) -> None:
        a = self.value(t)
        self._write(t, np.multiply(a, self.value(v), out=a))

    def add_(self, t: Any, v: Any, alpha: float = 1) -> None:
        a = self.value(t)
        self._write(t, np.add(a, self.value(v), out=a) if alpha == 1 else self.kernels["add_alpha"](a, self.value(v), alpha))

    def div_(self, t: Any, v: Any) -> None:
        a = self.value(t)
        divide = self.kernels.get("div")  # (the stand-in CuPy's: a GPU divides by a number otherwise)
        self._write(t, np.divide(a, self.value(v), out=a) if divide is None else divide(a, self.value(v)))

    def sqrt_(self, t: Any) -> None:
        a = self.value(t)
        self._write(t, np.sqrt(a, out=a))

    def maximum_(self, t: Any, v: Any) -> None:
        a = self.value(t)
        self._write(t, np.maximum(a, self.value(v), out=a))

    def lerp_(self, t: Any, end: Any, weight: float) -> None:
        self._write(t, self.kernels["lerp"](self.value(t), self.value(end), weight))

    def addcmul_(self, t: Any, a: Any, b: Any, value: float = 1) -> None:
        self._write(t, self.kernels["addcmul"](self.value(t), self.value(a), self.value(b), value))

    def addcdiv_(self, t: Any, a: Any, b: Any, value: float = 1) -> None:
        self._write(t, self.kernels["addcdiv"](self.value(t), self.value(a), self.value(b), value))


OPS = _OpPath()
ARRAYS = _ArrayPath(tensors=True)


def rule_gradient(k: Any, p: Any, g: Any, maximize: bool, weight_decay: float, decoupled_decay: float | None = None) -> Any:
    """The gradient every rule starts from, on the path ``k``: negated for ``maximize``; with ``weight_decay``,
    either ``p`` shrunk in place by ``decoupled_decay`` (``1 - lr * weight_decay``: AdamW's decoupled decay)
    or ``weight_decay * p`` added to it (L2: ``grad.add(param, alpha=weight_decay)``, one rounding)."""
    g = k.value(g)
    if maximize:
        g = -g
    if weight_decay and decoupled_decay is not None:
        k.mul_(p, decoupled_decay)
    elif weight_decay:
        g = k.add(g, k.value(p), weight_decay)
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
    layout = tuple(sorted((k, _layout_value(k, v)) for k, v in state.items()))
    return p._device, p._dtype, layout


def _layout_value(name: str, v: Any) -> Any:
    """What of a state entry a bucket must share: a number (``step``'s count, a 0-d tensor on the CPU), or that
    the entry is a tensor (a buffer; a fused step's count on the device, which its kernel reads per parameter:
    never read on the host)."""
    if v is None or isinstance(v, (bool, int, float)):
        return v
    return float(v._data) if name in ("step", "mu_product") and v._device == "cpu" else "tensor"


class TensorList(list):
    """Tensors of one device and dtype that a foreach step treats as one value."""


class ArrayList:
    """The arrays of a ``TensorList`` as one value: each operator is one multi-tensor kernel call.

    ``kernels`` holds the backend's ``_foreach_unary``/``_foreach_binary``/``_foreach_op`` for the dtype; an operand is
    another ``ArrayList`` (element by element) or a Python number (rounded to the dtype, as an op does).
    """

    __slots__ = ("arrays", "kernels")

    def __init__(self, arrays: list[Any], kernels: tuple[Any, ...]) -> None:
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
    """The foreach form: values are ``ArrayList``s; in-place steps write every array of a ``TensorList`` (and
    bump each tensor's version) or of a computed ``ArrayList``. ``kernels``: the backend's
    ``_foreach_unary``, ``_foreach_binary`` and ``_foreach_op`` (an op's own kernel over every array)."""

    def __init__(self, kernels: tuple[Any, Any, Any]) -> None:
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
    def abs(v: ArrayList) -> ArrayList:
        return v.unary("abs")

    @staticmethod
    def reciprocal(v: ArrayList) -> ArrayList:
        return v.unary("reciprocal")

    def add(self, a: ArrayList, b: ArrayList, alpha: float) -> ArrayList:
        return ArrayList(self.kernels[2]("add_alpha", [a.arrays, b.arrays], (alpha,)), self.kernels)

    @staticmethod
    def _arrays(v: Any) -> Any:
        """The arrays of a ``TensorList`` or an ``ArrayList``; a number as it is."""
        if isinstance(v, ArrayList):
            return v.arrays
        return [x._data for x in v] if isinstance(v, TensorList) else v

    @staticmethod
    def _bump(t: Any) -> None:
        if isinstance(t, TensorList):
            for x in t:
                bump(x)

    def _binary_(self, op: str, t: Any, v: Any) -> None:
        xs = self._arrays(t)
        self.kernels[1](op, xs, self._arrays(v), out=xs)
        self._bump(t)

    def _op_(self, op: str, t: Any, others: tuple[Any, ...], params: tuple[float, ...]) -> None:
        xs = self._arrays(t)
        self.kernels[2](op, [xs, *(self._arrays(o) for o in others)], params, out=xs)
        self._bump(t)

    def mul_(self, t: Any, v: Any) -> None:
        self._binary_("mul", t, v)

    def add_(self, t: Any, v: Any, alpha: float = 1) -> None:
        if alpha == 1:
            self._binary_("add", t, v)
        else:
            self._op_("add_alpha", t, (v,), (alpha,))

    def div_(self, t: Any, v: Any) -> None:
        self._binary_("div", t, v)

    def sqrt_(self, t: Any) -> None:
        xs = self._arrays(t)
        self.kernels[0]("sqrt", xs, out=xs)
        self._bump(t)

    def maximum_(self, t: Any, v: Any) -> None:
        self._binary_("maximum", t, v)

    def lerp_(self, t: Any, end: Any, weight: float) -> None:
        self._op_("lerp", t, (end,), (weight,))

    def addcmul_(self, t: Any, a: Any, b: Any, value: float = 1) -> None:
        self._op_("addcmul", t, (a, b), (value,))

    def addcdiv_(self, t: Any, a: Any, b: Any, value: float = 1) -> None:
        self._op_("addcdiv", t, (a, b), (value,))


def list_path(p: Tensor) -> _ListPath:
    """The foreach path for parameters like ``p`` (its backend's multi-tensor kernels)."""
    return _ListPath((kernel_of("_foreach_unary", p), kernel_of("_foreach_binary", p), kernel_of("_foreach_op", p)))


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


BARE = _ArrayPath(tensors=False)


def run_bare(rule: Any, params: list[np.ndarray], grads: list[np.ndarray], buffers: dict[str, list[np.ndarray]],
             first: bool, scalars: Any, path: _ArrayPath | None = None) -> None:
    """A fused update on the CPU: ``rule`` on ``BARE`` for each parameter's arrays, the state buffers
    (``buffers[name][i]`` of parameter ``i``) written in place.

    On the ``first`` step the rule meets no buffers (``None``) and makes them, as the for-loop does;
    their values are then copied into the given arrays. ``path``: another bare path (the stand-in CuPy's,
    whose op kernels compute as the GPU's do), ``BARE`` when None.
    """
    with np.errstate(all="ignore"):  # a NaN or an infinity is a value, as in the ops' kernels
        for i, (p, g) in enumerate(zip(params, grads)):
            given = {name: bufs[i] for name, bufs in buffers.items()}
            st = {name: (None if first else buf) for name, buf in given.items()}
            rule(path or BARE, p, g, st, scalars)
            for name, buf in given.items():
                if st[name] is not buf:
                    buf[...] = st[name]


# -- a GradScaler's two tensors in a fused step ----------------------------------------------------
#
# NOTE [ A fused step reads the scaler's flag on the device ]
# A fused optimizer (``_step_supports_amp_scaling``) is handed the GradScaler's scale and inf/NaN flag
# as 0-d float32 tensors on its device (``optimizer.grad_scale``, ``optimizer.found_inf``: PyTorch's
# contract). Its kernel reads both where they are: a flag of exactly 1 leaves every parameter, buffer
# and gradient as it was (PyTorch's kernels test ``== 1``), else each gradient is first divided by the
# scale and written back, unscaled. Adam's step counts are then tensors on the device, counted up
# before the kernel and down again by the flag after it, so nothing is read on the host: a float16
# training step with a fused optimizer makes no sync at all.

def amp_skipped(found_inf: np.ndarray | None) -> bool:
    """Whether a fused kernel leaves everything as it was: the scaler's flag holds exactly 1."""
    return found_inf is not None and float(found_inf.reshape(-1)[0]) == 1.0


def by_count(state_steps: list[np.ndarray]) -> dict[float, list[int]]:
    """A fused CPU kernel's parameters grouped by their step counts (each group shares the step's numbers)."""
    groups: dict[float, list[int]] = {}
    for i, t in enumerate(state_steps):
        groups.setdefault(float(t), []).append(i)
    return groups


def amp_unscale(grads: list[np.ndarray], grad_scale: np.ndarray | None) -> None:
    """Each gradient divided by the scale in its accumulation type (float32 for float16), written back."""
    if grad_scale is None:
        return
    with np.errstate(all="ignore"):
        for g in grads:
            acc = np.float64 if g.dtype == np.float64 else np.float32
            g[...] = np.asarray(g, dtype=acc) / acc(grad_scale.reshape(-1)[0])


# -- the CPU's multi-tensor kernels: NumPy on each array ---------------------------------------------

_UFUNCS = {"neg": np.negative, "sqrt": np.sqrt, "abs": np.abs, "copy": np.positive, "reciprocal": np.reciprocal, "add": np.add, "sub": np.subtract,
           "mul": np.multiply, "div": np.divide, "maximum": np.maximum}


@register_kernel("_foreach_unary", dtypes=(float16, float32, float64), name="cpu/foreach_unary")
def foreach_unary(op: str, xs: list[np.ndarray], out: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """``op`` (neg, sqrt, abs, copy, reciprocal) of every array: PyTorch's ``torch._foreach_neg`` and kin."""
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


#: the ops ``_foreach_op`` runs: each with its number attributes (``FOREACH_OPS[op]`` of them)
FOREACH_OPS = {"add_alpha": 1, "lerp": 1, "addcmul": 1, "addcdiv": 1}


@register_kernel("_foreach_op", dtypes=(float16, float32, float64), name="cpu/foreach_op")
def foreach_op(op: str, inputs: list[list[np.ndarray]], params: tuple[float, ...],
               out: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """The op ``op`` (``FOREACH_OPS``: ``add_alpha``, ``lerp``, ``addcmul``, ``addcdiv``) of each array of
    ``inputs[0]`` with its partners in the other lists and the numbers ``params``: the op's own CPU kernel,
    array by array (PyTorch's ``torch._foreach_lerp_`` and kin), so each value is the op's."""
    outs: list[np.ndarray] = []
    if not inputs[0]:
        return outs
    fn = kernels_for(op)[KernelKey(Backend.CPU, Layout.ALL_LAYOUT, from_numpy(inputs[0][0].dtype))].fn
    with np.errstate(all="ignore"):
        for i, xs in enumerate(zip(*inputs)):
            r = fn(*xs, *params)
            if out is not None:
                np.copyto(out[i], r)
                r = out[i]
            outs.append(r)
    return outs
