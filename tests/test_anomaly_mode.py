"""Anomaly detection (``mg.autograd.detect_anomaly``) against PyTorch: the switches, the NaN check's error
(which node, which output), the warning with the forward traceback (and the chain of nodes a double
backward made), and the recording's error event naming the node."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


@pytest.fixture(autouse=True)
def _anomaly_off():
    yield
    mg.set_anomaly_enabled(False)
    torch.set_anomaly_enabled(False)


def test_the_switches_answer_as_pytorch_s() -> None:
    for lib in (mg, torch):
        assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
        with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
            ctx = lib.autograd.detect_anomaly(check_nan=False)
        with ctx:
            assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (True, False)
        assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
        lib.autograd.set_detect_anomaly(True)
        assert lib.is_anomaly_enabled()
        with lib.autograd.set_detect_anomaly(False):
            assert not lib.is_anomaly_enabled()
        assert lib.is_anomaly_enabled()
        lib.set_anomaly_enabled(False)


#: Programs whose backward makes a NaN; each line defines ``x`` (a leaf) and ``out`` (a scalar).
NAN_PROGRAMS = {
    "div-self": "x = lib.tensor([0.0, 1.0], requires_grad=True); y = x.sqrt(); out = (y / y).sum()",
    "sqrt-at-zero-times-zero": "x = lib.tensor([0.0, 4.0], requires_grad=True); out = (x.sqrt() * 0).sum()",
    "pow-fractional": "x = lib.tensor([0.0, 2.0], requires_grad=True); out = (x ** 0.5).sum() * 0",
    "log-of-zero": "x = lib.tensor([0.0, 2.0], requires_grad=True); out = (x.log() * x).sum()",
    "mse-of-inf": "x = lib.tensor([float('inf'), 1.0], requires_grad=True); "
                  "out = lib.nn.functional.mse_loss(x, lib.zeros(2))",
    "through-linear": "lib.manual_seed(0); lin = lib.nn.Linear(2, 2); x = lib.tensor([[0.0, 1.0]], requires_grad=True); "
                      "out = (lin(x).relu() * x.sqrt() * 0).sum()",
    "no-nan": "x = lib.tensor([1.0, 2.0], requires_grad=True); out = (x * x).sum()",
}


def _run(lib: Any, program: str, check_nan: bool = True) -> tuple[str | None, list[str], Any]:
    names: dict[str, Any] = {"lib": lib}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly(check_nan=check_nan):
            exec(program, names)
            try:
                names["out"].backward()
                error = None
            except RuntimeError as exc:
                error = str(exc)
    return error, [str(w.message) for w in caught if "Anomaly Detection has been enabled" not in str(w.message)], names["x"]


@pytest.mark.parametrize("program", NAN_PROGRAMS.values(), ids=NAN_PROGRAMS.keys())
def test_a_nan_stops_the_pass_at_the_node_pytorch_names(program: str) -> None:
    m_error, m_warnings, mx = _run(mg, program)
    t_error, t_warnings, tx = _run(torch, program)
    assert m_error == t_error
    assert [w.split("\n")[0] for w in m_warnings] == [w.split("\n")[0] for w in t_warnings]
    if t_error is None:
        assert mx.grad.tolist() == tx.grad.tolist()
    else:
        assert mx.grad is None  # the pass stopped before any leaf's .grad was written, as PyTorch's


def test_without_check_nan_the_nan_reaches_the_gradient() -> None:
    m_error, m_warnings, mx = _run(mg, NAN_PROGRAMS["div-self"], check_nan=False)
    assert m_error is None and m_warnings == [] and str(mx.grad.tolist()) == "[nan, 0.0]"


def _script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(body))
    return path


def test_the_warning_quotes_the_forward_line_and_the_double_backward_chain(tmp_path) -> None:
    """A node made by a backward (create_graph) remembers the node whose backward made it: its warning is
    followed by "Previous calculation was induced by SqrtBackward0", as PyTorch's."""
    body = textwrap.dedent("""
    import torch
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt()
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (g * 0).sum().backward()
    """)
    seen = []
    for lib in (torch, mg):
        text = body if lib is torch else body.replace("import torch", "import minigrad as torch")
        path = tmp_path / f"{lib.__name__}_prog.py"
        path.write_text(text)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.set_anomaly_enabled(True)
            with pytest.raises(RuntimeError) as info:
                exec(compile(text, str(path), "exec"), {"__name__": "__main__"})
        found = [str(w.message).replace(str(path), "prog.py") for w in caught]
        # PyTorch's tracebacks show its own Python frames too (grad()'s): the program's lines are compared
        code = [[b.strip() for a, b in zip(m.splitlines(), m.splitlines()[1:]) if a.startswith('  File "prog.py"')]
                for m in found]
        seen.append((str(info.value), [m.strip().splitlines()[0] for m in found], code))
    assert seen[0] == seen[1]
    error, heads, code = seen[1]
    assert error == "Function 'DivBackward0' returned nan values in its 1th output."
    assert heads == ["Error detected in DivBackward0. Traceback of forward call that caused the error:",
                     "Previous calculation was induced by SqrtBackward0. Traceback of forward call that induced "
                     "the previous calculation:"]
    assert code == [["(g,) = torch.autograd.grad(y.sum(), x, create_graph=True)"], ["y = x.sqrt()"]]


def test_an_error_in_backward_warns_with_the_forward_line_and_keeps_its_message() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly"):
        ctx = mg.autograd.detect_anomaly()
    with ctx:
        y = x * 3
        y.register_hook(lambda g: (_ for _ in ()).throw(ValueError("boom")))
        z = y.exp().sum()
        with pytest.warns(UserWarning, match=r"(?s)Error detected in MulBackward0\. Traceback of forward call that "
                                             r"caused the error:\n.*test_anomaly_mode\.py.*\n    y = x \* 3\n"):
            with pytest.raises(ValueError, match=r"in MulBackward0#\d+ \(backward of 'mul'\): boom"):
                z.backward()


def test_a_second_backward_through_a_freed_graph_warns_with_the_node_s_forward_line() -> None:
    mg.autograd.set_detect_anomaly(True)  # (no warning: PyTorch's set_detect_anomaly gives none)
    a = mg.tensor([1.0], requires_grad=True)
    b = a * 2
    b.backward()
    with pytest.warns(UserWarning, match=r"(?s)Error detected in MulBackward0\. Traceback.*\n    b = a \* 2\n"):
        with pytest.raises(RuntimeError, match="second time"):
            b.backward()


def test_a_node_made_before_anomaly_mode_says_so() -> None:
    x = mg.tensor([0.0], requires_grad=True)
    y = x.sqrt()
    out = (y / y).sum()
    mg.set_anomaly_enabled(True)
    with pytest.warns(UserWarning, match="Error detected in DivBackward0. No forward pass information available"):
        with pytest.raises(RuntimeError, match="returned nan values"):
            out.backward()


def test_off_it_costs_no_warning_and_no_check() -> None:
    x = mg.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        (y / y).sum().backward()
    assert str(x.grad.tolist()) == "[nan, 0.0]"


def test_a_recording_ends_the_pass_at_the_node_that_made_the_nan() -> None:
    x = mg.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning):
        with mg.trace() as tr, mg.autograd.detect_anomaly():
            y = x.sqrt()
            out = (y / y).sum()
            with pytest.raises(RuntimeError, match="DivBackward0"):
                out.backward()
    (error,) = [e for e in tr.events if e.kind == "error"]
    names = {e.node: e.name for e in tr.events if e.kind == "node.create"}
    assert names[error.node].startswith("DivBackward0#") and error.error == "RuntimeError"
    assert error.message == "Function 'DivBackward0' returned nan values in its 1th output."
    assert not any(e.kind == "node.run" and e.node == error.node for e in tr.events)
