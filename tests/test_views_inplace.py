"""Views and in-place changes through them, against PyTorch (float64): values, first- and second-order
gradients, and PyTorch's refusals with their classes (``autograd/views.py``, ``docs/concepts/views.md``)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from _overlaps import OVERLAPS, overlap as _overlap

torch = pytest.importorskip("torch")


def _inputs(lib: Any, shapes: list[tuple[int, ...]], seed: int = 0) -> list[Any]:
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal(s), dtype=lib.float64, requires_grad=True) for s in shapes]


def _grads(lib: Any, out: Any, xs: list[Any], second: bool) -> list[np.ndarray]:
    """First-order gradients of sum(out * w), then (second) the gradient of sum(g^2) of them."""
    w = lib.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)), dtype=lib.float64)
    gs = lib.autograd.grad((out * w).sum(), xs, create_graph=second, allow_unused=True)
    res = [np.zeros(tuple(x.shape)) if g is None else g.detach().numpy().copy() for x, g in zip(xs, gs)]
    if second:
        used = [g for g in gs if g is not None and g.requires_grad]
        gg = lib.autograd.grad(sum((g * g).sum() for g in used), xs, allow_unused=True) if used else [None] * len(xs)
        res += [np.zeros(tuple(x.shape)) if g is None else g.detach().numpy().copy() for x, g in zip(xs, gg)]
    return res


def same_as_torch(program: Callable[..., Any], shapes: list[tuple[int, ...]], second: bool = True) -> None:
    """``program(lib, *inputs)`` gives equal values and gradients under minigrad and torch."""
    results: list[Any] = []
    for lib in (torch, mg):
        xs = _inputs(lib, shapes)
        try:
            out = program(lib, *xs)
            results.append((out.detach().numpy().copy(), _grads(lib, out, xs, second)))
        except Exception as exc:  # noqa: BLE001 - compared with PyTorch's below
            results.append(exc)
    if isinstance(results[0], Exception) or isinstance(results[1], Exception):
        assert type(results[1]) is type(results[0]), f"torch: {results[0]!r}\nminigrad: {results[1]!r}"
        return
    (tv, tg), (mv, mgs) = results
    np.testing.assert_allclose(mv, tv, rtol=1e-10, atol=1e-12)
    assert len(tg) == len(mgs)
    for a, b in zip(mgs, tg):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def _p_index_iadd(lib, x):
    h = x * 3
    h[0] += 1
    return h


def _p_view_mul(lib, x):
    h = x * 3
    v = h.view(3, 4)
    v.mul_(2)
    return h * h


def _p_zero_slice(lib, x):
    h = x * x
    h[:, :2].zero_()
    return h


def _p_t_row(lib, x):
    h = x * 2
    h.t()[0].add_(1)
    return h * x


def _p_diagonal(lib, x):
    h = x * x
    h.diagonal().mul_(3)
    return h


def _p_strided_fill(lib, x):
    h = x * 2
    h.view(-1)[::2].fill_(0)
    return h * 1


def _p_mul_by_grad(lib, x, y):
    h = x * 2
    h[1].mul_(y)
    return h * h


def _p_out_rows(lib, x, y):
    out = lib.zeros(3, 4, dtype=lib.float64)
    out[0] = x[0] * 2
    out[1:] = y.tanh()
    out[0] += x[1] * x[1]
    return out


def _p_silently_wrong(lib, x):
    h = x * 1
    v = h[0]
    h.mul_(3)
    return v * v


def _p_view_of_view(lib, x, y):
    h = x.sin()
    a = h[1:]
    b = a[:, 1:3]
    c = b.t()
    c[0].mul_(y[0, :2])
    return h * a.sum() + c.sum()


def _p_many_views(lib, x):
    h = x * 1
    a, b = h[0], h[:, 1]
    a.mul_(a)
    b.add_(h[:, 2])
    return a.sum() * b + h[:, 0].sum() * h.sum()


def _p_many_views_ok(lib, x):
    h = x * 1
    a, b = h[0], h[:, 1]
    a.mul_(2)
    b.add_(h[:, 2])
    return a.sum() * b + h[:, 0].sum() * h.sum()


def _p_base_changed_after(lib, x, y):
    h = x * 2
    v = h[1:, 1:]
    h[0].mul_(y[0])
    h.div_(3)
    w = v.permute(1, 0)
    return (w * w).sum() + v.sum() * h


def _p_squeeze_unsqueeze_expand(lib, x):
    h = x * 1
    h.unsqueeze(0).squeeze(0)[2].sub_(x[0])
    h.reshape(2, 6)[1, 1:].mul_(2)
    e = h[0:1].expand(3, 4)
    return e * h


def _p_narrow_select(lib, x, y):
    h = x.sin()
    h.narrow(1, 1, 2).mul_(y[:, :2])
    h.select(1, 0).add_(2)
    return h * h


def _p_as_strided(lib, x, y):
    h = x.cos()
    v = h.as_strided((2, 2), (4, 1), 5)  # h[1:, 1:3] by its geometry
    w = h[1]
    v.mul_(y)
    return w * w + h.as_strided((3,), (5,)).sum()


def _p_as_strided_transposed_base(lib, x):
    h = (x * 2).t().clone()  # a base laid out column-major: as_strided reads its storage, not its rows
    h.as_strided((2, 2), (1, 3), 1).mul_(10)
    return h * h[1].sum()


def _p_as_strided_reads_twice(lib, x):
    h = x * x
    windows = h.as_strided((4, 3), (2, 1), 1)  # overlapping windows and one of stride 0 below
    rows = h[0].as_strided((3, 4), (0, 1))
    return windows.sum(0) * rows[:, :3].sum() + windows[2]


PROGRAMS = [
    (_p_index_iadd, [(3, 4)]),
    (_p_view_mul, [(12,)]),
    (_p_zero_slice, [(3, 4)]),
    (_p_t_row, [(3, 4)]),
    (_p_diagonal, [(3, 4)]),
    (_p_strided_fill, [(3, 4)]),
    (_p_mul_by_grad, [(3, 4), (4,)]),
    (_p_out_rows, [(3, 4), (2, 4)]),
    (_p_silently_wrong, [(3, 4)]),
    (_p_view_of_view, [(3, 4), (3, 2)]),
    (_p_many_views, [(3, 4)]),
    (_p_many_views_ok, [(3, 4)]),
    (_p_base_changed_after, [(3, 4), (1, 4)]),
    (_p_squeeze_unsqueeze_expand, [(3, 4)]),
    (_p_narrow_select, [(3, 4), (3, 4)]),
    (_p_as_strided, [(3, 4), (2, 2)]),
    (_p_as_strided_transposed_base, [(3, 4)]),
    (_p_as_strided_reads_twice, [(3, 4)]),
]


@pytest.mark.parametrize("program,shapes", PROGRAMS, ids=[p.__name__[3:] for p, _ in PROGRAMS])
def test_program_equals_torch(program: Callable[..., Any], shapes: list[tuple[int, ...]]) -> None:
    same_as_torch(program, shapes)


VIEW_FORMS = {
    "view": lambda h: h.view(12), "reshape": lambda h: h.reshape(2, 6), "slice": lambda h: h[1:, ::2],
    "int-index": lambda h: h[1, 2], "select": lambda h: h.select(1, 0), "narrow": lambda h: h.narrow(0, 1, 1),
    "t": lambda h: h.t(), "transpose": lambda h: h.transpose(0, 1), "permute": lambda h: h.permute(1, 0),
    "squeeze": lambda h: h.unsqueeze(0).squeeze(0), "unsqueeze": lambda h: h.unsqueeze(1),
    "expand": lambda h: h[0:1].expand(3, 4), "diagonal": lambda h: h.diagonal(), "unfold": lambda h: h.unfold(1, 2, 1),
    "split": lambda h: h.split(2)[1], "chunk": lambda h: h.chunk(2)[0], "unbind": lambda h: h.unbind(1)[2],
    "view_as": lambda h: h.view_as(h.reshape(12)), "view-of-view": lambda h: h[1:].t()[0],
    "as_strided": lambda h: h.as_strided((2, 3), (4, 2), 1), "as_strided-of-view": lambda h: h[1:].t().as_strided((2,), (5,)),
}


@pytest.mark.parametrize("form", list(VIEW_FORMS))
def test_view_forms_share_storage_base_and_counter_as_torch(form: str) -> None:
    for lib in (torch, mg):
        h = lib.ones(3, 4, dtype=lib.float64, requires_grad=True) * 1
        v = VIEW_FORMS[form](h)
        assert v._is_view() and v._base is h and not h._is_view() and h._base is None
        assert type(v._version) is int and v._version == h._version == 0
        with lib.no_grad():
            h.add_(1)
        assert v._version == h._version == 1
        assert float(v.detach().reshape(-1)[0]) == 2.0  # shares storage


def test_data_has_its_own_counter_and_detach_shares_it() -> None:
    for lib in (torch, mg):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = x * 1
        z = (y * y).sum()  # saves y
        d, data = y.detach(), y.data
        assert not d._is_view() and not data._is_view() and d._base is None and data._base is None
        data.mul_(2)  # the old optimizer idiom: not seen by the version check
        assert y._version == 0 and data._version == 1
        z.backward()
        assert x.grad.tolist() == [4.0, 4.0, 4.0]
        y = x * 1
        z2 = (y * y).sum()
        d = y.detach()
        d.add_(1)
        assert y._version == 1 == d._version
        with pytest.raises(RuntimeError, match="modified by an in-?place operation"):
            z2.backward()


def _r_leaf(lib):
    x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
    x.mul_(2)


def _r_view_of_leaf(lib):
    x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
    x[0].mul_(2)


def _r_no_grad_view(lib):
    h = lib.ones(3, 4, dtype=lib.float64, requires_grad=True) * 1
    with lib.no_grad():
        v = h[0]
    v.mul_(2)


def _r_unbind(lib):
    h = lib.ones(3, 4, dtype=lib.float64, requires_grad=True) * 1
    h.unbind(1)[2].mul_(2)


def _r_split(lib):
    h = lib.ones(3, 4, dtype=lib.float64, requires_grad=True) * 1
    h.split(2)[1].add_(1)


def _r_chunk_with_grad_value(lib):
    h = lib.ones(3, 4, dtype=lib.float64)
    y = lib.ones(4, dtype=lib.float64, requires_grad=True)
    h.chunk(3)[0].mul_(y)


def _r_unbind_of_leaf(lib):
    x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
    x.unbind(0)[0].mul_(2)


def _r_expand(lib):
    lib.zeros(1, 3).expand(2, 3).add_(1)


def _r_saved_changed(lib):
    x = lib.ones(3, dtype=lib.float64, requires_grad=True)
    h = x * 2
    z = (h * h).sum()
    h.add_(1)
    z.backward()


def _r_saved_changed_through_view(lib):
    x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
    h = x * 2
    z = (h * h).sum()
    h[1:].t().mul_(3)
    z.backward()


def _r_saved_view_changed_through_base(lib):
    x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
    h = x * 2
    v = h[0]
    z = (v * v).sum()
    h.mul_(3)
    z.backward()


def _r_saved_changed_through_detach(lib):
    x = lib.ones(3, dtype=lib.float64, requires_grad=True)
    h = x.exp()
    h.detach().zero_()
    h.sum().backward()


def _r_no_grad_view_used_after_rewrite(lib):
    h = lib.ones(3, 4, dtype=lib.float64, requires_grad=True) * 1
    with lib.no_grad():
        v = h[0]
    h.mul_(2)
    return v * 2


def _r_unbind_used_after_rewrite(lib):
    h = lib.ones(3, 4, dtype=lib.float64, requires_grad=True) * 1
    u = h.unbind(0)
    h[2].mul_(2)
    return u[1].grad_fn


def _r_saved_result_changed(lib):
    x = lib.ones(3, dtype=lib.float64, requires_grad=True)
    h = x * 1
    h.exp_()  # ExpBackward saves its result: h itself
    h.mul_(2)
    h.sum().backward()


def _r_saved_result_changed_through_base(lib):
    x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
    h = x * 1
    h[0].tanh_()
    h.mul_(2)
    h.sum().backward()


def _r_view_of_unbind_used_after_a_change_under_no_grad(lib):
    x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
    e = x.unbind(0)[0].expand(2, 3)
    with lib.no_grad():
        x.detach().add_(1)  # an optimizer step would do the same
    return e.grad_fn


def _r_int_exp(lib):
    lib.ones(3, dtype=lib.int64).exp_()


# (program, what PyTorch's message says)
REFUSALS = [
    (_r_leaf, "a leaf Variable that requires grad is being used in an in-place operation"),
    (_r_view_of_leaf, "a view of a leaf Variable that requires grad is being used in an in-place operation"),
    (_r_no_grad_view, "A view was created in no_grad mode and is being modified inplace with grad mode enabled"),
    (_r_unbind, "Output 2 of Unbind is a view and is being modified inplace"),
    (_r_split, "Output 1 of Split is a view and is being modified inplace"),
    (_r_chunk_with_grad_value, "no_grad mode and is being modified inplace with grad mode enabled. This view is the "
                               "output of a function that returns multiple views"),
    (_r_unbind_of_leaf, "Output 0 of Unbind is a view and is being modified inplace"),
    (_r_no_grad_view_used_after_rewrite, "A view was created in no_grad mode and its base or another view of its "
                                         "base has been modified inplace with grad mode enabled"),
    (_r_unbind_used_after_rewrite, "Output 1 of Unbind is a view and its base or another view of its base has been "
                                   "modified inplace"),
    (_r_saved_result_changed, "modified by an in"),
    (_r_saved_result_changed_through_base, "modified by an in"),
    (_r_view_of_unbind_used_after_a_change_under_no_grad, "Output 0 of Expand is a view and its base or another "
                                                          "view of its base has been modified inplace"),
    (_r_int_exp, "can't be cast to the desired output type"),
    (_r_expand, "more than one element of the written-to tensor refers to a single memory location"),
    (_r_saved_changed, "modified by an in"),
    (_r_saved_changed_through_view, "modified by an in"),
    (_r_saved_view_changed_through_base, "modified by an in"),
    (_r_saved_changed_through_detach, "modified by an in"),
]


@pytest.mark.parametrize("program,message", REFUSALS, ids=[p.__name__[3:] for p, _ in REFUSALS])
def test_refusals_as_torch(program: Callable[..., Any], message: str) -> None:
    for lib in (torch, mg):
        with pytest.raises(RuntimeError) as info:
            program(lib)
        text = str(info.value).replace("in-place operation:", "inplace operation:")
        assert message in text or message.replace("in", "in-", 1) in text, (lib.__name__, text)


@pytest.mark.parametrize("name", sorted(OVERLAPS))
def test_an_operand_partly_in_the_written_memory_is_refused_as_torch(name: str) -> None:
    """PyTorch's refusal, before anything changes; where PyTorch computes, the same values."""
    if not OVERLAPS[name][1]:
        assert _overlap(mg, name).tolist() == _overlap(torch, name).tolist()
        return
    for lib in (torch, mg):
        with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer "
                                               "to a single memory location"):
            _overlap(lib, name)


def test_a_change_under_no_grad_gives_the_views_fresh_nodes_as_torch() -> None:
    got = []
    for lib in (torch, mg):
        x = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        v = x.expand(2)
        y = v.clone()
        with lib.no_grad():
            x.abs_()
        grad = torch.autograd.grad if lib is torch else mg.grad
        gx, gv = grad(y, [x, v], lib.ones(2, dtype=lib.float64), allow_unused=True)
        got.append((float(gx), gv))  # v's new node is not in y's graph: no gradient for it
    assert got[0] == got[1] == (2.0, None)
    with mg.no_grad():
        w = mg.ones(2, requires_grad=True)[0:1]  # a view made under no_grad
    assert "grad_fn" not in repr(w)



def test_an_optimizer_step_gives_the_parameters_views_fresh_nodes_as_torch() -> None:
    """The step changes the parameter in place (its fused array path too): a view taken before it is
    regenerated from the parameter, so the view's old node is no longer between the parameter and it."""
    got = []
    for lib in (torch, mg):
        x = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        v = x.expand(3)
        y, z = v.abs(), v * 2
        x.backward()
        lib.optim.SGD([x], lr=0.1).step()
        (gy,) = lib.autograd.grad(y.sum(), [v], allow_unused=True)  # abs's node is not reached: no refusal
        (gz,) = lib.autograd.grad(z.sum(), [v], allow_unused=True)  # z was made from v's old node
        (gx,) = lib.autograd.grad(z.sum(), [x])  # which still leads to x
        (gv,) = lib.autograd.grad((v * v).sum(), [x])  # v's new node: the new values
        got.append((gy, gz, round(float(gx), 12), round(float(gv), 12), v.tolist()))
    assert got[0] == got[1] == (None, None, 6.0, 8.4, [1.4, 1.4, 1.4])


def test_a_change_through_a_detach_gives_the_bases_views_fresh_nodes_as_torch() -> None:
    """``h.detach()`` shares ``h``'s counter: changing it reaches ``h``'s views as a change of ``h`` would."""
    got = []
    for lib in (torch, mg):
        x = lib.tensor([1.5, -2.0], dtype=lib.float64, requires_grad=True)
        h = x * 2
        v = h[0:1]
        y = v.abs()
        h.detach().mul_(3)
        (gy,) = lib.autograd.grad(y.sum(), [v], allow_unused=True)  # abs's node (its saved v stale) not reached
        (gx,) = lib.autograd.grad((v * v).sum(), [x])
        got.append((gy, gx.tolist(), v._version))
    assert got[0] == got[1] == (None, [36.0, 0.0], 1)


def test_a_detach_with_views_of_its_own_does_not_hide_the_bases_views_as_torch() -> None:
    """A view of ``h.detach()`` made first, then a view of ``h``: changing ``h`` still reaches ``h``'s view."""
    got = []
    for lib in (torch, mg):
        x = lib.tensor([1.5, -2.0], dtype=lib.float64, requires_grad=True)
        h = x * 2
        d = h.detach()
        dv = d[0:1]
        v = h[0:1]
        y = v.abs()
        with lib.no_grad():
            h.mul_(2)
        (gy,) = lib.autograd.grad(y.sum(), [v], allow_unused=True)
        (gx,) = lib.autograd.grad((v * v).sum(), [x])
        got.append((gy, gx.tolist(), dv.tolist()))
    assert got[0] == got[1] == (None, [24.0, 0.0], [6.0])


def test_a_detach_given_a_history_gives_its_own_views_nodes_as_torch() -> None:
    """``d = x.detach()`` with a view of its own, made after a view of ``x``: ``d.copy_(a)`` gives ``d`` a
    history, and ``d``'s view takes a node from it (found by the long-profile fuzzer: the view kept no
    history, as only the views of ``x``, whose counter ``d`` shares, were regenerated)."""
    got = []
    for lib in (torch, mg):
        x = lib.tensor([[1.5, -2.0], [0.5, 3.0]], dtype=lib.float64, requires_grad=True)
        a = x * 2
        xv = x.diagonal()  # x's view first: the shared counter now names x as the storage base
        d = x.detach()
        dv = d.diagonal()
        d.copy_(a)
        (gx,) = lib.autograd.grad((dv * dv).sum(), [x])
        got.append((dv.requires_grad, dv.is_leaf, d.is_leaf, xv.grad_fn is not None, gx.tolist()))
    assert got[0] == got[1] == (True, False, False, True, [[12.0, 0.0], [0.0, 24.0]])


def test_a_view_made_under_no_grad_requires_grad_and_keeps_no_gradient_as_torch() -> None:
    """PyTorch's view made under ``no_grad`` of a tensor that requires grad asks its base: it requires
    grad, is a leaf, and the gradient reaching it goes nowhere (no accumulator of its own)."""
    def flags(t: Any) -> tuple[Any, ...]:
        return t.requires_grad, t.is_leaf, t.grad_fn is None

    got = []
    for lib in (torch, mg):
        x = lib.tensor([1.5, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        h = x * 2
        with lib.no_grad():
            v, hv, c = x[:2], h.view(3), lib.tensor([1.0, 2.0], dtype=lib.float64)[:1]
        row = [flags(v), flags(hv), flags(c)]
        z = v * 3
        row += [flags(z), type(z.grad_fn).__name__, flags(v[0]), v.detach().requires_grad]
        z.sum().backward()
        row += [x.grad, v.grad]
        with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
            v.backward(lib.ones(2, dtype=lib.float64))
        v.requires_grad_(False)  # the flag is the base's
        row.append(v.requires_grad)
        v.requires_grad_()  # its own accumulator now
        (v * 3).sum().backward()
        row.append(v.grad.tolist())
        with pytest.raises(RuntimeError, match="Can't call numpy"):
            hv.numpy()
        got.append(row)
    assert got[0] == got[1]
    assert got[1][:3] == [(True, True, True), (True, True, True), (False, True, True)]
    assert got[1][7:] == [None, None, True, [3.0, 3.0]]


def test_a_view_taken_before_its_base_requires_grad_follows_the_base_as_torch() -> None:
    """``v = x[:2]; x.requires_grad_()``: PyTorch's view asks its base, so it requires grad from then on, a
    leaf whose gradient goes nowhere (as a view made under ``no_grad``), and stops when the base does."""
    got = []
    for lib in (torch, mg):
        x = lib.tensor([1.5, -2.0, 0.5], dtype=lib.float64)
        v, under = x[:2], x.t()
        w, d = v[1:], x.detach()
        x.requires_grad_()
        row = [(t.requires_grad, t.is_leaf, t.grad_fn is None) for t in (v, under, w, d)]
        z = v * 3
        z.sum().backward()
        row += [type(z.grad_fn).__name__, x.grad, v.grad]
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                               "in-place operation"):
            v.mul_(2)
        x.requires_grad_(False)
        row += [v.requires_grad, w.requires_grad]
        x.requires_grad_()
        v.requires_grad_()  # its own accumulator: it keeps requiring grad without its base
        x.requires_grad_(False)
        (v * 3).sum().backward()
        row += [v.requires_grad, v.grad.tolist()]
        got.append(row)
    assert got[0] == got[1]
    assert got[1][:4] == [(True, True, True), (True, True, True), (True, True, True), (False, True, True)]


def test_a_view_whose_base_changed_before_it_required_grad_takes_a_history_as_torch() -> None:
    """PyTorch regenerates a view's ``grad_fn`` when its storage changed since the view's history was made
    (read lazily, with the base requiring grad by then): the view gets a node and the gradient reaches the
    base. A view made under ``no_grad`` is refused instead."""
    got = []
    for lib in (torch, mg):
        x = lib.tensor([1.5, -2.0, 0.5], dtype=lib.float64)
        v = x[:2]
        with lib.no_grad():
            ng = x[1:]
        x.abs_()
        x.requires_grad_()
        row = [v.requires_grad, v.is_leaf]
        (v * 3).sum().backward()
        row.append(x.grad.tolist())
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode and its base or another view of "
                                               "its base has been modified inplace"):
            ng * 2
        got.append(row)
    assert got[0] == got[1] == [True, False, [3.0, 3.0, 0.0]]


def test_a_write_through_a_view_of_a_detach_reaches_the_bases_views_as_torch() -> None:
    """``d = h.detach(); d[...] = y``: the write goes through a view of ``d``; ``h``'s views see the change as
    one of ``h`` - a view made under ``no_grad`` then refuses its history, a view made with grad replays."""
    got = []
    for lib in (torch, mg):
        x = lib.tensor([1.5, -2.0], dtype=lib.float64, requires_grad=True)
        h = x.abs()
        with lib.no_grad():
            ng = h.expand(2)
        v = h[0:1]
        d = h.detach()
        d[...] = lib.tensor([3.0, 4.0], dtype=lib.float64)
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode and its base"):
            ng.grad_fn
        (gx,) = lib.autograd.grad((v * v).sum(), [x])
        got.append((gx.tolist(), v.tolist(), v._version))
    assert got[0] == got[1]


def test_load_state_dict_copies_into_the_parameters_as_torch() -> None:
    """``load_state_dict`` copies into each parameter's storage (PyTorch's ``param.copy_``): views see the new
    values and gradients flow through them; ``.double()`` replaces the storage without a version bump."""
    got = []
    for lib in (torch, mg):
        lib.manual_seed(0)
        model, other = lib.nn.Linear(3, 2).double(), lib.nn.Linear(3, 2).double()
        with lib.no_grad():
            other.weight.fill_(7.0)
        wt, row = model.weight.t(), model.weight[0]
        before = model.weight._version
        model.load_state_dict(other.state_dict())
        (wt.sum() * 2 + row.sum()).backward()
        got.append((before, model.weight._version, wt.tolist(), row.tolist(), model.weight.grad.tolist()))
    assert got[0] == got[1]
    assert got[1][1] == got[1][0] + 1 and got[1][3] == [7.0, 7.0, 7.0]

# -- the in-place methods: each through a view and on a whole tensor, against PyTorch and finite differences --

def _pos(lib, t):
    return t * t + 0.5  # positive values, for log_/sqrt_/pow_


INPLACE_METHODS = {
    "relu_": (lambda lib, v, y: v.relu_()),
    "sigmoid_": (lambda lib, v, y: v.sigmoid_()),
    "tanh_": (lambda lib, v, y: v.tanh_()),
    "abs_": (lambda lib, v, y: v.abs_()),
    "neg_": (lambda lib, v, y: v.neg_()),
    "exp_": (lambda lib, v, y: v.exp_()),
    "log_": (lambda lib, v, y: v.log_()),
    "sqrt_": (lambda lib, v, y: v.sqrt_()),
    "pow_-number": (lambda lib, v, y: v.pow_(3)),
    "pow_-tensor": (lambda lib, v, y: v.pow_(_pos(lib, y))),
    "div_": (lambda lib, v, y: v.div_(_pos(lib, y))),
    "sub_": (lambda lib, v, y: v.sub_(y, alpha=2)),
    "mul_": (lambda lib, v, y: v.mul_(y)),
    "add_": (lambda lib, v, y: v.add_(y)),
    "addcmul_": (lambda lib, v, y: v.addcmul_(y, y * 2, value=0.5)),
    "addcdiv_": (lambda lib, v, y: v.addcdiv_(y, _pos(lib, y), value=2)),
    "lerp_-number": (lambda lib, v, y: v.lerp_(y, 0.3)),
    "lerp_-tensor": (lambda lib, v, y: v.lerp_(y, y.sigmoid())),
    "clamp_-numbers": (lambda lib, v, y: v.clamp_(-0.5, 0.7)),
    "clamp_-tensors": (lambda lib, v, y: v.clamp_(min=y - 0.3, max=y + 0.4)),
    "clamp_min_": (lambda lib, v, y: v.clamp_min_(0.1)),
    "masked_fill_": (lambda lib, v, y: v.masked_fill_(y > 0, 2.5)),
    "fill_": (lambda lib, v, y: v.fill_(1.5)),
    "zero_": (lambda lib, v, y: v.zero_()),
    "copy_": (lambda lib, v, y: v.copy_(y * 3)),
    "copy_-broadcast": (lambda lib, v, y: v.copy_(y[0])),
    "setitem": (lambda lib, v, y: v.__setitem__((slice(None), 1), y[:, 0] * 2)),
    "iadd-index": (lambda lib, v, y: v[0].__iadd__(y[1])),
}
_SQRT_ARGS = ("log_", "sqrt_", "pow_-tensor")


def _method_program(name: str, through_view: bool) -> Callable[..., Any]:
    def program(lib, x, y):
        h = _pos(lib, x) if name in _SQRT_ARGS else x * 1.5
        target = h[1:, 1:3] if through_view else h[1:, 1:3].clone()
        INPLACE_METHODS[name](lib, target, y)
        return h * x + target.sum() if through_view else target * x[1:, 1:3]
    return program


@pytest.mark.parametrize("through_view", [True, False], ids=["view", "whole"])
@pytest.mark.parametrize("name", list(INPLACE_METHODS))
def test_inplace_method_equals_torch(name: str, through_view: bool) -> None:
    same_as_torch(_method_program(name, through_view), [(3, 4), (2, 2)])


@pytest.mark.parametrize("name", list(INPLACE_METHODS))
def test_inplace_method_matches_finite_differences(name: str) -> None:
    from gradcheck import gradcheck

    rng = np.random.default_rng(7)
    x = mg.tensor(rng.standard_normal((3, 4)) * 0.9 + 0.05, dtype=mg.float64, requires_grad=True)
    y = mg.tensor(rng.standard_normal((2, 2)), dtype=mg.float64, requires_grad=True)
    assert gradcheck(lambda a, b: _method_program(name, True)(mg, a, b), [x, y], eps=1e-6, atol=1e-5, rtol=1e-4)


# -- hypothesis: random programs of views of views and in-place changes, against PyTorch --

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_VIEW_STEPS = {
    "row": lambda t: t[0] if t.ndim else t, "tail": lambda t: t[1:] if t.ndim else t, "t": lambda t: t.t() if t.ndim <= 2 else t,
    "every2": lambda t: t[..., ::2] if t.ndim else t, "diag": lambda t: t.diagonal() if t.ndim == 2 else t,
    "flat": lambda t: t.reshape(-1), "unsq": lambda t: t.unsqueeze(0), "sq": lambda t: t.squeeze(),
    "narrow": lambda t: t.narrow(-1, 0, 1) if t.ndim else t, "perm": lambda t: t.permute(tuple(reversed(range(t.ndim)))),
}
_INPLACE_STEPS = {
    "mul2": lambda t, y: t.mul_(2), "add_y": lambda t, y: t.add_(y), "mul_y": lambda t, y: t.mul_(y),
    "tanh": lambda t, y: t.tanh_(), "zero": lambda t, y: t.zero_(), "copy": lambda t, y: t.copy_(y * 3),
    "div_y": lambda t, y: t.div_(y * y + 1), "sigmoid": lambda t, y: t.sigmoid_(), "neg": lambda t, y: t.neg_(),
}


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 9), st.sampled_from(sorted(_VIEW_STEPS)),
                          st.sampled_from(sorted(_INPLACE_STEPS))), min_size=1, max_size=6))
def test_random_view_and_inplace_programs_equal_torch(steps: list[tuple[bool, int, str, str]]) -> None:
    def program(lib, x, y):
        h = x.sin()
        live = [h]
        for is_view, k, view, op in steps:
            target = live[k % len(live)]
            if is_view:
                live.append(_VIEW_STEPS[view](target))
            else:
                _INPLACE_STEPS[op](target, y.sum())
        return h * h + sum(v.sum() for v in live[1:]) if len(live) > 1 else h * h
    same_as_torch(program, [(3, 4), (2,)])


@pytest.mark.parametrize("program", [
    "h = x.abs(); y = a @ h; h.abs_(); y.backward()",  # dot: a needs no gradient, so h is not kept
    "h = (x * 1).reshape(1, 1); y = a.reshape(1, 1) @ h; h.abs_(); y.sum().backward()",
    "h = (x * 1).reshape(1, 1); y = h @ a.reshape(1, 1); a.add_(1); y.sum().backward()",  # a is kept: refused
    "h = x * 1; y = a.copysign(h); h.add_(1); y.sum().backward()",  # only the sign of h: nothing kept
])
def test_an_op_keeps_only_what_the_needed_gradients_read_as_torch(program: str) -> None:
    """A changed tensor that no needed gradient reads was never saved (PyTorch's ``should_compute_output``
    guards), so backward does not refuse it."""
    got = []
    for lib in (torch, mg):
        env = {"x": lib.tensor([1.5], dtype=lib.float64, requires_grad=True), "a": lib.tensor([2.0], dtype=lib.float64)}
        try:
            exec(program, env)
            got.append(env["x"].grad.tolist())
        except RuntimeError as e:
            got.append("modified by an in" in str(e))
    assert got[0] == got[1]


_GEOMETRIES = {
    "tensor": lambda h: h, "row": lambda h: h[1], "cols": lambda h: h[:, 1:], "transpose": lambda h: h.transpose(0, 2),
    "every other": lambda h: h[..., ::2], "view": lambda h: h.view(6, 4), "diagonal": lambda h: h[0].diagonal(),
    "expand": lambda h: h[0, 0, :1].expand(3, 4), "element": lambda h: h[1, 2, 3], "unsqueeze": lambda h: h[1].unsqueeze(0),
    "narrow": lambda h: h.narrow(2, 1, 2), "empty": lambda h: h[:, :0], "permute": lambda h: h.permute(2, 0, 1),
    "select": lambda h: h.select(1, 2), "unfold": lambda h: h[0, 0].unfold(0, 2, 1), "detach": lambda h: h[1].detach(),
    # a new dimension's stride (NOTE [ A new dimension's stride is PyTorch's ] in kernels/strided.py)
    "None": lambda h: h[None], "None inside": lambda h: h[:, None], "None at the end": lambda h: h[..., None],
    "None after an integer": lambda h: h[0, None], "Nones and slices": lambda h: h[None, :, 1:, None, ::2],
    "None of a transpose": lambda h: h.transpose(0, 2)[None, 1:], "None of a 0-d": lambda h: h[1, 2, 3][None],
    "unsqueeze at the end of a transpose": lambda h: h.transpose(0, 2).unsqueeze(3),
    "unsqueeze of a transpose": lambda h: h.transpose(0, 2).unsqueeze(1),
    "elementwise of a None": lambda h: h.transpose(0, 2)[None] * 2,
    # as_strided: the geometry given, in the storage of the tensor it is called on (a view's: its base's)
    "as_strided": lambda h: h.as_strided((3, 2), (1, 5), 2), "as_strided of a view": lambda h: h[1].as_strided((2, 2), (4, 1)),
    "as_strided reading twice": lambda h: h.as_strided((3, 3), (1, 1)), "as_strided of stride 0": lambda h: h.as_strided((2, 3), (0, 1)),
    "as_strided 0-d": lambda h: h.as_strided((), (), 23), "as_strided row-major": lambda h: h[0, 1:].as_strided((2, 4), (4, 1)),
}


@pytest.mark.parametrize("name", sorted(_GEOMETRIES))
def test_stride_storage_offset_and_is_contiguous_as_torch(name: str) -> None:
    """A view's geometry in its base's storage, as PyTorch reports it (``stride()``, ``storage_offset()``)."""
    got = []
    for lib in (torch, mg):
        v = _GEOMETRIES[name](lib.tensor(np.arange(24.0).reshape(2, 3, 4)))
        got.append((v.stride(), v.storage_offset(), v.is_contiguous(), [v.stride(d) for d in range(-v.ndim, v.ndim)]))
    assert got[0] == got[1]


def test_stride_of_a_dimension_out_of_range_as_torch() -> None:
    for lib in (torch, mg):
        with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
            lib.ones(2, 3).stride(2)


# (An empty tensor is left out: NumPy gives an empty copy strides of 0, PyTorch the strides of its input.)
@pytest.mark.parametrize("name", sorted(set(_GEOMETRIES) - {"empty"}))
def test_clone_keeps_the_order_of_strides_and_contiguous_does_not_as_torch(name: str) -> None:
    """``clone()`` copies in the input's order of strides (PyTorch's ``preserve_format``): the copy of a
    transposed tensor is transposed, so ``.view(-1)`` of it fails as in PyTorch; ``contiguous()`` and
    ``clone(memory_format=contiguous_format)`` copy row-major."""
    got = []
    for lib in (torch, mg):
        v = _GEOMETRIES[name](lib.tensor(np.arange(24.0).reshape(2, 3, 4)))
        c, k = v.clone(), v.clone(memory_format=lib.contiguous_format)
        try:
            flat = c.view(-1).tolist()
        except RuntimeError as e:
            flat = "view size is not compatible" in str(e)
        got.append((c.stride(), c.is_contiguous(), c.tolist(), flat, k.stride(), k.is_contiguous(), v.contiguous().stride()))
    assert got[0] == got[1]


# -- the layout of a result: PyTorch's (NOTE [ An elementwise result is laid out as PyTorch lays it out ]) --

_LAYOUT_INPUTS = {
    "t": lambda lib: lib.ones(4, 3).t(),
    "perm3": lambda lib: lib.ones(2, 3, 4).permute(2, 0, 1),
    "transposed3": lambda lib: lib.ones(2, 3, 4).transpose(0, 2),
    "expanded": lambda lib: lib.ones(3, 1).expand(3, 4),
    "sliced_t": lambda lib: lib.ones(4, 6)[:, ::2].t(),
}
_LAYOUT_OPS = {
    "b.t() + a": lambda lib, x: x + lib.ones(*x.shape),  # the first input decides where the two disagree
    "a + b.t()": lambda lib, x: lib.ones(*x.shape) + x,
    "x * 2": lambda lib, x: x * 2,
    "x + row": lambda lib, x: x + lib.ones(x.shape[-1]),
    "row + x": lambda lib, x: lib.ones(x.shape[-1]) + x,
    "x + x.contiguous()": lambda lib, x: x + x.contiguous(),
    "x < 0": lambda lib, x: x < 0,
    "where": lambda lib, x: lib.where(x > 0, x, lib.zeros(x.shape[-1])),
    "exp": lambda lib, x: x.exp(),
    "gelu": lambda lib, x: lib.nn.functional.gelu(x),
    "clamp(min=t)": lambda lib, x: x.clamp(min=lib.zeros(x.shape[-1])),
    "clone": lambda lib, x: x.clone(),
    "sum(0)": lambda lib, x: x.sum(0),
    "amax(-1)": lambda lib, x: x.amax(-1),
    "mean(0, keepdim)": lambda lib, x: x.mean(0, keepdim=True),
    "cumsum(0)": lambda lib, x: x.cumsum(0),
    "softmax(-1)": lambda lib, x: x.softmax(-1),
    "log_softmax(0)": lambda lib, x: x.log_softmax(0),
    "norm(dim=0)": lambda lib, x: x.norm(dim=0),
    "roll": lambda lib, x: x.roll(1, 0),
    "cat": lambda lib, x: lib.cat([x, x]),
    "stack": lambda lib, x: lib.stack([x, x], 1),
    "masked_fill": lambda lib, x: x.masked_fill(x > 0, 1.0),
    "tril": lambda lib, x: x.tril(),
    "cummax": lambda lib, x: lib.cummax(x, 0)[0],
    "scatter_add": lambda lib, x: x.scatter_add(0, lib.zeros(x.shape, dtype=lib.int64), x),
    "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x, x.shape[-1:]),
    "batch_norm": lambda lib, x: lib.nn.functional.batch_norm(x, None, None, training=True),
    "var(0)": lambda lib, x: x.var(0),
}


def _steps(t: Any) -> tuple[int, ...]:
    """The strides where a step is taken (a size-1 dim's stride is never used: PyTorch and NumPy differ there)."""
    return tuple(s for n, s in zip(t.shape, t.stride()) if n > 1)


@pytest.mark.parametrize("inp", sorted(_LAYOUT_INPUTS))
@pytest.mark.parametrize("op", sorted(_LAYOUT_OPS))
def test_a_results_layout_is_pytorchs(op: str, inp: str) -> None:
    """An elementwise result in TensorIterator's order of its inputs' strides (NumPy's ufuncs keep row-major
    where two inputs disagree: ``b.t() + a`` is column-major in PyTorch), a reduction's, a scan's, a
    softmax's and a concatenation's row-major (NumPy's follow the input), a clone's a broadcast dim's stride given no say; so
    ``view(-1)`` refuses and succeeds where PyTorch's does."""
    got = []
    for lib in (torch, mg):
        out = _LAYOUT_OPS[op](lib, _LAYOUT_INPUTS[inp](lib))
        try:
            out.view(-1)
            viewable = True
        except RuntimeError:
            viewable = False
        got.append((tuple(out.shape), _steps(out), out.is_contiguous(), viewable))
    assert got[1] == got[0]


def test_a_size_1_dims_stride_has_its_say_as_in_pytorch() -> None:
    """``x.unfold(0, 1, 1)`` is row-major for NumPy (a size-1 dim's stride does not count there), but its
    size-1 dims' strides take part in PyTorch's order of an elementwise result (found by the fuzzer)."""
    got = []
    for lib in (torch, mg):
        x = lib.ones(1, 2, 1)
        out = x + x.unfold(0, 1, 1)
        got.append((tuple(out.shape), _steps(out)))
    assert got[1] == got[0] == ((1, 2, 2, 1), (1, 2))


@pytest.mark.parametrize("foreach", [False, True])
def test_an_optimizer_step_on_a_detach_reaches_the_views_of_the_tensor_it_shares_storage_with(foreach) -> None:
    """``d = h.detach().requires_grad_()``, stepped by an optimizer: the change of ``d`` is one of ``h``'s
    storage, so a view of ``h`` made under ``no_grad`` refuses its history after it, as PyTorch's (the
    optimizer's array path, which skips view regeneration, is not taken while such a view lives)."""
    got = []
    for lib in (torch, mg):
        x = lib.tensor([1.5, -2.0], dtype=lib.float64, requires_grad=True)
        h = x * 2
        d = h.detach().requires_grad_()
        with lib.no_grad():
            v = h[:1]
        d.sum().backward()
        lib.optim.SGD([d], lr=0.5, foreach=foreach).step()
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode and its base or another view"):
            v.grad_fn
        got.append((h.detach().numpy().tolist(), h._version))
    assert got[0] == got[1]


@pytest.mark.parametrize("form", ["mask", "0-d mask", "int list"])
def test_setitem_of_a_value_that_needs_grad_into_a_no_grad_view_is_refused_as_pytorch(form):
    """``v[mask] = w.sum()`` with ``v`` a view made under ``no_grad`` and ``w`` needing a gradient: the write would
    be tracked, so PyTorch refuses it; minigrad's checks looked at ``v`` alone, which needs none (the fuzzer)."""
    torch = pytest.importorskip("torch")
    outcomes = []
    for lib in (torch, mg):
        w = lib.tensor([1.5, 2.0], requires_grad=True)
        base = lib.tensor([0.5, -1.0, 2.0]) if form != "0-d mask" else lib.tensor(0.5)
        with lib.no_grad():
            v = base[:] if form != "0-d mask" else base.expand(())
        index = {"mask": v > 0, "0-d mask": v > 0, "int list": [0, 2]}[form]
        try:
            v[index] = w.sum()
            outcomes.append(None)
        except RuntimeError as exc:
            outcomes.append(str(exc).split(".")[0])
    assert outcomes[0] == outcomes[1] == "A view was created in no_grad mode and is being modified inplace with grad mode enabled"
