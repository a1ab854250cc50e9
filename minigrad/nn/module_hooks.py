"""Module hooks (PyTorch's ``nn.Module`` hooks): forward pre-hooks, forward hooks, and full backward
(pre-)hooks, registered on a module and run by its ``__call__``.

A module call with hooks runs, in PyTorch's order:

1. forward pre-hooks ``hook(module, args) -> None | new args``;
2. with backward hooks: the tensor arguments pass through an identity
   ``BackwardHookFunction`` (one ordinary grad node), so their gradients
   meet at one node when backward reaches the module's inputs;
3. ``forward``;
4. forward hooks ``hook(module, args, output) -> None | new output``;
5. with backward hooks: the output tensors pass through a second identity node.

NOTE [ Module backward hooks are engine hooks ] The two identity nodes carry
ordinary gradient hooks (``GradNode.add_hook``), so the engine runs them - and
a recorder shows them as ``hook.run`` events - like any tensor hook. On the
output node they collect ``grad_output`` and run the backward *pre*-hooks
(``hook(module, grad_output) -> None | new grad_output``); on the input node
they collect ``grad_input`` and run the backward hooks
(``hook(module, grad_input, grad_output) -> None | new grad_input``). Each
node's hooks run together, before its formula; the identity formula then
passes on the gradients the user's hooks returned. When no input requires
grad, the backward hooks run from the output node with ``grad_input`` all
``None``, as in PyTorch.

Example:
    >>> import minigrad as mg
    >>> lin = mg.nn.Linear(2, 1)
    >>> seen = []
    >>> h = lin.register_full_backward_hook(lambda m, gi, go: seen.append((len(gi), go[0].shape)))
    >>> x = mg.ones(3, 2, requires_grad=True)
    >>> lin(x).sum().backward()
    >>> seen
    [(1, minigrad.Size([3, 1]))]
    >>> h.remove()
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator, MutableMapping
from typing import Any, Callable

from ..autograd.function import Function, FunctionCtx
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor

__all__ = ["ModuleHooks", "HookHandle", "HookView", "BackwardHookFunction", "call_with_hooks"]

_ids = itertools.count()


class HookHandle:
    """Returned by a module's ``register_*hook``; ``.remove()`` unregisters the hook."""

    __slots__ = ("_hooks", "id")

    def __init__(self, hooks: list[tuple[Any, ...]], hook_id: int) -> None:
        self._hooks, self.id = hooks, hook_id

    def remove(self) -> None:
        self._hooks[:] = [h for h in self._hooks if h[0] != self.id]

    def __enter__(self) -> "HookHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class HookView(MutableMapping):
    """One kind of a module's hooks as PyTorch shows them, ``module._forward_pre_hooks``: an ordered mapping of
    hook id to hook, in the order they run. ``del view[id]`` unregisters (``nn.utils.prune.remove`` does)."""

    def __init__(self, hooks: list[tuple[int, Callable[..., Any], dict[str, bool]]]) -> None:
        self._list = hooks

    def __getitem__(self, hook_id: int) -> Callable[..., Any]:
        for k, fn, _ in self._list:
            if k == hook_id:
                return fn
        raise KeyError(hook_id)

    def __setitem__(self, hook_id: int, fn: Callable[..., Any]) -> None:
        for i, (k, _, options) in enumerate(self._list):
            if k == hook_id:
                self._list[i] = (k, fn, options)
                return
        self._list.append((hook_id, fn, {}))

    def __delitem__(self, hook_id: int) -> None:
        kept = [h for h in self._list if h[0] != hook_id]
        if len(kept) == len(self._list):
            raise KeyError(hook_id)
        self._list[:] = kept

    def __iter__(self) -> Iterator[int]:
        return iter([k for k, _, _ in self._list])

    def __len__(self) -> int:
        return len(self._list)

    def __repr__(self) -> str:
        return f"OrderedDict({[(k, fn) for k, fn, _ in self._list]!r})" if self._list else "OrderedDict()"


class ModuleHooks:
    """A module's hooks, each list of ``(id, fn, options)`` in the order they run."""

    __slots__ = ("forward_pre", "forward", "backward_pre", "backward",
                 "state_dict_pre", "state_dict", "load_state_dict_pre", "load_state_dict_post")

    def __init__(self) -> None:
        self.forward_pre: list[tuple[int, Callable[..., Any], dict[str, bool]]] = []
        self.forward: list[tuple[int, Callable[..., Any], dict[str, bool]]] = []
        self.backward_pre: list[tuple[int, Callable[..., Any], dict[str, bool]]] = []
        self.backward: list[tuple[int, Callable[..., Any], dict[str, bool]]] = []
        # state_dict's and load_state_dict's hooks (``module_state.py``), which no forward or backward reads
        self.state_dict_pre: list[tuple[int, Callable[..., Any], dict[str, bool]]] = []
        self.state_dict: list[tuple[int, Callable[..., Any], dict[str, bool]]] = []
        self.load_state_dict_pre: list[tuple[int, Callable[..., Any], dict[str, bool]]] = []
        self.load_state_dict_post: list[tuple[int, Callable[..., Any], dict[str, bool]]] = []

    def add(self, kind: str, fn: Callable[..., Any], prepend: bool, **options: bool) -> HookHandle:
        if not callable(fn):
            raise TypeError(f"register_{kind}_hook(): argument 'hook' must be callable, but got {type(fn).__name__}")
        hooks = getattr(self, kind)
        hook_id = next(_ids)
        entry = (hook_id, fn, options)
        if prepend:
            hooks.insert(0, entry)
        else:
            hooks.append(entry)
        return HookHandle(hooks, hook_id)

    def any_backward(self) -> bool:
        return bool(self.backward_pre or self.backward)


class BackwardHookFunction(Function):
    """Identity on tensors: one grad node where a module's boundary gradients meet (see the NOTE).

    Called as ``apply(state, *tensors)``; its backward passes on the gradients
    ``state`` holds when a hook replaced them, else the incoming ones.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, state: "_BoundaryState", *tensors: Tensor) -> tuple[Any, ...]:
        ctx.state = state
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return (state, *tensors)

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Any) -> tuple[Any, ...]:
        replaced = ctx.state.take_replacement()
        return (None, *(replaced if replaced is not None else grads))


class _BoundaryState:
    """The gradients seen at one side of one module call, and the user's replacement for them."""

    def __init__(self, on_complete: Callable[[list[Any]], "list[Any] | None"], n: int) -> None:
        self.on_complete, self.grads = on_complete, [None] * n
        self.replacement: list[Any] | None = None

    def hook_for(self, slot: int, last: bool) -> Callable[[Tensor], None]:
        def hook(grad: Tensor) -> None:
            self.grads[slot] = grad
            if last:
                self.replacement = self.on_complete(self.grads)
            return None

        return hook

    def take_replacement(self) -> list[Any] | None:
        out, self.replacement = self.replacement, None
        return out


def _wrap(values: tuple[Any, ...], state_for: Callable[[int], _BoundaryState], kind: str) -> tuple[Any, ...]:
    """Pass the tensors in ``values`` through a ``BackwardHookFunction`` and hook its node's slots."""
    idx = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    tensors = [values[i] for i in idx]
    if not tensors or not is_grad_enabled() or not any(t.requires_grad for t in tensors):
        return values
    state = state_for(len(tensors))
    _state, *new = BackwardHookFunction.apply(state, *tensors)
    node = next(t._meta.grad_node for t in new if t._meta is not None)
    for slot, t in enumerate(new):
        node.add_hook(slot, 0, state.hook_for(slot, slot == len(new) - 1), kind, t._id)
    out = list(values)
    for i, t in zip(idx, new):
        out[i] = t
    return tuple(out)


class _BackwardHooks:
    """One module call's backward hooks: wraps its inputs and outputs (steps 2 and 5)."""

    def __init__(self, module: Any, hooks: ModuleHooks) -> None:
        self.module, self.hooks = module, hooks
        self.n_inputs = 0
        self.input_slots: list[int] | None = None  # positions of the tensor inputs (None: none requires grad)
        self._requires: list[bool] = []  # per tensor input: does it require grad
        self.n_outputs = 0
        self.output_slots: list[int] = []
        self.grad_outputs: tuple[Any, ...] | None = None

    def wrap_inputs(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        self.n_inputs = len(args)
        wrapped = _wrap(args, lambda n: _BoundaryState(self._inputs_done, n), "module_backward")
        if wrapped is not args:
            self.input_slots = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
            self._requires = [args[i].requires_grad for i in self.input_slots]
        return wrapped

    def wrap_outputs(self, result: Any) -> Any:
        single = not isinstance(result, tuple)
        values = (result,) if single else result
        self.n_outputs = len(values)
        self.output_slots = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
        wrapped = _wrap(values, lambda n: _BoundaryState(self._outputs_done, n), "module_backward_pre")
        return wrapped[0] if single else wrapped

    # -- run when backward reaches the module's outputs, then its inputs --------------------

    def _outputs_done(self, grads: list[Any]) -> list[Any] | None:
        grad_outputs = [None] * self.n_outputs
        for slot, g in zip(self.output_slots, grads):
            grad_outputs[slot] = g
        original = result = tuple(grad_outputs)
        for _hid, fn, _opts in list(self.hooks.backward_pre):
            new = fn(self.module, result)
            if new is None:
                continue
            new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
            if len(new) != len(result):
                raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got {len(new)}, "
                                   f"but expected {len(result)}")
            result = new
        self.grad_outputs = result
        if self.input_slots is None:  # no input requires grad: the backward hooks run now
            if self.hooks.backward:
                warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                              "outputs since no inputs require gradients. See the documentation of "
                              "register_full_backward_hook for more details.", stacklevel=2)
            none = (None,) * self.n_inputs
            for _hid, fn, _opts in list(self.hooks.backward):
                out = fn(self.module, none, result)
                if out is not None and not (isinstance(out, tuple) and all(o is None for o in out)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
        if result is original:
            return None
        return [result[slot] for slot in self.output_slots]

    def _inputs_done(self, grads: list[Any]) -> list[Any] | None:
        if self.grad_outputs is None:  # the gradient reached the inputs without passing the outputs
            return None
        assert self.input_slots is not None
        grad_inputs = [None] * self.n_inputs
        for slot, g, req in zip(self.input_slots, grads, self._requires):
            grad_inputs[slot] = g if req else None
        original = result = tuple(grad_inputs)
        for _hid, fn, _opts in list(self.hooks.backward):
            new = fn(self.module, result, self.grad_outputs)
            if new is None:
                continue
            new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
            if len(new) != len(result):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(new)}, "
                                   f"but expected {len(result)}")
            result = new
        self.grad_outputs = None
        if result is original:
            return None
        return [result[slot] if req else g for slot, g, req in zip(self.input_slots, grads, self._requires)]


def call_with_hooks(module: Any, hooks: ModuleHooks, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A module call with its hooks, in PyTorch's order (steps 1-5 of the module docstring)."""
    for _hid, fn, opts in list(hooks.forward_pre):
        if opts.get("with_kwargs"):
            out = fn(module, args, kwargs)
            if out is not None:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError(f"forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {out}.")
                args, kwargs = out
        else:
            out = fn(module, args)
            if out is not None:
                args = out if isinstance(out, tuple) else (out,)
    bw = _BackwardHooks(module, hooks) if hooks.any_backward() else None
    if bw is not None:
        args = bw.wrap_inputs(args)
    try:
        result = module.forward(*args, **kwargs)
    except BaseException:
        for _hid, fn, opts in list(hooks.forward):
            if opts.get("always_call"):
                try:
                    fn(module, args, kwargs, None) if opts.get("with_kwargs") else fn(module, args, None)
                except Exception:  # noqa: BLE001  (the forward's error is the one to report)
                    pass
        raise
    for _hid, fn, opts in list(hooks.forward):
        out = fn(module, args, kwargs, result) if opts.get("with_kwargs") else fn(module, args, result)
        if out is not None:
            result = out
    if bw is not None:
        result = bw.wrap_outputs(result)
    return result
