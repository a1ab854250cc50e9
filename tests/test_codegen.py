"""Generated dygraph functions (dispatch/codegen.py): one per op, the same results and nodes as ``run_layers``.

An op call runs its generated ``<op>_dygraph_function`` (checked in under
``dispatch/generated/``); a recorded or autocast call is handed to
``run_layers``, which walks the steps and emits their events. Every
row of ``tests/test_ops_grad.py``'s ``CASES`` (complete from the registry) is
run both ways here and the outputs, grad nodes (class, edges, topological
number, saved tensors) and gradients are compared.
"""

from __future__ import annotations

import re
import zlib
from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np
import pytest

import minigrad as mg
from minigrad.cli import main
from minigrad.dispatch import dygraph
from minigrad.dispatch.codegen import dygraph_function, generate
from test_ops_grad import CASES


@contextmanager
def four_layers_only() -> Iterator[None]:
    """Every op call walks the four layers (as with a recorder), without recording."""
    saved = {name: op.dygraph_function for name, op in mg.OPS.items()}

    def layers(op: Any) -> Any:
        return lambda *args: dygraph.run_layers(op, list(args[:-1]), args[-1], mg.tracing.bus.recorder)

    try:
        for op in mg.OPS.values():
            op.dygraph_function = layers(op)
        yield
    finally:
        for name, fn in saved.items():
            mg.OPS[name].dygraph_function = fn


def _describe(t: Any) -> Any:
    """What a graph built from ``t`` looks like: values, and per node its class, edges, topo_nr, saved tensors."""
    seen, out, work = set(), [], [t.grad_fn]
    while work:
        node = work.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        edges = [[(type(e.node).__name__ if e.node else None, e.slot, e.rank, e.shape, str(e.dtype)) for e in row]
                 for row in node.next_edges]
        saved = [None if w is None else (w.tensor_id is not None, w.data.tobytes()) for w in getattr(node, "wrappers", ())]
        out.append((type(node).__name__, node.topo_nr, edges, saved, node.in_meta))
        work.extend(e.node for row in node.next_edges for e in row)
    return t.detach().numpy().tobytes(), str(t.dtype), out


def _run(case: Any) -> Any:
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    args = case.make(rng)
    for a in args:  # a case may hand the same leaf to every run (``const`` inputs): count this run's gradient only
        if isinstance(a, mg.Tensor) and a.requires_grad:
            a.grad = None
    out = case.fn(*args)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else [out]) if o.requires_grad]
    graphs = [_describe(o) for o in outs]
    mg.autograd.backward(outs, [mg.ones_like(o) for o in outs])
    # (a leaf no gradient reaches keeps .grad None: NOTE [ No gradient at all passes on as none ] in engine.py)
    grads = [None if a.grad is None else a.grad.numpy().tobytes()
             for a in args if isinstance(a, mg.Tensor) and a.requires_grad]
    return graphs, grads


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_generated_function_builds_what_the_four_layers_build(case: Any) -> None:
    generated = _run(case)
    with four_layers_only():
        layered = _run(case)
    assert generated == layered


@pytest.mark.parametrize("name", sorted(mg.OPS))
def test_every_op_has_a_generated_function_that_compiles(name: str) -> None:
    fn = dygraph_function(mg.OPS[name])
    assert fn.__name__ == f"{name}_dygraph_function"
    assert fn.__source__ == generate(mg.OPS[name])


def test_generated_mul_spells_out_the_seed_steps() -> None:
    src = generate(mg.OPS["mul"])
    for step in ("Kernel layer", "parse_kernel_key", "InferMeta", "launch_and_check", "require_any_grad",
                 "create_grad_node", "SetGradOutMeta", "SetHistory", "TensorWrappers"):
        assert step in src
    assert not re.search(r"^\s+(for|while) ", src, re.M)  # straight-line: no loop over input specs
    assert "(x._meta is not None or y._meta is not None)" in src


def test_the_checked_in_generated_modules_are_current() -> None:
    """``minigrad codegen --write`` writes what is checked in: run it after changing an op's definition."""
    from minigrad.dispatch.codegen import GENERATED_DIR, generated_modules

    files = generated_modules(mg.OPS.values())
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in GENERATED_DIR.glob("*.py")}
    stale = sorted(n for n in files.keys() | on_disk.keys() if files.get(n) != on_disk.get(n))
    assert not stale, f"stale generated modules {stale}: run `minigrad codegen --write`"


def test_a_debugger_opens_the_generated_function_in_its_file() -> None:
    from minigrad.dispatch.codegen import GENERATED_DIR

    fn = mg.OPS["mul"].dygraph_function
    assert fn.__code__.co_filename == str(GENERATED_DIR / "math.py")
    assert fn.__module__ == "minigrad.dispatch.generated.math"
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    assert (a * a).grad_fn.name() == "MulBackward0"


def test_a_recorded_call_walks_the_layers_and_emits_their_events() -> None:
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    a * a  # the kind is known from here on
    with mg.trace() as tr:
        a * a
    kinds = [e.kind for e in tr.events if e.kind != "tensor.create"]
    assert [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k] == [  # one per step, in order
        "api.call", "kernel.key", "kernel.lookup", "kernel.select", "infer_meta", "kernel.launch", "node.create"]


def test_a_user_op_gets_its_function_on_its_first_call() -> None:
    from minigrad.ops.registry import OpDef

    op = mg.OPS["neg"]
    fresh = OpDef.__new__(OpDef)
    fresh.__dict__.update(op.__dict__)
    fresh.dygraph_function = fresh._first_call
    x = mg.tensor([1.0, -2.0])
    assert fresh(x).tolist() == [-1.0, 2.0]
    assert fresh.dygraph_function.__code__.co_filename == "<generated neg_dygraph_function>"


def test_a_call_the_cached_kernel_does_not_cover_takes_the_layers() -> None:
    """``x_f32 * y_f64`` needs PrepareData (a dtype cast): the same result as the four layers give."""
    x = mg.tensor([1.5, 2.0], dtype="float32", requires_grad=True)
    y = mg.tensor([3.0, 0.5], dtype="float64", requires_grad=True)
    z = x * y
    assert z.dtype == mg.float64 and z.grad_fn.name() == "MulBackward0"
    z.sum().backward()
    assert x.grad.dtype == mg.float32 and y.grad.dtype == mg.float64


def test_minigrad_codegen_prints_the_function(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["codegen", "matmul"]) == 0
    assert capsys.readouterr().out.startswith("def matmul_dygraph_function(x, y, attrs):")
    assert main(["codegen", "no_such_op"]) == 1
    assert "no op named 'no_such_op'" in capsys.readouterr().err
