"""PyTorch's other top-level functions (minigrad/torch_functions.py) against PyTorch itself.

Each family: values (bit for bit where minigrad runs the same arithmetic, else to float32 rounding, said
at the test), dtypes, gradients, the grad_fn node names (and, for the ``*_copy`` forms, the documented
two-node graph where PyTorch has one node), the warnings, and the errors of common misuses.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg


def m(t: torch.Tensor | None, requires_grad: bool | None = None) -> mg.Tensor | None:
    """The minigrad twin of a torch tensor (same values and dtype), a leaf."""
    if t is None:
        return None
    rg = t.requires_grad if requires_grad is None else requires_grad
    return mg.tensor(t.detach().numpy().copy(), requires_grad=rg)


def same(mine: mg.Tensor, theirs: torch.Tensor, exact: bool = True) -> None:
    """Equal shapes and dtypes, and values equal bit for bit (``exact``) or to float32 rounding."""
    a, b = mine.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    if exact:
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def node(t: mg.Tensor | torch.Tensor) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def backward_both(mine: mg.Tensor | list, theirs: torch.Tensor | list, seed: int = 0) -> None:
    """Backpropagate the same random weights of the outputs (one or a list) through both graphs, in one pass."""
    mine, theirs = (mine, theirs) if isinstance(theirs, list) else ([mine], [theirs])
    g = torch.Generator().manual_seed(seed)
    ws = [torch.randn(t.shape, dtype=t.dtype, generator=g) for t in theirs]
    sum((t * w).sum() for t, w in zip(theirs, ws)).backward()
    sum((a * m(w)).sum() for a, w in zip(mine, ws)).backward()


#: The module's data, the same in every run whatever ran before (PyTorch's global generator is not consulted).
_G = torch.Generator().manual_seed(20261201)

# -- 1. The copy forms of the views -----------------------------------------------------------------------------

X = torch.randn(3, 4, 5, dtype=torch.float64, generator=_G)

#: (name, how to get the input from X, the arguments)
COPIES = [
    ("view_copy", lambda x: x, ((12, 5),)),
    ("t_copy", lambda x: x[0], ()),
    ("permute_copy", lambda x: x, ((2, 0, 1),)),
    ("expand_copy", lambda x: x[:, :1], ((3, 7, 5),)),
    ("select_copy", lambda x: x, (1, 2)),
    ("select_copy", lambda x: x, (-1, -1)),
    ("slice_copy", lambda x: x, (1, 0, 3, 2)),
    ("slice_copy", lambda x: x, ()),
    ("slice_copy", lambda x: x, (2, -3, None)),
    ("split_copy", lambda x: x, (2, 1)),
    ("split_with_sizes_copy", lambda x: x, ([1, 3], 1)),
    ("squeeze_copy", lambda x: x[:, :1], ()),
    ("squeeze_copy", lambda x: x[:, :1], (1,)),
    ("unsqueeze_copy", lambda x: x, (1,)),
    ("transpose_copy", lambda x: x, (0, 2)),
    ("unbind_copy", lambda x: x, (1,)),
    ("unfold_copy", lambda x: x, (2, 2, 1)),
    ("alias_copy", lambda x: x, ()),
    ("as_strided_copy", lambda x: x, ((2, 2), (1, 2))),
    ("as_strided_copy", lambda x: x, ((2, 3), (5, 1), 3)),
    ("narrow_copy", lambda x: x, (1, 1, 2)),
    ("diagonal_copy", lambda x: x[0], ()),
    ("diagonal_copy", lambda x: x, (1, 1, 2)),
]


@pytest.mark.parametrize("name, pick, args", COPIES, ids=[f"{c[0]}{c[2]}" for c in COPIES])
def test_copy_forms_equal_torch_and_own_their_storage(name, pick, args):
    x = X.clone().requires_grad_(True)
    xm = m(X, True)
    theirs = getattr(torch, name)(pick(x), *args)
    mine = getattr(mg, name)(pick(xm), *args)
    theirs = list(theirs) if isinstance(theirs, (tuple, list)) else [theirs]
    mine = list(mine) if isinstance(mine, (tuple, list)) else [mine]
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        same(a, b)
        assert a._base is None and a.is_contiguous()  # a new tensor, not a view
        assert not np.shares_memory(a.detach().numpy(), xm.detach().numpy())
    backward_both(mine, theirs)
    same(xm.grad, x.grad)


@pytest.mark.parametrize("name, pick, args", [c for c in COPIES if c[0] != "diagonal_copy"],
                         ids=[f"{c[0]}{c[2]}" for c in COPIES if c[0] != "diagonal_copy"])
def test_copy_forms_graph_is_the_view_then_a_clone(name, pick, args):
    """PyTorch's node is one (``ViewBackward0_copy``); minigrad's is the view's node under a ``clone``: the
    view's own node name is PyTorch's name without ``_copy``."""
    x = X.clone().requires_grad_(True)
    theirs = getattr(torch, name)(pick(x), *args)
    mine = getattr(mg, name)(pick(m(X, True)), *args)
    theirs = theirs[0] if isinstance(theirs, (tuple, list)) else theirs
    mine = mine[0] if isinstance(mine, (tuple, list)) else mine
    assert node(theirs).endswith("_copy") or name == "narrow_copy"
    assert node(mine) == "CloneBackward0"
    view_node = type(mine.grad_fn.next_functions[0][0]).__name__
    expected = node(theirs)[: -len("_copy")] if name != "narrow_copy" else "SliceBackward0"  # NarrowCopyBackward0
    if name == "alias_copy":
        expected = "ViewBackward0"  # minigrad's alias is a view of the same shape
    assert view_node == expected


def test_diagonal_copy_is_one_node_as_torch():
    x = X.clone().requires_grad_(True)
    theirs, mine = torch.diagonal_copy(x[0]), mg.diagonal_copy(m(X, True)[0])
    assert node(mine) == node(theirs) == "DiagonalBackward0_copy"


def test_diagonal_copy_of_a_3d_input_is_contiguous():
    """(The kernel kept the view's memory order, np.array's order="K"; PyTorch's result is contiguous.)"""
    assert mg.diagonal_copy(m(X)).is_contiguous()


def test_detach_copy_is_outside_the_graph():
    xm = m(X, True)
    y = mg.detach_copy(xm)
    same(y, torch.detach_copy(X))
    assert y._base is None and not y.requires_grad and y.grad_fn is None


@pytest.mark.parametrize("call, error", [
    (lambda L: L.select_copy(L.ones(2, 3), 1, 5), IndexError),
    (lambda L: L.permute_copy(L.ones(2, 3), (0,)), RuntimeError),
    (lambda L: L.split_with_sizes_copy(L.ones(5), [2, 2]), RuntimeError),
    (lambda L: L.expand_copy(L.ones(2, 3), (4, 3)), RuntimeError),
    (lambda L: L.narrow_copy(L.ones(2, 3), 1, 2, 3), RuntimeError),
    (lambda L: L.diagonal_copy(L.ones(2, 3), 0, 0, 0), RuntimeError),
])
def test_copy_forms_refuse_as_torch(call, error):
    with pytest.raises(error):
        call(torch)
    with pytest.raises(error):
        call(mg)


# -- 2. ATen's functional forms ------------------------------------------------------------------------------------

XF = torch.randn(4, 6, 5, generator=_G)


@pytest.mark.parametrize("name, args", [
    ("dropout", (0.3, True)), ("dropout", (0.3, False)), ("feature_dropout", (0.3, True)),
    ("alpha_dropout", (0.3, True)), ("feature_alpha_dropout", (0.3, True)), ("dropout", (0.0, True)),
    ("dropout", (1.0, True)),
])
def test_dropout_forms_draw_torch_masks(name, args):
    x = XF.clone().requires_grad_(True)
    xm = m(XF, True)
    torch.manual_seed(7)
    theirs = getattr(torch, name)(x, *args)
    mg.manual_seed(7)
    mine = getattr(mg, name)(xm, *args)
    same(mine, theirs)
    assert node(mine) == node(theirs)
    if theirs.requires_grad and theirs is not x:
        backward_both(mine, theirs)
        same(xm.grad, x.grad)


@pytest.mark.parametrize("name", ["dropout_", "feature_dropout_", "alpha_dropout_", "feature_alpha_dropout_"])
def test_inplace_dropout_forms_change_the_input(name):
    x, xm = XF.clone(), m(XF)
    torch.manual_seed(3)
    theirs = getattr(torch, name)(x, 0.4, True)
    mg.manual_seed(3)
    mine = getattr(mg, name)(xm, 0.4, True)
    assert mine is xm and theirs is x
    same(xm, x)


@pytest.mark.parametrize("train", [True, False])
def test_native_dropout_returns_output_and_bool_mask(train):
    x = XF.clone().requires_grad_(True)
    xm = m(XF, True)
    torch.manual_seed(11)
    out, mask = torch.native_dropout(x, 0.25, train)
    mg.manual_seed(11)
    mout, mmask = mg.native_dropout(xm, 0.25, train)
    same(mout, out)
    same(mmask, mask)
    assert mmask.dtype == mg.bool_
    backward_both(mout, out)
    same(xm.grad, x.grad)
    # PyTorch's node is NativeDropoutBackward0; minigrad's is the composite's last op
    assert node(out) == "NativeDropoutBackward0"
    assert node(mout) == ("MulBackward0" if train else "CloneBackward0")


@pytest.mark.parametrize("call, error", [
    (lambda L: L.dropout(L.ones(3), 1.5, True), RuntimeError),
    (lambda L: L.alpha_dropout(L.ones(3), -0.1, True), RuntimeError),
    (lambda L: L.feature_dropout(L.ones(3), 0.5, True), RuntimeError),
    (lambda L: L.native_dropout(L.ones(3), 2.0, True), RuntimeError),
])
def test_dropout_forms_refuse_as_torch(call, error):
    with pytest.raises(error) as theirs:
        call(torch)
    with pytest.raises(error) as mine:
        call(mg)
    assert str(mine.value) == str(theirs.value)


def test_embedding_takes_weight_first_and_minus_one_is_no_padding():
    w = torch.randn(10, 3, requires_grad=True)
    idx = torch.tensor([[1, 2, 4], [4, 0, 9]])
    for args in ((), (-1,), (4,)):
        w.grad = None
        wm = m(w, True)
        theirs = torch.embedding(w, idx, *args)
        mine = mg.embedding(wm, m(idx), *args)
        same(mine, theirs)
        assert node(mine) == node(theirs) == "EmbeddingBackward0"
        backward_both(mine, theirs)
        same(wm.grad, w.grad)


def test_embedding_refuses_float_indices_in_torch_words():
    with pytest.raises(RuntimeError) as theirs:
        torch.embedding(torch.ones(4, 2), torch.ones(3))
    with pytest.raises(RuntimeError) as mine:
        mg.embedding(mg.ones(4, 2), mg.ones(3))
    assert str(mine.value) == str(theirs.value)


def _norm_inputs():
    x = XF.clone().requires_grad_(True)
    w = torch.randn(6, requires_grad=True)
    b = torch.randn(6, requires_grad=True)
    return x, w, b


def _check_norm(mine, theirs, leaves, mleaves):
    """The normalisation kernels round differently from PyTorch's in the last bit: values and gradients to
    float32 rounding; node names exactly."""
    same(mine, theirs, exact=False)
    assert node(mine) == node(theirs)
    backward_both(mine, theirs)
    for a, b in zip(mleaves, leaves):
        same(a.grad, b.grad, exact=False)


def test_layer_norm_and_native_layer_norm():
    x, _, _ = _norm_inputs()
    w, b = torch.randn(5, requires_grad=True), torch.randn(5, requires_grad=True)
    xm, wm, bm = m(x), m(w), m(b)
    _check_norm(mg.layer_norm(xm, (5,), wm, bm, 1e-5, True), torch.layer_norm(x, (5,), w, b, 1e-5, True),
                (x, w, b), (xm, wm, bm))
    theirs = torch.native_layer_norm(x, [5], w, b, 1e-5)
    mine = mg.native_layer_norm(m(x), [5], m(w), m(b), 1e-5)
    assert node(mine[0]) == node(theirs[0]) == "NativeLayerNormBackward0"
    for a, t in zip(mine, theirs):
        same(a, t, exact=False)


def test_group_norm_and_native_group_norm():
    x, w, b = _norm_inputs()
    xm, wm, bm = m(x), m(w), m(b)
    _check_norm(mg.group_norm(xm, 2, wm, bm, 1e-5, True), torch.group_norm(x, 2, w, b, 1e-5, True),
                (x, w, b), (xm, wm, bm))
    theirs = torch.native_group_norm(x, w, b, 4, 6, 5, 3, 1e-5)
    mine = mg.native_group_norm(m(x), m(w), m(b), 4, 6, 5, 3, 1e-5)
    assert [tuple(t.shape) for t in mine] == [tuple(t.shape) for t in theirs]
    for a, t in zip(mine, theirs):
        same(a, t, exact=False)
    with pytest.raises(RuntimeError):
        mg.native_group_norm(m(x), None, None, 4, 6, 4, 3, 1e-5)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_in_aten_order_updates_running_stats(training):
    x, w, b = _norm_inputs()
    rm, rv = torch.randn(6), torch.rand(6) + 0.5
    xm, wm, bm, rmm, rvm = m(x), m(w), m(b), m(rm), m(rv)
    _check_norm(mg.batch_norm(xm, wm, bm, rmm, rvm, training, 0.1, 1e-5, True),
                torch.batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5, True), (x, w, b), (xm, wm, bm))
    same(rmm, rm, exact=False)
    same(rvm, rv, exact=False)


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm_returns_saved_statistics(training):
    x, w, b = _norm_inputs()
    rm, rv = torch.randn(6), torch.rand(6) + 0.5
    theirs = torch.native_batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5)
    mine = mg.native_batch_norm(m(x), m(w), m(b), m(rm), m(rv), training, 0.1, 1e-5)
    assert node(mine[0]) == node(theirs[0]) == "NativeBatchNormBackward0"
    for a, t in zip(mine, theirs):
        same(a, t, exact=False)


def test_instance_norm_in_aten_order():
    x, w, b = _norm_inputs()
    xm, wm, bm = m(x), m(w), m(b)
    theirs = torch.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, True)
    mine = mg.instance_norm(xm, wm, bm, None, None, True, 0.1, 1e-5, True)
    _check_norm(mine, theirs, (x, w, b), (xm, wm, bm))


def test_norm_forms_refuse_as_torch():
    for L in (torch, mg):
        with pytest.raises(RuntimeError):
            L.layer_norm(L.ones(2, 3), (4,))
        with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
            L.batch_norm(L.ones(2, 3), None, None, L.zeros(4), L.ones(4), False, 0.1, 1e-5, False)


def test_native_channel_shuffle_values():
    x = XF.clone().requires_grad_(True)
    same(mg.native_channel_shuffle(m(x), 3), torch.native_channel_shuffle(x, 3))


def _cell_weights(gates: int):
    g = torch.Generator().manual_seed(gates)
    return [torch.randn(s, generator=g, requires_grad=True) for s in ((gates * 5, 4), (gates * 5, 5), (gates * 5,),
                                                                       (gates * 5,))]


@pytest.mark.parametrize("name, gates", [("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1),
                                         ("rnn_relu_cell", 1)])
@pytest.mark.parametrize("bias", [True, False])
def test_rnn_cells_equal_torch(name, gates, bias):
    x, h, c = torch.randn(3, 4, requires_grad=True), torch.randn(3, 5, requires_grad=True), torch.randn(3, 5)
    ws = _cell_weights(gates)
    ws = ws if bias else ws[:2]
    mws = [m(w) for w in ws]
    xm, hm = m(x), m(h)
    hx, mhx = ((h, c), (hm, m(c))) if name == "lstm_cell" else (h, hm)
    theirs = getattr(torch, name)(x, hx, *ws)
    mine = getattr(mg, name)(xm, mhx, *mws)
    theirs = list(theirs) if isinstance(theirs, tuple) else [theirs]
    mine = list(mine) if isinstance(mine, tuple) else [mine]
    for a, t in zip(mine, theirs):
        same(a, t, exact=False)  # addmm's float32 sums in another order
        assert node(a) == node(t)
    backward_both(mine, theirs)
    for a, t in zip([xm, hm, *mws], [x, h, *ws]):
        same(a.grad, t.grad, exact=False)


def test_lstm_cell_refuses_one_hidden_state():
    for L in (torch, mg):
        with pytest.raises(RuntimeError):
            L.lstm_cell(L.ones(2, 3), (L.ones(2, 4),), L.ones(16, 3), L.ones(16, 4))


A, B = torch.randn(3, 5, generator=_G), torch.randn(3, 5, generator=_G)
T = torch.tensor([1.0, -1.0, 1.0])

#: (name, the call's arguments from the leaf ``a``, ``b`` and the reduction, values bit for bit, gradients so)
LOSSES = [
    ("margin_ranking_loss", lambda a, b, r: (a, b, torch.sign(b - 0.1), 0.1, r), True, True),
    ("hinge_embedding_loss", lambda a, b, r: (a, torch.sign(b), 1.0, r), True, True),
    ("cosine_embedding_loss", lambda a, b, r: (a, b, T, 0.2, r), True, False),
    ("poisson_nll_loss", lambda a, b, r: (a, b.abs(), True, False, 1e-8, r), False, False),
    ("triplet_margin_loss", lambda a, b, r: (a, b, b + 1, 1.0, 2, 1e-6, False, r), True, False),
    ("binary_cross_entropy_with_logits", lambda a, b, r: (a, b.sigmoid(), None, torch.full((5,), 2.0), r), False,
     False),
]


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("name, make, exact, grad_exact", LOSSES, ids=[c[0] for c in LOSSES])
def test_losses_take_aten_reduction_numbers(name, make, exact, grad_exact, reduction):
    a = A.clone().requires_grad_(True)
    am = m(a)
    theirs = getattr(torch, name)(*make(a, B, reduction))
    mine = getattr(mg, name)(*[m(v) if isinstance(v, torch.Tensor) and v is not a else am if v is a else v
                               for v in make(a, B, reduction)])
    same(mine, theirs, exact=exact)  # poisson's exp and BCE's log1p round apart from PyTorch's in the last bit
    assert node(mine) == node(theirs)
    backward_both(mine, theirs)
    same(am.grad, a.grad, exact=grad_exact)  # the distances' backward (norm, cosine): 1 ulp apart


def test_loss_reduction_number_is_checked():
    with pytest.raises(ValueError, match="reduction must be 0 \\(none\\), 1 \\(mean\\) or 2 \\(sum\\)"):
        mg.hinge_embedding_loss(mg.ones(3), mg.ones(3), 1.0, "mean")


@pytest.mark.parametrize("shape, wshape, args", [
    ((2, 4, 6, 6), (6, 2, 3, 3), ([1, 1], [1, 1], [1, 1], False, [0, 0], 2)),
    ((2, 4, 6, 6), (4, 3, 3, 3), ([2, 2], [1, 1], [1, 1], True, [1, 1], 1)),
    ((2, 4, 9), (3, 4, 2), ([2], [1], [2], False, [0], 1)),
    ((1, 2, 4, 4, 4), (3, 2, 2, 2, 2), ([1, 1, 1], [0, 0, 0], [1, 1, 1], False, [0, 0, 0], 1)),
])
def test_convolution_picks_the_convolution(shape, wshape, args):
    x = torch.randn(shape, requires_grad=True)
    w = torch.randn(wshape, requires_grad=True)
    bias = torch.randn(wshape[1] * args[-1] if args[3] else wshape[0], requires_grad=True)
    theirs = torch.convolution(x, w, bias, *args)
    xm, wm, bm = m(x), m(w), m(bias)
    mine = mg.convolution(xm, wm, bm, *args)
    same(mine, theirs, exact=False)  # the im2col products sum in another order than PyTorch's
    assert node(mine) == node(theirs) == "ConvolutionBackward0"
    backward_both(mine, theirs)
    for a, t in zip((xm, wm, bm), (x, w, bias)):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_convolution_refuses_a_2d_weight():
    for L in (torch, mg):
        with pytest.raises(RuntimeError):
            L.convolution(L.ones(1, 1, 4, 4), L.ones(3, 3), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)


@pytest.mark.parametrize("dims, modes", [(2, (0, 0, False)), (2, (1, 2, True)), (2, (2, 1, False)),
                                         (3, (0, 1, True)), (3, (1, 0, False))])
def test_grid_samplers(dims, modes):
    shape = (2, 3, 5, 6) if dims == 2 else (1, 2, 3, 4, 5)
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    grid = (torch.rand((shape[0],) + (3,) * dims + (dims,), dtype=torch.float64) * 2.2 - 1.1).requires_grad_(True)
    theirs = getattr(torch, f"grid_sampler_{dims}d")(x, grid, *modes)
    xm, gm = m(x), m(grid)
    mine = getattr(mg, f"grid_sampler_{dims}d")(xm, gm, *modes)
    same(mine, theirs, exact=False)
    assert node(mine) == node(theirs) == f"GridSampler{dims}DBackward0"
    backward_both(mine, theirs)
    same(xm.grad, x.grad, exact=False)


def test_grid_sampler_2d_refuses_a_5d_input():
    for L in (torch, mg):
        with pytest.raises(RuntimeError):
            L.grid_sampler_2d(L.ones(1, 1, 2, 2, 2), L.ones(1, 1, 1, 1, 3), 0, 0, False)


def test_detach_and_detach_():
    xm = m(XF, True)
    y = mg.detach(xm * 2)
    assert not y.requires_grad and y.grad_fn is None
    z = xm * 2
    assert mg.detach_(z) is z and not z.requires_grad


# -- 3. Utilities -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kw", [((0, 5), {}), ((1, 4, 0.3), {}), ((0.1, 1.0, 0.1), {}), ((5, 0, -1), {}),
                                      ((0, 3), {"dtype": "int64"}), ((-1.5, 2.25, 0.25), {"dtype": "float64"})])
def test_range_includes_the_end_and_warns(args, kw):
    with pytest.warns(UserWarning) as theirs:
        t = torch.range(*args, **{k: getattr(torch, v) for k, v in kw.items()})
    with pytest.warns(UserWarning) as mine:
        r = mg.range(*args, **{k: getattr(mg, v) for k, v in kw.items()})
    same(r, t)
    assert [str(w.message) for w in mine] == [str(w.message) for w in theirs]


def test_range_refuses_as_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in ((0, 3, 0), (0, 3, -1)):
            with pytest.raises(RuntimeError) as theirs:
                torch.range(*args)
            with pytest.raises(RuntimeError) as mine:
                mg.range(*args)
            assert str(mine.value) == str(theirs.value)


GX = torch.randn(5, 6, generator=_G)


@pytest.mark.parametrize("kw", [{}, {"spacing": 2.0}, {"spacing": [2.0, 0.5]}, {"dim": 1}, {"dim": [1, 0]},
                                {"edge_order": 2}, {"spacing": 3.0, "dim": 0, "edge_order": 2},
                                {"spacing": [0.5], "dim": -1, "edge_order": 2}])
def test_gradient_uniform_spacing_bit_for_bit(kw):
    theirs = torch.gradient(GX, **kw)
    mine = mg.gradient(m(GX), **kw)
    assert len(mine) == len(theirs)
    for a, t in zip(mine, theirs):
        same(a, t)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_coordinates_bit_for_bit(edge_order):
    x = torch.randn(6, 5, dtype=torch.float64)
    coords = (torch.tensor([0.0, 1.0, 1.5, 3.5, 4.0, 6.0], dtype=torch.float64),
              torch.tensor([0.0, 0.5, 2.0, 3.0, 4.5], dtype=torch.float64))
    theirs = torch.gradient(x, spacing=coords, edge_order=edge_order)
    mine = mg.gradient(m(x), spacing=tuple(m(c) for c in coords), edge_order=edge_order)
    for a, t in zip(mine, theirs):
        same(a, t)


def test_gradient_of_integers_is_float_and_differentiable():
    xi = torch.tensor([1, 4, 9, 16, 25])
    same(mg.gradient(m(xi))[0], torch.gradient(xi)[0])
    x = torch.randn(7, dtype=torch.float64, requires_grad=True)
    xm = m(x)
    backward_both(mg.gradient(xm, edge_order=2)[0], torch.gradient(x, edge_order=2)[0])
    same(xm.grad, x.grad, exact=False)  # the slices' gradients are added in another order: 1 ulp apart


@pytest.mark.parametrize("call", [
    lambda L: L.gradient(L.ones(5), edge_order=3),
    lambda L: L.gradient(L.ones(2), edge_order=2),
    lambda L: L.gradient(L.ones(3, 3), spacing=[1.0, 2.0, 3.0]),
    lambda L: L.gradient(L.ones(3, 3), spacing=[1.0, 2.0, 3.0], dim=[0, 1]),
    lambda L: L.gradient(L.ones(3, 3), dim=[0, 0]),
])
def test_gradient_refuses_in_torch_words(call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as mine:
        call(mg)
    assert str(mine.value) == str(theirs.value)


P = torch.randn(50, 2, dtype=torch.float64, generator=_G)
W = torch.rand(50, dtype=torch.float64, generator=_G)


@pytest.mark.parametrize("kw", [{"bins": 10}, {"bins": [3, 4]}, {"bins": 4, "density": True},
                                {"bins": [2, 3], "range": [-1.0, 1.0, -2.0, 0.5]}, {"bins": 3, "weight": W},
                                {"bins": [3, 2], "weight": W, "density": True}])
def test_histogramdd_equals_torch(kw):
    theirs = torch.histogramdd(P, **kw)
    mine = mg.histogramdd(m(P), **{k: m(v) if isinstance(v, torch.Tensor) else v for k, v in kw.items()})
    same(mine.hist, theirs.hist)
    assert type(mine).__name__ == "histogramdd" and isinstance(mine.bin_edges, tuple)
    assert len(mine.bin_edges) == len(theirs.bin_edges)
    for a, t in zip(mine.bin_edges, theirs.bin_edges):
        same(a, t)


def test_histogramdd_of_no_points_spans_zero_to_one_as_torch():
    for mine, theirs in zip(mg.histogramdd(mg.empty(0, 2), bins=2).bin_edges,
                            torch.histogramdd(torch.empty(0, 2), bins=2).bin_edges):
        same(mine, theirs)


def test_histogramdd_with_edge_tensors_and_a_3d_input():
    edges = [torch.tensor([-3.0, 0.0, 0.5, 3.0], dtype=torch.float64), torch.tensor([-1.0, 1.0], dtype=torch.float64)]
    same(mg.histogramdd(m(P), bins=[m(e) for e in edges]).hist, torch.histogramdd(P, bins=edges).hist)
    p3 = torch.randn(4, 5, 3)
    same(mg.histogramdd(m(p3), bins=2).hist, torch.histogramdd(p3, bins=2).hist)


@pytest.mark.parametrize("call, error", [
    (lambda L: L.histogramdd(L.tensor([[1, 2], [3, 4]]), bins=2), NotImplementedError),
    (lambda L: L.histogramdd(L.ones(4, 2), bins=[2, 2, 2]), RuntimeError),
    (lambda L: L.histogramdd(L.ones(4, 2), bins=2, range=[0.0, 1.0]), RuntimeError),
    (lambda L: L.histogramdd(L.ones(4, 2), bins=2, range=[1.0, 0.0, 0.0, 1.0]), RuntimeError),
    (lambda L: L.histogramdd(L.ones(4, 2), bins=2, range=[0.0, 1.0, 3.0, 2.0]), RuntimeError),
    (lambda L: L.histogramdd(L.ones(4, 2), bins=[2, 0]), RuntimeError),
    (lambda L: L.histogramdd(L.tensor([[0.0, float("inf")]]), bins=2), RuntimeError),
])
def test_histogramdd_refuses_in_torch_words(call, error):
    with pytest.raises(error) as theirs:
        call(torch)
    with pytest.raises(error) as mine:
        call(mg)
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("values, kw", [([[1, 0], [0, 1]], {"size": 3}), ([1, 0, 1], {"size": 1, "fill_value": 5}),
                                        ([[0.0, 2.0], [3.0, 0.0]], {"size": 0}), ([0, 0], {"size": 2})])
def test_nonzero_static(values, kw):
    t = torch.tensor(values)
    same(mg.nonzero_static(m(t), **kw), torch.nonzero_static(t, **kw))
    with pytest.raises(RuntimeError):
        mg.nonzero_static(m(t), size=-1)


def test_resize_as_keeps_the_first_elements():
    for n, shape in ((6, (2, 2)), (4, (2, 2))):
        t, tm = torch.arange(float(n)), mg.arange(float(n))
        assert torch.resize_as_(t, torch.zeros(shape)) is t
        assert mg.resize_as_(tm, mg.zeros(shape)) is tm
        same(tm, t)
    for L in (torch, mg):
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            L.resize_as_(L.ones(3, requires_grad=True), L.ones(2))


def test_set_default_tensor_type_warns_and_sets_the_dtype():
    try:
        with pytest.warns(UserWarning, match=r"torch.set_default_tensor_type\(\) is deprecated as of PyTorch 2.1"):
            mg.set_default_tensor_type(mg.DoubleTensor)
        assert mg.get_default_dtype() is mg.float64 and mg.ones(1).dtype is mg.float64
        with pytest.warns(UserWarning):
            mg.set_default_tensor_type("torch.FloatTensor")
        assert mg.get_default_dtype() is mg.float32
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for L in (torch, mg):
                with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
                    L.set_default_tensor_type(L.LongTensor)
    finally:
        mg.set_default_dtype(mg.float32)


def test_flags_and_small_queries():
    assert not mg.is_warn_always_enabled()
    mg.set_warn_always(True)
    assert mg.is_warn_always_enabled()
    mg.set_warn_always(False)
    assert mg.get_device(mg.ones(2)) == torch.get_device(torch.ones(2)) == -1
    assert repr(mg.strided) == repr(torch.strided) == "torch.strided" and isinstance(mg.strided, mg.layout)
    assert mg.get_num_interop_threads() >= 1
    assert mg.init_num_threads() is None
    assert (mg.has_lapack, mg.has_mkl, mg.has_openmp, mg.has_spectral) == (True, False, False, True)
    assert mg.is_distributed() is False and mg.is_vulkan_available() is False
    assert mg.cudnn_is_acceptable(mg.ones(2)) is False
    with pytest.raises(RuntimeError, match="set_num_interop_threads expects a positive integer"):
        mg.set_num_interop_threads(0)


def test_asarray_shares_memory_when_it_can():
    a = np.arange(4, dtype=np.float32)
    t = mg.asarray(a)
    a[0] = 9.0
    assert t.tolist() == [9.0, 1.0, 2.0, 3.0] and t.dtype is mg.float32
    x = mg.randn(3)
    assert mg.asarray(x) is x and torch.asarray(torch.randn(3)) is not None
    y = mg.asarray(x, copy=True)
    assert y is not x and y.tolist() == x.tolist()
    assert mg.asarray(x, dtype=mg.float64).dtype is mg.float64
    same(mg.asarray([1, 2]), torch.asarray([1, 2]))
    same(mg.asarray([1.0, 2.5]), torch.asarray([1.0, 2.5]))
    assert mg.asarray([1.0], requires_grad=True).requires_grad
    with pytest.raises(ValueError) as theirs:
        torch.asarray(torch.ones(3), dtype=torch.float64, copy=False)
    with pytest.raises(ValueError) as mine:
        mg.asarray(mg.ones(3), dtype=mg.float64, copy=False)
    assert str(mine.value) == str(theirs.value)


def test_frombuffer_shares_the_buffer():
    buf = bytearray(np.arange(4, dtype=np.int32).tobytes())
    t, tt = mg.frombuffer(buf, dtype=mg.int32, count=2, offset=4), torch.frombuffer(buf, dtype=torch.int32, count=2,
                                                                                   offset=4)
    same(t, tt)
    t[0] = 7
    assert np.frombuffer(buf, dtype=np.int32)[1] == 7


def test_frombuffer_warns_for_a_read_only_buffer_once_unless_warn_always():
    data = np.arange(3, dtype=np.float32).tobytes()
    torch.set_warn_always(True)
    mg.set_warn_always(True)
    try:
        with pytest.warns(UserWarning) as theirs:
            tt = torch.frombuffer(data, dtype=torch.float32)
        with pytest.warns(UserWarning) as mine:
            t = mg.frombuffer(data, dtype=mg.float32)
        same(t, tt)
        # PyTorch's text ends with where in its C++ it was raised: minigrad's is the text before that
        assert str(theirs[0].message).startswith(str(mine[0].message))
    finally:
        torch.set_warn_always(False)
        mg.set_warn_always(False)
    with warnings.catch_warnings(record=True) as seen:  # once given, given no more (TORCH_WARN_ONCE)
        warnings.simplefilter("always")
        mg.frombuffer(data, dtype=mg.float32)
    assert seen == []


@pytest.mark.parametrize("kw", [dict(offset=8), dict(count=3), dict(count=-1, offset=1)])
def test_frombuffer_refuses_in_torch_words(kw):
    with pytest.raises(ValueError) as theirs:
        torch.frombuffer(bytearray(8), dtype=torch.float32, **kw)
    with pytest.raises(ValueError) as mine:
        mg.frombuffer(bytearray(8), dtype=mg.float32, **kw)
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("size, order", [((2, 3, 4), (0, 2, 1)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4, 5), (0, 2, 3, 1))])
def test_empty_permuted_lays_out_memory_in_the_order(size, order):
    t, tt = mg.empty_permuted(size, order), torch.empty_permuted(size, order)
    assert tuple(t.shape) == tuple(tt.shape) and t.stride() == tt.stride() and t._base is None
    assert mg.empty_permuted(size, order, dtype=mg.float64).dtype is mg.float64


@pytest.mark.parametrize("order", [(0,), (0, 2), (0, 0)])
def test_empty_permuted_refuses_in_torch_words(order):
    with pytest.raises(RuntimeError) as theirs:
        torch.empty_permuted((2, 3), order)
    with pytest.raises(RuntimeError) as mine:
        mg.empty_permuted((2, 3), order)
    assert str(mine.value) == str(theirs.value)


def test_every_name_is_on_mg():
    from minigrad import torch_functions

    assert all(hasattr(mg, n) and hasattr(torch, n) for n in torch_functions.__all__)


def test_asarray_reads_a_buffer_as_memory_as_torch():
    import array

    for obj in (array.array("f", [1.0, 2.0]), array.array("d", [1.0, 2.0]), bytearray(b"\x00\x00\x80?")):
        same(mg.asarray(obj), torch.asarray(obj))
    same(mg.asarray(bytearray(b"\x01\x02"), dtype=mg.uint8), torch.asarray(bytearray(b"\x01\x02"), dtype=torch.uint8))
    buf = bytearray(b"\x00\x00\x80?")
    t = mg.asarray(buf)
    buf[3] = 0x40  # 0x3f800000 (1.0f) -> 0x40800000 (4.0f): the tensor reads the same memory
    assert t.tolist() == [4.0]
    same(mg.asarray(np.float32(2.5)), torch.asarray(np.float32(2.5)))  # a NumPy scalar is a number, not a buffer
    for L in (torch, mg):
        with pytest.raises(ValueError, match="must be a multiple of element size"):
            L.asarray(bytearray(b"\x01\x02"))
