"""``nn.Buffer``: a tensor that registers as a buffer of the module it is assigned to, as PyTorch's (its
class, ``isinstance``, ``persistent``, reassignment, what ``state_dict`` keeps); printed lines of one program
under both frameworks."""

from __future__ import annotations

import contextlib
import io

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

PROGRAM = """
b = nn.Buffer(torch.ones(2), persistent=False)
print(type(b), b, isinstance(b, torch.Tensor), isinstance(b, nn.Buffer), isinstance(torch.ones(1), nn.Buffer))
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = nn.Buffer(torch.zeros(3))
        self.tmp = nn.Buffer(torch.ones(1), persistent=False)
m = M(); print(list(m.state_dict()), dict(m.named_buffers()), type(m.mean))
print(repr(nn.Buffer(torch.ones(2))), nn.Buffer())
m.mean = nn.Buffer(torch.ones(3)); print(m.mean, list(m.state_dict()))
m.tmp = torch.zeros(1); print(list(m.state_dict()), m.tmp)
g = nn.Buffer(torch.ones(2, requires_grad=True)); print(g.requires_grad, g.is_leaf)
m.w = nn.Parameter(torch.ones(1))
try:
    m.w = nn.Buffer(torch.ones(1))
except TypeError as e:
    print(type(e).__name__)
print(list(m.to(torch.float64).state_dict().items()))
"""


def _printed(lib: object) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(PROGRAM, {"torch": lib, "nn": lib.nn})
    return out.getvalue().replace("minigrad", "torch").splitlines()


def test_buffer_as_pytorch_s() -> None:
    assert _printed(mg) == _printed(torch)
