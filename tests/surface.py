"""``needs``: mark a test that waits for PyTorch surface minigrad does not have yet.

The mark is a strict ``xfail`` whose reason names the missing names (the to-do list), but it applies
only while a probe finds one of them missing: several helpers add surface in parallel and their
branches land in any order, so a test starts to run - and must pass - the moment its names exist,
and a stale mark fails loudly (strict) instead of hiding a passing test.

Probes are paths under ``minigrad`` (``"long"``, ``"nn.init.normal_"``, ``"Tensor.data"``) or callables
returning True when the surface is there (for behaviour, such as an argument being accepted).

Example::

    @needs("torch.Generator", "randint drawing PyTorch's stream", by="i23a", probe=("Generator",))
    def test_lecture_batches(): ...
"""

from __future__ import annotations

from typing import Callable, Sequence, Union

import pytest

import minigrad as mg

Probe = Union[str, Callable[[], bool]]


def has(path: str) -> bool:
    """Whether ``minigrad.<path>`` exists (``Tensor.x`` is looked up on ``mg.Tensor``)."""
    obj: object = mg
    for part in path.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def works(fn: Callable[[], object]) -> Callable[[], bool]:
    """A probe that is True when ``fn()`` runs without raising."""
    def probe() -> bool:
        try:
            fn()
        except Exception:
            return False
        return True
    return probe


def needs(*names: str, by: str, probe: Sequence[Probe] = ()) -> pytest.MarkDecorator:
    """Strict xfail naming ``names`` while any probe fails; with no probe, always."""
    missing = not probe or not all(has(p) if isinstance(p, str) else p() for p in probe)
    return pytest.mark.xfail(missing, strict=True, reason=f"needs {', '.join(names)} ({by})")


# Behaviour probes shared by the parity programs and the examples.
KEEPDIMS = works(lambda: mg.ones(2, 2).sum(1, keepdims=True))
ADD_ALPHA = works(lambda: mg.zeros(1).add_(mg.ones(1), alpha=2.0))
RANGE_INDEX = works(lambda: mg.zeros(3)[range(2)])
DEVICE_OBJECT = works(lambda: mg.device("cpu"))
