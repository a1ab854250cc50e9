"""Shared fixtures for the TUI tests: recorded traces and an app factory.

The tests never run the live engine: they open committed trace files from
``fixtures/`` (through ``minigrad.trace.load``, as a user would) or event lists
built by ``synth.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))  # ``import synth`` / ``import tui_support`` from the test modules

from minigrad.tracing import load  # noqa: E402
from minigrad.tui.model import Session  # noqa: E402
from tui_support import FIXTURES, SIZE, pane_texts  # noqa: E402,F401  (re-exported for the fixtures below)


@pytest.fixture
def synthetic_path() -> Path:
    return FIXTURES / "synthetic_small.jsonl"


@pytest.fixture
def synthetic_session(synthetic_path: Path) -> Session:
    return Session(load(synthetic_path).events, title="synthetic_small.jsonl")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run ``async def`` tests with ``asyncio.run`` (no async plugin is a dependency)."""
    import asyncio
    import inspect

    if inspect.iscoroutinefunction(pyfuncitem.obj):
        args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**args))
        return True
    return None


@pytest.fixture
def demo_path() -> Path:
    return FIXTURES / "demo.jsonl"


@pytest.fixture
def demo_session(demo_path: Path) -> Session:
    """The built-in demo as recorded by the real engine (``fixtures/make_fixtures.py``)."""
    return Session(load(demo_path).events, title="demo.jsonl")
