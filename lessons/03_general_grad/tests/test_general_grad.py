"""Lesson 3 tests: the depending-nodes map, the needed/startup/ending sets (``general_grad.update``), results.

If minigrad has no GeneralGrad yet (or its source has no lesson 3 markers) the
conftest skips every test and says so.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import minigrad as mg


def general_grad_module():
    return importlib.import_module("minigrad.autograd.general_grad")


def graph():
    """z = sum(exp(h) + sin(h)), h = x * w."""
    x = mg.tensor([0.5, -1.0], requires_grad=True)
    w = mg.tensor([2.0, 0.25], requires_grad=True)
    h = x * w
    y = h.exp()
    z = (y + h.sin()).sum()
    return x, w, h, y, z


def updates(run):
    """Run ``run`` under a trace; the sets of its first general_grad.update (``UpdateGraphInfo``) by node name.

    Copies are named after their originals; a leaf's AccumulationNode is ``Acc(x)`` / ``Acc(w)``.
    """
    with mg.trace(values=False) as tr:
        tensors = graph()
        result = run(*tensors)
    x, w = tensors[0], tensors[1]
    leaves = {}
    names: dict[int, str] = {}
    for e in tr.events:  # first pass: every node's name (copies are created after the update events)
        if e.kind == "tensor.create" and e.is_leaf and e.requires_grad and len(leaves) < 2:
            leaves[e.tensor] = "Acc(x)" if not leaves else "Acc(w)"
    for e in tr.events:
        if e.kind == "node.create" and e.copy_of is None:
            names[e.node] = leaves.get(e.tensor, "Acc(?)") if e.is_accumulation else e.name.split("#")[0]
        elif e.kind == "general_grad.copy":
            for orig, copy in e.mapping.items():
                names[int(copy)] = names.get(int(orig), str(orig))
    out = []
    for e in tr.events:
        if e.kind == "general_grad.update":
            out.append({k: sorted(names.get(i, f"#{i}") for i in getattr(e, k)) for k in ("startup", "ending", "needed")})
            break  # the first one is UpdateGraphInfo's; later ones follow ModifyBackwardGraph
    return out, tensors, result


# -- Task 3.1: the depending-nodes map ------------------------------------------------


@pytest.mark.lesson3_task1
def test_depending_nodes_of_a_diamond():
    x, w, h, y, z = graph()
    gg = general_grad_module().GeneralGrad([x], [], False, False)
    gg.get_graph_info_between_targets([z.grad_fn])
    s = z.grad_fn
    add = s.next_edges[0][0].node
    exp, sin = add.next_edges[0][0].node, add.next_edges[1][0].node
    mul = exp.next_edges[0][0].node
    acc_x, acc_w = mul.next_edges[0][0].node, mul.next_edges[1][0].node
    got = {node: set(preds) for node, preds in gg.depending_nodes.items()}
    assert got == {add: {s}, exp: {add}, sin: {add}, mul: {exp, sin}, acc_x: {mul}, acc_w: {mul}}


@pytest.mark.lesson3_task1
def test_grad_results_use_the_depending_map():
    x, w, h, y, z = graph()
    gx, gw = mg.grad(z, [x, w])
    hv = x.detach().numpy() * w.detach().numpy()
    np.testing.assert_allclose(gx.detach().numpy(), w.detach().numpy() * (np.exp(hv) + np.cos(hv)), rtol=1e-5)
    np.testing.assert_allclose(gw.detach().numpy(), x.detach().numpy() * (np.exp(hv) + np.cos(hv)), rtol=1e-5)
    assert x.grad is None and w.grad is None


# -- Task 3.2: needed / startup / ending --------------------------------------------------


@pytest.mark.lesson3_task2
def test_sets_for_the_leaves():
    (u,), _, _ = updates(lambda x, w, h, y, z: mg.grad(z, [x, w]))
    assert u == {
        "startup": ["SumBackward0"],
        "ending": ["Acc(w)", "Acc(x)"],
        "needed": ["Acc(w)", "Acc(x)", "AddBackward0", "ExpBackward0", "MulBackward0", "SinBackward0", "SumBackward0"],
    }


@pytest.mark.lesson3_task2
def test_sets_for_a_non_leaf_input():
    (u,), _, (gh,) = updates(lambda x, w, h, y, z: mg.grad(z, [h]))
    assert u["ending"] == ["MulBackward0"], "the input's own node ends the pass: nothing behind it runs"
    assert "Acc(x)" not in u["needed"] and u["startup"] == ["SumBackward0"]


@pytest.mark.lesson3_task2
def test_an_input_on_the_path_to_another_is_not_ending():
    (u,), (x, w, h, y, z), (gy, gh) = updates(lambda x, w, h, y, z: mg.grad(z, [y, h]))
    assert u["ending"] == ["MulBackward0"]
    assert "ExpBackward0" in u["needed"]
    hv = x.detach().numpy() * w.detach().numpy()
    np.testing.assert_allclose(gy.numpy(), np.ones(2), rtol=1e-6)
    np.testing.assert_allclose(gh.numpy(), np.exp(hv) + np.cos(hv), rtol=1e-5)


@pytest.mark.lesson3_task2
def test_results_with_no_grad_vars():
    x, w, h, y, z = graph()
    (gx,) = mg.grad(z, [x], no_grad_vars=[y])
    hv = x.detach().numpy() * w.detach().numpy()
    np.testing.assert_allclose(gx.detach().numpy(), w.detach().numpy() * np.cos(hv), rtol=1e-5)


@pytest.mark.lesson3_task2
def test_unreachable_input():
    x, w, h, y, z = graph()
    other = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        mg.grad(z, [other])
    gx, go = mg.grad(z, [x, other], allow_unused=True)
    assert go is None and gx is not None
