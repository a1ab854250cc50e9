"""The lazy layers and their uninitialized parameters against PyTorch: what prints before and after the first
call, the values drawn then, state dicts, an optimizer made before the first call, ``to()``, the refusals."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().cpu().numpy()


LAZY = {
    "linear": (lambda L: L.nn.LazyLinear(4), (5, 3)),
    "linear without bias, 3-D input": (lambda L: L.nn.LazyLinear(2, bias=False), (2, 5, 3)),
    "conv1d": (lambda L: L.nn.LazyConv1d(4, 3, padding=1), (2, 3, 7)),
    "conv2d grouped": (lambda L: L.nn.LazyConv2d(4, 3, groups=2, stride=2), (2, 6, 7, 7)),
    "conv2d unbatched": (lambda L: L.nn.LazyConv2d(3, 2), (2, 5, 5)),
    "conv transposed 1d": (lambda L: L.nn.LazyConvTranspose1d(4, 3, stride=2, output_padding=1), (2, 3, 5)),
    "conv transposed 2d": (lambda L: L.nn.LazyConvTranspose2d(2, 3, groups=2), (2, 4, 5, 5)),
    "batch norm 1d": (lambda L: L.nn.LazyBatchNorm1d(), (6, 3)),
    "batch norm 2d": (lambda L: L.nn.LazyBatchNorm2d(momentum=0.3), (4, 3, 5, 5)),
    "batch norm 3d": (lambda L: L.nn.LazyBatchNorm3d(affine=False), (2, 3, 2, 3, 4)),
    "instance norm 1d": (lambda L: L.nn.LazyInstanceNorm1d(affine=True, track_running_stats=True), (2, 3, 6)),
    "instance norm 2d": (lambda L: L.nn.LazyInstanceNorm2d(affine=False, track_running_stats=False), (2, 3, 4, 4)),
    "instance norm 3d": (lambda L: L.nn.LazyInstanceNorm3d(), (2, 3, 2, 3, 3)),
}


@pytest.mark.parametrize("name", list(LAZY))
def test_a_lazy_layer_becomes_pytorch_s_layer_at_its_first_call(name):
    make, shape = LAZY[name]
    x = np.random.default_rng(0).standard_normal(shape)
    got = []
    for L in (torch, mg):
        L.manual_seed(0)
        layer = make(L)
        before = (repr(layer), [(n, repr(p)) for n, p in layer.named_parameters()],
                  [(n, repr(b)) for n, b in layer.named_buffers()], layer.has_uninitialized_params())
        out = layer(L.tensor(x, dtype=L.float32))
        after = (repr(layer), type(layer).__name__, [(n, tuple(p.shape)) for n, p in layer.named_parameters()],
                 len(layer._forward_pre_hooks), hasattr(layer, "_initialize_hook"))
        got.append((before, after, _np(out), [_np(t) for t in layer.state_dict().values()], L.rand(1).item()))
    (tb, ta, to, ts, tr), (mb, ma, mo, ms, mr) = got
    assert mb == tb and ma == ta
    np.testing.assert_allclose(mo, to, rtol=1e-5, atol=1e-6)
    for a, b in zip(ms, ts):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert mr == tr  # the same draws taken from the generator


def test_an_unbatched_lazy_instance_norm_takes_its_channels_from_dim_0():
    """PyTorch 2.13's lazy instance norms read the channels of an unbatched input at dim 1 and then refuse
    the input their eager class accepts; minigrad's read them at dim 0, where the eager class does."""
    with pytest.raises(ValueError, match="expected input's size at dim=0 to match num_features"):
        torch.nn.LazyInstanceNorm2d()(torch.randn(3, 4, 4))
    layer = mg.nn.LazyInstanceNorm2d()
    out = layer(mg.randn(3, 4, 4))
    assert repr(layer).startswith("InstanceNorm2d(3,") and tuple(out.shape) == (3, 4, 4)


def test_a_lazy_model_trains_with_an_optimizer_made_before_its_first_call():
    got = []
    for L in (torch, mg):
        L.manual_seed(0)
        net = L.nn.Sequential(L.nn.LazyConv2d(4, 3), L.nn.LazyBatchNorm2d(), L.nn.ReLU(), L.nn.Flatten(),
                              L.nn.LazyLinear(3))
        opt = L.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        x, y = L.randn(8, 2, 6, 6), L.randint(0, 3, (8,))
        losses = []
        for _ in range(3):
            loss = L.nn.functional.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        got.append((losses, repr(net), sum(p.numel() for p in net.parameters())))
    np.testing.assert_allclose(got[1][0], got[0][0], rtol=1e-5)
    assert got[1][1:] == got[0][1:]


def test_state_dicts_of_lazy_layers_as_torch_s():
    got = []
    for L in (torch, mg):
        L.manual_seed(0)
        lazy = L.nn.LazyLinear(3)
        keys = [(k, repr(v)) for k, v in lazy.state_dict().items()]
        result = repr(lazy.load_state_dict(L.nn.Linear(5, 3).state_dict()))
        loaded = (type(lazy).__name__, tuple(lazy.weight.shape), repr(lazy))  # materialized, still lazy in name
        lazy(L.ones(2, 5))
        fresh = L.nn.Linear(5, 3)
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
            fresh.load_state_dict(L.nn.LazyLinear(3).state_dict())
        got.append((keys, result, loaded, type(lazy).__name__))
    assert got[1] == got[0]


def test_to_and_deepcopy_before_the_first_call():
    got = []
    for L in (torch, mg):
        L.manual_seed(0)
        layer = L.nn.LazyLinear(2).to(L.float64)
        twin = copy.deepcopy(layer)
        out = layer(L.ones(1, 3, dtype=L.float64))
        got.append((str(layer.weight.dtype).split(".")[-1], str(out.dtype).split(".")[-1], type(twin).__name__,
                    repr(twin.weight), twin.weight is not layer.weight))
    assert got[1] == got[0]


def test_an_uninitialized_parameter_refuses_as_torch_s():
    for L in (torch, mg):
        w = L.nn.parameter.UninitializedParameter()
        assert repr(w) == "<UninitializedParameter>" and w.requires_grad
        assert L.nn.parameter.is_lazy(w) and not L.nn.parameter.is_lazy(L.nn.Parameter(L.ones(1)))
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter or buffer"):
            w.shape
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
            w.numel()
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
            w + 1
        buf = L.nn.parameter.UninitializedBuffer()
        assert repr(buf) == "<UninitializedBuffer>" and not buf.requires_grad
        buf.materialize((2, 2))
        assert type(buf).__name__ == "Tensor" and tuple(buf.shape) == (2, 2)
        w.materialize(3, dtype=L.float64)
        assert type(w).__name__ == "Parameter" and tuple(w.shape) == (3,) and w.dtype == L.float64



def test_a_lazy_model_records_its_parameters_once_they_have_shapes():
    """Made and called while recording: an uninitialized parameter is not announced (it has no shape); its
    first call's materialization announces it, by its module name and with its shape."""
    with mg.trace() as tr:
        net = mg.nn.Sequential(mg.nn.LazyLinear(4), mg.nn.ReLU(), mg.nn.LazyLinear(1))
        net(mg.ones(2, 3)).sum().backward()
    made = {e.name: e.shape for e in tr.events if e.kind == "tensor.create"}
    assert made["0.weight"] == [4, 3] and made["0.bias"] == [4] and made["2.weight"] == [1, 4]
    assert not [e for e in tr.events if e.kind == "error"]
