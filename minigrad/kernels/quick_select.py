"""PyTorch's ``quick_select_template``, step for step: which position of a tie ``kthvalue`` returns.

PyTorch's CPU ``kthvalue`` (``kthvalue_out_impl_cpu`` in ``aten/src/ATen/native/Sorting.cpp``) copies each slice
with its positions and runs its own quickselect (``SortingUtils.h``): a median-of-three pivot (the middle
element swapped next to the first, then the first, second and last put in order), a Hoare partition, and the
range narrowed to the side holding ``k``. Among equal values the one that ends at ``k`` is decided by those
swaps, so this module runs the same steps on a list of values and their positions, comparing as PyTorch's
``gt_or_nan`` does (NaN above every number). Plain Python, one slice at a time; ``kthvalue`` calls it only
for a slice where the value at ``k`` is tied.

Example:
    >>> from minigrad.kernels.quick_select import quick_select_position
    >>> quick_select_position([1.0, 3.0, 3.0, 2.0, 3.0], 2)
    2
"""

from __future__ import annotations

from typing import Any

__all__ = ["quick_select_position"]


def _gt_or_nan(x: Any, y: Any) -> bool:
    """PyTorch's comparison: ``x > y``, or ``x`` NaN and ``y`` not."""
    return (x != x and y == y) or x > y


def quick_select_position(values: list[Any], k: int) -> int:
    """The position (in ``values``) of the element PyTorch's quickselect leaves at index ``k`` (0-based)."""
    arr, pos = list(values), list(range(len(values)))

    def swap(a: int, b: int) -> None:
        arr[a], arr[b] = arr[b], arr[a]
        pos[a], pos[b] = pos[b], pos[a]

    lo, hi = 0, len(arr) - 1
    while hi > lo:
        if hi == lo + 1:  # two elements
            if _gt_or_nan(arr[lo], arr[hi]):
                swap(lo, hi)
            break
        swap(lo + (hi - lo) // 2, lo + 1)  # the median of three to arr[lo]: arr[lo + 1] <= arr[lo] <= arr[hi]
        if _gt_or_nan(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if _gt_or_nan(arr[lo], arr[hi]):
            swap(lo, hi)
        if _gt_or_nan(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, arr[lo]
        while True:
            i += 1
            while _gt_or_nan(pivot, arr[i]):
                i += 1
            j -= 1
            while _gt_or_nan(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return pos[k]
