"""The small panes: status line, ready queue, gradient buffers, node detail, GeneralGrad.

Each redraws from a replayed ``State`` (and the selected pass) and skips the
update when what it shows did not change.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from minigrad.tracing.describe import fmt_value
from minigrad.tracing.events import NODE_HOOK_KINDS
from minigrad.tracing.replay import BackwardPass, State, node_status
from minigrad.tracing.viewing import grad_history

from ..format import STATUS_STYLE
from ..model import Session

__all__ = ["StatusLine", "QueueView", "BuffersView", "NodeDetail", "GeneralGradView"]


class _Pane(Static):
    """A Static that only re-renders when its content key changes."""

    DEFAULT_CSS = """
    _Pane { border: round $primary 50%; border-title-style: bold; padding: 0 1; }
    """

    def __init__(self, session: Session, title: str, **kw: Any) -> None:
        super().__init__("", **kw)
        self.session = session
        self.border_title = title
        self._key: Any = object()
        self.text = Text()

    #: A pane whose height follows its text (in a scrolling container) lays the screen out again on
    #: each new text; a fixed-size pane does not.
    GROWS = False

    def put(self, key: Any, build) -> None:
        if key == self._key:
            return
        self._key = key
        self.text = build()
        self.update(self.text, layout=self.GROWS)

    @property
    def plain(self) -> str:
        """The pane's text (tests read panes with this)."""
        return self.text.plain


def _short_path(source: str) -> str:
    """``/long/path/to/train.py:12`` -> ``train.py:12`` (the file name is what people recognise)."""
    path, _, line = source.rpartition(":")
    return f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{line}" if path else source


class StatusLine(_Pane):
    """Top line: trace, pass, position, event, playback and quiz score."""

    DEFAULT_CSS = """
    StatusLine { height: 6; border: round $accent; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def show(self, text: Text) -> None:
        self.put(text.plain, lambda: text)


class QueueView(_Pane):
    """The ready queue, front → back (AccumulationNodes are pushed to the front)."""

    DEFAULT_CSS = """
    QueueView { height: 5; }
    """

    LIMIT = 40

    def show(self, bw: BackwardPass | None) -> None:
        queue = bw.queue if bw is not None else None
        current = bw.current if bw is not None and not bw.done else None
        self.put((queue, current), lambda: self._build(bw))

    def _build(self, bw: BackwardPass | None) -> Text:
        s = self.session
        t = Text()
        if bw is None:
            t.append("(pass not started)", style="dim")
            return t
        if bw.current is not None and not bw.done:
            t.append("popped: ", style="dim")
            t.append(s.node_name(bw.current), style=STATUS_STYLE["running"])
            t.append("\n")
        t.append("front → ", style="dim")
        if not bw.queue:
            t.append("(empty)", style="dim")
        for k, n in enumerate(bw.queue[: self.LIMIT]):
            if k:
                t.append("  ")
            t.append(f"{k}:", style="dim")
            t.append(s.node_name(n), style="bold yellow" if k == 0 else "yellow")
        if len(bw.queue) > self.LIMIT:
            t.append(f"  … {len(bw.queue) - self.LIMIT} more", style="dim")
        t.append(" ← back", style="dim")
        return t


class BuffersView(_Pane):
    """The GradTensorHolder of the focused node, per (slot, rank), with values."""

    DEFAULT_CSS = """
    BuffersView { height: 9; }
    """

    def show(self, state: State, bw: BackwardPass | None, node: int | None) -> None:
        ev = state.event
        added = (ev.node, ev.slot, ev.rank) if ev is not None and ev.kind == "buffer.add" else None
        buf = bw.buffers.get(node) if bw is not None and node is not None else None
        consumed = bw is not None and node in bw.grads_in
        finished = bw is not None and node in bw.grads_out
        key = (node, bw.number if bw else None, repr(sorted(buf.items())) if buf else None, consumed, finished, added)
        self.put(key, lambda: self._build(state, bw, node))

    def _build(self, state: State, bw: BackwardPass | None, node: int | None) -> Text:
        s = self.session
        t = Text()
        if bw is None or node is None:
            self.border_title = "Gradient buffers"
            t.append("(no current node)", style="dim")
            return t
        self.border_title = f"Gradient buffers · {s.node_name(node)}"
        ev = state.event
        added = (ev.slot, ev.rank) if ev is not None and ev.kind == "buffer.add" and ev.node == node else None
        buf = bw.buffers.get(node)
        if buf:
            t.append("GradTensorHolder (slot, rank):\n", style="dim")
            for (slot, rank), value in sorted(buf.items()):
                mark = "  ◀ just added" if added == (slot, rank) else ""
                t.append(f"  [{slot},{rank}] ", style="bold")
                t.append(fmt_value(value, 70), style="yellow" if mark else "")
                t.append(mark + "\n", style="bold yellow")
        elif node in bw.grads_in:
            done = node in bw.grads_out
            t.append("buffer consumed by the run; grads in:\n" if done else "buffer taken: the node runs on grads in:\n",
                     style="dim")
            for slot, ranks in enumerate(bw.grads_in[node] or []):
                for rank, value in enumerate(ranks or []):
                    t.append(f"  [{slot},{rank}] {fmt_value(value, 70)}\n")
            outs = bw.grads_out.get(node) or []
            if outs:
                t.append("grads out:\n", style="dim")
                for slot, ranks in enumerate(outs):
                    for rank, value in enumerate(ranks or []):
                        t.append(f"  [{slot},{rank}] {fmt_value(value, 70)}\n")
        else:
            t.append("empty (no gradient has arrived yet)", style="dim")
        if ev is not None and ev.kind == "buffer.add" and ev.node != node:
            t.append(f"\njust added to {s.node_name(ev.node)}[{ev.slot},{ev.rank}]: {fmt_value(ev.value, 50)}", style="yellow")
        return t


class NodeDetail(_Pane):
    """Op, attributes, saved tensors with versions, edges and hooks of the focused node."""

    DEFAULT_CSS = """
    NodeDetail { height: 12; }
    """

    def show(self, state: State, bw: BackwardPass | None, node: int | None) -> None:
        released = bw is not None and node in bw.released
        status = node_status(state, node, bw) if node is not None and bw is not None else None
        hooks = len(bw.hooks) if bw is not None else 0
        saved_versions = ()
        info = state.nodes.get(node) if node is not None else None
        if info is not None:
            saved_versions = tuple(state.tensors[t].version if t in state.tensors else None for t in info.saved)
        grads = len(grad_history(state.passes, info.tensor)) if info is not None and info.is_accumulation else 0
        failed = bw is not None and bw.error is not None and bw.error["at"] <= state.index
        self.put((node, released, status, hooks, saved_versions, info is None, grads, failed),
                 lambda: self._build(state, bw, node))

    def _build(self, state: State, bw: BackwardPass | None, node: int | None) -> Text:
        s = self.session
        t = Text()
        error = bw.error if bw is not None else None
        if error is not None and error["at"] <= state.index:  # where the node's step would have been
            where = f" at {_short_path(error['source'])}" if error.get("source") else ""
            t.append(f"✘ {error['error']}{where}: ", style="bold #ffffff on #c62828")
            t.append(f"{error['message']}\n", style="bold #ef5350")
        info = state.nodes.get(node) if node is not None else None
        later = s.replay.final.nodes.get(node) if info is None and node is not None else None
        if later is not None:  # grad() starts at a GeneralGrad copy that is made a few events on
            self.border_title = f"Node detail · {later.name}"
            t.append(f"{later.name}", style="bold")
            copy = f", GeneralGrad's copy of {s.node_name(later.copy_of)}" if later.copy_of is not None else ""
            t.append(f"  the start node{copy}: created at event {later.created_at}", style="dim")
            if later.copy_of is not None:
                t.append("\ngrad() works on a copy of the graph, so the user's graph is never changed", style="dim")
            return t
        if info is None:
            t.append("(no node selected; press j to jump to one)", style="dim")
            self.border_title = "Node detail"
            return t
        self.border_title = f"Node detail · {info.name}"
        status = node_status(state, info.id, bw) if bw is not None else "idle"
        t.append(f"{info.name}", style="bold")
        t.append(f"  op {info.op}  topo_nr {info.topo_nr}  seq_nr {info.seq_nr}  ")
        t.append(status, style=STATUS_STYLE.get(status, ""))
        if info.is_accumulation:
            t.append(f"  AccumulateGrad of {s.tensor_name(info.tensor)}", style="cyan")
        if info.copy_of is not None:
            t.append(f"  copy of {s.node_name(info.copy_of)}", style="magenta")
        origin = info
        if info.source is None and info.copy_of is not None:  # a GeneralGrad copy: where the original came from
            origin = state.nodes.get(info.copy_of, info)
        if origin.source or origin.module:
            t.append("\nmade at ", style="dim")
            t.append(_short_path(origin.source) if origin.source else "?", style="bold")
            if origin.module:
                t.append("  in module ", style="dim")
                t.append(origin.module, style="bold cyan")
        t.append("\n")
        attrs = ", ".join(f"{k}={v}" for k, v in info.attrs.items()) or "-"
        t.append("attrs  ", style="dim")
        t.append(attrs + "\n")
        t.append("saved  ", style="dim")
        if not info.saved:
            t.append("-")
        for k, tid in enumerate(info.saved):
            tinfo = state.tensors.get(tid)
            if k:
                t.append(", ")
            if tinfo is None:
                t.append(f"t{tid}")
                continue
            saved_at = info.saved_versions[k] if k < len(info.saved_versions) else tinfo.version
            if saved_at != tinfo.version:  # changed in place since the node saved it: backward refuses it
                t.append(f"{tinfo.name} {list(tinfo.shape)} ")
                t.append(f"✘ stale: saved at v{saved_at}, now v{tinfo.version}", style="bold #ffffff on #c62828")
            else:
                t.append(f"{tinfo.name} {list(tinfo.shape)} v{tinfo.version}")
        if bw is not None and info.id in bw.released:
            t.append("  (TensorWrappers released)", style="dim red")
        t.append("\n")
        t.append("edges (output slot, rank → next node, its input slot, rank; ? for the glossary)\n", style="dim")
        for e in info.edges:
            nxt = s.node_name(e.next) if e.next is not None else "∅ (no grad needed)"
            t.append(f"  slot {e.slot} rank {e.rank} → {nxt} (slot {e.next_slot} rank {e.next_rank})\n")
        if not info.edges:
            t.append("  (none: writes a leaf's .grad)\n" if info.is_accumulation else "  (none)\n")
        hooks = []
        if bw is not None:  # the node's own hooks, and those of its output tensors (its leaf's, for an AccumulateGrad)
            out_tensors = {tid for tid, ti in state.tensors.items() if ti.grad_node == info.id}
            if info.tensor is not None:
                out_tensors.add(info.tensor)
            hooks = [h for h in bw.hooks if (h.get("target") == info.id if h.get("hook_kind") in NODE_HOOK_KINDS
                                             else h.get("target") in out_tensors)]
        t.append("hooks  ", style="dim")
        t.append(", ".join(f"{h['hook_kind']} on {_hook_target(s, h)} @ event {h['at']}" for h in hooks) or "-")
        if info.is_accumulation:
            self._grad_history(t, state, info.tensor)
        return t

    def _grad_history(self, t: Text, state: State, tensor: Any) -> None:
        """A leaf's .grad after each pass that wrote it: assigned (it was None) or added (it accumulated)."""
        t.append(f"\n{self.session.tensor_name(tensor)}.grad by pass  ", style="dim")
        history = grad_history(state.passes, tensor)
        if not history:
            t.append("- (not written yet)")
        for k, (number, value, added) in enumerate(history):
            t.append(" · " if k else "")
            how = " added" if added else (" assigned" if added is False else "")
            t.append(f"{number}: {fmt_value(value, 24)}")
            t.append(how, style="bold yellow" if added else "dim")


class GeneralGradView(_Pane):
    """GeneralGrad's decisions for a ``grad()`` pass: targets, startup, ending, needed, pruned."""

    DEFAULT_CSS = """
    GeneralGradView { height: 1fr; }
    """

    def show(self, bw: BackwardPass | None, marks: bool) -> None:
        self.put((id(bw.general) if bw is not None else None, bw.number if bw else None, marks), lambda: self._build(bw, marks))

    def _build(self, bw: BackwardPass | None, marks: bool) -> Text:
        s = self.session
        t = Text()
        if bw is None:
            t.append("(pass not started)", style="dim")
            return t
        g = bw.general
        if g is None:
            t.append(f"Pass {bw.number + 1} is a plain {bw.mode}: GeneralGrad does not take part.\n", style="dim")
            t.append("Pick the grad() pass with c to see startup, ending, needed and pruned nodes.", style="dim")
            return t
        names = lambda ids: ", ".join(s.node_name(n) for n in sorted(ids)) or "-"  # noqa: E731
        rows = [
            ("copied nodes", ", ".join(f"{s.node_name(a)}→{s.node_name(b)}" for a, b in list(g.copies.items())[:30]) or "-", ""),
            ("inputs (targets)", names(g.inputs), "bold cyan"),
            ("no_grad_vars", names(g.no_grad), "red"),
            ("startup", names(g.startup), "bold green"),
            ("ending", names(g.ending), "bold blue"),
            ("needed", names(g.needed), "green"),
            ("pruned edges", ", ".join(f"{s.node_name(p.get('node'))}({p.get('slot')},{p.get('rank')}) ✂ {s.node_name(p.get('next'))}" for p in g.pruned) or "-", "red"),
            ("results", ", ".join(f"{s.tensor_name(k)} = {fmt_value(v, 40)}" for k, v in g.results.items()) or "-", "yellow"),
        ]
        for label, value, style in rows:
            t.append(f"{label:<18}", style="dim")
            t.append(value + "\n", style=style)
        t.append(f"\nmarks in the graph pane: {'on' if marks else 'off'} (m toggles)", style="dim")
        return t


def _hook_target(s: Any, h: Any) -> str:
    """A ``hook.run``'s target by name: a node for a node's own hook, else a tensor."""
    return s.node_name(h["target"]) if h.get("hook_kind") in NODE_HOOK_KINDS else s.tensor_name(h["target"])
