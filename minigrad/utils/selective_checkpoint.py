"""Selective activation checkpointing (PyTorch's ``create_selective_checkpoint_contexts``).

Plain checkpointing keeps a block's inputs and recomputes everything else in backward. Selective
checkpointing lets a policy keep some ops' outputs - the expensive matrix products, typically - and
recompute only the cheap ones (elementwise ops, softmax)::

    policy = functools.partial(create_selective_checkpoint_contexts, [mg.ops.aten.mm.default])
    y = checkpoint(block, x, use_reentrant=False, context_fn=policy)

``checkpoint`` runs the block's forward inside the first context and its recomputation inside the second.
Both are kernel modes (``kernels/api.py``, ``KERNEL_MODES``): they see every kernel call before it runs,
named as PyTorch's dispatcher names it (``mg.ops.aten``, ``ops/aten_names.py``), as PyTorch's two
``TorchDispatchMode``\\ s see every ATen call:

- forward (``_Caching``): the kernel runs; then the policy is asked about the call, and the output of a
  ``MUST_SAVE``/``PREFER_SAVE`` call is kept, keyed by the op and how many calls of it came before;
- recomputation (``_Cached``): a kept call hands back its output instead of running its kernel - once: a
  second backward through the block is refused - and every other call runs.

The grad nodes are made as usual in both runs (the modes sit below autograd): the recomputation builds
the same graph, and the saved tensors the backward needs come from it - kept ones without their kernel.
View ops (``t``, ``view``, ``transpose``...) are never kept: they cost no compute, and their output must
alias the recomputed tensor they view.

Example:
    >>> import functools
    >>> import minigrad as mg
    >>> from minigrad.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts
    >>> x, w = mg.randn(4, 4, requires_grad=True), mg.randn(4, 4, requires_grad=True)
    >>> context_fn = functools.partial(create_selective_checkpoint_contexts, [mg.ops.aten.mm.default])
    >>> y = checkpoint(lambda a: (a @ w).sin() @ w, x, use_reentrant=False, context_fn=context_fn)
    >>> y.sum().backward()
    >>> x.grad.shape
    minigrad.Size([4, 4])
"""

from __future__ import annotations

import enum
import weakref
from collections import defaultdict
from typing import Any, Callable

from ..autograd.tensor_wrapper import BEFORE_INPLACE_WRITE
from ..dtypes import from_numpy
from ..kernels.api import NOT_LAUNCHED, KernelMode, run_kernel
from ..kernels.backends import device_of_backend
from ..ops.aten_names import OpOverload, OpOverloadPacket, aten, overload_of
from ..tensor import Tensor, storage_array
from ..tracing import bus
from ..tracing.events import CheckpointSaved

__all__ = ["CheckpointPolicy", "SelectiveCheckpointContext", "SAC_IGNORED_OPS", "create_selective_checkpoint_contexts"]


class CheckpointPolicy(enum.Enum):
    """Whether a call's output is kept from the forward (``*_SAVE``) or made again in backward
    (``*_RECOMPUTE``). ``MUST_*`` and ``PREFER_*`` differ only for a compiler, which minigrad has not;
    the ``*_CPU_OFFLOAD`` ones are recomputed in eager mode, as PyTorch's are."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


_SAVE = (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE)


class SelectiveCheckpointContext:
    """What a policy is handed first: ``is_recompute`` (always False: the policy is asked in the forward
    only, as PyTorch's) and ``op_output``, the call's output (a tensor, or a tuple of them)."""

    def __init__(self, *, is_recompute: bool, op_output: Any = None) -> None:
        self.is_recompute = is_recompute
        self.op_output = op_output


#: Calls never kept (PyTorch's set: ``detach``, which checkpointing inserts a different number of times in
#: the two runs, and the device query of its determinism check)
SAC_IGNORED_OPS = {aten.detach.default, aten.device.default}

_RECOMPUTE, _CONSUMED = object(), object()
_MISMATCH = ("This can happen if the operations in the checkpointed region are nondeterministic or depend on "
             "global state that changed between forward and backward.")


def _tensors(arrays: Any, device: str) -> Any:
    """Kernel arrays as tensors for the policy to look at (shape, dtype, values)."""
    if isinstance(arrays, (tuple, list)):
        return tuple(_tensors(a, device) for a in arrays)
    return Tensor._make(arrays, from_numpy(arrays.dtype), device) if hasattr(arrays, "dtype") else arrays


class _Entry:
    """A kept output: its array(s), and whether an in-place op wrote into them since."""

    __slots__ = ("out", "mutated")

    def __init__(self, out: Any) -> None:
        self.out, self.mutated = out, False


class _Storage:
    """The kept outputs of one checkpointed call: ``{op: {index: entry or a marker}}``, and the kept arrays'
    storages, so that an in-place write into one marks its entry (``_written``)."""

    def __init__(self) -> None:
        self.calls: defaultdict[OpOverload, dict[int, Any]] = defaultdict(dict)
        self.by_array: dict[int, _Entry] = {}  # id of a kept array's storage -> its entry (which holds it)
        _LIVE.add(self)
        if _written not in BEFORE_INPLACE_WRITE:
            BEFORE_INPLACE_WRITE.append(_written)

    def keep(self, op: OpOverload, index: int, out: Any) -> None:
        entry = _Entry(out)
        self.calls[op][index] = entry
        for a in _arrays(out):
            self.by_array[id(_root(a))] = entry

    def take(self, calls: dict[int, Any], index: int, entry: _Entry) -> Any:
        """Hand back a kept output, once."""
        calls[index] = _CONSUMED
        for a in _arrays(entry.out):
            self.by_array.pop(id(_root(a)), None)
        return entry.out


#: the storages of the checkpointed calls alive now (their graphs not yet run or freed)
_LIVE: "weakref.WeakSet[_Storage]" = weakref.WeakSet()


def _written(tensor: Tensor) -> None:
    """An in-place op is about to write into ``tensor``'s storage: mark a kept output there as changed.
    Installed with the first storage, removed once none is alive."""
    if not _LIVE:
        BEFORE_INPLACE_WRITE.remove(_written)
        return
    key = id(storage_array(tensor))
    for storage in list(_LIVE):
        entry = storage.by_array.get(key)
        if entry is not None:
            entry.mutated = True


def _arrays(out: Any) -> list[Any]:
    return [a for a in (out if isinstance(out, tuple) else (out,)) if hasattr(a, "dtype")]


def _root(a: Any) -> Any:
    """The array owning ``a``'s memory (as ``storage_array`` finds a tensor's)."""
    while True:
        base = getattr(a, "base", None)
        if base is not None and not hasattr(base, "strides"):
            base = getattr(base, "base", None)
        if base is None or not hasattr(base, "strides"):
            return a
        a = base


class _Mode(KernelMode):
    """A selective checkpoint's kernel mode: the call's ``mg.ops.aten`` name."""

    @staticmethod
    def _name(op: Any, kernel: Any, arrays: Any, attrs: Any) -> tuple[OpOverload, str]:
        device = device_of_backend(kernel.key.backend)
        return overload_of(op.name, arrays, attrs or {}, device), device


class _Caching(_Mode):
    """The forward: run each call, ask the policy, keep the output of a call to save."""

    def __init__(self, policy_fn: Callable[..., Any], storage: _Storage) -> None:
        self.policy_fn, self.storage = policy_fn, storage
        self.counts: defaultdict[OpOverload, int] = defaultdict(int)

    def __call__(self, op: Any, kernel: Any, arrays: Any, attrs: Any, meta: Any) -> Any:
        name, device = self._name(op, kernel, arrays, attrs)
        out = run_kernel(op, kernel, arrays, attrs, meta)
        if name in SAC_IGNORED_OPS:
            return out
        index = self.counts[name]
        self.counts[name] += 1
        policy = self.policy_fn(SelectiveCheckpointContext(is_recompute=False, op_output=_tensors(out, device)),
                                name, *_tensors(tuple(arrays), device), **(attrs or {}))
        if isinstance(policy, bool):  # PyTorch's older form: True keeps
            policy = CheckpointPolicy.MUST_SAVE if policy else CheckpointPolicy.PREFER_RECOMPUTE
        if policy in _SAVE and not op.view:
            self.storage.keep(name, index, out)
            _announce(op, name, out, "keep")
        else:
            self.storage.calls[name][index] = _RECOMPUTE
        return out


class _Cached(_Mode):
    """The recomputation: a kept call hands back its output (once); the others run."""

    def __init__(self, storage: _Storage, allow_cache_entry_mutation: bool) -> None:
        self.storage, self.allow_mutation = storage, allow_cache_entry_mutation
        self.counts: defaultdict[OpOverload, int] = defaultdict(int)

    def __enter__(self) -> KernelMode:
        self.counts.clear()  # (a second backward then meets the "extra time" refusal, as PyTorch's)
        return super().__enter__()

    def __call__(self, op: Any, kernel: Any, arrays: Any, attrs: Any, meta: Any) -> Any:
        name, _device = self._name(op, kernel, arrays, attrs)
        if name in SAC_IGNORED_OPS:
            return run_kernel(op, kernel, arrays, attrs, meta)
        index = self.counts[name]
        self.counts[name] += 1
        calls = self.storage.calls.get(name)
        if calls is None:
            raise RuntimeError(f"{name} encountered during backward but not found in storage. {_MISMATCH}")
        entry = calls.get(index)
        if entry is None:
            raise RuntimeError(f"{name} invocation index {index} encountered during backward but not found in "
                               f"storage. {_MISMATCH}")
        if entry is _CONSUMED:
            raise RuntimeError("Trying to backward an extra time. You are only allowed to backward once on any "
                               "region computed under selective activation checkpoint.")
        if entry is _RECOMPUTE:
            return run_kernel(op, kernel, arrays, attrs, meta)
        if entry.mutated and not self.allow_mutation:
            raise RuntimeError("Tensor cached during selective activation checkpoint has been mutated")
        if bus.recorder is not None:
            NOT_LAUNCHED[0] = True
            _announce(op, name, entry.out, "reuse")
        return self.storage.take(calls, index, entry)


def _announce(op: Any, name: OpOverload, out: Any, use: str) -> None:
    rec = bus.recorder
    if rec is not None:
        rec.emit(CheckpointSaved.new(op=op.name, aten=str(name), bytes=sum(int(a.nbytes) for a in _arrays(out)),
                                     use=use))


def create_selective_checkpoint_contexts(policy_fn_or_list: Any,
                                         allow_cache_entry_mutation: bool = False) -> tuple[_Mode, _Mode]:
    """The two contexts ``checkpoint(..., context_fn=...)`` runs the forward and the recomputation in.

    Args:
        policy_fn_or_list: ``policy_fn(ctx, op, *args, **kwargs) -> CheckpointPolicy`` (or a bool: True
            keeps), asked after each call of the forward with its ``mg.ops.aten`` overload, its input
            tensors and attributes; or a list of overloads to keep (``MUST_SAVE``), every other call
            recomputed.
        allow_cache_entry_mutation: let the backward use a kept output that an in-place op changed since
            (by default that is refused).

    Returns:
        ``(forward context, recomputation context)``.
    """
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not isinstance(op, OpOverload):
                extra = ("Please update the OpOverloadPacket to a specific OpOverload.For example, if you have "
                         "`torch.ops.aten.mm`, change it to `torch.ops.aten.mm.default`."
                         if isinstance(op, OpOverloadPacket) else "")
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got: {op} of type {type(op)}. "
                                 f"{extra}")
        ops = list(policy_fn_or_list)

        def policy_fn(ctx: Any, op: Any, *args: Any, **kwargs: Any) -> CheckpointPolicy:
            return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    storage = _Storage()
    return _Caching(policy_fn, storage), _Cached(storage, allow_cache_entry_mutation)
