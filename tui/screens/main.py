"""The main screen: a backward pass stepped through in time, with all panes.

Position in time is the reactive ``index`` (an event index); the selected
backward pass is ``pass_no``. Every pane redraws from ``session.state(index)``
in ``watch_*`` methods, so stepping back is exact by construction (NOTE [ Time
travel is replay indexing ] in ``model.py``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static, TabbedContent, TabPane

from minigrad.tracing.describe import describe, explain
from minigrad.tracing.viewing import focus_node, run_ending_text

from ..follow import FollowError
from ..layout2d import MAX_NODES
from ..model import QuizScore, Session
from ..widgets import (
    BuffersView,
    DeviceView,
    EventLog,
    ForwardView,
    GeneralGradView,
    GraphCanvas,
    GraphView,
    InDegreeView,
    MemoryView,
    NodeDetail,
    QueueView,
    StatusLine,
    VersionsView,
)
from .help import HelpScreen
from .jump import JumpScreen
from .passes import PassScreen
from .quiz import QuizScreen

__all__ = ["MainScreen", "SPEEDS", "MIN_WIDTH", "MIN_HEIGHT"]

#: The smallest terminal the app is laid out for (docs/tui.md says the same).
MIN_WIDTH, MIN_HEIGHT = 80, 24

#: Play speeds in events per second (``+``/``-`` move through them).
SPEEDS: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)


class MainScreen(Screen[None]):
    """Steps through one backward pass; see ``HelpScreen`` for the keys."""

    DEFAULT_CSS = """
    MainScreen { layout: vertical; }
    """

    BINDINGS = [
        Binding("right,l", "step(1)", "Next event", priority=True),
        Binding("left,h", "step(-1)", "Prev event", priority=True),
        Binding("n,right_square_bracket", "run(1)", "Next run", priority=True),
        Binding("b,left_square_bracket", "run(-1)", "Prev run", priority=True),
        Binding("home", "start", "Start", priority=True),
        Binding("end,G", "end", "End", priority=True),
        Binding("space", "play", "Play/Pause", priority=True),
        Binding("plus,equals_sign", "speed(1)", "Faster", show=False),
        Binding("minus", "speed(-1)", "Slower", show=False),
        Binding("g", "toggle_graph", "2-D/list"),
        Binding("v", "swap_panes", "Panes", show=False),
        Binding("u", "modules", "Modules", show=False),
        Binding("j", "jump", "Jump"),
        Binding("m", "marks", "GG marks"),
        Binding("c", "choose_pass", "Pass"),
        Binding("t", "quiz", "Quiz"),
        Binding("s", "export", "SVG"),
        Binding("1", "tab('tab-backward')", "Backward", show=False),
        Binding("2", "tab('tab-forward')", "Forward", show=False),
        Binding("3", "tab('tab-general')", "GeneralGrad", show=False),
        Binding("4", "tab('tab-memory')", "Memory", show=False),
        Binding("5", "tab('tab-versions')", "Versions", show=False),
        Binding("6", "tab('tab-device')", "Device", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    # ``var``, not ``reactive``: a reactive on the Screen repaints the whole
    # screen on every change; the panes repaint themselves (NOTE [ Only
    # visible lines are drawn ]).
    index: var[int] = var(-1, init=False)
    pass_no: var[int] = var(0, init=False)
    marks: var[bool] = var(True, init=False)
    playing: var[bool] = var(False, init=False)
    speed: var[int] = var(2, init=False)
    quiz_on: var[bool] = var(False, init=False)
    narrow_view: var[int] = var(0, init=False)  # small screens: 0 graph, 1 queue/in-degree/buffers/log, 2 node detail

    def __init__(
        self, session: Session, *, initial_pass: int = 0, export_dir: str | Path = ".", follow: Any = None,
        crash: str | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        #: Why the traced script failed (its own frame and the error), shown until the app quits.
        self.crash = crash
        #: A ``follow.FileFollower`` or ``follow.ScriptRun`` while the trace is still being written.
        self.follow = follow
        self._follow_done = False
        self.initial_pass = initial_pass
        self.export_dir = Path(export_dir)
        self.selected: int | None = None
        self.score = QuizScore()
        self._timer: Timer | None = None
        self._asking = False
        self._ready = False
        self.graph_2d: bool | None = None  # None until the first pass picks a view
        self.by_module = False  # the 2-D pane folds each nn.Module's nodes into one box

    # -- layout --------------------------------------------------------------

    def compose(self) -> ComposeResult:
        s = self.session
        yield StatusLine(s, "minigrad-tui", id="status")
        yield Static(id="crash")
        yield Static(
            f"minigrad-tui needs a terminal of at least {MIN_WIDTH}x{MIN_HEIGHT}; this one is smaller. "
            "Enlarge the window (or zoom out) and the panes come back.",
            id="too-small",
        )
        with TabbedContent(initial="tab-backward", id="tabs"):
            with TabPane("Backward [1]", id="tab-backward"):
                with Horizontal(id="backward-panes"):
                    with Vertical(id="left"):
                        yield GraphCanvas(s, id="graph2d")
                        yield GraphView(s, id="graph")
                        yield NodeDetail(s, "Node detail", id="detail")
                    with Vertical(id="right"):
                        yield QueueView(s, "Ready queue (front → back)", id="queue")
                        yield InDegreeView(s, id="indegree")
                        yield BuffersView(s, "Gradient buffers", id="buffers")
                        yield EventLog(s, id="log")
            with TabPane("Forward [2]", id="tab-forward"):
                yield ForwardView(s, id="forward")
            with TabPane("GeneralGrad [3]", id="tab-general"):
                yield GeneralGradView(s, "GeneralGrad", id="general")
            with TabPane("Memory [4]", id="tab-memory"):
                yield MemoryView(s, "Memory: bytes alive, what the node saved", id="memory")
            with TabPane("Versions [5]", id="tab-versions"):
                with VerticalScroll(id="versions-scroll"):  # long histories scroll (↑/↓, the wheel)
                    yield VersionsView(s, "Versions: in-place changes, stale saved tensors, rewritten history",
                                       id="versions")
            with TabPane("Device [6]", id="tab-device"):
                with VerticalScroll(id="device-scroll"):
                    yield DeviceView(s, "Device: GPU launches, host↔GPU copies and syncs, with their lines",
                                     id="device")
        yield Footer()

    def on_mount(self) -> None:
        s = self.session
        self._ready = True
        if s.passes:
            self.pass_no = min(max(self.initial_pass, 0), len(s.passes) - 1)
            self._show_pass()
            self.index = s.passes[self.pass_no].begin
        elif self.follow is not None:
            self.index = len(s.events) - 1
            self.notify("Following the recording: passes appear here as they are recorded.", title="live", timeout=4)
        else:
            self.index = len(s.events) - 1
            self.query_one(TabbedContent).active = "tab-forward"
            self.notify("This trace has no backward pass; showing the forward op calls.", title="no backward pass")
        if self.follow is not None:
            self.set_interval(0.3, self.poll_follow)
        self._show_crash()
        self._show_graph_view()
        if s.notice:
            self.notify(s.notice, title=s.title, timeout=8)
        self.redraw()

    # -- following a trace that is still being written ------------------------

    def poll_follow(self) -> None:
        """Read what the recording added; new passes appear, the pass on screen grows if it was running."""
        if self.follow is None or self._follow_done:
            return
        finished = getattr(self.follow, "returncode", None)  # read first: what it wrote before exiting is read now
        try:
            new = self.follow.poll()
        except FollowError as exc:
            self._follow_done = True
            self.notify(f"stopped following: {exc}", title="live", severity="error", timeout=10)
            return
        if new:
            s = self.session
            before = len(s.passes)
            was_open = bool(s.passes) and not s.passes[self.pass_no].complete
            s.extend(new)
            if s.ending is not None and self.crash is None:
                self._show_crash()
            self.query_one(EventLog).set_count(len(s.events))
            self.query_one(ForwardView).reload()
            if before == 0 and s.passes:
                self.pass_no = 0
                self._show_pass()
                self.index = s.passes[0].begin
                self.query_one(TabbedContent).active = "tab-backward"
            elif was_open:
                self._show_pass()
            for p in s.passes[before:]:
                if p.number:
                    self.notify(f"pass {p.number} recorded ({p.mode}); c chooses it", title="live", timeout=3)
            if self.index < 0 and not s.passes:
                self.index = len(s.events) - 1
            self.redraw()
        if finished is not None:
            self._follow_done = True
            crash = self.follow.crash() if hasattr(self.follow, "crash") else None
            if crash is not None:
                self.crash = crash
                self._show_crash()
            tail = self.follow.output_tail()
            ok = finished == 0
            self.notify(
                f"the script finished (exit status {finished})" + (f"; it printed:\n{tail}" if tail else ""),
                title="live", severity="information" if ok else "error", timeout=10,
            )
            self.redraw()

    def _show_crash(self) -> None:
        """The error that ended the run in a banner under the status line; it stays until the app quits.

        The script's error when it was run here (``crash``), else the recording's own ending: an error
        after the last backward pass (a forward op, an optimizer step) that no pass shows.
        """
        banner = self.query_one("#crash", Static)
        ending = self.session.ending
        if self.crash is None and ending is None:
            banner.remove_class("shown")
            return
        text = Text("✘ ", style="bold")
        if self.crash is not None:
            if hasattr(self.app, "crash"):
                self.app.crash = self.crash
            text.append(self.crash)
            text.append("  (the events up to the error are shown)", style="italic")
        else:
            text.append(run_ending_text(ending))
            where = "c lists it" if self.session.passes else "End goes there"
            text.append(f"  (event {ending['at']}, the last: {where})", style="italic")
        banner.update(text)
        banner.add_class("shown")

    # -- reactives -----------------------------------------------------------

    def watch_index(self) -> None:
        self.redraw()

    def watch_pass_no(self) -> None:
        self._show_pass()
        self.redraw()

    def watch_marks(self) -> None:
        self.redraw()

    def watch_quiz_on(self) -> None:
        self.redraw()

    def watch_playing(self, playing: bool) -> None:
        if playing:
            self._restart_timer()
        elif self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.redraw()

    def watch_speed(self) -> None:
        if self.playing:
            self._restart_timer()
        self.redraw()

    # -- drawing -------------------------------------------------------------

    def _show_pass(self) -> None:
        if not self.session.passes:
            return
        lay = self.session.layout(self.pass_no)
        self.query_one(GraphView).show_pass(lay)
        if self.graph_2d is None:  # first pass shown: pick the view the graph's size suits
            self.graph_2d = self.session.box_count(self.pass_no) <= MAX_NODES
        if self.graph_2d and not self.query_one(GraphCanvas).show_pass(lay, self.by_module):
            self.graph_2d = False
            self.notify(f"{self.query_one(GraphCanvas).error}; showing the list view.", title="graph", timeout=6)
        self._show_graph_view()
        self.query_one(InDegreeView).show_pass(lay)

    def redraw(self) -> None:
        """Draw every pane from the replayed state at ``index`` (panes skip unchanged parts)."""
        if not self._ready:
            return
        s = self.session
        st = s.state(self.index)
        bw = s.pass_in(st, self.pass_no) if s.passes else None
        focus = focus_node(st, bw, self.selected)
        graph = self.query_one(GraphView)
        graph.selected = self.selected
        graph.show(st, bw, focus, self.marks)
        if self.graph_2d:
            canvas = self.query_one(GraphCanvas)
            canvas.selected = self.selected
            canvas.show(st, bw, focus, self.marks)
        self.query_one(QueueView).show(bw)
        self.query_one(InDegreeView).show(bw)
        self.query_one(BuffersView).show(st, bw, focus)
        self.query_one(NodeDetail).show(st, bw, focus)
        self.query_one(EventLog).show(self.index)
        self.query_one(ForwardView).show(self.index)
        self.query_one(GeneralGradView).show(bw, self.marks)
        self.query_one(MemoryView).show(self.index, focus)
        if self.query_one(TabbedContent).active == "tab-versions":  # its text is built for the tab shown only
            self.query_one(VersionsView).show(self.index)
        if self.query_one(TabbedContent).active == "tab-device":
            self.query_one(DeviceView).show(self.index)
        self.query_one(StatusLine).show(self.status_text(st))

    def status_text(self, st) -> Text:
        s = self.session
        t = Text(no_wrap=True, overflow="ellipsis")  # four lines, each cut to the width: nothing falls off
        t.append(s.title, style="bold")
        if s.passes:
            p = s.passes[self.pass_no]
            t.append(f"  ·  pass {self.pass_no} of 0–{len(s.passes) - 1} ")
            t.append(p.call, style="cyan")
            if p.ending:
                t.append(f"  {p.ending}", style="bold #ffffff on #c62828")
            elif self.index > p.end:
                t.append("  (after it)", style="dim")
            if len(s.passes) > 1:
                t.append(" (c: choose)", style="dim")
        t.append(f"  ·  event {self.index} of 0–{len(s.events) - 1}" if s.events else "  ·  no events yet")
        ev = st.event
        t.append("\n")
        if ev is not None:
            t.append(ev.kind, style="bold magenta")
            t.append(" " + describe(ev, s))
            why = explain(ev, st)
            if why:
                t.append("\nwhy: ", style="bold cyan")
                t.append(why, style="cyan")
        else:
            t.append("before the first event", style="dim")
        t.append("\n")
        if self.follow is not None:
            live = "● following" if not self._follow_done else ("script failed" if self.crash else "recording finished")
            t.append(f"{live} ({len(s.events)} events)  ·  ", style="bold red" if not self._follow_done else "dim")
        t.append("▶ playing" if self.playing else "❚❚ paused", style="bold green" if self.playing else "dim")
        t.append(f" {SPEEDS[self.speed]:g} ev/s", style="dim")
        t.append(f"  ·  GeneralGrad marks {'on' if self.marks else 'off'}", style="dim")
        if self.quiz_on:
            t.append(f"  ·  QUIZ {self.score}", style="bold yellow")
        t.append("  ·  ? help", style="dim")
        return t

    # -- moving in time ------------------------------------------------------

    def goto(self, target: int) -> None:
        """Move to event ``target``; in quiz mode, stop before each unanswered node run and ask."""
        n = len(self.session.events)
        target = max(-1, min(n - 1, target))
        self.selected = None
        if self.quiz_on and self.session.passes and target > self.index and not self._asking:
            q = self.session.due_question(self.index, target, self.pass_no, self.score.answered)
            if q is not None:
                self.playing = False
                self.index = q.ask_index - 1
                self._asking = True

                def done(result: QuizScreen.Result | None) -> None:
                    self._asking = False
                    if result is not None and not result.skipped:
                        self.score.nodes_asked += 1
                        self.score.nodes_right += int(result.node_right)
                        if result.degrees_right is not None:
                            self.score.degrees_asked += 1
                            self.score.degrees_right += int(result.degrees_right)
                    self.score.answered.add(q.run_index)
                    self.goto(min(target, q.after_index))

                self.app.push_screen(QuizScreen(q, self.session), done)
                return
        self.index = target

    def _pass_bounds(self) -> tuple[int, int]:
        s = self.session
        if not s.passes:
            return -1, len(s.events) - 1
        p = s.passes[self.pass_no]
        return p.begin, p.end

    def action_step(self, delta: int) -> None:
        self.goto(self.index + delta)

    def action_run(self, delta: int) -> None:
        if not self.session.passes:
            return
        runs = self.session.layout(self.pass_no).runs
        begin, end = self._pass_bounds()
        if delta > 0:
            target = next((r for r in runs if r > self.index), end)
        else:
            target = next((r for r in reversed(runs) if r < self.index), begin)
        self.goto(target)

    def action_start(self) -> None:
        self.goto(self._pass_bounds()[0])

    def action_end(self) -> None:
        self.goto(self._pass_bounds()[1])

    def action_play(self) -> None:
        if not self.playing and self.index >= self._pass_bounds()[1]:
            self.goto(self._pass_bounds()[0])
        self.playing = not self.playing

    def action_speed(self, delta: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + delta))

    def _restart_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_interval(1.0 / SPEEDS[self.speed], self._tick)

    def _tick(self) -> None:
        if self.index >= self._pass_bounds()[1] or self._asking:
            self.playing = False
            return
        self.goto(self.index + 1)

    # -- other actions -------------------------------------------------------

    def action_marks(self) -> None:
        self.marks = not self.marks
        self.notify(f"GeneralGrad marks {'on' if self.marks else 'off'}", timeout=2)

    def action_quiz(self) -> None:
        self.quiz_on = not self.quiz_on
        if self.quiz_on:
            self.notify("Quiz on: before each node runs you predict it and the in-degrees after its step.", timeout=4)
        else:
            self.notify(f"Quiz off. Score: {self.score}", timeout=4)

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def on_tabbed_content_tab_activated(self, _event: TabbedContent.TabActivated) -> None:
        """A tab opened (key or mouse): a pane drawn only while shown catches up with the event on screen."""
        self.redraw()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_choose_pass(self) -> None:
        if not self.session.passes:
            self.notify("This trace has no backward pass.", severity="warning")
            return

        def chosen(number: int | None) -> None:
            if number == PassScreen.RUN_ENDING:  # the error after the last pass: shown with that pass's graph
                self.select_pass(len(self.session.passes) - 1)
                self.goto(self.session.ending["at"])
            elif number is not None:
                self.select_pass(number)

        self.app.push_screen(PassScreen(self.session.passes, self.pass_no, crash=self.crash,
                                        ending=self.session.ending), chosen)

    def select_pass(self, number: int) -> None:
        """Switch to pass ``number`` and go to its beginning."""
        self.pass_no = number
        self.selected = None
        self.index = self.session.passes[number].begin

    def _show_graph_view(self) -> None:
        two_d = self.graph_2d is not False  # before the first pass (a live trace): the 2-D pane, empty
        self.query_one(GraphCanvas).set_class(not two_d, "off")
        self.query_one(GraphView).set_class(two_d, "off")

    def action_toggle_graph(self) -> None:
        """``g``: switch the graph pane between the 2-D drawing and the list of nodes."""
        if not self.session.passes:
            return
        want = not self.graph_2d
        if want and not self.query_one(GraphCanvas).show_pass(self.session.layout(self.pass_no), self.by_module):
            self.notify(f"{self.query_one(GraphCanvas).error}", title="graph", severity="warning", timeout=6)
            return
        self.graph_2d = want
        self._show_graph_view()
        self.redraw()

    def action_modules(self) -> None:
        """``u``: fold the nodes each ``nn.Module`` made into one box, or show them all again."""
        if not self.session.passes:
            return
        if not self.by_module and not self.session.has_modules(self.pass_no):
            self.notify("No node of this pass names an nn.Module (record a model's forward to see them).", timeout=4)
            return
        self.by_module = not self.by_module
        self.graph_2d = True
        self._show_pass()
        self.redraw()
        self.notify("one box per nn.Module (u: expand)" if self.by_module else "every node (u: group by module)", timeout=2)

    def action_swap_panes(self) -> None:
        """``v`` (small screens): cycle the graph, the engine panes (queue, in-degrees, buffers, log), the node detail."""
        self.narrow_view = (self.narrow_view + 1) % 3
        self._apply_size()
        if self.has_class("narrow"):
            names = ("graph", "queue, in-degrees, buffers and log", "node detail")
            self.notify(f"showing the {names[self.narrow_view]} (v: next)", timeout=2)

    def on_resize(self) -> None:
        self._apply_size()

    def _apply_size(self) -> None:
        """Below 120x34 the backward tab shows one column at a time (``v`` swaps); below 80x24 a notice."""
        w, h = self.size.width, self.size.height
        narrow = w < 120 or h < 34
        self.set_class(narrow, "narrow")
        for k, name in enumerate(("view-graph", "view-engine", "view-detail")):
            self.set_class(narrow and self.narrow_view == k, name)
        self.set_class(w < MIN_WIDTH or h < MIN_HEIGHT, "too-small")

    def action_jump(self) -> None:
        if not self.session.passes:
            self.notify("This trace has no backward pass.", severity="warning")
            return
        self.app.push_screen(JumpScreen(), self.jump_to)

    def jump_to(self, query: str | None) -> None:
        """Select the node named ``query``; go to the event where it runs (if it runs in this pass)."""
        if not query:
            return
        node = self.session.find_node(query, self.pass_no)
        if node is None:
            self.notify(f"No node matching {query!r} in this pass.", severity="warning")
            return
        run = self.session.run_index_of(node, self.pass_no)
        if run is not None:
            self.goto(run)
        self.selected = node
        self.query_one(TabbedContent).active = "tab-backward"
        self.redraw()
        where = f"runs at event {run}" if run is not None else "does not run in this pass"
        self.notify(f"{self.session.node_name(node)} {where}", timeout=3)

    def action_export(self) -> None:
        """Export the current state as SVG through ``minigrad.viz`` (imported only now), in a thread."""
        try:
            from minigrad.viz import render  # noqa: PLC0415 - lazy: the renderer is optional here
        except Exception as exc:  # ImportError, or a renderer that fails to import
            self.notify(
                f"SVG export needs the renderer minigrad.viz (render), which is not available: {exc}",
                title="export", severity="warning", timeout=8,
            )
            return
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", self.session.title).strip("-") or "trace"
        path = self.export_dir / f"minigrad-{slug}-event{self.index}.svg"
        step = self.index
        st = self.session.state(step)
        # Draw the pass on screen (when it has begun by this step; else the renderer's default).
        which = self.pass_no if self.session.passes and self.pass_no < len(st.passes) else None
        source = self.session.replay  # already folded: the renderer need not replay again

        def export() -> None:
            try:
                render(source, kind="backward", step=step, backward_pass=which).save(str(path))
            except Exception as exc:  # noqa: BLE001 - reported on screen
                self.app.call_from_thread(
                    self.notify, f"SVG export failed: {type(exc).__name__}: {exc}", title="export", severity="error", timeout=8
                )
            else:
                self.app.call_from_thread(self.notify, f"wrote {path}", title="export", timeout=6)

        self.notify(f"exporting event {step} ...", title="export", timeout=2)
        self.run_worker(export, thread=True, exclusive=True, group="export")
