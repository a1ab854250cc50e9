"""What the app shows instead of a traceback: a readable message (docs/architecture.md, bad input)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

__all__ = ["ErrorScreen"]


class ErrorScreen(Screen[None]):
    """A full screen message. With ``can_continue``, enter opens what was recorded anyway."""

    DEFAULT_CSS = """
    ErrorScreen { align: center middle; }
    ErrorScreen > Vertical { width: 90%; max-width: 110; height: auto; border: thick $error; padding: 1 2; }
    ErrorScreen #error-title { text-style: bold; color: $error; }
    """

    BINDINGS = [
        Binding("q", "app.quit", "Quit"),
        Binding("escape", "app.quit", "Quit", show=False),
        Binding("enter", "continue", "Open what was recorded", show=True),
    ]

    def __init__(self, message: str, *, can_continue: bool = False) -> None:
        super().__init__()
        self.message = message
        self.can_continue = can_continue

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("minigrad-tui could not open this", id="error-title")
            yield Static(Text(self.message), id="error-message")
            hint = "Press q to quit."
            if self.can_continue:
                hint = "Press enter to look at the events recorded before the error, q to quit."
            yield Static(Text(hint, style="dim"), id="error-hint")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "continue":
            return self.can_continue
        return True

    def action_continue(self) -> None:
        self.dismiss(None)
