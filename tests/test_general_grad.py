"""``mg.grad()`` and GeneralGrad (Paddle's paddle/fluid/eager/general_grad.h; docs/architecture.md: The backward path, Events, Engine rules 1, 4, 6, 7).

Each test states the rule it pins down. Values are exact (small integers in
float64), so a wrong path through the pruned graph shows up as a wrong number.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd.general_grad import GeneralGrad


def scalar(v: float) -> mg.Tensor:
    return mg.tensor([v], dtype=mg.float64, requires_grad=True)


def val(t: mg.Tensor) -> float:
    return float(t.numpy().reshape(-1)[0])


def kinds(tr, prefix: str) -> list[dict]:
    out = []
    for e in tr.events:
        if e.kind.startswith(prefix):
            d = e.to_dict()
            d.pop("seq")
            d.pop("ts_ns")
            out.append(d)
    return out


# -- rule 7: what grad() returns --------------------------------------------------


def test_grad_wrt_leaf_and_intermediate() -> None:
    x = scalar(3.0)
    y = 2 * x
    z = y * x + x
    gx, gy = mg.grad(z, [x, y])
    assert val(gx) == 13.0  # d(2x^2 + x)/dx = 4x + 1
    assert val(gy) == 3.0  # dz/dy = x


def test_no_grad_vars_cut_edges_as_if_detached() -> None:
    """z = y*x + x with y = 2x: dz/dx = 4x + 1 = 13 at x = 3; with y held
    constant (its edges cut) dz/dx = y + 1 = 7."""
    x = scalar(3.0)
    y = 2 * x
    z = y * x + x
    assert val(mg.grad(z, x)[0]) == 13.0
    assert val(mg.grad(z, x, no_grad_vars=[y])[0]) == 7.0
    assert val(mg.grad(z, x, no_grad_vars=y)[0]) == 7.0  # a single Tensor is accepted
    # The cut was made in the copy only: the user's graph still gives 13.
    z.backward()
    assert val(x.grad) == 13.0


def test_no_grad_var_cutting_the_only_path_makes_the_input_unused() -> None:
    x = scalar(3.0)
    y = 2 * x
    z = y * 5
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        mg.grad(z, x, no_grad_vars=[y])
    assert mg.grad(z, x, no_grad_vars=[y], allow_unused=True) == [None]
    # An input that is itself a no_grad var receives nothing.
    assert mg.grad(z, [y], no_grad_vars=[y], allow_unused=True) == [None]


def test_no_grad_vars_that_cut_nothing_are_ignored() -> None:
    x = scalar(3.0)
    z = x * x
    const = mg.tensor([1.0], dtype=mg.float64)  # does not require grad
    unused_leaf = scalar(1.0)  # never used by any op
    assert val(mg.grad(z, x, no_grad_vars=[const, unused_leaf])[0]) == 6.0


def test_input_that_is_also_an_output_gets_its_seed_plus_the_flow() -> None:
    """grad([y, z], [y]) with z = y*y is 1 + 2y (the seed's implementation drops the 1)."""
    x = scalar(3.0)
    y = x * x  # 9
    z = y * y
    assert val(mg.grad([y, z], [y])[0]) == 1.0 + 2 * 9.0
    assert val(mg.grad([z, y], [y])[0]) == 1.0 + 2 * 9.0  # order of outputs does not matter
    # Weighted seeds.
    a = mg.tensor([2.0], dtype=mg.float64)
    b = mg.tensor([10.0], dtype=mg.float64)
    assert val(mg.grad([y, z], [y], grad_outputs=[a, b])[0]) == 2.0 + 10.0 * 2 * 9.0
    # Alone, the output's gradient with respect to itself is its seed.
    assert val(mg.grad(y, y)[0]) == 1.0
    assert val(mg.grad(y, y, grad_outputs=a)[0]) == 2.0


def test_leaf_input_that_is_also_an_output() -> None:
    x = scalar(3.0)
    y = x * x
    assert val(mg.grad(x, x)[0]) == 1.0
    assert val(mg.grad([x, y], [x])[0]) == 1.0 + 6.0


def test_output_input_on_the_path_to_another_input() -> None:
    """y is an output and an input, and lies between z and x: it must run."""
    x = scalar(3.0)
    y = x * x
    z = y * y
    gy, gx = mg.grad([y, z], [y, x])
    assert val(gy) == 19.0
    assert val(gx) == 19.0 * 6.0


def test_startup_target_on_the_path_with_an_unrelated_output() -> None:
    """y = 2x is an output and an input with nothing above it; another output
    does not reach it. The seed's purification would lose x here."""
    x = scalar(3.0)
    w = scalar(4.0)
    y = 2 * x
    z = w * 3
    gy, gx = mg.grad([y, z], [y, x])
    assert (val(gy), val(gx)) == (1.0, 2.0)


def test_seeded_output_whose_feeders_are_cut_still_runs() -> None:
    x = scalar(3.0)
    y = 2 * x  # 6
    w = y * 3  # 18
    z = w * w
    gy, gx = mg.grad([y, z], [y, x])
    assert (val(gy), val(gx)) == (1.0 + 2 * 18.0 * 3, 2 * (1.0 + 2 * 18.0 * 3))
    gy, gx = mg.grad([y, z], [y, x], no_grad_vars=[w])
    assert (val(gy), val(gx)) == (1.0, 2.0)


def test_several_outputs_with_grad_outputs() -> None:
    x = scalar(2.0)
    y = x * x
    z = x * 3
    (g,) = mg.grad([y, z], [x], grad_outputs=[mg.tensor([1.0], dtype=mg.float64), None])
    assert val(g) == 4.0 + 3.0


def test_vector_inputs_match_numpy() -> None:
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = np.array([[0.5, -1.0], [2.0, 0.25]])
    x = mg.tensor(a, requires_grad=True)
    w = mg.tensor(b, requires_grad=True)
    h = (x @ w).tanh()
    loss = (h * h).sum()
    gx, gh = mg.grad(loss, [x, h])
    hn = np.tanh(a @ b)
    np.testing.assert_allclose(gh.numpy(), 2 * hn)
    np.testing.assert_allclose(gx.numpy(), (2 * hn * (1 - hn**2)) @ b.T)


def test_allow_unused() -> None:
    x = scalar(3.0)
    other = scalar(1.0)
    _ = other * 2  # other has an AccumulationNode, but not in z's graph
    never_used = scalar(1.0)
    z = x * x
    with mg.trace() as tr:
        with pytest.raises(RuntimeError, match=r"Tensor at index 1 appears to not have been used in the graph\. Set allow_unused=True"):
            mg.grad(z, [x, other])
    # The pass is complete in the trace: both results, then backward.end.
    assert [e["kind"] for e in kinds(tr, "general_grad.result") + kinds(tr, "backward.end")] == [
        "general_grad.result", "general_grad.result", "backward.end"]
    assert kinds(tr, "general_grad.result")[1] == {"kind": "general_grad.result", "input": other._id, "value": None}
    assert mg.trace.replay(tr.events)[-1].backward.done
    gx, go, gn = mg.grad(z, [x, other, never_used], allow_unused=True)
    assert val(gx) == 6.0 and go is None and gn is None


def test_unused_error_leaves_no_state() -> None:
    x = scalar(3.0)
    other = scalar(1.0)
    z = x * x
    with pytest.raises(RuntimeError):
        mg.grad(z, [other])
    assert x.grad is None and other.grad is None
    assert val(mg.grad(z, x)[0]) == 6.0
    z.backward()
    assert val(x.grad) == 6.0


# -- argument checking ---------------------------------------------------------------


def test_an_input_given_twice_gets_its_gradient_twice() -> None:
    """As PyTorch's ``grad(z, [x, x])`` (minigrad refused it before)."""
    x = scalar(3.0)
    y = x * 2
    z = y * y
    assert [val(g) for g in mg.grad(z, [x, x], retain_graph=True)] == [24.0, 24.0]
    assert [val(g) for g in mg.grad(z, [y, x, y], retain_graph=True)] == [12.0, 24.0, 12.0]


def test_input_that_does_not_require_grad_raises() -> None:
    x = scalar(3.0)
    c = mg.tensor([2.0], dtype=mg.float64)
    z = x * c
    with pytest.raises(RuntimeError, match="input 1 does not require grad"):
        mg.grad(z, [x, c])


def test_output_that_does_not_require_grad_raises() -> None:
    x = scalar(3.0)
    c = mg.tensor([2.0], dtype=mg.float64)
    with pytest.raises(RuntimeError, match="does not require grad"):
        mg.grad(c * 2, [x])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(outputs="z"), "argument 'outputs' must be a Tensor or GradientEdge or a sequence of them, but got str"),
        (dict(inputs=[1.0]), "element 0 of argument 'inputs' must be a Tensor or GradientEdge, but got float"),
        (dict(grad_outputs=[3]), "element 0 of argument 'grad_outputs' must be a Tensor or None, but got int"),
        (dict(retain_graph=1), "argument 'retain_graph' must be bool or None, but got int"),
        (dict(create_graph="yes"), "argument 'create_graph' must be bool, but got str"),
        (dict(allow_unused=None), "argument 'allow_unused' must be bool, but got NoneType"),
        (dict(no_grad_vars=5), "argument 'no_grad_vars' must be a Tensor or a sequence of Tensors, but got int"),
    ],
)
def test_argument_type_errors(kwargs: dict, match: str) -> None:
    x = scalar(3.0)
    z = x * x
    args = dict(outputs=z, inputs=[x])
    args.update(kwargs)
    with pytest.raises(TypeError, match=match):
        mg.grad(**args)


def test_grad_outputs_length_and_shape_errors() -> None:
    x = scalar(3.0)
    z = x * x
    with pytest.raises(RuntimeError, match="1 outputs but 2 grad_outputs"):
        mg.grad(z, x, grad_outputs=[None, None])
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of minigrad.Size\(\[2\]\) "
                                           r"and output\[0\] has a shape of minigrad.Size\(\[1\]\)\.$"):
        mg.grad(z, x, grad_outputs=[mg.ones(2, dtype=mg.float64)])
    v = x * mg.tensor([1.0, 2.0], dtype=mg.float64)
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        mg.grad(v, x)
    with pytest.raises(RuntimeError, match="'inputs' is empty"):
        mg.grad(z, [])


# -- rule 1 and 4: the user's graph and .grad are untouched -----------------------------


def test_leaf_grad_untouched() -> None:
    x = scalar(3.0)
    y = x * x
    y.retain_grad()
    z = y * 2
    mg.grad(z, [x])
    mg.grad(z, [y])
    assert x.grad is None
    assert y.grad is None  # retain-grad hooks do not run under grad()
    z.backward(retain_graph=True)
    assert val(x.grad) == 12.0 and val(y.grad) == 2.0
    mg.grad(z * 1, [x])
    assert val(x.grad) == 12.0


def test_grad_never_releases_the_users_graph() -> None:
    x = scalar(3.0)
    z = (x * x).sin()
    g1 = mg.grad(z, x)[0]  # retain_graph defaults to create_graph=False
    g2 = mg.grad(z, x, retain_graph=False)[0]
    assert val(g1) == val(g2) == pytest.approx(6.0 * np.cos(9.0))
    z.backward()  # still possible: the copies were released, not the originals
    assert val(x.grad) == pytest.approx(6.0 * np.cos(9.0))


def test_grad_after_a_releasing_backward_raises() -> None:
    x = scalar(3.0)
    y = x * x
    z = y * 2
    z.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        mg.grad(z, x)
    assert val(x.grad) == 12.0  # nothing written by the failed call


def test_retain_graph_defaults_to_create_graph() -> None:
    def cleared_nodes(create_graph: bool, retain_graph=None) -> list[int]:
        x = scalar(3.0)
        z = x * x * x
        with mg.trace() as tr:
            mg.grad(z, x, create_graph=create_graph, retain_graph=retain_graph)
        copies = set(kinds(tr, "general_grad.copy")[0]["mapping"].values())
        cleared = [e["node"] for e in kinds(tr, "wrappers.clear")]
        assert set(cleared) <= copies  # only copies are ever released
        assert not z.grad_fn.released
        return cleared

    assert cleared_nodes(False) != []
    assert cleared_nodes(True) == []
    assert cleared_nodes(True, retain_graph=False) != []
    assert cleared_nodes(False, retain_graph=True) == []


@pytest.mark.parametrize("create_graph", [False, True])
def test_results_requires_grad_equals_create_graph(create_graph: bool) -> None:
    x = scalar(3.0)
    lin = 2 * x  # its gradient has no history: a constant
    sq = x * x
    (g_lin,) = mg.grad(lin, x, create_graph=create_graph)
    (g_sq,) = mg.grad(sq, x, create_graph=create_graph)
    (g_self,) = mg.grad(sq, sq, create_graph=create_graph)
    for g in (g_lin, g_sq, g_self):
        assert g.requires_grad is create_graph
    if not create_graph:
        assert g_sq.grad_fn is None


def test_in_place_change_of_a_saved_tensor_is_detected() -> None:
    x = scalar(3.0)
    y = x * 2
    w = y * y
    with mg.no_grad():
        y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        mg.grad(w, x)


def test_error_in_a_hook_leaves_the_graph_usable() -> None:
    x = scalar(3.0)
    y = x * x
    h = y.register_hook(lambda g: 1 / 0)
    z = y * 2
    with pytest.raises(RuntimeError, match=rf"in MulBackward0#{y.grad_fn.id} \(backward of 'mul'\): division by zero"):
        mg.grad(z, x)  # names the user's node, not its copy
    h.remove()
    assert val(mg.grad(z, x)[0]) == 12.0
    z.backward()
    assert val(x.grad) == 12.0


# -- rule 6: hooks ------------------------------------------------------------------------


def test_hook_on_leaf_input_applies_to_its_result() -> None:
    x = scalar(3.0)
    calls = []
    x.register_hook(lambda g: calls.append(1) or g * 10)
    z = x * x
    assert val(mg.grad(z, x)[0]) == 60.0
    assert val(mg.grad(x, x)[0]) == 10.0  # also when the leaf is the output
    assert x.grad is None
    assert len(calls) == 2


def test_hook_on_intermediate_ending_target_applies_to_result() -> None:
    x = scalar(3.0)
    y = x * x
    seen = []
    y.register_hook(lambda g: seen.append(val(g)) or g + 100)
    z = y * 2
    assert val(mg.grad(z, [y])[0]) == 102.0
    assert seen == [2.0]
    assert val(mg.grad(y, [y])[0]) == 101.0  # seed-only result, through the hook


def test_hook_on_intermediate_target_on_the_path() -> None:
    """y lies between z and x: the result for y is after its hooks, and x sees
    the hooked gradient flow on (the fetch hook runs after the user's)."""
    x = scalar(3.0)
    y = x * x
    y.register_hook(lambda g: g * 10)
    y.register_hook(lambda g: g + 1)
    z = y * 2
    gy, gx = mg.grad(z, [y, x])
    assert val(gy) == 21.0
    assert val(gx) == 21.0 * 6.0


def test_hooks_on_non_target_intermediate_run_and_user_hooks_are_not_duplicated() -> None:
    x = scalar(3.0)
    y = x * x
    h = y.register_hook(lambda g: g * 0)
    z = y * 2
    assert val(mg.grad(z, x)[0]) == 0.0
    h.remove()
    assert val(mg.grad(z, x)[0]) == 12.0
    assert y.grad_fn.hooks is None or all(
        k != "fetch_grad" for hooks in y.grad_fn.hooks.values() for _, _, k, _ in hooks
    )


# -- events (docs/architecture.md, Events) ---------------------------------------------------------------------


def _engine_events(tr) -> list[dict]:
    keep = ("backward.", "queue.", "general_grad.", "node.", "buffer.", "in_degree.", "wrappers.", "hook.", "grad.")
    return [d for d in kinds(tr, "") if d["kind"].startswith(keep)]


def test_exact_event_sequence_of_a_small_grad() -> None:
    """z = y * x, y = 2 * x; grad(z, [y]): y's node is an ending target, replaced
    by an AccumulationNode; x's copied AccumulationNode receives a gradient but is
    not needed, so it is never pushed."""
    x = mg.tensor([3.0], dtype=mg.float64, requires_grad=True)
    y = x * 2
    z = y * x
    X, Y, Z = x._meta.acc_node().id, y.grad_fn.id, z.grad_fn.id
    with mg.trace() as tr:
        (g,) = mg.grad(z, [y])
    assert val(g) == 3.0
    ev = _engine_events(tr)
    mapping = ev[2]["mapping"]
    z2, y2, x2 = mapping[Z], mapping[Y], mapping[X]
    acc = ev[10]["node"]  # the AccumulationNode that replaced y2
    assert [e["kind"] for e in ev] == [
        "backward.begin", "buffer.add", "general_grad.copy", "general_grad.targets", "general_grad.update",
        "general_grad.prune", "general_grad.update", "node.create", "node.create", "node.create", "node.create",
        "queue.push",
        "backward.in_degree", "queue.pop", "node.begin", "node.run", "wrappers.clear", "buffer.add",
        "in_degree.update", "queue.push", "buffer.add", "in_degree.update", "queue.pop", "node.begin", "node.run",
        "general_grad.result",
        "backward.end",
    ]
    assert ev[0] == {"kind": "backward.begin", "mode": "grad", "start": [z2], "retain_graph": False, "create_graph": False}
    assert ev[1] == {"kind": "buffer.add", "node": z2, "slot": 0, "rank": 0, "source": None, "value": [1.0]}
    assert mapping == {Z: z2, Y: y2, X: x2}
    assert ev[3] == {"kind": "general_grad.targets", "inputs": [y2], "no_grad": []}
    assert ev[4] == {"kind": "general_grad.update", "startup": [z2], "ending": [y2], "needed": [y2, z2]}
    assert ev[5] == {"kind": "general_grad.prune", "edges": []}
    # SetNodeToAccumulationNode changed the sets: y2 is replaced by acc.
    assert ev[6] == {"kind": "general_grad.update", "startup": [z2], "ending": [acc], "needed": [z2, acc]}
    assert [(e["node"], e["copy_of"]) for e in ev[7:11]] == [(z2, Z), (y2, Y), (x2, X), (acc, Y)]
    assert ev[7]["edges"][0]["next"] == acc and ev[7]["edges"][1]["next"] == x2
    assert ev[10]["is_accumulation"] and ev[10]["tensor"] == y._id
    assert ev[11] == {"kind": "queue.push", "node": z2, "front": False, "queue": [z2]}
    assert ev[12] == {"kind": "backward.in_degree", "in_degree": {acc: 1, x2: 1}}
    assert ev[13] == {"kind": "queue.pop", "node": z2, "queue": []}
    assert ev[14] == {"kind": "node.begin", "node": z2, "grads_in": [[[1.0]]]}
    assert ev[19] == {"kind": "queue.push", "node": acc, "front": True, "queue": [acc]}
    assert ev[20]["node"] == x2 and ev[21] == {"kind": "in_degree.update", "node": x2, "in_degree": 0}
    assert ev[22] == {"kind": "queue.pop", "node": acc, "queue": []}
    assert ev[23] == {"kind": "node.begin", "node": acc, "grads_in": [[[3.0]]]}
    assert ev[24]["node"] == acc
    assert ev[25] == {"kind": "general_grad.result", "input": y._id, "value": [3.0]}
    # No .grad written.
    assert not [e for e in ev if e["kind"] == "grad.accumulate"]


def test_prune_and_result_events_for_no_grad_vars() -> None:
    x = scalar(3.0)
    y = 2 * x
    z = y * x + x
    with mg.trace() as tr:
        (g,) = mg.grad(z, x, no_grad_vars=[y])
    assert val(g) == 7.0
    mapping = kinds(tr, "general_grad.copy")[0]["mapping"]
    mul2 = mapping[z.grad_fn.next_functions[0][0].id]  # the copy of y * x's node
    (prune,) = kinds(tr, "general_grad.prune")
    assert prune["edges"] == [{"node": mul2, "slot": 0, "rank": 0, "next": mapping[y.grad_fn.id]}]
    (targets,) = kinds(tr, "general_grad.targets")
    assert targets == {"kind": "general_grad.targets", "inputs": [mapping[x._meta.acc_node().id]],
                       "no_grad": [mapping[y.grad_fn.id]]}
    assert kinds(tr, "general_grad.result") == [{"kind": "general_grad.result", "input": x._id, "value": [7.0]}]
    # The replayed copy shows the cut edge.
    state = mg.trace.replay(tr.events)[-1]
    assert state.nodes[mul2].edges[0].next is None
    assert state.backward.general.pruned[0]["next"] == mapping[y.grad_fn.id]


def test_update_event_for_the_seeds_example_graph() -> None:
    """Seed 001 §4's example: the gradient of one output with respect to one
    input, leaving out one intermediate's contribution through no_grad_vars.

        x --exp--> x1 --sin--> x2 ------------------\\
                      --cos--> x3 --mul(w)--> x4 --add--> y

    grad(y, x, no_grad_vars=[x2]). Walking up from x's AccumulationNode:
    exp, sin, cos, mul and add are needed (sin too: the seed computes the sets
    before cutting), add is the only startup node, x's node is the ending node;
    w's AccumulationNode is not needed. The edge add -> sin is cut.
    """
    x = scalar(0.5)
    w = scalar(2.0)
    x1 = x.exp()
    x2 = x1.sin()
    x3 = x1.cos()
    x4 = x3 * w
    y = x2 + x4
    orig = {
        "add": y.grad_fn, "mul": x4.grad_fn, "cos": x3.grad_fn, "sin": x2.grad_fn, "exp": x1.grad_fn,
        "acc_x": x._meta.acc_node(), "acc_w": w._meta.acc_node(),
    }
    with mg.trace() as tr:
        (g,) = mg.grad(y, x, no_grad_vars=[x2])
    e1 = np.exp(0.5)
    assert val(g) == pytest.approx(-np.sin(e1) * 2.0 * e1)
    mapping = kinds(tr, "general_grad.copy")[0]["mapping"]
    assert set(mapping) == {n.id for n in orig.values()}
    c = {k: mapping[n.id] for k, n in orig.items()}
    (targets,) = kinds(tr, "general_grad.targets")
    assert targets["inputs"] == [c["acc_x"]] and targets["no_grad"] == [c["sin"]]
    (update,) = kinds(tr, "general_grad.update")
    assert set(update["needed"]) == {c["acc_x"], c["exp"], c["sin"], c["cos"], c["mul"], c["add"]}
    assert len(update["needed"]) == 6
    assert update["startup"] == [c["add"]]
    assert update["ending"] == [c["acc_x"]]
    (prune,) = kinds(tr, "general_grad.prune")
    assert prune["edges"] == [{"node": c["add"], "slot": 0, "rank": 0, "next": c["sin"]}]
    # What ran: add, mul, cos, exp and x's node - not sin (cut) and not w's node (not needed).
    ran = [e["node"] for e in kinds(tr, "node.run")]
    assert ran == [c["add"], c["mul"], c["cos"], c["exp"], c["acc_x"]]
    # The replay carries the marks for the viewers.
    marks = mg.trace.replay(tr.events)[-1].backward.general
    assert marks.needed == frozenset(update["needed"]) and marks.startup == frozenset([c["add"]])
    assert marks.results[x._id] == [pytest.approx(val(g))]


def test_general_grad_class_steps_are_named_after_the_seed() -> None:
    for step in (
        "copy_grad_node", "copy_backward_graph", "get_target_nodes_info", "purify_potential_startup_nodes",
        "get_graph_info_between_targets", "update_graph_info", "modify_ready_queue",
        "set_result_for_input_target_var", "modify_backward_graph", "set_node_to_accumulation_node",
        "register_fetch_grad_hook", "set_result_for_ending_node", "results", "prepare", "is_needed",
        "check_released", "copy_of_start",
    ):
        assert callable(getattr(GeneralGrad, step)), step
    assert "grad" in mg.__all__ and mg.grad is mg.autograd._grad_list  # Paddle's paddle.grad: a list


def test_autograd_grad_returns_a_tuple_as_torch_and_mg_grad_a_list() -> None:
    torch = pytest.importorskip("torch")
    got = []
    for lib in (torch, mg):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        got.append(lib.autograd.grad((x * x).sum(), x))
    assert type(got[0]) is type(got[1]) is tuple and repr(got[0]) == repr(got[1]) == "(tensor([2., 4.]),)"
    assert type(mg.grad((x * x).sum(), x)) is list


# -- against PyTorch ----------------------------------------------------------------------------


def test_matches_torch_on_mixed_targets() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3,))
    b = rng.normal(size=(3,))

    def build(lib, x, w):
        h = lib.tanh(x * w) if lib is torch else (x * w).tanh()
        y = h * x + w
        z = (y * y).sum()
        return h, y, z

    xt = torch.tensor(a, requires_grad=True)
    wt = torch.tensor(b, requires_grad=True)
    ht, yt, zt = build(torch, xt, wt)
    want = torch.autograd.grad(zt, [xt, ht, yt])
    xm = mg.tensor(a, requires_grad=True)
    wm = mg.tensor(b, requires_grad=True)
    hm, ym, zm = build(mg, xm, wm)
    got = mg.grad(zm, [xm, hm, ym])
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w_.numpy(), rtol=1e-12)


# -- random graphs: inputs, outputs and no_grad_vars anywhere, against PyTorch --------------------


def _random_case(seed: int):
    rng = np.random.default_rng(seed)
    n_leaves, n_ops = 3, 7
    ops = []
    for i in range(n_ops):
        k = int(rng.integers(4))
        a, b = (int(v) for v in rng.integers(0, n_leaves + i, size=2))
        ops.append((k, a, b))
    n_vals = n_leaves + n_ops
    outputs = sorted(set(int(v) for v in rng.integers(n_leaves, n_vals, size=int(rng.integers(1, 3)))))
    inputs = [int(v) for v in rng.choice(n_vals, size=int(rng.integers(1, 4)), replace=False)]
    no_grad = [int(v) for v in rng.choice(n_vals, size=int(rng.integers(0, 2)), replace=False)]
    leaves = [rng.normal(size=3) for _ in range(n_leaves)]
    seeds = [rng.normal(size=3) for _ in outputs]
    return ops, leaves, outputs, inputs, no_grad, seeds


def _forward(ops, leaves, no_grad, make, detach, unary):
    vals = [make(a) for a in leaves]
    for k, a, b in ops:
        x, y = (detach(vals[i]) if i in no_grad else vals[i] for i in (a, b))
        vals.append([lambda: x * y, lambda: x + unary(y), lambda: x - y * y, lambda: unary(x) * 0.5][k]())
    return vals


@pytest.mark.parametrize("seed", range(40))
def test_random_graphs_match_torch(seed: int) -> None:
    """Paddle's no_grad_vars cut the edges into a tensor: in PyTorch that is
    using ``v.detach()`` wherever ``v`` is consumed (``v`` itself, as an output,
    keeps its seed)."""
    torch = pytest.importorskip("torch")
    ops, leaves, outputs, inputs, no_grad, seeds = _random_case(seed)
    tv = _forward(ops, leaves, no_grad, lambda a: torch.tensor(a, requires_grad=True), lambda t: t.detach(), torch.sin)
    mv = _forward(ops, leaves, [], lambda a: mg.tensor(a, requires_grad=True), lambda t: t, lambda t: t.sin())
    if any(not tv[i].requires_grad for i in outputs + inputs):
        pytest.skip("a detached value is used as output/input; PyTorch can't differentiate it")
    want = torch.autograd.grad(
        [tv[i] for i in outputs], [tv[i] for i in inputs], [torch.tensor(s) for s in seeds], allow_unused=True
    )
    got = mg.grad(
        [mv[i] for i in outputs], [mv[i] for i in inputs], [mg.tensor(s) for s in seeds],
        allow_unused=True, no_grad_vars=[mv[i] for i in no_grad],
    )
    for i, g, w in zip(inputs, got, want):
        if w is None:
            assert g is None, f"input v{i}: expected unused"
        else:
            assert g is not None, f"input v{i}: expected a gradient"
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-12)
    assert all(mv[i].grad is None for i in range(3))
