"""Where each node came from: node.create carries the user's source line and the nn.Module path."""

from __future__ import annotations

import inspect
import os

import minigrad as mg
from minigrad.tracing import bus, provenance


def _record():
    with mg.trace() as tr:
        model = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.ReLU(), mg.nn.Linear(3, 1))
        line = inspect.currentframe().f_lineno + 1
        loss = model(mg.ones(1, 2)).sum()
        loss.backward()
    return tr, line


def test_node_create_names_the_source_line_and_the_module():
    tr, line = _record()
    nodes = {e.name.split("#")[0] + "@" + str(e.module): e for e in tr.events if e.kind == "node.create"}
    relu = next(e for e in tr.events if e.kind == "node.create" and e.op == "relu")
    assert relu.module == "Sequential.1 (ReLU)"
    assert relu.source == f"{os.path.abspath(__file__)}:{line}"
    matmuls = [e.module for e in tr.events if e.kind == "node.create" and e.op == "addmm"]
    assert matmuls == ["Sequential.0 (Linear)", "Sequential.2 (Linear)"]
    summed = next(e for e in tr.events if e.kind == "node.create" and e.op == "sum")
    assert summed.module is None and summed.source.endswith(f":{line}")
    assert nodes  # several kinds were recorded
    # It survives a save and load.
    back = mg.trace.loads(tr.to_jsonl())
    relu2 = next(e for e in back.events if e.kind == "node.create" and e.op == "relu")
    assert (relu2.source, relu2.module) == (relu.source, relu.module)


def test_no_recording_no_module_stack():
    model = mg.nn.Linear(2, 1)
    model(mg.ones(1, 2))
    assert bus.recorder is None and provenance.module_path() is None


def test_svg_groups_nodes_by_module_and_tui_detail_shows_the_origin(tmp_path):
    import minigrad.viz as viz

    tr, line = _record()
    r = viz.render(tr, group="module")
    assert 'label="module Sequential.0 (Linear)"' in r.source and "cluster_Sequential_0_Linear_" in r.source
    clustered = {n.title for n in r.graph.nodes if n.cluster}
    assert any(t.startswith("ReluBackward0") for t in clustered)


def test_backward_errors_name_where_the_node_was_made():
    import pytest

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.trace():
        model = mg.nn.Sequential(mg.nn.Linear(2, 2))
        line = inspect.currentframe().f_lineno + 1
        y = model(x.reshape(1, 2))
        y.register_hook(lambda g: (_ for _ in ()).throw(ValueError("boom")))
        with pytest.raises(ValueError) as info:
            (y * y).sum().backward()
    msg = str(info.value)
    assert "AddmmBackward0" in msg and f"made at {os.path.abspath(__file__)}:{line} in module Sequential.0 (Linear)" in msg
    # Without a recording nothing is stamped, and the message is as before.
    z = model(x.reshape(1, 2))
    z.register_hook(lambda g: (_ for _ in ()).throw(ValueError("boom")))
    with pytest.raises(ValueError) as info:
        (z * z).sum().backward()
    assert "made at" not in str(info.value) and "AddmmBackward0" in str(info.value)
