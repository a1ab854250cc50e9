"""The web page's backward graph opens fitted to its pane (every node in view, the leaf at the bottom too),
and ``z`` switches between that and the graph's full size."""

from __future__ import annotations

import minigrad as mg
from minigrad.viz import stepper
from test_web_stepper_browser import open_page

#: For each node of the graph: whether its box lies inside the graph pane's visible body.
_IN_VIEW = """() => { const b = document.querySelector('#graph > .body').getBoundingClientRect();
  return [...document.querySelectorAll('#graph g.node')].map(n => { const r = n.getBoundingClientRect();
    return r.top >= b.top - 1 && r.bottom <= b.bottom + 1 && r.left >= b.left - 1 && r.right <= b.right + 1; }); }"""


def _width(page) -> float:
    return page.evaluate("() => document.querySelector('#graph svg').getBoundingClientRect().width")


def test_the_graph_fits_the_pane_and_z_switches_to_full_size(page, tmp_path):
    x = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    with mg.trace() as tr:
        h = x * 2
        h[1].mul_(3)
        h.sum().backward()
    path = stepper(tr.events, title="prog").save(tmp_path / "prog.html")
    page.set_viewport_size({"width": 1400, "height": 900})
    open_page(page, path)
    shown = page.evaluate(_IN_VIEW)
    assert len(shown) >= 5 and all(shown)  # the leaf's AccumulateGrad node too, with no scrolling
    fitted = _width(page)
    page.keyboard.press("z")
    assert _width(page) > fitted and not all(page.evaluate(_IN_VIEW))  # full size: larger than the pane
    assert page.inner_text("#zoom") == "fit"
    page.keyboard.press("z")
    assert all(page.evaluate(_IN_VIEW)) and abs(_width(page) - fitted) < 1
    assert page.inner_text("#zoom") == "full size" and not page.errors
