"""Hand-built event lists of known graphs (independent of the engine).

``simple_backward()``: ``l = (x * w + x).sum()`` and ``l.backward()``.

    node 4 SumBackward0   -> 3 (s0 r0)
    node 3 AddBackward0   -> 2 (s0 r0), 0 (s1 r0)
    node 2 MulBackward0   -> 0 (s0 r0), 1 (s1 r0)
    node 0 AccumulationNode (x), node 1 AccumulationNode (w)

``grad_with_pruning()``: ``mg.grad(l, [x], no_grad_vars=[w])`` on
``l = (x * w + b).sum()``: GeneralGrad copies nodes 10..14 to 20..24;
the copy of b's AccumulationNode is not needed (pruned), the edge into the
copy of w's AccumulationNode is cut.
"""

from __future__ import annotations

from minigrad.tracing import events as E


def _stamp(evs):
    for i, ev in enumerate(evs):
        ev.seq = i
        ev.ts_ns = 1000 * (i + 1)
    return evs


def _tensor(tid, name, shape, rg, leaf, node=None, value=None):
    return E.TensorCreate(tensor=tid, name=name, shape=list(shape), dtype="float32", device="cpu",
                          requires_grad=rg, is_leaf=leaf, grad_node=node, out_slot=0, out_rank=0, value=value)


def _node(nid, name, op, topo, seq, edges, acc=False, tensor=None, copy_of=None):
    return E.NodeCreate(node=nid, name=name, op=op, topo_nr=topo, seq_nr=seq, is_accumulation=acc, tensor=tensor,
                        copy_of=copy_of, saved=[], attrs={},
                        edges=[{"slot": s, "rank": r, "next": n, "next_slot": 0, "next_rank": 0} for s, r, n in edges])


def _call(op, inputs, out, kernel, node=None, lookups=(("GPUDNN", False), ("backend", True)), fallback=False,
          shape=(2,)):
    evs = [E.ApiCall(op=op, inputs=list(inputs), attrs={}),
           E.KernelKeyEvent(op=op, backend="CPU", layout="ALL_LAYOUT", dtype="float32")]
    for step, found in lookups:
        evs.append(E.KernelLookup(op=op, backend="CPU", layout="ANY", dtype="float32", step=step, found=found))
    evs += [E.KernelSelect(op=op, kernel=kernel, backend="CPU", layout="ANY", dtype="float32", fallback_cpu=fallback),
            E.InferMetaEvent(op=op, shapes=[list(shape)], dtypes=["float32"]),
            E.KernelLaunch(op=op, kernel=kernel, backend="CPU", wall_ns=400)]
    if node is not None:
        evs.append(node)
    evs.append(out)
    return evs


def simple_backward(retain_graph: bool = False) -> list:
    """Events of ``l = (x*w + x).sum(); l.backward()`` (see module docstring)."""
    evs: list = [
        _tensor(1, "x", (2,), True, True, value=[1.0, 2.0]),
        _tensor(2, "w", (2,), True, True, value=[3.0, 4.0]),
    ]
    evs += _call("mul", [1, 2], _tensor(3, "m", (2,), True, False, node=2), "mul_cpu",
                 node=_node(0, "AccumulateGrad#0", "accumulate", 0, 0, [], acc=True, tensor=1))
    evs.insert(len(evs) - 1, _node(1, "AccumulateGrad#1", "accumulate", 0, 0, [], acc=True, tensor=2))
    evs.insert(len(evs) - 1, _node(2, "MulBackward0#2", "mul", 1, 1, [(0, 0, 0), (1, 0, 1)]))
    evs += _call("add", [3, 1], _tensor(4, "s", (2,), True, False, node=3), "add_cpu",
                 node=_node(3, "AddBackward0#3", "add", 2, 2, [(0, 0, 2), (1, 0, 0)]))
    evs += _call("sum", [4], _tensor(5, "l", (), True, False, node=4), "sum_cpu",
                 node=_node(4, "SumBackward0#4", "sum", 3, 3, [(0, 0, 3)]), shape=())
    P = E.QueuePush
    evs += [
        E.BackwardBegin(mode="backward", start=[4], retain_graph=retain_graph, create_graph=False),
        E.BackwardInDegree(in_degree={4: 0, 3: 1, 2: 1, 0: 2, 1: 1}),
        P(node=4, front=False, queue=[4]),
        E.QueuePop(node=4, queue=[]),
        E.NodeRun(node=4, grads_in=[[1.0]], grads_out=[[[1.0, 1.0]]]),
        E.BufferAdd(node=3, slot=0, rank=0, source=4, value=[1.0, 1.0]),
        E.InDegreeUpdate(node=3, in_degree=0),
        P(node=3, front=False, queue=[3]),
    ]
    if not retain_graph:
        evs.append(E.WrappersClear(node=4))
    evs += [
        E.QueuePop(node=3, queue=[]),
        E.NodeRun(node=3, grads_in=[[[1.0, 1.0]]], grads_out=[[[1.0, 1.0]], [[1.0, 1.0]]]),
        E.BufferAdd(node=2, slot=0, rank=0, source=3, value=[1.0, 1.0]),
        E.InDegreeUpdate(node=2, in_degree=0),
        P(node=2, front=False, queue=[2]),
        E.BufferAdd(node=0, slot=0, rank=0, source=3, value=[1.0, 1.0]),
        E.InDegreeUpdate(node=0, in_degree=1),
    ]
    if not retain_graph:
        evs.append(E.WrappersClear(node=3))
    evs += [
        E.QueuePop(node=2, queue=[]),
        E.NodeRun(node=2, grads_in=[[[1.0, 1.0]]], grads_out=[[[3.0, 4.0]], [[1.0, 2.0]]]),
        E.BufferAdd(node=0, slot=0, rank=0, source=2, value=[4.0, 5.0]),
        E.InDegreeUpdate(node=0, in_degree=0),
        P(node=0, front=True, queue=[0]),
        E.BufferAdd(node=1, slot=0, rank=0, source=2, value=[1.0, 2.0]),
        E.InDegreeUpdate(node=1, in_degree=0),
        P(node=1, front=True, queue=[1, 0]),
    ]
    if not retain_graph:
        evs.append(E.WrappersClear(node=2))
    evs += [
        E.QueuePop(node=1, queue=[0]),
        E.NodeRun(node=1, grads_in=[[[1.0, 2.0]]], grads_out=[]),
        E.GradAccumulate(tensor=2, value=[1.0, 2.0]),
        E.QueuePop(node=0, queue=[]),
        E.NodeRun(node=0, grads_in=[[[4.0, 5.0]]], grads_out=[]),
        E.GradAccumulate(tensor=1, value=[4.0, 5.0]),
        E.BackwardEnd(nodes_run=5, wall_ns=20000),
    ]
    return _stamp(evs)


def index_of(evs: list, kind: str, n: int = 0, **fields) -> int:
    """Index of the ``n``-th event of ``kind`` whose fields match."""
    hits = [i for i, ev in enumerate(evs) if ev.kind == kind and all(getattr(ev, k) == v for k, v in fields.items())]
    return hits[n]


def grad_with_pruning() -> list:
    """Events of ``mg.grad(l, [x], no_grad_vars=[w])`` with ``l = (x*w + b).sum()``."""
    evs: list = [
        _tensor(1, "x", (2,), True, True, value=[1.0, 2.0]),
        _tensor(2, "w", (2,), True, True, value=[3.0, 4.0]),
        _tensor(3, "b", (2,), True, True, value=[0.5, 0.5]),
        _node(10, "AccumulateGrad#10", "accumulate", 0, 0, [], acc=True, tensor=1),
        _node(11, "AccumulateGrad#11", "accumulate", 0, 0, [], acc=True, tensor=2),
        _node(12, "AccumulateGrad#12", "accumulate", 0, 0, [], acc=True, tensor=3),
        _node(13, "MulBackward0#13", "mul", 1, 1, [(0, 0, 10), (1, 0, 11)]),
        _tensor(4, "m", (2,), True, False, node=13),
        _node(14, "AddBackward0#14", "add", 2, 2, [(0, 0, 13), (1, 0, 12)]),
        _tensor(5, "s", (2,), True, False, node=14),
        _node(15, "SumBackward0#15", "sum", 3, 3, [(0, 0, 14)]),
        _tensor(6, "l", (), True, False, node=15),
        E.BackwardBegin(mode="grad", start=[25], retain_graph=False, create_graph=False),
    ]
    mapping = {10: 20, 11: 21, 12: 22, 13: 23, 14: 24, 15: 25}
    evs += [
        _node(20, "AccumulateGrad#20", "accumulate", 0, 0, [], acc=True, tensor=1, copy_of=10),
        _node(21, "AccumulateGrad#21", "accumulate", 0, 0, [], acc=True, tensor=2, copy_of=11),
        _node(22, "AccumulateGrad#22", "accumulate", 0, 0, [], acc=True, tensor=3, copy_of=12),
        _node(23, "MulBackward0#23", "mul", 1, 1, [(0, 0, 20), (1, 0, 21)], copy_of=13),
        _node(24, "AddBackward0#24", "add", 2, 2, [(0, 0, 23), (1, 0, 22)], copy_of=14),
        _node(25, "SumBackward0#25", "sum", 3, 3, [(0, 0, 24)], copy_of=15),
        E.GeneralGradCopy(mapping=mapping),
        E.GeneralGradTargets(inputs=[20], no_grad=[21]),
        E.GeneralGradUpdate(startup=[25], ending=[20], needed=[25, 24, 23, 20]),
        E.GeneralGradPrune(edges=[{"node": 23, "slot": 1, "rank": 0, "next": 21}]),
        E.BackwardInDegree(in_degree={25: 0, 24: 1, 23: 1, 20: 1}),
        E.QueuePush(node=25, front=False, queue=[25]),
        E.QueuePop(node=25, queue=[]),
        E.NodeRun(node=25, grads_in=[[1.0]], grads_out=[[[1.0, 1.0]]]),
        E.BufferAdd(node=24, slot=0, rank=0, source=25, value=[1.0, 1.0]),
        E.InDegreeUpdate(node=24, in_degree=0),
        E.QueuePush(node=24, front=False, queue=[24]),
        E.QueuePop(node=24, queue=[]),
        E.NodeRun(node=24, grads_in=[[[1.0, 1.0]]], grads_out=[[[1.0, 1.0]], [None]]),
        E.BufferAdd(node=23, slot=0, rank=0, source=24, value=[1.0, 1.0]),
        E.InDegreeUpdate(node=23, in_degree=0),
        E.QueuePush(node=23, front=False, queue=[23]),
        E.QueuePop(node=23, queue=[]),
        E.NodeRun(node=23, grads_in=[[[1.0, 1.0]]], grads_out=[[[3.0, 4.0]], [None]]),
        E.BufferAdd(node=20, slot=0, rank=0, source=23, value=[3.0, 4.0]),
        E.InDegreeUpdate(node=20, in_degree=0),
        E.QueuePush(node=20, front=True, queue=[20]),
        E.QueuePop(node=20, queue=[]),
        E.NodeRun(node=20, grads_in=[[[3.0, 4.0]]], grads_out=[]),
        E.GeneralGradResult(input=1, value=[3.0, 4.0]),
        E.BackwardEnd(nodes_run=4, wall_ns=9000),
    ]
    return _stamp(evs)


def long_chain(n: int = 400, width: int = 3) -> list:
    """A deep graph: ``n`` chained unary nodes over ``width`` parallel leaves, then a backward pass start.

    Used for the large-graph test (readability and speed), not for exact steps.
    """
    evs: list = []
    nid = 0
    tails = []
    for w in range(width):
        evs.append(_tensor(w, f"x{w}", (4,), True, True))
        evs.append(_node(nid, f"AccumulateGrad#{nid}", "accumulate", 0, 0, [], acc=True, tensor=w))
        prev = nid
        nid += 1
        for k in range(n // width):
            op = ("relu", "tanh", "mul")[k % 3]
            evs.append(_node(nid, f"{op.capitalize()}GradNode#{nid}", op, k + 1, nid, [(0, 0, prev)]))
            prev = nid
            nid += 1
        tails.append(prev)
    root = nid
    evs.append(_node(root, f"StackBackward0#{root}", "stack", n, root, [(i, 0, t) for i, t in enumerate(tails)]))
    in_deg = {root: 0}
    for ev in evs:
        if ev.kind == "node.create":
            for e in ev.edges:
                in_deg[e["next"]] = in_deg.get(e["next"], 0) + 1
    evs += [
        E.BackwardBegin(mode="backward", start=[root], retain_graph=False, create_graph=False),
        E.BackwardInDegree(in_degree=in_deg),
        E.QueuePush(node=root, front=False, queue=[root]),
    ]
    return _stamp(evs)


def mlp_like(layers: int = 100) -> list:
    """A deep MLP's graph: per layer AddBackward0(bias) -> MmBackward0(weight) -> ReluBackward0.

    Every Add and Matmul node also feeds an AccumulationNode (bias, weight),
    so the trunk is not a plain chain. Ends with the in-degree map and the
    first push of a backward pass.
    """
    evs: list = [_tensor(0, "x", (8, 4), False, True)]
    nid, tid = 0, 1
    nxt = None  # the node the current layer's Relu sends its gradient to (the previous layer's Add)
    for layer in range(layers):
        wb = []
        for pname in ("W", "b"):
            evs.append(_tensor(tid, f"{pname}{layer}", (4, 4), True, True))
            evs.append(_node(nid, f"AccumulateGrad#{nid}", "accumulate", 0, 0, [], acc=True, tensor=tid))
            wb.append(nid)
            nid += 1
            tid += 1
        mm = nid
        evs.append(_node(mm, f"MmBackward0#{mm}", "matmul", 3 * layer + 1, mm,
                         ([(0, 0, nxt)] if nxt is not None else []) + [(1, 0, wb[0])]))
        add = nid + 1
        evs.append(_node(add, f"AddBackward0#{add}", "add", 3 * layer + 2, add, [(0, 0, mm), (1, 0, wb[1])]))
        relu = nid + 2
        evs.append(_node(relu, f"ReluBackward0#{relu}", "relu", 3 * layer + 3, relu, [(0, 0, add)]))
        nid += 3
        nxt = relu
    root = nid
    evs.append(_node(root, f"MeanBackward0#{root}", "mean", 3 * layers + 1, root, [(0, 0, nxt)]))
    in_deg = {root: 0}
    for ev in evs:
        if ev.kind == "node.create":
            for e in ev.edges:
                in_deg[e["next"]] = in_deg.get(e["next"], 0) + 1
    evs += [
        E.BackwardBegin(mode="backward", start=[root], retain_graph=False, create_graph=False),
        E.BackwardInDegree(in_degree=in_deg),
        E.QueuePush(node=root, front=False, queue=[root]),
    ]
    return _stamp(evs)


def deep_forward(layers: int = 60) -> list:
    """Forward events only: ``h = relu(h @ W_i)`` for ``layers`` layers, each W_i a leaf parameter."""
    evs: list = [_tensor(0, "x", (4, 8), False, True)]
    tid, nid, prev = 1, 0, 0
    for i in range(layers):
        w = tid
        evs.append(_tensor(w, f"W{i}", (8, 8), True, True))
        evs += _call("matmul", [prev, w], _tensor(w + 1, f"z{i}", (4, 8), True, False, node=nid), "cpu/matmul",
                     shape=(4, 8))
        evs += _call("relu", [w + 1], _tensor(w + 2, f"h{i}", (4, 8), True, False, node=nid + 1), "cpu/relu",
                     shape=(4, 8))
        prev, tid, nid = w + 2, tid + 3, nid + 2
    return _stamp(evs)
