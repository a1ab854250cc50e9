"""mkdocs hook: pages generated at build time, so they cannot drift.

- ``events.md``: the event reference, from the dataclasses in
  ``minigrad/tracing/events.py`` (kind, fields with types, docstring).
- ``pytorch.md``: the PyTorch API coverage table, from the op registry and the
  ``nn``/``optim`` modules (``pytorch_api.py``).
- ``lessons/<lesson>.md``: each lesson's text, from ``lessons/*/README.md``.
- the op table of ``add-an-op.md`` (``{{ op_table }}``), from the op
  definitions (``mg.OPS``) and the kernel registry; the table of what each
  op saves for backward in ``concepts/memory.md`` (``{{ saved_table }}``).
- ``tui.md`` / ``renderer.md``: a placeholder only while the real page (written
  with the TUI and the renderer) is not in ``docs/`` yet.
"""

from __future__ import annotations

import dataclasses
import typing

from mkdocs.structure.files import File, Files

from pytorch_api import pytorch_reference  # the generator next to this hook

PLACEHOLDERS = {
    "tui.md": ("TUI guide", "minigrad-tui", "The guide to the terminal app, its panes and keys"),
    "renderer.md": ("Renderer and CLI", "minigrad render", "The guide to the Graphviz renderer and the `minigrad` CLI"),
}


def _type_name(tp: object) -> str:
    text = tp if isinstance(tp, str) else getattr(tp, "__name__", repr(tp))
    return str(text).replace("typing.", "").replace("|", "&#124;")


def event_reference() -> str:
    """Markdown for every registered event kind, in definition order."""
    from minigrad.tracing.events import EVENT_TYPES, Event

    lines = [
        "# Event reference",
        "",
        "Generated from `minigrad/tracing/events.py` when the site is built. Every event has the header",
        "`seq` (int, increasing), `ts_ns` (int, nanoseconds since the recorder started) and `kind`; in a",
        "saved trace (JSON Lines) the header and the fields sit flat in one object per line, after a first",
        'line `{"schema": "minigrad.trace", "version": 1}`. Node and tensor fields are integer ids;',
        "`value`-like fields are previews (nested lists, or a shape/dtype summary).",
        "",
        "**Validation.** `mg.trace.load` is the one reader every viewer uses. It checks the header (a",
        "positive integer `version`, never `true`), every event's header and the type of every field",
        "below (integers are JSON integers within 64 bits; `int | None` may be `null`; previews are",
        "numbers, nested lists of numbers or `{\"shape\": [...], \"dtype\": ...}`), bounds the JSON",
        "nesting (100 levels) and the line length (16 MiB), reads at most 1 GiB from a pipe or device,",
        "and raises `TraceFormatError` naming the file, the line and the field, e.g.",
        "`run.jsonl line 7: field 'in_degree': key 'abc' is not an integer id (in a 'backward.in_degree' event)`.",
        "`NaN`, `Infinity` and `-Infinity` are valid values: every viewer shows them as `nan`, `inf`, `-inf`.",
        "Unknown kinds load as data (a newer minigrad may add kinds); the viewers skip them.",
        "",
        "**The web stepper's DOM contract.** The page `minigrad web` writes shows these events with the same",
        "numbering: its root `#minigrad-stepper` has `data-event` (the event shown), its panes are `#graph`,",
        "`#queue`, `#in-degree`, `#buffers`, `#log` and `#node`, and `#event=N` in the address opens event N",
        "([the contract in full](web.md#the-dom-contract)).",
        "",
        "| kind | class | fields |",
        "| --- | --- | --- |",
    ]
    for kind, cls in EVENT_TYPES.items():
        fields = ", ".join(f"`{n}`" for n in cls.field_names())
        lines.append(f"| [`{kind}`](#{kind.replace('.', '')}) | `{cls.__name__}` | {fields} |")
    for kind, cls in EVENT_TYPES.items():
        hints = typing.get_type_hints(cls) if not isinstance(cls, str) else {}
        doc = (cls.__doc__ or "").strip()
        lines += ["", f"## `{kind}`", "", f"`{cls.__module__}.{cls.__name__}`", "", doc, ""]
        lines += ["| field | type | default |", "| --- | --- | --- |"]
        fields = [f for f in dataclasses.fields(cls) if f.name not in ("seq", "ts_ns")]
        # The JSON names (``field_names``) may differ from the attribute names (``from`` / ``from_``).
        for json_name, f in zip(cls.field_names(), fields):
            default = "" if f.default is dataclasses.MISSING else f"`{f.default!r}`"
            lines.append(f"| `{json_name}` | `{_type_name(hints.get(f.name, f.type))}` | {default} |")
    _ = Event
    return "\n".join(lines) + "\n"


def op_table() -> str:
    """A Markdown table of every op: signature, methods and operators, AMP category, kernels."""
    import minigrad as mg
    from minigrad.kernels.registry import KERNELS

    lines = [
        "| op | inputs | attributes | methods, operators | AMP | GPU template | kernels (backend: dtypes) | backward |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name in sorted(mg.OPS):
        op = mg.OPS[name]
        by_backend: dict[str, list[str]] = {}
        for key in KERNELS.get(name, {}):
            by_backend.setdefault(key.backend, [])
            if key.dtype.name not in by_backend[key.backend]:
                by_backend[key.backend].append(key.dtype.name)
        kernels = "; ".join(f"{b}: {', '.join(d)}" for b, d in sorted(by_backend.items())) or "(none: runs outside the kernel layer)"
        names = ", ".join(f"`{m}`" for m in (*op.methods, *op.operators)) or ""
        attrs = ", ".join(f"`{a.name}`" for a in op.attrs)
        gpu = f"{op.gpu_elementwise[0]}: `{op.gpu_elementwise[1]}`".replace("|", "\\|") if op.gpu_elementwise else ""
        lines.append(
            f"| `{name}` | {', '.join(f'`{i.name}`' for i in op.inputs)} | {attrs} | {names} | {op.amp or ''} | "
            f"{gpu} | {kernels} | {'yes' if op.backward is not None else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def saved_table() -> str:
    """A Markdown table of what each op's grad node saves for backward (``save``/``save_for`` of its definition)."""
    import minigrad as mg

    lines = ["| op | saves for backward | kept only when |", "| --- | --- | --- |"]
    for name in sorted(mg.OPS):
        op = mg.OPS[name]
        if op.backward is None:
            continue
        inputs = [i.name for i in op.inputs]
        saved = ", ".join(f"`{s}`" for s in op.save) or "nothing"
        when = "; ".join(
            f"`{s}`: {' or '.join(f'`{inputs[k]}`' for k in needed)} needs a gradient"
            for s, needed in zip(op.save, op.save_needed_by) if needed is not None
        )
        lines.append(f"| `{name}` | {saved} | {when} |")
    return "\n".join(lines) + "\n"


def on_page_markdown(markdown: str, page, config, files) -> str:
    if "{{ op_table }}" in markdown:
        markdown = markdown.replace("{{ op_table }}", op_table())
    if "{{ saved_table }}" in markdown:
        markdown = markdown.replace("{{ saved_table }}", saved_table())
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
                       content=readme.read_text().replace("](../../docs/", "](../"))
        for readme in sorted(root.glob("*/README.md"))
    ]


def on_files(files: Files, config) -> Files:
    files.append(File.generated(config, "events.md", content=event_reference()))
    files.append(File.generated(config, "pytorch.md", content=pytorch_reference()))
    for page in lesson_pages(config):
        files.append(page)
    for name, args in PLACEHOLDERS.items():
        if files.get_file_from_path(name) is None:
            files.append(File.generated(config, name, content=placeholder(*args)))
    return files
