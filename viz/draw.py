"""Drawing: a collected ``Graph`` -> ``graphviz.Digraph`` (DOT). Never writes files.

Every box is an HTML-like label: a bold title row with badges, then plain
rows. The SVG keeps the DOT names as ``<title>`` and the ids/classes set here
(``id="n3"``, ``class="node grad queued startup"``; Graphviz adds ``node``), which is what the tests
and any CSS or JavaScript on top of the SVG can rely on.

Legend (also drawn in every backward graph; see ``style.py``):

- fill colour = status: white idle, pale yellow pending, blue queued,
  orange running, green done, grey-blue released, light grey pruned;
- ``in N`` badge = the node's current in-degree (green when 0, yellow when it
  changed at this step); ``Q1`` badge = position in the ready queue, front = 1;
- edge label ``sS rR`` = the gradient leaves through output slot S, rank R;
- rounded box = grad node, cylinder = AccumulationNode (writes a leaf's ``.grad``);
- a raspberry border = a CopySlices node (an in-place change through a view rewrote
  a base's history), a dashed grey edge labelled ``replaced`` = the edge that
  rewrite replaced (docs/concepts/views.md);
- GeneralGrad: purple bold border = startup node, teal bold border = ending
  node, dashed grey box = pruned (not needed), red dashed edge = cut by
  ``no_grad_vars``; in flip-books, faded dashed boxes are copies not made yet.

Example:
    >>> from minigrad.viz.graph import Graph, GNode
    >>> dot = to_digraph(Graph(kind="backward", nodes=[GNode(key="n1", title="SumBackward0#1")]))
    >>> 'n1 [' in dot.source
    True
"""

from __future__ import annotations

import html
from typing import Any

import graphviz

from .graph import GEdge, GNode, Graph
from .style import BADGE, EDGE_PRUNED, EDGE_REPLACED, FONT, FORWARD_FILL, MARK_COLOUR, STATUS_FILL, STATUS_TEXT

__all__ = ["to_digraph", "CHAR_PT", "ROW_PT"]

# Generous per-character and per-row sizes (points) used as *minimum* node
# sizes, so a node keeps its size across flip-book frames (labels smaller
# than the minimum do not move the layout).
CHAR_PT = 6.4
ROW_PT = 15.0


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _fill(g: Graph, n: GNode) -> str:
    if g.kind == "backward":
        return STATUS_FILL.get(n.status, "#ffffff")
    return FORWARD_FILL.get(n.status, "#ffffff")


def _label(g: Graph, n: GNode) -> str:
    badges = []
    # Fixed-size badge cells: a node wider than its text (flip-book minimum sizes)
    # gives the extra room to the title cell, not to the badges.
    for text, colour in (
        (f"in {n.in_degree}" if n.in_degree is not None else None, BADGE[n.in_degree_state]),
        (f"Q{n.queue_pos}" if n.queue_pos is not None else None, STATUS_FILL["queued"]),
    ):
        if text is None:
            continue
        width = 8 + 5 * len(text)
        badges.append(
            f'<TD BGCOLOR="{colour}" BORDER="1" CELLPADDING="1" FIXEDSIZE="TRUE" WIDTH="{width}" HEIGHT="14">'
            f'<FONT POINT-SIZE="9">{_esc(text)}</FONT></TD>'
        )
    cols = 1 + len(badges)
    parts = ['<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="0">']
    parts.append(f'<TR><TD ALIGN="LEFT"><B>{_esc(n.title)}</B></TD>{"".join(badges)}</TR>')
    for r in n.rows:
        parts.append(f'<TR><TD ALIGN="LEFT" COLSPAN="{cols}"><FONT POINT-SIZE="9">{_esc(r)}</FONT></TD></TR>')
    parts.append("</TABLE>")
    return "<" + "".join(parts) + ">"


def _node_attrs(g: Graph, n: GNode) -> dict[str, str]:
    style = ["filled"]
    shape = "box"
    attrs: dict[str, str] = {"id": n.key, "fillcolor": _fill(g, n)}
    classes = [n.kind, n.status, *n.marks]
    if n.kind in ("grad", "chain", "op", "step"):
        style.append("rounded")
    if n.kind == "accumulation":
        shape = "cylinder"
    if n.kind == "tensor":
        shape = "ellipse"
        if "leaf" in n.marks and n.status == "leaf_grad":
            attrs["peripheries"] = "2"
    if n.kind == "const":
        shape = "plaintext"
    if n.kind == "chain":
        style.append("dashed")
    if n.status == "pruned":
        style.append("dashed")
        attrs["fontcolor"] = "#777777"
        attrs["color"] = "#999999"
    if n.status == "running":
        attrs["penwidth"] = "2.5"
    if "startup" in n.marks:
        attrs["color"] = MARK_COLOUR["startup"]
        attrs["penwidth"] = "3"
    if "ending" in n.marks:
        # A bold border, not peripheries=2: a second periphery would grow the node
        # and move the flip-book layout at the step the mark appears.
        attrs["color"] = MARK_COLOUR["ending"]
        attrs["penwidth"] = "3"
    if "copyslices" in n.marks:
        attrs["color"] = MARK_COLOUR["copyslices"]
        attrs["penwidth"] = "2.5"
    if "future" in n.marks:
        style.append("dashed")
        attrs.update(fillcolor="#ffffff", color="#bbbbbb", fontcolor="#999999")
    if n.hidden:
        style = ["invis"]
        classes.append("hidden")
    attrs["shape"] = shape
    attrs["style"] = ",".join(style)
    attrs["class"] = " ".join(dict.fromkeys(classes))
    chars = max([n.min_chars, len(n.title) + 6 * ((n.in_degree is not None) + (n.queue_pos is not None))]
                + [len(r) for r in n.rows])
    nrows = max(n.min_rows, 1 + len(n.rows))
    attrs["width"] = f"{(chars * CHAR_PT + 16) / 72:.2f}"
    cap = 16 if shape == "cylinder" else 0  # a cylinder's caps take height from its label area
    attrs["height"] = f"{(nrows * ROW_PT + 10 + cap) / 72:.2f}"
    attrs["label"] = _label(g, n) if not n.hidden else n.key
    return attrs


def _edge_attrs(e: GEdge) -> dict[str, str]:
    attrs: dict[str, str] = {"class": e.style}
    if e.key:
        attrs["id"] = e.key
    if e.label:
        attrs["label"] = e.label
    if e.style == "pruned":
        attrs.update(style="dashed", color=EDGE_PRUNED, fontcolor=EDGE_PRUNED, xlabel="cut: no_grad_vars")
    elif e.style == "future":
        attrs.update(style="dotted", color="#bbbbbb", fontcolor="#999999")
    elif e.style == "flow":
        attrs.update(color="#555555")
    elif e.style == "data":
        attrs.update(color="#1565c0", arrowsize="0.7")
    elif e.style == "replaced":
        attrs.update(style="dashed", color=EDGE_REPLACED, fontcolor=EDGE_REPLACED, constraint="false",
                     arrowhead="empty")
    return attrs


def _legend(g: Graph) -> str:
    rows = ['<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="1" CELLPADDING="2" COLOR="#999999">',
            '<TR><TD COLSPAN="2"><B>legend</B></TD></TR>']
    # Each swatch shows the real thing: the fill, the badge text, the edge label, the node shape's mark.
    extra: list[tuple[str, str, str]] = []  # (fill, sample text in the swatch, meaning)
    if g.kind == "backward":
        used = {nd.status for nd in g.nodes}
        for status in ("idle", "pending", "queued", "running", "done", "released", "pruned"):
            if status == "idle" and "idle" not in used:
                continue
            extra.append((STATUS_FILL[status], "", STATUS_TEXT[status]))
        extra += [
            (BADGE["normal"], "in 2", "current in-degree"),
            (BADGE["zero"], "in 0", "in-degree 0: all its gradients are in"),
            (BADGE["changed"], "in 1", "in-degree changed at this step"),
            (STATUS_FILL["queued"], "Q1", "k-th in the ready queue (Q1 = front)"),
            ("#ffffff", "s0 r1 →", "edge from output slot 0, rank 1"),
            ("#ffffff", "◖ ◗", "cylinder: AccumulateGrad (writes a leaf's .grad)"),
        ]
        if any("copyslices" in nd.marks for nd in g.nodes):
            extra += [
                (MARK_COLOUR["copyslices"], "", "raspberry border: CopySlices node (a base's rewritten history)"),
                (EDGE_REPLACED, "╌▷", "dashed grey edge: the edge that rewrite replaced"),
            ]
        if g.mode == "grad":
            extra += [
                (MARK_COLOUR["startup"], "", "bold purple border: startup node"),
                (MARK_COLOUR["ending"], "", "bold teal border: ending node"),
                (EDGE_PRUNED, "✂", "red dashed edge: cut (no_grad_vars)"),
            ]
    else:
        extra = [
            (FORWARD_FILL["leaf_grad"], "", "leaf tensor, requires_grad"),
            (FORWARD_FILL["leaf"], "", "leaf tensor / constant"),
            (FORWARD_FILL["tensor"], "", "op output tensor"),
            (FORWARD_FILL["op"], "", "op call (kernel chosen)"),
            (FORWARD_FILL["fallback"], "", "op call that fell back to CPU"),
        ]
    for colour, sample, text in extra:
        fg = "#ffffff" if colour in (MARK_COLOUR["startup"], MARK_COLOUR["ending"], MARK_COLOUR["copyslices"],
                                     EDGE_PRUNED, EDGE_REPLACED) else "#000000"
        swatch = f'<FONT POINT-SIZE="8" COLOR="{fg}">{_esc(sample)}</FONT>' if sample else " "
        rows.append(f'<TR><TD BGCOLOR="{colour}" BORDER="1" WIDTH="18">{swatch}</TD>'
                    f'<TD ALIGN="LEFT"><FONT POINT-SIZE="9">{_esc(text)}</FONT></TD></TR>')
    rows.append("</TABLE>")
    return "<" + "".join(rows) + ">"


def _queue_label(g: Graph) -> str:
    names = g.queue or []
    cells = "".join(
        f'<TD BGCOLOR="{STATUS_FILL["queued"]}" BORDER="1"><FONT POINT-SIZE="9">Q{i} {_esc(n)}</FONT></TD>'
        for i, n in enumerate(names, start=1)
    ) or '<TD><FONT POINT-SIZE="9" COLOR="#777777">(empty)</FONT></TD>'
    return ('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2"><TR>'
            '<TD><B>ready queue</B> <FONT POINT-SIZE="9">front →</FONT></TD>'
            f"{cells}"
            '<TD><FONT POINT-SIZE="9">← back</FONT></TD></TR></TABLE>>')


def to_digraph(g: Graph, *, name: str | None = None) -> graphviz.Digraph:
    """Draw a collected ``Graph`` as a ``graphviz.Digraph`` (call ``.pipe``/``.source`` on it).

    Args:
        g: the collected graph (``collect_backward``, ``collect_forward`` ...).
        name: the DOT graph name (default ``minigrad_<kind>``).
    """
    dot = graphviz.Digraph(name=name or f"minigrad_{g.kind}")
    dot.attr("graph", rankdir="TB", fontname=FONT, fontsize="12", nodesep="0.35", ranksep="0.45",
             newrank="true", outputorder="edgesfirst", bgcolor="white")
    if g.title:
        dot.attr("graph", label=g.title, labelloc="t", labeljust="l")
    dot.attr("node", fontname=FONT, fontsize="10", margin="0.08,0.04")
    dot.attr("edge", fontname=FONT, fontsize="9", arrowsize="0.8")
    if g.queue is not None:
        qchars = max(g.queue_min_len, sum(len(q) + 5 for q in g.queue) + 24)
        dot.node("queue", label=_queue_label(g), shape="box", style="rounded", color="#1565c0",
                 id="queue", width=f"{(qchars * CHAR_PT) / 72:.2f}", **{"class": "queue"})
    clusters: dict[str, list[GNode]] = {}
    for n in g.nodes:
        if n.cluster:
            clusters.setdefault(n.cluster, []).append(n)
            continue
        dot.node(n.key, **_node_attrs(g, n))
    for cid in sorted(clusters):
        with dot.subgraph(name=f"cluster_{cid}") as sub:
            sub.attr(label=g.clusters.get(cid, cid), style="rounded,dashed", color="#999999")
            for n in clusters[cid]:
                sub.node(n.key, **_node_attrs(g, n))
    for e in g.edges:
        dot.edge(e.tail, e.head, **_edge_attrs(e))
    if g.legend:
        dot.node("legend", label=_legend(g), shape="plaintext", id="legend", **{"class": "legend"})
    # Keep the queue strip above the graph: an invisible edge to the first visible root.
    if g.queue is not None:
        heads = {e.head for e in g.edges}
        roots = [n.key for n in g.nodes if n.key not in heads and not n.cluster]
        if roots:
            dot.edge("queue", roots[0], style="invis")
    return dot
