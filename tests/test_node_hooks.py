"""A grad node's own hooks (``register_prehook``, ``register_hook``) and ``metadata``: what they see, in which
order they run among the tensors' hooks, what their return values replace - against PyTorch - and the
``hook.run`` events the engine emits for them (NOTE [ A node's own hooks ] in ``autograd/grad_node.py``)."""

from __future__ import annotations

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _story(L):
    """Hooks of every kind on one small graph; the log of what each saw."""
    x = L.ones(2, requires_grad=True)
    y = x * 2
    z = y * 3
    log = []
    y.retain_grad()
    y.register_hook(lambda g: (log.append(("tensor", g.tolist())), g * 10)[1])
    y.grad_fn.register_prehook(lambda gos: (log.append(("node_pre", [g.tolist() for g in gos])), (gos[0] + 1,))[1])
    y.grad_fn.register_hook(lambda gis, gos: log.append(
        ("node_post", [None if g is None else g.tolist() for g in gis], [g.tolist() for g in gos])))
    acc = y.grad_fn.next_functions[0][0]
    x.register_hook(lambda g: (log.append(("leaf tensor", g.tolist())), g + 1)[1])
    acc.register_prehook(lambda gos: log.append(("acc_pre", [g.tolist() for g in gos])))
    acc.register_hook(lambda gis, gos: log.append(("acc_post", gis, [g.tolist() for g in gos])))
    z.sum().backward()
    log.append((y.grad.tolist(), x.grad.tolist()))
    return log


def test_node_hooks_run_in_pytorch_s_order_and_see_pytorch_s_values():
    assert _story(mg) == _story(torch)


def test_what_node_hooks_return_replaces_as_in_pytorch():
    got = []
    for L in (torch, mg):
        out = []
        x = L.tensor([1.0, 2.0], requires_grad=True)
        w = L.tensor([3.0, 4.0], requires_grad=True)
        y = x * w
        y.grad_fn.register_hook(lambda gis, gos: (gis[0] * 0 + 5, None))  # x gets 5s, w nothing
        y.sum().backward()
        out.append((x.grad.tolist(), w.grad))
        x.grad = None
        y = (x * 2).sum()
        handle = y.grad_fn.register_prehook(lambda gos: (gos[0] * 100,))
        handle.remove()
        y.backward()
        out.append(x.grad.tolist())
        x.grad = None
        y = (x * 2).exp()
        y.grad_fn.register_prehook(lambda gos: (gos[0] * 0,))
        y.sum().backward()
        out.append(x.grad.tolist())
        out.append(type(y.grad_fn.metadata).__name__)
        y.grad_fn.metadata["seen"] = 1
        out.append(y.grad_fn.metadata)
        got.append(out)
    assert got[1] == got[0]


def test_a_node_hook_that_returns_the_wrong_count_is_refused_in_pytorch_s_words():
    for L in (torch, mg):
        x = L.ones(2, requires_grad=True)
        y = x * 2
        y.grad_fn.register_hook(lambda gis, gos: (gos[0],))
        with pytest.raises(RuntimeError, match=r"has returned an incorrect number of values \(got 1, but expected 2\)"):
            y.sum().backward()
    x = mg.ones(2, requires_grad=True)
    y = (x * 2).sum()
    y.grad_fn.register_prehook(lambda gos: (mg.ones(3),))
    with pytest.raises(RuntimeError, match=r"hook .<lambda>. has changed the size of value"):
        y.backward()


def test_node_hooks_are_hook_run_events_on_the_node():
    x = mg.ones(2, requires_grad=True)
    with mg.trace() as tr:
        y = x * 2
        y.register_hook(lambda g: g)
        y.grad_fn.register_prehook(lambda gos: None)
        y.grad_fn.register_hook(lambda gis, gos: None)
        y.grad_fn.next_functions[0][0].register_prehook(lambda gos: None)
        y.sum().backward()
    mul = next(e.node for e in tr.events if e.kind == "node.create" and e.op == "mul")
    acc = next(e.node for e in tr.events if e.kind == "node.create" and e.op == "accumulate")
    steps = [(e.kind, e.node) if e.kind in ("node.begin", "node.run") else (e.kind, e.hook_kind, e.target)
             for e in tr.events if e.kind in ("node.begin", "node.run", "hook.run") and getattr(e, "node", mul) in
             (mul, acc)]
    y_id = next(e.tensor for e in tr.events if e.kind == "tensor.create" and e.grad_node == mul)
    assert steps == [("node.begin", mul), ("hook.run", "tensor", y_id), ("hook.run", "node_pre", mul),
                     ("hook.run", "node_post", mul), ("node.run", mul),
                     ("node.begin", acc), ("hook.run", "node_pre", acc), ("node.run", acc)]
    from minigrad.tracing.describe import what_hook_run
    from minigrad.tracing.describe import _Ids
    pre = next(e for e in tr.events if e.kind == "hook.run" and e.hook_kind == "node_pre")
    assert what_hook_run(pre, _Ids) == f"node_pre hook on node#{mul}"


def test_node_is_the_type_of_every_grad_node_and_increment_version_counts_as_torch():
    got = []
    for L in (torch, mg):
        class Double(L.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = L.ones(2, requires_grad=True)
        z = Double.apply(x * 2).exp()
        nodes = [z.grad_fn, z.grad_fn.next_functions[0][0], x.mul(1).grad_fn.next_functions[0][0]]
        r = [isinstance(n, L.autograd.graph.Node) for n in nodes] + [isinstance(x, L.autograd.graph.Node)]
        w = z.detach()
        v = w._version
        L.autograd.graph.increment_version([w, w])
        r.append(z._version - v)
        with pytest.raises(RuntimeError, match="modified by an in-?place operation"):
            z.sum().backward()
        with pytest.raises(TypeError):
            L.autograd.graph.Node()
        got.append(r)
    assert got[1] == got[0] == [True, True, True, False, 2]


def _multi_grad_story(L):
    log = []
    a = L.ones(2, requires_grad=True)
    b = L.ones(2, requires_grad=True) * 3
    c = L.ones(2, requires_grad=True)
    h = L.autograd.graph.register_multi_grad_hook(
        (a, b, c), lambda gs: log.append(["all", [None if g is None else g.tolist() for g in gs]]))
    L.autograd.graph.register_multi_grad_hook((a, b), lambda g: log.append(["any", g.tolist()]), mode="any")
    (a * b).sum().backward(retain_graph=True)        # c takes no part: "all" fires with None for it
    (a * b * 2 + c).sum().backward(retain_graph=True)
    (b * 5).sum().backward(retain_graph=True)        # only b
    h.remove()
    (a * b).sum().backward(retain_graph=True)        # only the "any" hook is left
    with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\) but got some"):
        L.autograd.graph.register_multi_grad_hook((a,), print, mode="some")
    x = L.ones(2, requires_grad=True)
    hx = L.autograd.graph.register_multi_grad_hook((x, b), lambda gs: None)
    with pytest.raises(RuntimeError, match="A leaf node was passed to _will_engine_execute_node but we are "
                                           "currently running autograd.grad"):
        L.autograd.grad((x * b).sum(), [x], retain_graph=True)
    hx.remove()
    z = x * 2
    L.autograd.graph.register_multi_grad_hook(
        (z, b), lambda gs: log.append(["grad()", [None if g is None else g.tolist() for g in gs]]))
    log.append([g.tolist() for g in L.autograd.grad((z * b).sum(), [x])])
    return log


def test_register_multi_grad_hook_as_torch_s():
    assert _multi_grad_story(mg) == _multi_grad_story(torch)


def _recorded_node_hooks():
    x = mg.tensor([1.0, 2.0], requires_grad=True, name="x")
    with mg.trace() as tr:
        y = x * 2
        y.grad_fn.register_prehook(lambda gos: (gos[0] * 3,))
        y.grad_fn.register_hook(lambda gis, gos: None)
        y.sum().backward()
    mul = next(e.node for e in tr.events if e.kind == "node.create" and e.op == "mul")
    return tr, mul


def test_the_viewers_list_a_node_s_own_hooks_on_that_node():
    """The web page's hook list and the TUI's node detail name a node hook's target as a node, not as the tensor
    of the same id."""
    pytest.importorskip("graphviz")
    from minigrad.viz import stepper

    tr, mul = _recorded_node_hooks()
    hooks = stepper(tr.events).data["passes"][0]["hooks"]
    name = f"MulBackward0#{mul}"
    assert [(h["target"], h["kind"]) for h in hooks] == [(name, "node_pre"), (name, "node_post")]

    pytest.importorskip("textual")
    import asyncio

    from minigrad.tui.app import MinigradApp
    from minigrad.tui.model import Session

    session = Session(tr.events, title="node hooks")

    async def drive() -> str:
        app = MinigradApp(session)
        async with app.run_test(size=(160, 48)) as pilot:
            scr = app.main_screen
            scr.jump_to(name)
            while session.events[scr.index].kind != "node.run":
                await pilot.press("right")
            await pilot.pause()
            return scr.query_one("#detail").plain

    detail = asyncio.run(drive())
    assert f"node_pre on {name} @ event" in detail and f"node_post on {name} @ event" in detail
