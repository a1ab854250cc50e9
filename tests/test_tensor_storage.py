"""A tensor's storage (``untyped_storage()``, ``storage()``) and the in-place and callback methods of this wave
(``detach_``, ``output_nr``, ``float_power_``, ``bitwise_not_`` and the shifts, ``apply_``, ``map_``, ``cov``,
``corrcoef``), each against PyTorch: the printed lines of one program under both (only the import changed)."""

from __future__ import annotations

import contextlib
import io
import warnings

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

PROGRAM = '''
x = torch.arange(6.).reshape(2, 3)
s = x.untyped_storage(); print(repr(s)); print(s.nbytes(), s.size(), len(s), s.element_size(), s.device, s[8])
print(x[1].untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), x.T.untyped_storage().nbytes())
t = x[1].storage(); print(t); print(t.dtype, t.size(), len(t), t.tolist(), t[2], t.data_ptr() == s.data_ptr())
print(torch.tensor([1, 2], dtype=torch.int8).untyped_storage(), list(torch.tensor([300], dtype=torch.int16).untyped_storage()))
print(x.clone().untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), x.view(-1)[::2].storage().size())
a = torch.ones(3, requires_grad=True); b = a * 2
for v in (b[1:], torch.ones(3).view(3)):
    try: v.detach_()
    except RuntimeError as e: print(str(e)[:60])
b.detach_(); print(b, b.requires_grad, b.grad_fn, b.is_leaf)
p = torch.ones(2, requires_grad=True); p.detach_(); print(p, p.requires_grad)
e = torch.ones(2, requires_grad=True); u, v = e.unbind()
print(u.output_nr, v.output_nr, e.output_nr, (e * 2).output_nr, [t.output_nr for t in torch.ones(4, requires_grad=True).split(2)])
print(torch.ones(2, dtype=torch.float64).float_power_(2))
try: torch.ones(2).float_power_(2)
except RuntimeError as ex: print(ex)
f = torch.ones(2, dtype=torch.float64, requires_grad=True).clone(); f.float_power_(torch.tensor(2.)); print(f)
print(torch.tensor([1, 2]).bitwise_not_(), torch.tensor([1, 2]).bitwise_left_shift_(1), torch.tensor([4, 8]).bitwise_right_shift_(1))
m = torch.tensor([[1., 2, 3], [2, 4, 7]]); print(m.cov(), m.corrcoef(), m.cov(correction=0))
z = torch.tensor([1., 2]); print(z.apply_(lambda v: v * 10).tolist(), z.map_(torch.tensor([1.]), lambda a, b: a + b))
try: torch.ones(2, requires_grad=True).apply_(lambda v: v)
except RuntimeError as ex: print(ex)
print(torch.tensor([1, 2], dtype=torch.int32).apply_(lambda v: v * 3))
'''


def _printed(lib: object) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(PROGRAM, {"torch": lib})
    return out.getvalue().replace("minigrad", "torch").splitlines()


def test_storage_and_the_methods_print_as_pytorch() -> None:
    assert _printed(mg) == _printed(torch)


def test_typed_storage_warns_once_as_pytorch() -> None:
    import minigrad.storage as ms

    ms._warned = False
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        mg.ones(2).storage()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mg.ones(2).storage()  # once

