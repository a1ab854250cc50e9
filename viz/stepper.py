"""The web stepper: a recording as one self-contained HTML page with the TUI's panes (docs/architecture.md, The viewers).

``stepper(source)`` replays a trace once in Python (``mg.trace.replay``, the
one replay), describes every event once (``describe``/``explain``, the one
describer) and lays out each backward pass once with Graphviz (``draw.py``,
the layout the SVG renderer and the TUI use). The page gets those results as
data and shows them; its script never folds an event itself.

NOTE [ What the page ships ]
    Per backward pass: the SVG of its graph (node ``<g id="n<id>">`` elements,
    badge groups ``n<id>-in`` / ``n<id>-q`` the script rewrites), each node's
    static detail, and one *effect* per event: the state fields that event
    changed, as values (the queue after it, the new in-degree of a node, the
    new status of a node, the new buffer of a node, the current and focused
    node). Applying an effect is plain assignment, so stepping back restores
    a checkpoint the script took while reading the effects and assigns
    forward from it. No picture per step: the one-step ``char_gpt.py``
    recording that made a 160 MB flip-book gives a page of a few hundred KB.

NOTE [ Limits ]
    A page holds at most ``MAX_EVENTS`` events of backward passes (the passes
    after that are left out) and draws a pass's graph only up to
    ``MAX_GRAPH_NODES`` nodes (larger passes show the in-degree list instead
    of a picture); the forward view lists at most ``MAX_CALLS`` op calls per
    pass. What was left out is written on the page (``Stepper.notes``) so no
    reader mistakes a cut page for the whole recording.

Example:
    >>> import minigrad as mg
    >>> page = mg.viz.stepper("run.jsonl")          # doctest: +SKIP
    >>> page.save("run.html")                       # doctest: +SKIP
    >>> page                                        # doctest: +SKIP  (a notebook shows the stepper inline)
"""

from __future__ import annotations

import bisect
import html
import json
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import graphviz

from minigrad.tracing.describe import GLOSSARY, describe, explain, fmt_value
from minigrad.tracing.events import NODE_HOOK_KINDS
from minigrad.tracing.replay import BackwardPass, Replay, State
from minigrad.tracing.viewing import (focus_node, grad_history, inside_node, named_outputs, pass_call, pass_ending,
                                      run_ending, run_ending_text, run_starts)

from .draw import to_digraph
from .flipbook import FORWARD_KINDS
from .graph import backward_node_ids, call_outputs, collect_backward, display_status, forward_span
from .device_pane import device_data
from .memory_pane import memory_data
from .versions_pane import versions_data
from .render import INSTALL_HINT, DotNotFoundError, to_replay
from .style import BADGE, MARK_COLOUR, STATUS_FILL, STATUS_TEXT

__all__ = ["Stepper", "stepper", "STATUSES", "MAX_EVENTS", "MAX_GRAPH_NODES", "MAX_CALLS", "focus_node"]

#: Status codes shipped per node (index into this tuple); the page colours them as ``style.STATUS_FILL``.
STATUSES = ("idle", "pending", "queued", "running", "done", "released", "pruned")
_CODE = {s: k for k, s in enumerate(STATUSES)}

MAX_EVENTS = 200_000
MAX_GRAPH_NODES = 1500
MAX_CALLS = 2000

_SVG_NS = "http://www.w3.org/2000/svg"
ET.register_namespace("", _SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")


def _short_path(source: str | None) -> str | None:
    """``/long/path/train.py:12`` -> ``train.py:12``."""
    if not source:
        return None
    path, _, line = source.rpartition(":")
    return f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{line}" if path else source


# ---------------------------------------------------------------------------
# The graph: one Graphviz layout per pass, with ids the script can address
# ---------------------------------------------------------------------------


def _pass_svg(final: State, bw: BackwardPass, ids: list[int]) -> str:
    """The SVG of pass ``bw`` laid out once: every node with an in-degree badge and a queue badge.

    Badges are drawn on every node (``in 99`` / ``Q99`` reserve their width) so
    the layout never depends on the step; the script fills in their text and
    hides a queue badge while its node is not queued.
    """
    g = collect_backward(final, bw, node_ids=ids, previews=False, title=False)
    for nd in g.nodes:
        if not nd.hidden:
            nd.in_degree, nd.queue_pos, nd.status, nd.in_degree_state = 99, 99, "idle", "normal"
    g.queue, g.legend = None, False
    try:
        svg = graphviz.pipe("dot", "svg", to_digraph(g).source.encode("utf-8")).decode("utf-8")
    except graphviz.ExecutableNotFound:
        raise DotNotFoundError(INSTALL_HINT) from None
    return _address_svg(svg)


def _address_svg(svg: str) -> str:
    """Give the parts the script changes stable handles.

    In each ``<g id="n<id>" class="node">``: the first shape gets class
    ``shape`` (its fill shows the status), and the badge cell (background,
    border, text) of ``in N`` and ``QN`` are wrapped in ``<g id="n<id>-in">`` and
    ``<g id="n<id>-q">``.
    """
    svg = re.sub(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->", "", svg, flags=re.S).strip()
    root = ET.fromstring(svg)
    q = f"{{{_SVG_NS}}}"
    for g in root.iter(q + "g"):
        gid = g.get("id", "")
        if "node" not in (g.get("class") or "").split() or not re.fullmatch(r"n\d+", gid):
            continue
        children = list(g)
        shape = next((c for c in children if c.tag in (q + "path", q + "polygon", q + "ellipse")), None)
        if shape is not None:
            shape.set("class", "shape")
        for k, c in enumerate(children):
            if c.tag != q + "text" or k < 2:
                continue
            text = (c.text or "").strip()
            which = "in" if text == "in 99" else ("q" if text == "Q99" else None)
            if which is None:
                continue
            parts = children[k - 2 : k + 1]  # background polygon, border polygon, text
            wrap = ET.Element(q + "g", {"id": f"{gid}-{which}", "class": f"badge {which}"})
            at = list(g).index(parts[0])
            for p in parts:
                g.remove(p)
                wrap.append(p)
            c.text = ""
            g.insert(at, wrap)
    return ET.tostring(root, encoding="unicode")


# ---------------------------------------------------------------------------
# Static node detail
# ---------------------------------------------------------------------------


def _detail(final: State, bw: BackwardPass, nid: int, names: State, stale: Any = ()) -> dict[str, Any]:
    """What the node pane shows that does not change while stepping (provenance, attrs, saved, edges, grads)."""
    info = final.nodes.get(nid)
    if info is None:
        return {"name": names.node_name(nid)}
    origin = info
    if info.source is None and info.copy_of is not None:  # a GeneralGrad copy: where the original came from
        origin = final.nodes.get(info.copy_of, info)
    saved = []
    for k, tid in enumerate(info.saved):
        t = final.tensors.get(tid)
        at = info.saved_versions[k] if k < len(info.saved_versions) else (t.version if t is not None else 0)
        # [text, version saved, [[from event, until event or -1, version now], ...]]: the page marks the
        # saved tensor stale at the events an in-place change made it so (``versions.VersionHistory``).
        moved = [[x.since, -1 if x.until is None else x.until, x.version] for x in (stale or ())
                 if x.node == nid and x.tensor == tid]
        saved.append([f"{t.name} {list(t.shape)}" if t is not None else f"t{tid}", at, moved])
    edges = [
        f"slot {e.slot} rank {e.rank} → {names.node_name(e.next) if e.next is not None else '∅ (no grad needed)'}"
        f" (slot {e.next_slot} rank {e.next_rank})"
        for e in info.edges
    ]

    def grads(value: Any) -> list[str]:
        return [f"[{s},{r}] {fmt_value(v, 70)}" for s, ranks in enumerate(value or []) for r, v in enumerate(ranks or [])]

    d: dict[str, Any] = {
        "name": info.name,
        "head": f"op {info.op}  topo_nr {info.topo_nr}  seq_nr {info.seq_nr}",
        "attrs": ", ".join(f"{k}={v}" for k, v in info.attrs.items()) or "-",
        "saved": saved,
        "edges": edges or (["(none: writes a leaf's .grad)"] if info.is_accumulation else ["(none)"]),
    }
    if info.is_accumulation:
        d["acc"] = f"AccumulateGrad of {names.tensor_name(info.tensor)}"
        # The leaf's .grad after each pass up to this one: [pass, text, from event] (``_grad_events`` fills
        # in this pass's event; earlier passes' entries show from the start).
        d["grad_of"] = names.tensor_name(info.tensor)
        d["history"] = [[n, f"{n}: {fmt_value(v, 24)}" + (" added" if a else " assigned" if a is False else ""), -1]
                        for n, v, a in grad_history(final.passes, info.tensor, upto=bw.number)]
    if info.copy_of is not None:
        d["copy"] = f"copy of {names.node_name(info.copy_of)}"
    if origin.source:
        d["source"] = _short_path(origin.source)
    if origin.module:
        d["module"] = origin.module
    if nid in bw.grads_in:
        d["gin"] = grads(bw.grads_in[nid])
        d["gout"] = grads(bw.grads_out.get(nid))
    if nid in bw.released:
        d["released"] = True
    return d


# ---------------------------------------------------------------------------
# Effects: what each event changed, as values
# ---------------------------------------------------------------------------


@dataclass
class _Shown:
    """What the page shows of one pass after some event, in node indices (see NOTE [ What the page ships ])."""

    status: list[int]
    degree: list[int]
    queue: list[int] = field(default_factory=list)
    current: int = -1
    changed: int = -1
    focus: int = -1
    buffers: dict[int, list[list[Any]]] = field(default_factory=dict)
    bw: BackwardPass | None = None  # the pass state these values were read from
    known: int = 0  # how many nodes that state's graph held (GeneralGrad creates copies during a pass)
    general: list[list[str]] | None = None  # the GeneralGrad tab's rows


def _effects(rp: Replay, number: int, begin: int, end: int, ids: list[int], final: State,
             kinds: dict[str, int], whys: dict[str, int],
             probes: dict[int, list[int]] | None = None) -> tuple[dict[str, Any], list[list[Any]], dict[int, Any]]:
    """``(initial shown state, one [kind, what, why, effect?] per event begin..end, probed values)`` of pass ``number``.

    ``probes`` maps an event index to node indices: after that event the queue shown and those
    nodes' in-degrees are kept in the third result (the quiz's answers, read during the same sweep).
    """
    index = {n: k for k, n in enumerate(ids)}
    shown = _Shown(status=[0] * len(ids), degree=[-1] * len(ids))
    init = {"status": list(shown.status), "degree": list(shown.degree), "queue": [], "current": -1,
            "changed": -1, "focus": -1, "buffers": {}}
    out: list[list[Any]] = []
    probed: dict[int, Any] = {}
    created = sorted(info.created_at for info in final.nodes.values())
    for i in range(begin, end + 1):
        ev = rp.events[i]
        if ev.kind in FORWARD_KINDS:
            # Ops called by backward formulas: the backward state is unchanged, only the log moves on.
            what, why, eff = describe(ev, final), explain(ev, final), {}
        else:
            st = _At(final, rp.pass_at(i, number), ev, i, created)
            what, why = describe(ev, final), explain(ev, st)
            eff = _effect(st, st.backward, shown, index, ids)
        kinds.setdefault(ev.kind, len(kinds))
        whys.setdefault(why, len(whys))
        out.append([kinds[ev.kind], what, whys[why], eff] if eff else [kinds[ev.kind], what, whys[why]])
        if probes and i in probes:
            probed[i] = (list(shown.queue), [shown.degree[k] for k in probes[i]])
    return init, out, probed


class _At:
    """The state after event ``index`` as ``_effect`` and ``explain`` read it: the pass (``Replay.pass_at``),
    the event, and the graph of the final state cut at ``index`` (ids are never reused, so names and
    node kinds are the final state's)."""

    def __init__(self, final: State, bw: BackwardPass | None, event: Any, index: int, created: list[int]) -> None:
        self.final, self.backward, self.event, self.index = final, bw, event, index
        self.nodes = final.nodes
        self.known = bisect.bisect_right(created, index)  # how many nodes exist after this event

    def has(self, nid: int) -> bool:
        info = self.final.nodes.get(nid)
        return info is not None and info.created_at <= self.index

    def node_name(self, node_id: Any) -> str:
        return self.final.node_name(node_id)

    def tensor_name(self, tensor_id: Any) -> str:
        return self.final.tensor_name(tensor_id)


def _moved(old: BackwardPass | None, new: BackwardPass, ids: list[int]) -> list[int]:
    """The nodes whose status may differ between two states of a pass (all of them when GeneralGrad's marks moved).

    Statuses themselves always come from ``display_status``; this only spares asking for nodes nothing touched.
    """
    if old is None or (old.general is not new.general and old.general != new.general) \
            or len(old.initial_in_degree) != len(new.initial_in_degree) or old.done != new.done:
        return list(ids)
    moved = set(old.queue) | set(new.queue) | set(new.executed[len(old.executed):]) | set(new.skipped[len(old.skipped):])
    moved |= new.released - old.released
    moved |= {n for n in (old.current, new.current) if n is not None}
    return sorted(moved)


def _effect(st: _At, bw: BackwardPass | None, shown: _Shown, index: dict[int, int], ids: list[int]) -> dict[str, Any]:
    """The fields of ``shown`` that state ``st`` changes, as values (and ``shown`` updated to match)."""
    eff: dict[str, Any] = {}
    if bw is None:
        return eff
    queue = [index[n] for n in bw.queue if n in index]
    if queue != shown.queue:
        eff["q"] = shown.queue = queue
    current = index.get(bw.current, -1) if bw.current is not None and not bw.done else -1
    if current != shown.current:
        eff["c"] = shown.current = current
    changed = index.get(bw.last_changed, -1) if bw.last_changed is not None else -1
    if changed != shown.changed:
        eff["lc"] = shown.changed = changed
    focus = focus_node(st, bw)
    fk = index.get(focus, -1) if focus is not None else -1
    if fk != shown.focus:
        eff["f"] = shown.focus = fk
    old = shown.bw
    if old is None or old.in_degree != bw.in_degree:
        # One in_degree.update changes the count of ``last_changed``; a new map changes them all.
        rebuilt = old is None or len(old.in_degree) != len(bw.in_degree) or old.last_changed == bw.last_changed
        items = bw.in_degree.items() if rebuilt else [(bw.last_changed, bw.in_degree.get(bw.last_changed))]
        degrees = [[index[n], v] for n, v in items if n in index and v is not None and shown.degree[index[n]] != v]
        for k, v in degrees:
            shown.degree[k] = v
        if degrees:
            eff["d"] = sorted(degrees)
    statuses = []
    for n in (_moved(old, bw, ids) if st.known == shown.known else ids):
        k = index.get(n)
        if k is None:
            continue
        code = _CODE[display_status(st.final, n, bw)] if st.has(n) else 0
        if code != shown.status[k]:
            shown.status[k] = code
            statuses.append([k, code])
    if statuses:
        eff["s"] = statuses
    if old is None or old.buffers != bw.buffers:
        before = old.buffers if old is not None else {}
        moved = [n for n in set(before) | set(bw.buffers) if n in index and before.get(n) != bw.buffers.get(n)]
        changes = []
        for n in sorted(moved, key=index.__getitem__):
            k, buf = index[n], bw.buffers.get(n)
            value = [[s, r, fmt_value(v, 70)] for (s, r), v in sorted(buf.items())] if buf is not None else None
            if value is None:
                shown.buffers.pop(k, None)
            else:
                shown.buffers[k] = value
            changes.append([k, value])
        if changes:
            eff["b"] = changes
    if bw.general is not None and (old is None or old.general is not bw.general):
        rows = _general(bw, st)
        if rows != shown.general:
            eff["g"] = shown.general = rows
    shown.bw, shown.known = bw, st.known
    return eff


# ---------------------------------------------------------------------------
# Forward, GeneralGrad and quiz views
# ---------------------------------------------------------------------------


def _call_lines(st: State, first: int, last: int, limit: int) -> tuple[list[list[Any]], int]:
    """``([event index, text], ...)`` of the op calls made in events ``first..last`` (the TUI's forward tab)."""
    calls = [c for c in st.calls if first <= c.index <= last]
    out = []
    for n, c in enumerate(calls[:limit]):
        ins = ", ".join(st.tensor_name(i) if isinstance(i, int) and not isinstance(i, bool) else str(i) for i in c.inputs)
        outs = ", ".join(st.tensor_name(o) for o in call_outputs(st, c))
        sel = c.select or {}
        probes = " ".join(("✔" if p.get("found") else "✘") + str(p.get("step")) for p in c.lookups)
        key = c.key or {}
        text = (f"#{n} {c.op}({ins}) [{c.phase}]" + (f" → {outs}" if outs else "")
                + (f"  node {st.node_name(c.node)}" if c.node is not None else "")
                + (f"\n    key {{{key.get('backend')}, {key.get('layout')}, {key.get('dtype')}}}" if key else "")
                + (f"  probes {probes}" if probes else "")
                + (f"  select {sel.get('kernel')}" + (" (CPU fallback)" if sel.get("fallback_cpu") else "")
                   + (" (cached)" if sel.get("cached") else "") if sel else ""))
        for t in c.transforms:
            text += f"\n    transform {t.get('arg')}: {t.get('what')} {t.get('from')}→{t.get('to')}"
        out.append([c.index, text])
    return out, len(calls)


def _general(bw: BackwardPass, names: Any) -> list[list[str]] | None:
    """The GeneralGrad tab's rows for a ``grad()`` pass as it stands (``None`` for a plain backward)."""
    g = bw.general
    if g is None:
        return None

    def nm(ids: Any) -> str:
        return ", ".join(names.node_name(n) for n in sorted(ids)) or "-"

    return [
        ["copied nodes", ", ".join(f"{names.node_name(a)}→{names.node_name(b)}" for a, b in list(g.copies.items())[:60]) or "-"],
        ["inputs (targets)", nm(g.inputs)],
        ["no_grad_vars", nm(g.no_grad)],
        ["startup", nm(g.startup)],
        ["ending", nm(g.ending)],
        ["needed", nm(g.needed)],
        ["pruned edges", ", ".join(f"{names.node_name(p.get('node'))}({p.get('slot')},{p.get('rank')}) ✂ "
                                   f"{names.node_name(p.get('next'))}" for p in g.pruned) or "-"],
        ["results", ", ".join(f"{names.tensor_name(k)} = {fmt_value(v, 40)}" for k, v in g.results.items()) or "-"],
    ]


def _why_runs(names: State, node: int, skips: list[tuple[int, int]], candidates: tuple[int, ...], acc: bool) -> str:
    """Why the engine ran ``node`` (the TUI quiz's words): skips at the front, then the front rule."""
    parts = [f"{names.node_name(n)} was at the front but its in-degree was {d} ≠ 0, so the engine skipped it"
             for n, d in skips]
    if not candidates or candidates[0] == node:
        parts.append("it was at the front of the ready queue, and the engine always pops the front")
    else:
        parts.append(f"it was next in the ready queue after that ({', '.join(names.node_name(n) for n in candidates[:4])})")
    if acc:
        parts.append("AccumulateGrad nodes are pushed to the front as soon as their in-degree reaches 0")
    return "; ".join(parts) + "."


def _quiz_plan(rp: Replay, final: State, bw: BackwardPass, begin: int, end: int,
               index: dict[int, int]) -> list[dict[str, Any]]:
    """One question per node run: asked before the step's pop, answered after its step.

    The same questions as the TUI's quiz (``minigrad.tui.model.Session.question``): which node runs
    next (the queue before the pop holds the candidates), and the in-degrees of its next nodes once
    its step is over (before the next pop). The answers are read off the replayed states during the
    sweep of ``_effects`` (``probes``), and filled in by ``_quiz_answers``.
    """
    events = rp.events
    out: list[dict[str, Any]] = []
    prev = begin
    for r in run_starts(events, begin, end):
        ask = next((i for i in range(prev + 1, r + 1) if events[i].kind == "queue.pop"), r)
        after = r
        while after < end and events[after + 1].kind not in ("queue.pop", "backward.end", "general_grad.result"):
            after += 1
        node = events[r].node
        info = final.nodes.get(node)
        succ: list[int] = []
        for e in info.edges if info is not None else ():
            if e.next is not None and e.next in bw.in_degree and e.next not in succ and e.next in index:
                succ.append(e.next)
        skips = [(events[i].node, events[i].in_degree) for i in range(ask, r) if events[i].kind == "queue.skip"]
        out.append({"ask": ask, "run": r, "after": after, "node": index.get(node, -1),
                    "succ": [index[m] for m in succ], "skips": [[index.get(n, -1), d] for n, d in skips],
                    "acc": bool(info is not None and info.is_accumulation)})
        prev = r
    return out


def _quiz_probes(plan: list[dict[str, Any]]) -> dict[int, list[int]]:
    probes: dict[int, list[int]] = {}
    for q in plan:
        probes.setdefault(q["ask"] - 1, [])
        probes.setdefault(q["after"], []).extend(q["succ"])
    return probes


def _quiz_answers(plan: list[dict[str, Any]], probed: dict[int, Any], ids: list[int], names: State) -> None:
    used: dict[int, int] = {}  # the probe at ``after`` lists the successors of its questions in plan order
    for q in plan:
        queue_before = probed[q["ask"] - 1][0]
        _, degrees_after = probed[q["after"]]
        offset = used.get(q["after"], 0)
        used[q["after"]] = offset + len(q["succ"])
        q["deg"] = degrees_after[offset: offset + len(q["succ"])]
        q["cand"] = queue_before
        q["why"] = _why_runs(names, ids[q["node"]] if q["node"] >= 0 else -1,
                             [(ids[k] if k >= 0 else -1, d) for k, d in q.pop("skips")],
                             tuple(ids[k] for k in queue_before), q["acc"])


# ---------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------


class Stepper:
    """A recording as one self-contained web page (see the module docstring).

    Attributes:
        data: what the page's script reads (passes, effects, texts, layouts).
        title: the page heading.
        notes: what the page left out (its limits), shown on the page.
    """

    def __init__(self, data: dict[str, Any], title: str) -> None:
        self.data = data
        self.title = title

    @property
    def notes(self) -> list[str]:
        return list(self.data.get("notes", []))

    def html(self) -> str:
        """The page: inline CSS, script, SVG and data; nothing loaded from the network."""
        asset = resources.files(__package__)
        css = asset.joinpath("stepper.css").read_text(encoding="utf-8")
        js = asset.joinpath("stepper.js").read_text(encoding="utf-8")
        js += "\n" + asset.joinpath("memory_pane.js").read_text(encoding="utf-8")
        js += "\n" + asset.joinpath("versions_pane.js").read_text(encoding="utf-8")
        js += "\n" + asset.joinpath("device_pane.js").read_text(encoding="utf-8")
        css += "\n" + _MEMORY_CSS + _VERSIONS_CSS + _DEVICE_CSS
        # JSON inside <script>: "</" must not close the element.
        payload = json.dumps(self.data, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")
        legend = "".join(
            f'<li><span class="sw st-{s}"></span>{html.escape(STATUS_TEXT[s])}</li>' for s in STATUSES if s != "idle"
        )
        status_css = "\n".join(
            f"#graph g.node.st-{s} > .shape {{ fill: {STATUS_FILL[s]}; }} .sw.st-{s}, #graph li.node.st-{s} > .shape "
            f"{{ background: {STATUS_FILL[s]}; }}"
            for s in STATUSES
        )
        badge_css = (f"#graph .badge.in.zero > polygon:first-child {{ fill: {BADGE['zero']}; }}\n"
                     f"#graph .badge.in.changed > polygon:first-child {{ fill: {BADGE['changed']}; }}\n"
                     f":root {{ --startup: {MARK_COLOUR['startup']}; --ending: {MARK_COLOUR['ending']}; }}")
        glossary = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in GLOSSARY.items())
        return _PAGE.format(
            title=html.escape(self.title), css=css + "\n" + status_css + "\n" + badge_css, js=js,
            data=payload, legend=legend, glossary=glossary,
        )

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (UTF-8)."""
        path = Path(path)
        path.write_text(self.html(), encoding="utf-8")
        return path

    def _repr_html_(self) -> str:
        """Jupyter/Colab: the page in an ``<iframe srcdoc>``, so its keys, styles and ``#event`` stay its own."""
        page = html.escape(self.html(), quote=True)
        return (f'<iframe class="minigrad-stepper" title="{html.escape(self.title)}" srcdoc="{page}" '
                'style="width:100%;height:760px;border:1px solid #ddd;border-radius:4px"></iframe>')

    def __repr__(self) -> str:
        return f"<minigrad.viz.Stepper {self.title!r}: {len(self.data['passes'])} passes>"


def _grad_events(details: list[dict[str, Any]], ids: list[int], state: State, rp: Replay, number: int,
                 begin: int, last: int) -> list[dict[str, Any]]:
    """Stamp each node's detail with the event of its ``node.run`` in pass ``number`` (``run_at``: before it, a
    running node's buffer is taken but nothing went out yet), and each AccumulationNode's entry for the pass
    with the ``grad.accumulate`` event that wrote it."""
    written = {rp.events[i].tensor: i for i in range(begin, last + 1) if rp.events[i].kind == "grad.accumulate"}
    finished = {rp.events[i].node: i for i in range(begin, last + 1) if rp.events[i].kind == "node.run"}
    for nid, d in zip(ids, details):
        if nid in finished:
            d["run_at"] = finished[nid]
        info = state.nodes.get(nid)
        for entry in d.get("history", ()):
            if entry[0] == number and info is not None:
                entry[2] = written.get(info.tensor, last)
    return details


def _hooks(bw: BackwardPass, ids: list[int], final: State) -> list[dict[str, Any]]:
    """The pass's hooks, each with the nodes whose detail lists it (its target node, leaf or output tensor)."""
    out = []
    for h in bw.hooks:
        target = h.get("target")
        if h.get("hook_kind") in NODE_HOOK_KINDS:  # a node's own hook: on that node
            out.append({"target": final.node_name(target), "kind": h.get("hook_kind"), "at": h.get("at"),
                        "nodes": [k for k, n in enumerate(ids) if n == target]})
            continue
        made_by = final.tensors[target].grad_node if target in final.tensors else None
        nodes = [k for k, n in enumerate(ids) if target == getattr(final.nodes.get(n), "tensor", None) or made_by == n]
        out.append({"target": final.tensor_name(target), "kind": h.get("hook_kind"), "at": h.get("at"), "nodes": nodes})
    return out


def _pass_data(rp: Replay, number: int, begin: int, last: int, mode: str, complete: bool, final: State,
               kinds: dict[str, int], whys: dict[str, int], max_graph_nodes: int, max_calls: int,
               notes: list[str], outputs: dict[int, str] | None = None) -> dict[str, Any]:
    """Everything the page holds for backward pass ``number`` (events ``begin..last``); limits hit go to ``notes``."""
    end_state = rp[last]
    bw = end_state.passes[number]
    ids = backward_node_ids(end_state, bw)
    index = {n: k for k, n in enumerate(ids)}
    plan = _quiz_plan(rp, end_state, bw, begin, last, index)
    init, events, probed = _effects(rp, number, begin, last, ids, final, kinds, whys, _quiz_probes(plan))
    _quiz_answers(plan, probed, ids, final)
    svg = None
    if len(ids) <= max_graph_nodes:
        try:
            svg = _pass_svg(end_state, bw, ids)
        except (graphviz.CalledProcessError, ET.ParseError) as exc:  # dot failed on this graph: list it instead
            notes.append(f"Graphviz could not lay out pass {number} ({type(exc).__name__}): its graph pane shows the "
                         "nodes as a list.")
    else:
        notes.append(f"Pass {number} has {len(ids)} nodes, more than this page draws ({max_graph_nodes}): "
                     "its graph pane shows the nodes as a list.")
    first, _, _ = forward_span(end_state, number)
    calls, n_calls = _call_lines(end_state, first, last, max_calls)
    if n_calls > max_calls:
        notes.append(f"Pass {number}: the forward view lists the first {max_calls} of {n_calls} op calls.")
    # The in-degree pane lists nodes from the start of the pass down (larger topo_nr first), as the engine meets them.
    order = sorted(range(len(ids)), key=lambda k: (-getattr(final.nodes.get(ids[k]), "topo_nr", 0), ids[k]))
    flags = ", ".join(f for f, on in (("retain_graph", bw.retain_graph), ("create_graph", bw.create_graph)) if on)
    return {
        "number": number, "mode": mode, "begin": begin, "end": last, "complete": complete, "flags": flags,
        "ids": ids, "names": [final.node_name(n) for n in ids], "order": order,
        "initial": [bw.initial_in_degree.get(n, -1) for n in ids],
        "start": [index[n] for n in bw.start if n in index],
        "detail": _grad_events([_detail(end_state, bw, n, final, rp.versions.stale) for n in ids], ids, end_state, rp,
                               number, begin, last),
        # What the script called (its line), and the error that ended the pass: shown in the chooser, the
        # header, and where the next step would have been (``viewing.pass_call``/``pass_ending``).
        "call": pass_call(final, bw, outputs), "ending": pass_ending(bw),
        "error": None if bw.error is None else {"at": bw.error["at"], "message": bw.error["message"],
                                                 "error": bw.error["error"], "node": index.get(bw.error["node"], -1)},
        "hooks": _hooks(bw, ids, final),
        "svg": svg, "init": init, "events": events, "calls": calls, "n_calls": n_calls, "quiz": plan,
        # Where each node starts running (the n / b keys), and which log lines sit inside a node's run.
        "runs": [r - begin for r in run_starts(rp.events, begin, last)],
        "inside": [int(x) for x in inside_node(rp.events, begin, last + 1)],
    }


def stepper(source: Any, *, title: str | None = None, max_events: int = MAX_EVENTS,
            max_graph_nodes: int = MAX_GRAPH_NODES, max_calls: int = MAX_CALLS) -> Stepper:
    """Build the web stepper of a recording.

    Args:
        source: a recorder, a loaded trace, a ``.jsonl`` path, a list of events or a ``Replay``.
        title: the page heading (default: the file name, or "minigrad recording").
        max_events: most events of backward passes the page holds (later passes are left out, and the page says so).
        max_graph_nodes: passes with more nodes show the in-degree list instead of a picture.
        max_calls: most op calls the forward view lists per pass.

    Raises:
        DotNotFoundError: Graphviz's ``dot`` is missing (the message says how to install it).
    """
    rp = to_replay(source)
    if title is None:
        title = Path(source).name if isinstance(source, (str, os.PathLike)) else "minigrad recording"
    passes = rp.backward_passes()
    final = rp.final
    outputs = named_outputs(final)  # grad node -> the student's name of its output, for every pass's call
    notes: list[str] = []
    kinds: dict[str, int] = {}
    whys: dict[str, int] = {}
    out: list[dict[str, Any]] = []
    held = 0
    for number, (begin, end, mode) in enumerate(passes):
        last = end if end is not None else len(rp) - 1
        if held + (last - begin + 1) > max_events:
            kept = f"passes 0–{number - 1}" if number > 1 else ("pass 0" if number == 1 else "no pass")
            notes.append(f"This page holds {kept} of the {len(passes)} in the recording: pass {number} would take it "
                         f"past {max_events} events. Open the recording in minigrad-tui for the rest.")
            break
        held += last - begin + 1
        out.append(_pass_data(rp, number, begin, last, mode, end is not None, final, kinds, whys,
                              max_graph_nodes, max_calls, notes, outputs))
    if not passes:
        notes.append("This recording has no backward pass: there is nothing to step through.")
    ended = run_ending(rp)
    if ended is not None:  # raised outside a backward pass (a forward op, an optimizer step): no pass shows it
        notes.append(run_ending_text(ended))
    data = {
        "title": title, "n_events": len(rp), "statuses": list(STATUSES),
        "kinds": list(kinds), "whys": list(whys), "passes": out, "notes": notes,
        "memory": memory_data(rp.memory),
        "versions": versions_data(rp, notes),
        "device": device_data(rp, notes),
    }
    return Stepper(data, title)


_MEMORY_CSS = """#tab-memory { grid-template-columns: 1fr; }
.mem-plot { display: grid; grid-template-columns: 16px auto 1fr; align-items: stretch; }
.mem-ytitle { writing-mode: vertical-rl; transform: rotate(180deg); text-align: center; font-size: 11px; color: #555; }
.mem-y { display: flex; flex-direction: column; justify-content: space-between; text-align: right; padding-right: 4px;
  font-family: Menlo, Consolas, monospace; font-size: 11px; color: #555; }
.mem-x { display: flex; justify-content: space-between; font-family: Menlo, Consolas, monospace; font-size: 11px; color: #555; }
.mem-explain, .mem-whole { margin: 4px 0; font-size: 12px; color: #444; }
.mem-chart { width: 100%; height: 160px; display: block; background: #fcfcfc; border-left: 1px solid #90a4ae; border-bottom: 1px solid #90a4ae; }
.mem-chart .mem-other { fill: #4fc3f7; } .mem-chart .mem-saved { fill: #ab47bc; }
.mem-chart .mem-marker { stroke: #e65100; stroke-width: 2; vector-effect: non-scaling-stroke; }
.mem-head, .mem-legend { margin: 4px 0; font-family: Menlo, Consolas, monospace; font-size: 12px; }
.mem-legend .sw { display: inline-block; width: 10px; height: 10px; margin: 0 3px 0 8px; }
.mem-legend .sw.mem-saved { background: #ab47bc; } .mem-legend .sw.mem-other { background: #4fc3f7; }
.mem-node table { border-collapse: collapse; font-family: Menlo, Consolas, monospace; font-size: 12px; margin-top: 4px; }
.mem-node td, .mem-node th { padding: 1px 8px; text-align: left; } .mem-node td.num { text-align: right; }
.mem-node td.how { color: #666; } .mem-recompute { color: #e65100; font-weight: bold; }
"""

_VERSIONS_CSS = """#tab-versions { grid-template-columns: 1fr; }
#versions .body { font-family: Menlo, Consolas, monospace; font-size: 12px; line-height: 1.45; }
#versions li, #versions .vv-line { white-space: pre-wrap; }
#versions h3 { font-size: 12.5px; margin: 10px 0 4px; }
#versions .vv-intro { font-family: system-ui, sans-serif; font-style: italic; color: #37474f; margin: 2px 0 6px; max-width: 70em; }
#versions ul { list-style: none; margin: 0; padding: 0 0 0 12px; }
#versions .vv-line b.op { color: #e65100; } #versions .vv-line .v { font-weight: bold; }
#versions .vv-bump { padding-left: 2.5em; } #versions .dim { color: #78909c; }
#versions .code { color: #1565c0; font-style: italic; }
#versions .vv-stale-item .alarm { background: #c62828; color: #fff; padding: 0 4px; border-radius: 3px; font-weight: bold; }
#versions .vv-rewrite .to { color: #ad1457; font-weight: bold; } #versions .vv-rewrite .from { text-decoration: line-through; color: #78909c; }
#versions .replaced { color: #8d8d8d; }
#graph g.edge.replaced text { font-style: italic; }
"""

_DEVICE_CSS = """#tab-device { grid-template-columns: 1fr; }
#device .body { font-family: Menlo, Consolas, monospace; font-size: 12px; line-height: 1.45; }
#device h3 { font-size: 12.5px; margin: 10px 0 4px; }
#device .dv-intro { font-family: system-ui, sans-serif; font-style: italic; color: #37474f; margin: 2px 0 6px; max-width: 70em; }
#device .dv-empty { font-weight: bold; }
#device ul { list-style: none; margin: 0; padding: 0 0 0 12px; } #device li { white-space: pre-wrap; margin: 1px 0; }
#device .dim { color: #78909c; } #device .code { color: #1565c0; font-style: italic; }
#device .src { font-weight: bold; } #device .counts { padding-left: 2.5em; display: block; }
#device .copy { color: #e65100; font-weight: bold; }
#device .sync { background: #c62828; color: #fff; padding: 0 4px; border-radius: 3px; font-weight: bold; }
#device .dv-span.here > .label { background: #e1f5fe; font-weight: bold; }
#device .dv-span .label { color: #0277bd; } #device .dv-span ul { padding-left: 2.5em; }
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{css}
</style>
</head>
<body>
<div id="minigrad-stepper" class="stepper" data-event="-1" data-pass="0">
<header>
  <div class="titlebar"><h1>{title}</h1>
    <label>pass <select id="pass" aria-label="backward pass"></select></label>
    <nav class="tabs" role="tablist">
      <button type="button" class="tab on" data-tab="backward">Backward [1]</button>
      <button type="button" class="tab" data-tab="forward">Forward [2]</button>
      <button type="button" class="tab" data-tab="general">GeneralGrad [3]</button>
      <button type="button" class="tab" data-tab="memory">Memory [4]</button>
      <button type="button" class="tab" data-tab="versions">Versions [5]</button>
      <button type="button" class="tab" data-tab="device">Device [6]</button>
    </nav>
    <input id="jump" type="search" placeholder="jump to node [j]" aria-label="jump to node" size="16">
    <label class="quizbox"><input type="checkbox" id="quiz-on"> quiz [t]</label>
    <button type="button" id="help-btn" title="keys and glossary (?)">?</button>
  </div>
  <div class="controls">
    <button type="button" id="first" title="start of the pass (Home)">|&#9664; start</button>
    <button type="button" id="prev-run" title="previous node run (b)">&#9664; run</button>
    <button type="button" id="prev" title="previous event (&larr;)">&#9664; event</button>
    <button type="button" id="play" title="play / pause (space)">&#9654; play</button>
    <button type="button" id="next" title="next event (&rarr;)">event &#9654;</button>
    <button type="button" id="next-run" title="next node run (n)">run &#9654;</button>
    <button type="button" id="last" title="end of the pass (End)">end &#9654;|</button>
    <input id="slider" type="range" min="0" max="0" value="0" step="1" aria-label="event">
    <span id="counter"></span>
    <span id="ending" hidden></span>
  </div>
  <div id="status"><div id="what"></div><div id="why"></div></div>
  <div id="notes"></div>
</header>
<main>
  <section id="tab-backward" class="tabpane">
    <div class="left">
      <div id="graph" class="pane" data-pane="graph"><h2>Backward graph <button type="button" id="zoom" title="the whole graph in the pane / full size (z)">full size</button></h2><div class="body"></div></div>
      <div id="node" class="pane" data-pane="node"><h2>Node detail</h2><div class="body"></div></div>
    </div>
    <div class="right">
      <div id="queue" class="pane" data-pane="queue"><h2>Ready queue (front &rarr; back)</h2><div class="body"></div></div>
      <div id="in-degree" class="pane" data-pane="in-degree"><h2>In-degree map</h2><div class="body"></div></div>
      <div id="buffers" class="pane" data-pane="buffers"><h2>Gradient buffers</h2><div class="body"></div></div>
      <div id="log" class="pane" data-pane="log"><h2>Event log</h2><div class="body"></div></div>
    </div>
  </section>
  <section id="tab-forward" class="tabpane" hidden>
    <div id="forward" class="pane"><h2>Forward: op calls and kernel selection</h2><div class="body"></div></div>
  </section>
  <section id="tab-general" class="tabpane" hidden>
    <div id="general" class="pane"><h2>GeneralGrad</h2><div class="body"></div></div>
  </section>
  <section id="tab-memory" class="tabpane" hidden>
    <div id="memory" class="pane"><h2>Memory: bytes alive over the events, what the node in focus saved</h2><div class="body"></div></div>
  </section>
  <section id="tab-versions" class="tabpane" hidden>
    <div id="versions" class="pane"><h2>Versions: in-place changes, stale saved tensors, rewritten history</h2><div class="body"></div></div>
  </section>
  <section id="tab-device" class="tabpane" hidden>
    <div id="device" class="pane"><h2>Device: GPU launches, host&harr;GPU copies and syncs, with their lines</h2><div class="body"></div></div>
  </section>
  <aside class="legend"><b>legend</b><ul>{legend}</ul>
    <div><b>in N</b>: current in-degree (yellow: changed at this event, green: 0) · <b>Qk</b>: k-th in the ready queue</div>
    <div>edge <b>sS rR</b>: output slot S, rank R · cylinder: AccumulateGrad · purple border: startup, teal: ending (GeneralGrad)</div>
    <div>raspberry border: CopySlices node (an in-place change through a view rewrote a base's history) · dashed grey edge <b>replaced</b>: the edge that rewrite replaced (Versions tab, 5)</div>
  </aside>
</main>
<div id="quiz" class="modal" hidden></div>
<div id="help" class="modal" hidden><div class="card">
  <h2>Keys</h2>
  <p>&larr;/&rarr; previous/next event · b/n previous/next node run · Home/End start/end of the pass ·
  space play/pause · +/- speed · j jump to a node (name, part of it, or #id) · c next pass · m GeneralGrad marks · t quiz · z the whole graph in the pane, or full size · 1–6 tabs · ? this help · Esc close.
  Click a node to pin it in the detail panes. <code>#event=N</code> in the address opens event N.</p>
  <h2>Glossary</h2><dl>{glossary}</dl>
  <button type="button" class="close">close</button></div></div>
</div>
<script type="application/json" id="minigrad-data">{data}</script>
<script>
{js}
</script>
</body>
</html>
"""
