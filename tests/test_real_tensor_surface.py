"""What PyTorch gives for a real tensor's complex surface and for layouts minigrad lacks: ``conj`` and its
kin return the tensor itself, ``imag`` is refused in PyTorch's words, the layout flags are False; and
``torch.typename``/``is_storage``."""

from __future__ import annotations

from typing import Any

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

SELF_METHODS = ("conj", "resolve_conj", "resolve_neg", "conj_physical", "conj_physical_")
FLAGS = ("is_meta", "is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested", "is_xpu", "is_mps",
         "is_ipu", "is_xla", "is_vulkan", "is_maia", "is_mtia")


@pytest.mark.parametrize("T", [torch, mg], ids=["torch", "minigrad"])
def test_a_real_tensor_is_its_own_conjugate_and_real_part(T: Any) -> None:
    x = T.arange(3.0)
    for name in SELF_METHODS:
        assert getattr(x, name)() is x and getattr(T, name)(x) is x, name
    assert x.real is x and T.real(x) is x
    assert (x.is_conj(), x.is_neg(), T.is_conj(x), T.is_neg(x)) == (False,) * 4
    assert T.isreal(T.arange(3)).tolist() == [True] * 3 and T.isreal(x).dtype == T.bool
    for name in FLAGS:
        assert getattr(x, name) is False, name


def test_imag_of_a_real_tensor_is_refused_in_pytorchs_words() -> None:
    for T in (torch, mg):
        with pytest.raises(RuntimeError, match=r"^imag is not implemented for tensors with non-complex dtypes\.$"):
            T.ones(2).imag
        with pytest.raises(RuntimeError, match="imag is not implemented"):
            T.imag(T.ones(2))


def test_typename_and_is_storage_as_pytorch() -> None:
    for obj in (3, "a", 1.5, None):
        assert mg.typename(obj) == torch.typename(obj)
    assert mg.typename(mg.ones(2, dtype=mg.float64)) == torch.typename(torch.ones(2, dtype=torch.float64))
    assert mg.is_storage(mg.ones(2).untyped_storage()) and not mg.is_storage(mg.ones(2))
    with pytest.raises(TypeError, match=r"^conj\(\): argument 'input' \(position 1\) must be Tensor, not int$"):
        mg.conj(3)
