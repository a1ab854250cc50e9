"""Each pane's content at chosen steps of the recorded demo (``fixtures/demo.jsonl``),
and time travel: stepping back and forth lands on identical states and screens.

The demo's pass 1 (``loss.backward(retain_graph=True)``) spans events 106–390,
pass 2 (``mg.grad`` with ``no_grad_vars``) events 391–585;
its nodes begin (``node.begin``) at events 111, 120, 143, 165, 192, 196, 229, ...
"""

from __future__ import annotations

from pathlib import Path

from tui_support import SIZE, pane_texts
from minigrad.tui.app import MinigradApp
from minigrad.tui.widgets import EventLog, ForwardView, GraphView

RUNS = (111, 120, 143, 165, 192, 196, 229, 238, 271, 311, 343, 368, 372, 387)


def row(lines: list[str], name: str) -> str:
    """The graph/in-degree row of node ``name``."""
    hits = [ln for ln in lines if name in ln.split()[:3]]
    assert len(hits) == 1, (name, lines)
    return hits[0]


async def test_panes_at_the_start_of_the_pass(demo_session):
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("right", "right")  # 108: the start node was pushed
        texts = pane_texts(scr)
        assert scr.index == 108
        assert "queue.push" in texts["status"]
        assert texts["queue"] == "front → 0:AddBackward0#14 ← back"
        assert row(texts["graph"], "AddBackward0#14").startswith("◆ d0  AddBackward0#14")
        assert "queue #0" in row(texts["graph"], "AddBackward0#14")
        # the in-degree map comes one event later (this engine pushes the start node first)
        assert all(ln.endswith(" -") or ln.endswith(" start") for ln in texts["indegree"])
        assert "[0,0] 1" in texts["buffers"]  # the seed gradient in the start node's holder
        await pilot.press("right")  # 109: backward.in_degree
        texts = pane_texts(scr)
        assert row(texts["indegree"], "TanhBackward0#5").split()[1:] == ["3", "→", "3"]
        assert row(texts["indegree"], "AccumulateGrad#4").split()[1:] == ["3", "→", "3"]
        assert "in 3/3" in row(texts["graph"], "TanhBackward0#5")  # h is used three times


async def test_panes_while_a_node_runs(demo_session):
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press(*["n"] * 6)  # MulBackward0#12 (b1 * b1) begins
        assert scr.index == RUNS[5] == 196
        t = pane_texts(scr)
        graph = t["graph"]
        assert row(graph, "MulBackward0#12").startswith("▶")
        assert "running" in row(graph, "MulBackward0#12")
        assert t["graph_cursor"] == graph.index(row(graph, "MulBackward0#12"))
        for done in ("AddBackward0#14", "SumBackward0#11", "SumBackward0#13", "MmBackward0#9", "AccumulateGrad#10"):
            assert row(graph, done).startswith("●") and " done " in row(graph, done)
        assert "queue #0" in row(graph, "AddBackward0#8")
        assert row(graph, "TanhBackward0#5").startswith("○") and "pending" in row(graph, "TanhBackward0#5")
        # edges with (slot, rank), and an input that needs no gradient
        assert "→ AccumulateGrad#4 (0,0) · AccumulateGrad#4 (1,0)" in row(graph, "MulBackward0#12")
        assert "∅ (0,0)" in row(graph, "MmBackward0#1")
        assert "AccumulateGrad#4 (b1)" in row(graph, "AccumulateGrad#4")
        assert t["queue"].splitlines() == ["popped: MulBackward0#12", "front → 0:AddBackward0#8 ← back"]
        assert "grads in:" in t["buffers"] and "[0,0] [1, 1]" in t["buffers"]
        d = t["detail"]
        assert d.startswith("MulBackward0#12  op mul")
        assert "saved  b1 [2] v0, b1 [2] v0" in d
        assert "slot 0 rank 0 → AccumulateGrad#4 (slot 0 rank 0)" in d
        assert "slot 1 rank 0 → AccumulateGrad#4 (slot 0 rank 0)" in d
        assert "pass 0 of 0–1 loss.backward() (c: choose)  ·  event 196 of 0–585\nnode.begin start MulBackward0#12" in t["status"]
        assert "why: all its gradients are in (in-degree 0): it runs its backward formula" in t["status"]
        assert "buffer taken: the node runs on grads in:" in t["buffers"]
        # its formula's events, then node.run: the formula finished
        while scr.session.events[scr.index].kind != "node.run":
            await pilot.press("right")
        t = pane_texts(scr)
        assert scr.index == 215 and "node.run ran MulBackward0#12" in t["status"]
        assert "why: its backward formula finished: each output gradient now goes along its edge" in t["status"]
        assert "buffer consumed by the run; grads in:" in t["buffers"] and "grads out:" in t["buffers"]
        assert "[1,0] [0.1, -0.1]" in t["buffers"]
        # one event on: the first of b1's two gradients reaches its AccumulationNode
        await pilot.press("right")
        assert "just added to AccumulateGrad#4[0,0]: [0.1, -0.1]" in pane_texts(scr)["buffers"]
        await pilot.press("right")
        t = pane_texts(scr)
        assert t["indegree_title"] == "last change: AccumulateGrad#4 → 2"
        assert "◀ changed" in row(t["indegree"], "AccumulateGrad#4")
        assert row(t["indegree"], "AccumulateGrad#4").split()[1:4] == ["3", "→", "2"]


async def test_accumulation_node_goes_to_the_front(demo_session):
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press(*["n"] * 4)  # MmBackward0#9 ran ...
        while scr.session.events[scr.index].kind != "queue.push" or scr.session.events[scr.index].node != 10:
            await pilot.press("right")
        t = pane_texts(scr)
        assert "queue.push push AccumulateGrad#10 to the front" in t["status"]
        assert "why: pushed to the front: AccumulateGrad nodes jump the queue" in t["status"]
        assert t["queue"].splitlines()[-1].startswith("front → 0:AccumulateGrad#10  1:MulBackward0#12  2:AddBackward0#8")


async def test_event_log_and_forward_tab(demo_session):
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("n", "n")
        log = scr.query_one(EventLog)
        assert log.cursor == scr.index == 120
        line = lambda i: log.line_text(i).plain  # noqa: E731
        assert line(120).split()[:3] == ["120", "node.begin", "start"]
        # the node's formula events sit indented under it; node.run closes it
        assert line(122).split()[:2] == ["122", "api.call"] and line(122).startswith("  122   api.call")
        assert line(136).startswith("  136   kernel.launch")
        assert line(138).startswith("  138 node.run") and line(139).startswith("  139 buffer.add")
        await pilot.press(*["right"] * 18)
        assert scr.index == 138
        await pilot.press("2")
        fwd = scr.query_one(ForwardView)
        lines = fwd.plain_lines()
        # the first call is the forward matmul, with every kernel-selection step
        assert lines[0].startswith("#0   matmul(x, w1)") and "[forward]" in lines[0]
        assert any("lookup" in ln and "miss" in ln for ln in lines[1:6])
        assert any("select" in ln and "cpu/matmul" in ln for ln in lines[1:8])
        # the cursor sits on the latest call before event 138: a backward-formula call
        assert "[backward]" in lines[fwd.cursor] and "expand" in lines[fwd.cursor]


async def test_general_grad_tab_for_a_plain_backward(demo_session):
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        assert "plain backward: GeneralGrad does not take part" in pane_texts(app.main_screen)["general"]


async def test_general_grad_tab_lists_the_marks(synthetic_session):
    app = MinigradApp(synthetic_session, initial_pass=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end", "3")
        g = pane_texts(app.main_screen)["general"]
        assert "startup           SumBackward0#11" in g
        assert "ending            AccumulateGrad#6" in g
        assert "needed            AccumulateGrad#6, MultiplyBackward#8, AddBackward0#10, SumBackward0#11" in g
        assert "no_grad_vars      TanhBackward0#9" in g
        assert "pruned edges      AddBackward0#10(1,0) ✂ TanhBackward0#9" in g
        assert "results           w = [3, 3]" in g


async def test_time_travel_lands_on_identical_states(demo_session):
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        seen = {}
        for _ in range(30):  # forwards, one event at a time, remembering every screen
            await pilot.press("right")
            seen[scr.index] = (pane_texts(scr), scr.session.state(scr.index))
        await pilot.press("end")
        await pilot.press(*["b"] * 8, "home")  # wander: back by node runs, to the start
        await pilot.press(*["n"] * 3)
        while scr.index >= min(seen):  # backwards over the same stretch
            if scr.index in seen:
                texts, state = seen[scr.index]
                assert pane_texts(scr) == texts
                assert scr.session.state(scr.index) == state
            await pilot.press("left")
        assert scr.index < min(seen)


async def test_graph_focuses_the_current_node_on_large_passes():
    import synth
    from minigrad.tui.model import Session

    session = Session(synth.chain(200), title="chain")
    app = MinigradApp(session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        graph = scr.query_one(GraphView)
        await pilot.press("g")  # the list view
        scr.goto(session.layout(0).runs[147])
        await pilot.press("n", "n", "n")
        name = session.node_name(session.events[scr.index].node)
        visible = graph.visible_lines()
        assert any(name in ln and "running" in ln for ln in visible)
        assert graph.scroll_offset.y > 100  # scrolled down to it
        await pilot.press("home")
        assert graph.scroll_offset.y < graph.size.height


async def test_demo_grad_pass_shows_general_grad_marks(demo_session):
    """Pass 2 of the demo: ``mg.grad([loss], [w1], no_grad_vars=[s])`` on a copy of the graph."""
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("c", "down", "enter", "end")
        assert scr.pass_no == 1
        t = pane_texts(scr)
        graph = t["graph"]
        assert "[startup]" in row(graph, "AddBackward0#15")
        assert "[ending]" in row(graph, "AccumulateGrad#28") and "[input]" in row(graph, "AccumulateGrad#28")
        assert "AccumulateGrad#28 (w1)" in row(graph, "AccumulateGrad#28")
        assert "[no_grad]" in row(graph, "SigmoidBackward0#24")
        assert "✂ SigmoidBackward0#24 (1,0)" in row(graph, "AddBackward0#20")
        # b1's branch is not needed for w1: pruned, and never run
        assert "[pruned]" in row(graph, "MulBackward0#19") and "pending" in row(graph, "MulBackward0#19")
        # the cut-off node sits below the node whose edge was cut
        assert graph.index(row(graph, "SigmoidBackward0#24")) > graph.index(row(graph, "AddBackward0#20"))
        assert "results           w1 = [[-0.6397, 0.7425]" in t["general"]
        await pilot.press("j", *"AddBackward0#20", "enter")
        assert "copy of AddBackward0#8" in pane_texts(scr)["detail"]


async def test_hooks_and_released_wrappers_from_a_script():
    """``minigrad-tui hooks.py``: a hook on y shows in y's grad node; grad nodes that ran are released.

    Node ids come from the engine's process-wide counters, so names are looked up, not assumed.
    """
    from minigrad.tui.app import open_source

    fixtures = Path(__file__).resolve().parent / "fixtures"  # not `from conftest`: tests/viz has one too
    session, error = open_source(str(fixtures / "scripts" / "hooks.py"))
    assert error is None
    final = session.replay.final
    y_node = next(t.grad_node for t in final.tensors.values() if t.name == "y")
    y_name = session.node_name(y_node)  # MulBackward0#<n>: the backward of x * 2
    lay = session.layout(0)
    first_mul = session.node_name(next(n for n in lay.order if lay.nodes[n].op == "mul"))  # (y * y)'s node
    acc_name = session.node_name(next(n for n in lay.order if lay.nodes[n].is_accumulation))
    app = MinigradApp(session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("j", *y_name, "enter")  # lands on its node.begin: its hooks run next
        t = pane_texts(scr)
        assert t["detail"].startswith(y_name) and "hooks  -" in t["detail"]
        while scr.session.events[scr.index].kind != "node.run":
            await pilot.press("right")
        t = pane_texts(scr)
        assert "hooks  tensor on y @ event" in t["detail"] and "retain_grad on y" in t["detail"]
        await pilot.press("end")
        t = pane_texts(scr)
        grad_nodes = [ln for ln in t["graph"] if "AccumulateGrad" not in ln.split()[2]]
        assert len(grad_nodes) == 3 and all(ln.startswith("✓") and " released " in ln for ln in grad_nodes)
        assert row(t["graph"], acc_name).startswith("● ")  # ran; it saved nothing to release
        await pilot.press("j", *first_mul, "enter")  # lands on its node.begin
        while scr.session.events[scr.index].kind != "node.run":  # then its node.run: not released yet
            await pilot.press("right")
        assert "released" not in pane_texts(scr)["detail"]
        await pilot.press("right")  # wrappers.clear
        assert f"wrappers.clear {first_mul}" in pane_texts(scr)["status"]
        assert "(TensorWrappers released)" in pane_texts(scr)["detail"]


async def test_each_pass_opens_on_its_start_node(demo_session):
    """Pass 1 (grad()) begins at a GeneralGrad copy made a few events later: the detail names it, as pass 0's does."""
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        assert pane_texts(scr)["detail"].startswith("AddBackward0#14")
        await pilot.press("c", "down", "enter")
        assert scr.pass_no == 1 and scr.index == demo_session.passes[1].begin
        d = pane_texts(scr)["detail"]
        assert d.startswith("AddBackward0#15  the start node, GeneralGrad's copy of AddBackward0#14: created at event")
        assert "(no node selected" not in d


async def test_help_legend_keeps_each_glyph_with_its_word(demo_session):
    """At 80x24 the help's node-state legend never wraps a glyph away from its word ("╳" / "pruned")."""
    app = MinigradApp(demo_session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        app.screen.query_one("#help-legend").scroll_visible(animate=False, top=True)
        await pilot.pause()
        screen = [strip.text for strip in app.screen._compositor.render_strips()]
        for word in ("○ pending", "◆ queued", "▶ running", "● done", "✓ released", "╳ pruned"):
            assert any(word in line for line in screen), (word, screen)


async def test_forward_tab_keeps_a_space_after_four_digit_call_numbers():
    import minigrad as mg
    from minigrad.tui.model import Session

    with mg.trace(values=False) as tr:
        x = mg.ones(2)
        for _ in range(1001):
            x = x + 1
    app = MinigradApp(Session(tr.events, title="many"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        fwd = app.main_screen.query_one(ForwardView)
        assert fwd.call_lines(999)[0].plain.startswith("#999 add(")
        assert fwd.call_lines(1000)[0].plain.startswith("#1000 add(")
