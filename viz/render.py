"""``mg.viz.render``: any trace source -> a displayable, savable rendering.

``render`` accepts a recorder (``with mg.trace() as tr``), a loaded trace, a
path to a ``.jsonl`` file, a list of events, a ``Replay``, a single
``State``, or a tensor recorded under an active trace. It replays the events,
collects the requested view (``graph.py``), draws it (``draw.py``) and
returns a ``Rendered`` object: ``.source`` is the DOT text, ``.svg()`` the SVG,
``.save(path)`` writes a file, and Jupyter shows it inline.

Example:
    >>> import minigrad as mg
    >>> with mg.trace() as tr:                                  # doctest: +SKIP
    ...     x = mg.tensor([1.0, 2.0], requires_grad=True)
    ...     (x * x).sum().backward()
    >>> r = mg.viz.render(tr, kind="backward", step=12)        # doctest: +SKIP
    >>> r.save("step12.svg")                                     # doctest: +SKIP
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import graphviz

from minigrad.tracing.replay import BackwardPass, Replay, State, replay

from .draw import to_digraph
from .graph import Graph, collapse_chains, collect_backward, collect_forward, collect_kernel

__all__ = ["render", "Rendered", "DotNotFoundError", "to_replay", "state_at", "INSTALL_HINT", "KINDS"]

KINDS = ("backward", "forward", "kernel")

INSTALL_HINT = (
    "Graphviz's 'dot' program was not found on PATH, so no SVG/PNG can be made.\n"
    "Install it with your package manager:\n"
    "  Debian/Ubuntu: sudo apt-get install graphviz\n"
    "  macOS:         brew install graphviz\n"
    "  conda:         conda install -c conda-forge graphviz\n"
    "(or run 'make setup' in the minigrad repository)."
)


class DotNotFoundError(RuntimeError):
    """The Graphviz ``dot`` program is missing; the message says how to install it.

    Attributes:
        sources: the DOT sources that could not be rendered (a flip-book's frames),
            so a caller can still save them.
    """

    def __init__(self, message: str, sources: list[str] | None = None) -> None:
        super().__init__(message)
        self.sources = sources or []


def to_replay(source: Any, trace: Any = None) -> Replay:
    """Turn any supported source into a ``Replay`` of states.

    Args:
        source: a ``Replay``, a recorder or loaded trace (anything with
            ``.events``), a list of events, or a path to a ``.jsonl`` trace.
        trace: unused here; see ``render`` for tensors.

    Raises:
        minigrad.tracing.TraceFormatError: a bad trace file.
        FileNotFoundError: the path does not exist.
        TypeError: an unsupported source.
    """
    if isinstance(source, Replay):
        return source
    if isinstance(source, (str, os.PathLike)):
        from minigrad.tracing.loader import load

        return replay(load(source).events)
    if hasattr(source, "events"):
        return replay(source.events)
    if isinstance(source, (list, tuple)):
        return replay(list(source))
    raise TypeError(
        f"render(): argument 'source' must be a trace (recorder, path, events, Replay, State) or a Tensor, "
        f"but got {type(source).__name__}"
    )


def state_at(rp: Replay, step: int | None = None, backward_pass: int | None = None) -> tuple[State, BackwardPass | None]:
    """The state to draw and the backward pass to draw it for.

    Args:
        rp: the replayed trace.
        step: event index (negative counts from the end); ``None``: the end of
            ``backward_pass`` if given, else the last event.
        backward_pass: which pass (0-based, negative from the end); ``None``:
            the latest pass begun by ``step``.

    Raises:
        IndexError: ``step`` or ``backward_pass`` out of range (names the range).
    """
    if len(rp) == 0:
        return rp.initial, None
    passes = rp.backward_passes()
    if backward_pass is not None:
        if not passes:
            raise IndexError("the trace has no backward pass")
        if not -len(passes) <= backward_pass < len(passes):
            raise IndexError(f"backward pass {backward_pass} out of range: the trace has {len(passes)} (0..{len(passes) - 1})")
        number = backward_pass % len(passes)
        if step is None:
            begin, end, _ = passes[number]
            step = end if end is not None else len(rp) - 1
    if step is None:
        step = len(rp) - 1
    if not -len(rp) <= step < len(rp):
        raise IndexError(f"step {step} out of range: the trace has {len(rp)} events, numbered 0..{len(rp) - 1}")
    state = rp[step]
    if backward_pass is not None:
        number = backward_pass % len(passes)
        bw = state.passes[number] if number < len(state.passes) else None
        return state, bw
    return state, state.backward


def _tensor_ids(t: Any) -> int | None:
    for attr in ("id", "_id"):
        v = getattr(t, attr, None)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return None


def _reachable(state: State, start: int) -> set[int]:
    """Node ids reachable from ``start`` along recorded edges (plain graph walk over events)."""
    seen, stack = set(), [start]
    while stack:
        nid = stack.pop()
        if nid in seen or nid not in state.nodes:
            continue
        seen.add(nid)
        stack.extend(state.nodes[nid].next_nodes)
    return seen


class Rendered:
    """A rendered view: DOT source, SVG, files, and inline display in Jupyter.

    Attributes:
        digraph: the ``graphviz.Digraph`` (draw-only; it never writes files itself).
        graph: the collected ``Graph`` (nodes, statuses, badges) it was drawn from.
        kind: ``backward``, ``forward`` or ``kernel``.
        step: the event index of the state drawn (``-1``: before any event).
    """

    def __init__(self, digraph: graphviz.Digraph, graph: Graph, kind: str, step: int) -> None:
        self.digraph = digraph
        self.graph = graph
        self.kind = kind
        self.step = step
        self._svg: str | None = None

    @property
    def source(self) -> str:
        """The DOT source (deterministic for a given trace and step)."""
        return self.digraph.source

    def pipe(self, format: str = "svg") -> bytes:
        """Run ``dot`` and return the output bytes.

        Raises:
            DotNotFoundError: Graphviz is not installed (with the install command).
        """
        try:
            return self.digraph.pipe(format=format)
        except graphviz.ExecutableNotFound:
            raise DotNotFoundError(INSTALL_HINT) from None

    def svg(self) -> str:
        """The SVG text (cached)."""
        if self._svg is None:
            self._svg = self.pipe("svg").decode("utf-8")
        return self._svg

    def save(self, path: str | os.PathLike[str], format: str | None = None) -> Path:
        """Write the rendering; the format comes from the suffix (``.svg .png .pdf .dot .gv``).

        Returns:
            The path written.

        Raises:
            DotNotFoundError: ``dot`` is missing; the DOT source was still saved
                next to ``path`` with a ``.dot`` suffix (the message names it).
        """
        path = Path(path)
        fmt = (format or path.suffix.lstrip(".") or "svg").lower()
        if fmt in ("dot", "gv"):
            path.write_text(self.source, encoding="utf-8")
            return path
        try:
            data = self.pipe(fmt)
        except DotNotFoundError:
            dot_path = path.with_suffix(".dot")
            dot_path.write_text(self.source, encoding="utf-8")
            raise DotNotFoundError(f"{INSTALL_HINT}\nThe DOT source was saved to {dot_path}.") from None
        path.write_bytes(data)
        return path

    def _repr_svg_(self) -> str | None:
        try:
            return self.svg()
        except DotNotFoundError:
            return None

    def _repr_html_(self) -> str:
        try:
            return self.svg()
        except DotNotFoundError:
            import html

            return f"<pre>{html.escape(INSTALL_HINT)}</pre><pre>{html.escape(self.source)}</pre>"

    def __repr__(self) -> str:
        return f"<minigrad.viz.Rendered {self.kind} step={self.step} nodes={len(self.graph.nodes)}>"


def render(
    source: Any,
    kind: str = "backward",
    step: int | None = None,
    *,
    backward_pass: int | None = None,
    call: int | str | None = None,
    previews: bool = True,
    collapse: bool | str = "auto",
    max_nodes: int = 120,
    legend: bool = True,
    title: bool = True,
    trace: Any = None,
    all_passes: bool = False,
    group: str | None = None,
) -> Rendered:
    """Render a view of a trace.

    Args:
        source: a recorder (``tr``), a loaded trace, a ``.jsonl`` path, a list
            of events, a ``Replay``, a ``State``, or a Tensor (its graph, from
            ``trace`` or the active ``mg.trace()`` recording).
        kind: ``"backward"`` (grad nodes at ``step``), ``"forward"`` (tensors
            and op calls with their kernels) or ``"kernel"`` (kernel selection
            of one op call, see ``call``).
        step: event index of the state to draw (``None``: the last; negative
            counts from the end). ``minigrad log`` prints the indices.
        backward_pass: which backward pass to show (default: the latest at ``step``).
        call: for ``kind="kernel"``: position in the op-call list or an op name.
        previews: show gradient-buffer and ``.grad`` previews in backward nodes.
        collapse: collapse long single-input chains: ``True``, ``False`` or
            ``"auto"`` (when the graph has more than ``max_nodes`` nodes).
        max_nodes: threshold for ``collapse="auto"``.
        legend: draw the colour legend.
        title: draw a caption (pass, step, event).
        trace: for a Tensor source, the recorder that saw it being built.
        group: for ``kind="backward"``: ``"module"`` boxes the nodes each ``nn.Module`` made.
        all_passes: for ``kind="forward"``: draw every forward pass (default: the one
            that built ``backward_pass``, or the latest backward pass at ``step``).

    Returns:
        A ``Rendered`` (``.source``, ``.svg()``, ``.save(path)``, Jupyter display).

    Raises:
        ValueError: unknown ``kind``.
        IndexError: ``step`` or ``backward_pass`` out of range.
        LookupError: no such op call (kernel view) or a tensor not in the trace.
    """
    if kind not in KINDS:
        raise ValueError(f"render(): argument 'kind' must be one of {', '.join(KINDS)}, but got {kind!r}")
    only: set[int] | None = None
    live_name: str | None = None  # set when the graph is read from a tensor's grad_fn, not from a recording
    if isinstance(source, State):
        state, bw = source, source.backward
    else:
        tensor = source if _is_tensor(source) else None
        if tensor is not None:
            rec = trace if trace is not None else _active_recorder()
            if rec is not None:
                source = rec
            elif kind == "backward":
                # No recording: read the graph from the tensor's public attributes (all nodes idle).
                from .live import events_from_tensor

                source, tensor, live_name = events_from_tensor(tensor), None, tensor.name
            else:
                raise LookupError(
                    f"render(tensor, kind={kind!r}) needs a recording: run the code under "
                    "'with mg.trace() as tr:' and call mg.viz.render(tr, ...) (or pass trace=tr)"
                )
        rp = to_replay(source)
        state, bw = state_at(rp, step, backward_pass)
        if tensor is not None:
            tid = _tensor_ids(tensor)
            info = state.tensors.get(tid) if tid is not None else None
            if info is None and trace is None and kind == "backward":
                # Built before the active recording started: read its graph instead.
                from .live import events_from_tensor

                rp = to_replay(events_from_tensor(tensor))
                state, bw = state_at(rp)
                live_name = tensor.name
            elif info is None:
                raise LookupError("render(tensor): this tensor does not appear in the trace given")
            elif kind == "backward" and info.grad_node is not None:
                only = _reachable(state, info.grad_node)
    if kind == "backward":
        g = collect_backward(state, bw, previews=previews, title=title, node_ids=sorted(only) if only else None,
                             group=group)
    elif kind == "forward":
        g = collect_forward(state, title=title, backward_pass=backward_pass, all_passes=all_passes)
    else:
        g = collect_kernel(state, call, title=title)
    if live_name is not None and title:
        g.title = f"backward graph of {live_name}, read from its grad_fn (not recorded: no run is shown)"
    g.legend = legend and g.legend
    if collapse is True or (collapse == "auto" and len(g.nodes) > max_nodes):
        g = collapse_chains(g)
    return Rendered(to_digraph(g), g, kind, state.index)


def _is_tensor(obj: Any) -> bool:
    cls = type(obj)
    return cls.__name__ == "Tensor" and cls.__module__.startswith("minigrad")


def _active_recorder() -> Any:
    from minigrad.tracing import bus

    return bus.recorder

