"""``examples/char_gpt.py``: the small transformer trains, samples, and opens in the TUI."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "char_gpt.py"


def _load():
    spec = importlib.util.spec_from_file_location("char_gpt", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_char_gpt_learns_at_tiny_size() -> None:
    losses, sample = _load().train(steps=25, batch_size=8, block_size=16, n_embd=16, n_head=2, n_layer=1, lr=1e-2,
                                   verbose=False)
    assert len(losses) == 25
    first, last = sum(losses[:3]) / 3, sum(losses[-3:]) / 3
    assert last < first - 0.5, f"loss did not fall: {first:.3f} -> {last:.3f}"
    assert len(sample) == 121 and sample[0] == "S"


def test_char_gpt_is_reproducible_with_a_seed() -> None:
    mod = _load()
    kw = dict(steps=2, batch_size=4, block_size=8, n_embd=8, n_head=2, n_layer=1, verbose=False)
    assert mod.train(**kw) == mod.train(**kw)


def test_tui_opens_one_training_step() -> None:
    """``minigrad-tui examples/char_gpt.py --steps 1``: the script's arguments reach it and the
    recorded step has a backward pass through the transformer's nodes."""
    pytest.importorskip("textual")
    from minigrad.tui.app import main, open_source

    session, error = open_source(str(EXAMPLE), ["--steps", "1", "--n-layer", "1", "--block-size", "8", "--batch-size", "2"])
    assert error is None, error
    kinds = [e.kind for e in session.events]
    assert kinds.count("backward.begin") == 1
    names = {e.name.split("#")[0] for e in session.events if e.kind == "node.create"}
    assert {"SoftmaxBackward0", "MaskedFillBackward0", "EmbeddingBackward0", "BmmBackward0"} <= names
    with pytest.raises(SystemExit):  # options the TUI does not know go to a script only
        main(["run.jsonl", "--steps", "1"])
