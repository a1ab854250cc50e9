"""Viewer responsiveness: loading and stepping through a large recorded backward pass.

Records a real N-node backward pass (a chain of ``(y * c).tanh()``, values on),
then measures what a student waits for: ``mg.trace.load`` of the saved file,
``mg.trace.replay``, opening it in the TUI's model (``minigrad.tui.model.Session``),
stepping one event forwards and backwards (``replay[i]``), and rendering a
graph of hundreds of nodes with ``minigrad.viz``, and the web stepper's page of one
``examples/char_gpt.py`` training step in headless Chromium (size, open, step). The
target is a 5 000-node pass to load "in seconds", a step to redraw within 50 ms and the
page to show its panes within 2 s; this is where those numbers are measured (the tests
only check behaviour).

Run: ``python bench/viewers.py [--quick]``.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from typing import Any

try:
    from . import _common as C
except ImportError:  # run as a script
    import _common as C  # type: ignore[no-redef]

import minigrad as mg


def record_chain(pairs: int, path: str) -> int:
    """Save a recorded backward pass of ``2 * pairs`` grad nodes (+1 AccumulationNode)."""
    x = mg.tensor([1.0, 2.0], requires_grad=True, name="x")
    with mg.trace(values=True) as tr:
        y = x
        for _ in range(pairs):
            y = (y * 1.0001).tanh()
        y.sum().backward()
    tr.save(path)
    return len(tr.events)


def _seconds(fn: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def run(size: str = "full") -> list[dict[str, Any]]:
    pairs = 2500 if size == "full" else 50
    nodes = 2 * pairs + 2
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "chain.jsonl")
        n_events = record_chain(pairs, path)
        name = f"{nodes}-node pass ({n_events:,} events)"
        t_load, rec = _seconds(lambda: mg.trace.load(path))
        rows.append(C.row(f"{name}: trace.load", "minigrad", t_load, "s"))
        t_replay, states = _seconds(lambda: mg.trace.replay(rec))
        rows.append(C.row(f"{name}: trace.replay", "minigrad", t_replay, "s", target="load in seconds"))
        try:
            from minigrad.tui.model import Session

            t_session, session = _seconds(lambda: Session(rec.events, title="chain"))
            rows.append(C.row(f"{name}: open in the TUI model (load+replay+layout)", "minigrad", t_session + t_load, "s",
                              target="seconds"))
            if shutil.which("dot") and session.passes:
                t_canvas, canvas = _seconds(lambda: (session.layout(0), session.canvas(0))[1])
                rows.append(C.row(f"{name}: TUI 2-D graph layout (dot, chains folded)", "minigrad", t_canvas, "s",
                                  target="seconds", note=f"{len(canvas.boxes)} boxes"))
        except ImportError as exc:  # textual missing
            rows.append(C.row(f"{name}: open in the TUI model", "minigrad", None, "", note=f"not measured: {exc}"))
        mid = len(states) // 2
        fwd, back = [], []
        states[mid]
        for k in range(30):
            dt, _ = _seconds(lambda: states[mid + k + 1])
            fwd.append(dt)
        for k in range(30):
            dt, _ = _seconds(lambda: states[mid + 30 - k - 1])
            back.append(dt)
        rows.append(C.row(f"{name}: step forward (replay[i+1])", "minigrad", statistics.median(fwd) * 1e3, "ms",
                          target="<= 50 ms per redraw", note="the TUI's panes repaint on top of this"))
        rows.append(C.row(f"{name}: step back (replay[i-1])", "minigrad", statistics.median(back) * 1e3, "ms",
                          target="<= 50 ms per redraw"))
        if shutil.which("dot"):
            import minigrad.viz as viz

            small = os.path.join(tmp, "small.jsonl")
            record_chain(225 if size == "full" else 20, small)
            t_render, _ = _seconds(lambda: viz.render(mg.trace.load(small)).svg())
            rows.append(C.row("~450-node graph: viz.render(...).svg(), chains folded", "minigrad", t_render, "s",
                              target="seconds"))
        if size == "full":
            rows += web_page_rows(tmp)
    return rows


# The web stepper's page of one training step of examples/char_gpt.py, timed in headless Chromium: from
# the key event to the end of the layout work it causes, inside the page (the median of many steps).
_STEP_JS = """async (keys) => {
  const out = [];
  for (const k of keys) {
    const t0 = performance.now();
    document.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
    document.body.getBoundingClientRect();
    const svg = document.querySelector('#graph svg');
    if (svg) svg.getBBox();
    out.push(performance.now() - t0);
    await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  }
  return out;
}"""


def web_page_rows(tmp: str) -> list[dict[str, Any]]:
    """Size, open time and step time of the char_gpt.py page (``minigrad web``), or why not measured."""
    name = "char_gpt.py one step as a web page"
    exe = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        exe = None
    if exe is None:
        return [C.row(name, "minigrad", None, "", note="not measured: needs playwright and Chromium")]
    from minigrad.cli import main as cli

    example = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "char_gpt.py")
    trace, page_path = os.path.join(tmp, "gpt.jsonl"), os.path.join(tmp, "gpt.html")
    cli(["record", example, "-o", trace, "--", "--steps", "1"])
    t_build, _ = _seconds(lambda: cli(["web", trace, "-o", page_path]))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        t0 = time.perf_counter()
        page.goto("file://" + page_path)
        page.wait_for_selector("#queue .body > *")
        page.wait_for_selector("#graph svg")
        t_open = time.perf_counter() - t0
        steps = page.evaluate(_STEP_JS, ["ArrowRight"] * 15 + ["n"] * 25 + ["b"] * 5 + ["End", "ArrowLeft", "Home"])
        browser.close()
    return [
        C.row(f"{name}: page size", "minigrad", os.path.getsize(page_path) / 1e6, "MB", target="<= 5 MB"),
        C.row(f"{name}: build (minigrad web)", "minigrad", t_build, "s"),
        C.row(f"{name}: panes shown in headless Chromium", "minigrad", t_open, "s", target="<= 2 s"),
        C.row(f"{name}: step (median in the page)", "minigrad", statistics.median(steps), "ms", target="<= 50 ms",
              note=f"slowest {max(steps):.1f} ms"),
    ]


if __name__ == "__main__":
    C.main(run)
