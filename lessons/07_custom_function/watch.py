"""Watch your Function's node in the TUI: ``minigrad-tui watch.py``.

The script runs a first and a second derivative of your softplus; in the TUI,
pass 1 shows ``StableSoftplusBackward`` in the ready queue like any built-in
node, and pass 2 (``create_graph=True`` made the gradient differentiable)
runs the nodes your backward's ops created.
"""

import importlib.util
import sys
from pathlib import Path

import minigrad as mg

spec = importlib.util.spec_from_file_location("custom_function", Path(__file__).with_name("custom_function.py"))
cf = importlib.util.module_from_spec(spec)
sys.modules["custom_function"] = cf
spec.loader.exec_module(cf)

x = mg.tensor([-2.0, 0.5, 3.0], requires_grad=True)
y = cf.softplus(x).sum()
(g,) = mg.grad(y, [x], create_graph=True)   # pass 1: g = sigmoid(x), with a graph
(h,) = mg.grad(g.sum(), [x])                # pass 2: the second derivative, sigmoid(x) * (1 - sigmoid(x))
print("softplus'(x) =", g.tolist())
print("softplus''(x) =", h.tolist())
