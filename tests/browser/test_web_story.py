"""The web page keeps the whole story of the two programs a student tried (headless Chromium): the error
that ended the second pass in the pass chooser and the header, what the script called, the message where
the step would have been, the stale mark in the node detail, the student's names, no invented edge."""

from __future__ import annotations

from pathlib import Path

import pytest

import minigrad as mg
from minigrad.viz import stepper

from _story_program import PROGRAM  # noqa: E402


@pytest.fixture
def built(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("prog.py").write_text(PROGRAM, encoding="utf-8")
    with mg.trace() as tr:
        with pytest.raises(RuntimeError):
            exec(compile(PROGRAM, "prog.py", "exec"), {"__name__": "__main__"})
    events = list(tr.events)
    return events, stepper(events, title="prog.jsonl").save(tmp_path / "prog.html")


@pytest.fixture
def page(browser):
    p = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    yield p
    assert not errors, errors
    p.close()


def test_the_page_marks_the_pass_the_error_ended_and_shows_its_message(page, built, tmp_path):
    events, path = built
    error = events[-1]
    assert error.kind == "error"
    page.goto(Path(path).as_uri())
    options = page.locator("#pass option").all_inner_texts()
    assert options[0].startswith("pass 0: h.sum().backward()") and "ended by" not in options[0]
    assert options[1].startswith("pass 1: y.sum().backward()")
    assert options[1].endswith("[ended by RuntimeError at prog.py:9]")
    assert not any("loss.backward()" in o for o in options)
    page.select_option("#pass", "1")
    page.keyboard.press("End")
    page.wait_for_timeout(100)
    root = page.locator("#minigrad-stepper")
    assert int(root.get_attribute("data-event")) == len(events) - 1
    assert page.inner_text("#ending") == "ended by RuntimeError at prog.py:9"
    assert "y.sum().backward()" in page.inner_text("#counter")
    node = page.inner_text("#node")
    assert f"✘ RuntimeError: {error.message}" in node
    assert "y [2, 3] ✘ stale: saved at v0, now v1" in node  # the saved tensor, by the student's name
    assert "tensor 'y' saved by" in page.inner_text("#what")
    page.screenshot(path=str(tmp_path / "web-story.png"))
    page.keyboard.press("5")  # the Versions tab: the refusal happened, at its event
    assert f"saved y at v0, now v1 — refused at event {len(events) - 1}" in page.inner_text("#versions")


def test_before_the_refusal_the_stale_mark_shows_and_no_error_yet(page, built):
    events, path = built
    page.goto(Path(path).as_uri())
    page.select_option("#pass", "1")
    exp_node = events[-1].node
    begin = next(i for i, e in enumerate(events) if e.kind == "node.begin" and e.node == exp_node)
    page.goto(Path(path).as_uri() + f"#event={begin}")
    page.wait_for_timeout(100)
    node = page.inner_text("#node")
    assert "✘ stale: saved at v0, now v1" in node and "RuntimeError" not in node
    assert page.inner_text("#ending") == "ended by RuntimeError at prog.py:9"  # the pass's fate, in the header


def test_the_first_pass_has_no_invented_edge_and_the_student_s_names(page, built):
    events, path = built
    page.goto(Path(path).as_uri())
    assert page.locator("#graph g.edge.replaced").count() == 0
    leaf = next(e for e in events if e.kind == "node.create" and e.is_accumulation)
    assert "leaf x" in page.locator(f"#graph g#n{leaf.node}").text_content()
