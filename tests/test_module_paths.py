"""Module boxes carry each module's path in its caller (``Net.layers.0``), whatever container holds it.

Layers called by iterating an ``nn.ModuleList`` (or reached through an
``nn.ModuleDict``) are told apart in ``node.create``'s ``module`` field, so the
SVG renderer's ``--group module`` clusters, the TUI's module boxes and the web
page's node detail never merge two layers into one box.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

import minigrad as mg
from minigrad.tracing import provenance

ROOT = Path(__file__).resolve().parent.parent


class Net(mg.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = mg.nn.ModuleList([mg.nn.Linear(2, 2), mg.nn.Linear(2, 2)])
        self.heads = mg.nn.ModuleDict({"out": mg.nn.Linear(2, 1)})

    def forward(self, x):
        for layer in self.layers:
            x = layer(x).relu()
        return self.heads["out"](x)


def _record():
    mg.manual_seed(0)
    net = Net()
    with mg.trace() as tr:
        net(mg.ones(3, 2)).sum().backward()
    return tr


def _matmul_modules(tr) -> list[str]:
    return [e.module for e in tr.events if e.kind == "node.create" and e.op == "addmm"]


def test_modulelist_and_moduledict_children_carry_their_paths():
    tr = _record()
    assert _matmul_modules(tr) == ["Net.layers.0 (Linear)", "Net.layers.1 (Linear)", "Net.heads.out (Linear)"]


def test_a_moved_module_gets_its_new_path():
    """The path is looked up in the live modules: swapping two layers swaps their paths."""
    tr = _record()
    net = Net()
    net.layers = mg.nn.ModuleList([net.layers[1], net.layers[0]])
    first = net.layers[0]
    with mg.trace() as tr:
        net(mg.ones(1, 2))
        provenance.enter_module(net)
        provenance.enter_module(first)
        try:
            assert provenance.module_path() == "Net.layers.0 (Linear)"
        finally:
            provenance.exit_module()
            provenance.exit_module()
    assert _matmul_modules(tr)[:2] == ["Net.layers.0 (Linear)", "Net.layers.1 (Linear)"]


def test_svg_clusters_each_layer_apart():
    import minigrad.viz as viz

    r = viz.render(_record(), group="module")
    for path in ("Net.layers.0 (Linear)", "Net.layers.1 (Linear)", "Net.heads.out (Linear)"):
        assert f'label="module {path}"' in r.source
    assert "module Net.Linear" not in r.source


def test_tui_module_boxes_are_apart():
    pytest.importorskip("textual")
    from minigrad.tui.layout2d import fold_title, group_by_module
    from minigrad.tui.model import Session

    session = Session(_record())
    lay = session.layout(0)
    titles = sorted(fold_title(lay, members, True) for members in group_by_module(lay).values())
    assert any(t.startswith("▣ Net.layers.0 (Linear) · ") for t in titles)
    assert any(t.startswith("▣ Net.layers.1 (Linear) · ") for t in titles)


def test_tui_draws_the_two_boxes():
    """The graph pane with ``u`` (one box per module), driven by Pilot."""
    pytest.importorskip("textual")
    import asyncio

    asyncio.run(_tui_boxes())


async def _tui_boxes():
    from minigrad.tui.app import MinigradApp
    from minigrad.tui.model import Session
    from minigrad.tui.widgets.canvas import GraphCanvas

    app = MinigradApp(Session(_record(), title="net"))
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("u")  # one box per nn.Module
        await pilot.pause()
        text = "\n".join(app.main_screen.query_one(GraphCanvas).plain_lines())
        assert "Net.layers.0 (Linear)" in text and "Net.layers.1 (Linear)" in text


def test_web_page_names_each_layer():
    pytest.importorskip("graphviz")
    from minigrad.viz.stepper import stepper

    page = stepper(_record())
    modules = {d.get("module") for d in page.data["passes"][0]["detail"]}
    assert {"Net.layers.0 (Linear)", "Net.layers.1 (Linear)", "Net.heads.out (Linear)"} <= modules


def test_gpt_blocks_are_apart():
    """examples/gpt.py: the two transformer blocks (a ModuleList) are boxed apart."""
    gpt = runpy.run_path(str(ROOT / "examples" / "gpt.py"))
    cfg = gpt["GPTConfig"](vocab_size=11, block_size=4, n_layer=2, n_head=2, n_embd=8)
    mg.manual_seed(0)
    model = gpt["GPT"](cfg)
    idx = mg.tensor([[1, 2, 3, 4]])
    with mg.trace(values=False) as tr:
        _, loss = model(idx, idx)
        loss.backward()
    modules = {e.module for e in tr.events if e.kind == "node.create" and e.module}
    assert any(m.startswith("GPT.transformer.h.0.attn") for m in modules)
    assert any(m.startswith("GPT.transformer.h.1.attn") for m in modules)
    assert not any(m.startswith("GPT.Block") for m in modules)


def test_blocks_called_one_by_one_are_named_in_the_model_that_holds_them():
    """``model[0](x)`` then ``model[1](h)``: each block's path starts at ``model`` (a variable of the caller), so
    the two blocks' children never share a path (``Sequential.1`` of each would)."""
    nn = mg.nn
    mg.manual_seed(0)
    model = nn.Sequential(nn.Sequential(nn.Linear(2, 2), nn.Tanh()), nn.Sequential(nn.Linear(2, 2), nn.GELU()))
    with mg.trace() as tr:
        model[1](model[0](mg.ones(3, 2))).sum().backward()
    paths = [e.module for e in tr.events if e.kind == "node.create" and not e.is_accumulation and e.module]
    assert {"Sequential.0.0 (Linear)", "Sequential.0.1 (Tanh)", "Sequential.1.0 (Linear)",
            "Sequential.1.1 (GELU)"} <= set(paths)


def test_a_module_no_variable_holds_keeps_its_class_name():
    def run():
        with mg.trace() as tr:
            mg.nn.Sequential(mg.nn.Linear(2, 2), mg.nn.Tanh())(mg.ones(1, 2))
        return tr

    paths = {e.module for e in run().events if e.kind == "node.create" and e.module}
    assert "Sequential.1 (Tanh)" in paths
