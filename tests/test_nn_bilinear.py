"""``nn.Bilinear``/``F.bilinear`` against PyTorch: the init drawn from one seed (weight then bias), the
output and every gradient in float64, PyTorch's graph (``_trilinear`` between the reshapes) and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape1, shape2, bias", [((2, 3), (2, 4), True), ((5, 2, 3), (5, 2, 4), False),
                                                  ((3,), (4,), True), ((0, 3), (0, 4), True)],
                         ids=["rows", "batched without bias", "vectors", "no rows"])
def test_module_matches_pytorch(shape1, shape2, bias) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(shape1), rng.standard_normal(shape2)
    results = []
    for lib in (mg, torch):
        lib.manual_seed(0)
        m = lib.nn.Bilinear(3, 4, 6, bias=bias).double()
        x1, x2 = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        out = m(x1, x2)
        (out * lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)))).sum().backward()
        results.append([out.detach().numpy(), x1.grad.numpy(), x2.grad.numpy()]
                       + [p.grad.numpy() for p in m.parameters()] + [p.detach().numpy() for p in m.parameters()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("args", [((2, 3), (3,), (6, 3, 4)), ((2, 3), (1, 4), (6, 3, 4)), ((2, 3), (2, 4), (6, 2, 4)),
                                  ((2, 3), (2, 4), (6, 3, 5))])
def test_errors_are_pytorchs(args) -> None:
    for lib in (mg, torch):
        tensors = [lib.ones(*s) for s in args]
        with pytest.raises(RuntimeError, match=r"^bilinear\(\): ") as info:
            lib.nn.functional.bilinear(*tensors)
        if lib is mg:
            ours = str(info.value)
    assert ours == str(info.value)
