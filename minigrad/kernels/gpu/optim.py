"""GPU kernels of the optimizers' foreach and fused forms (``optim_src.py``), launched with CuPy.

The CPU kernels of the same names are NumPy (``minigrad/optim/update.py``, ``sgd.py``, ``adam.py``);
these take the same arguments. A launch carries up to ``SLOTS`` tensors: each slot's pointers and
size, and the rule's scalars, are kernel arguments by value, so a step uploads nothing and asks the
device nothing. Unused slots repeat the first slot's pointers with size 0 (the grid never reaches them).
"""

from __future__ import annotations

import functools
from typing import Any

import cupy
import numpy as np

from ...dtypes import float16, float32, float64
from ..key import Backend
from ..registry import register_kernel
from . import optim_src as src
from ._runtime import dtype_name, function

GPU = Backend.GPU
_DTYPES = (float16, float32, float64)
_THREADS = 256
#: blocks per slot at most (a grid-stride loop covers the rest)
_MAX_BLOCKS = 1024

__all__ = ["launch_slots", "foreach_unary", "foreach_binary", "foreach_op", "foreach_norm", "fused_sgd", "fused_adam",
           "amp_unscale", "amp_update_scale"]


def launch_slots(fn: Any, slots: list[tuple[Any, ...]], tail: tuple[Any, ...]) -> None:
    """Launch ``fn`` over ``slots`` (each: its arrays), ``SLOTS`` per launch, then the scalars ``tail``."""
    slots = [s for s in slots if s[0].size]  # an empty tensor has nothing to update
    for start in range(0, len(slots), src.SLOTS):
        chunk = slots[start:start + src.SLOTS]
        args: list[Any] = []
        for s in chunk:
            args += [*s, np.int64(s[0].size)]
        args += [*chunk[0], np.int64(0)] * (src.SLOTS - len(chunk))
        longest = max(s[0].size for s in chunk)
        blocks = max(1, min(-(-longest // _THREADS), _MAX_BLOCKS))
        fn((blocks, len(chunk)), (_THREADS,), (*args, *tail))


def _outs(xs: list[Any]) -> list[Any]:
    """A new array per array of ``xs`` (each contiguous, as every multi-tensor operand is: the kernels index
    them flat), by the ``ndarray`` constructor: ``cupy.empty_like``'s own Python costs about 2 us more a call,
    and a foreach step of Adam allocates about 8 arrays per parameter."""
    return [cupy.ndarray(x.shape, x.dtype) for x in xs]


def _mt(op: str, form: str, dtype: Any) -> Any:
    dt = dtype_name(dtype)
    return function(f"mt_{op}_{form}_{dt}", lambda: src.mt_source(op, form, dt), src.kernel_name("mt", op, dt, form),
                    src.OP_OPTIONS if form == "op" else src.OPTIONS)


@register_kernel("_foreach_unary", GPU, dtypes=_DTYPES, name="gpu/foreach_unary")
def foreach_unary(op: str, xs: list[Any], out: list[Any] | None = None) -> list[Any]:
    """``op`` (neg, sqrt, abs, copy, reciprocal) of every array, ``SLOTS`` arrays per launch."""
    out = out if out is not None else _outs(xs)
    if xs:
        launch_slots(_mt(op, "t", xs[0].dtype), [(o, x) for o, x in zip(out, xs)], ())
    return out


@register_kernel("_foreach_binary", GPU, dtypes=_DTYPES, name="gpu/foreach_binary")
def foreach_binary(op: str, xs: list[Any], ys: Any, out: list[Any] | None = None) -> list[Any]:
    """``op`` (add, sub, mul, div, maximum) of every array with its partner in ``ys``, or with the
    number ``ys`` (a kernel argument, rounded to the dtype in the kernel as NumPy rounds it)."""
    out = out if out is not None else _outs(xs)
    if not xs:
        return out
    if isinstance(ys, list):
        launch_slots(_mt(op, "tt", xs[0].dtype), [(o, x, y) for o, x, y in zip(out, xs, ys)], ())
    elif isinstance(ys, cupy.ndarray):  # a 0-d device tensor: its value read by the kernel, not by the host
        launch_slots(_mt(op, "tp", xs[0].dtype), [(o, x) for o, x in zip(out, xs)], (ys.astype(xs[0].dtype, copy=False),))
    else:
        launch_slots(_mt(op, "ts", xs[0].dtype), [(o, x) for o, x in zip(out, xs)], (np.float64(ys),))
    return out


@register_kernel("_foreach_op", GPU, dtypes=_DTYPES, name="gpu/foreach_op")
def foreach_op(op: str, inputs: list[list[Any]], params: tuple[float, ...], out: list[Any] | None = None) -> list[Any]:
    """The op ``op`` (``add_alpha``, ``lerp``, ``addcmul``, ``addcdiv``) of each array of ``inputs[0]`` with its
    partners in the other lists and the numbers ``params`` (by value): the op's own expression, ``SLOTS``
    arrays per launch (PyTorch's ``torch._foreach_lerp_`` and kin)."""
    xs = inputs[0]
    out = out if out is not None else _outs(xs)
    if xs:
        numbers = tuple(np.float64(v) for v in params) + (np.float64(0.0),) * (3 - len(params))
        launch_slots(_mt(op, "op", xs[0].dtype), [(o, *ins) for o, *ins in zip(out, *inputs)], numbers)
    return out


@register_kernel("_foreach_norm", GPU, dtypes=_DTYPES, name="gpu/foreach_norm")
def foreach_norm(xs: list[Any]) -> Any:
    """The 2-norm of every array (PyTorch's ``torch._foreach_norm``), as one 1-d array in their dtype: each
    block's sum of squares (``sumsq_source``, ``SLOTS`` arrays per launch), the blocks of each array added up
    (one reduction), the square roots (one launch)."""
    dt = xs[0].dtype
    acc = np.float64 if dt == np.float64 else np.float32
    longest = max(x.size for x in xs)
    blocks = max(1, min(-(-longest // _THREADS), _MAX_BLOCKS))
    partial = cupy.empty((len(xs), blocks), dtype=acc)
    fn = function(f"mt_sumsq_r_{dtype_name(dt)}", lambda: src.sumsq_source(dtype_name(dt)),
                  src.kernel_name("mt", "sumsq", dtype_name(dt), "r"), src.OPTIONS)
    for start in range(0, len(xs), src.SLOTS):
        chunk = xs[start:start + src.SLOTS]
        args: list[Any] = []
        for x in chunk:
            args += [x, np.int64(x.size)]
        args += [chunk[0], np.int64(0)] * (src.SLOTS - len(chunk))
        fn((blocks, len(chunk)), (_THREADS,), (*args, partial[start:start + len(chunk)]))
    return cupy.sqrt(partial.sum(axis=1)).astype(dt, copy=False)


def _scalar_args(scalars: tuple[Any, ...]) -> tuple[Any, ...]:
    """The rule's scalars as the kernel declares them: flags ``int``, numbers ``double``."""
    return tuple(np.int32(v) if isinstance(v, bool) else np.float64(v) for v in scalars)


def _fused(rule: str, dtype: Any) -> Any:
    dt = dtype_name(dtype)
    return function(f"fused_{rule}_{dt}", lambda: src.fused_source(rule, dt), src.kernel_name("fused", rule, dt),
                    src.OPTIONS)


@functools.cache
def _nowhere() -> Any:
    """A float32 the fused kernels are pointed at for an absent scale or flag (never read)."""
    return cupy.empty((1,), dtype=np.float32)


def _amp_args(grad_scale: Any, found_inf: Any) -> tuple[Any, ...]:
    """A GradScaler's scale and flag (float32 device scalars, each possibly None) as a fused kernel takes them:
    two pointers, then whether each is given."""
    absent = grad_scale if grad_scale is not None else found_inf if found_inf is not None else _nowhere()
    return (absent if grad_scale is None else grad_scale, absent if found_inf is None else found_inf,
            np.int32(grad_scale is not None), np.int32(found_inf is not None))


@register_kernel("_fused_sgd_", GPU, dtypes=_DTYPES, name="gpu/fused_sgd")
def fused_sgd(params: list[Any], grads: list[Any], momentum_buffers: list[Any] | None, grad_scale: Any,
              found_inf: Any, first: bool, *scalars: Any) -> None:
    """SGD's whole rule (``sgd_rule``) per element, ``SLOTS`` parameters per launch; a GradScaler's flag and
    scale read on the device (NOTE [ A fused step reads the scaler's flag on the device ] in
    ``minigrad/optim/update.py``)."""
    bufs = momentum_buffers if momentum_buffers is not None else params  # unread without momentum
    launch_slots(_fused("sgd", params[0].dtype), list(zip(params, grads, bufs)),
                 (*_amp_args(grad_scale, found_inf), *_scalar_args((first, *scalars))))


@register_kernel("_fused_adam_", GPU, dtypes=_DTYPES, name="gpu/fused_adam")
def fused_adam(params: list[Any], grads: list[Any], exp_avgs: list[Any], exp_avg_sqs: list[Any],
               max_exp_avg_sqs: list[Any] | None, state_steps: list[Any], grad_scale: Any, found_inf: Any,
               *numbers: Any, counts_upto: int = 0) -> None:
    """Adam's and AdamW's whole rule (``adam_rule``) per element, ``SLOTS`` parameters per launch (the moments
    zeros before the first step); each slot's bias corrections from its float32 step count, read on the device
    (``_bias_table``: no step count above ``counts_upto``), and a GradScaler's flag and scale too (NOTE [ A fused
    step reads the scaler's flag on the device ] in ``minigrad/optim/update.py``)."""
    maxes = max_exp_avg_sqs if max_exp_avg_sqs is not None else exp_avg_sqs  # unread without amsgrad
    bias = _bias_table(numbers[1], numbers[2], counts_upto)
    launch_slots(_fused("adam", params[0].dtype), list(zip(params, grads, exp_avgs, exp_avg_sqs, maxes, state_steps)),
                 (*_amp_args(grad_scale, found_inf), bias, np.int64(bias.size // 2), *_scalar_args(numbers)))


#: (beta1, beta2) -> the device's table of Adam's bias corrections
_BIAS: dict[tuple[float, float], Any] = {}


def _bias_table(beta1: float, beta2: float, upto: int) -> Any:
    """``1 - beta1**t`` and ``(1 - beta2**t) ** 0.5`` for t = 1, 2, ... past ``upto``, as a (t, 2) float64 device array.

    Computed on the host by Python's ``pow``, as PyTorch's for-loop computes them, so the fused kernel's
    numbers are the for-loop's bit for bit (the device's ``pow`` differs from the host's in a last bit now and
    then). Uploaded once per 4096 steps or more, and again when the betas change: not a copy a steady step makes.
    """
    table = _BIAS.get((beta1, beta2))
    if table is None or table.shape[0] < upto:
        n = max(4096, 2 * upto)
        host = np.array([(1 - beta1 ** float(t), (1 - beta2 ** float(t)) ** 0.5) for t in range(1, n + 1)])
        table = _BIAS[(beta1, beta2)] = cupy.asarray(host)
    return table


# -- GradScaler's two kernels: the scale stays on the device ----------------------------------------------


@register_kernel("_amp_foreach_non_finite_check_and_unscale_", GPU, dtypes=_DTYPES, name="gpu/amp_unscale")
def amp_unscale(grads: list[Any], found_inf: Any, inv_scale: Any) -> None:
    """Every gradient times ``inv_scale`` (a float32 device scalar) in place, ``found_inf`` set to 1 where one
    holds a NaN or an infinity (``unscale_source``); ``SLOTS`` gradients per launch, nothing read on the host."""
    dt = dtype_name(grads[0].dtype)
    fn = function(f"mt_unscale_a_{dt}", lambda: src.unscale_source(dt), src.kernel_name("mt", "unscale", dt, "a"),
                  src.OPTIONS)
    launch_slots(fn, [(g,) for g in grads], (found_inf, inv_scale))


@register_kernel("_amp_update_scale_", GPU, dtypes=(float32,), name="gpu/amp_update_scale")
def amp_update_scale(scale: Any, growth_tracker: Any, found_inf: Any, growth_factor: float, backoff_factor: float,
                     growth_interval: int) -> None:
    """The next scale and growth count, written in place on the device (``update_scale_source``: one thread)."""
    fn = function("ampscale_update", src.update_scale_source, src.UPDATE_SCALE, src.OPTIONS)
    fn((1,), (1,), (scale, growth_tracker, found_inf, np.float64(growth_factor), np.float64(backoff_factor),
                    np.int32(growth_interval)))
