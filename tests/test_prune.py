"""``mg.nn.utils.prune`` and the Module registration it stands on (``register_parameter``, ``add_module``,
``get_*``, ``del m.name``, ``_forward_pre_hooks``), against PyTorch: the same masks from the same seeds, the
same refusals. The tutorial as a whole program: ``tests/parity/pruning_printed.py``."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
import torch.nn.utils.prune  # noqa: E402  (PyTorch does not import it with torch.nn.utils)


def _both(fn):
    out = []
    for lib in (mg, torch):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001 - compared across the libraries
            out.append((type(e).__name__, str(e).replace("minigrad", "torch")))
    return out


def _lin(L):
    L.manual_seed(0)
    m = L.nn.Linear(3, 2)
    m.register_buffer("buf", L.ones(1))
    return m


REGISTRY = {
    "register_parameter": lambda L: (_lin(L).register_parameter("w2", L.nn.Parameter(L.ones(2))),),
    "register_parameter None": lambda L: (lambda m: (m.register_parameter("w3", None),
                                                     [n for n, _ in m.named_parameters()], list(m.state_dict())))(_lin(L)),
    "register_parameter a.b": lambda L: _lin(L).register_parameter("a.b", None),
    "register_parameter ''": lambda L: _lin(L).register_parameter("", None),
    "register_parameter 1": lambda L: _lin(L).register_parameter(1, None),
    "register_parameter a tensor": lambda L: _lin(L).register_parameter("w4", L.ones(2)),
    "register_parameter training": lambda L: _lin(L).register_parameter("training", None),
    "register_parameter a buffer's name": lambda L: _lin(L).register_parameter("buf", None),
    "add_module": lambda L: (lambda m: (m.add_module("sub", L.nn.ReLU()), list(m._modules), repr(m)))(_lin(L)),
    "add_module None": lambda L: (lambda m: (m.register_module("sub", None), repr(m), len(list(m.modules())),
                                             [n for n, _ in m.named_modules()]))(_lin(L)),
    "add_module 3": lambda L: _lin(L).add_module("sub", 3),
    "add_module a.b": lambda L: _lin(L).add_module("a.b", L.nn.ReLU()),
    "add_module weight": lambda L: _lin(L).add_module("weight", L.nn.ReLU()),
    "add_module ''": lambda L: _lin(L).add_module("", L.nn.ReLU()),
    "add_module 1": lambda L: _lin(L).add_module(1, L.nn.ReLU()),
    "get_submodule": lambda L: repr(L.nn.Sequential(L.nn.Linear(1, 2), L.nn.Sequential(L.nn.ReLU())).get_submodule("1.0")),
    "get_submodule ''": lambda L: type(_lin(L).get_submodule("")).__name__,
    "get_submodule nope": lambda L: _lin(L).get_submodule("nope"),
    "get_submodule weight": lambda L: _lin(L).get_submodule("weight"),
    "get_parameter": lambda L: L.nn.Sequential(_lin(L)).get_parameter("0.weight").tolist(),
    "get_parameter buf": lambda L: _lin(L).get_parameter("buf"),
    "get_buffer": lambda L: L.nn.Sequential(_lin(L)).get_buffer("0.buf").tolist(),
    "get_buffer weight": lambda L: _lin(L).get_buffer("weight"),
    "del a parameter": lambda L: (lambda m: (m.__delattr__("weight"), list(m._parameters), hasattr(m, "weight"),
                                             list(m.state_dict())))(_lin(L)),
    "del a buffer": lambda L: (lambda m: (m.__delattr__("buf"), list(m._buffers), hasattr(m, "buf")))(_lin(L)),
    "del nothing": lambda L: _lin(L).__delattr__("nothing"),
    "forward pre-hooks": lambda L: (lambda m: (len(m._forward_pre_hooks), m.register_forward_pre_hook(lambda *a: None),
                                               len(m._forward_pre_hooks), len(m._forward_hooks))[::2])(_lin(L)),
}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_module_registration_is_torch_s(name):
    got, want = _both(REGISTRY[name])
    assert got == want


def test_deleting_a_forward_pre_hook_by_id_unregisters_it():
    m, calls = mg.nn.Linear(2, 2), []
    m.register_forward_pre_hook(lambda mod, args: calls.append("a"))
    m.register_forward_pre_hook(lambda mod, args: calls.append("b"))
    first = next(iter(m._forward_pre_hooks))
    del m._forward_pre_hooks[first]
    m(mg.ones(1, 2))
    assert calls == ["b"] and len(m._forward_pre_hooks) == 1
    with pytest.raises(KeyError):
        del m._forward_pre_hooks[first]


def _conv(L):
    L.manual_seed(3)
    return L.nn.Conv2d(2, 6, 3)


PRUNINGS = {
    "random_unstructured 0.3": lambda L, P, m: P.random_unstructured(m, "weight", amount=0.3),
    "random_unstructured 7, bias": lambda L, P, m: P.random_unstructured(m, "bias", amount=3),
    "l1_unstructured": lambda L, P, m: P.l1_unstructured(m, "weight", amount=0.5),
    "l1_unstructured importance_scores": lambda L, P, m: P.l1_unstructured(
        m, "weight", amount=10, importance_scores=L.arange(108.0).reshape(6, 2, 3, 3).flip(0)),
    "random_structured dim 0": lambda L, P, m: P.random_structured(m, "weight", amount=2, dim=0),
    "random_structured dim 1": lambda L, P, m: P.random_structured(m, "weight", amount=0.5, dim=1),
    "ln_structured n=2": lambda L, P, m: P.ln_structured(m, "weight", amount=0.5, n=2, dim=0),
    "ln_structured n=1 dim -1": lambda L, P, m: P.ln_structured(m, "weight", amount=1, n=1, dim=-1),
    "ln_structured n=inf": lambda L, P, m: P.ln_structured(m, "weight", amount=3, n=float("inf"), dim=0),
    "identity": lambda L, P, m: P.identity(m, "weight"),
    "custom_from_mask": lambda L, P, m: P.custom_from_mask(m, "bias", mask=L.tensor([1.0, 0, 1, 0, 1, 1])),
    "random then ln": lambda L, P, m: (P.random_unstructured(m, "weight", amount=0.4),
                                       P.ln_structured(m, "weight", amount=2, n=2, dim=0)),
    "ln then l1 then random": lambda L, P, m: (P.ln_structured(m, "weight", amount=2, n=2, dim=0),
                                               P.l1_unstructured(m, "weight", amount=20),
                                               P.random_unstructured(m, "weight", amount=0.25)),
    "l1 then custom": lambda L, P, m: (P.l1_unstructured(m, "bias", amount=2),
                                       P.custom_from_mask(m, "bias", mask=L.tensor([0.0, 1, 1, 1, 1, 1]))),
}


@pytest.mark.parametrize("name", sorted(PRUNINGS))
def test_a_pruning_masks_as_torch_s(name):
    """The same mask (the random ones from the same seed), the masked tensor, the history of methods, and a
    zero gradient at every pruned entry."""
    results = []
    for L in (mg, torch):
        P = L.nn.utils.prune
        m = _conv(L)
        L.manual_seed(11)
        PRUNINGS[name](L, P, m)
        tname = "weight" if "weight_mask" in dict(m.named_buffers()) else "bias"
        mask, pruned = getattr(m, tname + "_mask"), getattr(m, tname)
        hook = [h for h in m._forward_pre_hooks.values() if h._tensor_name == tname][0]
        history = [type(h).__name__ for h in hook] if isinstance(hook, P.PruningContainer) else [type(hook).__name__]
        L.manual_seed(5)
        m(L.randn(1, 2, 5, 5)).sum().backward()
        grad = getattr(m, tname + "_orig").grad
        results.append((mask.numpy().copy(), pruned.detach().numpy().copy(), history, (grad.numpy() * (mask.numpy() == 0)).any(),
                        sorted(n for n, _ in m.named_parameters())))
    (m_mask, m_val, m_hist, m_leak, m_names), (t_mask, t_val, t_hist, t_leak, t_names) = results
    np.testing.assert_array_equal(m_mask, t_mask)
    np.testing.assert_allclose(m_val, t_val, rtol=1e-6)
    assert (m_hist, m_leak, m_names) == (t_hist, t_leak, t_names) and not m_leak


def test_global_pruning_and_remove_as_torch():
    out = []
    for L in (mg, torch):
        P = L.nn.utils.prune
        L.manual_seed(2)
        net = L.nn.Sequential(L.nn.Linear(6, 5), L.nn.ReLU(), L.nn.Linear(5, 3))
        P.l1_unstructured(net[2], "weight", amount=4)  # an earlier mask, which the global one respects
        P.global_unstructured([(net[0], "weight"), (net[2], "weight"), (net[0], "bias")], P.L1Unstructured,
                              amount=0.3)
        masks = [net[0].weight_mask.numpy().copy(), net[2].weight_mask.numpy().copy(), net[0].bias_mask.numpy().copy()]
        P.remove(net[2], "weight")
        out.append((masks, net[2].weight.detach().numpy().copy(), type(net[2].weight).__name__,
                    sorted(n for n, _ in net.named_parameters()), sorted(net.state_dict()), P.is_pruned(net)))
    (mm, mw, *mrest), (tm, tw, *trest) = out
    for a, b in zip(mm, tm):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(mw, tw, rtol=1e-6)
    assert mrest == trest


REFUSALS = {
    "amount 1.5": lambda P, m: P.random_unstructured(m, "weight", amount=1.5),
    "amount -1": lambda P, m: P.l1_unstructured(m, "weight", amount=-1),
    "amount 'all'": lambda P, m: P.random_unstructured(m, "weight", amount="all"),
    "amount too many": lambda P, m: P.l1_unstructured(m, "bias", amount=7),
    "structured 1-D": lambda P, m: P.ln_structured(m, "bias", amount=1, n=2, dim=0),
    "structured dim 4": lambda P, m: P.random_structured(m, "weight", amount=1, dim=4),
    "importance_scores shape": lambda P, m: P.l1_unstructured(m, "weight", amount=1, importance_scores=m.bias),
    "remove unpruned": lambda P, m: P.remove(m, "weight"),
    "global structured": lambda P, m: P.global_unstructured([(m, "weight")], P.LnStructured, amount=1, n=2, dim=0),
    "global not iterable": lambda P, m: P.global_unstructured(3, P.L1Unstructured, amount=1),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_a_bad_pruning_is_refused_as_torch_and_leaves_the_module(name):
    def run(L):
        m = _conv(L)
        try:
            REFUSALS[name](L.nn.utils.prune, m)
            return "no error"
        except Exception as e:  # noqa: BLE001
            msg = str(e).replace("minigrad", "torch")
            return (type(e).__name__, msg.split(" of module ")[0].split(" Found method ")[0],
                    sorted(n for n, _ in m.named_parameters()), sorted(n for n, _ in m.named_buffers()))
    got, want = run(mg), run(torch)
    assert got == want
