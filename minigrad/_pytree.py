"""Nested containers of tensors as flat lists and back: what PyTorch calls a pytree.

The function transforms (``mg.func``) take and return such containers: ``grad`` of a
function of a dict of parameters returns a dict of gradients, ``vmap`` maps over every
tensor of a tuple of dicts. Tuples, lists, dicts (in insertion order) and named tuples
are containers, anything else (``None`` too) is a leaf - PyTorch's
``torch.utils._pytree`` rules, so the structures and their printed specs are the same.

Example:
    >>> leaves, spec = tree_flatten(({"w": 1, "b": 2}, [3]))
    >>> leaves
    [1, 2, 3]
    >>> tree_unflatten([10, 20, 30], spec)
    ({'w': 10, 'b': 20}, [30])
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["TreeSpec", "LEAF", "tree_flatten", "tree_unflatten", "broadcast_prefix"]


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


class TreeSpec:
    """The shape of a container: its type, its context (a dict's keys, a named tuple's class) and
    its children's specs; ``LEAF`` stands for one value."""

    __slots__ = ("type", "context", "children")

    def __init__(self, type_: type | None, context: Any = None, children: tuple["TreeSpec", ...] = ()) -> None:
        self.type = type_
        self.context = context
        self.children = children

    @property
    def num_leaves(self) -> int:
        return 1 if self.type is None else sum(c.num_leaves for c in self.children)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TreeSpec) and self.type is other.type and self.context == other.context
                and self.children == other.children)

    def __hash__(self) -> int:
        return hash((self.type, len(self.children)))

    def pprint(self) -> str:
        """The short form PyTorch's messages print (``(*, {'a': *})``)."""
        if self.type is None:
            return "*"
        parts = [c.pprint() for c in self.children]
        if self.type is dict:
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.context, parts)) + "}"
        if self.type is list:
            return "[" + ", ".join(parts) + "]"
        if self.type is tuple:
            return "(" + ", ".join(parts) + (",)" if len(parts) == 1 else ")")
        return f"{self.type.__name__}(" + ", ".join(f"{f}={v}" for f, v in zip(self.type._fields, parts)) + ")"

    def __repr__(self, indent: int = 0) -> str:
        # PyTorch's TreeSpec repr, which its error messages print: children after the first go on
        # their own lines, indented two more spaces per level.
        if self.type is None:
            return "*"
        ctx = list(self.context) if self.type is dict else self.context
        inner = ""
        if self.children:
            indent += 2
            inner = self.children[0].__repr__(indent) + ("," if len(self.children) > 1 else "")
            inner += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return f"TreeSpec({self.type.__name__}, {ctx}, [{inner}])"


LEAF = TreeSpec(None)


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], TreeSpec]:
    """The leaves of ``tree``, left to right, and its spec."""
    leaves: list[Any] = []

    def walk(node: Any) -> TreeSpec:
        if is_leaf is not None and is_leaf(node):
            leaves.append(node)
            return LEAF
        if isinstance(node, dict):
            keys = tuple(node)
            return TreeSpec(dict, keys, tuple(walk(node[k]) for k in keys))
        if _is_namedtuple(node):
            return TreeSpec(type(node), type(node), tuple(walk(v) for v in node))
        if type(node) in (tuple, list):
            return TreeSpec(type(node), None, tuple(walk(v) for v in node))
        leaves.append(node)
        return LEAF

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves: list[Any], spec: TreeSpec) -> Any:
    """The container of ``spec`` holding ``leaves``."""
    it = iter(leaves)

    def build(s: TreeSpec) -> Any:
        if s.type is None:
            return next(it)
        values = [build(c) for c in s.children]
        if s.type is dict:
            return dict(zip(s.context, values))
        if s.type in (tuple, list):
            return s.type(values)
        return s.type(*values)  # a named tuple

    return build(spec)


def broadcast_prefix(prefix: Any, spec: TreeSpec) -> list[Any] | None:
    """One value per leaf of ``spec``: ``prefix`` is a container of the same shape as the top of the
    tree, whose non-container values (numbers, None) stand for every leaf below them (``vmap``'s
    ``in_dims=(0, None)`` over ``(dict_of_tensors, x)``). None where the shapes do not match."""
    if spec.type is None or not isinstance(prefix, (tuple, list, dict)):
        return [prefix] * spec.num_leaves
    if spec.type is dict:
        if not isinstance(prefix, dict) or set(prefix) != set(spec.context):
            return None
        parts = [broadcast_prefix(prefix[k], c) for k, c in zip(spec.context, spec.children)]
    else:
        if isinstance(prefix, dict) or len(prefix) != len(spec.children):
            return None
        if (type(prefix) is list) != (spec.type is list):
            return None
        parts = [broadcast_prefix(p, c) for p, c in zip(prefix, spec.children)]
    if any(p is None for p in parts):
        return None
    return [v for p in parts for v in p]  # type: ignore[union-attr]
