"""Choose which backward pass to step through (``c``)."""

from __future__ import annotations

from typing import Any, Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from minigrad.tracing.viewing import run_ending_text

from ..model import PassInfo

__all__ = ["PassScreen"]


class PassScreen(ModalScreen[int | None]):
    """A list of the trace's backward passes (and the error that ended the run after them); dismisses with
    the chosen number (``RUN_ENDING`` for that error)."""

    DEFAULT_CSS = """
    PassScreen { align: center middle; }
    PassScreen > Vertical { width: 80; height: auto; max-height: 80%; border: thick $accent; background: $surface; padding: 1 2; }
    PassScreen OptionList { height: auto; max-height: 20; }
    PassScreen #pass-crash { color: $error; margin-bottom: 1; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    #: What the screen dismisses with when the run's ending (the last entry) is chosen.
    RUN_ENDING = -1

    def __init__(self, passes: list[PassInfo], current: int, crash: str | None = None,
                 ending: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.passes = passes
        self.current = current
        self.crash = crash
        #: The error after the last pass (``Session.ending``): listed last, where the run stopped.
        self.ending = ending

    def compose(self) -> ComposeResult:
        with Vertical():
            if self.crash is not None:
                yield Label(f"✘ {self.crash}\nThe passes below were recorded before the error.", id="pass-crash")
            yield Label("Backward passes recorded in this trace (enter picks one):")
            options = [Option(p.label, id=str(p.number)) for p in self.passes]
            if self.ending is not None:
                text = run_ending_text(self.ending, message=False).replace("The run ended", "then the run ended", 1)
                options.append(Option(f"✘ {text}  event {self.ending['at']}", id=str(self.RUN_ENDING)))
            yield OptionList(*options, id="pass-list")

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = self.current

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id))

    def action_cancel(self) -> None:
        self.dismiss(None)
