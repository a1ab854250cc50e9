"""The version view's facts, read off a recording once: each bump of a version counter, each rewritten
history, and each saved tensor an in-place change made stale - with the event where it happened.

``VersionHistory(replay)`` walks the replayed trace once; ``history.at(i)`` is what the version view
shows at event ``i``: the bumps and rewrites so far, and the saved tensors stale at that moment
(the same set as ``replay.stale_saved(replay[i])``, which a test checks at every event). The TUI's
Versions tab (``tui/widgets/versions.py``) and the web page's pane (``viz/versions_pane.py``) both
draw it; neither looks at versions any other way. The mechanism is explained in
docs/concepts/views.md.

Example:
    >>> import minigrad as mg
    >>> with mg.trace() as tr:
    ...     x = mg.tensor([1.0, 2.0], requires_grad=True)
    ...     h = x * 2
    ...     _ = h[1].mul_(3)
    >>> v = VersionHistory(mg.trace.replay(tr.events)).at(len(tr.events) - 1)
    >>> [(b.op, b.version, b.via_made) for b in v.bumps]
    [('mul_', 1, 't3[1]')]
"""

from __future__ import annotations

import linecache
import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:  # pragma: no cover - replay.py imports this module (its ``Replay.versions``)
    from .replay import Replay, State

__all__ = ["INTRO", "Bump", "Rewrite", "Stale", "VersionsAt", "VersionHistory", "short_source", "code_at", "geometry_text", "replaced_edges"]


#: What a newcomer reads first in either viewer: the two facts the version view shows at work.
INTRO = (
    "A version counter counts the in-place changes (add_, mul_, x[i] = ...) of a storage: a tensor, its views "
    "and its detach()es share one. A grad node keeps the version of each tensor it saved; if that tensor "
    "changed since, the node cannot run backward."
)


def short_source(source: str | None) -> str | None:
    """``/long/path/train.py:12`` -> ``train.py:12`` (the file name is what people recognise)."""
    if not source:
        return None
    path, _, line = source.rpartition(":")
    return f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{line}" if path else source


#: The largest source file whose line the viewers quote (a recording is data: its paths are not trusted).
MAX_SOURCE_BYTES = 4 << 20


def code_at(source: str | None) -> str | None:
    """The text of the line ``file:line`` names, if that file is a Python file that can be read here
    (a recording made on this machine); ``None`` otherwise (``<stdin>``, a notebook cell, another
    machine's path, or a path in a hostile recording that names no Python source, e.g. ``/dev/zero``)."""
    if not isinstance(source, str) or not source:
        return None
    path, _, line = source.rpartition(":")
    if not path.endswith(".py") or not line.isdigit():
        return None
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_SOURCE_BYTES:
            return None
    except (OSError, ValueError):  # ValueError: a NUL byte in the path
        return None
    text = linecache.getline(path, int(line)).strip()
    return text or None


def geometry_text(view: Mapping[str, Any] | None) -> str:
    """``size [3] stride [1] offset 3``: where a view's elements sit in its base (``as_strided``'s words)."""
    if not view:
        return ""
    size, stride = view.get("size", []), view.get("stride", [])
    return f"size {_listed(size)} stride {_listed(stride)} offset {view.get('offset')}"


def _listed(value: Any) -> Any:
    """A JSON list as a list (``[3]``), anything else a recording holds as it is."""
    return list(value) if isinstance(value, (list, tuple)) else value


@dataclass(frozen=True)
class Bump:
    """One ``tensor.version``: at event ``index`` the in-place op ``op`` took the counter of ``tensor``
    (the storage's base) to ``version``, through the view ``via`` (made by ``via_made``, e.g. ``t3[1]``),
    seen by the ``aliases`` too, from the user's line ``source`` (``code``: that line's text)."""

    index: int
    tensor: int
    name: str
    version: int
    op: str
    via: int | None
    via_name: str | None
    via_made: str | None
    aliases: tuple[str, ...]
    source: str | None
    code: str | None
    view: Mapping[str, Any] | None  # the geometry, when the change rewrote the base's history


@dataclass(frozen=True)
class Rewrite:
    """One ``history.rewrite``: at event ``index`` ``name``'s grad node went from ``from_node`` to the
    CopySlices node ``to_node``. ``consumers`` are the nodes (with the event that made each) whose edge
    led to ``from_node`` before the rewrite and leads to ``to_node`` now - the edges the rewrite replaced.
    Only a node made before the rewrite can have one: a node made afterwards (``h.sum()`` after
    ``h[1].mul_(3)``) was built on the new history from the start, and replaced nothing."""

    index: int
    tensor: int
    name: str
    from_node: int | None
    from_name: str
    to_node: int
    to_name: str
    view: Mapping[str, Any]
    consumers: tuple[tuple[int, int], ...]  # (node id, event that made it)
    #: The base's views given fresh grad nodes from the new history (view replay): (name, node id, event).
    regenerated: tuple[tuple[str, int, int], ...] = ()


@dataclass(frozen=True)
class Stale:
    """From event ``since`` until ``until`` (``None``: the end), ``node`` holds ``tensor`` saved at
    ``saved_version`` while the tensor is at ``version``: backward through ``node`` will refuse."""

    node: int
    node_name: str
    tensor: int
    tensor_name: str
    saved_version: int
    version: int
    since: int
    until: int | None
    #: The event where backward released the node's saved tensors (it ran): from then on nothing will refuse.
    released_at: int | None = None
    #: The ``error`` event where backward refused the node (its saved tensor was stale), if it came to that.
    refused_at: int | None = None

    def refused(self, index: int) -> bool:
        """Whether backward refused already at event ``index`` (the viewers say so, not "will refuse")."""
        return self.refused_at is not None and self.refused_at <= index

    def ran(self, index: int) -> bool:
        """Whether the node already ran (and freed what it saved) at event ``index``."""
        return self.released_at is not None and self.released_at <= index


@dataclass(frozen=True)
class VersionsAt:
    """What the version view shows at event ``index``."""

    index: int
    bumps: tuple[Bump, ...]
    rewrites: tuple[Rewrite, ...]
    stale: tuple[Stale, ...]

    def timelines(self) -> dict[int, list[Bump]]:
        """Each bumped base (by id, in order of its first bump) with its bumps so far."""
        out: dict[int, list[Bump]] = {}
        for b in self.bumps:
            out.setdefault(b.tensor, []).append(b)
        return out


class VersionHistory:
    """Every bump, rewrite and stale saved tensor of a replayed recording (see the module docstring)."""

    def __init__(self, replay: Replay) -> None:
        self.length = len(replay.events)  # the events read (a trace still being recorded grows)
        final = replay.final
        self.bumps: tuple[Bump, ...] = tuple(self._bumps(replay, final))
        self.rewrites: tuple[Rewrite, ...] = tuple(self._rewrites(replay, final))
        self.stale: tuple[Stale, ...] = tuple(self._stale(replay, final))

    def at(self, index: int) -> VersionsAt:
        """The version view at event ``index`` (``-1``: before any event)."""
        rewrites = []
        for r in self.rewrites:
            if r.index <= index:
                consumers = tuple(c for c in r.consumers if c[1] <= index)
                regenerated = tuple(g for g in r.regenerated if g[2] <= index)
                rewrites.append(replace(r, consumers=consumers, regenerated=regenerated))
        return VersionsAt(
            index=index,
            bumps=tuple(b for b in self.bumps if b.index <= index),
            rewrites=tuple(rewrites),
            stale=tuple(s for s in self.stale if s.since <= index and (s.until is None or index < s.until)),
        )

    # -- reading the recording once ------------------------------------------------

    @staticmethod
    def _bumps(replay: Replay, final: State) -> list[Bump]:
        events = replay.events
        made_by = _views_made(final)
        out = []
        for k, v in enumerate(final.versions):
            source = getattr(events[v.index], "source", None)
            # The change rewrote the base's history if a rewrite of it follows before the next change.
            until = final.versions[k + 1].index if k + 1 < len(final.versions) else len(events)
            rewrite = next((r for r in final.rewrites if v.index < r.index < until and r.tensor == v.tensor), None)
            out.append(Bump(
                index=v.index, tensor=v.tensor, name=final.tensor_name(v.tensor), version=v.version, op=v.op,
                via=v.via, via_name=final.tensor_name(v.via) if v.via is not None else None,
                via_made=made_by.get(v.via) if v.via is not None else None,
                aliases=tuple(final.tensor_name(a) for a in v.aliases if a != v.via),
                source=source, code=code_at(source),
                view=rewrite.view if rewrite is not None else None,
            ))
        return out

    @staticmethod
    def _rewrites(replay: Replay, final: State) -> list[Rewrite]:
        # Views regenerated from a new history announce their new node with a "view replay" update.
        replayed = {ev.grad_node: (ev.tensor, i) for i, ev in enumerate(replay.events)
                    if ev.kind == "tensor.update" and ev.op == "view replay" and ev.grad_node is not None}
        out = []
        for r in final.rewrites:
            leading = [final.nodes[n] for n in _leading_to(final, r, final.nodes)]
            consumers = tuple(sorted((n.id, n.created_at) for n in leading
                                     if n.id not in replayed and n.created_at < r.index))
            regenerated = tuple(sorted(((final.tensor_name(replayed[n.id][0]), n.id, replayed[n.id][1])
                                        for n in leading if n.id in replayed), key=lambda g: g[2]))
            out.append(Rewrite(
                index=r.index, tensor=r.tensor, name=final.tensor_name(r.tensor), from_node=r.from_node,
                from_name=final.node_name(r.from_node) if r.from_node is not None else "none (no history)",
                to_node=r.to_node, to_name=final.node_name(r.to_node), view=r.view, consumers=consumers,
                regenerated=regenerated,
            ))
        return out

    @staticmethod
    def _stale(replay: Replay, final: State) -> list[Stale]:
        changes = _version_changes(replay)
        released, refused = {}, {}
        for i, ev in enumerate(replay.events):
            if ev.kind == "wrappers.clear":
                released.setdefault(ev.node, i)
            elif ev.kind == "error" and ev.node is not None:
                refused.setdefault(ev.node, []).append(i)
        out = []
        for node in sorted(final.nodes.values(), key=lambda n: (n.created_at, n.id)):
            for tid, saved_at in dict.fromkeys(zip(node.saved, node.saved_versions)):  # x * x saves x twice
                steps = _distinct([(i, v) for i, v in changes.get(tid, ()) if i > node.created_at], saved_at)
                for k, (i, version) in enumerate(steps):
                    if version == saved_at:
                        continue
                    until = steps[k + 1][0] if k + 1 < len(steps) else None
                    refusal = next((r for r in refused.get(node.id, ()) if r > i and (until is None or r < until)), None)
                    out.append(Stale(node.id, node.name, tid, final.tensor_name(tid), saved_at, version, i, until,
                                     released.get(node.id), refusal))
        return sorted(out, key=lambda s: (s.since, s.node, s.tensor))


def _distinct(steps: list[tuple[int, int]], first: int) -> list[tuple[int, int]]:
    """The steps that change the version (from ``first``): a ``tensor.update`` repeating it is no change."""
    out = []
    for i, version in steps:
        if version != (out[-1][1] if out else first):
            out.append((i, version))
    return out


def _leading_to(state: State, rewrite: Any, ids: Iterable[int]) -> list[int]:
    """The nodes among ``ids`` whose edge leads to ``rewrite``'s CopySlices node because they used the base
    (or a view of it) after the change; a later CopySlices over the same base leads there too, but its
    edge is the old history, not a replaced one."""
    follows = {x.to_node for x in state.rewrites if x.from_node == rewrite.to_node}
    out = []
    for nid in sorted(ids):
        info = state.nodes.get(nid)
        if info is not None and nid != rewrite.to_node and nid not in follows \
                and any(e.next == rewrite.to_node for e in info.edges):
            out.append(nid)
    return out


def replaced_edges(state: State, ids: Iterable[int]) -> list[tuple[int, int, int]]:
    """``(consumer, old node, CopySlices node)`` for each edge among the nodes ``ids`` that a rewritten
    history replaced: the consumer's edge leads to the CopySlices node now, and it led to the base's old
    node before the in-place change - the consumer existed then. A consumer made after the change never
    had an edge to the old node (``h.sum()`` after ``h[1].mul_(3)``): nothing was replaced, nothing is
    drawn. The graph views draw these dashed, as ``replaced``."""
    drawn = set(ids)
    out = []
    for r in state.rewrites:
        if r.to_node in drawn and r.from_node in drawn:
            out += [(c, r.from_node, r.to_node) for c in _leading_to(state, r, drawn)
                    if state.nodes[c].created_at < r.index]
    return out


def _version_changes(replay: Replay) -> dict[int, list[tuple[int, int]]]:
    """tensor id -> ``(event, version)`` each time replay's version of it is set (as ``replay`` folds:
    ``tensor.create`` starts at 0, ``tensor.version`` sets the base and its aliases, ``tensor.update`` one)."""
    out: dict[int, list[tuple[int, int]]] = {}
    views_of: dict[int, list[int]] = {}  # a base's views, gone or not (``tensor.create``'s ``base``)
    for i, ev in enumerate(replay.events):
        kind = ev.kind
        if kind == "tensor.create":
            out.setdefault(ev.tensor, []).append((i, 0))
            if getattr(ev, "base", None) is not None:
                views_of.setdefault(ev.base, []).append(ev.tensor)
        elif kind == "tensor.version":
            for tid in dict.fromkeys((ev.tensor, *ev.aliases, *views_of.get(ev.tensor, ()))):
                out.setdefault(tid, []).append((i, ev.version))
        elif kind == "tensor.update":
            out.setdefault(ev.tensor, []).append((i, ev.version))
    return out


def _views_made(final: State) -> dict[int, str]:
    """tensor id -> how the op call that made it reads: ``t3[1]``, ``t3.transpose(0, 1)``, ``t3.view(6)``."""
    out: dict[int, str] = {}
    for call in final.calls:
        if call.phase != "forward" or not call.outputs or not call.inputs:
            continue
        src = final.tensor_name(call.inputs[0]) if isinstance(call.inputs[0], int) else "?"
        attrs = dict(call.attrs)
        if call.op == "getitem":
            index = attrs.get("index", [])
            text = f"{src}[{', '.join(str(i) for i in index)}]" if isinstance(index, list) else f"{src}[{index}]"
        else:
            args = ", ".join(str(v) if not isinstance(v, list) else ", ".join(map(str, v))
                             for v in attrs.values() if not isinstance(v, dict))
            text = f"{src}.{call.op}({args})"
        for t in call.outputs:
            out.setdefault(t, text)
    return out
