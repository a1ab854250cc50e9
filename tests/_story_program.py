"""The program the viewers' story tests record (``test_story.py``, ``tui/test_tui_story.py``,
``browser/test_web_story.py``): an in-place change through a view that backward takes, then one of a
saved output that backward refuses, as a newcomer would write them."""

PROGRAM = """\
from minigrad import tensor

x = tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
h = x * 2
h[1].mul_(3)
h.sum().backward()
y = x.exp()
y.add_(1)
y.sum().backward()
"""
