"""Long commands show progress with rich on a terminal, and nothing when their output is not one:
``lessons grade`` (per task), ``render --flipbook`` (per frame), ``web`` and ``memory`` (per event loaded)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys

import pytest

import minigrad as mg
import minigrad.progress as progress_module
from minigrad.cli import main
from minigrad.progress import progress


@pytest.fixture
def trace(tmp_path):
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.Tanh(), mg.nn.Linear(8, 2))
    with mg.trace() as tr:
        model(mg.randn(3, 4)).sum().backward()
    path = tmp_path / "run.jsonl"
    tr.save(str(path))
    return path


@pytest.fixture
def terminal(monkeypatch):
    """Progress drawn on a console that is a terminal (rich's force_terminal), into a buffer."""
    from rich.console import Console

    buf = io.StringIO()
    monkeypatch.setattr(progress_module, "make_console", lambda: Console(file=buf, force_terminal=True, width=120))
    return buf


def test_quiet_without_a_terminal_and_drawn_on_one():
    from rich.console import Console

    for is_terminal in (False, True):
        buf = io.StringIO()
        with progress(Console(file=buf, force_terminal=is_terminal, width=80)) as steps:
            task = steps.add("counting sheep", total=3)
            for _ in range(3):
                steps.advance(task)
        assert steps.shown is is_terminal
        assert ("counting sheep" in buf.getvalue()) is is_terminal and (buf.getvalue() == "") is not is_terminal


@pytest.mark.parametrize("command", [["memory"], ["web", "-o", "{tmp}/page.html"]])
def test_memory_and_web_show_the_events_loaded_on_a_terminal(trace, terminal, command, tmp_path, capsys):
    assert main([command[0], str(trace), *[c.format(tmp=tmp_path) for c in command[1:]]]) == 0
    shown = terminal.getvalue()
    assert "loading run.jsonl" in shown and "100%" in shown
    assert "loading" not in capsys.readouterr().out  # the report itself is unchanged


def test_render_flipbook_counts_the_frames_on_a_terminal(trace, terminal, tmp_path):
    if shutil.which("dot") is None:
        pytest.skip("Graphviz (dot) is not installed")
    assert main(["render", str(trace), "--flipbook", str(tmp_path / "book.html")]) == 0
    assert "drawing the flip-book's frames" in terminal.getvalue() and "100%" in terminal.getvalue()


def test_lessons_grade_counts_each_task_on_a_terminal(tmp_path, terminal):
    from minigrad import lessons_cli as lc

    (folder,) = lc.build(tmp_path, [10], reference=True)
    assert lc.main(["grade", str(folder), "--task", "10.1", "--task", "10.3"]) == 0
    shown = terminal.getvalue()
    assert "lesson 10, task 10.1" in shown and "lesson 10, task 10.3" in shown and "lesson 10, task 10.2" not in shown


def test_a_pseudo_terminal_shows_progress_and_a_pipe_does_not(trace):
    import pty

    cmd = [sys.executable, "-m", "minigrad.cli", "memory", str(trace)]
    piped = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and piped.stderr == "" and "\x1b" not in piped.stdout
    main_fd, child_fd = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=child_fd, env=env)
    os.close(child_fd)
    seen = b""
    while True:
        try:
            chunk = os.read(main_fd, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(main_fd)
    assert proc.wait(timeout=120) == 0
    assert b"loading run.jsonl" in seen
