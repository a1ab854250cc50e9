"""Lesson 8 tests: your engine runs every program exactly as the reference does, and you named the rule.

Run one task with ``pytest -m lesson8_task1`` (or ``lesson8_task2``).
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

import pytest

from programs import PROGRAMS, record

HERE = Path(__file__).resolve().parent.parent
LESSON = json.loads((HERE / "_lesson.json").read_text())
RULES = ("queue-end", "in-degree-decrement", "release", "general-grad-prune")


def seeded_bug() -> str:
    """The rule broken in this student's engine (the same hash ``minigrad lessons build --seed`` used)."""
    digest = hashlib.sha256(f"minigrad lesson {LESSON['lesson']} student {LESSON['seed']}".encode()).digest()
    return LESSON["bugs"][int.from_bytes(digest[:8], "big") % len(LESSON["bugs"])]


# -- Task 8.1: the fix ----------------------------------------------------------------------------


@pytest.mark.lesson8_task1
def test_every_program_runs_as_with_the_reference_engine(student, reference, same_events):
    """Each program is recorded with your engine and with the reference; the recordings must agree."""
    yours = student.engine.run_backward
    ref = reference("minigrad.autograd.engine", "run_backward")
    for name, program in PROGRAMS.items():
        said_yours: list[str] = []
        said_ref: list[str] = []
        got = record(lambda run: said_yours.extend(program(run)), yours)
        want = record(lambda run: said_ref.extend(program(run)), ref)
        same_events(got, want, what=f"program '{name}'")
        assert said_yours == said_ref, f"program '{name}': your engine's results differ from the reference's"


# -- Task 8.2: the rule ---------------------------------------------------------------------------


def read_answer() -> dict:
    path = HERE / LESSON["answer_file"]
    try:
        answer = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise NotImplementedError(f"Task 8.2: write {path.name} (see README.md, section 'Task 8.2')") from None
    except tomllib.TOMLDecodeError as exc:
        pytest.fail(f"{path.name} is not valid TOML: {exc}", pytrace=False)
    if not str(answer.get("rule", "")).strip():
        raise NotImplementedError(f"Task 8.2: name the broken rule in {path.name} (see README.md, section 'Task 8.2')")
    return answer


@pytest.mark.lesson8_task2
def test_answer_names_the_broken_rule():
    answer = read_answer()
    rule = str(answer["rule"]).strip()
    assert rule in RULES, f"rule must be one of {', '.join(RULES)}; got {rule!r}"
    assert rule == seeded_bug(), (
        f"the rule {rule!r} holds in the engine you were given; look again at the first divergence "
        f"(minigrad diff yours.jsonl reference.jsonl)"
    )
    words = str(answer.get("explanation", "")).split()
    assert len(words) >= 12, "explain in one or two sentences (at least 12 words) what the engine did and what the rule says"
