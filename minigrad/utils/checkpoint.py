"""Activation checkpointing (PyTorch's ``torch.utils.checkpoint``).

``checkpoint(fn, *args, use_reentrant=...)`` runs ``fn`` without keeping the
tensors its ops would save for backward; when backward needs them, ``fn`` runs
again, inside the backward pass, from the same inputs and the same random
state (dropout draws the same mask). Memory for compute: a checkpointed block
keeps only its inputs.

Two ways, as PyTorch:

- ``use_reentrant=True``: ``fn`` runs under ``no_grad`` inside a custom
  ``autograd.Function`` (``CheckpointFunction``) that saves the inputs. Its
  backward runs ``fn`` again with recording on and then a backward pass of its
  own through the new graph (a backward inside the backward). Gradients reach
  only tensors that are inputs of ``fn`` or reached through one that requires
  grad: with no input requiring grad, the parameters inside get none.
- ``use_reentrant=False``: ``fn`` runs with recording on under
  ``saved_tensors_hooks`` whose pack hook keeps a placeholder instead of each
  saved tensor. The first unpack in a backward pass runs ``fn`` again with
  hooks that collect what its ops save (stopping as soon as every placeholder
  is filled) and hands each node its tensor.

The recomputation is ordinary recorded ops, between a ``recompute.begin`` and
a ``recompute.end`` event naming the grad node that asked for it.

Example:
    >>> import minigrad as mg
    >>> from minigrad.utils.checkpoint import checkpoint
    >>> x = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> y = checkpoint(lambda t: (t * t).sin(), x, use_reentrant=False)
    >>> y.sum().backward()
    >>> [round(g, 4) for g in x.grad.tolist()]
    [1.0806, -2.6146]
"""

from __future__ import annotations

import contextlib as _contextlib
import warnings as _warnings
import weakref as _weakref
from typing import Any as _Any, Callable as _Callable, Iterator as _Iterator

from ..autograd import backward as _backward, engine as _engine
from ..autograd.function import Function as _Function
from ..autograd.graph import saved_tensors_hooks as _saved_tensors_hooks
from ..autograd.grad_mode import enable_grad as _enable_grad, is_grad_enabled as _is_grad_enabled
from ..autograd.grad_mode import no_grad as _no_grad
from ..autograd.tensor_wrapper import UNPACKING_FOR as _UNPACKING_FOR
from ..random import default_generator as _generator
from ..nn import Sequential as _Sequential
from ..tensor import Tensor as _Tensor
from ..tracing import bus as _bus
from ..tracing.events import RecomputeBegin as _RecomputeBegin, RecomputeEnd as _RecomputeEnd
from .. import cuda as _cuda
from .._pytree import tree_flatten as _tree_flatten
from .checkpoint_debug import debug_contexts as _debug_contexts
from .selective_checkpoint import (SAC_IGNORED_OPS, CheckpointPolicy, SelectiveCheckpointContext,  # noqa: F401
                                   create_selective_checkpoint_contexts)

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "check_backward_validity",
           "detach_variable", "noop_context_fn", "set_checkpoint_early_stop", "CheckpointPolicy",
           "SelectiveCheckpointContext", "SAC_IGNORED_OPS", "create_selective_checkpoint_contexts",
           "set_checkpoint_debug_enabled", "DefaultDeviceType", "get_device_states", "set_device_states"]


class CheckpointError(RuntimeError):
    """The recomputed forward saved different tensors than the original one."""


_DEBUG_TIP = (
    "\nTip: the recomputation must run the same ops on tensors of the same shapes and dtypes as the "
    "original forward: a checkpointed function may not depend on state that changes between the two runs."
)


def _fn_name(fn: _Any) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


class _Recompute:
    """Marks the events of a recomputation (``recompute.begin`` ... ``recompute.end``) and
    replays the random state of the original forward, restoring the current one after."""

    def __init__(self, node: _Any, fn: _Any, mode: str, rng_state: _Any) -> None:
        self.node_id = node.id if node is not None else -1
        self.fn_name = _fn_name(fn)
        self.mode = mode
        self.rng_state = rng_state
        self.saved_state: _Any = None

    def __enter__(self) -> None:
        rec = _bus.recorder
        if rec is not None:
            rec.emit(_RecomputeBegin.new(node=self.node_id, function=self.fn_name, mode=self.mode))
        if self.rng_state is not None:
            self.saved_state = _generator.get_state()
            _generator.set_state(self.rng_state)

    def __exit__(self, *exc: object) -> None:
        if self.rng_state is not None:
            _generator.set_state(self.saved_state)
        rec = _bus.recorder
        if rec is not None:
            rec.emit(_RecomputeEnd.new(node=self.node_id))


def check_backward_validity(inputs: _Any) -> None:
    """Warn when no tensor among ``inputs`` requires grad (the reentrant checkpoint's check)."""
    if not any(a.requires_grad for a in inputs if isinstance(a, _Tensor)):
        _warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def detach_variable(inputs: tuple[_Any, ...]) -> tuple[_Any, ...]:
    """The tensors of a tuple cut from their history, each requiring grad as before; other items as they are."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    return tuple(a.detach().requires_grad_(a.requires_grad) if isinstance(a, _Tensor) else a for a in inputs)


def noop_context_fn() -> tuple[_Any, _Any]:
    """The default ``context_fn`` of ``checkpoint``: no context around the forward nor the recomputation."""
    return _contextlib.nullcontext(), _contextlib.nullcontext()


_EARLY_STOP: list[bool | None] = [None]
_DEBUG: list[bool | None] = [None]


@_contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> _Iterator[None]:
    """Inside it, non-reentrant checkpoints run with ``debug=enabled`` whatever their own argument says
    (``None``: each its own)."""
    previous = _DEBUG[0]
    _DEBUG[0] = enabled
    try:
        yield
    finally:
        _DEBUG[0] = previous


class DefaultDeviceType:
    """The device type whose random state checkpointing saves when the inputs name none: ``"cuda"`` with
    minigrad's GPU, else ``"cpu"`` (PyTorch's current accelerator's)."""

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        if not DefaultDeviceType._default_device_type:
            DefaultDeviceType._default_device_type = "cuda" if _cuda.is_available() else "cpu"
        return DefaultDeviceType._default_device_type


def get_device_states(*args: _Any) -> tuple[list[int], list[_Any]]:
    """The GPU indices of the tensors among ``args`` (nested in lists, tuples, dicts) and the GPU generator's
    state for each: what a recomputation sets back so that its draws on the device are the forward's."""
    ids = [t.get_device() for t in _tree_flatten(args)[0] if isinstance(t, _Tensor) and t.is_cuda]
    return ids, [_cuda.get_rng_state() for _ in ids]


def set_device_states(devices: _Any, states: _Any, *, device_type: str | None = None) -> None:
    """Set back the GPU generator's states ``get_device_states`` gave (``device_type`` ``"cpu"``/``"meta"``:
    nothing to set)."""
    device_type = DefaultDeviceType.get_device_type() if device_type is None else device_type
    if device_type in ("cpu", "meta"):
        return
    for _device, state in zip(devices, states):
        _cuda.set_rng_state(state)


@_contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> _Iterator[None]:
    """Inside it, non-reentrant checkpoints stop (or not) their recomputation early, whatever
    their ``early_stop`` argument says."""
    previous = _EARLY_STOP[0]
    _EARLY_STOP[0] = enable
    try:
        yield
    finally:
        _EARLY_STOP[0] = previous


def _detach_inputs(inputs: list[_Any], requires_grad: list[bool]) -> tuple[_Any, ...]:
    """Inputs cut from their history, each requiring grad as it did in the forward (the
    recovered saved tensors have no history, so ``detach_variable``'s flags come from the forward)."""
    return tuple(a.detach().requires_grad_(r) if isinstance(a, _Tensor) else a for a, r in zip(inputs, requires_grad))


class CheckpointFunction(_Function):
    """The reentrant checkpoint: ``forward`` runs ``run_function`` under ``no_grad`` and
    saves the inputs; ``backward`` runs it again with recording on and backpropagates
    through the new graph (see the module docstring)."""

    @staticmethod
    def forward(ctx: _Any, run_function: _Callable[..., _Any], preserve_rng_state: bool, *args: _Any) -> _Any:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.fwd_rng_state = _generator.get_state() if preserve_rng_state else None
        ctx.inputs = [None if isinstance(a, _Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, _Tensor)]
        ctx.requires_grad = [isinstance(a, _Tensor) and a.requires_grad for a in args]
        ctx.save_for_backward(*(a for a in args if isinstance(a, _Tensor)))
        with _no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: _Any, *grads: _Any) -> _Any:
        if _engine.RUNNING_PASSES and _engine.RUNNING_PASSES[-1][1]:
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
                "`inputs` parameter to .backward(). To resolve this error, you can either set "
                "use_reentrant=False, or call .backward() without passing the `inputs` argument."
            )
        inputs = list(ctx.inputs)
        for idx, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[idx] = t
        node = ctx._running[0] if ctx._running is not None else None
        detached = _detach_inputs(inputs, ctx.requires_grad)
        with _Recompute(node, ctx.run_function, "reentrant", ctx.fwd_rng_state), _enable_grad():
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, _Tensor):
            outputs = (outputs,)
        with_grad = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, _Tensor) and o.requires_grad]
        if not with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _backward([o for o, _ in with_grad], [g for _, g in with_grad])
        return (None, None) + tuple(a.grad if isinstance(a, _Tensor) else None for a in detached)


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once every saved tensor is made again."""


class _Holder:
    """What the pack hook keeps for one saved tensor: per backward pass, its recomputed value."""

    __slots__ = ("values", "__weakref__")

    def __init__(self) -> None:
        self.values: dict[int, _Any] = {}


def _metadata(t: _Tensor) -> dict[str, _Any]:
    return {"shape": tuple(t.shape), "dtype": t.dtype, "device": t.device}


class _Frame:
    """One non-reentrant checkpoint call: its inputs, a weak reference per saved tensor,
    and the recomputed values per backward pass."""

    def __init__(self, fn: _Callable[..., _Any], args: tuple[_Any, ...], kwargs: dict[str, _Any],
                 rng_state: _Any, early_stop: bool, check: bool, recompute_context: _Any = None) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.recompute_context = recompute_context  # (context_fn's second context; None: nothing)
        self.explain: _Any = None  # debug=True: makes a CheckpointError list both runs' operators
        self.rng_state = rng_state
        self.early_stop = early_stop
        self.check = check
        self.holders: list[_weakref.ref] = []
        self.metadata: list[dict[str, _Any]] = []
        self.recomputed: set[int] = set()
        self.counter = 0

    def checkpoint_pack(self, t: _Tensor) -> _Holder:
        holder = _Holder()
        self.holders.append(_weakref.ref(holder))
        self.metadata.append(_metadata(t))
        return holder

    def checkpoint_unpack(self, holder: _Holder) -> _Tensor:
        pass_id = _engine.RUNNING_PASSES[-1][0] if _engine.RUNNING_PASSES else -id(holder)
        if pass_id not in self.recomputed:
            self._recompute(pass_id)
        if pass_id not in holder.values or holder.values[pass_id] is None:
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once. "
                "If you are calling ctx.saved_tensors in backward, make sure to do so only once. Otherwise please "
                "open an issue with details on your use case."
            )
        value = holder.values[pass_id]
        holder.values[pass_id] = None
        return value

    def _recompute(self, pass_id: int) -> None:
        self.counter = 0
        node = _UNPACKING_FOR[-1] if _UNPACKING_FOR else None
        hooks = _saved_tensors_hooks(lambda t: self._collect(t, pass_id), lambda t: t)
        try:
            try:
                with _Recompute(node, self.fn, "non_reentrant", self.rng_state), hooks, _enable_grad(), \
                        self.recompute_context or _contextlib.nullcontext():
                    self.fn(*self.args, **self.kwargs)
            except _StopRecomputation:
                pass
            self.recomputed.add(pass_id)
            self._check_match(pass_id)
        except CheckpointError as error:
            if self.explain is None:
                raise
            raise self.explain(error) from error  # (debug=True: both runs' operators, checkpoint_debug.py)

    def _collect(self, t: _Tensor, pass_id: int) -> _Tensor:
        t = t.detach() if t.requires_grad else t
        idx = self.counter
        self.counter += 1
        if idx >= len(self.holders):
            raise CheckpointError(
                "torch.utils.checkpoint: trying to save more tensors during recomputation than during the "
                "original forward pass.\n" + _DEBUG_TIP
            )
        holder = self.holders[idx]()
        if holder is not None:
            holder.values[pass_id] = t
        if self.early_stop and self.counter == len(self.holders):
            raise _StopRecomputation
        return t

    def _check_match(self, pass_id: int) -> None:
        if not self.check:
            return
        if self.counter != len(self.holders):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward "
                f"and recomputation.\nNumber of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {self.counter}.\n" + _DEBUG_TIP
            )
        different = ""
        for idx, ref in enumerate(self.holders):
            holder = ref()
            if holder is None or holder.values.get(pass_id) is None:
                continue
            now = _metadata(holder.values[pass_id])
            if now != self.metadata[idx]:
                different += (f"tensor at position {idx}:\nsaved metadata: {self.metadata[idx]}\n"
                              f"recomputed metadata: {now}\n")
        if different:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata "
                f"than during the forward pass.\n{different}.\n" + _DEBUG_TIP
            )


_DETERMINISM_CHECKS = ("default", "none")


def _checkpoint_without_reentrant(fn: _Callable[..., _Any], preserve: bool, determinism_check: str,
                                  early_stop: bool, args: tuple[_Any, ...], kwargs: dict[str, _Any],
                                  context_fn: _Callable[[], _Any] = noop_context_fn, debug: bool = False) -> _Any:
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(
            f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, but got {determinism_check}"
        )
    if not _is_grad_enabled():
        return fn(*args, **kwargs)
    rng_state = _generator.get_state() if preserve else None
    if _EARLY_STOP[0] is not None:
        early_stop = _EARLY_STOP[0]
    explain = None
    if _DEBUG[0] if _DEBUG[0] is not None else debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        contexts, explain = _debug_contexts()
        context_fn = lambda: contexts  # noqa: E731
    forward_context, recompute_context = context_fn()
    frame = _Frame(fn, args, kwargs, rng_state, early_stop, determinism_check == "default", recompute_context)
    frame.explain = explain
    with _saved_tensors_hooks(frame.checkpoint_pack, frame.checkpoint_unpack), forward_context:
        return fn(*args, **kwargs)


def checkpoint(function: _Callable[..., _Any], *args: _Any, use_reentrant: bool | None = None,
               context_fn: _Callable[[], _Any] = noop_context_fn, determinism_check: str = "default",
               debug: bool = False, early_stop: bool = True, **kwargs: _Any) -> _Any:
    """Run ``function(*args)`` keeping only its inputs for backward; backward runs it again.

    Args:
        function: the block to checkpoint (a module or any callable).
        *args: its arguments.
        use_reentrant: which implementation (see the module docstring). Pass it
            explicitly: leaving it out warns, as PyTorch does, and picks ``True``.
        preserve_rng_state: (keyword) replay the random state of the forward in the
            recomputation, so dropout draws the same mask (default ``True``).
        context_fn: returns two context managers: the forward runs inside the first, the
            recomputation inside the second (non-reentrant only); selective checkpointing's come
            from ``create_selective_checkpoint_contexts`` (``utils/selective_checkpoint.py``).
        determinism_check: ``"default"`` compares the shape, dtype and device of each
            recomputed saved tensor with the original; ``"none"`` skips it.
        debug: (non-reentrant only) a recomputation that saves other tensors than the forward raises
            a ``CheckpointError`` listing both runs' operators with the program's line of each
            (``utils/checkpoint_debug.py``); ``set_checkpoint_debug_enabled`` overrides it.
        early_stop: stop the recomputation once every saved tensor is made again.
        **kwargs: keyword arguments of ``function`` (non-reentrant only).

    Returns:
        What ``function`` returns.
    """
    if use_reentrant is None:
        _warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
            "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False "
            "is recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, determinism_check, early_stop, args, kwargs, context_fn,
                                         debug)


def checkpoint_sequential(functions: _Any, segments: int, input: _Any, use_reentrant: bool | None = None,
                          **kwargs: _Any) -> _Any:
    """Run a sequence of modules in ``segments`` chunks, checkpointing all chunks but the last.

    Args:
        functions: an ``nn.Sequential`` or a list of callables run one after the other.
        segments: how many chunks (each ``len(functions) // segments`` long; the last
            takes the rest and runs without checkpoint).
        input: the first function's input.
        use_reentrant: as for ``checkpoint`` (leaving it out warns and picks ``True``).
        preserve_rng_state: (keyword) as for ``checkpoint``.
    """
    if use_reentrant is None:
        _warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
            "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
            "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
            "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
            "two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start: int, end: int, functions: _Any) -> _Callable[[_Any], _Any]:
        def forward(x: _Any) -> _Any:
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    if isinstance(functions, _Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    return sorted({*__all__, *(n for n in globals() if n.startswith("__"))})
