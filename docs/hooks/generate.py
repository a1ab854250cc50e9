"""mkdocs hook: pages generated at build time, so they cannot drift.

- ``events.md`` and ``pytorch.md`` are generated from the code too, but checked
  in (``docs/events.md``, ``docs/pytorch.md``) so their links resolve in a
  checkout: ``python docs/hooks/reference_pages.py`` rewrites them and
  ``tests/test_docs_links.py`` fails when they are stale.
- ``lessons/<lesson>.md``: each lesson's text, from ``lessons/*/README.md``;
  links to ``../lessons/<lesson>/README.md`` (which resolve in a checkout) point
  at those pages on the site.
- the op table of ``add-an-op.md`` and the table of what each op saves for
  backward in ``concepts/memory.md`` are generated into those pages and checked
  in, as ``events.md`` is (``reference_pages.py``, ``BLOCKS``).
- ``tui.md`` / ``renderer.md``: a placeholder only while the real page (written
  with the TUI and the renderer) is not in ``docs/`` yet.
"""

from __future__ import annotations

import re

from mkdocs.structure.files import File, Files

from reference_pages import event_reference, op_table, saved_table  # noqa: F401 - the generators next to this hook
from pytorch_api import pytorch_reference  # noqa: F401

PLACEHOLDERS = {
    "tui.md": ("TUI guide", "minigrad-tui", "The guide to the terminal app, its panes and keys"),
    "renderer.md": ("Renderer and CLI", "minigrad render", "The guide to the Graphviz renderer and the `minigrad` CLI"),
}


def on_page_markdown(markdown: str, page, config, files) -> str:
    # A lesson's README in the checkout is its generated page on the site.
    markdown = re.sub(r"\]\(\.\./lessons/(\w+)/README\.md\)", r"](lessons/\1.md)", markdown)
    return markdown


def placeholder(title: str, command: str, what: str) -> str:
    return (
        f"# {title}\n\n{what} is written together with that component; this placeholder is shown until it "
        f"lands. Try `{command} --help`.\n"
    )


def lesson_pages(config) -> list[File]:
    """One page per lesson folder, its README.md as written for students."""
    from pathlib import Path

    root = Path(config["config_file_path"]).parent / "lessons"
    return [
        # Links into docs/ are written from the lesson folder (../../docs/x.md); the page sits in lessons/.
        File.generated(config, f"lessons/{readme.parent.name}.md",
                       content=re.sub(r"\]\(\.\./(\d\d_\w+)/README\.md", r"](\1.md",
                                      readme.read_text().replace("](../../docs/", "](../")))
        for readme in sorted(root.glob("*/README.md"))
    ]


def on_files(files: Files, config) -> Files:
    for page in lesson_pages(config):
        files.append(page)
    for name, args in PLACEHOLDERS.items():
        if files.get_file_from_path(name) is None:
            files.append(File.generated(config, name, content=placeholder(*args)))
    return files
