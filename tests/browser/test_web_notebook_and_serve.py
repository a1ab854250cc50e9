"""The stepper inside a notebook output cell (nbclient), and ``minigrad-tui --serve`` over localhost.

The notebook test executes a real notebook with a real kernel, then opens the cell's HTML output
in Chromium: the stepper must be there and step. The serve test starts ``minigrad-tui --serve``
(textual-serve) on a free local port and checks that a browser gets the TUI's demo over the
websocket.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

CELL = """\
import minigrad as mg
with mg.trace() as tr:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([3.0, 4.0], requires_grad=True)
    ((x * w) + x).sum().backward()
mg.viz.stepper(tr)
"""


def test_a_notebook_output_cell_holds_the_stepper(page, tmp_path):
    nbformat = pytest.importorskip("nbformat", reason="the notebook test needs nbformat: pip install 'minigrad[dev]'")
    nbclient = pytest.importorskip("nbclient", reason="the notebook test needs nbclient: pip install 'minigrad[dev]'")
    pytest.importorskip("ipykernel", reason="the notebook test needs ipykernel: pip install 'minigrad[dev]'")
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(CELL))
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = nb.cells[0].outputs
    html = next(o["data"]["text/html"] for o in outputs if o.get("output_type") == "execute_result")
    assert "minigrad-stepper" in html and html.startswith("<iframe")
    # What a notebook front end shows: the output HTML in a page. The stepper runs in its frame.
    out = tmp_path / "cell.html"
    out.write_text('<!DOCTYPE html><html><body style="width:940px;margin:20px;font-family:sans-serif">'
                   f"<div>In [1]: mg.viz.stepper(tr)</div>{html}</body></html>", encoding="utf-8")
    page.goto(out.as_uri())
    frame = page.frame_locator("iframe.minigrad-stepper")
    frame.locator("#queue .body > *").first.wait_for()
    before = int(frame.locator("#minigrad-stepper").get_attribute("data-event"))
    frame.locator("#next-run").click()
    after = int(frame.locator("#minigrad-stepper").get_attribute("data-event"))
    assert after > before
    for pane in ("graph", "queue", "in-degree", "buffers", "log", "node"):
        assert frame.locator(f"#{pane}").count() == 1
    if os.environ.get("MINIGRAD_UPDATE_SCREENSHOTS") == "1":  # docs/web.md shows the cell
        page.set_viewport_size({"width": 1000, "height": 850})
        page.screenshot(path=str(Path(__file__).resolve().parents[2] / "docs" / "images" / "web-stepper-notebook.png"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_tui_serve_gives_the_demo_to_a_browser_on_localhost(browser):
    pytest.importorskip("textual_serve", reason="--serve needs textual-serve: pip install 'minigrad[web]'")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "minigrad.tui.app", "--serve", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    # textual-serve's own page asks for a web font and a favicon; with no network those fail, harmlessly.
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    page = context.new_page()
    try:
        said = proc.stderr.readline()
        assert f"serving on http://localhost:{port}" in said and "this machine only" in said, said
        frames: list[str] = []

        def on_socket(ws):
            ws.on("framereceived", lambda payload: frames.append(payload if isinstance(payload, str)
                                                                  else payload.decode("utf-8", "replace")))

        page.on("websocket", on_socket)
        deadline = time.monotonic() + 60
        while True:  # the server needs a moment to listen
            try:
                page.goto(f"http://localhost:{port}/", timeout=5000)
                break
            except Exception:  # noqa: BLE001 - connection refused until it listens
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.5)
        while not any("Ready queue" in f for f in frames):
            assert time.monotonic() < deadline, f"no TUI over the websocket; got {len(frames)} frames"
            page.wait_for_timeout(250)
        assert any("demo" in f for f in frames)
    finally:
        context.close()
        # The server and the app it started for the browser share the new session's process group.
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def test_serve_without_textual_serve_says_what_to_install(monkeypatch, capsys):
    import builtins

    from minigrad.tui import app

    real = builtins.__import__

    def no_serve(name, *args, **kwargs):
        if name.startswith("textual_serve"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_serve)
    assert app.main(["--serve"]) == 2
    assert "minigrad[web]" in capsys.readouterr().err


def test_serve_command_keeps_the_source_and_drops_the_serving_options():
    from minigrad.tui.app import serve_command

    cmd = serve_command(["--serve", "--host", "0.0.0.0", "--port=9000", "--diff", "a.jsonl", "b.jsonl"])
    assert cmd.endswith("-m minigrad.tui.app --diff a.jsonl b.jsonl")
    assert "--host" not in cmd and "9000" not in cmd
