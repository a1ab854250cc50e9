"""The one describer of events (``minigrad.tracing.describe``): every kind, NaN-safe, the same words everywhere."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

import minigrad as mg
from minigrad.tracing import EVENT_TYPES, load
from minigrad.tracing import events as E
from minigrad.tracing.describe import GLOSSARY, describe, explain, fmt_value
from minigrad.tracing.replay import replay

DEMO = Path(__file__).parent / "tui" / "fixtures" / "demo.jsonl"


def _recorded() -> list:
    with mg.trace() as tr:
        w = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        w.name = "w"
        x = mg.tensor([0.5, -1.0], requires_grad=True)
        y = (w @ x).tanh()
        z = mg.concat([y, x]).sum()
        z.backward(retain_graph=True)
        mg.grad([z], [x])
    return tr.events


def test_every_kind_the_engine_emits_has_its_own_words_and_a_rule():
    events = _recorded() + load(DEMO).events
    rp = replay(events)
    seen = set()
    for i, ev in enumerate(events):
        text = describe(ev, rp.final)
        assert text and not text.startswith(("seq=", "node=", "tensor=")), (ev.kind, text)
        seen.add(ev.kind)
        why = explain(ev, rp[i])
        if ev.kind != "unknown":
            assert why, ev.kind
    # Every kind with a handler is reachable from the contract (no dead branches for kinds that do not exist).
    for kind in ("queue.push", "queue.skip", "node.begin", "node.run", "buffer.add", "wrappers.clear"):
        assert kind in EVENT_TYPES


def test_one_table_holds_both_words_of_every_kind():
    """``WORDS`` is the one dispatch table: every contract kind has a what and a why handler named after it
    (a misspelt name leaves its kind without words, and fails here), and handlers come in pairs."""
    from minigrad.tracing import describe as D

    assert set(D.WORDS) == set(EVENT_TYPES) - {"unknown"}
    for kind, words in D.WORDS.items():
        name = kind.replace(".", "_")
        assert words.what.__name__ == "what_" + name and words.why.__name__ == "why_" + name
    whats = {n[len("what_"):] for n in vars(D) if n.startswith("what_")}
    whys = {n[len("why_"):] for n in vars(D) if n.startswith("why_")}
    assert whats == whys


def test_the_rules_name_the_engine_reason():
    events = load(DEMO).events
    rp = replay(events)
    whys = {explain(ev, rp[i]) for i, ev in enumerate(events)}
    assert "pushed to the front: AccumulateGrad nodes jump the queue" in whys
    assert "released: retain_graph=False, so the node frees its saved tensors after running" in whys
    skip = E.QueueSkip(node=3, in_degree=2)
    assert explain(skip).startswith("skipped: in-degree 2 ≠ 0 while other nodes wait")


def test_non_finite_values_are_shown_not_raised():
    assert fmt_value([math.nan, math.inf, -math.inf, 1.5]) == "[nan, inf, -inf, 1.5]"
    ev = E.BufferAdd(node=1, slot=0, rank=0, source=None, value=[[math.nan, math.inf]])
    assert describe(ev).endswith("[[nan, inf]]")
    ev = E.KernelLaunch(op="add", kernel="add_cpu", backend="CPU", wall_ns=math.nan)
    assert "nan" in describe(ev)
    ev = E.GradAccumulate(tensor=2, value=-math.inf)
    assert describe(ev) == "t2.grad = -inf"


def test_odd_field_types_fall_back_to_a_generic_line():
    ev = E.QueuePush(node=1, front=False, queue=None)  # not a list
    text = describe(ev)
    assert "node=1" in text
    assert isinstance(explain(E.InDegreeUpdate(node=1, in_degree=None)), str)  # never raises


def test_summaries_and_shapes_read_one_way():
    assert fmt_value({"shape": [128, 64], "dtype": "float32"}) == "<128x64 float32>"
    assert fmt_value(list(range(100)), max_len=20).endswith("…")
    assert fmt_value(None) == "None"


def test_viewers_use_the_one_describer(tmp_path):
    """The renderer's title, the TUI's log line and `minigrad log` print the describer's words for one event."""
    pytest.importorskip("textual")
    import minigrad.viz as viz
    from minigrad.cli import main as cli_main
    from minigrad.tui.model import Session

    events = load(DEMO).events
    rp = replay(events)
    n = next(i for i, ev in enumerate(events) if ev.kind == "queue.push" and ev.front)
    words = describe(events[n], rp.final)
    title = viz.render(rp, step=n).graph.title
    assert words in title
    s = Session(events)
    assert describe(events[n], s) == words
    import minigrad.tui.format as fmt

    assert not hasattr(fmt, "describe_event")  # no second describer in the TUI
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli_main(["log", str(DEMO), "--width", "400"])
    line = next(ln for ln in out.getvalue().splitlines() if re.match(rf"^\W*{n} ", ln))
    assert words[:40] in line


def test_glossary_defines_the_jargon():
    for term in ("slot", "rank", "topo_nr", "seq_nr", "in-degree", "AccumulateGrad", "TensorWrapper",
                 "needed", "startup", "ending", "pruned"):
        assert term in GLOSSARY and len(GLOSSARY[term]) > 30
