"""``torch.utils.hooks.RemovableHandle``: what registering a hook in an ordered dict of hooks returns (exported as
``minigrad.utils.hooks.RemovableHandle``; defined at the bottom of the package so the optimizers can import it
without loading ``minigrad.utils``, which imports them).

The optimizers keep their step and state-dict hooks as PyTorch does, one ``OrderedDict`` of id to hook per
kind; ``handle.remove()`` deletes the entry, and the handle works as a context manager that removes it on exit.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Any

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """A handle that removes its hook from the ``OrderedDict`` it was registered in (``hooks_dict``)."""

    next_id = itertools.count()

    def __init__(self, hooks_dict: "OrderedDict[int, Any]") -> None:
        self.hooks_dict_ref = hooks_dict
        self.id = next(RemovableHandle.next_id)

    def remove(self) -> None:
        """Unregister the hook (a no-op when it is gone already)."""
        self.hooks_dict_ref.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()
