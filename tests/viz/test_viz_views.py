"""Forward and kernel-selection views, flip-books, Chrome export, big graphs, missing Graphviz."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import hand_traces as H
import pytest
from viz_helpers import FIXTURES, needs_dot, parse_svg

import minigrad.viz as viz
from minigrad.tracing import Recorder, replay
from minigrad.tracing import events as E
from minigrad.viz.style import FORWARD_FILL


# ---------------------------------------------------------------------------
# forward and kernel views
# ---------------------------------------------------------------------------


@needs_dot
def test_forward_graph_tensors_ops_and_kernels(simple_events):
    nodes, edges = parse_svg(viz.render(simple_events, kind="forward").svg())
    # Leaves that require grad: green, double border; op outputs: blue.
    for t in ("t1", "t2"):
        assert nodes[t].fill == FORWARD_FILL["leaf_grad"] and "leaf" in nodes[t].classes
        assert "leaf, requires_grad" in nodes[t].texts
    assert nodes["t3"].fill == FORWARD_FILL["tensor"] and "grad_fn MulBackward0#2" in nodes["t3"].texts
    assert "2 float32" in nodes["t3"].texts and "scalar float32" in nodes["t5"].texts
    ops = {k: v for k, v in nodes.items() if k.startswith("c")}
    assert sorted(n.texts[0] for n in ops.values()) == ["add", "mul", "sum"]
    mul = next(n for n in ops.values() if n.texts[0] == "mul")
    assert "kernel mul_cpu" in mul.texts and "key CPU/ALL_LAYOUT/float32" in mul.texts
    # x feeds mul (argument 0) and add (argument 1).
    titles = {e.title for e in edges.values()}
    assert {f"t1->{mul.title}", f"{mul.title}->t3"} <= titles
    # Backward-phase tensors (none here) and grad nodes are not drawn.
    assert not any(k.startswith("n") for k in nodes)


@needs_dot
def test_kernel_view_lists_probes_hits_and_misses(simple_events):
    nodes, edges = parse_svg(viz.render(simple_events, kind="kernel", call="mul").svg())
    texts = {k: n.texts for k, n in nodes.items()}
    flat = [t for k in sorted(texts, key=lambda k: int(k[1:])) for t in texts[k]]
    assert flat[0].startswith("mul(")
    assert "KernelKey" in flat and "probe 1: GPUDNN" in flat and "probe 2: backend" in flat
    probe1 = next(n for n in nodes.values() if "probe 1: GPUDNN" in n.texts)
    probe2 = next(n for n in nodes.values() if "probe 2: backend" in n.texts)
    assert probe1.fill == FORWARD_FILL["miss"] and "miss" in probe1.texts
    assert probe2.fill == FORWARD_FILL["hit"] and "HIT" in probe2.texts
    assert "selected mul_cpu" in flat and "InferMeta" in flat and "launch mul_cpu" in flat
    assert len(edges) == len(nodes) - 1  # one chain, top to bottom


@needs_dot
def test_kernel_view_shows_cpu_fallback_and_transforms():
    evs = [
        E.TensorCreate(tensor=1, name="a", shape=[2], dtype="float16", device="gpu", requires_grad=False,
                       is_leaf=True, grad_node=None, out_slot=0, out_rank=0),
        E.ApiCall(op="erf", inputs=[1], attrs={}),
        E.KernelKeyEvent(op="erf", backend="GPU", layout="ANY", dtype="float16"),
        *[E.KernelLookup(op="erf", backend=b, layout=l, dtype="float16", step=s, found=f)
          for s, b, l, f in [("GPUDNN", "GPUDNN", "ANY", False), ("GPUDNN/ALL_LAYOUT", "GPUDNN", "ALL_LAYOUT", False),
                             ("backend", "GPU", "ANY", False), ("backend/ALL_LAYOUT", "GPU", "ALL_LAYOUT", False),
                             ("CPU", "CPU", "ANY", True)]],
        E.KernelSelect(op="erf", kernel="erf_cpu", backend="CPU", layout="ANY", dtype="float16", fallback_cpu=True),
        E.DataTransform(op="erf", arg="x", what="backend", from_="GPU", to="CPU"),
        E.KernelLaunch(op="erf", kernel="erf_cpu", backend="CPU", wall_ns=1500),
    ]
    r = viz.render(H._stamp(evs), kind="kernel")
    nodes, _ = parse_svg(r.svg())
    sel = next(n for n in nodes.values() if "selected erf_cpu" in n.texts)
    assert sel.fill == FORWARD_FILL["fallback"] and "CPU fallback: output copied back" in sel.texts
    assert sum("miss" in n.texts for n in nodes.values()) == 4
    assert any("backend: GPU -> CPU" in n.texts for n in nodes.values())


def test_kernel_view_errors_name_what_exists(simple_events):
    with pytest.raises(LookupError, match="no op call named 'conv2d'; the trace has: add, mul, sum"):
        viz.render(simple_events, kind="kernel", call="conv2d")
    with pytest.raises(LookupError, match="out of range"):
        viz.render(simple_events, kind="kernel", call=7)


# ---------------------------------------------------------------------------
# sources
# ---------------------------------------------------------------------------


def test_every_kind_of_source_gives_the_same_dot(simple_events, tmp_path):
    path = tmp_path / "run.jsonl"
    rec = Recorder(events=simple_events)
    rec.save(path)
    want = viz.render(simple_events, step=40).source
    assert viz.render(rec, step=40).source == want
    assert viz.render(str(path), step=40).source == want
    assert viz.render(path, step=40).source == want
    assert viz.render(replay(simple_events), step=40).source == want
    state = replay(simple_events)[40]
    assert viz.render(state).source == want
    with pytest.raises(TypeError, match="argument 'source'"):
        viz.render(3.5)


def test_the_digraph_is_returned_and_nothing_is_written(simple_events, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = viz.render(simple_events)
    assert type(r.digraph).__name__ == "Digraph"
    assert r._repr_svg_() is None or r._repr_svg_().lstrip().startswith("<?xml")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------
# flip-book
# ---------------------------------------------------------------------------


def _frames(html: str) -> list[tuple[int, str]]:
    return [(int(m.group(1)), m.group(2)) for m in
            re.finditer(r'<section class="frame" id="frame-\d+" data-step="(\d+)"[^>]*>\s*(<svg.*?</svg>)\s*</section>',
                        html, flags=re.S)]


@needs_dot
def test_flipbook_has_one_frame_per_backward_step(simple_events, tmp_path):
    book = viz.flipbook(simple_events)
    html = book.save(tmp_path / "fb.html").read_text()
    begin = H.index_of(simple_events, "backward.begin")
    end = H.index_of(simple_events, "backward.end")
    frames = _frames(html)
    assert [s for s, _ in frames] == list(range(begin, end + 1))
    for _, svg in frames:
        ET.fromstring(svg)  # each frame is a well-formed SVG
    # Controls: buttons, a slider over all frames, the arrow keys.
    assert 'id="prev"' in html and 'id="next"' in html
    assert f'type="range" min="0" max="{len(frames) - 1}"' in html
    assert "ArrowLeft" in html and "ArrowRight" in html
    # Self-contained: no scripts, styles or images fetched from anywhere.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<!DOCTYPE svg" not in html and "svg11.dtd" not in html
    urls = set(re.findall(r"https?://[^\s\"'<>]+", html))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


@needs_dot
def test_flipbook_frames_follow_the_pass_and_keep_the_layout(simple_events):
    book = viz.flipbook(simple_events)
    by_step = {f.step: f for f in book.frames}
    run_mul = H.index_of(simple_events, "node.run", node=2)
    nodes, _ = parse_svg(by_step[run_mul].svg)
    assert "running" in nodes["n2"].classes
    assert "ran MulBackward0#2" in by_step[run_mul].caption
    # Every node sits at the same place in every frame.
    first, _ = parse_svg(book.frames[0].svg)
    for f in book.frames[1:]:
        nodes, _ = parse_svg(f.svg)
        for key in ("n0", "n1", "n2", "n3", "n4"):
            assert nodes[key].center == first[key].center, (f.step, key)


@needs_dot
def test_flipbook_per_node_run_and_grad_pass(grad_events):
    book = viz.flipbook(grad_events, frames="node")
    assert len(book) == 4 + 2  # begin, four node runs, end
    last, edges = parse_svg(book.frames[-1].svg)
    assert "pruned" in last["n22"].classes and "pruned" in edges["e23_1_0"].classes
    with pytest.raises(ValueError, match="frames"):
        viz.flipbook(grad_events, frames="second")


def test_flipbook_needs_a_backward_pass():
    evs = H._stamp([E.ApiCall(op="add", inputs=[], attrs={})])
    with pytest.raises(IndexError, match="no backward pass"):
        viz.flipbook(evs)


# ---------------------------------------------------------------------------
# Chrome trace export
# ---------------------------------------------------------------------------


def test_chrome_trace_has_kernel_and_node_slices(simple_events, tmp_path):
    path = viz.save_chrome_trace(simple_events, tmp_path / "trace.json")
    doc = json.loads(path.read_text())
    evs = doc["traceEvents"]
    slices = [e for e in evs if e["ph"] == "X"]
    for e in slices:
        assert {"name", "ts", "dur", "pid", "tid"} <= set(e) and e["dur"] > 0
    kernels = [e for e in slices if e["cat"] == "kernel"]
    assert [k["name"] for k in kernels] == ["mul_cpu", "add_cpu", "sum_cpu"]
    assert all(k["dur"] == 0.4 for k in kernels)  # wall_ns=400
    nodes = [e for e in slices if e["cat"] == "node"]
    assert [n["name"] for n in nodes] == ["SumBackward0#4", "AddBackward0#3", "MulBackward0#2",
                                          "AccumulateGrad#1", "AccumulateGrad#0"]
    (bw,) = [e for e in slices if e["cat"] == "backward"]
    for n in nodes:  # node runs nest inside the backward slice
        assert bw["ts"] <= n["ts"] and n["ts"] + n["dur"] <= bw["ts"] + bw["dur"] + 1e-9
    ops = [e for e in slices if e["cat"] == "op"]
    assert [o["name"] for o in ops] == ["mul", "add", "sum"]
    names = {e["args"]["name"] for e in evs if e["ph"] == "M"}
    assert {"kernels", "backward", "forward ops"} <= names


# ---------------------------------------------------------------------------
# big graphs
# ---------------------------------------------------------------------------


@needs_dot
def test_hundreds_of_nodes_collapse_and_render_in_seconds():
    evs = H.long_chain(n=450, width=3)
    start = time.perf_counter()
    r = viz.render(evs)
    svg = r.svg()
    elapsed = time.perf_counter() - start
    nodes, _ = parse_svg(svg)
    assert len(replay(evs).final.nodes) > 450
    assert len(nodes) < 40, len(nodes)
    chains = [n for n in nodes.values() if "chain" in n.classes]
    assert len(chains) == 3
    assert any(t.startswith("… 149 nodes (") for t in chains[0].texts)
    print(f"rendered in {elapsed:.2f} s")  # timed in bench/viewers.py, not asserted
    # Without collapsing every node is drawn.
    full = viz.render(evs, collapse=False)
    assert len(full.graph.nodes) > 450


@needs_dot
def test_deep_mlp_folds_layers_with_their_parameters():
    evs = H.mlp_like(layers=100)  # 501 grad nodes, 200 of them AccumulationNodes
    start = time.perf_counter()
    r = viz.render(evs)
    nodes, edges = parse_svg(r.svg())
    print(f"rendered in {time.perf_counter() - start:.2f} s")  # timed in bench/viewers.py, not asserted
    assert len(replay(evs).final.nodes) == 501
    assert len(nodes) < 20, sorted(nodes)
    (chain,) = [n for n in nodes.values() if "chain" in n.classes]
    assert "199× AccumulateGrad (parameters)" in chain.texts and "100× AddBackward0" in chain.texts
    assert chain.texts[0].startswith("… 498 nodes (ReluBackward0#499")
    # The queued root stays visible, with its badge.
    root = nodes["n500"]
    assert "queued" in root.classes and "Q1" in root.texts
    # Without collapsing every node is drawn.
    full = viz.render(evs, collapse=False)
    assert len(full.graph.nodes) > 450


# ---------------------------------------------------------------------------
# without Graphviz
# ---------------------------------------------------------------------------


def test_missing_dot_says_how_to_install_and_saves_the_source(simple_events, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    r = viz.render(simple_events)
    with pytest.raises(viz.DotNotFoundError, match="apt-get install graphviz") as info:
        r.save(tmp_path / "graph.svg")
    assert "saved to" in str(info.value)
    assert (tmp_path / "graph.dot").read_text().startswith("digraph minigrad_backward")
    assert not (tmp_path / "graph.svg").exists()
    assert r._repr_svg_() is None and "apt-get install graphviz" in r._repr_html_()
    assert r.save(tmp_path / "g.gv").read_text() == r.source  # DOT output needs no dot program


def test_import_minigrad_does_not_import_the_viewers():
    code = ("import sys, minigrad, minigrad.cli; "
            "print(' '.join(m for m in ('graphviz', 'rich', 'textual', 'minigrad.viz') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_committed_fixtures_load():
    from minigrad.tracing import load

    assert len(load(FIXTURES / "simple_backward.jsonl").events) == len(H.simple_backward())
    assert len(load(FIXTURES / "grad_pruned.jsonl").events) == len(H.grad_with_pruning())


@needs_dot
def test_deep_forward_graph_folds_layers_with_their_weights():
    evs = H.deep_forward(layers=60)  # 181 tensors, 120 op calls
    r = viz.render(evs, kind="forward")
    nodes, _ = parse_svg(r.svg())
    assert len(nodes) < 12, sorted(nodes)
    (chain,) = [n for n in nodes.values() if "chain" in n.classes]
    # The first matmul (fed only by leaves x and W0) starts the chain and stays visible.
    assert "59× matmul" in chain.texts and "60× relu" in chain.texts
    assert "59× leaf tensor (parameters)" in chain.texts
    assert {"t0", "t1"} <= set(nodes) and nodes["c2"].texts[0] == "matmul"
    assert len(viz.render(evs, kind="forward", collapse=False).graph.nodes) == 181 + 120


# -- one forward pass by default (a training loop records many) ------------------------------


def _loop_trace(steps: int = 3):
    import minigrad as mg

    with mg.trace() as tr:
        w = mg.tensor([1.0, 2.0], requires_grad=True)
        w.name = "w"
        for _ in range(steps):
            (w * w).sum().backward()
    return tr


def test_forward_view_draws_one_forward_pass_by_default():
    tr = _loop_trace()
    latest = viz.render(tr, kind="forward")
    first = viz.render(tr, kind="forward", backward_pass=0)
    every = viz.render(tr, kind="forward", all_passes=True)
    ops = lambda r: sorted(n.title for n in r.graph.nodes if n.kind == "op")  # noqa: E731
    assert ops(latest) == ops(first) == ["mul", "sum"]
    assert ops(every) == ["mul", "mul", "mul", "sum", "sum", "sum"]
    assert latest.graph.title.startswith("forward pass 2 (builds backward pass 2)")
    assert first.graph.title.startswith("forward pass 0 ")
    assert every.graph.title.startswith("every forward pass")
    # the leaf used by every pass is drawn in each
    assert any(n.title == "w" for n in latest.graph.nodes)


def test_cli_forward_all(tmp_path, capsys):
    from minigrad.cli import main

    path = tmp_path / "loop.jsonl"
    _loop_trace().save(path)
    out = tmp_path / "f.dot"
    assert main(["render", str(path), "--kind", "forward", "-o", str(out)]) == 0
    one = out.read_text()
    assert main(["render", str(path), "--kind", "forward", "--all", "-o", str(out)]) == 0
    every = out.read_text()
    assert every.count("label=<") > one.count("label=<")


def test_kernel_view_of_a_cached_selection_names_the_first_search():
    import minigrad as mg

    with mg.trace() as tr:
        a = mg.tensor([1.0, 2.0])
        _ = a * a
        _ = a * a  # the second call finds its kernel in the selection cache
    r = viz.render(tr, kind="kernel", call=1)
    titles = [n.title for n in r.graph.nodes]
    sel = next(n for n in r.graph.nodes if n.title.startswith("selected "))
    assert "from the selection cache" in sel.rows
    cached = next(n for n in r.graph.nodes if n.title == "cached selection")
    assert cached.rows[0] in ("the probes of the first search were:", "no probes: found in the cache")
    assert titles.index("cached selection") < titles.index(sel.title)


def test_a_linear_is_pytorchs_addmm_of_the_weights_transpose():
    """``nn.Linear`` on rows is ``addmm(bias, x, weight.t())``, as PyTorch's: both views show the
    ``t`` and the ``addmm``, and the backward graph names them as ``print(loss.grad_fn)`` would."""
    import minigrad as mg

    with mg.trace() as tr:
        lin = mg.nn.Linear(10, 32)
        lin(mg.ones(64, 10)).sum().backward()
    fwd = viz.render(tr, kind="forward").graph
    assert {"addmm", "t"} <= {n.title for n in fwd.nodes}
    bwd = viz.render(tr, kind="backward").graph
    titles = [n.title for n in bwd.nodes]
    assert any(t.startswith("AddmmBackward0") for t in titles) and any(t.startswith("TBackward0") for t in titles)
    (s,) = [n for n in bwd.nodes if n.title.startswith("SumBackward0")]
    assert not any("keepdim" in r or "dim=" in r for r in s.rows)  # unset values and flags that are off: left out
