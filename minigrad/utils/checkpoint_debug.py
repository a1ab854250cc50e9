"""``checkpoint(..., debug=True)``: when the recomputation does not save what the forward saved, the error
lists the operators each run made, each with the line of the program that called it (PyTorch's debug logs).

Two kernel modes (``kernels/api.py``, ``KERNEL_MODES``) are the checkpoint's ``context_fn``: one logs the
forward's calls, the other the recomputation's, each as PyTorch's dispatcher names it (``aten.mm.default``,
``ops/aten_names.py``) with the user's ``file:line``. A ``CheckpointError`` of the determinism check is
raised again with both logs, in the layout of PyTorch's message, so the first line where they part is the
non-determinism to look for.

Example:
    >>> import minigrad as mg
    >>> from minigrad.utils.checkpoint import checkpoint
    >>> x = mg.ones(3, requires_grad=True)
    >>> y = checkpoint(lambda t: t.exp() * 2, x, use_reentrant=False, debug=True)
    >>> y.sum().backward(); x.grad.shape
    minigrad.Size([3])
"""

from __future__ import annotations

from typing import Any

from ..kernels.api import KernelMode, run_kernel
from ..kernels.backends import device_of_backend
from ..ops.aten_names import overload_of
from ..tracing.provenance import user_source

__all__ = ["debug_contexts", "TEMPLATE"]

TEMPLATE = """ \
An error happened while unpacking tensors; dumping logs of latest computation
because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.
Scroll all the way down for guidance on how to navigate these logs.

+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|        1. Stack traces of the operators that ran in the original forward     |
+------------------------------------------------------------------------------+

{forward_traces}
+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|        2. Stack traces of the operators that ran during recomputation        |
+------------------------------------------------------------------------------+

{recompute_traces}
+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|       3. Log of operators in the original forward and recomputation          |
+------------------------------------------------------------------------------+
(Scroll up to correlate stack traces with each operation listed below. This
 helps identify their source in the code.)

Operations executed during the original forward:

{forward_ops}

Operations executed during recomputation:

{recompute_ops}

+------------------------------------------------------------------------------+
 ERROR: Detected non-determinism while running activation checkpointing

 You are seeing this error because you passed `debug=True` to checkpoint and
 tensors to be saved during the original forward and differ between those saved
 during recomputation. This can happen if different operators were ran in the
 original forward and in the recomputation.

 To identify where the mismatch may be coming from, you can do the following:

 1) Compare the operators ran during original forward and recomputation to
    see where they differ. These operators are printed above in the order they
    were executed.

 2) Review the stack trace for each operator to locate its invocation source.
    Each operator's stack trace is printed in their execution order.

 Note that the logs can be quite long. Here's how they are structured:
 (Tip: you can Ctrl-f for these headers)

 1. Stack traces of the operators that ran in the original forward
 2. Stack traces of the operators that ran during recomputation
 3. Log of operators in the original forward and recomputation
 4. Error message                                             <--- You are here
--------------------------------------------------------------------------------
"""


_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64", "int32": "i32",
          "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8"}


class _Log(KernelMode):
    """A kernel mode that runs each call and notes it as PyTorch's logging mode writes it -
    ``$2: f32[3] = aten.exp.default($1)``, each array a numbered value - with the program's line."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.numbers: dict[int, int] = {}  # id of an array -> its $number
        self.seen: list[Any] = []  # (the arrays numbered, kept alive so that their ids stay theirs)

    def _ref(self, a: Any) -> str:
        if not hasattr(a, "shape"):
            return repr(a)
        number = self.numbers.get(id(a))
        if number is None:
            number = self.numbers[id(a)] = len(self.seen)
            self.seen.append(a)
        return f"${number}"

    def __call__(self, op: Any, kernel: Any, arrays: Any, attrs: Any, meta: Any) -> Any:
        name = overload_of(op.name, arrays, attrs or {}, device_of_backend(kernel.key.backend))
        args = ", ".join([self._ref(a) for a in arrays] + [f"{k}={v!r}" for k, v in (attrs or {}).items()])
        out = run_kernel(op, kernel, arrays, attrs, meta)
        outs = ", ".join(f"{self._ref(o)}: {_SHORT.get(str(o.dtype), str(o.dtype))}{list(o.shape)}"
                         for o in (out if isinstance(out, tuple) else (out,)) if hasattr(o, "shape"))
        self.calls.append((f"{outs} = {name}({args})", user_source() or "<unknown>"))
        return out

    def __enter__(self) -> "KernelMode":
        self.calls.clear()
        self.numbers.clear()
        self.seen.clear()
        return super().__enter__()

    def traces(self, label: str) -> str:
        total = len(self.calls)
        return "".join(f"{name}   ({i} of {total} in {label})\n\n{line}\n\n\n"
                       for i, (name, line) in enumerate(self.calls, 1))

    def ops(self) -> str:
        return "\n".join(name for name, _ in self.calls)


def debug_contexts() -> tuple[tuple[_Log, _Log], Any]:
    """``((forward context, recomputation context), error callback)``: the callback turns a
    ``CheckpointError`` into the same error with both runs' logs."""
    forward, recompute = _Log(), _Log()

    def explain(error: Exception) -> Exception:
        return type(error)(TEMPLATE.format(forward_traces=forward.traces("original"),
                                           recompute_traces=recompute.traces("recompute"),
                                           forward_ops=forward.ops(), recompute_ops=recompute.ops()))

    return (forward, recompute), explain
