"""The dygraph-function generator (seed 004: Paddle's eager code generator writes ``<op>_dygraph_function``).

Paddle does not hand-write the dygraph layer: a generator reads each op's
definition (its YAML) and writes one C++ function per op that does the
seed's steps for exactly that op - its inputs, attributes and saved tensors
spelled out, no loops over input specs. minigrad does the same from the op
registry: ``generate(op)`` writes the Python source of ``<op>_dygraph_function``
and ``dygraph_function(op)`` compiles it (once per op, on its first call).
``minigrad codegen OP`` prints it.

The generated function is what an op call runs when nothing observes it (no
recorder, no autocast): the kernel layer's cached kernel for this kind of
call, ``require_any_grad``, and the grad node with its edges, history and
TensorWrappers. Every step calls the function that owns it
(``specialised_kernel``, ``run_specialised``, ``edge_row``, ``save_tensor``...):
what is generated is only the straight line between them. A call the cached
kernel does not cover (PrepareData to do, a CPU fallback) and every call while
a recorder or autocast is active walks the four observable layers
(``dygraph.run_layers``), which build the same node with the same helpers.

Example:
    >>> import minigrad as mg
    >>> from minigrad.dispatch.codegen import generate
    >>> print(generate(mg.OPS["neg"]).splitlines()[0])
    def neg_dygraph_function(x, attrs):
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .. import flags
from ..autograd.grad_mode import GRAD_MODE
from ..autograd.grad_node import in_meta_of, no_edge_row, reserve_node_ids
from ..autograd.hooks import retain_grad
from ..autograd.tensor_wrapper import TensorWrapper, save_tensor
from ..kernels.api import _specialised, run_specialised, specialised_kernel
from . import dygraph

if TYPE_CHECKING:  # pragma: no cover
    from ..ops.registry import OpDef

__all__ = ["generate", "dygraph_function"]


def _plain(op: "OpDef") -> bool:
    """Whether the op's inputs are all single tensors (no list, no optional input)."""
    return not any(i.is_list or i.optional for i in op.inputs)


def generate(op: "OpDef") -> str:
    """The source of ``<op>_dygraph_function(<inputs>, attrs)``, specialised to ``op``'s definition."""
    names = [i.name for i in op.inputs]
    lines = [f"def {op.name}_dygraph_function({', '.join(names + ['attrs'])}):"]
    lines += _docstring(op)
    inputs = f"[{', '.join(names)}]"
    if not _plain(op):
        lines += ["    # A list or optional input: the four layers' general steps.",
                  f"    return run_layers(op, {inputs}, attrs)"]
        return "\n".join(lines) + "\n"
    kind = ", ".join(f"{n}._dtype, {n}._device, {n}._layout" for n in names)
    lines += [
        "    # Kernel layer: the KernelKey and the selection, cached per kind of call",
        "    # (NOTE [ The specialised eager path ] in kernels/api.py).",
        f"    kind = (op, flags.enable_api_kernel_fallback, flags.use_gpudnn, {kind})",
        "    entry = specialised.get(kind)",
        "    if entry is None:",
        f"        entry = specialised_kernel(op, {inputs}, kind)",
        "    if not entry:  # PrepareData, a CPU fallback or a layout transform to do: the four layers",
        f"        return run_layers(op, {inputs}, attrs)",
        "    kernel, device, layout = entry",
        "    # InferMeta, the kernel, the check of its output.",
        f"    out = run_specialised(op, kernel, [{', '.join(n + '._data' for n in names)}], attrs)",
        "    if type(out) is tuple:  # several outputs",
        f"        return finish_outputs(op, {inputs}, attrs, out, device, layout)",
        "    out_t = new_tensor(out, device, layout)",
    ]
    if op.view:
        lines += ["    if out.base is not None:  # a view: it shares the version counter of its input, records its base",
                  f"        share_version({names[0]}, out_t, op, attrs)"]
    if op.backward is None or not any(i.differentiable for i in op.inputs):
        lines += ["    return out_t  # no backward formula: no grad node"]
        return "\n".join(lines) + "\n"
    lines += _grad_node_steps(op, names)
    return "\n".join(lines) + "\n"


def _docstring(op: "OpDef") -> list[str]:
    return [
        f'    """``{op.name}`` when nothing observes it, generated from its OpDef (``minigrad codegen {op.name}``).',
        "",
        "    The seed's dygraph-function steps for this op in a straight line; a call the cached",
        "    kernel does not cover walks the four layers (``run_layers``).",
        '    """',
    ]


def _grad_node_steps(op: "OpDef", names: list[str]) -> list[str]:
    """require_any_grad, then the grad node: edges, history, TensorWrappers, retain-grad."""
    diff = [n for n, i in zip(names, op.inputs) if i.differentiable]
    needs = " and ".join(f"{n}._meta is None" for n in diff)
    lines = [
        "    # require_any_grad: grad mode is on, the output is floating, an input requires grad.",
        f"    if not GRAD_MODE.enabled or not out_t._dtype.is_floating or ({needs}):",
        "        return out_t",
        "    # The grad node, numbered before the AccumulationNodes its edges may create.",
        "    ids = reserve_node_ids()",
        "    # SetGradOutMeta: one edge row per input, to the node that takes its gradient.",
    ]
    for n, spec in zip(names, op.inputs):
        if spec.differentiable:
            lines.append(f"    {n}_row = edge_row({n})")
        else:
            lines.append(f"    {n}_row = no_edge_row({n}._data.shape, {n}._dtype)  # '{n}' takes no gradient")
    rows = ", ".join(f"{n}_row" for n in names) + ("," if len(names) == 1 else "")
    lines += [
        f"    node = node_class(ids, attrs, ({rows}), in_meta_of(out.shape, out_t._dtype, device),",
        f"                      topo_nr({', '.join(n + '_row' for n in diff)}))",
        "    # SetOutRankWithSlot, SetHistory: the output's gradient comes from this node, slot 0.",
        "    set_history(out_t, node, 0)",
    ]
    if op.save:
        lines.append("    # TensorWrappers of the saved tensors, with their version snapshots.")
        lines.append("    node.wrappers = (")
        for value, comment in _wrappers(op, names):
            lines.append(f"        {value},{comment}")
        lines.append("    )")
    lines += [
        "    if flags.retain_grad_for_all_tensor:",
        "        retain_grad(out_t)",
        "    return out_t",
    ]
    return lines


def _wrappers(op: "OpDef", names: list[str]) -> list[tuple[str, str]]:
    """One TensorWrapper per saved tensor, each kept only when a gradient that needs it is wanted (``save_for``)."""
    items = []
    for idx, needed_by in zip(op.save_index, op.save_needed_by):
        value = "TensorWrapper(out_t, output=True)" if idx < 0 else f"save_tensor({names[idx]})"
        comment = ""
        if needed_by is not None:
            wanted = " or ".join(f"{names[k]}_row[0].node is not None" for k in needed_by)
            value = f"{value} if {wanted} else None"
            comment = "  # needed for the gradient of " + ", ".join(f"'{names[k]}'" for k in needed_by) + " only"
        items.append((value, comment))
    return items


def dygraph_function(op: "OpDef") -> Callable[..., Any]:
    """``op``'s generated dygraph function, compiled (its source is ``generate(op)``)."""
    source = generate(op)
    namespace: dict[str, Any] = {
        "op": op,
        "node_class": op.node_class,
        "flags": flags,
        "GRAD_MODE": GRAD_MODE,
        "specialised": _specialised,
        "specialised_kernel": specialised_kernel,
        "run_specialised": run_specialised,
        "run_layers": dygraph.run_layers,
        "finish_outputs": dygraph.finish_outputs,
        "new_tensor": dygraph.new_tensor,
        "share_version": dygraph.share_version,
        "edge_row": dygraph.edge_row,
        "no_edge_row": no_edge_row,
        "topo_nr": dygraph.topo_nr,
        "in_meta_of": in_meta_of,
        "reserve_node_ids": reserve_node_ids,
        "set_history": dygraph.set_history,
        "save_tensor": save_tensor,
        "TensorWrapper": TensorWrapper,
        "retain_grad": retain_grad,
    }
    code = compile(source, f"<generated {op.name}_dygraph_function>", "exec")
    exec(code, namespace)  # noqa: S102 - the source is ours, generated from the op's definition
    fn = namespace[f"{op.name}_dygraph_function"]
    fn.__source__ = source
    return fn
