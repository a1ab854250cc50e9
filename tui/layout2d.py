"""The backward graph laid out in two dimensions for a character screen, by Graphviz.

Graphviz's ``dot`` places the nodes in layers and routes the edges around
them (``dot -Tplain`` prints the positions and each edge's spline); this
module only turns that geometry into character cells: a box per node, and
each spline sampled and drawn with ``│ ─ ╲ ╱`` ending in an arrowhead. No
layout is computed here, so the picture has the same shape as the SVG the
renderer draws.

The result is static per pass (node positions never move while stepping);
the widget (``widgets/canvas.py``) paints each box's status and counters on
top for the state on screen.

Units: one column is 0.1 inch and one row 0.2 inch in Graphviz's
coordinates, so a box of ``w`` columns and ``BOX_ROWS`` rows is
``w/10 × BOX_ROWS/5`` inches.

Example:
    >>> lay = layout_graph({1: "SumBackward0#1", 2: "MulBackward0#2"}, [(1, 2, False)])  # doctest: +SKIP
    >>> print("\\n".join(lay.rows))                                                      # doctest: +SKIP
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any

__all__ = ["GRAD", "CUT", "REPLACED", "Box", "Canvas", "layout_graph", "pass_canvas", "fold_chains", "pass_graph", "group_by_module", "module_of", "FOLD_OVER", "FOLD_MIN", "LayoutUnavailable", "BOX_ROWS", "MAX_NODES"]

#: Edge styles: an ordinary edge, one GeneralGrad cut (``no_grad_vars``), and one an in-place change
#: through a view replaced (the consumer's edge to the base's old history, now to the CopySlices node).
GRAD, CUT, REPLACED = "grad", "cut", "replaced"

COL_IN = 0.1  # inches per column
ROW_IN = 0.2  # inches per row
BOX_ROWS = 3  # top border holding the name, counters, bottom border
#: Above this many boxes (after folding chains) the pane opens as a list (``g`` still asks for the 2-D view).
MAX_NODES = 400
#: Passes with more nodes than this fold plain chains of at least FOLD_MIN nodes into one box.
FOLD_OVER = 40
FOLD_MIN = 5


class LayoutUnavailable(RuntimeError):
    """Graphviz's ``dot`` is missing or failed; the pane falls back to the list view."""


@dataclass(frozen=True)
class Box:
    """Where a node's box sits: top-left cell and size."""

    node: int
    x: int
    y: int
    width: int
    height: int = BOX_ROWS


@dataclass
class Canvas:
    """The static picture of one pass: edge characters per row, boxes, and where each edge's cells are.

    Attributes:
        rows: one string per screen row holding the edges (boxes are painted over them).
        edge_style: per row, ``(x0, x1, style)`` runs of edge characters (``GRAD``, ``CUT`` or ``REPLACED``).
        boxes: node id -> its Box.
        by_row: row -> the boxes that cover it (for painting only the rows on screen).
        width, height: size in cells.
    """

    rows: list[str]
    edge_style: list[list[tuple[int, int, str]]]
    boxes: dict[int, Box]
    by_row: dict[int, list[Box]] = field(default_factory=dict)
    width: int = 0
    height: int = 0
    folds: dict[int, tuple[int, ...]] = field(default_factory=dict)  # fold box id (< 0) -> member nodes
    owner: dict[int, int] = field(default_factory=dict)  # folded node -> its fold box id
    titles: dict[int, str] = field(default_factory=dict)  # fold box id -> its title

    def box_of(self, node: int) -> Box | None:
        """The box showing ``node``: its own, or the fold it sits in."""
        return self.boxes.get(self.owner.get(node, node))


def box_width(label: str) -> int:
    """Columns of a node box: the name plus borders and a status glyph, at least 24: room for the
    status row of a leaf's node with a short name (``in 0/1 w1 input ending``)."""
    return min(max(len(label) + 6, 24), 72)


def _dot_id(nid: int) -> str:
    """``n3`` for node 3, ``f2`` for fold box -2 (DOT ids cannot start with a minus)."""
    return f"n{nid}" if nid >= 0 else f"f{-nid}"


def _parse_id(name: str) -> int:
    return int(name[1:]) if name[0] == "n" else -int(name[1:])


def _dot_source(labels: dict[int, str], edges: list[tuple[int, int, str]]) -> str:
    lines = [
        "digraph G {",
        "  rankdir=TB; nodesep=0.3; ranksep=0.45; splines=true;",
        f"  node [shape=box fixedsize=true height={BOX_ROWS * ROW_IN:.2f} label=\"\"];",
        "  edge [arrowhead=none];",
    ]
    for nid, label in labels.items():
        lines.append(f"  {_dot_id(nid)} [width={box_width(label) * COL_IN:.2f}];")
    for a, b, style in edges:
        # A replaced edge (history rewritten) is drawn where the layout puts it, never moving a box.
        extra = " [constraint=false]" if style == REPLACED else ""
        lines.append(f"  {_dot_id(a)} -> {_dot_id(b)}{extra};")
    lines.append("}")
    return "\n".join(lines)


def _run_dot(source: str) -> str:
    exe = shutil.which("dot")
    if exe is None:
        raise LayoutUnavailable("Graphviz's 'dot' program is not installed (apt-get install graphviz)")
    try:
        done = subprocess.run([exe, "-Tplain"], input=source, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LayoutUnavailable(f"dot failed: {exc}") from None
    if done.returncode != 0:
        raise LayoutUnavailable(f"dot failed: {done.stderr.strip()[:200]}")
    return done.stdout


def _bezier(points: list[tuple[float, float]], steps: int) -> list[tuple[float, float]]:
    """Sample a piecewise cubic Bezier curve (dot's spline: 1 + 3k control points)."""
    out = [points[0]]
    for i in range(0, len(points) - 3, 3):
        p0, p1, p2, p3 = points[i : i + 4]
        for s in range(1, steps + 1):
            t = s / steps
            u = 1 - t
            x = u**3 * p0[0] + 3 * u * u * t * p1[0] + 3 * u * t * t * p2[0] + t**3 * p3[0]
            y = u**3 * p0[1] + 3 * u * u * t * p1[1] + 3 * u * t * t * p2[1] + t**3 * p3[1]
            out.append((x, y))
    return out


def _glyph(dx: int, dy: int, dashed: bool = False) -> str:
    """The line character for a path moving (dx columns, dy rows) across a cell (``dashed``: a replaced edge)."""
    if dy == 0:
        return "╌" if dashed else "─"
    if dx == 0 or abs(dx) < abs(dy):
        return "┆" if dashed else "│"
    if dashed:
        return "⋱" if (dx > 0) == (dy > 0) else "⋰"
    return "╲" if (dx > 0) == (dy > 0) else "╱"


def _cells(points: list[tuple[float, float]]) -> list[tuple[int, int]]:
    """The cells a densely sampled curve passes, one per step, without the corner cell of a diagonal step."""
    out: list[tuple[int, int]] = []
    for k in range(len(points) - 1):
        (x0, y0), (x1, y1) = points[k], points[k + 1]
        n = max(1, int(max(abs(x1 - x0), abs(y1 - y0)) * 3))
        for s in range(n + 1):
            c = (int(x0 + (x1 - x0) * s / n), int(y0 + (y1 - y0) * s / n))
            if not out or out[-1] != c:
                out.append(c)
    thin: list[tuple[int, int]] = []
    for i, c in enumerate(out):
        if thin and i + 1 < len(out):
            a, b = thin[-1], out[i + 1]
            if abs(a[0] - b[0]) == 1 and abs(a[1] - b[1]) == 1:
                continue  # a and b touch diagonally: c is the corner of a staircase
        thin.append(c)
    return thin


def layout_graph(labels: dict[int, str], edges: list[tuple[int, int, str]]) -> Canvas:
    """Lay out nodes (id -> label) and edges ``(tail, head, style)`` with ``dot``; return the character picture.

    ``style`` is ``GRAD``, ``CUT`` (drawn red, ending in ``✂``) or ``REPLACED`` (dashed, ending in
    ``▽``/``◁``/``▷``, labelled ``replaced`` where there is room).

    Raises:
        LayoutUnavailable: ``dot`` is missing or failed.
    """
    text = _run_dot(_dot_source(labels, edges))
    height_in = 0.0
    centres: dict[int, tuple[float, float]] = {}
    splines: list[tuple[int, int, list[tuple[float, float]]]] = []
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "graph":
            height_in = float(parts[3])
        elif parts[0] == "node":
            centres[_parse_id(parts[1])] = (float(parts[2]), float(parts[3]))
        elif parts[0] == "edge":
            n = int(parts[3])
            pts = [(float(parts[4 + 2 * k]), float(parts[5 + 2 * k])) for k in range(n)]
            splines.append((_parse_id(parts[1]), _parse_id(parts[2]), pts))

    def cell(x: float, y: float) -> tuple[float, float]:
        return x / COL_IN, (height_in - y) / ROW_IN

    boxes: dict[int, Box] = {}
    for nid, (cx, cy) in centres.items():
        w = box_width(labels[nid])
        col, row = cell(cx, cy)
        boxes[nid] = Box(nid, max(0, round(col - w / 2)), max(0, round(row - BOX_ROWS / 2)), w)
    width = max((b.x + b.width for b in boxes.values()), default=0) + 2
    height = max((b.y + b.height for b in boxes.values()), default=0) + 1
    grid = [[" "] * width for _ in range(height)]
    styled: dict[tuple[int, int], str] = {}  # cell -> the style of the edge drawn there, when not GRAD
    style_of = {(a, b): st for a, b, st in edges}
    inside = [[False] * width for _ in range(height)]
    for b in boxes.values():
        for yy in range(b.y, min(height, b.y + b.height)):
            for xx in range(b.x, min(width, b.x + b.width)):
                inside[yy][xx] = True

    # Ordinary edges first: a replaced edge never hides one where they cross.
    splines.sort(key=lambda sp: style_of.get((sp[0], sp[1]), GRAD) == REPLACED)
    for tail, head, pts in splines:
        path = _cells([cell(x, y) for x, y in (_bezier(pts, 16) if len(pts) >= 4 else pts)])
        path = [(c, r) for c, r in path if 0 <= r < height and 0 <= c < width and not inside[r][c]]
        _draw_path(grid, styled, path, style_of.get((tail, head), GRAD))
    rows = ["".join(r) for r in grid]
    edge_style: list[list[tuple[int, int, str]]] = []
    for r, row in enumerate(rows):
        runs: list[tuple[int, int, str]] = []
        for c, ch in enumerate(row):
            if ch == " ":
                continue
            st = styled.get((c, r), GRAD)
            if runs and runs[-1][1] == c and runs[-1][2] == st:
                runs[-1] = (runs[-1][0], c + 1, st)
            else:
                runs.append((c, c + 1, st))
        edge_style.append(runs)
    by_row: dict[int, list[Box]] = {}
    for b in boxes.values():
        for yy in range(b.y, b.y + b.height):
            by_row.setdefault(yy, []).append(b)
    for lst in by_row.values():
        lst.sort(key=lambda b: b.x)
    return Canvas(rows=rows, edge_style=edge_style, boxes=boxes, by_row=by_row, width=width, height=height)


def _draw_path(grid: list[list[str]], styled: dict[tuple[int, int], str], path: list[tuple[int, int]],
               style: str) -> None:
    """One edge's cells into ``grid``, its end marked; a replaced edge is dashed, keeps the cells of
    ordinary edges it crosses, and carries the word ``replaced`` where the row has room."""
    dashed = style == REPLACED
    for i, (c, r) in enumerate(path):
        a_ = path[i - 1] if i else (c, r - 1)
        b_ = path[i + 1] if i + 1 < len(path) else (c, r + 1)
        ch = _glyph(b_[0] - a_[0], b_[1] - a_[1], dashed)
        old = grid[r][c]
        if dashed and old != " ":
            continue
        grid[r][c] = "┼" if {old, ch} == {"│", "─"} else ch
        if style != GRAD:
            styled[(c, r)] = style
    if not path:
        return
    c, r = path[-1]
    pc, pr = path[max(0, len(path) - 3)] if len(path) > 1 else (c, r - 1)
    if style == CUT:
        grid[r][c] = "✂"
    elif not dashed:
        grid[r][c] = "▼" if r > pr else ("▶" if c > pc else "◀")
    elif grid[r][c] == " " or styled.get((c, r)) == REPLACED:
        grid[r][c] = "▽" if r > pr else ("▷" if c > pc else "◁")
        styled[(c, r)] = REPLACED
    if dashed:
        _label(grid, styled, path, " replaced ")


def _label(grid: list[list[str]], styled: dict[tuple[int, int], str], path: list[tuple[int, int]], word: str) -> None:
    """``word`` beside the middle of ``path``, on the first row near it with enough blank cells."""
    width = len(grid[0]) if grid else 0
    mid = len(path) // 2
    for c, r in path[mid:] + path[:mid]:
        for x in (c + 1, c - len(word)):
            if 0 <= x and x + len(word) <= width and all(grid[r][x + k] == " " for k in range(len(word))):
                for k, ch in enumerate(word):
                    grid[r][x + k] = ch
                    styled[(x + k, r)] = REPLACED
                return


def fold_chains(order: list[int], edges: list[tuple[int, int, str]], keep: set[int]) -> dict[int, tuple[int, ...]]:
    """Runs of ``FOLD_MIN`` or more nodes in a plain chain (one edge in, one edge out), as the SVG renderer folds them.

    Returns:
        fold id (negative) -> the member node ids, in chain order. ``keep``
        (start nodes, nodes with cut edges) never fold.
    """
    succ: dict[int, list[int]] = {n: [] for n in order}
    pred: dict[int, list[int]] = {n: [] for n in order}
    for a, b, _ in edges:
        succ[a].append(b)
        pred[b].append(a)
    plain = {n for n in order if len(succ[n]) == 1 and len(pred[n]) == 1 and n not in keep}
    folds: dict[int, tuple[int, ...]] = {}
    seen: set[int] = set()
    for n in order:
        if n not in plain or n in seen or pred[n][0] in plain:
            continue  # not the head of a run
        run = [n]
        while succ[run[-1]][0] in plain and succ[run[-1]][0] not in seen:
            run.append(succ[run[-1]][0])
        seen.update(run)
        if len(run) >= FOLD_MIN:
            folds[-1 - len(folds)] = tuple(run)
    return folds


def module_of(lay: Any, node: int) -> str | None:
    """The ``nn.Module`` path that made ``node`` (a GeneralGrad copy: its original's), if recorded."""
    info = lay.nodes[node]
    if info.module is None and info.copy_of is not None and info.copy_of in lay.nodes:
        return lay.nodes[info.copy_of].module
    return info.module


def group_by_module(lay: Any) -> dict[int, tuple[int, ...]]:
    """fold id (< 0) -> the nodes one ``nn.Module`` made (modules that made two or more nodes)."""
    groups: dict[str, list[int]] = {}
    for n in lay.order:
        module = module_of(lay, n)
        if module:
            groups.setdefault(module, []).append(n)
    out: dict[int, tuple[int, ...]] = {}
    for members in groups.values():
        if len(members) >= 2:
            out[-1 - len(out)] = tuple(members)
    return out


def pass_graph(
    lay: Any, modules: bool = False
) -> tuple[dict[int, str], list[tuple[int, int, str]], dict[int, tuple[int, ...]]]:
    """What the pane draws for a pass (a ``model.PassLayout``): box labels, edges ``(tail, head, style)``, folds.

    A pass of more than ``FOLD_OVER`` nodes folds its long plain chains into
    one box each (ids < 0), so deep graphs stay readable and quick to lay out;
    with ``modules`` the nodes each ``nn.Module`` made fold into one box
    instead (recorded traces carry the module path). Cut edges (GeneralGrad,
    ``no_grad_vars``) are included, and the edges a rewritten history replaced
    (``REPLACED``: they take no part in folding).
    """
    labels = {n: lay.nodes[n].name for n in lay.order}
    edges: list[tuple[int, int, str]] = []
    for n in lay.order:
        for e in lay.nodes[n].edges:
            if e.next in labels:
                edges.append((n, e.next, GRAD))
    for a, b in lay.cut:
        if a in labels and b in labels:
            edges.append((a, b, CUT))
    replaced = [(a, b, REPLACED) for a, b in getattr(lay, "replaced", ()) if a in labels and b in labels]
    folds: dict[int, tuple[int, ...]] = {}
    if modules:
        folds = group_by_module(lay)
    elif len(labels) > FOLD_OVER:
        keep = {a for a, _ in lay.cut} | {b for _, b in lay.cut} | set(lay.order[:1])
        folds = fold_chains(list(lay.order), edges, keep)
    owner = {m: fid for fid, members in folds.items() for m in members}
    for fid, members in folds.items():
        labels[fid] = fold_title(lay, members, modules)
        for m in members:
            del labels[m]
    folded = []
    for a, b, style in edges + replaced:
        a2, b2 = owner.get(a, a), owner.get(b, b)
        if a2 != b2:
            folded.append((a2, b2, style))
    return labels, folded, folds


def fold_title(lay: Any, members: tuple[int, ...], modules: bool) -> str:
    """``▣ Sequential.0 (Linear) · 4 nodes`` for a module, ``⋯ 396 nodes: A … B`` for a chain."""
    if modules:
        return f"▣ {module_of(lay, members[0])} · {len(members)} nodes"
    return f"⋯ {len(members)} nodes: {lay.nodes[members[0]].name} … {lay.nodes[members[-1]].name}"


def pass_canvas(lay: Any, modules: bool = False) -> Canvas:
    """The 2-D picture of a pass (see ``pass_graph``), laid out by Graphviz.

    Raises:
        LayoutUnavailable: ``dot`` is missing or failed.
    """
    labels, edges, folds = pass_graph(lay, modules)
    canvas = layout_graph(labels, edges)
    canvas.folds = folds
    canvas.titles = {fid: labels[fid] for fid in folds}
    canvas.owner = {m: fid for fid, members in folds.items() for m in members}
    return canvas
