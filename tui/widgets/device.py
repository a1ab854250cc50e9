"""The Device tab: per stretch of the recording (the forward before each backward pass, and the pass)
the GPU kernel launches, host<->device copies and syncs, and the same by the user's source line.

The counts are ``State.device`` of the replay (``minigrad/tracing/replay.py``); the words are
``minigrad.viz.device_pane``'s, the ones the web page's Device pane shows. A recording made on the
CPU shows one line saying so.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from minigrad.viz.device_pane import device_data

from .panels import _Pane

__all__ = ["DeviceView", "device_text"]

_SYNC = "bold #ffffff on #c62828"
_COPY = "bold #ffb74d"
_CODE = "italic #9ecbff"


def _counts(row: dict[str, Any], indent: str) -> Text:
    """``15 launches · 1 copy host → GPU (4 B) · 1 sync: item ×1``, copies and syncs marked."""
    line = Text(indent)
    line.append(row["launches_text"])
    line.append(" · ")
    line.append(row["copies_text"], style=_COPY if row["copies"] else "dim")
    line.append(" · ")
    line.append(row["syncs_text"], style=_SYNC if row["syncs"] else "dim")
    if row.get("stretches"):
        line.append(" · ")
        line.append(row["stretches_text"], style="bold")
    return line


def _source_lines(row: dict[str, Any], indent: str) -> list[Text]:
    head = Text(indent)
    head.append(row["source"], style="bold")
    head.append("  ")
    head.append(row["code"] or "", style=_CODE)
    return [head, _counts(row, indent + "    ")]


def device_text(data: dict[str, Any], index: int) -> Text:
    """The tab's text at event ``index``: every line of the recording that used the GPU (the ones that
    made the host wait in the most stretches first), then the stretches begun by ``index`` (the one
    holding it marked ▶), each with the lines that copied or synced in it."""
    text = Text()
    text.append(data["intro"] + "\n\n", style="italic")
    if data["empty"]:
        text.append(data["empty"] + "\n", style="bold")
        return text
    t = data["total"]
    text.append(f"By source line (the whole recording: {t['launches_text']}, {t['copies_text']}, "
                f"{t['syncs_text']})\n", style="bold underline")
    for row in data["lines"]:
        for part in _source_lines(row, "  "):
            text.append_text(part)
            text.append("\n")
    text.append(f"\nPer stretch (the forward before each backward pass, and the pass) up to event {index}\n",
                style="bold underline")
    for row in data["spans"]:
        if row["begin"] > index:
            break
        here = row["end"] is None or index <= row["end"]
        head = Text("▶ " if here else "  ", style="bold #4fc3f7")
        head.append(row["label"], style="bold" if here else "")
        end = row["end"] if row["end"] is not None else "…"
        head.append(f"  (events {row['begin']}–{end})", style="dim")
        text.append_text(head)
        text.append("\n")
        text.append_text(_counts(row, "    "))
        text.append("\n")
        for line in row["lines"]:
            for part in _source_lines(line, "      "):
                text.append_text(part)
                text.append("\n")
    return text


class DeviceView(_Pane):
    """The GPU's launches, copies and syncs per stretch and per source line, at the event on screen."""

    DEFAULT_CSS = """
    DeviceView { height: auto; }
    """
    GROWS = True  # its height follows its text: it sits in a scrolling container

    def __init__(self, session: Any, title: str = "Device", **kw: Any) -> None:
        super().__init__(session, title, **kw)
        self._data: tuple[int, dict[str, Any]] | None = None

    def data(self) -> dict[str, Any]:
        """``device_data`` of the recording, computed once per length (a followed recording grows)."""
        n = len(self.session.events)
        if self._data is None or self._data[0] != n:
            self._data = (n, device_data(self.session.replay))
        return self._data[1]

    def show(self, index: int) -> None:
        self.put((len(self.session.events), index), lambda: device_text(self.data(), index))
