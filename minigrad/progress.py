"""Progress of the ``minigrad`` commands that take seconds: a rich progress display on a terminal, nothing elsewhere.

``minigrad lessons grade`` (per task, as its tests finish), ``minigrad render
--flipbook`` (per frame), ``minigrad web`` and ``minigrad memory`` (per event
loaded) show where they are when standard error is a terminal, and write
nothing more when it is not (a pipe, a file, CI logs), so their output stays
what scripts read. The display is transient: it is gone when the work ends.
Only the command line uses this module; ``import minigrad`` does not import it,
or rich.

Example:
    >>> with progress() as bar:               # not a terminal here: every call does nothing
    ...     task = bar.add("loading run.jsonl", total=3)
    ...     for _ in range(3):
    ...         bar.advance(task)
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

__all__ = ["progress", "Steps", "make_console"]


def make_console() -> Any:
    """The console progress is drawn on: standard error (tests swap this for one that is a terminal)."""
    from rich.console import Console

    return Console(stderr=True)


class Steps:
    """What a command reports: tasks with a description and a total (``None``: not known), advanced as work
    is done. Without a terminal every method does nothing."""

    def __init__(self, shown: Any = None) -> None:
        self._shown = shown  # a rich.progress.Progress, or None

    @property
    def shown(self) -> bool:
        """Whether progress is drawn (standard error is a terminal)."""
        return self._shown is not None

    def add(self, description: str, total: float | None = None) -> int:
        return self._shown.add_task(description, total=total) if self._shown is not None else 0

    def advance(self, task: int, amount: float = 1) -> None:
        if self._shown is not None:
            self._shown.advance(task, amount)

    def update(self, task: int, **fields: Any) -> None:
        """``description=``, ``total=``, ``completed=`` as rich's ``Progress.update`` takes them."""
        if self._shown is not None:
            self._shown.update(task, **fields)


@contextlib.contextmanager
def progress(console: Any = None) -> Iterator[Steps]:
    """A ``Steps`` drawn with rich while the block runs when ``console`` (default: ``make_console()``) is a
    terminal; a silent one otherwise."""
    console = console if console is not None else make_console()
    if not console.is_terminal:
        yield Steps()
        return
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as shown:
        yield Steps(shown)
