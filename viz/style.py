"""Colours and shapes shared by every view, and the legend that explains them.

One table decides how a status looks, so the SVG, the flip-book and the
legend can never disagree. Colours are chosen to stay distinct when printed
in grey scale (lecture hand-outs): the fill gets darker as a node gets closer
to "done".

NOTE [ Status colours ]
    ======== ========= ===================================================
    status   fill      meaning
    ======== ========= ===================================================
    idle     white     not part of the backward pass being shown
    pending  #fff3c4   waiting for gradients (in-degree not yet 0)
    queued   #9ecbff   in the ready queue (badge ``Q1`` = front)
    running  #ff9e4a   popped by the engine and running now
    done     #8fd694   ran; TensorWrappers kept (``retain_graph=True``)
    released #b8c4cc   ran and released its TensorWrappers
    pruned   #eeeeee   GeneralGrad: not needed for the requested inputs
    ======== ========= ===================================================
"""

from __future__ import annotations

__all__ = ["STATUS_FILL", "STATUS_TEXT", "MARK_COLOUR", "FONT", "EDGE_PRUNED", "EDGE_REPLACED", "BADGE", "FORWARD_FILL"]

FONT = "Helvetica"

STATUS_FILL: dict[str, str] = {
    "idle": "#ffffff",
    "pending": "#fff3c4",
    "queued": "#9ecbff",
    "running": "#ff9e4a",
    "done": "#8fd694",
    "released": "#b8c4cc",
    "pruned": "#eeeeee",
}

STATUS_TEXT: dict[str, str] = {
    "idle": "not in this pass (or not run yet)",
    "pending": "pending: waiting for gradients",
    "queued": "queued: in the ready queue",
    "running": "running now",
    "done": "done (wrappers kept)",
    "released": "done, wrappers released",
    "pruned": "pruned by GeneralGrad",
}

# GeneralGrad marks drawn as node borders / tags.
MARK_COLOUR: dict[str, str] = {
    "startup": "#7b1fa2",  # purple border
    "ending": "#00838f",   # teal bold border (not a double one: that would change the node size)
    "needed": "#2e7d32",
    "input": "#00838f",
    "no_grad": "#c62828",
    "copyslices": "#ad1457",  # raspberry border: a CopySlices node (a base's history rewritten, docs/concepts/views.md)
}

EDGE_PRUNED = "#c62828"
#: The edge a rewritten history replaced (drawn dashed, labelled ``replaced``).
EDGE_REPLACED = "#8d8d8d"

# In-degree badge: normal, zero (ready) and "just changed" colours.
BADGE = {"normal": "#ffffff", "zero": "#d6f5d6", "changed": "#ffeb3b"}

FORWARD_FILL = {
    "leaf_grad": "#c8e6c9",   # leaf that requires grad (a parameter / input)
    "leaf": "#f5f5f5",        # leaf constant
    "tensor": "#e3f2fd",      # op output
    "op": "#fff3e0",          # op call
    "fallback": "#ffcdd2",    # op that fell back to the CPU
    "hit": "#c8e6c9",
    "miss": "#ffcdd2",
    "step": "#f5f5f5",
}
