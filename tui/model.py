"""The TUI's view model: one trace, its replayed states, and navigation over them.

The app never folds events itself: every pane draws a ``State`` from
``minigrad.trace.replay``. This module adds what a *viewer* needs on top —
a stable display order for a pass's graph, the event indices of node runs,
and the quiz's questions — all read off replayed states.

NOTE [ Time travel is replay indexing ]
    The position in time is an event index ``i``; the screen shows
    ``replay[i]`` (``replay.initial`` for ``i == -1``). Stepping back is
    another lookup, so it always lands on exactly the state seen before.

Example:
    >>> from minigrad.tracing import events as E
    >>> s = Session([E.BackwardBegin(seq=0, mode="backward", start=[0], retain_graph=False, create_graph=False)])
    >>> s.passes[0].mode, s.state(0).backward.start
    ('backward', (0,))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from minigrad.tracing.replay import BackwardPass, NodeInfo, Replay, State
from minigrad.tracing.versions import replaced_edges
from minigrad.tracing.viewing import inside_node, named_outputs, pass_call, pass_ending, run_ending, run_starts

from .layout2d import Canvas, group_by_module, pass_canvas, pass_graph

__all__ = ["PassInfo", "PassLayout", "QuizQuestion", "QuizScore", "Session"]


@dataclass(frozen=True)
class PassInfo:
    """One backward pass of the trace: its event range and mode."""

    number: int
    begin: int
    end: int  # index of backward.end or of the error that ended it, or the last event of a truncated pass
    mode: str
    complete: bool
    #: What the script called, as its line reads (``viewing.pass_call``).
    call: str = "backward()"
    #: ``ended by RuntimeError at prog.py:9`` when an error ended the pass (``viewing.pass_ending``).
    ending: str | None = None
    #: The error's message, shown where the next step would have been.
    message: str | None = None

    @property
    def label(self) -> str:
        what = self.call + ("  (GeneralGrad)" if self.mode == "grad" else "")
        tail = f"  [{self.ending}]" if self.ending else ("" if self.complete else "  [incomplete]")
        return f"pass {self.number}: {what}  events {self.begin}–{self.end}{tail}"


@dataclass(frozen=True)
class PassLayout:
    """How the graph pane lays out one pass: rows in depth order from the start nodes.

    Attributes:
        order: node ids, one per row (depth, then creation order).
        depth: longest distance from a start node along output edges.
        row: node id -> row.
        nodes: the NodeInfo of every node in the pass (as of the pass's end).
        runs: event indices where each node of the pass starts running (its ``node.begin``).
    """

    number: int
    order: tuple[int, ...]
    depth: Mapping[int, int]
    row: Mapping[int, int]
    nodes: Mapping[int, NodeInfo]
    runs: tuple[int, ...]
    cut: tuple[tuple[int, int], ...] = ()  # (node, next) of the edges GeneralGrad cut (no_grad_vars)
    #: (consumer, old node) of the edges a rewritten history replaced: the consumer used the base after an
    #: in-place change through a view, so its edge leads to the CopySlices node instead (docs/concepts/views.md).
    replaced: tuple[tuple[int, int], ...] = ()
    #: CopySlices node -> the name of the base whose history it rewrote.
    rewritten: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class QuizQuestion:
    """Before the node run at ``run_index``: which node runs, and the in-degrees after its step."""

    ask_index: int
    run_index: int
    node: int
    after_index: int
    successors: tuple[int, ...]
    in_degree_after: tuple[int, ...]
    candidates: tuple[int, ...]


@dataclass
class QuizScore:
    """Running quiz score: node predictions and in-degree predictions."""

    nodes_right: int = 0
    nodes_asked: int = 0
    degrees_right: int = 0
    degrees_asked: int = 0
    answered: set[int] = field(default_factory=set)

    def __str__(self) -> str:
        return f"node {self.nodes_right}/{self.nodes_asked} · in-degree {self.degrees_right}/{self.degrees_asked}"


class Session:
    """A trace opened in the app.

    Args:
        events: the events (a list, or a Recorder with ``.events``).
        title: what the status line calls this trace (file name, "demo").
        notice: a message shown once the app opens (e.g. "script printed ...").
    """

    def __init__(self, events: Sequence[Any] | Any, title: str = "trace", notice: str | None = None) -> None:
        evs = getattr(events, "events", events)
        self.replay: Replay = Replay(evs)  # replay spaces its checkpoints for the trace's size
        self.events = self.replay.events
        self.title = title
        self.notice = notice
        self.passes: list[PassInfo] = self._find_passes()
        #: The error that ended the run outside every pass (``viewing.run_ending``), else None.
        self.ending: Mapping[str, Any] | None = run_ending(self.replay)
        self._layouts: dict[int, PassLayout] = {}
        self._canvases: dict[tuple[int, bool], Canvas] = {}
        self._asks: dict[int, list[tuple[int, int]]] = {}
        self._names: dict[int, str] | None = None
        self._tensor_names: dict[int, str] | None = None
        self._inside: list[bool] | None = None

    def _find_passes(self) -> list[PassInfo]:
        known = {p.number: p for p in getattr(self, "passes", ()) if p.complete}  # finished: they never change
        found = self.replay.backward_passes()
        if all(n in known and known[n].begin == b for n, (b, _, _) in enumerate(found)):
            return [known[n] for n in range(len(found))]
        final = self.replay.final
        outputs = named_outputs(final)
        out = []
        for n, (b, e, m) in enumerate(found):
            if n in known and known[n].begin == b:
                out.append(known[n])
                continue
            bw = final.passes[n] if n < len(final.passes) else None
            error = bw.error if bw is not None else None
            out.append(PassInfo(n, b, e if e is not None else len(self.events) - 1, m, e is not None,
                                call=pass_call(final, bw, outputs) if bw is not None else "backward()",
                                ending=pass_ending(bw), message=error.get("message") if error else None))
        return out

    def extend(self, events: Sequence[Any]) -> None:
        """Append events of a trace that is still being recorded (``--follow``, a live script).

        Layouts of passes that were still running are recomputed on next use;
        finished passes keep theirs (their events never change).
        """
        if not events:
            return
        first_open = next((p.number for p in self.passes if not p.complete), len(self.passes))
        self.replay.extend(events)
        self.events = self.replay.events
        self.passes = self._find_passes()
        self.ending = run_ending(self.replay)
        for cache in (self._layouts, self._asks):
            for n in [n for n in cache if n >= first_open]:
                del cache[n]
        for key in [k for k in self._canvases if k[0] >= first_open]:
            del self._canvases[key]
        self._names = self._tensor_names = None
        self._inside = None

    def inside_node(self, index: int) -> bool:
        """Whether event ``index`` happened inside a node's run (between its node.begin and node.run)."""
        if self._inside is None:
            self._inside = inside_node(self.events)
        return self._inside[index]

    # -- states ------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.events)

    def state(self, index: int) -> State:
        """The state after event ``index`` (``-1``: before any event)."""
        if index < 0 or not self.events:
            return self.replay.initial
        return self.replay[min(index, len(self.events) - 1)]

    @staticmethod
    def pass_in(state: State, number: int) -> BackwardPass | None:
        """Pass ``number`` as of ``state`` (``None`` before it begins)."""
        return state.passes[number] if number < len(state.passes) else None

    # -- names -------------------------------------------------------------

    def node_name(self, node_id: Any) -> str:
        """Display name of a node id, from the final state (names never change)."""
        if node_id is None:
            return "-"
        if self._names is None:
            self._names = {n: info.name for n, info in self.replay.final.nodes.items()}
        return self._names.get(node_id, f"node#{node_id}")

    def tensor_name(self, tensor_id: Any) -> str:
        """Display name of a tensor id."""
        if tensor_id is None:
            return "-"
        if self._tensor_names is None:
            self._tensor_names = {t: info.name for t, info in self.replay.final.tensors.items()}
        return self._tensor_names.get(tensor_id, f"t{tensor_id}")

    # -- layout ------------------------------------------------------------

    def layout(self, number: int) -> PassLayout:
        """The graph layout of pass ``number`` (computed once, from the pass's last state)."""
        if number in self._layouts:
            return self._layouts[number]
        info = self.passes[number]
        st = self.state(info.end)
        bw = self.pass_in(st, number)
        members: set[int] = set(bw.nodes) if bw is not None else set()
        if bw is not None and bw.general is not None:
            # Show what GeneralGrad copied, so pruned copies appear too.
            members |= set(bw.general.copies.values())
        members &= set(st.nodes)
        starts = [n for n in (bw.start if bw else ()) if n in members]
        # Output edges, plus the ones GeneralGrad cut (so a cut-off node sits where it belongs).
        succ: dict[int, list[int]] = {n: [e.next for e in st.nodes[n].edges if e.next in members] for n in members}
        cut: list[tuple[int, int]] = []
        if bw is not None and bw.general is not None:
            for p in bw.general.pruned:
                a, b = p.get("node"), p.get("next")
                if a in succ and b in members and b not in succ[a]:
                    succ[a].append(b)
                    cut.append((a, b))
        # Longest-path depth (Kahn's order, iterative: deep graphs are fine).
        indeg = dict.fromkeys(members, 0)
        for n in members:
            for m in succ[n]:
                indeg[m] += 1
        depth = {n: 0 for n in members}
        ready = [n for n in starts if indeg[n] == 0] + sorted(
            (n for n in members if indeg[n] == 0 and n not in starts), key=lambda n: -st.nodes[n].topo_nr
        )
        while ready:
            n = ready.pop()
            for m in succ[n]:
                depth[m] = max(depth[m], depth[n] + 1)
                indeg[m] -= 1
                if indeg[m] == 0:
                    ready.append(m)
        order = tuple(sorted(members, key=lambda n: (depth[n], -st.nodes[n].topo_nr, n)))
        runs = tuple(run_starts(self.events, info.begin, info.end))
        rewrites = [r for r in st.rewrites if r.to_node in members]
        replaced = tuple((c, old) for c, old, _ in replaced_edges(st, members))
        lay = PassLayout(
            number=number,
            order=order,
            depth=depth,
            row={n: r for r, n in enumerate(order)},
            nodes=st.nodes,
            runs=runs,
            cut=tuple(cut),
            replaced=replaced,
            rewritten={r.to_node: self.tensor_name(r.tensor) for r in rewrites},
        )
        self._layouts[number] = lay
        return lay

    def canvas(self, number: int, modules: bool = False) -> Canvas:
        """The 2-D picture of pass ``number`` (``layout2d.Canvas``, laid out by Graphviz once and kept).

        Args:
            number: the pass.
            modules: fold the nodes each ``nn.Module`` made into one box.

        Raises:
            layout2d.LayoutUnavailable: Graphviz's ``dot`` is missing or failed.
        """
        key = (number, modules)
        if key not in self._canvases:
            self._canvases[key] = pass_canvas(self.layout(number), modules)
        return self._canvases[key]

    def has_modules(self, number: int) -> bool:
        """Whether the nodes of pass ``number`` carry the ``nn.Module`` that made them."""
        return bool(group_by_module(self.layout(number)))

    def box_count(self, number: int) -> int:
        """How many boxes the 2-D pane draws for pass ``number`` (long chains folded); no layout needed."""
        return len(pass_graph(self.layout(number))[0])

    def find_node(self, query: str, number: int) -> int | None:
        """A node of pass ``number`` by name: exact (any case), ``#id``/id, then the first substring match."""
        q = query.strip()
        if not q:
            return None
        lay = self.layout(number)
        key = q.lstrip("#")
        if key.isdigit() and int(key) in lay.row:
            return int(key)
        low = q.lower()
        for n in lay.order:
            if lay.nodes[n].name.lower() == low:
                return n
        for n in lay.order:
            if low in lay.nodes[n].name.lower():
                return n
        return None

    # -- navigation ----------------------------------------------------------

    def run_index_of(self, node: int, number: int) -> int | None:
        """The event index where ``node`` starts running in pass ``number``, if it does."""
        for i in self.layout(number).runs:
            if self.events[i].node == node:
                return i
        return None

    def step_end(self, run_index: int, number: int) -> int:
        """The last event of the step that ``run_index`` begins (before the next pop, or the pass end)."""
        end = self.passes[number].end
        i = run_index
        while i < end:
            kind = self.events[i + 1].kind
            if kind in ("queue.pop", "backward.end", "general_grad.result"):
                break
            i += 1
        return i

    def ask_points(self, number: int) -> list[tuple[int, int]]:
        """``(ask index, run index)`` per node run: a question is due before the step's first pop."""
        if number in self._asks:
            return self._asks[number]
        lay = self.layout(number)
        out: list[tuple[int, int]] = []
        prev = self.passes[number].begin
        for r in lay.runs:
            ask = next((i for i in range(prev + 1, r + 1) if self.events[i].kind == "queue.pop"), r)
            out.append((ask, r))
            prev = r
        self._asks[number] = out
        return out

    def due_question(self, index: int, target: int, number: int, answered: set[int]) -> QuizQuestion | None:
        """The first unanswered question whose ask point lies in ``(index, target]``."""
        for ask, run in self.ask_points(number):
            if index < ask <= target and run not in answered:
                return self.question(run, number, ask)
            if ask > target:
                break
        return None

    def why_runs(self, q: QuizQuestion, guess: int | None = None) -> str:
        """Why the engine ran ``q.node`` (and, when given, why not the node guessed), from the recorded events.

        The rule (docs/architecture.md, the backward path): the engine pops the front of the ready queue; a
        popped node whose in-degree is not 0 while others wait is skipped;
        AccumulationNodes are pushed to the front.
        """
        name = self.node_name
        skips = [
            (self.events[i].node, self.events[i].in_degree)
            for i in range(q.ask_index, q.run_index)
            if self.events[i].kind == "queue.skip"
        ]
        lay = self.layout(self.passes_of(q.run_index))
        info = lay.nodes.get(q.node)
        parts: list[str] = []
        for node, degree in skips:
            parts.append(f"{name(node)} was at the front but its in-degree was {degree} ≠ 0, so the engine skipped it")
        if q.candidates and q.candidates[0] == q.node or not q.candidates:
            how = "it was at the front of the ready queue, and the engine always pops the front"
        else:
            how = f"it was next in the ready queue after that ({', '.join(name(n) for n in q.candidates[:4])})"
        parts.append(how)
        if info is not None and info.is_accumulation:
            parts.append("AccumulateGrad nodes are pushed to the front as soon as their in-degree reaches 0")
        if guess is not None and guess != q.node:
            if guess in q.candidates:
                parts.append(f"{name(guess)} was at position {q.candidates.index(guess)} of the queue; only the front runs")
            else:
                parts.append(f"{name(guess)} was not in the ready queue: its in-degree was not 0 yet, or it is not in this pass")
        return "; ".join(parts) + "."

    def passes_of(self, index: int) -> int:
        """The number of the pass that event ``index`` belongs to (0 when before the first)."""
        for p in self.passes:
            if p.begin <= index <= p.end:
                return p.number
        return 0

    def question(self, run_index: int, number: int, ask_index: int | None = None) -> QuizQuestion:
        """The quiz question for the node run at ``run_index`` (answers read off replayed states)."""
        if ask_index is None:
            ask_index = dict((r, a) for a, r in self.ask_points(number)).get(run_index, run_index)
        node = self.events[run_index].node
        after = self.step_end(run_index, number)
        st_after = self.state(after)
        bw_after = self.pass_in(st_after, number)
        lay = self.layout(number)
        succ: list[int] = []
        info = lay.nodes.get(node)
        for e in info.edges if info else ():
            if e.next is not None and bw_after is not None and e.next in bw_after.in_degree and e.next not in succ:
                succ.append(e.next)
        degrees = tuple(bw_after.in_degree[m] for m in succ) if bw_after else ()
        bw_before = self.pass_in(self.state(ask_index - 1), number)
        candidates = tuple(bw_before.queue) if bw_before else ()
        return QuizQuestion(ask_index, run_index, node, after, tuple(succ), degrees, candidates)
