"""The TUI screens shown in README.md and docs/tui.md, drawn from the code: ``python scripts/doc_screens.py``.

Each screen is the built-in demo (``minigrad-tui`` with no argument, recorded
by the current engine) driven by Textual's Pilot with the keys a person would
press, at the terminal size given, and captured as text. In the Markdown a
screen sits between ``<!-- screen NAME -->`` and ``<!-- /screen -->``; this
script rewrites those blocks. ``--check`` rewrites nothing and exits 1 when a
block is stale (``tests/tui/test_doc_screens.py`` runs it), so the docs never
show a screen the code does not draw.

Run it in a fresh process (node ids count from 1 there, as for a person
starting the TUI). Kernel times (``(6.2 µs)``) change from run to run and are
compared without their digits.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: name -> (terminal size, keys pressed after opening, rows kept: (first line's start, how many) or None for all)
SCREENS: dict[str, tuple[tuple[int, int], list[str], tuple[str, int] | None]] = {
    "main": ((160, 48), ["n"] * 6, None),
    "graph-begins": ((160, 48), [], ("╭─ Backward graph", 25)),
    "small": ((80, 24), ["n"] * 6, None),
    "grad-pass-end": ((160, 48), ["c", "down", "enter", "end"], ("╭─ Backward graph", 33)),
}

#: Markdown files that show screens.
FILES = ("README.md", "docs/tui.md")

_BLOCK = re.compile(r"(<!-- screen (?P<name>[\w-]+) -->\n```text\n)(?P<body>.*?)(```\n<!-- /screen -->)", re.S)
_TIMES = re.compile(r"\(\d+(\.\d+)? µs\)|\d+(\.\d+)? ms")


async def _capture(events: list, size: tuple[int, int], keys: list[str], rows: tuple[str, int] | None) -> str:
    from minigrad.tui.app import MinigradApp
    from minigrad.tui.model import Session

    app = MinigradApp(Session(events, title="demo"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause()
        app.screen.refresh()
        await pilot.pause()
        lines = [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]
    if rows is not None:
        first = next(i for i, line in enumerate(lines) if line.startswith(rows[0]))
        lines = lines[first:first + rows[1]]
    return "\n".join(lines) + "\n"


def screens() -> dict[str, str]:
    """Every screen's text, drawn now (one recording of the demo, as ``minigrad-tui`` makes on start)."""
    from minigrad.tui.demo import record_demo

    events = list(record_demo().events)
    return {name: asyncio.run(_capture(events, *spec)) for name, spec in SCREENS.items()}


def _same(a: str, b: str) -> bool:
    return _TIMES.sub("TIME", a) == _TIMES.sub("TIME", b)


def update(check: bool) -> list[str]:
    """Rewrite (or, with ``check``, compare) every screen block; returns ``file: screen`` of the stale ones."""
    drawn = screens()
    stale = []
    for rel in FILES:
        path = ROOT / rel
        text = path.read_text(encoding="utf-8")

        def fill(m: re.Match[str]) -> str:
            name = m["name"]
            if name not in drawn:
                raise SystemExit(f"{rel}: unknown screen {name!r} (known: {', '.join(drawn)})")
            if not _same(m["body"], drawn[name]):
                stale.append(f"{rel}: {name}")
            return m.group(1) + drawn[name] + m.group(4)

        new = _BLOCK.sub(fill, text)
        if not check and new != text:
            path.write_text(new, encoding="utf-8")
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a screen in the docs is stale")
    args = parser.parse_args(argv)
    stale = update(args.check)
    if args.check and stale:
        print("screens in the docs differ from what the TUI draws (run python scripts/doc_screens.py):\n  "
              + "\n  ".join(stale), file=sys.stderr)
        return 1
    if not args.check:
        print("updated" if stale else "already current", ", ".join(stale))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
