"""``mg.func`` against ``torch.func``: ``vmap``, ``grad`` of containers, ``vjp``, ``jvp``, ``linearize``,
``jacrev``, ``jacfwd``, ``hessian``, ``functional_call`` and ``stack_module_state`` - values, gradients,
what reaches the caller's own graph, random draws under ``randomness=``, and PyTorch's words for a misuse.
Each program is written once with ``T`` bound to either library."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(11)
A34, B34, C24 = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4)), RNG.standard_normal((2, 4))
M45, V3 = RNG.standard_normal((4, 5)), RNG.standard_normal(3)
X64, X534, X523, X384 = (RNG.standard_normal(s) for s in ((6, 4), (5, 3, 4), (5, 2, 3), (3, 8, 4)))


def _np(x: Any) -> Any:
    if isinstance(x, (tuple, list)):
        return type(x)(_np(v) for v in x)
    if isinstance(x, dict):
        return {k: _np(v) for k, v in x.items()}
    return x.detach().numpy() if hasattr(x, "detach") else x


def _same(got: Any, want: Any, exact: bool = True, what: str = "") -> None:
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), what
        for g, w in zip(got, want):
            _same(g, w, exact, what)
    elif isinstance(want, dict):
        assert list(got) == list(want), what
        for k in want:
            _same(got[k], want[k], exact, f"{what}[{k}]")
    else:
        g, w = _np(got), _np(want)
        assert g.shape == w.shape and g.dtype == w.dtype, (what, g.shape, w.shape, g.dtype, w.dtype)
        if exact:
            np.testing.assert_array_equal(g, w, err_msg=what)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6, err_msg=what)


def _both(program: Callable[[Any], Any], exact: bool = True) -> None:
    _same(program(mg), program(torch), exact, program.__name__)


def _raises_as_pytorch(program: Callable[[Any], Any]) -> None:
    with pytest.raises(Exception) as want:
        program(torch)
    with pytest.raises(Exception) as got:
        program(mg)
    assert isinstance(got.value, type(want.value)), (got.value, want.value)
    assert str(got.value).replace("minigrad", "torch") == str(want.value)


def _t(T: Any, a: np.ndarray, **kw: Any) -> Any:
    return T.tensor(a, dtype=T.float64, **kw)


# -- vmap: values --------------------------------------------------------------------------------

VMAP_PROGRAMS: dict[str, Callable[[Any], Any]] = {
    "unary": lambda T: T.func.vmap(T.sin)(_t(T, A34)),
    "binary": lambda T: T.func.vmap(T.mul)(_t(T, A34), _t(T, B34)),
    "dot-per-row": lambda T: T.func.vmap(T.dot)(_t(T, A34), _t(T, B34)),
    "in-dims-none": lambda T: T.func.vmap(T.mv, in_dims=(None, 0))(_t(T, M45.T), _t(T, X64)),
    "in-dim-1": lambda T: T.func.vmap(lambda r: r.sum(), in_dims=1)(_t(T, A34)),
    "negative-dims": lambda T: T.func.vmap(T.cumsum, in_dims=(-1, None), out_dims=-1)(_t(T, A34), 0),
    "out-dim-1": lambda T: T.func.vmap(lambda r: T.outer(r, r), out_dims=1)(_t(T, A34)),
    "tuple-out": lambda T: T.func.vmap(lambda r: (r.max(), r.argmax()))(_t(T, A34)),
    "dict-in-list-out": lambda T: T.func.vmap(lambda d: [d["a"] * d["b"], d["a"]])({"a": _t(T, A34), "b": _t(T, B34)}),
    "nested-in-dims": lambda T: T.func.vmap(lambda p, x: p[0] * x + p[1], in_dims=((0, None), 0))(
        (_t(T, V3), _t(T, C24)), _t(T, A34)),
    "out-dims-per-output": lambda T: T.func.vmap(lambda r: (r, r * 2), out_dims=(0, 1))(_t(T, A34)),
    "unmapped-output": lambda T: T.func.vmap(lambda r: (r + 1, T.ones(2, dtype=T.float64)))(_t(T, A34)),
    "out-dims-none": lambda T: T.func.vmap(lambda r, y: (r * 2, y), in_dims=(0, None), out_dims=(0, None))(
        _t(T, A34), _t(T, C24)),
    "nested-vmap": lambda T: T.func.vmap(T.func.vmap(lambda a, b: a * b, in_dims=(0, None)), in_dims=(None, 0))(
        _t(T, V3), _t(T, A34[:2, :3])),
    "kwargs-unmapped": lambda T: T.func.vmap(lambda r, scale=1.0: r * scale)(_t(T, A34), scale=3.0),
    "matmul-batch": lambda T: T.func.vmap(T.matmul)(_t(T, X523), _t(T, X534)),
    "softmax-rows": lambda T: T.func.vmap(lambda r: T.softmax(r, 0))(_t(T, A34)),
    "empty-batch": lambda T: T.func.vmap(lambda r: r.sum(0, keepdim=True) * 2)(T.ones(0, 3, dtype=T.float64)),
    "int-input": lambda T: T.func.vmap(lambda r: r * 2)(T.arange(6).reshape(2, 3)),
    "vmap-at-top": lambda T: T.vmap(T.sin)(_t(T, A34)),
}


#: Batched reductions and products sum in PyTorch's batched kernels' order: the last bit may differ.
REDUCING = {"dot-per-row", "in-dims-none", "in-dim-1", "matmul-batch", "softmax-rows"}


@pytest.mark.parametrize("name", list(VMAP_PROGRAMS))
def test_vmap_gives_pytorchs_values(name: str) -> None:
    program = VMAP_PROGRAMS[name]
    program.__name__ = name
    _both(program, exact=name not in REDUCING)


def test_vmap_of_a_layer_over_a_batch_equals_the_layer() -> None:
    mg.manual_seed(0)
    lin = mg.nn.Linear(4, 3, dtype=mg.float64)
    x = _t(mg, A34)
    _same(mg.func.vmap(lin)(x), lin(x), exact=False)


def test_gradients_flow_through_vmap_to_the_callers_inputs() -> None:
    def program(T: Any) -> Any:
        x, w = _t(T, A34, requires_grad=True), _t(T, RNG.standard_normal(4) * 0 + np.arange(4), requires_grad=True)
        y = T.func.vmap(lambda r: (r * w).tanh().sum())(x)
        (y ** 2).sum().backward()
        return y, x.grad, w.grad

    _both(program, exact=False)


# -- vmap: randomness ----------------------------------------------------------------------------

def test_randomness_same_draws_once_for_every_sample_as_pytorch() -> None:
    def program(T: Any) -> Any:
        T.manual_seed(5)
        out = T.func.vmap(lambda r: r + T.rand(4, dtype=T.float64), randomness="same")(_t(T, A34))
        return out, T.rand(3)  # the generator is where PyTorch's is after one draw

    _both(program)


def test_randomness_different_draws_per_sample() -> None:
    mg.manual_seed(5)
    out = mg.func.vmap(lambda r: r + mg.rand(4, dtype=mg.float64), randomness="different")(mg.zeros(3, 4, dtype=mg.float64))
    rows = out.numpy()
    assert not np.array_equal(rows[0], rows[1]) and not np.array_equal(rows[1], rows[2])


def test_dropout_in_a_mapped_function_is_refused_by_default() -> None:
    _raises_as_pytorch(lambda T: T.func.vmap(lambda r: T.nn.functional.dropout(r, 0.5))(_t(T, A34)))
    # and the refusal leaves the generator ready for the next vmap
    assert mg.func.vmap(mg.sin)(_t(mg, A34)).shape == (3, 4)
    mg.rand(2)


# -- vmap: misuse, in PyTorch's words ------------------------------------------------------------

VMAP_MISUSE: dict[str, Callable[[Any], Any]] = {
    "sizes": lambda T: T.func.vmap(T.add)(_t(T, A34), _t(T, C24)),
    "non-tensor-mapped": lambda T: T.func.vmap(lambda a, b: a * b, in_dims=(0, 0))(_t(T, A34), 3),
    "in-dims-none": lambda T: T.func.vmap(T.sin, in_dims=None)(_t(T, A34)),
    "nothing-mapped": lambda T: T.func.vmap(T.sin, in_dims=(None,))(_t(T, A34)),
    "returns-int": lambda T: T.func.vmap(lambda a: 3)(_t(T, A34)),
    "returns-none": lambda T: T.func.vmap(lambda a: None)(_t(T, A34)),
    "mapped-with-out-dims-none": lambda T: T.func.vmap(T.sin, out_dims=None)(_t(T, A34)),
    "random": lambda T: T.func.vmap(lambda a: a + T.rand(4))(_t(T, A34)),
    "randomness-name": lambda T: T.func.vmap(T.sin, randomness="x")(_t(T, A34)),
    "chunk-size": lambda T: T.func.vmap(T.sin, chunk_size=0)(_t(T, A34)),
    "in-dim-range": lambda T: T.func.vmap(T.sin, in_dims=2)(_t(T, A34)),
    "in-dims-structure": lambda T: T.func.vmap(T.add, in_dims=(0,))(_t(T, A34), _t(T, A34)),
    "in-dims-type": lambda T: T.func.vmap(T.sin, in_dims="a")(_t(T, A34)),
    "in-dim-float": lambda T: T.func.vmap(lambda x: x, in_dims=(1.5,))(_t(T, A34)),
    "no-inputs": lambda T: T.func.vmap(lambda: 1)(),
    "0-d-input": lambda T: T.func.vmap(T.sin)(T.tensor(1.0)),
    "out-dims-structure": lambda T: T.func.vmap(lambda x: (x, x), out_dims=(0, 0, 0))(_t(T, A34)),
    "out-dims-type": lambda T: T.func.vmap(lambda x: x, out_dims="a")(_t(T, A34)),
    "out-dim-range": lambda T: T.func.vmap(T.sin, out_dims=3)(_t(T, A34)),
}


@pytest.mark.parametrize("name", list(VMAP_MISUSE))
def test_vmap_refuses_misuse_in_pytorchs_words(name: str) -> None:
    _raises_as_pytorch(VMAP_MISUSE[name])


# -- grad, vjp, jvp, linearize -------------------------------------------------------------------

def _loss(T: Any) -> Callable[..., Any]:
    def loss(params: dict[str, Any], x: Any, y: Any) -> Any:
        h = T.tanh(x @ params["w1"] + params["b1"])
        return ((h @ params["w2"]).squeeze(-1) - y).pow(2).mean()
    return loss


P = {"w1": RNG.standard_normal((4, 5)), "b1": RNG.standard_normal(5), "w2": RNG.standard_normal((5, 1))}
X84, Y8 = RNG.standard_normal((8, 4)), RNG.standard_normal(8)


def _params(T: Any, requires_grad: bool = False) -> dict[str, Any]:
    return {k: _t(T, v, requires_grad=requires_grad) for k, v in P.items()}


GRAD_PROGRAMS: dict[str, Callable[[Any], Any]] = {
    "grad-of-dict": lambda T: T.func.grad(_loss(T))(_params(T), _t(T, X84), _t(T, Y8)),
    "grad-and-value-tuple-argnums": lambda T: T.func.grad_and_value(_loss(T), argnums=(0, 1))(
        _params(T), _t(T, X84), _t(T, Y8)),
    "per-sample-grads": lambda T: T.func.vmap(T.func.grad(lambda p, x, y: _loss(T)(p, x[None], y[None])),
                                              in_dims=(None, 0, 0))(_params(T), _t(T, X84), _t(T, Y8)),
    "grad-of-grad": lambda T: T.func.grad(T.func.grad(lambda t: (t ** 3).sin()))(T.tensor(0.7, dtype=T.float64)),
    "grad-has-aux": lambda T: T.func.grad(lambda t: ((t ** 2).sum(), {"n": t.norm()}), has_aux=True)(_t(T, V3)),
    "vjp": lambda T: (lambda out, fn: (out, fn(_t(T, B34))))(*T.func.vjp(lambda a: a.sin() * a, _t(T, A34))),
    "vjp-two-primals": lambda T: (lambda out, fn: (out, fn((_t(T, A34), _t(T, B34)))))(
        *T.func.vjp(lambda a, b: (a * b, a - b), _t(T, A34), _t(T, B34))),
    "jvp": lambda T: T.func.jvp(lambda a, b: (a * b).sin(), (_t(T, A34), _t(T, B34)), (_t(T, B34), _t(T, A34))),
    "jvp-dict": lambda T: T.func.jvp(lambda p: p["w1"].exp().sum(0), (_params(T),),
                                     ({k: T.ones_like(v) for k, v in _params(T).items()},)),
    "jvp-unused-input": lambda T: T.func.jvp(lambda a, b: a * 2, (_t(T, V3), _t(T, V3)), (_t(T, V3), _t(T, V3))),
    "linearize": lambda T: (lambda out, fn: (out, fn(_t(T, B34)), fn(_t(T, A34))))(
        *T.func.linearize(lambda a: a.sin().cumsum(1), _t(T, A34))),
}


@pytest.mark.parametrize("name", list(GRAD_PROGRAMS))
def test_grad_vjp_jvp_give_pytorchs_values(name: str) -> None:
    program = GRAD_PROGRAMS[name]
    program.__name__ = name
    _both(program, exact=False)


def test_grad_keeps_the_graph_only_where_the_caller_looks() -> None:
    for T in (mg, torch):
        g = T.func.grad(lambda t: (t ** 3).sum())(_t(T, V3))
        assert g.grad_fn is None and not g.requires_grad
    # a parameter that requires grad: the gradient is differentiable again, as in PyTorch
    def program(T: Any) -> Any:
        w = _t(T, V3, requires_grad=True)
        g = T.func.grad(lambda t: (t ** 3).sum())(w)
        g.sum().backward()
        return g, w.grad

    _both(program, exact=False)


JAC_PROGRAMS: dict[str, Callable[[Any], Any]] = {
    "jacrev": lambda T: T.func.jacrev(T.sin)(_t(T, A34)),
    "jacrev-matmul": lambda T: T.func.jacrev(lambda a: a @ _t(T, M45))(_t(T, A34)),
    "jacrev-argnums": lambda T: T.func.jacrev(T.mul, argnums=(0, 1))(_t(T, V3), _t(T, V3 * 2)),
    "jacrev-dict-and-tuple-out": lambda T: T.func.jacrev(lambda p: (p["b1"].exp(), p["w2"].sum()))(_params(T)),
    "jacrev-has-aux": lambda T: T.func.jacrev(lambda a: (a.sin(), a.cos()), has_aux=True)(_t(T, V3)),
    "jacrev-unused": lambda T: T.func.jacrev(lambda a, b: a * 3, argnums=1)(_t(T, V3), _t(T, V3)),
    "jacfwd": lambda T: T.func.jacfwd(lambda a: a.softmax(0))(_t(T, V3)),
    "jacfwd-argnums": lambda T: T.func.jacfwd(lambda a, b: a @ b, argnums=(0, 1))(_t(T, A34), _t(T, M45)),
    "hessian": lambda T: T.func.hessian(lambda a: (a.sin() * a ** 2).sum())(_t(T, V3)),
    "hessian-argnums": lambda T: T.func.hessian(lambda a, b: (a * b.exp()).sum(), argnums=(0, 1))(
        _t(T, V3), _t(T, V3 / 2)),
    "jacrev-of-jacrev": lambda T: T.func.jacrev(T.func.jacrev(lambda a: a.tanh().prod()))(_t(T, V3)),
    "vmap-of-jacrev": lambda T: T.func.vmap(T.func.jacrev(lambda r: r.sin() * r.sum()))(_t(T, A34)),
}


@pytest.mark.parametrize("name", list(JAC_PROGRAMS))
def test_jacobians_and_hessians_give_pytorchs_values(name: str) -> None:
    program = JAC_PROGRAMS[name]
    program.__name__ = name
    _both(program, exact=False)


def test_elementwise_jacobian_keeps_pytorchs_signed_zeros() -> None:
    """The off-diagonal entries of ``jacrev(sin)`` are 0 * cos(x): -0.0 where cos is negative, in both."""
    def program(T: Any) -> Any:
        return T.func.jacrev(T.sin)(_t(T, np.array([0.5, 2.5, -3.0])))

    got, want = _np(program(mg)), _np(program(torch))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


TRANSFORM_MISUSE: dict[str, Callable[[Any], Any]] = {
    "grad-of-int-tensor": lambda T: T.func.grad(lambda x: x.sum())(T.arange(3)),
    "grad-of-float": lambda T: T.func.grad(lambda x: x.sum())(3.0),
    "argnums-twice": lambda T: T.func.grad(lambda x, y: x.sum(), argnums=(0, 0))(_t(T, V3), _t(T, V3)),
    "vjp-cotangent-structure": lambda T: T.func.vjp(T.sin, _t(T, V3))[1]((_t(T, V3),)),
    "vjp-cotangent-shape": lambda T: T.func.vjp(T.sin, _t(T, V3))[1](T.ones(2, dtype=T.float64)),
    "jvp-structure": lambda T: T.func.jvp(T.sin, (_t(T, V3),), [_t(T, V3)]),
    "jvp-shape": lambda T: T.func.jvp(T.sin, (_t(T, V3),), (T.ones(2, dtype=T.float64),)),
    "jvp-non-tensor": lambda T: T.func.jvp(T.sin, (3.0,), (1.0,)),
    "jvp-primals-not-tuple": lambda T: T.func.jvp(T.sin, _t(T, V3), _t(T, V3)),
    "jacrev-int-output": lambda T: T.func.jacrev(lambda x: x.long())(_t(T, V3)),
    "jacrev-none-output": lambda T: T.func.jacrev(lambda x: None)(_t(T, V3)),
    "jacrev-non-tensor": lambda T: T.func.jacrev(T.sin)(3),
    "jacfwd-random": lambda T: T.func.jacfwd(lambda x: x * T.rand(3, dtype=T.float64))(_t(T, V3)),
    "grad-of-vector": lambda T: T.func.grad(T.sin)(_t(T, V3)),
}


@pytest.mark.parametrize("name", list(TRANSFORM_MISUSE))
def test_transforms_refuse_misuse_in_pytorchs_words(name: str) -> None:
    _raises_as_pytorch(TRANSFORM_MISUSE[name])


# -- modules as functions ------------------------------------------------------------------------

class _Net:
    """A small model with a buffer and a tied weight, built the same way in both libraries."""

    @staticmethod
    def build(T: Any) -> Any:
        T.manual_seed(3)

        class Net(T.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.emb = T.nn.Embedding(6, 4)
                self.fc = T.nn.Linear(4, 6, bias=False)
                self.fc.weight = self.emb.weight  # tied, as a language model's head
                self.register_buffer("scale", T.tensor(2.0))

            def forward(self, idx: Any) -> Any:
                return self.fc(self.emb(idx) * self.scale)

        return Net().double()


def test_functional_call_swaps_in_tensors_and_puts_the_originals_back() -> None:
    def program(T: Any) -> Any:
        net = _Net.build(T)
        idx = T.tensor([0, 3, 5])
        new = {"emb.weight": T.ones(6, 4, dtype=T.float64) * 0.5, "scale": T.tensor(3.0)}
        out = T.func.functional_call(net, new, (idx,))  # the tied head takes the new weight too
        out2 = T.func.functional_call(net, ({"emb.weight": new["emb.weight"]}, {"scale": new["scale"]}), idx)
        return out, out2, net(idx), net.scale, sorted(n for n, _ in net.named_parameters())

    m, t = program(mg), program(torch)
    _same(m[:4], t[:4], exact=False)
    assert m[4] == t[4]


def test_functional_call_restores_the_module_when_the_call_raises() -> None:
    net = _Net.build(mg)
    w = net.emb.weight
    with pytest.raises(IndexError):
        mg.func.functional_call(net, {"emb.weight": mg.ones(2, 4, dtype=mg.float64)}, (mg.tensor([5]),))
    assert net.emb.weight is w and net.emb._parameters["weight"] is w and net.fc.weight is w


FUNCTIONAL_CALL_MISUSE: dict[str, Callable[[Any], Any]] = {
    "strict": lambda T: T.func.functional_call(_Net.build(T), {"scale": T.tensor(1.0), "other": T.tensor(1.0)},
                                               (T.tensor([1]),), strict=True),
    "tied-twice": lambda T: T.func.functional_call(_Net.build(T), {"emb.weight": T.ones(6, 4), "fc.weight": T.zeros(6, 4)},
                                                   (T.tensor([1]),)),
    "repeated-key": lambda T: T.func.functional_call(_Net.build(T), ({"scale": T.tensor(1.0)}, {"scale": T.tensor(1.0)}),
                                                     (T.tensor([1]),)),
    "not-a-dict": lambda T: T.func.functional_call(_Net.build(T), 3, (T.tensor([1]),)),
}


@pytest.mark.parametrize("name", list(FUNCTIONAL_CALL_MISUSE))
def test_functional_call_refuses_in_pytorchs_words(name: str) -> None:
    _raises_as_pytorch(FUNCTIONAL_CALL_MISUSE[name])


def test_the_deprecated_stateless_functional_call_warns_as_pytorch() -> None:
    for T in (torch, mg):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            T.nn.utils.stateless.functional_call(T.nn.Linear(2, 1), {}, (T.ones(2),))
        assert [str(w.message) for w in caught if w.category is FutureWarning][0].startswith(
            "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0")


def test_an_ensemble_through_stack_module_state_and_vmap_as_pytorch() -> None:
    """PyTorch's model-ensembling recipe: stacked parameters, a functional model, vmap over models."""
    def program(T: Any) -> Any:
        T.manual_seed(0)
        models = [T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 2)).double() for _ in range(3)]
        params, buffers = T.func.stack_module_state(models)
        base = models[0]

        def fmodel(p: Any, b: Any, x: Any) -> Any:
            return T.func.functional_call(base, (p, b), (x,))

        x = _t(T, X84)
        same_batch = T.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
        own_batches = T.func.vmap(fmodel)(params, buffers, _t(T, X384))
        loss = same_batch.pow(2).sum()
        loss.backward()
        return same_batch, own_batches, params["0.weight"].grad, sorted(params), params["2.bias"].is_leaf

    m, t = program(mg), program(torch)
    _same(m[:3], t[:3], exact=False)
    assert m[3:] == t[3:]


def test_per_sample_gradients_of_a_model_as_pytorchs_recipe() -> None:
    """PyTorch's per-sample-gradients recipe on a small classifier: each sample's gradient equals the
    gradient of that sample's loss alone."""
    def program(T: Any) -> Any:
        T.manual_seed(1)
        model = T.nn.Sequential(T.nn.Linear(4, 6), T.nn.Tanh(), T.nn.Linear(6, 3)).double()
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def compute_loss(p: Any, b: Any, sample: Any, target: Any) -> Any:
            out = T.func.functional_call(model, (p, b), (sample.unsqueeze(0),))
            return T.nn.functional.cross_entropy(out, target.unsqueeze(0))

        x, y = _t(T, X84), T.tensor([0, 1, 2, 0, 1, 2, 0, 1])
        per_sample = T.func.vmap(T.func.grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, x, y)
        one = T.func.grad(compute_loss)(params, buffers, x[3], y[3])
        return per_sample, one

    m, t = program(mg), program(torch)
    _same(m, t, exact=False)
    for k in m[1]:
        np.testing.assert_allclose(m[0][k].numpy()[3], m[1][k].numpy(), rtol=1e-12)


def test_stack_module_state_refuses_as_pytorch() -> None:
    _raises_as_pytorch(lambda T: T.func.stack_module_state([]))
    _raises_as_pytorch(lambda T: T.func.stack_module_state([T.nn.Linear(2, 2), T.nn.Linear(2, 2).eval()]))
    _raises_as_pytorch(lambda T: T.func.stack_module_state([T.nn.Linear(2, 2), T.nn.Conv1d(2, 2, 1)]))


def test_replace_all_batch_norm_modules_drops_the_running_statistics() -> None:
    def program(T: Any) -> Any:
        net = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4))
        T.func.replace_all_batch_norm_modules_(net)
        bn = net[1]
        return bn.running_mean, bn.running_var, bn.num_batches_tracked, bn.track_running_stats

    assert program(mg) == program(torch) == (None, None, None, False)


def test_func_namespace_lists_pytorchs_transforms() -> None:
    names = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian", "vmap",
             "functional_call", "stack_module_state", "replace_all_batch_norm_modules_", "debug_unwrap"]
    for n in names:
        assert hasattr(torch.func, n) and hasattr(mg.func, n), n
    assert mg.vmap is mg.func.vmap
    x = mg.ones(2)
    assert mg.func.debug_unwrap(x) is x


def test_pytree_spec_prints_as_pytorchs() -> None:
    from torch.utils import _pytree as tpt

    from minigrad import _pytree as mpt

    tree = (1, {"a": [2, 3], "b": None}, [4])
    assert repr(mpt.tree_flatten(tree)[1]) == repr(tpt.tree_flatten(tree)[1])
    assert mpt.tree_flatten(tree)[1].pprint() == tpt.treespec_pprint(tpt.tree_flatten(tree)[1])
    leaves, spec = mpt.tree_flatten(tree)
    assert leaves == tpt.tree_flatten(tree)[0] == [1, 2, 3, None, 4] and mpt.tree_unflatten(leaves, spec) == tree

