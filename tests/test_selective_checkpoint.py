"""Selective activation checkpointing against PyTorch: ``create_selective_checkpoint_contexts`` with a list of ops
or a policy, the names the policy is handed (``mg.ops.aten``), the gradients, the refusals, and the events of a
recomputation that skips the kept calls."""

from __future__ import annotations

import functools
from collections import Counter

import numpy as np
import pytest

import minigrad as mg
import minigrad.utils.checkpoint  # noqa: F401  (mg.utils.checkpoint)

torch = pytest.importorskip("torch")
import torch.utils.checkpoint  # noqa: E402,F401
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

RNG = np.random.default_rng(7)
X, W, W2 = RNG.standard_normal((6, 4)), RNG.standard_normal((4, 4)), RNG.standard_normal((5, 4))


def _block(lib, x, w, w2):
    F = lib.nn.functional
    h = F.gelu(x @ w)
    a = F.linear(h, w2).softmax(-1)
    return (a @ w2 * 0.5 + 1.0).tanh().sum(-1)


def _policies(lib):
    CP, aten = lib.utils.checkpoint.CheckpointPolicy, lib.ops.aten
    return {
        "the matrix products": [aten.mm.default, aten.addmm.default],
        "a policy function": lambda ctx, op, *a, **k: (CP.MUST_SAVE if op in (aten.mm.default, aten._softmax.default)
                                                       else CP.PREFER_RECOMPUTE),
        "a bool policy": lambda ctx, op, *a, **k: op == aten.gelu.default,
        "everything": lambda ctx, op, *a, **k: CP.PREFER_SAVE,
        "nothing": lambda ctx, op, *a, **k: CP.MUST_RECOMPUTE,
        "offload (recomputed in eager)": lambda ctx, op, *a, **k: CP.MUST_CPU_OFFLOAD,
    }


def _grads(lib, policy_name):
    x, w, w2 = (lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in (X, W, W2))
    context_fn = functools.partial(lib.utils.checkpoint.create_selective_checkpoint_contexts,
                                   _policies(lib)[policy_name])
    y = lib.utils.checkpoint.checkpoint(_block, lib, x, w, w2, use_reentrant=False, context_fn=context_fn)
    (y * y).sum().backward()
    return y.detach().numpy(), x.grad.numpy(), w.grad.numpy(), w2.grad.numpy()


@pytest.mark.parametrize("policy", list(_policies(mg)))
def test_values_and_gradients_equal_pytorchs(policy):
    for got, want in zip(_grads(mg, policy), _grads(torch, policy)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


class _Log(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


PROGRAMS = {
    "x @ w": lambda L, x, w: x @ w,
    "a batch of products": lambda L, x, w: L.stack([x, x]).transpose(1, 2) @ L.stack([x, x]),
    "linear": lambda L, x, w: L.nn.functional.linear(x, w),
    "linear with a bias": lambda L, x, w: L.nn.functional.linear(x, w, w.sum(0)),
    "a transformer's pieces": lambda L, x, w: L.nn.functional.layer_norm(
        (x.softmax(-1) + x.log_softmax(-1)) * 2.0 - x / 3.0, (4,)).sum(0).mean(),
    "attention": lambda L, x, w: L.nn.functional.scaled_dot_product_attention(
        x.view(1, 2, 3, 4), x.view(1, 2, 3, 4), x.view(1, 2, 3, 4), is_causal=True),
    "activations": lambda L, x, w: L.nn.functional.gelu(x, approximate="tanh") + x.relu() ** 2 + L.nn.functional.silu(x),
    "reductions": lambda L, x, w: x.sum(0) + x.mean(0) + x.max(),
    "a loss": lambda L, x, w: L.nn.functional.cross_entropy(x, L.tensor([0, 1, 2, 3, 0, 1])),
    "casts and joins": lambda L, x, w: L.cat([x, x.double().float()]).transpose(0, 1),
}
_NOT_CALLS = {"aten.detach.default", "aten.lift_fresh.default", "aten.ones.default"}  # made outside the kernels


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_the_policy_is_handed_pytorchs_names_for_the_calls(program):
    """Each program's calls, as the policy sees them in both frameworks (counted per name: PyTorch's
    dispatcher and minigrad's kernels may order two different ops' calls differently)."""
    seen = {}
    for lib in (mg, torch):
        names = []

        def policy(ctx, op, *args, **kwargs):
            names.append(str(op))
            return False

        x, w = lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)
        context_fn = functools.partial(lib.utils.checkpoint.create_selective_checkpoint_contexts, policy)
        lib.utils.checkpoint.checkpoint(lambda a, b: PROGRAMS[program](lib, a, b), x, w, use_reentrant=False,
                                        context_fn=context_fn)
        seen[lib] = Counter(n for n in names if n not in _NOT_CALLS)
    assert seen[mg] == seen[torch]


def _recomputed(context_fn):
    x, w = mg.tensor(X, requires_grad=True), mg.tensor(W, requires_grad=True)
    with mg.trace() as tr:
        y = mg.utils.checkpoint.checkpoint(lambda a: ((a @ w).sin() @ w).softmax(-1), x, use_reentrant=False,
                                           context_fn=context_fn)
        y.sum().backward()
    inside, forward, recompute = False, [], []
    for e in tr.events:
        if e.kind == "recompute.begin":
            inside = True
        elif e.kind == "recompute.end":
            inside = False
        elif e.kind in ("kernel.launch", "checkpoint.saved"):
            (recompute if inside else forward).append((e.kind, e.op) if e.kind == "kernel.launch" else
                                                      (e.kind, e.aten, e.use, e.bytes))
    return forward, recompute, x.grad.numpy()


def test_a_kept_call_is_not_launched_again_and_its_events_say_so():
    plain_fwd, plain, plain_grad = _recomputed(mg.utils.checkpoint.noop_context_fn)
    sac_fwd, sac, sac_grad = _recomputed(functools.partial(mg.utils.checkpoint.create_selective_checkpoint_contexts,
                                                           [mg.ops.aten.mm.default]))
    assert plain == [("kernel.launch", "matmul"), ("kernel.launch", "sin"), ("kernel.launch", "matmul"),
                     ("kernel.launch", "softmax")]
    kept = ("checkpoint.saved", "aten.mm.default", "reuse", 6 * 4 * 8)
    assert sac == [kept, ("kernel.launch", "sin"), kept, ("kernel.launch", "softmax")]
    assert [e for e in sac_fwd if e[0] == "checkpoint.saved"] == [
        ("checkpoint.saved", "aten.mm.default", "keep", 6 * 4 * 8)] * 2
    assert [e for e in plain_fwd if e[0] == "kernel.launch"] == [e for e in sac_fwd if e[0] == "kernel.launch"]
    np.testing.assert_array_equal(sac_grad, plain_grad)


def _refusal(lib, case):
    cp = lib.utils.checkpoint
    x, w = lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)
    keep_mm = functools.partial(cp.create_selective_checkpoint_contexts, [lib.ops.aten.mm.default])
    try:
        if case == "a second backward":
            loss = cp.checkpoint(lambda a: (a @ w).sin(), x, use_reentrant=False, context_fn=keep_mm).sum()
            loss.backward(retain_graph=True)
            loss.backward()
        elif case == "a kept output changed":
            h, s = cp.checkpoint(lambda a: (a @ w, (a @ w).sin()), x, use_reentrant=False, context_fn=keep_mm)
            with lib.no_grad():
                h.mul_(2)
            s.sum().backward()
        elif case == "a kept output changed, allowed":
            allowing = functools.partial(cp.create_selective_checkpoint_contexts, [lib.ops.aten.mm.default],
                                         allow_cache_entry_mutation=True)
            h, s = cp.checkpoint(lambda a: (a @ w, (a @ w).sin()), x, use_reentrant=False, context_fn=allowing)
            with lib.no_grad():
                h.mul_(2)
            s.sum().backward()
            return x.grad.numpy()
        elif case == "a packet in the list":
            cp.create_selective_checkpoint_contexts([lib.ops.aten.mm])
        elif case == "neither a list nor a function":
            cp.create_selective_checkpoint_contexts(3)
        elif case == "with use_reentrant=True":
            cp.checkpoint(lambda a: a.sin(), x, use_reentrant=True, context_fn=keep_mm)
    except Exception as e:  # noqa: BLE001  (compared with PyTorch's)
        return e
    raise AssertionError(f"{case}: nothing raised")


@pytest.mark.parametrize("case", ["a second backward", "a kept output changed", "a kept output changed, allowed",
                                  "a packet in the list", "neither a list nor a function", "with use_reentrant=True"])
def test_refusals_as_pytorchs(case):
    got, want = _refusal(mg, case), _refusal(torch, case)
    if isinstance(want, Exception):
        assert isinstance(got, type(want)), (got, want)
        assert str(want).replace("torch.ops.aten.mm", "").replace("torch._ops.", "").split(" of type")[0] in \
            str(got).replace("minigrad.ops.aten_names.", "")
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_the_aten_names_are_one_object_each_and_print_as_pytorchs():
    aten = mg.ops.aten
    assert aten.mm.default is aten.mm.default and aten.add.Tensor is not aten.add.default
    ours, theirs = (aten.mm.default, aten.add.Tensor, aten.mm), (torch.ops.aten.mm.default, torch.ops.aten.add.Tensor,
                                                                 torch.ops.aten.mm)
    assert [(repr(o), str(o)) for o in ours] == [(repr(o), str(o)) for o in theirs]
    assert [o.name() for o in ours[:2]] == [o.name() for o in theirs[:2]]
    with pytest.raises(NotImplementedError, match="call the op through its function"):
        aten.mm.default(mg.ones(2, 2), mg.ones(2, 2))
    assert not hasattr(mg, "aten")


def test_the_memory_view_counts_a_kept_output_from_its_keep_to_its_reuse():
    x, w = mg.tensor(X, requires_grad=True), mg.tensor(W, requires_grad=True)

    def saved_bytes(context_fn):
        with mg.trace(values=False) as tr:
            y = mg.utils.checkpoint.checkpoint(lambda a: ((a @ w).tanh() @ w).softmax(-1), x, use_reentrant=False,
                                               context_fn=context_fn)
            y.sum().backward()
        kinds = [e.kind for e in tr.events]
        m = mg.trace.memory(tr.events)
        return m.at(kinds.index("backward.begin")).saved, m.at(kinds.index("recompute.end")).saved

    plain = saved_bytes(mg.utils.checkpoint.noop_context_fn)
    kept = saved_bytes(functools.partial(mg.utils.checkpoint.create_selective_checkpoint_contexts,
                                         [mg.ops.aten.mm.default]))
    assert kept[0] == plain[0] + 2 * (6 * 4 * 8)  # the two products, float64, held when backward begins
    assert kept[1] == plain[1]  # handed back: held no longer
