"""Work kept per geometry: the bounded caches of the kernel layer's launch arithmetic.

A training step calls the same ops on the same shapes every time, so what a call works out from its shapes
alone (a result's layout, a convolution's int arguments) is worked out once and found again by its key. Each
cache is bounded: at ``limit`` entries it is emptied and fills again (a program's geometries are few).
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["kept"]


def kept(cache: dict[Any, Any], key: Any, make: Callable[[], Any], limit: int) -> Any:
    """``cache[key]``, made by ``make()`` the first time (``None`` is a value it may keep); a key that cannot
    be hashed (a list among the arguments) is made every time."""
    try:
        return cache[key]
    except KeyError:
        pass
    except TypeError:
        return make()
    if len(cache) >= limit:
        cache.clear()
    value = cache[key] = make()
    return value
