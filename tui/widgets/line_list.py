"""LineList: a scrolling list that draws only its visible, changed lines (Textual's line API).

NOTE [ Only visible lines are drawn ]
    A 5 000-node pass gives panes with thousands of rows, and a step must
    redraw within 50 ms. Three things keep a step cheap:

    1. A LineList knows only how many lines it has; ``render_line`` asks the
       subclass for the text of the rows on screen, never the rest.
    2. After a step, ``repaint()`` compares each visible row's ``line_key``
       (what the row depends on: a node's status, its in-degree, ...) with
       the key it was last painted with, and refreshes only rows that differ.
       One event changes a handful of rows, not the whole pane.
    3. Painted strips are cached by (row, key, cursor, scroll, width), so
       scrolling back and forth does not rebuild text.

    The screen's own state lives in ``var``s, not ``reactive``s, for the same
    reason: a reactive on the Screen would repaint every pane on every step.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

__all__ = ["LineList"]

_CACHE_LIMIT = 2048


class LineList(ScrollView, can_focus=True, inherit_bindings=False):
    """A virtual list of lines with one highlighted row (the cursor).

    Subclasses implement ``line_text(i) -> Text`` and, when a row's look
    depends on changing state, ``line_key(i)``; they call ``set_count(n)``
    when the rows change and ``move_cursor(...)`` after each step.
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
        self._painted: dict[int, Hashable] = {}
        self._strips: dict[Hashable, Strip] = {}

    # -- content -------------------------------------------------------------

    #: The text of row ``index``: every subclass defines it (checked when the subclass is made).
    line_text: Callable[[int], Text]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not callable(getattr(cls, "line_text", None)):
            raise TypeError(f"{cls.__name__} must define line_text(self, index) -> Text (see LineList)")

    def line_key(self, index: int) -> Hashable:
        """What row ``index`` looks like depends on; rows whose key is unchanged are not repainted."""
        return None

    def set_count(self, count: int) -> None:
        """Set how many lines there are (the rows' content changed: forget painted lines)."""
        self.line_count = count
        self._painted.clear()
        self._strips.clear()
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
        """Highlight row ``index``, scroll it into view (centred when it was off screen), repaint changes."""
        self.cursor = index
        if index is not None and self.size.height:
            top = int(self.scroll_offset.y)
            if not top <= index < top + self.size.height:
                y = max(0, index - self.size.height // 2) if center else index
                self.scroll_to(y=y, animate=False, immediate=True)
        self.repaint()

    def on_resize(self) -> None:
        """Once the list has a size (or a new one), bring the cursor into view: a list opens at its cursor."""
        if self.cursor is not None:
            self.move_cursor(self.cursor)

    def repaint(self) -> None:
        """Refresh the visible rows whose key or cursor state changed since they were painted."""
        top = int(self.scroll_offset.y)
        bottom = min(self.line_count, top + self.size.height)
        for i in range(top, bottom):
            if self._painted.get(i, self) != (self.line_key(i), i == self.cursor):
                self.refresh_line(i)

    # -- drawing -------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        if index >= self.line_count:
            return Strip.blank(width, self.rich_style)
        key = (self.line_key(index), index == self.cursor)
        self._painted[index] = key
        cache_key = (index, key, scroll_x, width)
        strip = self._strips.get(cache_key)
        if strip is not None:
            return strip
        style = self.rich_style
        text = self.line_text(index)
        if index == self.cursor:
            text.stylize(self.get_component_rich_style("linelist--cursor"))
        text.truncate(scroll_x + width, pad=True)
        strip = Strip(text.render(self.app.console, end=""), scroll_x + width)
        if scroll_x:
            strip = strip.crop(scroll_x, scroll_x + width)
        strip = strip.apply_style(style)
        if len(self._strips) > _CACHE_LIMIT:
            self._strips.clear()
        self._strips[cache_key] = strip
        return strip
