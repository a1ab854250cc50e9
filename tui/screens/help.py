"""The help screen (``?``): every key, the status legend, and the glossary of the words the panes use."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from minigrad.tracing.describe import GLOSSARY

from ..format import STATUS_GLYPH, STATUS_STYLE

__all__ = ["HelpScreen", "KEYS"]

#: (keys, what they do): the list the help screen and docs/tui.md show.
KEYS: list[tuple[str, str]] = [
    ("→ / l", "next event"),
    ("← / h", "previous event"),
    ("n / ]", "next node run (the engine runs the next grad node)"),
    ("b / [", "previous node run"),
    ("Home", "start of the pass"),
    ("End / G", "end of the pass"),
    ("space", "play / pause"),
    ("+ / -", "play faster / slower"),
    ("g", "graph pane: 2-D drawing / list of nodes"),
    ("v", "small screens: cycle graph / queue, in-degrees, buffers, log / node detail"),
    ("u", "2-D graph: one box per nn.Module / every node"),
    ("j", "jump to a node by name (or #id)"),
    ("m", "toggle GeneralGrad marks (startup, ending, needed, pruned)"),
    ("c", "choose the backward pass"),
    ("t", "quiz mode on / off"),
    ("s", "export the current state as SVG (minigrad.viz)"),
    ("1 / 2 / 3 / 4 / 5 / 6", "Backward / Forward / GeneralGrad / Memory / Versions / Device tab"),
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
        # Two short rows, so no glyph is ever wrapped away from its word ("╳" / "pruned") on a narrow terminal.
        legend = Text("\nNode states:")
        for k, status in enumerate(("pending", "queued", "running", "done", "released", "pruned")):
            legend.append("\n  " if k % 3 == 0 else "   ")
            legend.append(f"{STATUS_GLYPH[status]} {status}", style=STATUS_STYLE[status])
        legend.append(
            "\n\nThe colours are the SVG legend's. Boxes show 'in a/b' (in-degree now / at the start) and"
            " 'Qk' (k-th in the ready queue, Q1 = front); round boxes are AccumulateGrad nodes, red edges"
            " ending in ✂ were cut by no_grad_vars. Every event is numbered from 0, as in 'minigrad log'."
            "\nQuiz mode asks, before each node runs, which node the engine runs next and"
            " what the in-degrees of its next nodes are after the step.\n\nescape closes this help.",
            style="dim",
        )
        with VerticalScroll():
            yield Static(Text("minigrad-tui keys", style="bold"))
            yield Static(keys, id="help-keys")
            yield Static(legend, id="help-legend")
            glossary = Table(box=None, show_header=False, padding=(0, 2))
            glossary.add_column(style="bold", no_wrap=True)
            glossary.add_column()
            for term, meaning in GLOSSARY.items():
                glossary.add_row(term, meaning)
            yield Static(Text("\nGlossary", style="bold"))
            yield Static(glossary, id="help-glossary")

    def action_close(self) -> None:
        self.dismiss(None)
