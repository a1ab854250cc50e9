"""Value previews: what an event shows of a tensor (nested lists or a summary)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["preview_array", "summary"]


def summary(shape: tuple[int, ...], dtype: str) -> dict[str, Any]:
    """The preview of a tensor whose values are not recorded."""
    return {"shape": list(shape), "dtype": dtype}


def to_host(array: Any) -> np.ndarray:
    """A NumPy view or copy of any backend's array (CuPy arrays have ``.get()``)."""
    if isinstance(array, np.ndarray):
        return array
    get = getattr(array, "get", None)
    if get is not None:
        return get()
    return np.asarray(array)


def preview_array(array: Any, values: bool, max_elements: int) -> Any:
    """Nested lists when ``values`` and the array is small, else a shape/dtype summary."""
    if array is None:
        return None
    shape = tuple(array.shape)
    dtype = str(array.dtype)
    if not values or int(np.prod(shape, dtype=np.int64)) > max_elements:
        return summary(shape, dtype)
    return to_host(array).tolist()
