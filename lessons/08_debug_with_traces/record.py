"""Record lesson 8's programs with your engine or with the reference engine.

::

    python record.py --engine yours -o yours.jsonl
    python record.py --engine reference -o reference.jsonl
    minigrad diff yours.jsonl reference.jsonl          # where do they first part ways?
    minigrad diff yours.jsonl reference.jsonl --kind 'queue.*'
    minigrad-tui --diff yours.jsonl reference.jsonl    # step through both side by side

``--program NAME`` records one program only (``--list`` shows them). The
programs are the ones the grader runs (``tests/programs.py``).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "tests"))

from programs import PROGRAMS, record  # noqa: E402

from minigrad.autograd import engine as reference_engine  # noqa: E402
from minigrad.tracing import provenance  # noqa: E402


def your_engine():
    """Import engine.py from this folder (your copy of minigrad's engine)."""
    provenance.count_as_engine(str(HERE / "engine.py"))  # as the grader does: its lines are engine lines
    spec = importlib.util.spec_from_file_location("student_engine", HERE / "engine.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["student_engine"] = mod
    spec.loader.exec_module(mod)
    return mod


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--engine", choices=("yours", "reference"), default="yours", help="which engine runs backward")
    p.add_argument("-o", "--output", help="trace file to write (default: <engine>.jsonl)")
    p.add_argument("--program", action="append", choices=sorted(PROGRAMS), help="only this program (repeatable)")
    p.add_argument("--list", action="store_true", help="list the programs and exit")
    args = p.parse_args(argv)
    if args.list:
        for name, fn in PROGRAMS.items():
            print(f"{name}: {fn.__doc__}")
        return 0
    run = (your_engine() if args.engine == "yours" else reference_engine).run_backward
    names = args.program or list(PROGRAMS)
    import minigrad as mg

    with mg.trace() as tr:
        for name in names:
            for line in PROGRAMS[name](run):
                print(f"{name}: {line}")
    out = Path(args.output or f"{args.engine}.jsonl")
    tr.save(out)
    print(f"recorded {len(tr.events)} events of {', '.join(names)} with the {args.engine} engine -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
