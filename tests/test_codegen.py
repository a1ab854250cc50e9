"""Generated dygraph functions (dispatch/codegen.py): one per op, the same results and nodes as the four layers.

With no recorder an op call runs its generated ``<op>_dygraph_function``;
with one, ``run_layers`` walks the four layers and emits their events. Every
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
        return lambda *args: dygraph.run_layers(op, list(args[:-1]), args[-1])

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
    grads = [a.grad.numpy().tobytes() for a in args if isinstance(a, mg.Tensor) and a.requires_grad]
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
    for step in ("Kernel layer", "InferMeta", "require_any_grad", "SetGradOutMeta", "SetHistory", "TensorWrappers"):
        assert step in src
    assert not re.search(r"^\s+(for|while) ", src, re.M)  # straight-line: no loop over input specs
    # save_for: x is kept only for y's gradient, y only for x's.
    assert "save_tensor(x) if y_row[0].node is not None else None" in src


def test_the_generated_function_runs_without_a_recorder_and_the_layers_with_one() -> None:
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    op = mg.OPS["mul"]
    real = op.dygraph_function or op.make_dygraph_function()
    op.dygraph_function = lambda *args: calls.append(1) or real(*args)
    try:
        a * a
        with mg.trace() as tr:
            a * a
    finally:
        op.dygraph_function = real
    assert calls == [1]
    assert [e.kind for e in tr.events if e.kind == "api.call"] == ["api.call"]


def test_a_call_the_cached_kernel_does_not_cover_takes_the_layers() -> None:
    """``x_f32 * y_f64`` needs PrepareData (a dtype cast): the same result as the four layers give."""
    x = mg.tensor([1.5, 2.0], dtype="float32", requires_grad=True)
    y = mg.tensor([3.0, 0.5], dtype="float64", requires_grad=True)
    z = x * y
    assert z.dtype == mg.float64 and z.grad_fn.name() == "MulGradNode"
    z.sum().backward()
    assert x.grad.dtype == mg.float32 and y.grad.dtype == mg.float64


def test_minigrad_codegen_prints_the_function(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["codegen", "matmul"]) == 0
    assert capsys.readouterr().out.startswith("def matmul_dygraph_function(x, y, attrs):")
    assert main(["codegen", "no_such_op"]) == 1
    assert "no op named 'no_such_op'" in capsys.readouterr().err
