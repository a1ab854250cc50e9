"""bfloat16 norms and clamps as PyTorch's: ``vector_norm``, ``matrix_norm``, ``dist``, ``clamp``/``clamp_min`` with a
number were refused or failed their own output check (bfloat16's NumPy kind is "V", not "f")."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

X = np.array([[1.5, -2.25, 3.0], [0.125, 4.5, -0.75]])

PROGRAMS: dict[str, Callable[[Any, Any], Any]] = {
    "vector_norm": lambda T, x: T.linalg.vector_norm(x),
    "norm-p1-dim": lambda T, x: x.norm(p=1, dim=1),
    "matrix_norm": lambda T, x: T.linalg.matrix_norm(x),
    "dist": lambda T, x: T.dist(x, x * 2),
    "normalize": lambda T, x: T.nn.functional.normalize(x, dim=1),
    "clamp-min-float": lambda T, x: x.clamp(min=0.0),
    "clamp-both": lambda T, x: x.clamp(-1.0, 2.0),
    "clamp_min": lambda T, x: x.clamp_min(0.5),
    "clamp_max": lambda T, x: x.clamp_max(0.5),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_bfloat16_norm_or_clamp_as_pytorch(name: str) -> None:
    def run(T: Any) -> tuple[Any, Any]:
        x = T.tensor(X, dtype=T.bfloat16, requires_grad=True)
        y = PROGRAMS[name](T, x)
        y.float().sum().backward()
        return y, x.grad

    (my, mg_grad), (ty, t_grad) = run(mg), run(torch)
    assert my.dtype == mg.bfloat16 and str(my.detach()).replace("minigrad", "torch") == str(ty.detach())
    np.testing.assert_array_equal(mg_grad.float().numpy(), t_grad.float().numpy())
