"""Helpers for the renderer tests: an SVG reader, fixture paths, the Graphviz skip mark.

(A uniquely named module rather than ``conftest``, so ``from viz_helpers import ...``
is unambiguous when other test folders have their own ``conftest.py``.)
"""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HERE = Path(__file__).parent

FIXTURES = HERE / "fixtures"
SVG_NS = "{http://www.w3.org/2000/svg}"

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")


@dataclass
class SvgNode:
    """What one ``<g class="node ...">`` group of a Graphviz SVG shows."""

    id: str
    title: str
    classes: set[str]
    texts: list[str]
    fills: list[str]
    strokes: list[str]
    dashed: bool
    stroke_width: str
    coords: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(self.texts)

    @property
    def fill(self) -> str:
        """Fill of the outline shape (the node's status colour)."""
        return self.fills[0] if self.fills else ""

    @property
    def center(self) -> tuple[float, float]:
        """Centre of the outline shape's bounding box (stable when only borders change)."""
        nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", self.coords[0])]
        xs, ys = nums[0::2], nums[1::2]
        return round((min(xs) + max(xs)) / 2, 1), round((min(ys) + max(ys)) / 2, 1)

    @property
    def stroke(self) -> str:
        return self.strokes[0] if self.strokes else ""


def _group(g: ET.Element) -> SvgNode:
    title = g.find(f"{SVG_NS}title")
    texts = [t.text or "" for t in g.iter(f"{SVG_NS}text")]
    fills, strokes, coords, dashed, width = [], [], [], False, ""
    for el in g:
        tag = el.tag.replace(SVG_NS, "")
        if tag in ("polygon", "path", "ellipse", "polyline"):
            fills.append(el.get("fill", ""))
            strokes.append(el.get("stroke", ""))
            coords.append(el.get("points") or el.get("d") or f"{el.get('cx')},{el.get('cy')}")
            if el.get("stroke-dasharray"):
                dashed = True
            width = width or el.get("stroke-width", "")
    return SvgNode(
        id=g.get("id", ""),
        title=title.text if title is not None else "",
        classes=set((g.get("class") or "").split()),
        texts=texts,
        fills=fills,
        strokes=strokes,
        dashed=dashed,
        stroke_width=width,
        coords=coords,
    )


def parse_svg(svg: str) -> tuple[dict[str, SvgNode], dict[str, SvgNode]]:
    """Nodes and edges of a Graphviz SVG by their ``id`` attribute."""
    root = ET.fromstring(svg)
    nodes, edges = {}, {}
    for g in root.iter(f"{SVG_NS}g"):
        classes = (g.get("class") or "").split()
        if "node" in classes:
            n = _group(g)
            nodes[n.id] = n
        elif "edge" in classes:
            e = _group(g)
            edges[e.id] = e
    return nodes, edges
