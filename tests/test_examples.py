"""The examples run and do what their docstrings claim."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_digits_mlp_reaches_95_percent_test_accuracy():
    pytest.importorskip("sklearn")
    digits = _load("train_digits")
    acc = digits.train(epochs=20, verbose=False)
    assert acc >= 0.95, f"test accuracy {acc:.3f} < 0.95"
