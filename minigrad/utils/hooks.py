"""``torch.utils.hooks``: the handle a registered hook returns (``RemovableHandle``, in ``minigrad/_handles.py``)."""

from .._handles import RemovableHandle

__all__ = ["RemovableHandle"]
