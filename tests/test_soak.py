"""A short soak (``bench/soak.py`` runs the 2,000-step one): memory stays flat, threads train as alone.

Memory is checked by counting live grad nodes and tensors (``gc``) rather than RSS,
which is too noisy for a few hundred steps on a shared machine: after warm-up,
a training step must leave nothing behind, with or without a recorder opened and
closed around it.
"""

from __future__ import annotations

import gc
import importlib.util
import sys
from pathlib import Path

import pytest

import minigrad as mg
from minigrad.autograd.grad_node import GradNode

SOAK = Path(__file__).resolve().parent.parent / "bench" / "soak.py"
if str(SOAK.parent) not in sys.path:
    sys.path.insert(0, str(SOAK.parent))  # bench/soak.py imports its neighbour _common, as a script run from bench/ would
_spec = importlib.util.spec_from_file_location("soak", SOAK)
soak = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(soak)  # type: ignore[union-attr]


def _live() -> tuple[int, int]:
    gc.collect()
    objs = gc.get_objects()
    return sum(isinstance(o, GradNode) for o in objs), sum(isinstance(o, mg.Tensor) for o in objs)


@pytest.mark.parametrize("recorder", [False, True], ids=["plain", "recorder-closed-each-step"])
@pytest.mark.parametrize("make", [soak.mlp_step_fn, soak.transformer_step_fn], ids=["mlp", "transformer"])
def test_a_training_step_leaves_nothing_behind(make, recorder: bool) -> None:
    _, step = make()

    def run(n: int) -> None:
        for _ in range(n):
            if recorder:
                with mg.trace(values=False):
                    step()
            else:
                step()

    run(3)  # warm-up: optimizer state, AccumulationNodes, caches
    before = _live()
    run(8)
    after = _live()
    assert after == before, f"live (grad nodes, tensors) grew from {before} to {after} over 8 steps"


def test_rss_stays_flat_over_a_short_mlp_run() -> None:
    result = soak.soak(soak.mlp_step_fn, steps=300, warmup=100, recorder=True)
    assert result["growth_pct"] <= 5.0, result


def test_two_threads_get_the_gradients_they_get_alone() -> None:
    assert soak.threads_agree(steps=30)["same_gradients"]
