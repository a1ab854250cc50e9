"""Widgets of minigrad-tui: each draws one aspect of a replayed state."""

from .canvas import GraphCanvas
from .graph import GraphView
from .line_list import LineList
from .lists import EventLog, ForwardView, InDegreeView
from .device import DeviceView
from .memory import MemoryView
from .versions import VersionsView
from .panels import BuffersView, GeneralGradView, NodeDetail, QueueView, StatusLine

__all__ = [
    "GraphCanvas",
    "GraphView",
    "LineList",
    "EventLog",
    "ForwardView",
    "InDegreeView",
    "MemoryView",
    "DeviceView",
    "VersionsView",
    "BuffersView",
    "GeneralGradView",
    "NodeDetail",
    "QueueView",
    "StatusLine",
]
