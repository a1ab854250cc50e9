"""In-place programs whose operand shares part of the written memory, for ``tests/test_views_inplace.py`` (against
PyTorch) and ``tests/gpu/test_gpu_kernels.py`` (the same programs on the GPU)."""

from __future__ import annotations

from typing import Any, Callable

import minigrad as mg

#: In-place ops whose operand shares part of the written memory: PyTorch refuses each where both are dense
#: (``assert_no_partial_overlap``); a full overlap (the same elements, ``x.mul_(x)``) and disjoint memory are fine.
#: name -> (program of the framework and ``a = arange(6.0)``, whether PyTorch refuses it)
OVERLAPS: dict[str, tuple[Callable[[Any, Any], Any], bool]] = {
    "add_": (lambda lib, a: a[1:].add_(a[:-1]), True),
    "sub_ alpha": (lambda lib, a: a[1:].sub_(a[:-1], alpha=2), True),
    "copy_": (lambda lib, a: a[1:].copy_(a[:-1]), True),
    "setitem": (lambda lib, a: a.__setitem__(slice(1, None), a[:-1]), True),
    "clamp_ tensor": (lambda lib, a: a[1:].clamp_(min=a[:-1]), True),
    "lerp_": (lambda lib, a: a[1:].lerp_(a[:-1], 0.5), True),
    "addcmul_": (lambda lib, a: a[1:].addcmul_(a[:-1], a[:-1]), True),
    "add_ transposed": (lambda lib, a: a[:4].view(2, 2).add_(a[:4].view(2, 2).t()), True),
    "out=": (lambda lib, a: lib.add(a[:-1], 1, out=a[1:]), True),
    "mul_ itself": (lambda lib, a: a.mul_(a), False),
    "add_ disjoint": (lambda lib, a: a[:3].add_(a[3:]), False),
    "add_ interleaved": (lambda lib, a: a[::2].add_(a[1::2]), False),
    "div_ view": (lambda lib, a: a.view(2, 3)[:, 1:].div_(a.view(2, 3)[:, :2] + 1), False),
}


def overlap(lib: Any, name: str, device: str = "cpu") -> Any:
    """``a = arange(6.0)`` of ``lib`` (minigrad's on ``device``) after the program ``name``."""
    a = mg.arange(6.0).to(device) if lib is mg else lib.arange(6.0)
    OVERLAPS[name][0](lib, a)
    return a
