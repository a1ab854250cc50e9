"""Fixtures for the renderer tests: hand-built traces of known graphs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The helper modules (hand_traces, viz_helpers) live next to the tests.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def simple_events():
    import hand_traces

    return hand_traces.simple_backward()


@pytest.fixture
def grad_events():
    import hand_traces

    return hand_traces.grad_with_pruning()
