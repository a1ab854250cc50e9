"""The named tuples ``max(dim)``, ``sort``, ``linalg.slogdet``... return print as PyTorch's ``torch.return_types``
(one field a line), index and unpack as tuples, and pickle by their module's name."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

X = np.array([[1.0, 5.0, 5.0, 2.0], [7.0, 2.0, 2.0, 0.5], [3.0, 3.0, 1.0, 4.0]])
SPD = X[:, :3].T @ X[:, :3] + np.eye(3)

CALLS = {
    "max": lambda lib, x, a: x.max(1),
    "min": lambda lib, x, a: lib.min(x, 0, keepdim=True),
    "sort": lambda lib, x, a: x.sort(1, descending=True),
    # (without ties: among equal values PyTorch's CPU topk and kthvalue pick the index their std::partial_sort
    # and std::nth_element leave, which minigrad does not reproduce)
    "topk": lambda lib, x, a: (x + lib.arange(12.0).reshape(3, 4) / 100).topk(2),
    "kthvalue": lambda lib, x, a: (x + lib.arange(12.0).reshape(3, 4) / 100).kthvalue(2, 1),
    "median": lambda lib, x, a: x.median(0),
    "mode": lambda lib, x, a: x.mode(1),
    "cummax": lambda lib, x, a: lib.cummax(x, 1),
    "cummin": lambda lib, x, a: lib.cummin(x, 0),
    "aminmax": lambda lib, x, a: lib.aminmax(x, dim=1),
    "linalg_slogdet": lambda lib, x, a: lib.linalg.slogdet(a),
    "slogdet": lambda lib, x, a: lib.slogdet(a),
    "linalg_cholesky_ex": lambda lib, x, a: lib.linalg.cholesky_ex(a),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_named_result_prints_as_pytorch_s(name: str) -> None:
    want = CALLS[name](torch, torch.tensor(X), torch.tensor(SPD))
    got = CALLS[name](mg, mg.tensor(X), mg.tensor(SPD))
    assert repr(got).replace("minigrad", "torch") == repr(want)
    assert str(got).replace("minigrad", "torch") == str(want)
    assert type(got).__name__ == name and got._fields == tuple(type(want).__match_args__ if hasattr(
        type(want), "__match_args__") else got._fields)


def test_a_named_result_is_a_tuple_that_pickles() -> None:
    r = mg.tensor(X).max(1)
    values, indices = r
    assert values is r.values is r[0] and indices is r.indices and len(r) == 2
    assert isinstance(r, tuple) and type(r) is mg.return_types.max
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is mg.return_types.max and back.indices.tolist() == [1, 0, 3]
    import minigrad.return_types as rt
    assert rt is mg.return_types
