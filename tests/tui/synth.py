"""Hand-built event lists for TUI tests that must not depend on the live engine.

The TUI draws only what ``mg.trace.replay`` makes of events, so tests can feed
it event lists built here from the dataclasses in ``minigrad/tracing/events.py``.
``chain(n)`` builds an ``n``-node backward pass (the 5 000-node performance
test); ``small()`` builds a tiny diamond graph with a forward op call, a hook,
a released node and a ``grad()`` pass with GeneralGrad marks.

The builder follows the engine's deque rule (docs/architecture.md, The backward path) only as far as needed to produce a
plausible, well-formed sequence; it is test data, not an engine.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from minigrad.tracing import events as E


class Builder:
    """Appends events with increasing ``seq``/``ts_ns``."""

    def __init__(self) -> None:
        self.events: list[E.Event] = []
        self.nodes: dict[int, dict[str, Any]] = {}
        self._next_node = 0
        self._next_tensor = 0

    def emit(self, cls: type, **kw: Any) -> E.Event:
        ev = cls(seq=len(self.events), ts_ns=100 * len(self.events), **kw)
        self.events.append(ev)
        return ev

    def tensor(self, name: str, value: Any = None, *, grad_node: int | None = None, leaf: bool = True) -> int:
        tid = self._next_tensor
        self._next_tensor += 1
        self.emit(
            E.TensorCreate,
            tensor=tid,
            name=name,
            shape=[2],
            dtype="float32",
            device="cpu",
            requires_grad=True,
            is_leaf=leaf,
            grad_node=grad_node,
            out_slot=0,
            out_rank=0,
            value=value if value is not None else [1.0, 2.0],
        )
        return tid

    def node(
        self,
        name: str,
        op: str,
        nexts: list[int | None],
        *,
        acc_tensor: int | None = None,
        copy_of: int | None = None,
        saved: tuple[int, ...] = (),
        attrs: dict[str, Any] | None = None,
    ) -> int:
        nid = self._next_node
        self._next_node += 1
        edges = [{"slot": i, "rank": 0, "next": n, "next_slot": 0, "next_rank": 0} for i, n in enumerate(nexts)]
        self.nodes[nid] = {"edges": edges, "acc": acc_tensor is not None}
        self.emit(
            E.NodeCreate,
            node=nid,
            name=f"{name}#{nid}",
            op=op,
            topo_nr=nid,
            seq_nr=nid,
            is_accumulation=acc_tensor is not None,
            tensor=acc_tensor,
            copy_of=copy_of,
            edges=edges,
            saved=list(saved),
            attrs=attrs or {},
        )
        return nid

    def op_call(self, op: str, inputs: list[int], *, transform: bool = False) -> None:
        self.emit(E.ApiCall, op=op, inputs=inputs, attrs={})
        self.emit(E.KernelKeyEvent, op=op, backend="CPU", layout="STRIDED", dtype="float32")
        self.emit(E.KernelLookup, op=op, backend="CPU", layout="STRIDED", dtype="float32", step="backend", found=False)
        self.emit(E.KernelLookup, op=op, backend="CPU", layout="ALL_LAYOUT", dtype="float32", step="all_layout", found=True)
        self.emit(
            E.KernelSelect, op=op, kernel=f"{op}_cpu", backend="CPU", layout="ALL_LAYOUT", dtype="float32", fallback_cpu=False
        )
        if transform:
            self.emit(E.DataTransform, op=op, arg="y", what="dtype", from_="int64", to="float32")
        self.emit(E.InferMetaEvent, op=op, shapes=[[2]], dtypes=["float32"])
        self.emit(E.KernelLaunch, op=op, kernel=f"{op}_cpu", backend="CPU", wall_ns=1500)

    def backward(
        self,
        start: int,
        *,
        mode: str = "backward",
        retain: bool = False,
        allowed: set[int] | None = None,
        hooks: dict[int, int] | None = None,
        results: list[tuple[int, Any]] = (),
        prelude: Any = None,
    ) -> None:
        """Emit a backward pass from ``start`` over the nodes' edges (``allowed`` restricts it)."""

        def nexts(n: int) -> list[tuple[dict[str, Any], int]]:
            return [
                (e, e["next"])
                for e in self.nodes[n]["edges"]
                if e["next"] is not None and (allowed is None or e["next"] in allowed)
            ]

        self.emit(E.BackwardBegin, mode=mode, start=[start], retain_graph=retain, create_graph=False)
        if prelude is not None:
            prelude()
        indeg: dict[int, int] = {start: 0}
        seen = {start}
        todo = deque([start])
        while todo:
            n = todo.popleft()
            for _e, m in nexts(n):
                indeg[m] = indeg.get(m, 0) + 1
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        self.emit(E.BackwardInDegree, in_degree=dict(indeg))
        self.emit(E.BufferAdd, node=start, slot=0, rank=0, source=None, value=[1.0])
        queue: deque[int] = deque([start])
        self.emit(E.QueuePush, node=start, front=False, queue=list(queue))
        run = 0
        while queue:
            n = queue.popleft()
            self.emit(E.QueuePop, node=n, queue=list(queue))
            if hooks and n in hooks:
                self.emit(E.HookRun, target=hooks[n], hook_kind="tensor")
            outs = nexts(n)
            self.emit(E.NodeRun, node=n, grads_in=[[[1.0, 1.0]]], grads_out=[[[float(i + 1), 1.0]] for i in range(len(outs))])
            run += 1
            if not retain:
                self.emit(E.WrappersClear, node=n)
            if self.nodes[n]["acc"]:
                self.emit(E.GradAccumulate, tensor=0, value=[1.0, 1.0])
            for e, m in outs:
                self.emit(E.BufferAdd, node=m, slot=e["next_slot"], rank=e["next_rank"], source=n, value=[2.0, 2.0])
                indeg[m] -= 1
                self.emit(E.InDegreeUpdate, node=m, in_degree=indeg[m])
                if indeg[m] == 0:
                    if self.nodes[m]["acc"]:
                        queue.appendleft(m)
                    else:
                        queue.append(m)
                    self.emit(E.QueuePush, node=m, front=self.nodes[m]["acc"], queue=list(queue))
        for tid, value in results:
            self.emit(E.GeneralGradResult, input=tid, value=value)
        self.emit(E.BackwardEnd, nodes_run=run, wall_ns=12345)


def chain(n: int) -> list[E.Event]:
    """A backward pass through ``n`` grad nodes in a chain ending in one leaf."""
    b = Builder()
    x = b.tensor("x")
    acc = b.node("AccumulateGrad", "accumulate", [], acc_tensor=x)
    prev = acc
    for i in range(n - 1):
        prev = b.node("ExpBackward0", "exp", [prev])
    b.tensor("y", grad_node=prev, leaf=False)
    b.backward(prev)
    return b.events


def small() -> list[E.Event]:
    """Diamond with a shared leaf, then ``grad()`` with GeneralGrad marks.

    Graph (backward direction)::

        Sum#5 -> Add#4 -> Mul#2 -> Acc(w)#0
                       \\-> Tanh#3 -> Mul#2   (diamond through Mul#2)
                 Mul#2 -> Acc(w)#0, Acc(b)#1  (w also used by Add#4: leaf used twice)
    """
    b = Builder()
    w = b.tensor("w")
    bb = b.tensor("b")
    b.op_call("multiply", [w, bb], transform=True)
    a_w = b.node("AccumulateGrad", "accumulate", [], acc_tensor=w)
    a_b = b.node("AccumulateGrad", "accumulate", [], acc_tensor=bb)
    mul = b.node("MultiplyBackward", "multiply", [a_w, a_b], saved=(w, bb), attrs={"axis": -1})
    m = b.tensor("m", grad_node=mul, leaf=False)
    b.op_call("tanh", [m])
    tanh = b.node("TanhBackward0", "tanh", [mul], saved=(m,))
    t = b.tensor("t", grad_node=tanh, leaf=False)
    b.op_call("add", [m, t])
    add = b.node("AddBackward0", "add", [mul, tanh])
    s = b.tensor("s", grad_node=add, leaf=False)
    b.op_call("sum", [s])
    ssum = b.node("SumBackward0", "sum", [add])
    b.tensor("loss", grad_node=ssum, leaf=False)
    b.backward(ssum, retain=True, hooks={tanh: t})
    # grad(loss, [w], no_grad_vars=[t]) on a copy of the graph.
    orig = [a_w, a_b, mul, tanh, add, ssum]
    copies: dict[int, int] = {}
    acc_of = {a_w: w, a_b: bb}

    def general_grad() -> None:
        for o in orig:
            info = created[o]
            nx = [copies.get(e["next"]) for e in b.nodes[o]["edges"]]
            copies[o] = b.node(info.name.split("#")[0], info.op, nx, acc_tensor=acc_of.get(o), copy_of=o)
        b.emit(E.GeneralGradCopy, mapping=dict(copies))
        b.emit(E.GeneralGradTargets, inputs=[copies[a_w]], no_grad=[copies[tanh]])
        b.emit(E.GeneralGradPrune, edges=[{"node": copies[add], "slot": 1, "rank": 0, "next": copies[tanh]}])
        b.emit(E.GeneralGradUpdate, startup=[copies[ssum]], ending=[copies[a_w]], needed=[copies[n] for n in needed])

    created = {ev.node: ev for ev in b.events if ev.kind == "node.create"}
    needed = [ssum, add, mul, a_w]
    start = b._next_node + len(orig) - 1  # the copy of ssum (copies are numbered in ``orig`` order)
    allowed = set(range(b._next_node, b._next_node + len(orig))) - {b._next_node + 1, b._next_node + 3}
    b.backward(start, mode="grad", retain=True, allowed=allowed, results=[(w, [3.0, 3.0])], prelude=general_grad)
    return b.events
