"""The Versions tab: in-place changes as a timeline per tensor, the saved tensors they made stale,
and the histories they rewrote - all as of the event on screen.

Everything comes from ``replay.versions`` (``minigrad/tracing/versions.py``), the one reading the web
page's pane draws too; the pane only words it. The mechanism is explained in docs/concepts/views.md.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from minigrad.tracing.describe import fmt_shape
from minigrad.tracing.versions import INTRO, Bump, Rewrite, Stale, VersionsAt, code_at, geometry_text, short_source

from .panels import _Pane

__all__ = ["VersionsView", "version_text", "INTRO"]

_STALE = "bold #ffffff on #c62828"
_BUMP = "bold #ffb74d"
_CODE = "italic #9ecbff"


def _timeline(name: str, shape: str, bumps: list[Bump]) -> Text:
    """``t3 (2x3)  v0 ─mul_─▶ v1 ─add_─▶ v2``."""
    line = Text("  ")
    line.append(name, style="bold")
    line.append(f" ({shape})  " if shape else "  ")
    line.append(f"v{bumps[0].version - 1}" if bumps[0].version > 0 else "v0")
    for b in bumps:
        line.append(" ─")
        line.append(b.op, style=_BUMP)
        line.append("─▶ ")
        line.append(f"v{b.version}", style="bold")
    return line


def _bump_lines(b: Bump) -> list[Text]:
    """One bump: the event and op, the view it went through, the user's line, who shares the counter."""
    head = Text("     ")
    head.append(f"v{b.version}", style="bold")
    head.append(f"  event {b.index}  ")
    head.append(b.op, style=_BUMP)
    if b.via is not None:
        head.append(f" through the view {b.via_name}" + (f" = {b.via_made}" if b.via_made else ""))
    else:
        head.append(" on the tensor itself")
    out = [head]
    if b.view:
        out.append(Text(f"         the view's elements in {b.name}: {geometry_text(b.view)}", style="dim"))
    where = Text("         ")
    if b.source:
        where.append(short_source(b.source) or "", style="dim")
        if b.code:
            where.append("  ")
            where.append(b.code, style=_CODE)
    else:
        where.append("(no source line recorded)", style="dim")
    out.append(where)
    if b.aliases:
        out.append(Text("         the same counter moved for: " + ", ".join(b.aliases), style="dim"))
    return out


def _rewrite_lines(r: Rewrite, session: Any) -> list[Text]:
    """The base's grad node before and after, the CopySlices node's two edges, and the replaced edges."""
    head = Text("  ")
    head.append(f"event {r.index}  ")
    head.append(r.name, style="bold")
    head.append("'s grad node: ")
    head.append(r.from_name, style="strike dim")
    head.append(" → ")
    head.append(r.to_name, style="bold #f06292")
    out = [head, Text(f"     the view's place in {r.name}: {geometry_text(r.view)}", style="dim")]
    node = session.replay.final.nodes.get(r.to_node)
    meaning = ("old history: gradient outside the view", "the change: gradient inside the view")
    for e in node.edges if node is not None else ():
        if e.next is None:
            continue
        why = meaning[e.slot] if e.slot < len(meaning) else ""
        out.append(Text(f"     {r.to_name} ─s{e.slot}─▶ {session.node_name(e.next)}   {why}"))
    for consumer, _made in r.consumers:
        line = Text(f"     replaced edge: {session.node_name(consumer)} ")
        line.append("╌╌▶ " + r.from_name, style="dim")
        line.append(f" (now ─▶ {r.to_name})")
        out.append(line)
    for name, regenerated, _made in r.regenerated:
        out.append(Text(f"     regenerated view: {name} → {session.node_name(regenerated)} ─▶ {r.to_name}",
                        style="dim"))
    return out


def _stale_lines(s: Stale, session: Any, index: int) -> list[Text]:
    """A stale saved tensor, highlighted (dim once its node ran: nothing will refuse), and the line that
    made the node."""
    words = f"{s.node_name} saved {s.tensor_name} at v{s.saved_version}, now v{s.version}"
    if s.ran(index):
        return [Text(f"  · {words} — it already ran (event {s.released_at}): nothing will refuse", style="dim")]
    line = Text("  ✘ ", style="bold #ef5350")
    line.append(words, style=_STALE)
    line.append(f" — refused at event {s.refused_at}" if s.refused(index) else " — backward will refuse")
    out = [line]
    node = session.replay.final.nodes.get(s.node)
    if node is not None and node.source:
        made = Text(f"     {s.node_name} was made at {short_source(node.source)}", style="dim")
        code = code_at(node.source)
        if code:
            made.append("  ")
            made.append(code, style=_CODE)
        out.append(made)
    return out


def version_text(v: VersionsAt, session: Any) -> Text:
    """The pane's text at ``v.index``: intro, timelines, stale saved tensors, rewritten histories."""
    tensors = session.replay.final.tensors
    text = Text()
    text.append(INTRO + "\n\n", style="italic")
    text.append(f"Version timelines (in-place changes up to event {v.index})\n", style="bold underline")
    timelines = v.timelines()
    if not timelines:
        text.append("  no in-place change so far\n", style="dim")
    for tid, bumps in timelines.items():
        info = tensors.get(tid)
        text.append_text(_timeline(bumps[0].name, fmt_shape(info.shape) if info else "", bumps))
        text.append("\n")
        for b in bumps:
            for line in _bump_lines(b):
                text.append_text(line)
                text.append("\n")
    text.append("\nStale saved tensors (backward through these nodes will raise)\n", style="bold underline")
    if not v.stale:
        text.append("  none: every saved tensor is at the version its node saved\n", style="dim")
    for s in sorted(v.stale, key=lambda s: s.ran(v.index)):  # the ones that will refuse first
        for line in _stale_lines(s, session, v.index):
            text.append_text(line)
            text.append("\n")
    text.append("\nRewritten history (a change through a view gives the base a CopySlices node)\n",
                style="bold underline")
    if not v.rewrites:
        text.append("  none so far\n", style="dim")
    for r in v.rewrites:
        for line in _rewrite_lines(r, session):
            text.append_text(line)
            text.append("\n")
    return text


class VersionsView(_Pane):
    """Version timelines, stale saved tensors and rewritten histories at the event on screen."""

    DEFAULT_CSS = """
    VersionsView { height: auto; }
    """
    GROWS = True  # its height follows its text: it sits in a scrolling container

    def __init__(self, session: Any, title: str = "Versions", **kw: Any) -> None:
        super().__init__(session, title, **kw)

    def show(self, index: int) -> None:
        history = self.session.replay.versions
        v = history.at(index)
        key = (len(self.session.events), index)
        self.put(key, lambda: version_text(v, self.session))
