"""The check of the error sweeps: minigrad refuses a call as PyTorch refuses it.

PyTorch's class, or a subclass of it (minigrad's classes that also derive from the class minigrad raised
before, so old ``except`` clauses still catch them), and a message that contains PyTorch's, word for word
(minigrad may name the op in front and add a detail in parentheses after it).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable


def refusal(call: Callable[[], Any]) -> BaseException | None:
    """What ``call()`` raised, or None; warnings silenced (the refusal is what is compared)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call()
        except Exception as e:  # noqa: BLE001  (the class and words are what is compared)
            return e
    return None


def words(e: BaseException) -> str:
    """The message; for an error PyTorch wraps (``unflatten got an unexpected error:``), the part before its C++
    trace, which names PyTorch's source files."""
    return str(e).split("\nException raised from")[0]


def assert_refused_alike(case: str, theirs: Callable[[], Any], ours: Callable[[], Any]) -> None:
    """``ours()`` accepts what ``theirs()`` (PyTorch) accepts and refuses what it refuses, in its class and words."""
    expected, got = refusal(theirs), refusal(ours)
    if expected is None:
        assert got is None, f"PyTorch accepts {case}; minigrad raised {got!r}"
        return
    assert got is not None, f"PyTorch refuses {case} with {expected!r}; minigrad accepts it"
    assert isinstance(got, type(expected)), f"{type(got).__name__} is not a {type(expected).__name__}: {got}"
    assert words(expected) in str(got), f"{case}: PyTorch says {words(expected)!r}; minigrad {got}"
