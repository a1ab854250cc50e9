"""Fixtures for the tests that drive pages in a real browser: Debian's Chromium through playwright.

No browser is downloaded: ``playwright`` drives the ``chromium`` program on PATH (``make setup``
installs Debian's package with apt-get where it can), or the one named by ``MINIGRAD_CHROMIUM``.
Where either is missing the tests skip and say which one and how to get it.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium_path() -> str | None:
    """The Chromium to drive: ``$MINIGRAD_CHROMIUM``, else the first of ``CANDIDATES`` on PATH."""
    named = os.environ.get("MINIGRAD_CHROMIUM")
    if named:
        return named if Path(named).exists() else None
    return next((p for p in map(shutil.which, CANDIDATES) if p), None)


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for one test module, or a skip that says what is missing.

    Module-wide, not session-wide: playwright's sync API keeps an asyncio loop running in this
    thread while it is open, and the Textual tests that a worker runs after a browser module
    start loops of their own (``asyncio.run`` refuses to run inside a running loop).
    """
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests need the playwright package: pip install 'minigrad[dev]' (or pip install playwright)")
    exe = chromium_path()
    if exe is None:
        pytest.skip("browser tests need Chromium: apt-get install chromium (make setup does it where it can), "
                    "or set MINIGRAD_CHROMIUM to a Chromium binary")
    try:
        pw = sync_playwright().start()
    except Exception as exc:  # noqa: BLE001 - playwright's driver does not run here: a skip with its reason
        pytest.skip(f"playwright could not start its driver: {exc}")
    try:
        try:
            b = pw.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])
        except Exception as exc:  # noqa: BLE001 - a broken install is a skip with its reason, not an error
            pytest.skip(f"Chromium at {exe} did not start: {exc}")
        yield b
        b.close()
    finally:
        pw.stop()


@pytest.fixture
def page(browser):
    """A fresh page (1400x950) that records script errors; the test fails if any happened."""
    context = browser.new_context(viewport={"width": 1400, "height": 950})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    pg.errors = errors  # type: ignore[attr-defined]
    yield pg
    context.close()
    assert not errors, f"the page reported errors: {errors}"
