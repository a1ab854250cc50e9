"""Value previews: what an event shows of a tensor (nested lists or a summary)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["preview_array", "summary", "jsonable", "jsonable_attrs", "call_attrs"]


def summary(shape: tuple[int, ...], dtype: str) -> dict[str, Any]:
    """The preview of a tensor whose values are not recorded."""
    return {"shape": list(shape), "dtype": dtype}


def to_host(array: Any) -> np.ndarray:
    """A NumPy view or copy of any backend's array (CuPy arrays have ``.get()``: a copy from the device). NumPy's own
    arrays by their exact type, so the stand-in CuPy's (a NumPy subclass) take the device's path."""
    if type(array) is np.ndarray:
        return array
    get = getattr(array, "get", None)
    if get is not None:
        return get()
    return np.asarray(array)


#: ``str(numpy dtype)`` by dtype: NumPy computes the name in Python each time (~2 us),
#: and every recorded tensor needs it.
_DTYPE_NAMES: dict[Any, str] = {}


def preview_array(array: Any, values: bool, max_elements: int) -> Any:
    """Nested lists when ``values`` and the array is small, else a shape/dtype summary."""
    if array is None:
        return None
    shape = tuple(array.shape)
    dt = array.dtype
    dtype = _DTYPE_NAMES.get(dt)
    if dtype is None:
        dtype = _DTYPE_NAMES[dt] = str(dt)
    size = array.size if isinstance(array, np.ndarray) else int(np.prod(shape, dtype=np.int64))
    if not values or size > max_elements:
        return summary(shape, dtype)
    return to_host(array).tolist()


def jsonable(value: Any) -> Any:
    """A JSON-friendly rendering of an attribute value for events."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    if isinstance(value, slice):
        return f"{'' if value.start is None else value.start}:{'' if value.stop is None else value.stop}" + (
            "" if value.step is None else f":{value.step}"
        )
    if value is Ellipsis:
        return "..."
    shape = getattr(value, "shape", None)
    if shape is not None:
        return {"shape": list(shape), "dtype": str(getattr(value, "dtype", "?"))}
    return repr(value)


_PLAIN = frozenset((type(None), bool, int, float, str))


def jsonable_attrs(attrs: dict[str, Any]) -> dict[str, Any]:
    """``{name: jsonable(value)}`` for an op's attributes; plain values (most of them) are kept as they are."""
    return {k: v if type(v) in _PLAIN else jsonable(v) for k, v in attrs.items()}


# NOTE [ An op's default attributes are rendered once ]
#     A call that leaves every attribute at its default shares the op's one attrs
#     dict (NOTE [ The common call ] in ops/registry.py), and so do its grad node's
#     attrs: their JSON rendering is made once per op and shared by every
#     ``api.call`` and ``node.create`` event that shows it. Events are treated as
#     immutable (NOTE [ Events are slotted, not frozen ] in events.py), so sharing
#     an unchanged value is the same as copying it.
_default_attrs_json: dict[Any, tuple[dict[str, Any], dict[str, Any]]] = {}


def call_attrs(op: Any, attrs: dict[str, Any]) -> dict[str, Any]:
    """``jsonable_attrs(attrs)`` for a call of ``op`` (an ``OpDef``; rendered once when they are its defaults)."""
    if attrs is not getattr(op, "_default_attrs", None):
        return jsonable_attrs(attrs)
    entry = _default_attrs_json.get(op)
    if entry is None or entry[0] is not attrs:
        entry = _default_attrs_json[op] = (attrs, jsonable_attrs(attrs))
    return entry[1]
