"""LineList: a scrolling list that draws only its visible lines (Textual's line API).

NOTE [ Only visible lines are drawn ]
    A 5 000-node pass gives panes with thousands of rows. Rebuilding a Static
    of that size on every step costs far more than the 50 ms a step may take.
    A LineList knows only how many lines it has; ``render_line`` asks the
    subclass for the text of the few rows on screen. A step then costs one
    ``refresh()`` plus, when the cursor left the view, one scroll.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

__all__ = ["LineList"]


class LineList(ScrollView, can_focus=True, inherit_bindings=False):
    """A virtual list of lines with one highlighted row (the cursor).

    Subclasses implement ``line_text(i) -> Text`` and call ``set_count(n)``.
    """

    COMPONENT_CLASSES = {"linelist--cursor"}

    DEFAULT_CSS = """
    LineList {
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $text;
        border-title-style: bold;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
    }
    LineList:focus { border: round $accent; }
    LineList > .linelist--cursor { background: $accent 35%; text-style: bold; }
    """

    BINDINGS = [
        Binding("up", "scroll_up", "Scroll up", show=False),
        Binding("down", "scroll_down", "Scroll down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
    ]

    def __init__(self, *, line_width: int = 160, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.line_count = 0
        self.cursor: int | None = None
        self.line_width = line_width

    # -- content -------------------------------------------------------------

    def line_text(self, index: int) -> Text:  # pragma: no cover - abstract
        raise NotImplementedError

    def set_count(self, count: int) -> None:
        """Set how many lines there are (resets the scrollable area)."""
        self.line_count = count
        self.virtual_size = Size(self.line_width, count)
        self.refresh()

    def plain_lines(self) -> list[str]:
        """All lines as plain text (tests read panes with this)."""
        return [self.line_text(i).plain for i in range(self.line_count)]

    def visible_lines(self) -> list[str]:
        """The lines currently on screen, as plain text."""
        top = int(self.scroll_offset.y)
        return [self.line_text(i).plain for i in range(top, min(self.line_count, top + self.size.height))]

    def move_cursor(self, index: int | None, *, center: bool = True) -> None:
        """Highlight row ``index`` and scroll it into view (centred when it was off screen)."""
        self.cursor = index
        if index is not None and self.size.height:
            top = int(self.scroll_offset.y)
            if not top <= index < top + self.size.height:
                y = max(0, index - self.size.height // 2) if center else index
                self.scroll_to(y=y, animate=False, immediate=True)
        self.refresh()

    # -- drawing -------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        style = self.rich_style
        if index >= self.line_count:
            return Strip.blank(width, style)
        text = self.line_text(index)
        if index == self.cursor:
            text.stylize(self.get_component_rich_style("linelist--cursor"))
            text.pad_right(max(0, scroll_x + width - text.cell_len))
        strip = Strip(list(text.render(self.app.console, end="")))
        return strip.crop_extend(scroll_x, scroll_x + width, style).apply_style(style)
