"""The reference pages generated from the code and checked in: ``docs/events.md`` and ``docs/pytorch.md``,
and the tables generated into hand-written pages (``BLOCKS``: the op table of ``docs/add-an-op.md``, what each
op saves in ``docs/concepts/memory.md``), between ``<!-- BEGIN GENERATED name -->`` and ``<!-- END GENERATED name -->``.

``python docs/hooks/reference_pages.py`` rewrites them; ``--check`` changes
nothing and exits 1 when one is stale (``tests/test_docs_links.py`` runs it), so
the pages the README, the docs and the lessons link to exist in a checkout and
say what the code does, and no page shows a template placeholder to a reader of the checkout.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import typing
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent


def _type_name(tp: object) -> str:
    text = tp if isinstance(tp, str) else getattr(tp, "__name__", repr(tp))
    return str(text).replace("typing.", "").replace("|", "&#124;")


def event_reference() -> str:
    """Markdown for every registered event kind, in definition order."""
    from minigrad.tracing.events import EVENT_TYPES, Event

    lines = [
        "# Event reference",
        "",
        "Generated from `minigrad/tracing/events.py` by `docs/hooks/reference_pages.py` (a test keeps it current). Every event has the header",
        "`seq` (int, increasing), `ts_ns` (int, nanoseconds since the recorder started) and `kind`; in a",
        "saved trace (JSON Lines) the header and the fields sit flat in one object per line, after a first",
        'line `{"schema": "minigrad.trace", "version": 2}`. Node and tensor fields are integer ids;',
        "`value`-like fields are previews (nested lists, or a shape/dtype summary).",
        "",
        "**Node names.** A node's `name` is PyTorch's class name with the node's id: `MulBackward0#3`,",
        "`SumBackward1#5` (`sum(dim)`), `SelectBackward0#6` (`x[0]`), `AddmmBackward0#7` (`nn.Linear`),",
        "`AccumulateGrad#2` (a leaf), `CopySlices#9` (an in-place change through a view): what",
        "`print(y.grad_fn)` shows. Version 2 of the format brought these names; a version-1 file",
        "(Paddle's names, `MulGradNode#3`, `AccumulationNode#2`) is renamed as it loads, so `minigrad diff`,",
        "the viewers and the lessons read both (version 1 kept no inputs, so an op whose name depends",
        "on them, such as `getitem`, gets its common name).",
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


#: ``page in docs/ -> the generator of the table written into it`` (between its BEGIN/END GENERATED lines).
BLOCKS = {"add-an-op.md": op_table, "concepts/memory.md": saved_table}


def with_block(text: str, name: str, table: str) -> str:
    """``text`` with the lines between ``<!-- BEGIN GENERATED name -->`` and its END line replaced by ``table``."""
    pattern = re.compile(rf"(<!-- BEGIN GENERATED {name} [^\n]*-->\n).*?(<!-- END GENERATED {name} -->)", re.S)
    if not pattern.search(text):
        raise ValueError(f"no <!-- BEGIN GENERATED {name} ... --> / <!-- END GENERATED {name} --> lines in the page")
    return pattern.sub(lambda m: m.group(1) + "\n" + table + "\n" + m.group(2), text, count=1)


def pages() -> dict[str, str]:
    """``file name in docs/ -> text`` of every generated reference page and every page with a generated table."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from pytorch_api import pytorch_reference

    out = {"events.md": event_reference(), "pytorch.md": pytorch_reference()}
    for name, table in BLOCKS.items():
        out[name] = with_block((DOCS / name).read_text(encoding="utf-8"), table.__name__, table())
    return out


def main(argv: list[str] | None = None) -> int:
    check = "--check" in (sys.argv[1:] if argv is None else argv)
    stale = []
    for name, text in pages().items():
        path = DOCS / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
            if not check:
                path.write_text(text, encoding="utf-8")
    if check and stale:
        print(f"stale in docs/: {', '.join(stale)} (run python docs/hooks/reference_pages.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
