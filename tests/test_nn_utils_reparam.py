"""Weight normalization (``nn.utils.weight_norm`` and ``parametrizations.weight_norm``, on the op
``weight_norm_interface``), the older hook-based ``nn.utils.spectral_norm``, conv/linear-batch-norm fusion,
``convert_conv2d_weight_memory_format``, the state-dict hooks they stand on, and every layer's ``device=``,
against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
import torch.nn.utils.parametrizations  # noqa: E402  (PyTorch does not import it with torch.nn.utils)


def _copy_params(src, dst):
    """``dst`` (minigrad) gets ``src``'s (PyTorch) parameter and buffer values, by name."""
    with mg.no_grad():
        for (n, t), (m, d) in zip(src.state_dict().items(), dst.state_dict().items()):
            assert n == m
            d.copy_(mg.tensor(t.detach().numpy()))


def _np(t):
    return t.detach().cpu().numpy()


# -- weight_norm: torch._weight_norm, norm_except_dim ----------------------------------------------------------


@pytest.mark.parametrize("shape, gshape, dim", [
    ((3, 4), (3, 1), 0), ((3, 4), (1, 4), 1), ((2, 3, 4), (1, 3, 1), 1), ((2, 3, 4), (), -1), ((2, 3, 4), (2, 1, 1), 0),
    ((2, 3, 4), (4,), 2), ((5,), (5,), 0), ((2, 3, 4), (1, 3, 1), -2),
])
def test_weight_norm_values_gradients_and_graph_as_torch(shape, gshape, dim):
    rng = np.random.default_rng(0)
    vn, gn, wn = rng.standard_normal(shape), rng.standard_normal(gshape), rng.standard_normal(shape)
    got = []
    for L in (torch, mg):
        v, g = L.tensor(vn, requires_grad=True), L.tensor(gn, requires_grad=True)
        w = L._weight_norm(v, g, dim)
        (w * L.tensor(wn)).sum().backward()
        chain, f = [], w.grad_fn
        while f is not None:
            chain.append(type(f).__name__)
            f = next((n for n, _ in f.next_functions if n is not None and type(n).__name__ != "AccumulateGrad"), None)
        n = L.norm_except_dim(v, 2, dim)
        got.append((_np(w), _np(v.grad), _np(g.grad), chain, tuple(n.shape), _np(n)))
    (tw, tv, tg, tchain, tshape, tn), (mw, mv, mg_, mchain, mshape, mn) = got
    np.testing.assert_allclose(mw, tw, rtol=1e-12)
    np.testing.assert_allclose(mv, tv, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mg_, tg, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mn, tn, rtol=1e-12)
    assert mchain == tchain and mshape == tshape


def test_weight_norm_interface_in_float32_as_torch():
    rng = np.random.default_rng(1)
    vn, gn = rng.standard_normal((4, 5)).astype(np.float32), rng.standard_normal((4, 1)).astype(np.float32)
    wn = rng.standard_normal((4, 5)).astype(np.float32)
    outs = []
    for L in (torch, mg):
        v, g = L.tensor(vn, requires_grad=True), L.tensor(gn, requires_grad=True)
        w = L._weight_norm(v, g, 0)
        (w * L.tensor(wn)).sum().backward()
        outs.append((_np(w), _np(v.grad), _np(g.grad)))
    for a, b in zip(*outs):
        np.testing.assert_allclose(b, a, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("dim", [0, 1])
def test_weight_norm_s_double_backward_agrees_with_finite_differences(dim):
    """PyTorch 2.13's own double backward of ``WeightNormInterfaceBackward0`` fails its ``gradgradcheck`` on the
    CPU (``torch.autograd.gradgradcheck(lambda v, g: torch._weight_norm(v, g, 0), ...)`` raises a Jacobian
    mismatch); minigrad's formula is made of ops and passes. Its values equal PyTorch's composite form's,
    ``v * (g / norm_except_dim(v, 2, dim))``, the same function."""
    rng = np.random.default_rng(2)
    vn = rng.standard_normal((3, 4))
    gn = rng.standard_normal((3, 1) if dim == 0 else (1, 4))
    v, g = mg.tensor(vn, requires_grad=True), mg.tensor(gn, requires_grad=True)
    assert mg.autograd.gradgradcheck(lambda v, g: mg._weight_norm(v, g, dim), (v, g))
    outs = []
    for L, form in ((torch, lambda v, g: v * (g / torch.norm_except_dim(v, 2, dim))),
                    (mg, lambda v, g: mg._weight_norm(v, g, dim))):
        v, g = L.tensor(vn, requires_grad=True), L.tensor(gn, requires_grad=True)
        gv, gg = L.autograd.grad((form(v, g) * L.tensor(vn)).sum() ** 2, (v, g), create_graph=True)
        (gv.pow(2).sum() + gg.pow(2).sum()).backward()
        outs.append((_np(gv), _np(gg), _np(v.grad), _np(g.grad)))
    for a, b in zip(*outs):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


def test_weight_norm_refusals_as_torch():
    v = {L: L.randn(3, 4, dtype=L.float64) for L in (torch, mg)}
    for L in (torch, mg):
        with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
            L._weight_norm(v[L], L.randn(3, 1), 0)
        with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)"):
            L.norm_except_dim(v[L], 2, 5)
        with pytest.raises(TypeError, match="must be Tensor"):
            L._weight_norm(v[L], 2.0, 0)
    x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)  # a g of the wrong size: PyTorch reads past it
    with pytest.raises(RuntimeError, match="one value per slice"):
        mg._weight_norm(x, mg.randn(2, 1, dtype=mg.float64), 0)


# -- nn.utils.weight_norm (the pre-hook) and parametrizations.weight_norm ------------------------------------


def _weight_normed_step(L, make, form, dim):
    L.manual_seed(0)
    layer = make(L)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer = (L.nn.utils.weight_norm(layer, dim=dim) if form == "hook" else
                 L.nn.utils.parametrizations.weight_norm(layer, dim=dim))
    x = L.ones((2,) + make.shape_in, dtype=L.float64)
    out = layer(x)
    (out ** 2).sum().backward()
    names = sorted(n for n, _ in layer.named_parameters())
    if form == "hook":
        g, v = layer.weight_g, layer.weight_v
    else:
        g, v = layer.parametrizations.weight.original0, layer.parametrizations.weight.original1
    return (_np(out), names, _np(g), _np(g.grad), _np(v.grad), type(layer.weight.grad_fn).__name__,
            sorted(layer.state_dict()), [w.category.__name__ for w in caught])


class _Make:
    def __init__(self, fn, shape_in):
        self.fn, self.shape_in = fn, shape_in

    def __call__(self, L):
        return self.fn(L)


MAKES = {
    "linear": _Make(lambda L: L.nn.Linear(4, 3, dtype=L.float64), (4,)),
    "conv": _Make(lambda L: L.nn.Conv2d(2, 3, 3, dtype=L.float64), (2, 5, 5)),
    "conv transposed": _Make(lambda L: L.nn.ConvTranspose2d(2, 3, 3, dtype=L.float64), (2, 4, 4)),
}


@pytest.mark.parametrize("form", ["hook", "parametrization"])
@pytest.mark.parametrize("make", list(MAKES))
@pytest.mark.parametrize("dim", [0, 1, None])
def test_a_weight_normed_layer_trains_as_torch_s(form, make, dim):
    t, m = (_weight_normed_step(L, MAKES[make], form, dim) for L in (torch, mg))
    np.testing.assert_allclose(m[0], t[0], rtol=1e-10)
    assert m[1] == t[1]
    for a, b in zip(m[2:5], t[2:5]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    assert m[5:] == t[5:]


def test_weight_norm_remove_and_its_refusals_as_torch():
    out = []
    for L in (torch, mg):
        L.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            layer = L.nn.utils.weight_norm(L.nn.Linear(3, 2, dtype=L.float64))
            with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"):
                L.nn.utils.weight_norm(layer)
        with L.no_grad():
            layer.weight_g.mul_(2)
        L.nn.utils.remove_weight_norm(layer)
        with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
            L.nn.utils.remove_weight_norm(layer)
        out.append((type(layer.weight).__name__, _np(layer.weight), sorted(n for n, _ in layer.named_parameters()),
                    len(layer._forward_pre_hooks)))
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-12)
    assert out[1][0] == out[0][0] == "Parameter" and out[1][2:] == out[0][2:]


def test_an_old_weight_norm_state_dict_loads_into_the_parametrization():
    for L in (torch, mg):
        L.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            old = L.nn.utils.weight_norm(L.nn.Linear(3, 2))
        new = L.nn.utils.parametrizations.weight_norm(L.nn.Linear(3, 2))
        assert repr(new.load_state_dict(old.state_dict())) == "<All keys matched successfully>"
        np.testing.assert_allclose(_np(new.weight), _np(old.weight), rtol=1e-6)


# -- the older spectral_norm ------------------------------------------------------------------------------


@pytest.mark.parametrize("make", ["linear", "conv transposed"])
def test_the_hook_spectral_norm_as_torch_s(make):
    got = []
    for L in (torch, mg):
        L.manual_seed(0)
        layer = L.nn.utils.spectral_norm(MAKES[make](L), n_power_iterations=2)
        x = L.ones((2,) + MAKES[make].shape_in, dtype=L.float64)
        for _ in range(2):
            out = layer(x)
            (out ** 2).sum().backward()
        layer.eval()
        again = layer(x)
        sd = layer.state_dict()
        got.append((_np(out), _np(again), _np(layer.weight_orig.grad), _np(layer.weight_u), _np(layer.weight_v),
                    type(layer.weight.grad_fn).__name__,
                    [type(n).__name__ for n, _ in layer.weight.grad_fn.next_functions],
                    list(sd), dict(sd._metadata[""])))
        L.nn.utils.remove_spectral_norm(layer)
        got[-1] += (type(layer.weight).__name__, _np(layer.weight), len(layer._state_dict_hooks),
                    len(layer._load_state_dict_pre_hooks), len(layer._forward_pre_hooks))
    t, m = got
    for i in (0, 1, 2, 3, 4, 10):
        np.testing.assert_allclose(m[i], t[i], rtol=1e-9, atol=1e-12)
    assert m[5:10] == t[5:10] and m[11] == t[11] and m[13] == t[13]
    # PyTorch's remove_spectral_norm leaves its load pre-hook (registered wrapped, it is not found again), so
    # the layer then refuses its own state dict ("Missing key(s) in state_dict: "weight_orig", "weight_u"");
    # minigrad removes it.
    assert (t[12], m[12]) == (1, 0)


def test_a_layer_loads_its_own_state_dict_once_spectral_norm_is_removed():
    layer = mg.nn.utils.remove_spectral_norm(mg.nn.utils.spectral_norm(mg.nn.Linear(3, 2)))
    state = layer.state_dict()
    del state._metadata
    assert repr(layer.load_state_dict(state)) == "<All keys matched successfully>"


def test_the_hook_spectral_norm_refusals_as_torch():
    for L in (torch, mg):
        layer = L.nn.utils.spectral_norm(L.nn.Linear(3, 2))
        with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter weight"):
            L.nn.utils.spectral_norm(layer)
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got n_power_iterations=0"):
            L.nn.utils.spectral_norm(L.nn.Linear(3, 2), n_power_iterations=0)
        with pytest.raises(ValueError, match="spectral_norm of 'bias' not found in"):
            L.nn.utils.remove_spectral_norm(layer, "bias")


# -- fusion and the conv weights' memory format ------------------------------------------------------------


@pytest.mark.parametrize("transpose", [False, True])
def test_conv_bn_fusion_as_torch(transpose):
    got = []
    for L in (torch, mg):
        L.manual_seed(0)
        conv = (L.nn.ConvTranspose2d if transpose else L.nn.Conv2d)(2, 3, 3, dtype=L.float64)
        bn = L.nn.BatchNorm2d(3, dtype=L.float64)
        x = L.randn(4, 2, 6, 6, dtype=L.float64)
        bn(conv(x))  # running statistics
        conv.eval(), bn.eval()
        fused = L.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        got.append((_np(fused(x)), _np(bn(conv(x))), _np(fused.weight), _np(fused.bias), type(fused.weight).__name__,
                    fused is conv))
    np.testing.assert_allclose(got[1][0], got[1][1], rtol=1e-10, atol=1e-12)
    for a, b in zip(got[1][:4], got[0][:4]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert got[1][4:] == got[0][4:] == ("Parameter", False)


def test_linear_bn_fusion_and_its_refusals_as_torch():
    got = []
    for L in (torch, mg):
        L.manual_seed(0)
        lin, bn = L.nn.Linear(4, 3, bias=False, dtype=L.float64), L.nn.BatchNorm1d(3, dtype=L.float64)
        x = L.randn(5, 4, dtype=L.float64)
        bn(lin(x))
        with pytest.raises(AssertionError, match="Fusion only for eval!"):
            L.nn.utils.fuse_linear_bn_eval(lin, bn)
        lin.eval(), bn.eval()
        with pytest.raises(AssertionError, match="linear.out_features == bn.num_features or bn.num_features == 1"):
            L.nn.utils.fuse_linear_bn_eval(lin, L.nn.BatchNorm1d(2).eval())
        fused = L.nn.utils.fuse_linear_bn_eval(lin, bn)
        got.append((_np(fused(x)), _np(fused.weight), _np(fused.bias)))
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_convert_conv2d_weight_memory_format_as_torch():
    got = []
    for L in (torch, mg):
        model = L.nn.Sequential(L.nn.Conv2d(3, 4, 3), L.nn.ReLU(), L.nn.Sequential(L.nn.ConvTranspose2d(4, 2, 3)))
        first = model[0].weight
        L.nn.utils.convert_conv2d_weight_memory_format(model, L.channels_last)
        got.append((model[0].weight is first, model[0].weight.stride(), model[2][0].weight.stride(),
                    model[0].weight.is_contiguous(memory_format=L.channels_last)))
    assert got[1] == got[0]


# -- the state-dict hooks ----------------------------------------------------------------------------------


def test_state_dict_hooks_run_as_torch_s():
    logs = []
    for L in (torch, mg):
        log = []
        model = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.Sequential(L.nn.Linear(2, 1)))
        inner = model[1]
        inner.register_state_dict_pre_hook(lambda m, prefix, keep_vars: log.append(("pre", prefix, keep_vars)))
        inner.register_state_dict_post_hook(lambda m, sd, prefix, meta: log.append(("post", prefix, list(sd), meta)))

        def old(m, sd, prefix, meta):
            sd[prefix + "extra"] = L.zeros(1)
            return sd
        inner._register_state_dict_hook(old)
        sd = model.state_dict()
        log.append(list(sd))
        log.append(dict(sd._metadata))
        inner.register_load_state_dict_pre_hook(
            lambda m, sd, prefix, meta, strict, missing, unexpected, errors: (log.append(("lpre", prefix, meta, strict)),
                                                                               sd.pop(prefix + "extra")))
        inner._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: log.append(("lpre2", prefix)))
        model.register_load_state_dict_post_hook(lambda m, keys: log.append(("lpost", repr(keys))))
        log.append(repr(model.load_state_dict(sd)))
        kept = model.state_dict(keep_vars=True)
        log.append(kept["0.weight"] is model[0].weight)
        model.register_state_dict_post_hook(lambda m, sd, prefix, meta: {})
        with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
            model.state_dict()
        logs.append(log)
    assert logs[1] == logs[0]


def test_a_post_hook_may_forgive_a_missing_key_as_torch_s():
    out = []
    for L in (torch, mg):
        model = L.nn.Linear(2, 2)
        model.register_load_state_dict_post_hook(lambda m, keys: keys.missing_keys.remove("bias"))
        before = _np(model.bias).copy()
        result = model.load_state_dict({"weight": L.zeros(2, 2)})
        out.append((repr(result), _np(model.weight).tolist(), np.array_equal(_np(model.bias), before)))
    assert out[1] == out[0]


def test_load_state_dict_s_refusal_words_as_torch_s():
    msgs = []
    for L in (torch, mg):
        with pytest.raises(RuntimeError) as e:
            L.nn.Linear(2, 2).load_state_dict({"weight": L.zeros(3, 3), "extra": L.zeros(1)})
        msgs.append(str(e.value).replace("torch", "minigrad"))
    assert msgs[1] == msgs[0]


def test_a_shared_module_is_saved_under_each_name_as_torch_s():
    keys = []
    for L in (torch, mg):
        shared = L.nn.Linear(2, 2)
        model = L.nn.ModuleDict({"a": shared, "b": L.nn.Sequential(shared)})
        keys.append(list(model.state_dict()))
        assert repr(model.load_state_dict(model.state_dict())) == "<All keys matched successfully>"
    assert keys[1] == keys[0]


# -- device= on every layer ---------------------------------------------------------------------------------


def test_every_layer_takes_device_and_dtype_as_torch_s():
    import inspect
    for name in dir(mg.nn):
        cls = getattr(mg.nn, name)
        if isinstance(cls, type) and issubclass(cls, mg.nn.Module) and hasattr(torch.nn, name):
            theirs = inspect.signature(getattr(torch.nn, name)).parameters
            ours = inspect.signature(cls).parameters
            for kw in ("device", "dtype"):
                assert kw not in theirs or kw in ours, f"{name} lacks {kw}="


def test_device_cpu_and_the_default_dtype_as_torch():
    torch.set_default_dtype(torch.float64)
    mg.set_default_dtype(mg.float64)
    try:
        for L in (torch, mg):
            for layer in (L.nn.Linear(2, 3, device="cpu"), L.nn.GroupNorm(1, 2, device="cpu"), L.nn.PReLU(device="cpu"),
                          L.nn.RMSNorm(3), L.nn.InstanceNorm1d(2, affine=True)):
                assert {str(p.dtype) for p in layer.parameters()} == {f"{L.__name__}.float64"}
                assert {str(p.device) for p in layer.parameters()} == {"cpu"}
    finally:
        torch.set_default_dtype(torch.float32)
        mg.set_default_dtype(mg.float32)


def test_a_state_dict_saved_before_versions_loads_as_torch():
    """A state dict with ``weight`` and without ``weight_v`` or metadata (saved before PyTorch versioned the
    form): ``v`` is solved for so that ``weight_orig / dot(u, W v)`` is the saved weight."""
    got = []
    for L in (torch, mg):
        L.manual_seed(0)
        layer = L.nn.utils.spectral_norm(L.nn.Linear(3, 2, dtype=L.float64))
        saved = {"bias": layer.bias.detach(), "weight_orig": layer.weight_orig.detach(),
                 "weight": layer.weight_orig.detach() / 2.5, "weight_u": layer.weight_u.detach()}
        layer.load_state_dict(saved)
        got.append((_np(layer.weight_v), _np(layer.eval()(L.ones(1, 3, dtype=L.float64)))))
    for a, b in zip(*got):
        np.testing.assert_allclose(b, a, rtol=1e-8)


# -- parametrizations.orthogonal ----------------------------------------------------------------------------

ORTH_LAYERS = {
    "square": (lambda L: L.nn.Linear(4, 4, dtype=L.float64), (2, 4)),
    "wide": (lambda L: L.nn.Linear(5, 3, dtype=L.float64), (2, 5)),
    "tall": (lambda L: L.nn.Linear(3, 5, dtype=L.float64), (2, 3)),
    "conv (a batch of 3x3 matrices)": (lambda L: L.nn.Conv2d(2, 3, 3, dtype=L.float64), (2, 2, 5, 5)),
}


@pytest.mark.parametrize("layer", list(ORTH_LAYERS))
@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_an_orthogonal_weight_as_torch_s(layer, orthogonal_map, use_trivialization):
    make, shape = ORTH_LAYERS[layer]
    got = []
    for L in (torch, mg):
        L.manual_seed(0)
        module = L.nn.utils.parametrizations.orthogonal(make(L), orthogonal_map=orthogonal_map,
                                                         use_trivialization=use_trivialization)
        W = module.weight
        original = module.parametrizations.weight.original
        (module(L.ones(shape, dtype=L.float64)) ** 2).sum().backward()
        W2 = W.detach().reshape(-1, *W.shape[-2:])
        tall = W2 if W2.shape[-2] >= W2.shape[-1] else W2.mT
        eye = L.eye(tall.shape[-1], dtype=L.float64)
        got.append((_np(W), _np(original), _np(original.grad), type(W.grad_fn).__name__,
                    [n for n, _ in module.named_buffers()], bool(L.allclose(tall.mT @ tall, eye, atol=1e-10))))
    t, m = got
    for a, b in zip(m[:3], t[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)
    assert m[3:] == t[3:] and m[5]


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "householder"])
def test_assigning_an_orthogonal_weight_as_torch(orthogonal_map):
    got = []
    for L in (torch, mg):
        L.manual_seed(0)
        module = L.nn.utils.parametrizations.orthogonal(L.nn.Linear(4, 4, dtype=L.float64),
                                                         orthogonal_map=orthogonal_map)
        Q = L.linalg.qr(L.randn(4, 4, dtype=L.float64)).Q
        module.weight = Q
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices of shape"):
            module.weight = L.eye(3, dtype=L.float64)
        got.append((_np(module.weight), _np(module.parametrizations.weight.original)))
    for a, b in zip(*got):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-11)


def test_orthogonal_refusals_as_torch():
    for L in (torch, mg):
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."):
            L.nn.utils.parametrizations.orthogonal(L.nn.Linear(3, 3), "bias")
        with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder"'):
            L.nn.utils.parametrizations.orthogonal(L.nn.Linear(3, 3), orthogonal_map="svd")
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'kernel'"):
            L.nn.utils.parametrizations.orthogonal(L.nn.Linear(3, 3), "kernel")
        module = L.nn.utils.parametrizations.orthogonal(L.nn.Linear(3, 3), use_trivialization=False)
        with pytest.raises(NotImplementedError, match="not possible to assign to the matrix exponential"):
            module.weight = L.eye(3)


def test_skip_init_spends_no_draws_as_torch_s():
    got = []
    for L in (torch, mg):
        L.manual_seed(0)
        layer = L.nn.utils.skip_init(L.nn.Linear, 3, 2, bias=False)
        conv = L.nn.utils.skip_init(L.nn.Conv2d, 1, 2, 3, device="cpu")
        got.append((repr(layer), repr(conv), str(conv.weight.device), L.rand(2).tolist()))
        with pytest.raises(RuntimeError, match="Expected a Module; got <class 'int'>"):
            L.nn.utils.skip_init(int)

        class NoDevice(L.nn.Module):
            pass
        with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
            L.nn.utils.skip_init(NoDevice)
    assert got[1] == got[0]


def test_mT_mH_and_H_as_torch():
    got = []
    for L in (torch, mg):
        x = L.ones(2, 3, requires_grad=True)
        r = [type(t.grad_fn).__name__ + str(tuple(t.shape)) for t in (x.mT, x.mH, x.H, L.ones(4, 2, 3).mH)]
        for call in (lambda: L.ones(2, 3, 4).H, lambda: L.ones(2).mH, lambda: L.ones(2).mT, lambda: L.ones(2).H):
            with pytest.raises(RuntimeError) as e:
                call()
            r.append(str(e.value))
        got.append(r)
    assert got[1] == got[0]


def test_state_dict_s_old_positional_form_as_torch_s():
    got = []
    for L in (torch, mg):
        m = L.nn.Linear(2, 2)
        with pytest.warns(FutureWarning, match="Positional args are being deprecated, use kwargs instead"):
            forms = [list(m.state_dict(None, "p.")), list(m.state_dict(None)), list(m.state_dict(None, "q.", True))]
        with pytest.warns(FutureWarning):
            forms.append(m.state_dict(None, "", True)["weight"] is m.weight)
        got.append(forms)
    assert got[1] == got[0]
