"""Flip-books: every step of one backward pass as a single self-contained HTML page.

One frame per step (every engine event of the pass, every event, or only the node runs), each an
inline SVG, with previous/next buttons, the arrow keys and a slider. The page
loads nothing from the network — styles, script and pictures are all inline —
so it works from a USB stick in a lecture hall or as an assignment hand-out.

NOTE [ Frames share one layout ]
    Every frame draws the same node set (the pass's nodes at its end; nodes
    not yet created, such as GeneralGrad copies, are drawn faded from the end state)
    and every node gets a minimum size large enough for the widest text it
    shows in *any* frame. So Graphviz places each node at the same spot in
    every frame and only colours, badges and previews change as you flip.

Example:
    >>> book = flipbook(tr)                      # doctest: +SKIP
    >>> book.save("backward.html"); len(book.frames)  # doctest: +SKIP
"""

from __future__ import annotations

import html
import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import graphviz

from minigrad.tracing.replay import Replay

from minigrad.tracing.describe import describe
from .draw import to_digraph
from .graph import Graph, backward_node_ids, collapse_chains, collect_backward
from .render import INSTALL_HINT, DotNotFoundError, to_replay
from .style import STATUS_FILL, STATUS_TEXT

__all__ = ["Flipbook", "Frame", "flipbook", "backward_steps"]

FRAME_MODES = ("step", "event", "node")

#: Forward-path kinds. Backward formulas run ops, so these also occur inside a
#: backward pass; they do not change the backward graph, so ``frames="step"``
#: skips them.
FORWARD_KINDS = frozenset({
    "api.call", "amp.cast", "kernel.key", "kernel.lookup", "kernel.select", "data.transform",
    "infer_meta", "kernel.launch", "tensor.create", "tensor.update",
})


def backward_steps(rp: Replay, backward_pass: int = -1, frames: str = "step") -> list[int]:
    """Event indices of the frames of one backward pass.

    Args:
        rp: the replayed trace.
        backward_pass: which pass (0-based; negative from the end).
        frames: ``"step"``: every engine event from ``backward.begin`` to
            ``backward.end`` (queue, in-degree, buffers, runs, releases,
            GeneralGrad; not the forward-path events of the ops that backward
            formulas call); ``"event"``: every event; ``"node"``: the begin,
            each ``node.run`` and the end.

    Raises:
        IndexError: the trace has no such backward pass.
        ValueError: unknown ``frames``.
    """
    if frames not in FRAME_MODES:
        raise ValueError(f"flipbook(): argument 'frames' must be 'step', 'event' or 'node', but got {frames!r}")
    passes = rp.backward_passes()
    if not passes:
        raise IndexError("the trace has no backward pass to flip through (no backward.begin event)")
    if not -len(passes) <= backward_pass < len(passes):
        raise IndexError(f"backward pass {backward_pass} out of range: the trace has {len(passes)} (0..{len(passes) - 1})")
    begin, end, _ = passes[backward_pass]
    last = end if end is not None else len(rp) - 1
    steps = list(range(begin, last + 1))
    if frames == "node":
        steps = [i for i in steps if i in (begin, last) or rp.events[i].kind == "node.run"]
    elif frames == "step":
        steps = [i for i in steps if rp.events[i].kind not in FORWARD_KINDS]
    return steps


@dataclass
class Frame:
    """One page of the flip-book."""

    step: int
    caption: str
    graph: Graph
    dot: str
    queue: list[str] = field(default_factory=list)
    svg: str = ""


def _strip_svg(svg: str) -> str:
    """SVG text ready to inline in HTML: no XML declaration, DOCTYPE (it names a URL) or comments."""
    svg = re.sub(r"<\?xml[^>]*\?>", "", svg)
    svg = re.sub(r"<!DOCTYPE[^>]*>", "", svg, flags=re.S)
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    return svg.strip()


class Flipbook:
    """The frames of a backward pass and the HTML page that flips through them.

    Attributes:
        frames: one ``Frame`` per step, in order.
        title: the page heading.
    """

    def __init__(self, frames: list[Frame], title: str) -> None:
        self.frames = frames
        self.title = title

    def html(self) -> str:
        """The self-contained HTML page (inline SVG, CSS and JavaScript; no network)."""
        n = len(self.frames)
        figures = []
        for k, f in enumerate(self.frames):
            hidden = "" if k == 0 else " hidden"
            figures.append(
                f'<section class="frame" id="frame-{k}" data-step="{f.step}" '
                f'data-caption="{html.escape(f.caption, quote=True)}" '
                f'data-queue="{html.escape(" | ".join(f.queue) or "(empty)", quote=True)}"{hidden}>\n{_strip_svg(f.svg)}\n</section>'
            )
        first = html.escape(self.frames[0].caption) if self.frames else ""
        first_queue = html.escape(" | ".join(self.frames[0].queue) or "(empty)") if self.frames else ""
        legend = "".join(
            f'<li><span class="sw" style="background:{STATUS_FILL[s]}"></span>{html.escape(STATUS_TEXT[s])}</li>'
            for s in ("pending", "queued", "running", "done", "released", "pruned")
        )
        return _PAGE.format(
            title=html.escape(self.title),
            first_queue=first_queue,
            legend=legend,
            n=n,
            last=max(n - 1, 0),
            first_caption=first,
            figures="\n".join(figures),
        )

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the HTML page to ``path``."""
        path = Path(path)
        path.write_text(self.html(), encoding="utf-8")
        return path

    def _repr_html_(self) -> str:  # Jupyter: the page itself, in an iframe-free div
        return self.html()

    def __len__(self) -> int:
        return len(self.frames)


def flipbook(
    source: Any,
    *,
    backward_pass: int = -1,
    frames: str = "step",
    previews: bool = True,
    collapse: bool | str = "auto",
    max_nodes: int = 120,
    jobs: int | None = None,
    on_frame: Callable[[], None] | None = None,
) -> Flipbook:
    """Render every step of one backward pass into a ``Flipbook``.

    Args:
        source: anything ``render`` accepts except a tensor (recorder, path, events, Replay).
        backward_pass: which pass (default: the last).
        frames: ``"step"`` (one frame per engine step of the pass; default),
            ``"event"`` (every event) or ``"node"`` (per node run).
        previews: show gradient-buffer previews.
        collapse: collapse long chains (``"auto"``: when a frame has more than
            ``max_nodes`` nodes; running and queued nodes always stay visible,
            so collapsed frames may shift a little).
        max_nodes: threshold for ``collapse="auto"``.
        jobs: parallel ``dot`` processes (default: CPU count).
        on_frame: called as each frame's picture is drawn (the CLI's progress).

    Raises:
        DotNotFoundError: Graphviz is missing; ``.sources`` holds every frame's DOT
            (the CLI saves them).
        IndexError: no such backward pass.
    """
    rp = to_replay(source)
    steps = backward_steps(rp, backward_pass, frames)
    number = backward_pass % len(rp.backward_passes())
    final_state = rp[steps[-1]]
    final_bw = final_state.passes[number]
    ids = backward_node_ids(final_state, final_bw)

    graphs: list[tuple[int, str, Graph]] = []
    for i in steps:
        st = rp[i]
        bw = st.passes[number] if number < len(st.passes) else None
        g = collect_backward(st, bw, node_ids=ids, previews=previews, title=False, future=final_state)
        # Ids are never reused, so the end state names every node, even copies made later.
        caption = f"event {i} · {describe(st.event, final_state)}"
        graphs.append((i, caption, g))

    # NOTE [ Frames share one layout ]: the widest text any frame shows sets each node's minimum size.
    widest: dict[str, int] = {}
    rows: dict[str, int] = {}
    for _, _, g in graphs:
        for nd in g.nodes:
            chars = max([len(nd.title) + 12] + [len(r) for r in nd.rows] + [len("GeneralGrad: startup, ending, needed")
                                                                              if nd.marks else 0])
            widest[nd.key] = max(widest.get(nd.key, 0), chars)
            rows[nd.key] = max(rows.get(nd.key, 0), 2 + len(nd.rows))
    out: list[Frame] = []
    for i, caption, g in graphs:
        for nd in g.nodes:
            nd.min_chars, nd.min_rows = widest[nd.key], rows[nd.key]
        # The page shows the queue and the legend in HTML, beside the picture, so
        # neither changes the picture's layout from frame to frame.
        queue, g.queue, g.legend = list(g.queue or []), None, False
        if collapse is True or (collapse == "auto" and len(g.nodes) > max_nodes):
            g = collapse_chains(g)
        out.append(Frame(step=i, caption=caption, graph=g, dot=to_digraph(g).source, queue=queue))

    def run(frame: Frame) -> str:
        return graphviz.pipe("dot", "svg", frame.dot.encode("utf-8")).decode("utf-8")

    try:
        with ThreadPoolExecutor(max_workers=jobs or min(16, os.cpu_count() or 2)) as pool:
            for frame, svg in zip(out, pool.map(run, out)):
                frame.svg = svg
                if on_frame is not None:
                    on_frame()
    except graphviz.ExecutableNotFound:
        raise DotNotFoundError(INSTALL_HINT, sources=[f.dot for f in out]) from None
    bw0 = final_bw
    title = f"minigrad · {bw0.mode}() pass {bw0.number} · {len(out)} frames"
    return Flipbook(out, title)


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
  body {{ font-family: Helvetica, Arial, sans-serif; margin: 0; background: #fafafa; color: #222; }}
  header {{ position: sticky; top: 0; background: #fff; border-bottom: 1px solid #ddd; padding: 8px 16px; z-index: 1; }}
  h1 {{ font-size: 16px; margin: 0 0 6px 0; }}
  .controls {{ display: flex; align-items: center; gap: 10px; }}
  .controls button {{ font-size: 14px; padding: 3px 12px; cursor: pointer; }}
  #slider {{ flex: 1; max-width: 640px; }}
  #counter {{ font-variant-numeric: tabular-nums; min-width: 90px; }}
  #caption {{ margin-top: 6px; font-family: Menlo, Consolas, monospace; font-size: 13px; }}
  #queue {{ margin-top: 4px; font-size: 13px; }}
  #queue b {{ color: #1565c0; }}
  .page {{ display: flex; gap: 16px; padding: 12px 16px; align-items: flex-start; }}
  main {{ flex: 1; min-width: 0; }}
  .frame svg {{ max-width: 100%; max-height: calc(100vh - 130px); width: auto; height: auto; }}
  aside {{ font-size: 12px; min-width: 230px; max-width: 320px; }}
  aside ul {{ list-style: none; padding: 0; margin: 4px 0 10px 0; }}
  aside li {{ margin: 3px 0; display: flex; align-items: center; gap: 6px; }}
  .sw {{ display: inline-block; width: 16px; height: 12px; border: 1px solid #888; }}
  .hint {{ color: #777; font-size: 12px; }}
</style>
</head>
<body>
<header>
  <h1>{title}</h1>
  <div class="controls">
    <button id="prev" type="button" title="previous step (left arrow)">&#9664; prev</button>
    <input id="slider" type="range" min="0" max="{last}" value="0" step="1" aria-label="step">
    <button id="next" type="button" title="next step (right arrow)">next &#9654;</button>
    <span id="counter">1 / {n}</span>
    <span class="hint">&larr; &rarr; keys, Home/End</span>
  </div>
  <div id="caption">{first_caption}</div>
  <div id="queue"><b>ready queue</b> (front &rarr; back): <span id="queue-items">{first_queue}</span></div>
</header>
<div class="page">
<main>
{figures}
</main>
<aside>
  <b>legend</b>
  <ul>{legend}</ul>
  <div><b>in N</b> badge: current in-degree (yellow: changed at this step, green: 0)</div>
  <div><b>Qk</b> badge: k-th in the ready queue, Q1 = front</div>
  <div>edge <b>sS rR</b>: gradient leaves through output slot S, rank R</div>
  <div>cylinder: AccumulateGrad (writes a leaf's .grad)</div>
  <div>GeneralGrad: bold purple border = startup, bold teal border = ending, red dashed edge = cut by no_grad_vars</div>
</aside>
</div>
<script>
(function () {{
  var frames = document.querySelectorAll("section.frame");
  var slider = document.getElementById("slider");
  var counter = document.getElementById("counter");
  var caption = document.getElementById("caption");
  var queueItems = document.getElementById("queue-items");
  var current = 0;
  function show(k) {{
    if (!frames.length) return;
    k = Math.max(0, Math.min(frames.length - 1, k));
    frames[current].hidden = true;
    frames[k].hidden = false;
    current = k;
    slider.value = k;
    counter.textContent = (k + 1) + " / " + frames.length;
    caption.textContent = frames[k].getAttribute("data-caption");
    queueItems.textContent = frames[k].getAttribute("data-queue");
  }}
  document.getElementById("prev").addEventListener("click", function () {{ show(current - 1); }});
  document.getElementById("next").addEventListener("click", function () {{ show(current + 1); }});
  slider.addEventListener("input", function () {{ show(parseInt(slider.value, 10)); }});
  document.addEventListener("keydown", function (e) {{
    if (e.key === "ArrowLeft") {{ show(current - 1); e.preventDefault(); }}
    else if (e.key === "ArrowRight") {{ show(current + 1); e.preventDefault(); }}
    else if (e.key === "Home") {{ show(0); }}
    else if (e.key === "End") {{ show(frames.length - 1); }}
  }});
  var m = /frame=(\\d+)/.exec(location.hash);
  if (m) show(parseInt(m[1], 10));
}})();
</script>
</body>
</html>
"""
