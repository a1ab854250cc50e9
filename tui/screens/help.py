"""The help screen (``?``): every key and the status legend."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..format import STATUS_GLYPH, STATUS_STYLE

__all__ = ["HelpScreen", "KEYS"]

#: (keys, what they do): the list the help screen and docs/tui.md show.
KEYS: list[tuple[str, str]] = [
    ("→ / l", "next event"),
    ("← / h", "previous event"),
    ("n / ]", "next node run (the engine runs the next grad node)"),
    ("b / [", "previous node run"),
    ("Home / g", "start of the pass"),
    ("End / G", "end of the pass"),
    ("space", "play / pause"),
    ("+ / -", "play faster / slower"),
    ("j", "jump to a node by name (or #id)"),
    ("m", "toggle GeneralGrad marks (startup, ending, needed, pruned)"),
    ("c", "choose the backward pass"),
    ("t", "quiz mode on / off"),
    ("s", "export the current state as SVG (minigrad.viz)"),
    ("1 / 2 / 3", "Backward / Forward / GeneralGrad tab"),
    ("?", "this help"),
    ("q", "quit"),
]


class HelpScreen(ModalScreen[None]):
    """Keys and legend; any of escape, ``?`` or ``q`` closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 84; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 1 2;
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        keys = Table(box=None, show_header=False, padding=(0, 2))
        keys.add_column(style="bold cyan", no_wrap=True)
        keys.add_column()
        for k, what in KEYS:
            keys.add_row(k, what)
        legend = Text("\nNode states: ")
        for status in ("pending", "queued", "running", "done", "released"):
            legend.append(f"{STATUS_GLYPH[status]} {status}", style=STATUS_STYLE[status])
            legend.append("   ")
        legend.append(
            "\n\nThe graph lists grad nodes by depth from the start node; 'in a/b' is the"
            " in-degree now / at the start. Rows show output edges with (slot, rank)."
            "\nQuiz mode asks, before each node runs, which node the engine runs next and"
            " what the in-degrees of its next nodes are after the step.\n\nescape closes this help.",
            style="dim",
        )
        with VerticalScroll():
            yield Static(Text("minigrad-tui keys", style="bold"))
            yield Static(keys, id="help-keys")
            yield Static(legend)

    def action_close(self) -> None:
        self.dismiss(None)
