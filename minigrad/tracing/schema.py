"""The trace schema as checks: what every field of every event kind may hold (docs/architecture.md, Events, Validation).

``mg.trace.load`` is the one reader of trace files, and replay and the
viewers trust what it returns. So before an event object is built from a
line of JSON, ``check_event`` looks at the header and at every contract field
and says exactly which one is wrong: ``field 'in_degree': key 'abc' is not a
node id``.

The checks are *derived* from the event classes' type annotations
(``int``, ``str``, ``bool``, ``int | None``, ``list[int]``, ``dict[int, int]``,
``Preview`` ...), so a new event kind is checked without touching this file;
an annotation this module does not understand fails at import time, not in a
student's terminal. Two record shapes (the edges of ``node.create`` and of
``general_grad.prune``) are spelled out below because their annotation is
only ``list[dict[str, Any]]``.

NOTE [ What a valid value is ]
    * An integer field holds a JSON integer (never ``true``/``false``) that
      fits in 64 bits: ids, counts and nanoseconds are int64 in any engine,
      and a 4 000-digit number would overflow every viewer that divides it.
    * A float anywhere in a value preview may be ``NaN``, ``Infinity`` or
      ``-Infinity``: non-finite gradients are exactly what students look at.
    * A value preview is ``null``, a number or bool, a nested list of those,
      or a summary ``{"shape": [ints], "dtype": str}``.
    * Nesting depth is bounded by the loader before parsing (``MAX_DEPTH``).

Example:
    >>> check_event({"seq": 0, "ts_ns": 5, "kind": "queue.skip", "node": 3, "in_degree": 1})
    >>> check_event({"seq": 0, "ts_ns": 5, "kind": "queue.skip", "node": "3", "in_degree": 1})
    Traceback (most recent call last):
    ...
    minigrad.tracing.schema.SchemaError: field 'node': expected an integer, got str '3'
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable

from .events import EVENT_TYPES, DataTransform

__all__ = ["SchemaError", "check_event", "check_preview", "INT64_MIN", "INT64_MAX"]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

Check = Callable[[Any, str], None]


class SchemaError(ValueError):
    """One field of one event is missing or of the wrong type (the message names it)."""


def _show(value: Any) -> str:
    """``str '3'``, ``list``, ``dict``: a short description of a JSON value for messages."""
    if isinstance(value, bool):
        return f"bool {str(value).lower()}"
    if isinstance(value, (list, dict)):
        return type(value).__name__
    if isinstance(value, int) and abs(value) > INT64_MAX:
        return f"an integer of {len(str(abs(value)))} digits"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 24 else text[:21] + '...'}"


def _fail(where: str, expected: str, value: Any) -> SchemaError:
    return SchemaError(f"{where}: expected {expected}, got {_show(value)}")


# -- leaf checks ---------------------------------------------------------------


def _check_int(value: Any, where: str) -> None:
    if type(value) is not int:  # noqa: E721 - bool is an int subclass and is not accepted
        raise _fail(where, "an integer", value)
    if not INT64_MIN <= value <= INT64_MAX:
        raise SchemaError(f"{where}: integer out of the 64-bit range ({len(str(abs(value)))} digits)")


def _check_str(value: Any, where: str) -> None:
    if not isinstance(value, str):
        raise _fail(where, "a string", value)


def _check_bool(value: Any, where: str) -> None:
    if not isinstance(value, bool):
        raise _fail(where, "true or false", value)


def _check_any(value: Any, where: str) -> None:
    """Any JSON value; integers still must fit in 64 bits (viewers print and divide them)."""
    if type(value) is int:
        if not INT64_MIN <= value <= INT64_MAX:
            raise SchemaError(f"{where}: integer out of the 64-bit range ({len(str(abs(value)))} digits)")
    elif isinstance(value, list):
        for item in value:
            _check_any(item, where)
    elif isinstance(value, dict):
        for item in value.values():
            _check_any(item, where)


def check_preview(value: Any, where: str = "value") -> None:
    """A value preview: null, a number/bool, nested lists of those, or ``{"shape", "dtype"}``."""
    if value is None or isinstance(value, (bool, float)):
        return
    if type(value) is int:
        _check_int(value, where)
        return
    if isinstance(value, list):
        for item in value:
            if isinstance(item, float) or item is None:
                continue
            if isinstance(item, list):
                check_preview(item, where)
            elif type(item) is int:
                _check_int(item, where)
            elif not isinstance(item, bool):
                raise _fail(where, "numbers in a value preview", item)
        return
    if isinstance(value, dict):
        shape = value.get("shape")
        if not isinstance(shape, list):
            raise SchemaError(f"{where}: a summary preview needs 'shape' as a list of integers")
        for s in shape:
            _check_int(s, f"{where}.shape")
        if "dtype" in value:
            _check_str(value["dtype"], f"{where}.dtype")
        return
    raise _fail(where, "a value preview (numbers, nested lists or a shape summary)", value)


# -- combinators ----------------------------------------------------------------


def _optional(inner: Check) -> Check:
    def check(value: Any, where: str) -> None:
        if value is not None:
            inner(value, where)

    return check


def _list_of(inner: Check) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, list):
            raise _fail(where, "a list", value)
        for i, item in enumerate(value):
            inner(item, f"{where}[{i}]")

    return check


def _dict_of(key_is_int: bool, inner: Check) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise _fail(where, "an object", value)
        for key, item in value.items():
            # JSON keys are strings; an int-keyed map (node id -> count) needs decimal ids.
            if key_is_int and not _INT_KEY.fullmatch(key):
                raise SchemaError(f"{where}: key {key!r} is not an integer id")
            if key_is_int and len(key) > 19:
                raise SchemaError(f"{where}: key {key[:20]!r}... is out of the 64-bit range")
            inner(item, f"{where}[{key!r}]")

    return check


def _record(fields: dict[str, tuple[Check, bool]]) -> Check:
    """An object with the named fields (``required`` ones must be present)."""

    def check(value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise _fail(where, "an object", value)
        for key, (inner, required) in fields.items():
            if key in value:
                inner(value[key], f"{where}.{key}")
            elif required:
                raise SchemaError(f"{where}: missing '{key}'")

    return check


_INT_KEY = re.compile(r"-?[0-9]+")

_LEAVES: dict[str, Check] = {
    "int": _check_int,
    "str": _check_str,
    "bool": _check_bool,
    "Any": _check_any,
    "Preview": check_preview,
}


def _parse(annotation: str) -> Check:
    """A check for an annotation string such as ``list[dict[int, int]] | None``."""
    text = annotation.replace(" ", "")
    if text.endswith("|None"):
        return _optional(_parse(text[: -len("|None")]))
    if text in _LEAVES:
        return _LEAVES[text]
    if text.startswith("list[") and text.endswith("]"):
        return _list_of(_parse(text[5:-1]))
    if text.startswith("dict[") and text.endswith("]"):
        key, _, val = text[5:-1].partition(",")
        if key not in ("int", "str"):
            raise TypeError(f"trace schema: unsupported dict key type in {annotation!r}")
        return _dict_of(key == "int", _parse(val))
    raise TypeError(f"trace schema: no check for the annotation {annotation!r}; add one in minigrad/tracing/schema.py")


#: Fields whose annotation is too loose to check by itself.
_EDGE = _record({
    "slot": (_check_int, True),
    "rank": (_check_int, True),
    "next": (_optional(_check_int), True),
    "next_slot": (_check_int, False),
    "next_rank": (_check_int, False),
})
_PRUNED_EDGE = _record({
    "node": (_check_int, True),
    "slot": (_check_int, True),
    "rank": (_check_int, True),
    "next": (_optional(_check_int), True),
})
def _direction(value: Any, where: str) -> None:
    if value not in ("h2d", "d2h"):
        raise _fail(where, "'h2d' or 'd2h'", value)


def _byte_count(value: Any, where: str) -> None:
    _check_int(value, where)
    if value < 0:
        raise _fail(where, "a byte count (>= 0)", value)


_OVERRIDES: dict[tuple[str, str], Check] = {
    ("device.copy", "direction"): _direction,
    ("device.copy", "bytes"): _byte_count,
    ("node.create", "edges"): _list_of(_EDGE),
    ("general_grad.prune", "edges"): _list_of(_PRUNED_EDGE),
    # Forward op inputs: tensor ids, or the Python scalars/lists passed in their place.
    ("api.call", "inputs"): _list_of(_check_any),
    ("infer_meta", "shapes"): _list_of(_list_of(_check_int)),
}


# Fast paths for the commonest field types: checked inline in ``check_event``
# (a closure call per field would double the time ``load`` takes).
_INT, _STR, _BOOL, _OTHER = 0, 1, 2, 3
_FAST = {"int": _INT, "str": _STR, "bool": _BOOL}


def _specs_for(kind: str, cls: type) -> tuple[tuple[str, int, Check, bool], ...]:
    specs = []
    for f in dataclasses.fields(cls):
        if f.name in ("seq", "ts_ns"):
            continue
        key = "from" if (cls is DataTransform and f.name == "from_") else f.name
        override = _OVERRIDES.get((kind, key))
        check = override or _parse(str(f.type))
        fast = _OTHER if override else _FAST.get(str(f.type).replace(" ", ""), _OTHER)
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        specs.append((key, fast, check, required))
    return tuple(specs)


#: kind -> ((JSON key, fast type, check, required), ...), built once at import from the event classes.
_SPECS: dict[str, tuple[tuple[str, int, Check, bool], ...]] = {
    kind: _specs_for(kind, cls) for kind, cls in EVENT_TYPES.items()
}


def check_event(obj: dict[str, Any]) -> None:
    """Check one event's flat dict: header, then every field its kind declares.

    Unknown kinds are allowed (newer traces still load; viewers skip them),
    but their header must be valid and their integers must fit in 64 bits.

    Raises:
        SchemaError: naming the field and what was expected.
    """
    kind = obj.get("kind")
    if "kind" not in obj:
        raise SchemaError("missing field 'kind'")
    if not isinstance(kind, str):
        raise _fail("field 'kind'", "a string", kind)
    for key in ("seq", "ts_ns"):
        if key not in obj:
            raise SchemaError(f"missing field '{key}' for kind '{kind}'")
        _check_int(obj[key], f"field '{key}'")
    specs = _SPECS.get(kind)
    if specs is None:
        for key, value in obj.items():
            _check_any(value, f"field '{key}'")
        return
    for key, fast, check, required in specs:
        if key not in obj:
            if required:
                raise SchemaError(f"missing field '{key}' for kind '{kind}'")
            continue
        value = obj[key]
        t = type(value)
        if fast == _INT:
            if t is int and INT64_MIN <= value <= INT64_MAX:
                continue
        elif fast == _STR:
            if t is str:
                continue
        elif fast == _BOOL:
            if t is bool:
                continue
        check(value, f"field '{key}'")
