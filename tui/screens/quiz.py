"""Quiz mode: predict the next node the engine runs, and the in-degrees after its step.

The answers come from replayed states (``Session.question``); this screen
only asks and compares.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ..model import QuizQuestion, Session

__all__ = ["QuizScreen", "matches_node", "guessed_node", "parse_degrees"]


def matches_node(answer: str, node: int, session: Session, candidates: tuple[int, ...] = ()) -> bool:
    """Whether ``answer`` names ``node``: its name (any case), its id (``#3`` or ``3``), or a part of its name
    that picks it alone among ``candidates``."""
    a = answer.strip().lower()
    if not a:
        return False
    name = session.node_name(node).lower()
    if a == name or a.lstrip("#") == str(node):
        return True
    pool = candidates or (node,)
    hits = [n for n in pool if a in session.node_name(n).lower()]
    return hits == [node]


def guessed_node(answer: str, session: Session, candidates: tuple[int, ...] = (), number: int = 0) -> int | None:
    """The node an answer names (exact name, ``#id``, or a part of a name unique among ``candidates``), if any."""
    a = answer.strip().lower().lstrip("#")
    if not a:
        return None
    if a.isdigit():
        return int(a)
    for n in candidates:
        if session.node_name(n).lower() == a:
            return n
    hits = [n for n in candidates if a in session.node_name(n).lower()]
    if len(hits) == 1:
        return hits[0]
    return session.find_node(answer, number) if session.passes else None


def parse_degrees(answer: str) -> tuple[int, ...] | None:
    """``"0 1"`` or ``"0,1"`` -> ``(0, 1)``; ``None`` when it is not a list of integers."""
    parts = answer.replace(",", " ").split()
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        return None


class QuizScreen(ModalScreen["QuizScreen.Result"]):
    """Two questions before a node runs; dismisses with a ``QuizScreen.Result``."""

    @dataclass
    class Result:
        """How the student did on one question (``degrees_right`` is None when not asked)."""

        run_index: int
        node_right: bool
        degrees_right: bool | None
        skipped: bool = False

    DEFAULT_CSS = """
    QuizScreen { align: center bottom; }
    QuizScreen > Vertical { width: 100; height: auto; border: thick $warning; background: $surface; padding: 0 2; margin-bottom: 1; }
    QuizScreen Input { margin: 0 0; }
    QuizScreen #quiz-degrees { display: none; }
    """

    BINDINGS = [
        Binding("escape", "skip", "Skip question"),
        Binding("enter", "finish", "Continue", show=False),
    ]

    def __init__(self, question: QuizQuestion, session: Session) -> None:
        super().__init__()
        self.q = question
        self.session = session
        self.stage = "node"
        self.node_right = False
        self.degrees_right: bool | None = None
        self._node_feedback = Text()

    def compose(self) -> ComposeResult:
        s = self.session
        prompt = Text("Quiz: ", style="bold yellow")
        prompt.append("which node does the engine run next?\n")
        prompt.append("ready queue, front → back: ", style="dim")
        prompt.append(", ".join(s.node_name(n) for n in self.q.candidates[:12]) or "(empty)")
        with Vertical():
            yield Static(prompt, id="quiz-prompt")
            yield Input(placeholder="node name, part of it, or #id", id="quiz-node")
            yield Static("", id="quiz-feedback")
            yield Input(placeholder="in-degrees, e.g. 0 1", id="quiz-degrees")
            yield Static(Text("enter answers · escape skips", style="dim"), id="quiz-hint")

    def on_mount(self) -> None:
        self.query_one("#quiz-node", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        s = self.session
        fb = self.query_one("#quiz-feedback", Static)
        actual = s.node_name(self.q.node)
        if event.input.id == "quiz-node" and self.stage == "node":
            self.node_right = matches_node(event.value, self.q.node, s, self.q.candidates)
            text = Text("✔ right: " if self.node_right else "✘ no: ", style="bold green" if self.node_right else "bold red")
            text.append(f"the engine runs {actual}.")
            guess = None if self.node_right else guessed_node(event.value, s, self.q.candidates, s.passes_of(self.q.run_index))
            text.append(f"\nwhy: {s.why_runs(self.q, guess)}", style="cyan")
            event.input.disabled = True
            if self.q.successors:
                text.append(f"\nAfter {actual} runs, what are the in-degrees of: ")
                text.append(", ".join(s.node_name(n) for n in self.q.successors), style="bold")
                text.append(" ?")
                self.stage = "degrees"
                box = self.query_one("#quiz-degrees", Input)
                box.display = True
                box.focus()
            else:
                text.append(f"\n{actual} has no next nodes. Press enter to continue.")
                self.stage = "done"
                self.set_focus(None)
            self._node_feedback = text
            fb.update(text)
        elif event.input.id == "quiz-degrees" and self.stage == "degrees":
            got = parse_degrees(event.value)
            self.degrees_right = got == self.q.in_degree_after
            text = self._node_feedback.copy()
            text.append("\n")
            text.append("✔ in-degrees right: " if self.degrees_right else "✘ in-degrees: ",
                        style="bold green" if self.degrees_right else "bold red")
            text.append(", ".join(f"{s.node_name(n)} = {d}" for n, d in zip(self.q.successors, self.q.in_degree_after)))
            text.append(
                f"\nwhy: each edge from {actual} delivers one gradient and lowers its next node's in-degree by one; "
                "a node that reaches 0 enters the queue.",
                style="cyan",
            )
            text.append("\nPress enter to continue.", style="dim")
            event.input.disabled = True
            self.stage = "done"
            self.set_focus(None)
            fb.update(text)

    def action_finish(self) -> None:
        if self.stage == "done":
            self.dismiss(self.Result(self.q.run_index, self.node_right, self.degrees_right))

    def action_skip(self) -> None:
        if self.stage == "done":
            self.action_finish()
        else:
            self.dismiss(self.Result(self.q.run_index, False, None, skipped=True))
