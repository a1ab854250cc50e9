"""Collecting: replayed states -> a plain drawable graph (no Graphviz here).

Collecting and drawing are separate steps (as in torchviz): this module reads
a ``State`` from ``mg.trace.replay`` and produces a ``Graph`` of ``GNode`` and
``GEdge`` records — text rows, a status, badges and marks — that ``draw.py``
turns into DOT. Nothing here re-derives engine logic: statuses come from
``node_status``, in-degrees, queue and buffers from ``BackwardPass``, and
GeneralGrad marks from ``GeneralGradMarks``.

NOTE [ Stable names ]
    DOT names come from event ids: ``n<node id>`` for grad nodes,
    ``t<tensor id>`` for tensors, ``c<event index>`` for op calls. Nodes and
    edges are emitted in sorted order, so the same trace always gives
    byte-identical DOT (and SVG).

Example:
    >>> from minigrad.tracing import replay
    >>> g = collect_backward(replay(events)[-1])      # doctest: +SKIP
    >>> [n.key for n in g.nodes]                      # doctest: +SKIP
    ['n0', 'n1', 'n2']
"""

from __future__ import annotations

import re

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from minigrad.tracing.replay import BackwardPass, OpCall, State, node_status

from minigrad.tracing.describe import describe, fmt_shape, fmt_value
from minigrad.tracing.versions import replaced_edges
from minigrad.tracing.viewing import pass_ending

__all__ = [
    "GNode",
    "GEdge",
    "Graph",
    "collect_backward",
    "collect_forward",
    "collect_kernel",
    "backward_node_ids",
    "collapse_chains",
    "select_call",
    "display_status",
]


@dataclass
class GNode:
    """One drawable box.

    Attributes:
        key: the DOT name (stable, from event ids).
        title: first line (bold).
        rows: further lines of plain text.
        kind: ``grad``, ``accumulation``, ``chain``, ``tensor``, ``op``, ``step``.
        status: a key of ``style.STATUS_FILL`` (backward) or a forward fill name.
        in_degree: current in-degree badge (``None``: no badge).
        in_degree_state: ``normal``, ``zero`` or ``changed`` (badge colour).
        queue_pos: 1-based position in the ready queue (``None``: not queued).
        marks: GeneralGrad / forward marks (``startup``, ``ending``, ``leaf`` ...).
        hidden: drawn invisible (keeps flip-book layouts fixed before a node exists).
        min_chars: widest row this node will ever show (flip-book layout stability).
        min_rows: most rows this node will ever show.
    """

    key: str
    title: str
    rows: list[str] = field(default_factory=list)
    kind: str = "grad"
    status: str = "idle"
    in_degree: int | None = None
    in_degree_state: str = "normal"
    queue_pos: int | None = None
    marks: tuple[str, ...] = ()
    hidden: bool = False
    cluster: str | None = None
    min_chars: int = 0
    min_rows: int = 0


@dataclass
class GEdge:
    """One arrow. ``style`` is ``grad``, ``pruned``, ``data``, ``flow`` or ``replaced`` (an edge an in-place
    change through a view replaced: the consumer's edge to the base's old node, now to the CopySlices node)."""

    tail: str
    head: str
    label: str = ""
    style: str = "grad"
    key: str = ""


@dataclass
class Graph:
    """A collected graph: nodes, edges and what surrounds them."""

    kind: str
    nodes: list[GNode] = field(default_factory=list)
    edges: list[GEdge] = field(default_factory=list)
    title: str = ""
    queue: list[str] | None = None  # display names, front first (backward only)
    queue_min_len: int = 0
    legend: bool = True
    clusters: dict[str, str] = field(default_factory=dict)  # cluster id -> label
    mode: str = "backward"

    def node(self, key: str) -> GNode:
        """The node named ``key`` (KeyError if absent)."""
        for n in self.nodes:
            if n.key == key:
                return n
        raise KeyError(key)


# ---------------------------------------------------------------------------
# Backward graph
# ---------------------------------------------------------------------------


def backward_node_ids(state: State, bw: BackwardPass | None = None) -> list[int]:
    """The grad nodes a backward view shows, sorted by id.

    With no backward pass yet: every node recorded so far. During or after a
    pass: the nodes of that pass (its in-degree map, start nodes and executed
    nodes), GeneralGrad's copies, and any node their edges lead to.
    """
    bw = bw if bw is not None else state.backward
    if bw is None:
        return sorted(state.nodes)
    ids = set(bw.nodes)
    if bw.general is not None:
        ids |= set(bw.general.copies.values())
    for nid in list(ids):
        info = state.nodes.get(nid)
        if info is not None:
            ids.update(n for n in info.next_nodes if n in state.nodes)
    return sorted(ids)


def _pruned_keys(bw: BackwardPass | None) -> dict[tuple[int, int, int], Any]:
    if bw is None or bw.general is None:
        return {}
    out = {}
    for e in bw.general.pruned:
        out[(int(e.get("node", -1)), int(e.get("slot", 0)), int(e.get("rank", 0)))] = e.get("next")
    return out


def attrs_row(attrs: Any) -> str | None:
    """The attributes worth reading on a box: ``transpose_y`` for a flag that is on, ``dim=1`` for a set value.

    Flags that are off and unset values are left out, so a Linear's matmul box says
    ``transpose_y`` and ``64x10 @ 32x10`` reads as what it is (``x @ weight.T``).
    """
    parts = []
    for key, value in (attrs or {}).items():
        if value is None or value is False or isinstance(value, dict):
            continue
        parts.append(str(key) if value is True else f"{key}={fmt_value(value, 16)}")
    return ", ".join(parts) or None


def _node_rows(state: State, bw: BackwardPass | None, nid: int, previews: bool) -> list[str]:
    info = state.nodes[nid]
    rows: list[str] = []
    if info.is_accumulation:
        t = state.tensors.get(info.tensor) if info.tensor is not None else None
        if t is not None:
            rows.append(f"leaf {t.name}: {fmt_shape(t.shape)} {t.dtype}")
        else:
            rows.append(f"leaf {state.tensor_name(info.tensor)}")
    else:
        rows.append(f"op {info.op} · topo {info.topo_nr} · seq {info.seq_nr}")
        flags = attrs_row(info.attrs)
        if flags:
            rows.append(flags)
    if info.copy_of is not None:
        rows.append(f"copy of {state.node_name(info.copy_of)}")
    rows += _version_rows(state, info)
    if bw is not None and previews:
        for (slot, rank), value in sorted(bw.buffers.get(nid, {}).items()):
            rows.append(f"buffer[{slot},{rank}] = {fmt_value(value, 32)}")
        if info.is_accumulation and info.tensor is not None and info.tensor in bw.accumulated:
            rows.append(f".grad = {fmt_value(bw.accumulated[info.tensor], 32)}")
    return rows


def _version_rows(state: State, info: Any) -> list[str]:
    """A saved tensor changed in place since the node saved it (``STALE``: backward through the node will
    raise), and for a CopySlices node the history it replaced (``history.rewrite``)."""
    rows = []
    for tid, saved_at in zip(info.saved, info.saved_versions):
        t = state.tensors.get(tid)
        if t is not None and t.version != saved_at:
            rows.append(f"STALE saved {t.name}: saved at v{saved_at}, now v{t.version}")
    for rw in getattr(state, "rewrites", ()):
        if rw.to_node == info.id:
            view = rw.view
            rows.append(f"rewrote {state.tensor_name(rw.tensor)}'s history (was {state.node_name(rw.from_node)}); "
                        f"view size {view.get('size')} stride {view.get('stride')} offset {view.get('offset')}")
    return rows


def display_status(state: State, nid: int, bw: BackwardPass | None) -> str:
    """The status a view draws for a node: ``node_status``, or ``"pruned"`` for a node GeneralGrad left out.

    A ``grad()`` pass runs only the nodes it needs; a waiting node that is not needed never runs,
    so it is drawn as pruned rather than pending.
    """
    status = node_status(state, nid, bw) if bw is not None else "idle"
    general = bw.general if bw is not None else None
    if general is not None and general.needed and nid not in general.needed and status in ("pending", "idle"):
        return "pruned"
    return status


def collect_backward(
    state: State,
    bw: BackwardPass | None = None,
    *,
    node_ids: Iterable[int] | None = None,
    previews: bool = True,
    title: bool = True,
    future: State | None = None,
    group: str | None = None,
) -> Graph:
    """Collect the backward graph as it stands in ``state``.

    Args:
        state: a replayed state (``mg.trace.replay(events)[i]``).
        bw: the backward pass to show (default: the state's latest one).
        node_ids: the nodes to draw (default ``backward_node_ids``). Ids not yet
            known in ``state`` are kept as hidden placeholders.
        previews: show gradient-buffer and ``.grad`` previews.
        title: put a caption (pass, step, event) on the graph.
        future: a later state of the same trace (flip-books pass the end of the
            pass): nodes not created yet at ``state`` — GeneralGrad's copies
            before the copy — are drawn from it, faded, instead of hidden.
        group: ``"module"`` draws the nodes each ``nn.Module`` made inside one
            dashed box labelled with its path (recorded traces carry it).

    Returns:
        A ``Graph`` whose nodes carry status, in-degree badge, queue position
        and GeneralGrad marks.
    """
    bw = bw if bw is not None else state.backward
    ids = sorted(set(node_ids)) if node_ids is not None else backward_node_ids(state, bw)
    general = bw.general if bw is not None else None
    needed = general.needed if general is not None else frozenset()
    changed_node = None
    ev = state.event
    if ev is not None and ev.kind == "in_degree.update":
        changed_node = getattr(ev, "node", None)

    g = Graph(kind="backward", mode=bw.mode if bw is not None else "backward")
    for nid in ids:
        key = f"n{nid}"
        info = state.nodes.get(nid)
        if info is None:
            later = future.nodes.get(nid) if future is not None else None
            if later is None:
                g.nodes.append(GNode(key=key, title=f"node#{nid}", hidden=True))
            else:
                rows = _node_rows(future, None, nid, False) + ["not created yet"]
                g.nodes.append(GNode(key=key, title=later.name, rows=rows, marks=("future",),
                                     kind="accumulation" if later.is_accumulation else "grad"))
            continue
        status = display_status(state, nid, bw)
        marks: list[str] = []
        if general is not None:
            if nid in general.startup:
                marks.append("startup")
            if nid in general.ending:
                marks.append("ending")
            if nid in needed:
                marks.append("needed")
            if nid in general.inputs:
                marks.append("input")
            if nid in general.no_grad:
                marks.append("no_grad")
        in_deg = None
        deg_state = "normal"
        if bw is not None and nid in bw.in_degree:
            in_deg = bw.in_degree[nid]
            deg_state = "changed" if nid == changed_node else ("zero" if in_deg == 0 else "normal")
        queue_pos = bw.queue.index(nid) + 1 if bw is not None and nid in bw.queue else None
        rows = _node_rows(state, bw, nid, previews)
        if marks:
            rows.append("GeneralGrad: " + ", ".join(marks))
        if status == "pruned":
            rows.append("pruned: not needed")
        g.nodes.append(
            GNode(
                key=key,
                title=info.name,
                rows=rows,
                kind="accumulation" if info.is_accumulation else "grad",
                status=status,
                in_degree=in_deg,
                in_degree_state=deg_state,
                queue_pos=queue_pos,
                marks=tuple(marks),
                cluster=(_recompute_cluster(g, state, info)
                         or (_module_cluster(g, state, info) if group == "module" else None)),
            )
        )

    drawn = set(ids)
    pruned = _pruned_keys(bw)
    for nid in ids:
        info = state.nodes.get(nid)
        is_future = info is None and future is not None and nid in future.nodes
        if is_future:
            info = future.nodes[nid]
        if info is None:
            continue
        for e in info.edges:
            cut = (nid, e.slot, e.rank) in pruned
            if e.next is None or e.next not in drawn:
                continue
            g.edges.append(
                GEdge(
                    tail=f"n{nid}",
                    head=f"n{e.next}",
                    label=f"s{e.slot} r{e.rank}",
                    style="future" if is_future else ("pruned" if cut else "grad"),
                    key=f"e{nid}_{e.slot}_{e.rank}",
                )
            )
    # Cut edges the node no longer lists (the engine may drop them): draw them anyway.
    # With a ``future`` state, cuts not made yet are drawn faded, so the layout stays put.
    later = _pruned_keys(future.backward) if future is not None else {}
    listed = {(ge.tail, ge.key) for ge in g.edges}
    for (nid, slot, rank), nxt in sorted({**later, **pruned}.items(), key=lambda kv: kv[0]):
        key = f"e{nid}_{slot}_{rank}"
        if (f"n{nid}", key) in listed or nid not in drawn or nxt is None or nxt not in drawn:
            continue
        style = "pruned" if (nid, slot, rank) in pruned and nid in state.nodes else "future"
        g.edges.append(GEdge(tail=f"n{nid}", head=f"n{nxt}", label=f"s{slot} r{rank}", style=style, key=key))

    _mark_rewrites(g, state, ids)
    if bw is not None:
        g.queue = [state.node_name(n) for n in bw.queue]
    if title:
        if bw is None:
            head = "graph before backward"
        else:
            ending = pass_ending(bw)  # ended by an error: say so, not "done"
            head = f"{bw.mode}() pass {bw.number}" + (f" ({ending})" if ending else " (done)" if bw.done else "")
        g.title = f"{head} · event {state.index}: {describe(state.event, state)}"
    return g


def _mark_rewrites(g: Graph, state: State, ids: Iterable[int]) -> None:
    """Mark each CopySlices node (``copyslices``) and add the edges its rewrite replaced, as ``replaced``
    (dashed, laid out without moving a node): see ``minigrad/tracing/versions.py``, docs/concepts/views.md."""
    rewritten = {r.to_node for r in getattr(state, "rewrites", ())}
    for n in g.nodes:
        if not n.hidden and n.key[1:].isdigit() and int(n.key[1:]) in rewritten:
            n.marks = n.marks + ("copyslices",)
    for consumer, old, new in replaced_edges(state, ids):
        g.edges.append(GEdge(tail=f"n{consumer}", head=f"n{old}", label="replaced", style="replaced",
                             key=f"r{consumer}_{new}"))


# ---------------------------------------------------------------------------
# Large graphs: collapse long chains
# ---------------------------------------------------------------------------


_KEEP_MARKS = frozenset({"startup", "ending", "input", "no_grad", "future"})


def collapse_chains(g: Graph, min_length: int = 6) -> Graph:
    """Replace every run of more than ``min_length`` chained nodes by one box.

    A chain ``a -> b -> ... -> z`` whose inner nodes each have exactly one
    incoming edge and one outgoing edge to the next chain node keeps its two
    ends; the inner nodes become one ``chain`` box that counts ops and
    statuses, so a 100-layer MLP stays readable. Inner nodes may also have
    side leaves — in the backward graph the AccumulationNodes of weights and
    biases, in the forward graph the leaf tensors feeding an op — which fold
    into the box too and are counted as parameters. Queued, running and
    GeneralGrad startup/ending/input/no_grad nodes are never hidden in a chain.
    """
    ins: dict[str, list[GEdge]] = {n.key: [] for n in g.nodes}
    outs: dict[str, list[GEdge]] = {n.key: [] for n in g.nodes}
    for e in g.edges:
        if e.tail in outs and e.head in ins:
            outs[e.tail].append(e)
            ins[e.head].append(e)
    by_key = {n.key: n for n in g.nodes}

    def quiet(n: GNode) -> bool:
        # Nodes a reader must see stay out of chains ("needed" marks every node of a grad() pass, so it does not count).
        return (n.status not in ("running", "queued") and not set(n.marks) & _KEEP_MARKS and not n.hidden
                and n.in_degree_state != "changed")

    def side_leaf(key: str) -> bool:
        # Backward: a parameter's AccumulationNode (fed by one node, feeds nothing).
        # Forward: a leaf tensor or constant (feeds one op, fed by nothing).
        n = by_key[key]
        if not quiet(n):
            return False
        if n.kind == "accumulation":
            return len(ins[key]) == 1 and not outs[key]
        if n.kind in ("tensor", "const") and ("leaf" in n.marks or n.kind == "const"):
            return not ins[key] and len(outs[key]) == 1
        return False

    def trunk(n: GNode) -> list[GEdge]:
        return [e for e in outs[n.key] if not side_leaf(e.head)]

    def trunk_in(n: GNode) -> list[GEdge]:
        return [e for e in ins[n.key] if not side_leaf(e.tail)]

    def inner_ok(n: GNode) -> bool:
        return (not side_leaf(n.key) and n.kind != "accumulation" and len(trunk_in(n)) == 1
                and len(trunk(n)) == 1 and quiet(n))

    seen: set[str] = set()
    chains: list[list[str]] = []
    for n in g.nodes:
        if n.key in seen or not inner_ok(n):
            continue
        # Walk back to the chain's first inner node, then forward to its last.
        start = n
        while True:
            prev = by_key[trunk_in(start)[0].tail]
            if prev.key == n.key or not inner_ok(prev) or prev.key in seen or trunk(prev)[0].head != start.key:
                break
            start = prev
        run = [start.key]
        cur = start
        while True:
            nxt = by_key[trunk(cur)[0].head]
            if not inner_ok(nxt) or nxt.key in run:
                break
            run.append(nxt.key)
            cur = nxt
        seen.update(run)
        if len(run) > min_length:
            chains.append(run)
    if not chains:
        return g

    removed: dict[str, str] = {}
    new_nodes: list[GNode] = []
    for run in chains:
        members = [by_key[k] for k in run]
        leaves = [e.head for k in run for e in outs[k] if side_leaf(e.head)]
        leaves += [e.tail for k in run for e in ins[k] if side_leaf(e.tail)]
        ck = f"chain_{run[0]}_{run[-1]}"
        ops = Counter(m.title.split("#")[0] for m in members if m.kind != "tensor")
        statuses = Counter(m.status for m in members + [by_key[k] for k in leaves])
        rows = [f"{c}× {op}" for op, c in sorted(ops.items())]
        tensors = sum(1 for m in members if m.kind == "tensor")
        if tensors:
            rows.append(f"{tensors}× intermediate tensor")
        if leaves:
            leaf_kind = "AccumulateGrad" if by_key[leaves[0]].kind == "accumulation" else "leaf tensor"
            rows.append(f"{len(leaves)}× {leaf_kind} (parameters)")
        if g.kind == "backward":
            rows.append(", ".join(f"{s} {c}" for s, c in sorted(statuses.items())))
        status = Counter(m.status for m in members).most_common(1)[0][0]
        new_nodes.append(GNode(key=ck, title=f"… {len(run) + len(leaves)} nodes ({members[0].title} … {members[-1].title})",
                               rows=rows, kind="chain", status=status))
        for k in run + leaves:
            removed[k] = ck
    # Chain boxes take the place of their first member, so the order stays stable.
    order = {n.key: i for i, n in enumerate(g.nodes)}
    for cn, run in zip(new_nodes, chains):
        order[cn.key] = order[run[0]]
    nodes = sorted([n for n in g.nodes if n.key not in removed] + new_nodes, key=lambda n: order[n.key])
    edges: list[GEdge] = []
    for e in g.edges:
        t, h = removed.get(e.tail, e.tail), removed.get(e.head, e.head)
        if t == h:
            continue
        edges.append(GEdge(tail=t, head=h, label=e.label, style=e.style, key=e.key))
    g.nodes, g.edges = nodes, edges
    return g


# ---------------------------------------------------------------------------
# Forward graph
# ---------------------------------------------------------------------------


def _in_backward(state: State, index: int) -> bool:
    for bw in state.passes:
        end = bw.end_at if bw.end_at is not None else state.index
        if bw.begin_at <= index <= end:
            return True
    return False


def _kernel_text(call: OpCall) -> tuple[str, bool]:
    sel = call.select or {}
    kernel = sel.get("kernel") or (call.launch or {}).get("kernel") or "?"
    fallback = bool(sel.get("fallback_cpu"))
    return str(kernel), fallback


def call_outputs(state: State, call: OpCall) -> tuple[int, ...]:
    """The output tensor ids of an op call.

    NOTE [ Call outputs ]
        Replay attaches every ``tensor.create`` after a call's launch to that
        call until the next ``api.call``, so a tensor made later by
        ``mg.tensor(...)`` would look like an output. InferMeta says how many
        outputs the op has, and a leaf that requires grad is never an op's
        output, so only those outputs are kept.
    """
    outs = call.outputs
    if call.infer_meta and call.infer_meta.get("shapes") is not None:
        outs = outs[: len(call.infer_meta["shapes"])]
    keep = []
    for o in outs:
        t = state.tensors.get(o)
        if t is not None and t.is_leaf and t.requires_grad:
            continue
        keep.append(o)
    return tuple(keep)


def forward_span(state: State, backward_pass: int | None = None) -> tuple[int, int, int | None]:
    """The events of one forward pass: ``(first, stop, number)``, the ops that built backward pass ``number``.

    Forward pass P is what ran between the end of backward pass P-1 and the
    beginning of backward pass P (default: the latest pass begun by
    ``state``). Without a backward pass it is everything so far (number None).
    """
    if not state.passes:
        return 0, state.index + 1, None
    number = len(state.passes) - 1 if backward_pass is None else backward_pass % len(state.passes)
    first = 0
    if number > 0:
        prev = state.passes[number - 1]
        first = (prev.end_at if prev.end_at is not None else prev.begin_at) + 1
    return first, state.passes[number].begin_at, number


def _recompute_cluster(g: Graph, state: State, info: Any) -> str | None:
    """The cluster of the nodes a checkpoint's recomputation made, labelled with the node that asked for it."""
    asker = getattr(info, "recompute_of", None)
    if asker is None:
        return None
    cid = f"recompute_{asker}"
    g.clusters[cid] = f"recomputed inside backward for {state.node_name(asker)}"
    return cid


def _module_cluster(g: Graph, state: State, info: Any) -> str | None:
    """The cluster id of the module that made a node (a GeneralGrad copy: its original's); registers its label."""
    module = info.module
    if module is None and info.copy_of is not None and info.copy_of in state.nodes:
        module = state.nodes[info.copy_of].module
    if not module:
        return None
    cid = re.sub(r"[^A-Za-z0-9_]+", "_", module)
    g.clusters[cid] = f"module {module}"
    return cid


def collect_forward(state: State, *, include_backward: bool = False, title: bool = True,
                    backward_pass: int | None = None, all_passes: bool = False) -> Graph:
    """Collect the forward graph: tensors and op calls with the kernel each op chose.

    Args:
        state: a replayed state.
        include_backward: also draw op calls made by backward formulas.
        title: put a caption on the graph.
        backward_pass: draw the forward pass that built this backward pass (default: the latest).
        all_passes: draw every forward pass of the trace (a training loop draws them all side by side).
    """
    g = Graph(kind="forward", legend=True)
    first, stop, number = (0, state.index + 1, None) if all_passes else forward_span(state, backward_pass)
    calls = [c for c in state.calls if (include_backward or c.phase == "forward") and first <= c.index < stop]
    tensor_ids: set[int] = set()
    for c in calls:
        tensor_ids.update(i for i in c.inputs if isinstance(i, int) and not isinstance(i, bool) and i in state.tensors)
        tensor_ids.update(call_outputs(state, c))
    for tid, t in state.tensors.items():
        if (include_backward or not _in_backward(state, t.created_at)) and (all_passes or first <= t.created_at < stop):
            tensor_ids.add(tid)
    for tid in sorted(tensor_ids):
        t = state.tensors.get(tid)
        if t is None:
            continue
        rows = [f"{fmt_shape(t.shape)} {t.dtype}" + (f" @{t.device}" if t.device not in ("cpu", "") else "")]
        marks: list[str] = []
        if t.is_leaf:
            marks.append("leaf")
            status = "leaf_grad" if t.requires_grad else "leaf"
            rows.append("leaf, requires_grad" if t.requires_grad else "leaf")
        else:
            status = "tensor"
            if t.grad_node is not None:
                rows.append(f"grad_fn {state.node_name(t.grad_node)}")
        if t.version:
            rows.append(f"version {t.version}")
        if t.value is not None and not isinstance(t.value, dict):
            rows.append(fmt_value(t.value, 32))
        g.nodes.append(GNode(key=f"t{tid}", title=t.name, rows=rows, kind="tensor", status=status, marks=tuple(marks)))
    for c in calls:
        kernel, fallback = _kernel_text(c)
        key = c.key or {}
        rows = [f"kernel {kernel}"]
        flags = attrs_row(c.attrs)
        if flags:
            rows.append(flags)
        if key:
            rows.append(f"key {key.get('backend')}/{key.get('layout')}/{key.get('dtype')}")
        if fallback:
            rows.append("CPU fallback")
        if c.amp_casts:
            rows.append(f"AMP casts: {len(c.amp_casts)}")
        if c.node is not None:
            rows.append(f"grad node {state.node_name(c.node)}")
        ck = f"c{c.index}"
        made = state.nodes.get(c.node) if c.node is not None else None
        g.nodes.append(GNode(key=ck, title=c.op, rows=rows, kind="op", status="fallback" if fallback else "op",
                             cluster=_recompute_cluster(g, state, made) if made is not None else None))
        multi = len(c.inputs) > 1
        for pos, inp in enumerate(c.inputs):
            if isinstance(inp, int) and not isinstance(inp, bool) and inp in state.tensors:
                g.edges.append(GEdge(tail=f"t{inp}", head=ck, label=str(pos) if multi else "", style="data",
                                     key=f"{ck}_in{pos}"))
            else:
                kk = f"{ck}_k{pos}"
                g.nodes.append(GNode(key=kk, title=fmt_value(inp, 16), kind="const", status="leaf"))
                g.edges.append(GEdge(tail=kk, head=ck, label=str(pos) if multi else "", style="data", key=f"{ck}_in{pos}"))
        for o in call_outputs(state, c):
            if o in state.tensors:
                g.edges.append(GEdge(tail=ck, head=f"t{o}", style="data", key=f"{ck}_out{o}"))
    if title:
        which = "every forward pass" if all_passes or number is None else f"forward pass {number} (builds backward pass {number})"
        g.title = f"{which} · events {first}–{max(first, stop - 1)} · {len(calls)} op calls"
    return g


# ---------------------------------------------------------------------------
# Kernel selection of one op call
# ---------------------------------------------------------------------------


def select_call(state: State, call: int | str | None = None) -> OpCall:
    """Pick an op call: by position in ``state.calls``, by op name (first match), or the last one.

    Raises:
        LookupError: no such call (the message lists what there is).
    """
    calls = state.calls
    if not calls:
        raise LookupError("the trace has no op calls (api.call events) to show kernel selection for")
    if call is None:
        fwd = [c for c in calls if c.phase == "forward"] or list(calls)
        return fwd[-1]
    if isinstance(call, str):
        for c in calls:
            if c.op == call:
                return c
        ops = sorted({c.op for c in calls})
        raise LookupError(f"no op call named '{call}'; the trace has: {', '.join(ops)}")
    if not -len(calls) <= call < len(calls):
        raise LookupError(f"op call {call} out of range: the trace has {len(calls)} calls (0..{len(calls) - 1})")
    return calls[call]


def collect_kernel(state: State, call: int | str | None = None, *, title: bool = True) -> Graph:
    """Collect the kernel-selection steps of one op call as a top-to-bottom chain.

    API call -> AMP casts -> KernelKey -> each registry probe (hit/miss) ->
    selected kernel (fallback?) -> PrepareData transforms -> InferMeta -> launch.
    """
    c = select_call(state, call)
    g = Graph(kind="kernel", legend=False)
    steps: list[GNode] = []

    def add(title_: str, rows: Sequence[str], status: str = "step") -> None:
        steps.append(GNode(key=f"k{len(steps)}", title=title_, rows=list(rows), kind="step", status=status))

    inputs = []
    for i in c.inputs:
        t = state.tensors.get(i) if isinstance(i, int) and not isinstance(i, bool) else None
        inputs.append(f"{t.name}: {fmt_shape(t.shape)} {t.dtype} @{t.device}" if t else fmt_value(i, 16))
    attrs = [f"{k}={v}" for k, v in sorted(c.attrs.items())]
    add(f"{c.op}(…)  [{c.phase}]", [f"in{p}: {s}" for p, s in enumerate(inputs)] + attrs, "op")
    for cast in c.amp_casts:
        add("AMP auto-cast", [f"{state.tensor_name(cast.get('tensor'))}: {cast.get('from_dtype')} -> {cast.get('to_dtype')}"])
    if c.key:
        add("KernelKey", [f"backend {c.key.get('backend')}", f"layout {c.key.get('layout')}", f"dtype {c.key.get('dtype')}"])
    if sel_cached := bool(c.select and c.select.get("cached")):
        add("cached selection", ["the probes of the first search were:"] if c.lookups else ["no probes: found in the cache"])
    for n, probe in enumerate(c.lookups, start=1):
        hit = bool(probe.get("found"))
        add(f"probe {n}: {probe.get('step')}", [f"{probe.get('backend')}/{probe.get('layout')}/{probe.get('dtype')}",
                                                 "HIT" if hit else "miss"], "hit" if hit else "miss")
    sel = c.select
    if sel:
        rows = [f"{sel.get('backend')}/{sel.get('layout')}/{sel.get('dtype')}"]
        if sel_cached:
            rows.append("from the selection cache")
        if sel.get("fallback_cpu"):
            rows.append("CPU fallback: output copied back")
        add(f"selected {sel.get('kernel')}", rows, "fallback" if sel.get("fallback_cpu") else "hit")
    elif c.lookups:
        add("no kernel found", ["every probe missed"], "miss")
    for t in c.transforms:
        add(f"PrepareData: {t.get('arg')}", [f"{t.get('what')}: {t.get('from')} -> {t.get('to')}"])
    if c.infer_meta:
        shapes = ", ".join(fmt_shape(s) for s in c.infer_meta.get("shapes", []))
        dtypes = ", ".join(str(d) for d in c.infer_meta.get("dtypes", []))
        add("InferMeta", [f"shapes {shapes}", f"dtypes {dtypes}"])
    if c.launch:
        add(f"launch {c.launch.get('kernel')}", [f"{c.launch.get('backend')}", f"{c.launch.get('wall_ns', 0) / 1000:.1f} µs"], "op")
    outputs = call_outputs(state, c)
    if outputs:
        add("outputs", [f"{state.tensor_name(o)}" for o in outputs])
    g.nodes = steps
    for a, b in zip(steps, steps[1:]):
        g.edges.append(GEdge(tail=a.key, head=b.key, style="flow", key=f"{a.key}_{b.key}"))
    if title:
        g.title = f"kernel selection for {c.op} (call {state.calls.index(c)}, event {c.index})"
    return g
