"""Lesson 9, task 9.3: predict what the in-place changes of a program do to versions and saved tensors.

Views and ``detach()`` share their tensor's storage *and* its version counter; ``.data`` shares the
storage only. Every in-place op bumps the counter of the storage it writes, and each grad node
remembers the version of every tensor it saved: backward refuses a saved tensor whose version moved.
Predict both for ``program()`` without running it; the tests run it under ``mg.trace`` and compare
your answers with the recording (``mg.trace.replay``, ``minigrad.tracing.replay.stale_saved``) and
with the tensors themselves (``t._version``).
"""

from __future__ import annotations

import minigrad as mg

__all__ = ["program", "predict_versions", "predict_stale"]


def program() -> dict[str, mg.Tensor]:
    """The program whose versions you predict (given); returns its tensors by name."""
    x = mg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    h = x * 2
    a = h.sin()          # sin's backward reads its input: cos(h)
    b = h.exp()          # exp's backward reads its output: b
    v = h[1:3]
    d = h.detach()
    k = h.data
    v.mul_(10)
    k.add_(1)
    b.add_(1)
    c = v * v
    d.add_(1)
    e = b.tanh()         # tanh's backward reads its output: 1 - e * e
    b.mul_(2)
    return dict(x=x, h=h, a=a, b=b, v=v, d=d, k=k, c=c, e=e)


def predict_versions() -> dict[str, int]:
    """The version (``t._version``) of each tensor ``program()`` returns, after it ran, by name."""
    # BEGIN LESSON 9 TASK 9.3: predict the versions and the stale saved tensors of a program
    return {
        "x": 0,  # never changed
        "h": 2,  # h, v and d share one counter: v.mul_ and d.add_ bump it
        "v": 2,
        "d": 2,
        "k": 1,  # .data: the same storage, a counter of its own (only k.add_ bumps it)
        "a": 0,
        "b": 2,  # b.add_ and b.mul_
        "c": 0,
        "e": 0,  # tanh's output is a new tensor: b.mul_ does not touch it
    }
    # END LESSON 9 TASK 9.3


def predict_stale() -> set[tuple[str, str]]:
    """The saved tensors that are stale after ``program()`` (backward through their node would refuse
    them), as ``(op, name)`` pairs: the op of the grad node that saved the tensor (``"sin"``, ``"mul"``)
    and the tensor's name in ``program()``."""
    # BEGIN LESSON 9 TASK 9.3: predict the versions and the stale saved tensors of a program
    return {
        ("sin", "h"),  # saved at version 0, h is at 2 (k.add_ changed h's values but not its version)
        ("exp", "b"),  # exp saved its output at version 0; b.add_ and b.mul_ took it to 2
        ("mul", "v"),  # c = v * v saved v (twice) at version 1; d.add_ took it to 2
    }
    # END LESSON 9 TASK 9.3
