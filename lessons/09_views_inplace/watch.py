"""Record an in-place change through a view: the versions, the history rewrite, a stale saved tensor.

    python watch.py && minigrad-tui views.jsonl
    minigrad render views.jsonl --kind backward --pass 1 -o copy_slices.svg   (the graph through CopySlices)
    minigrad render views.jsonl --kind backward --pass 0 -o stale_saved.svg   (the refused backward)
"""

import minigrad as mg

with mg.trace() as tr:
    x = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    h = x * 2
    a = h.sin()          # sin saves h, at version 0
    v = h[1]             # a view: it shares h's storage and version counter
    v.mul_(3)            # h and v: version 1; h's grad node becomes CopySlices(h's old node, mul_'s node)
    try:
        a.sum().backward()   # sin's saved h is at version 0, h at 1: backward refuses it
    except RuntimeError as err:
        print("a.sum().backward() refused:", err)
    (h * h).sum().backward()
tr.save("views.jsonl")
print("saved views.jsonl; x.grad =", x.grad.tolist())
