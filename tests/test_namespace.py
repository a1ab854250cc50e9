"""``import minigrad`` shows the API and nothing else (NOTE [ The namespace is the API ] in minigrad/__init__.py).

A student's ``dir(mg)`` or tab completion must not offer the helpers a module
imports for itself (``annotations``, ``Any``, ``OrderedDict``, ``math``, ...).
"""

from __future__ import annotations

import types

import pytest

import minigrad as mg

PUBLIC = ["minigrad", "minigrad.nn", "minigrad.nn.functional", "minigrad.optim", "minigrad.autograd",
          "minigrad.optim.lr_scheduler", "minigrad.nn.utils", "minigrad.utils", "minigrad.utils.data",
          "minigrad.autograd.functional", "minigrad.func", "minigrad.utils.checkpoint", "minigrad.autograd.graph"]
LEAKS = {"annotations", "Any", "OrderedDict", "math", "Iterator", "Iterable", "Sequence", "Callable", "np", "abc"}


def _module(name: str) -> types.ModuleType:
    mod = mg
    for part in name.split(".")[1:]:
        mod = getattr(mod, part)
    return mod


@pytest.mark.parametrize("name", PUBLIC)
def test_dir_lists_only_the_api(name: str) -> None:
    mod = _module(name)
    shown = [n for n in dir(mod) if not n.startswith("__")]
    assert not LEAKS & set(shown), f"dir({name}) shows helpers: {sorted(LEAKS & set(shown))}"
    for n in shown:
        value = getattr(mod, n)  # every name dir() offers must resolve
        in_api = n in mod.__all__
        submodule = isinstance(value, types.ModuleType) and value.__name__ == f"{name}.{n}"
        assert in_api or submodule, f"dir({name}) shows {n!r}, which is neither in __all__ nor a subpackage"
    assert set(mod.__all__) <= set(dir(mod)), f"{name}.__all__ names something dir() hides"


@pytest.mark.parametrize("name", PUBLIC)
def test_all_names_only_public_objects(name: str) -> None:
    mod = _module(name)
    assert len(mod.__all__) == len(set(mod.__all__)), f"{name}.__all__ has duplicates"
    for n in mod.__all__:
        assert not n.startswith("_"), n
        assert n not in LEAKS, f"{name}.__all__ exports the helper {n!r}"
        assert hasattr(mod, n), f"{name}.__all__ names {n!r}, which does not exist"


@pytest.mark.parametrize("name", ["minigrad", "minigrad.nn"])
def test_named_helpers_are_gone_not_just_hidden(name: str) -> None:
    mod = _module(name)
    for helper in ("annotations", "Any", "OrderedDict", "math"):
        assert not hasattr(mod, helper), f"{name}.{helper} exists"


def test_star_import_gives_the_api() -> None:
    ns: dict[str, object] = {}
    exec("from minigrad import *", ns)
    got = {n for n in ns if not n.startswith("__")}
    assert got == set(mg.__all__)
    assert not LEAKS & got


def test_version_comes_from_the_package_metadata() -> None:
    from importlib.metadata import version

    assert mg.__version__ == version("minigrad")
    assert "__version__" in dir(mg)
