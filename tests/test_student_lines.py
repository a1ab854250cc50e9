"""Every line in ``tests/student_lines.py`` behaves under minigrad as under PyTorch: the same printed
text (``minigrad`` read as ``torch``), or the same exception class and message."""

from __future__ import annotations

import pytest

import minigrad as mg
from student_lines import STUDENT_LINES, run

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", STUDENT_LINES)
def test_student_line_prints_or_raises_as_pytorch(name: str) -> None:
    _, program = STUDENT_LINES[name]
    t_out, t_exc = run(program, torch)
    m_out, m_exc = run(program, mg)
    assert m_out == t_out
    if t_exc is None:
        assert m_exc is None, repr(m_exc)
    else:
        assert isinstance(m_exc, type(t_exc)), (repr(m_exc), repr(t_exc))
        assert str(m_exc).startswith(str(t_exc).rstrip(".")), (str(m_exc), str(t_exc))
