"""The web stepper's data and page, without a browser (tests/browser drives the page in Chromium).

The page's script only assigns the effects ``stepper`` computed; these tests apply the effects the
same way in Python and check the result against ``mg.trace.replay`` at every event, so a wrong
effect fails here before any browser is involved.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import graphviz
import pytest

import minigrad as mg
from minigrad.cli import main as cli
from minigrad.tracing.replay import Replay
from minigrad.viz import DotNotFoundError, stepper
from minigrad.viz.graph import display_status
from minigrad.viz.stepper import STATUSES

FIXTURES = Path(__file__).parent / "fixtures"
DEMO = Path(__file__).parent.parent / "tui" / "fixtures" / "demo.jsonl"
PANES = ("graph", "queue", "in-degree", "buffers", "log", "node")


def apply_effects(p: dict[str, Any]) -> list[dict[str, Any]]:
    """What the page shows after each event of pass ``p``: the script's ``apply``, written in Python."""
    s = {"status": list(p["init"]["status"]), "degree": list(p["init"]["degree"]), "queue": [], "current": -1,
         "changed": -1, "buffers": {}, "general": None}
    out = []
    for ev in p["events"]:
        e = ev[3] if len(ev) > 3 else {}
        if "q" in e:
            s["queue"] = e["q"]
        if "c" in e:
            s["current"] = e["c"]
        if "lc" in e:
            s["changed"] = e["lc"]
        if "g" in e:
            s["general"] = e["g"]
        for k, v in e.get("d", []):
            s["degree"][k] = v
        for k, v in e.get("s", []):
            s["status"][k] = v
        for k, v in e.get("b", []):
            if v is None:
                s["buffers"].pop(k, None)
            else:
                s["buffers"][k] = v
        out.append({"status": list(s["status"]), "degree": list(s["degree"]), "queue": list(s["queue"]),
                    "current": s["current"], "changed": s["changed"], "buffers": dict(s["buffers"]),
                    "general": s["general"]})
    return out


def check_against_replay(events: list) -> dict[str, Any]:
    rp = Replay(events)
    page = stepper(rp)
    assert page.data["passes"], "the trace has a backward pass"
    for p in page.data["passes"]:
        ids = p["ids"]
        shown = apply_effects(p)
        assert len(shown) == p["end"] - p["begin"] + 1
        for offset, got in enumerate(shown):
            i = p["begin"] + offset
            st = rp[i]
            bw = st.passes[p["number"]]
            assert [ids[k] for k in got["queue"]] == list(bw.queue), f"queue at event {i}"
            degrees = {ids[k]: v for k, v in enumerate(got["degree"]) if v >= 0}
            assert degrees == dict(bw.in_degree), f"in-degree map at event {i}"
            statuses = [STATUSES[c] for c in got["status"]]
            assert statuses == [display_status(st, n, bw) if n in st.nodes else "idle" for n in ids], f"statuses at event {i}"
            current = bw.current if bw.current is not None and not bw.done else None
            assert (ids[got["current"]] if got["current"] >= 0 else None) == current, f"current node at event {i}"
            assert sorted(ids[k] for k in got["buffers"]) == sorted(n for n in bw.buffers if n in ids), f"buffers at event {i}"
            assert (ids[got["changed"]] if got["changed"] >= 0 else None) == bw.last_changed
            g = bw.general
            if g is None:
                assert got["general"] is None
            else:  # the GeneralGrad tab names what the replay's marks hold
                rows = dict(got["general"])
                assert rows["startup"] == (", ".join(rp.final.node_name(n) for n in sorted(g.startup)) or "-")
                assert rows["needed"] == (", ".join(rp.final.node_name(n) for n in sorted(g.needed)) or "-")
    return page.data


@pytest.mark.parametrize("name", ["simple_backward", "two_layers", "grad_pruned", "grad_no_grad_vars"])
def test_effects_agree_with_replay_at_every_event(name):
    check_against_replay(mg.trace.load(FIXTURES / f"{name}.jsonl").events)


def test_two_passes_and_general_grad_view():
    data = check_against_replay(mg.trace.load(DEMO).events)
    modes = [p["mode"] for p in data["passes"]]
    assert modes == ["backward", "grad"]
    def general_effects(p):
        return [(p["begin"] + k, dict(ev[3]["g"])) for k, ev in enumerate(p["events"]) if len(ev) > 3 and "g" in ev[3]]

    assert general_effects(data["passes"][0]) == []
    steps = general_effects(data["passes"][1])
    assert len(steps) >= 3  # GeneralGrad's decisions appear as they are made: copy, targets, update, prune, result
    at, rows = steps[-1]
    assert set(rows) >= {"startup", "ending", "needed", "pruned edges", "results"}
    assert rows["results"] != "-" and mg.trace.load(DEMO).events[at].kind == "general_grad.result"
    assert steps[0][1]["startup"] == "-"  # before general_grad.update, nothing is decided


def test_a_live_recording_with_modules_carries_provenance():
    with mg.trace() as tr:
        model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 1))
        model(mg.randn(2, 3)).sum().backward()
    data = check_against_replay(tr.events)
    details = data["passes"][0]["detail"]
    assert any(d.get("module", "").startswith("Sequential") for d in details)
    assert any(d.get("source", "").startswith("test_web_stepper.py:") for d in details)


def test_log_texts_come_from_the_one_describer():
    events = mg.trace.load(FIXTURES / "simple_backward.jsonl").events
    rp = Replay(events)
    data = stepper(rp).data
    p = data["passes"][0]
    from minigrad.tracing.describe import describe, explain

    for offset, (kind, what, why, *_rest) in enumerate(p["events"]):
        i = p["begin"] + offset
        assert data["kinds"][kind] == events[i].kind
        assert what == describe(events[i], rp.final)
        assert data["whys"][why] == explain(events[i], rp[i]) or events[i].kind in ("api.call", "tensor.create")


def test_page_is_self_contained_and_keeps_the_dom_contract(simple_events):
    page = stepper(simple_events).html()
    # No address outside the page: only the SVG namespace names use http(s).
    urls = set(re.findall(r"https?://[^\s\"'<>)\\]+", page))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, urls
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page)
    assert re.search(r'<div id="minigrad-stepper"[^>]*data-event="-1"', page)
    for pane in PANES:
        assert f'id="{pane}"' in page
    assert "#event=" in page


def test_svg_gives_every_node_its_handles(simple_events):
    data = stepper(simple_events).data
    p = data["passes"][0]
    svg = p["svg"]
    for nid in p["ids"]:
        assert f'id="n{nid}"' in svg
        assert f'id="n{nid}-in"' in svg and f'id="n{nid}-q"' in svg
    assert svg.count('class="shape"') == len(p["ids"])
    assert "in 99" not in svg and "Q99" not in svg  # the placeholders that reserve room are emptied


def test_limits_are_stated_on_the_page():
    events = mg.trace.load(DEMO).events
    one = stepper(events, max_events=300)
    assert len(one.data["passes"]) == 1
    assert any("holds pass 0 of the 2" in n for n in one.notes)
    none = stepper(events, max_events=10)
    assert none.data["passes"] == [] and any("holds no pass of the 2" in n for n in none.notes)
    listed = stepper(events, max_graph_nodes=3)
    assert all(p["svg"] is None for p in listed.data["passes"])
    assert any("shows the nodes as a list" in n for n in listed.notes)
    assert "holds pass 0" in one.html()


def test_a_trace_without_backward_says_so():
    with mg.trace() as tr:
        _ = mg.ones(2) + 1
    page = stepper(tr)
    assert page.data["passes"] == []
    assert any("no backward pass" in n for n in page.notes)


def test_the_error_that_ended_a_run_outside_backward_is_on_the_page():
    """An exception in a forward op (after a backward pass, or with none) ends no pass, so no pass shows it:
    the page's notes name it, as the TUI's header does; an error inside backward stays its pass's."""
    with mg.trace() as tr:
        x = mg.ones(2, 3, requires_grad=True)
        (x * 2).sum().backward()
        try:
            _ = x @ mg.ones(4, 2)
        except RuntimeError:
            pass
    page = stepper(tr)
    assert len(page.data["passes"]) == 1 and page.data["passes"][0]["error"] is None
    ended = [n for n in page.notes if n.startswith("The run ended with")]
    assert len(ended) == 1 and re.fullmatch(r"The run ended with ShapeError in matmul\(\) at \S*test_web_stepper\.py:\d+: "
                                            r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x2\)", ended[0]), page.notes

    with mg.trace() as tr:
        y = mg.ones(2, requires_grad=True) * 2
        y.sum().backward()
        try:
            y.sum().backward()  # the graph was freed: the error ends this pass
        except RuntimeError:
            pass
    page = stepper(tr)
    assert page.data["passes"][-1]["error"] is not None
    assert not any(n.startswith("The run ended with") for n in page.notes)


def test_notebook_display_is_an_isolated_frame(simple_events):
    html = stepper(simple_events)._repr_html_()
    assert html.startswith("<iframe") and "srcdoc=" in html
    assert "minigrad-stepper" in html and "&lt;script" in html


def test_missing_graphviz_says_how_to_install(simple_events, monkeypatch):
    def no_dot(*args, **kwargs):
        raise graphviz.ExecutableNotFound(("dot",))

    monkeypatch.setattr(graphviz, "pipe", no_dot)
    with pytest.raises(DotNotFoundError, match="apt-get install graphviz"):
        stepper(simple_events)


def test_cli_web(tmp_path, capsys):
    out = tmp_path / "page.html"
    assert cli(["web", str(FIXTURES / "two_layers.jsonl"), "-o", str(out)]) == 0
    assert "minigrad-stepper" in out.read_text(encoding="utf-8")
    assert "1 backward pass" in capsys.readouterr().err
    assert cli(["web", str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    assert cli(["web", str(bad), "-o", str(tmp_path / "x.html")]) == 2


def test_cli_web_without_graphviz_exits_3(tmp_path, monkeypatch, capsys):
    def no_dot(*args, **kwargs):
        raise graphviz.ExecutableNotFound(("dot",))

    monkeypatch.setattr(graphviz, "pipe", no_dot)
    assert cli(["web", str(FIXTURES / "two_layers.jsonl"), "-o", str(tmp_path / "p.html")]) == 3
    assert "graphviz" in capsys.readouterr().err.lower()


def test_quiz_questions_are_the_tuis():
    from minigrad.tui.model import Session

    events = mg.trace.load(DEMO).events
    session = Session(events)
    data = stepper(events).data
    asked = 0
    for p in data["passes"]:
        ids = p["ids"]
        for q in p["quiz"]:
            want = session.question(q["run"], p["number"])
            assert ids[q["node"]] == want.node
            assert q["ask"] == want.ask_index and q["after"] == want.after_index
            assert [ids[k] for k in q["succ"]] == list(want.successors)
            assert q["deg"] == list(want.in_degree_after)
            assert [ids[k] for k in q["cand"]] == list(want.candidates)
            assert q["why"] == session.why_runs(want)
            asked += 1
    assert asked > 10


def test_a_long_flipbook_points_to_the_stepper(tmp_path, monkeypatch, capsys):
    import minigrad.cli as cli_module

    monkeypatch.setattr(cli_module, "FLIPBOOK_HINT_FRAMES", 5)
    assert cli(["render", str(FIXTURES / "simple_backward.jsonl"), "--flipbook", str(tmp_path / "f.html")]) == 0
    assert "minigrad web" in capsys.readouterr().err
    monkeypatch.setattr(cli_module, "FLIPBOOK_HINT_FRAMES", 10_000)
    assert cli(["render", str(FIXTURES / "simple_backward.jsonl"), "--flipbook", str(tmp_path / "g.html")]) == 0
    assert "minigrad web" not in capsys.readouterr().err


def test_replay_pass_at_is_the_states_pass():
    rp = Replay(mg.trace.load(DEMO).events)
    for number, (begin, end, _) in enumerate(rp.backward_passes()):
        for i in list(range(0, len(rp), 7)) + [begin - 1, begin, end]:
            st = rp[i]
            want = st.passes[number] if number < len(st.passes) else None
            assert rp.pass_at(i, number) == want, (i, number)
    with pytest.raises(IndexError):
        rp.pass_at(len(rp), 0)


def test_a_failed_layout_falls_back_to_the_list(simple_events, monkeypatch):
    def broken(*args, **kwargs):
        raise graphviz.CalledProcessError(1, ["dot"], output=b"", stderr=b"trouble")

    monkeypatch.setattr(graphviz, "pipe", broken)
    page = stepper(simple_events)
    assert page.data["passes"][0]["svg"] is None
    assert any("could not lay out pass 0" in n for n in page.notes)


@pytest.mark.parametrize("cut", [107, 150, 420])
def test_a_recording_cut_mid_pass_still_agrees(cut):
    data = check_against_replay(mg.trace.load(DEMO).events[:cut])
    assert data["passes"][-1]["complete"] is False
