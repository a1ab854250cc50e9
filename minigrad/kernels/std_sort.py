"""libstdc++'s ``std::sort``, step for step: where it leaves elements that compare equal.

PyTorch's CPU ``mode`` (``mode_kernel_impl`` in ``aten/src/ATen/native/cpu/TensorCompareKernel.cpp``) pairs
every element of a slice with its position, sorts the pairs with ``std::sort`` comparing the values only, and
returns the position of the *last pair of the longest run* in that order. ``std::sort`` is not stable, so among
equal values which position ends last is decided by the algorithm itself: an introsort (quicksort with a
median-of-three pivot, a heapsort once the recursion is too deep) that leaves runs of at most 16 elements to
one final insertion sort. Comparisons with NaN are false, so a NaN also stays where that algorithm leaves it.

To give the index PyTorch gives, this module runs the same algorithm (libstdc++'s ``bits/stl_algo.h`` and
``bits/stl_heap.h``) on a list of ``(value, position)`` pairs, comparing ``value`` with ``<`` as the C++
lambda does. It is plain Python, one slice at a time: mode is a teaching-sized op.

Example:
    >>> from minigrad.kernels.std_sort import std_sort
    >>> pairs = [(1.0, 0), (2.0, 1), (1.0, 2)]
    >>> std_sort(pairs)
    >>> pairs
    [(1.0, 0), (1.0, 2), (2.0, 1)]
"""

from __future__ import annotations

from typing import Any

__all__ = ["std_sort", "sorted_positions", "topk_positions", "nth_element", "partial_sort"]

#: Ranges at most this long are left to the final insertion sort (libstdc++'s ``_S_threshold``).
_THRESHOLD = 16

Pairs = list[tuple[Any, int]]


def std_sort(a: Pairs) -> None:
    """Sort ``a`` in place by ``value`` exactly as ``std::sort(a.begin(), a.end(), less-by-value)`` does."""
    n = len(a)
    if n > 1:
        _introsort_loop(a, 0, n, 2 * (n.bit_length() - 1))
        _final_insertion_sort(a, 0, n)


def sorted_positions(values: list[Any], descending: bool = False) -> list[int]:
    """The positions of ``values`` in the order PyTorch's CPU ``sort(stable=False)`` gives them: ``std::sort``
    of (value, position) pairs by PyTorch's comparators, NaN above every number (``KeyValueCompAsc``: a
    number before NaN, else ``a < b``; ``KeyValueCompDesc``: NaN before a number, else ``a > b``)."""
    def nan(v: Any) -> bool:
        return v != v

    key = (lambda v: (not nan(v), -v)) if descending else (lambda v: (nan(v), v))
    pairs = [(key(v), i) for i, v in enumerate(values)]
    std_sort(pairs)
    return [i for _, i in pairs]


def topk_positions(values: list[Any], k: int, largest: bool = True, sort: bool = True) -> list[int]:
    """The positions PyTorch's CPU ``topk`` returns for one slice (``topk_impl_loop``): (value, position) pairs
    by its comparators (NaN above every number), ``std::partial_sort`` of the first ``k`` when ``k * 64 <= n``,
    else ``std::nth_element`` at ``k - 1`` and, with ``sort``, ``std::sort`` of the ``k - 1`` before it."""
    def nan(v: Any) -> bool:
        return v != v

    key = (lambda v: (not nan(v), -v)) if largest else (lambda v: (nan(v), v))
    pairs = [(key(v), i) for i, v in enumerate(values)]
    if k * 64 <= len(pairs):
        partial_sort(pairs, k)
    else:
        nth_element(pairs, k - 1)
        if sort:
            head = pairs[:k - 1]
            std_sort(head)
            pairs[:k - 1] = head
    return [i for _, i in pairs[:k]]


def _introsort_loop(a: Pairs, first: int, last: int, depth: int) -> None:
    """Quicksort the range down to pieces of ``_THRESHOLD``; heapsort a piece once ``depth`` runs out."""
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(a, first, last)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last)
        _introsort_loop(a, cut, last, depth)
        last = cut


def _partition_pivot(a: Pairs, first: int, last: int) -> int:
    """The median of the second, middle and last elements moved to ``first``, then the rest partitioned by it."""
    mid = first + (last - first) // 2
    x, y, z = a[first + 1][0], a[mid][0], a[last - 1][0]
    if x < y:
        pick = mid if y < z else last - 1 if x < z else first + 1
    else:
        pick = first + 1 if x < z else last - 1 if y < z else mid
    a[first], a[pick] = a[pick], a[first]
    return _unguarded_partition(a, first + 1, last, a[first][0])


def _unguarded_partition(a: Pairs, first: int, last: int, pivot: Any) -> int:
    """Hoare's partition: elements below ``pivot`` to the left, above it to the right, equal ones swapped."""
    while True:
        while a[first][0] < pivot:
            first += 1
        last -= 1
        while pivot < a[last][0]:
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _final_insertion_sort(a: Pairs, first: int, last: int) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(a, i)
    else:
        _insertion_sort(a, first, last)


def _insertion_sort(a: Pairs, first: int, last: int) -> None:
    for i in range(first + 1, last):
        if a[i][0] < a[first][0]:
            a[first:i + 1] = [a[i]] + a[first:i]
        else:
            _unguarded_linear_insert(a, i)


def _unguarded_linear_insert(a: Pairs, i: int) -> None:
    value = a[i]
    j = i - 1
    while value[0] < a[j][0]:
        a[j + 1] = a[j]
        j -= 1
    a[j + 1] = value


# -- std::nth_element and std::partial_sort (PyTorch's CPU topk) ----------------------------------------------


def nth_element(a: Pairs, nth: int) -> None:
    """``std::nth_element(a.begin(), a.begin() + nth, a.end())``: libstdc++'s introselect - the quicksort's
    partition narrowed to the side holding ``nth`` down to 3 elements, then an insertion sort; a heap select once
    the depth runs out."""
    first, last = 0, len(a)
    if first == last or nth == last:
        return
    depth = 2 * (last.bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last)


def partial_sort(a: Pairs, middle: int) -> None:
    """``std::partial_sort(a.begin(), a.begin() + middle, a.end())``: a heap of the first ``middle``, each later
    element smaller than its top swapped in, then the heap sorted."""
    _heap_select(a, 0, middle, len(a))
    while middle > 1:
        middle -= 1
        _pop_heap(a, 0, middle, middle)


def _heap_select(a: Pairs, first: int, middle: int, last: int) -> None:
    n = middle - first
    if n >= 2:
        for parent in range((n - 2) // 2, -1, -1):
            _adjust_heap(a, first, parent, n, a[first + parent])
    for i in range(middle, last):
        if a[i][0] < a[first][0]:
            _pop_heap(a, first, middle, i)


def _pop_heap(a: Pairs, first: int, last: int, result: int) -> None:
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value)


# -- the heapsort fallback (``std::__partial_sort(first, last, last)``: make_heap, then sort_heap) -----------


def _heap_sort(a: Pairs, first: int, last: int) -> None:
    n = last - first
    if n >= 2:
        for parent in range((n - 2) // 2, -1, -1):
            _adjust_heap(a, first, parent, n, a[first + parent])
    while last - first > 1:
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, value)


def _adjust_heap(a: Pairs, first: int, hole: int, n: int, value: tuple[Any, int]) -> None:
    """Sift the hole at ``hole`` down to a leaf along the larger children, then push ``value`` up from there."""
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if a[first + child][0] < a[first + child - 1][0]:
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and a[first + parent][0] < value[0]:
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value
