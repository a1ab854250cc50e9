"""``isclose``, ``allclose`` and ``equal`` as PyTorch's: the same truth values (NaN, infinities, integers, a
zero tolerance, float16, broadcasting) and the same refusals, printed by one program under both frameworks."""

from __future__ import annotations

import contextlib
import io

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

PROGRAM = r"""
a = torch.tensor([1., 2, float('nan'), float('inf'), 1e-9, -0.0]); b = torch.tensor([1., 2.00001, float('nan'), float('inf'), 0.0, 0.0])
print(torch.isclose(a, b), torch.isclose(a, b, equal_nan=True), torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3])))
print(torch.isclose(torch.tensor([True]), torch.tensor([True])), torch.isclose(a, b, rtol=0, atol=0))
print(torch.isclose(torch.tensor([100, 101]), torch.tensor([100, 100]), rtol=0.01))
for kw in [dict(rtol=-1), dict(atol=-0.5)]:
    try: print(torch.isclose(torch.ones(2), torch.ones(2), **kw))
    except RuntimeError as e: print(e)
try: torch.isclose(torch.ones(2), torch.ones(2, dtype=torch.float64))
except RuntimeError as e: print(e)
try: torch.isclose(torch.ones(2), torch.ones(3))
except RuntimeError as e: print(e)
print(torch.isclose(torch.tensor([1., float('inf')]), torch.tensor([1., float('-inf')])))
print(torch.allclose(torch.ones(2), torch.ones(2)), torch.equal(torch.ones(2), torch.ones(2, dtype=torch.float64)))
print(torch.equal(torch.ones(2), torch.ones(3)), torch.equal(torch.tensor([float('nan')]), torch.tensor([float('nan')])))
x = torch.ones(2, requires_grad=True); print(torch.isclose(x, x), torch.allclose(x, x * 1.000001), x.isclose(x), x.allclose(x), x.equal(x))
print(torch.isclose(torch.tensor([1.0001], dtype=torch.float16), torch.tensor([1.0], dtype=torch.float16)))
print(torch.isclose(torch.ones(2, 1), torch.ones(3)))
"""


def _printed(lib: object) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(PROGRAM, {"torch": lib})
    return out.getvalue().replace("minigrad", "torch").splitlines()


def test_isclose_allclose_equal_as_pytorch() -> None:
    assert _printed(mg) == _printed(torch)
