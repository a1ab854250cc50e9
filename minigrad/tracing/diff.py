"""Trace diff: where do two recordings of the same program part ways? (docs/architecture.md, Events, Diff)

``mg.trace.diff(a, b)`` lines up two recordings event by event and reports
the first *divergence*: the first event where they disagree, which fields
differ, the ready queue and in-degree map of the backward pass on both sides
at that point, and a few events of context. ``minigrad diff A.jsonl B.jsonl``
prints the same thing; the lesson grader uses it to tell a student *where*
their engine first did something the reference did not.

NOTE [ What makes two events equal ]
    Two runs of one program never agree on everything: timestamps differ, and
    node and tensor ids come from process-wide counters, so the second run in
    one process numbers its nodes from where the first stopped. Before
    comparing, each event is put into a *canonical* form:

    - the timing fields (``seq``, ``ts_ns``, ``wall_ns``), the kernel-cache
      flag (``kernel.select`` ``cached``, which depends on what ran earlier in
      the process) and ``node.create``'s ``source`` (the file:line of the
      user's call, which moves with the script's path) are dropped;
    - node ids, tensor ids and sequence numbers (``seq_nr``) are renumbered
      by order of first appearance in the whole recording, wherever they
      occur (``node``, ``queue``, the in-degree map's keys, edges, names like
      ``MulBackward0#7``, and those names inside an ``error``'s message).

    So the ids are anchored by the forward pass (``node.create`` comes before
    any backward event that mentions the node): when one engine pushes the
    nodes in a different order, the canonical ids differ and the diff sees it.
    A recording that starts in the middle of a backward pass has no such
    anchor; record the forward pass too.

Alignment is by position: the first divergence is the first index where the
canonical events differ (or where one recording ends). With ``all=True`` the
rest is aligned with ``difflib.SequenceMatcher`` and every region that
differs is reported. ``kinds`` (fnmatch patterns such as ``"queue.*"``)
restricts the comparison to a family of events; ids are still numbered over
the whole recording.

Example:
    >>> import minigrad as mg
    >>> def run():
    ...     with mg.trace() as tr:
    ...         x = mg.tensor([1.0, 2.0], requires_grad=True)
    ...         (x * x).sum().backward()
    ...     return tr
    >>> mg.trace.diff(run(), run()).equal
    True
"""

from __future__ import annotations

import difflib
import fnmatch
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from .describe import describe as _describe
from .events import Event
from .loader import load
from .replay import Replay, State

__all__ = ["diff", "TraceDiff", "Divergence", "FieldDiff", "SideState", "canonical_events", "canonical_keys",
           "IGNORED_FIELDS"]

#: Fields never compared: timing, the kernel-selection cache flag, where the script lives (NOTE [ What makes two events equal ]).
IGNORED_FIELDS = frozenset({"seq", "ts_ns", "wall_ns", "cached", "source"})

#: Fields that hold node ids (lists and maps of them included).
_NODE_FIELDS = frozenset({"node", "source", "start", "queue", "copy_of", "grad_node", "startup", "ending", "needed",
                          "from_node", "to_node"})
#: Fields that hold tensor ids (``via``, ``aliases``: the view and the tensors sharing a counter in ``tensor.version``).
_TENSOR_FIELDS = frozenset({"tensor", "saved", "input", "target", "via", "aliases", "base"})
#: Kinds whose ``inputs`` are tensor ids (``general_grad.targets`` holds node ids there).
_TENSOR_INPUTS_KINDS = frozenset({"api.call"})
_NODE_NAME = re.compile(r"^(?P<cls>.*)#(?P<id>\d+)$")
_TENSOR_NAME = re.compile(r"^t(?P<id>\d+)$")
#: Node and tensor names inside an ``error``'s message: ``ExpBackward0#8``, ``'t25'``.
_NAMES_IN_TEXT = re.compile(r"\b(?P<node>[A-Za-z_]\w*#\d+)\b|'(?P<tensor>t\d+)'")

Describer = Callable[[Event, State], str]


# ---------------------------------------------------------------------------
# Canonical form
# ---------------------------------------------------------------------------


class _Renamer:
    """Numbers node ids, tensor ids and seq_nr values by order of first appearance."""

    def __init__(self) -> None:
        self.nodes: dict[int, int] = {}
        self.tensors: dict[int, int] = {}
        self.seq_nrs: dict[int, int] = {}

    @staticmethod
    def _get(table: dict[int, int], i: Any) -> Any:
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            return i  # None, -1 ("no target") and foreign values stay as they are
        return table.setdefault(i, len(table))

    def node(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.node(v) for v in value]
        return self._get(self.nodes, value)

    def tensor(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.tensor(v) for v in value]
        return self._get(self.tensors, value)

    def node_name(self, name: Any) -> Any:
        m = _NODE_NAME.match(name) if isinstance(name, str) else None
        return f"{m['cls']}#{self._get(self.nodes, int(m['id']))}" if m else name

    def tensor_name(self, name: Any) -> Any:
        m = _TENSOR_NAME.match(name) if isinstance(name, str) else None
        return f"t{self._get(self.tensors, int(m['id']))}" if m else name

    def _name_in_text(self, m: "re.Match[str]") -> str:
        return self.node_name(m["node"]) if m["node"] else f"'{self.tensor_name(m['tensor'])}'"

    def event(self, ev: Event) -> dict[str, Any]:
        """The canonical dict of ``ev`` (NOTE [ What makes two events equal ])."""
        d = ev.to_dict()
        kind = d["kind"]
        out: dict[str, Any] = {}
        for key, value in d.items():
            if key in IGNORED_FIELDS:
                continue
            if key in _NODE_FIELDS:
                value = self.node(value)
            elif key in _TENSOR_FIELDS:
                value = self.tensor(value)
            elif key == "inputs":
                value = self.tensor(value) if kind in _TENSOR_INPUTS_KINDS else self.node(value)
            elif key == "no_grad":
                value = self.node(value)
            elif key == "seq_nr":
                value = self._get(self.seq_nrs, value)
            elif key == "name":
                value = self.node_name(value) if kind == "node.create" else self.tensor_name(value)
            elif key == "message" and kind == "error" and isinstance(value, str):
                value = _NAMES_IN_TEXT.sub(self._name_in_text, value)
            elif key == "in_degree" and isinstance(value, dict):
                # A map: compared as a set of (node, count) pairs, in the order the ids first appear.
                value = sorted([self.node(int(k)), v] for k, v in value.items())
            elif key == "mapping" and isinstance(value, dict):
                value = sorted([self.node(int(k)), self.node(v)] for k, v in value.items())
            elif key == "edges" and isinstance(value, list):
                value = [self._edge(e) for e in value]
            out[key] = value
        return out

    def _edge(self, e: Any) -> Any:
        if not isinstance(e, dict):
            return e
        return {k: (self.node(v) if k in ("next", "node") else v) for k, v in e.items()}


def canonical_events(events: Sequence[Event]) -> list[dict[str, Any]]:
    """The canonical dicts of ``events`` (timing dropped, ids renumbered by first appearance)."""
    r = _Renamer()
    return [r.event(ev) for ev in events]


def canonical_keys(events: Sequence[Event]) -> list[str]:
    """One comparable string per event (its canonical form as JSON): equal keys, equal steps."""
    return [_key(c) for c in canonical_events(events)]


def _key(d: dict[str, Any]) -> str:
    # JSON text as the comparison key: hashable for SequenceMatcher, and NaN equals NaN.
    return json.dumps(d, sort_keys=True, default=str)


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldDiff:
    """One field that differs: its name and each side's value, in that side's own names."""

    name: str
    a: Any
    b: Any


@dataclass(frozen=True)
class SideState:
    """One side at the divergence: the event, its words, the backward pass's queue and in-degree map."""

    index: int | None
    kind: str | None
    text: str
    queue: tuple[str, ...] | None
    in_degree: dict[str, int] | None
    context: tuple[tuple[int, str, str], ...]  # (event index, kind, words) before and after
    after: tuple[tuple[int, str, str], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index, "kind": self.kind, "text": self.text,
            "queue": list(self.queue) if self.queue is not None else None, "in_degree": self.in_degree,
            "context": [list(c) for c in self.context], "after": [list(c) for c in self.after],
        }


@dataclass(frozen=True)
class Divergence:
    """A region where the recordings differ, described at its first event.

    ``a_range``/``b_range`` are the (start, stop) positions of the region among
    the compared events of each side; ``a``/``b`` describe its first event.
    """

    a_range: tuple[int, int]
    b_range: tuple[int, int]
    a: SideState
    b: SideState
    fields: tuple[FieldDiff, ...]

    @property
    def kind(self) -> str:
        """The kind of the first differing event (a's, else b's)."""
        return self.a.kind or self.b.kind or "end of recording"

    def explain(self, labels: tuple[str, str] = ("A", "B")) -> str:
        """The divergence in words, several lines: what happened on each side, the fields
        that differ, the queue and in-degree map on both sides, and the events around it."""
        la, lb = labels
        lines = [self.headline(labels)]
        if self.fields:
            lines.append("  fields that differ:")
            for f in self.fields:
                lines.append(f"    {f.name}: {la} {_short(f.a)} | {lb} {_short(f.b)}")
        for side, label in ((self.a, la), (self.b, lb)):
            if side.queue is not None:
                lines.append(f"  {label}: queue (front first) [{', '.join(side.queue)}]; in-degree {_map(side.in_degree)}")
        ctx = self.a.context or self.b.context
        if ctx:
            lines.append(f"  before it (the same on both sides; {la}'s names):")
            lines.extend(f"    #{i} {kind}: {text}" for i, kind, text in ctx)
        for side, label in ((self.a, la), (self.b, lb)):
            if side.after:
                lines.append(f"  then in {label}:")
                lines.extend(f"    #{i} {kind}: {text}" for i, kind, text in side.after)
        return "\n".join(lines)

    def headline(self, labels: tuple[str, str] = ("A", "B")) -> str:
        """One sentence: where and how the recordings part ways."""
        la, lb = labels
        if self.a.index is None and self.a.text != "(no more events)":
            return f"{lb} has extra events where {la} has none, from {self.b.kind}: {self.b.text}"
        if self.b.index is None and self.b.text != "(no more events)":
            return f"{la} has extra events where {lb} has none, from {self.a.kind}: {self.a.text}"
        if self.a.index is None:
            return f"{la} ends where {lb} goes on with {self.b.kind}: {self.b.text}"
        if self.b.index is None:
            return f"{lb} ends where {la} goes on with {self.a.kind}: {self.a.text}"
        if self.b.kind == "error" != self.a.kind:  # one run refused (the error ends its pass), the other did not
            return f"{lb} stops at event #{self.b.index} with {self.b.text} where {la} goes on with {self.a.kind}: {self.a.text}"
        if self.a.kind == "error" != self.b.kind:
            return f"{la} stops at event #{self.a.index} with {self.a.text} where {lb} goes on with {self.b.kind}: {self.b.text}"
        if self.a.kind != self.b.kind:
            return (f"at event #{self.a.index} {la} did {self.a.kind} ({self.a.text}) where {lb} did "
                    f"{self.b.kind} ({self.b.text})")
        names = ", ".join(f.name for f in self.fields) or "contents"
        where = f"event #{self.a.index}" if self.a.index == self.b.index else f"events #{self.a.index}/#{self.b.index}"
        return f"at {where} ({self.a.kind}, differs in {names}) {la}: {self.a.text}; {lb}: {self.b.text}"

    def to_dict(self, labels: tuple[str, str] = ("A", "B")) -> dict[str, Any]:
        return {
            "kind": self.kind, "headline": self.headline(labels), "text": self.explain(labels),
            "a_range": list(self.a_range), "b_range": list(self.b_range),
            "a": self.a.to_dict(), "b": self.b.to_dict(),
            "fields": [{"name": f.name, "a": f.a, "b": f.b} for f in self.fields],
        }


@dataclass(frozen=True)
class TraceDiff:
    """The result of ``diff(a, b)``.

    Attributes:
        equal: the compared events agree (in canonical form).
        divergences: the first divergence, or every divergent region with ``all=True``.
        compared: how many events of each side were compared (after ``kinds``).
        kinds: the kind patterns compared (``("*",)`` for all).
    """

    equal: bool
    divergences: tuple[Divergence, ...]
    compared: tuple[int, int]
    kinds: tuple[str, ...] = ("*",)
    labels: tuple[str, str] = ("A", "B")

    @property
    def first(self) -> Divergence | None:
        """The first divergence (``None`` when equal)."""
        return self.divergences[0] if self.divergences else None

    def report(self) -> str:
        """Every divergence found, in words (what ``minigrad diff`` prints)."""
        la, lb = self.labels
        what = "" if self.kinds == ("*",) else f" ({' '.join(self.kinds)} events)"
        if self.equal:
            return f"{la} and {lb} agree: {self.compared[0]} events{what}, ids matched by first appearance"
        head = (f"{la} ({self.compared[0]} events) and {lb} ({self.compared[1]} events) differ{what}; "
                f"{len(self.divergences)} divergent region(s) shown")
        parts = [head]
        for k, d in enumerate(self.divergences, 1):
            parts.append(f"[{k}] " + d.explain(self.labels))
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.report()

    def to_dict(self) -> dict[str, Any]:
        return {
            "equal": self.equal, "compared": list(self.compared), "kinds": list(self.kinds),
            "labels": list(self.labels), "divergences": [d.to_dict(self.labels) for d in self.divergences],
        }


# ---------------------------------------------------------------------------
# diff
# ---------------------------------------------------------------------------


def _events_of(x: Any) -> list[Event]:
    if isinstance(x, (str, os.PathLike)):
        return list(load(x).events)
    return list(getattr(x, "events", x))


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _map(m: dict[str, int] | None, limit: int = 12) -> str:
    items = list((m or {}).items())
    text = ", ".join(f"{k}: {v}" for k, v in items[:limit])
    return "{" + text + (", …" if len(items) > limit else "") + "}"


def _named(key: str, value: Any, state: State, kind: str) -> Any:
    """``value`` with node and tensor ids replaced by the names ``state`` knows them by."""
    def n(v: Any) -> Any:
        return [n(x) for x in v] if isinstance(v, list) else state.node_name(v) if isinstance(v, int) and v >= 0 else v

    def t(v: Any) -> Any:
        return [t(x) for x in v] if isinstance(v, list) else state.tensor_name(v) if isinstance(v, int) and v >= 0 else v

    if key in _NODE_FIELDS or key == "no_grad" or (key == "inputs" and kind not in _TENSOR_INPUTS_KINDS):
        return n(value)
    if key in _TENSOR_FIELDS or key == "inputs":
        return t(value)
    if key == "in_degree" and isinstance(value, dict):
        return {state.node_name(int(k)): v for k, v in value.items()}
    if key == "mapping" and isinstance(value, dict):
        return {state.node_name(int(k)): state.node_name(v) for k, v in value.items()}
    if key == "edges" and isinstance(value, list):
        return [{k: (state.node_name(v) if k in ("next", "node") and isinstance(v, int) else v) for k, v in e.items()}
                if isinstance(e, dict) else e for e in value]
    return value


class _Side:
    """One recording: its events, canonical keys of the compared events, and replay on demand."""

    def __init__(self, events: list[Event], patterns: tuple[str, ...], describe: Describer) -> None:
        self.events = events
        canon = canonical_events(events)
        self.positions = [i for i, ev in enumerate(events) if any(fnmatch.fnmatchcase(ev.kind, p) for p in patterns)]
        self.canon = [canon[i] for i in self.positions]
        self.keys = [_key(c) for c in self.canon]
        self.describe = describe
        self._replay: Replay | None = None

    @property
    def replay(self) -> Replay:
        if self._replay is None:
            self._replay = Replay(self.events)
        return self._replay

    def state(self, index: int) -> State:
        return self.replay[index] if index >= 0 else self.replay.initial

    def words(self, index: int) -> str:
        return self.describe(self.events[index], self.state(index))

    def side_state(self, pos: int, context: int, empty: bool = False) -> SideState:
        """The side at compared position ``pos`` (``len`` means: past the end; ``empty``: the region
        holds none of this side's events, as for what ``SequenceMatcher`` calls an insertion)."""
        index = self.positions[pos] if pos < len(self.positions) and not empty else None
        before = self.positions[max(0, pos - context):pos]
        after = self.positions[pos + 1:pos + 1 + min(context, 2)] if index is not None else []
        ctx = tuple((i, self.events[i].kind, self.words(i)) for i in before)
        aft = tuple((i, self.events[i].kind, self.words(i)) for i in after)
        at = index if index is not None else (self.positions[pos] - 1 if pos < len(self.positions)
                                              else len(self.events) - 1)
        state = self.state(at)
        bw = state.backward
        queue = in_degree = None
        if bw is not None:
            queue = tuple(state.node_name(n) for n in bw.queue)
            in_degree = {state.node_name(n): c for n, c in bw.in_degree.items()}
        if index is None:
            text = "(nothing in its place)" if pos < len(self.positions) else "(no more events)"
            return SideState(None, None, text, queue, in_degree, ctx, aft)
        return SideState(index, self.events[index].kind, self.words(index), queue, in_degree, ctx, aft)


def _field_diffs(a: _Side, pa: int, b: _Side, pb: int) -> tuple[FieldDiff, ...]:
    if pa >= len(a.canon) or pb >= len(b.canon):
        return ()
    ca, cb = a.canon[pa], b.canon[pb]
    if ca["kind"] != cb["kind"]:
        return ()  # different steps altogether: the headline says so
    ea, eb = a.events[a.positions[pa]], b.events[b.positions[pb]]
    da, db = ea.to_dict(), eb.to_dict()
    sa, sb = a.state(a.positions[pa]), b.state(b.positions[pb])
    out = []
    for key in list(dict.fromkeys([*ca, *cb])):
        if _key({"v": ca.get(key)}) != _key({"v": cb.get(key)}):
            out.append(FieldDiff(key, _named(key, da.get(key), sa, ea.kind), _named(key, db.get(key), sb, eb.kind)))
    return tuple(out)


def diff(
    a: Any,
    b: Any,
    kinds: Iterable[str] | None = None,
    all: bool = False,  # noqa: A002  (the CLI flag's name)
    context: int = 3,
    describe: Describer | None = None,
    labels: tuple[str, str] = ("A", "B"),
) -> TraceDiff:
    """Compare two recordings of the same program (see the module docstring).

    Args:
        a, b: recorders, event lists, or paths of saved traces (``.jsonl``).
        kinds: fnmatch patterns of the kinds to compare (default: all), e.g. ``["queue.*"]``.
        all: report every divergent region, not only the first.
        context: how many compared events before each divergence to show.
        describe: ``describe(event, state) -> str`` for the words; by default the one
            describer every viewer uses (``minigrad.tracing.describe``).
        labels: what to call the two sides in the text (``("your run", "the reference")``).

    Returns:
        A ``TraceDiff``; ``.equal``, ``.first``, ``.report()``, ``.to_dict()``.

    Raises:
        TraceFormatError: a path that is not a valid trace.
    """
    patterns = tuple(kinds) if kinds else ("*",)
    words = describe or _describe
    sa = _Side(_events_of(a), patterns, words)
    sb = _Side(_events_of(b), patterns, words)
    n = 0
    limit = min(len(sa.keys), len(sb.keys))
    while n < limit and sa.keys[n] == sb.keys[n]:
        n += 1
    compared = (len(sa.keys), len(sb.keys))
    if n == len(sa.keys) == len(sb.keys):
        return TraceDiff(True, (), compared, patterns, labels)

    regions: list[tuple[int, int, int, int]] = []
    if all:
        matcher = difflib.SequenceMatcher(None, sa.keys[n:], sb.keys[n:], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                regions.append((n + i1, n + i2, n + j1, n + j2))
    else:
        regions.append((n, len(sa.keys), n, len(sb.keys)))
    divergences = tuple(
        Divergence((i1, i2), (j1, j2), sa.side_state(i1, context, empty=i1 == i2),
                   sb.side_state(j1, context, empty=j1 == j2),
                   _field_diffs(sa, i1, sb, j1) if i1 < i2 and j1 < j2 else ())
        for i1, i2, j1, j2 in regions
    )
    return TraceDiff(False, divergences, compared, patterns, labels)
